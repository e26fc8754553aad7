# %% [markdown]
# # Ming Dynasty, 2 players: do the neutral colour's rulings matter?
#
# A worked balance study (docs/studies.md): `experiments/configs/studies/ming_dynasty_neutral.toml`
# plays heuristic self-play at 2 players under the three readings of D23 (`neutral_keep`) and the
# two of D26 (`neutral_pool`), 6 cells on the same deals, in batches until every seat's win rate
# and every paired effect is known to +-0.01 (valid under the repeated looks).  Runnable as a
# script — `python notebooks/ming_dynasty_study.py [GAMES_PER_CELL]` — or cell by cell.
#
# Question: does any alternative reading move the first seat's win rate, the tie rate or the
# winner's margin, against the rulings the engine plays by default?

# %%
import sys
from pathlib import Path

import pandas as pd

from experiments.study.report import make_study_report, study_tables
from experiments.study.study import load_study, run_study

ROOT = Path(__file__).resolve().parents[1] if "__file__" in globals() else Path.cwd()
CONFIG = ROOT / "experiments" / "configs" / "studies" / "ming_dynasty_neutral.toml"


def answer(study, tables) -> pd.DataFrame:
    """Per cell: seat 0's paired effect against the default rulings, tie rate and margin."""
    eff = tables["effects"]
    rows = []
    for c in tables["cells"]:
        m = tables["metrics"][c.name]
        e = eff[(eff["cell"] == c.name) & (eff["group"] == 0)]
        rows.append(
            {
                "cell": c.name,
                "deals": m["tie_rate"]["n"],
                "seat0_effect": float(e["effect"].iloc[0]) if len(e) else 0.0,
                "effect_low": float(e["low"].iloc[0]) if len(e) else 0.0,
                "effect_high": float(e["high"].iloc[0]) if len(e) else 0.0,
                "width_ratio": float(e["width_ratio"].iloc[0]) if len(e) else float("nan"),
                "tie_rate": m["tie_rate"]["value"],
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
