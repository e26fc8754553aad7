# %% [markdown]
# # Middle Kingdom balance: what do winners hold?
#
# A worked analysis over a results folder of `dynasty run` (by default the demo's,
# `results/demo`; run `make demo` first).  Runnable as a script —
# `python notebooks/middle_kingdom_balance.py [RESULTS_DIR]` — or cell by cell in an editor
# that understands `# %%` cells.  It answers three balance questions:
#
# 1. How much is each goal card worth?  Win rate of seats holding it at the end, against
#    those that do not, with 95% Wilson intervals.
# 2. Where do winners' points come from?  Mean points by source, winners against the rest.
# 3. Is the first seat favoured once agents are equal?  (Only meaningful for rows of the
#    same agent; the demo mixes agents, so it is computed per agent.)

# %%
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from experiments.analysis.results import load_results, wilson

GOALS = ["palace", "harvest", "market", "heir", "emperor", "dragon"]
SOURCES = [
    "f_vp_goals",
    "f_vp_cards",
    "f_vp_tokens",
    "f_vp_missing_types",
    "f_vp_peasants",
    "f_vp_philosopher",
]


def goal_value(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for g in GOALS:
        for held, part in df.groupby(df[f"f_goal_{g}"] > 0):
            lo, hi = wilson(part["win"].sum(), len(part))
            rows.append(
                {
                    "goal": g,
                    "held": bool(held),
                    "n": len(part),
                    "win_rate": part["win"].mean(),
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
    return pd.DataFrame(rows)


def points_by_source(df: pd.DataFrame) -> pd.DataFrame:
    return (
        df.groupby(df["rank"] == 1)[SOURCES].mean().rename(index={True: "winners", False: "others"})
    )


def seat_by_agent(df: pd.DataFrame) -> pd.DataFrame:
    return (
        df.groupby(["agent", "seat"])["win"]
        .agg(["count", "mean"])
        .rename(columns={"count": "n", "mean": "win_rate"})
    )


def main(results: str = "results/demo", out: str | None = None) -> dict:
    df = load_results(Path(results))
    df = df[df["game"] == "middle_kingdom"]
    if df.empty:
        raise SystemExit(f"{results}: no Middle Kingdom games")
    goals, sources, seats = goal_value(df), points_by_source(df), seat_by_agent(df)
    print(f"{df['game_index'].nunique():,} games, {len(df):,} seats\n")
    print(goals.to_string(index=False, float_format="%.3f"), "\n")
    print(sources.to_string(float_format="%.2f"), "\n")
    print(seats.to_string(float_format="%.3f"))
    # %% The goal-card plot: held against not held
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for held in (False, True):
        part = goals[goals["held"] == held]
        x = [j + (0.2 if held else -0.2) for j in range(len(part))]
        ax.bar(
            x,
            part["win_rate"],
            width=0.4,
            label="held at the end" if held else "not held",
            yerr=[part["win_rate"] - part["ci_low"], part["ci_high"] - part["win_rate"]],
            capsize=3,
        )
    ax.set_xticks(range(len(GOALS)), GOALS)
    ax.set_ylabel("win rate (95% Wilson)")
    ax.set_title("Middle Kingdom: win rate by goal card held at the end")
    ax.legend()
    fig.tight_layout()
    path = Path(out or Path(results) / "report") / "goal_value.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"\nwrote {path}")
    return {"goals": goals, "sources": sources, "seats": seats, "plot": path}


if __name__ == "__main__":
    main(*sys.argv[1:2])
