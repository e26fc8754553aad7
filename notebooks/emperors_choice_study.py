# %% [markdown]
# # Emperor's Choice: Starting Bonus tiles and tribute VP
#
# A worked balance study (docs/studies.md): `experiments/configs/studies/emperors_choice_bonus.toml`
# plays heuristic self-play at 4 players in explicit cells: the printed game, no Starting Bonus
# tiles, and three other sets of tribute card VP, on the same deals.  Runnable as a script —
# `python notebooks/emperors_choice_study.py [GAMES_PER_CELL]` — or cell by cell.
#
# Questions: do the Starting Bonus tiles make the seats fairer (largest seat gap, chi-square)?
# How do the tribute VP move each seat's win rate and the winner's margin (paired effects)?

# %%
import sys
from pathlib import Path

import pandas as pd

from experiments.study.report import make_study_report, study_tables
from experiments.study.study import load_study, run_study

ROOT = Path(__file__).resolve().parents[1] if "__file__" in globals() else Path.cwd()
CONFIG = ROOT / "experiments" / "configs" / "studies" / "emperors_choice_bonus.toml"


def answer(study, tables) -> pd.DataFrame:
    rows = []
    for c in tables["cells"]:
        m = tables["metrics"][c.name]
        r = tables["rates"][tables["rates"]["cell"] == c.name].set_index("group")
        rows.append(
            {
                "cell": c.name,
                "deals": m["seat_gap"]["n"],
                "seat0": r.loc[0, "rate"],
                "seat_gap": m["seat_gap"]["value"],
                "gap_low": m["seat_gap"]["low"],
                "gap_high": m["seat_gap"]["high"],
                "chi2_p": m["seat_chi2_p"]["value"],
                "margin": m["margin"]["value"],
            }
        )
    return pd.DataFrame(rows)


def main(games: int | None = None, output: str | None = None, workers: int | None = None) -> dict:
    overrides = {k: v for k, v in (("games", games), ("output", output)) if v is not None}
    study = load_study(CONFIG, overrides)
    run_study(study, workers=workers, progress=False)
    tables = study_tables(study)
    paths = make_study_report(study)
    ans = answer(study, tables)
    print(ans.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(f"report: {paths['markdown']}")
    return {"study": study, "tables": tables, "answer": ans, "paths": paths}


# %%
if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else None)
