# %% [markdown]
# # Middle Kingdom: is there a seat advantage, and does the Noble table change it?
#
# A worked balance study (docs/studies.md): `experiments/configs/studies/middle_kingdom_seats.toml`
# plays random players at 2, 3, 4 and 5 players under each of the three reconstructed Noble VP
# tables, 12 cells on the same deals.  Runnable as a script —
# `python notebooks/middle_kingdom_study.py [GAMES_PER_CELL]` — or cell by cell.
#
# Questions: at which player counts do the seats win unequal shares (chi-square, largest seat
# gap with its interval)?  Does the Noble table move any seat's win rate (paired effects against
# the printed 4-player game, and how much the shared deals narrow them)?

# %%
import sys
from pathlib import Path

import pandas as pd

from experiments.study.report import make_study_report, study_tables
from experiments.study.study import load_study, run_study

ROOT = Path(__file__).resolve().parents[1] if "__file__" in globals() else Path.cwd()
CONFIG = ROOT / "experiments" / "configs" / "studies" / "middle_kingdom_seats.toml"


def answer(study, tables) -> pd.DataFrame:
    """Per cell: players, Noble table, the largest seat gap with its interval, the chi-square p."""
    rows = []
    for c in tables["cells"]:
        m = tables["metrics"][c.name]
        rows.append(
            {
                "players": c.values["players"],
                "noble_vp_table": c.values["options.noble_vp_table"],
                "deals": m["seat_gap"]["n"],
                "seat_gap": m["seat_gap"]["value"],
                "gap_low": m["seat_gap"]["low"],
                "gap_high": m["seat_gap"]["high"],
                "worst_seat": m["seat_gap"]["worst_seat"],
                "chi2_p": m["seat_chi2_p"]["value"],
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
    eff = tables["effects"]
    same = eff[
        eff["cell"].str.startswith(f"players={study.cells[study.baseline].values['players']},")
    ]
    print(ans.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if len(same):
        print(
            "Noble tables against the printed one at the baseline's player "
            f"count: largest |effect| {same['effect'].abs().max():.4f}; the "
            f"paired interval is {same['width_ratio'].median():.2f} of the "
            f"unpaired width (n = {int(same['deals'].min()):,} deals)"
        )
    print(f"report: {paths['markdown']}")
    return {"study": study, "tables": tables, "answer": ans, "paths": paths}


# %%
if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else None)
