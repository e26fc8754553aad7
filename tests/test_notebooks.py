"""The notebooks stay runnable: each runs on a small results folder made without Ray."""

import runpy
from pathlib import Path

import pyarrow.parquet as pq

from experiments.analysis.results import load_results
from experiments.run.config import from_dict
from experiments.run.runner import ChunkContext, job_of

ROOT = Path(__file__).resolve().parents[1]


def small_results(tmp_path, games=200):
    cfg = from_dict(
        {
            "game": "middle_kingdom",
            "players": 4,
            "agents": ["heuristic", "random", "random", "random"],
            "seats": "rotate",
            "games": games,
            "seed": 7,
            "output": str(tmp_path / "out"),
        },
        "nb.toml",
    )
    ctx = ChunkContext(job_of(cfg))
    folder = tmp_path / "out" / "data" / "game=middle_kingdom"
    folder.mkdir(parents=True)
    pq.write_table(ctx.table.fill(ctx.play(0, games)), folder / f"part-0-{games}.parquet")
    return tmp_path / "out"


def test_middle_kingdom_balance_notebook(tmp_path, capsys):
    results = small_results(tmp_path)
    nb = runpy.run_path(str(ROOT / "notebooks" / "middle_kingdom_balance.py"))
    out = nb["main"](str(results))
    goals = out["goals"]
    assert set(goals["goal"]) == {"palace", "harvest", "market", "heir", "emperor", "dragon"}
    assert (goals.groupby("goal")["n"].sum() == 800).all()  # every seat is either holding or not
    assert out["plot"].exists() and out["plot"].stat().st_size > 0
    # the points by source add up to the scores, for winners and the others alike
    df = load_results(results)
    mean_score = df.groupby(df["rank"] == 1)["score"].mean()
    assert abs(out["sources"].loc["winners"].sum() - mean_score[True]) < 1e-9
    assert abs(out["sources"].loc["others"].sum() - mean_score[False]) < 1e-9
    assert "200 games, 800 seats" in capsys.readouterr().out
