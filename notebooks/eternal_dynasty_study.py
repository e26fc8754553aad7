# %% [markdown]
# # Eternal Dynasty, 2 players: how hard is the Eternal Emperor?
#
# A worked balance study (docs/studies.md):
# `experiments/configs/studies/eternal_dynasty_emperor.toml` plays random and heuristic pairs at 2
# players against the Eternal Emperor (a non-player side), with the Emperor's vote weight at 0, 1
# (printed), 2 and 3, 8 cells on the same deals.  Runnable as a script —
# `python notebooks/eternal_dynasty_study.py [GAMES_PER_CELL]` — or cell by cell.
#
# Question: what share of games does the Eternal Emperor win (the design metric
# `no_winner_rate`: no seat wins) against weak (random) and stronger (heuristic) players, and
# how much does its vote weight move that?

# %%
import sys
from pathlib import Path

import pandas as pd

from experiments.study.report import make_study_report, study_tables
from experiments.study.study import load_study, run_study

ROOT = Path(__file__).resolve().parents[1] if "__file__" in globals() else Path.cwd()
CONFIG = ROOT / "experiments" / "configs" / "studies" / "eternal_dynasty_emperor.toml"


def answer(study, tables) -> pd.DataFrame:
    rows = []
    for c in tables["cells"]:
        m = tables["metrics"][c.name]["no_winner_rate"]
        rows.append(
            {
                "agents": "+".join(c.values["agents"]),
                "ee_vote_weight": c.values["components.two_player.ee_vote_weight"],
                "deals": m["n"],
                "emperor_wins": m["value"],
                "low": m["low"],
                "high": m["high"],
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
