"""Replays of runs and tournaments with user agents: a Python agent's sample games are recorded as
they are played, `dynasty view` turns them into pages and `Game.from_replay` re-plays them."""

import itertools
import json

import numpy as np

from experiments.analysis.results import load_results
from experiments.cli import main
from experiments.run.config import from_dict
from experiments.run.runner import ChunkContext, job_of, replay_indices
from sim.game import Game

GAME = "goofspiel"
PYTHON_AGENT = "agents.examples:OnePlyEvaluate"
_ticks = itertools.count()


class Drifting:
    """Plays by a counter shared by every game of the process: the same deal played twice gets
    other decisions, so only a replay recorded as the game was played matches its results."""

    def act(self, view, legal_actions):
        return legal_actions[next(_ticks) % len(legal_actions)]


def config(tmp_path, agents, games=12, replays=3):
    return from_dict(
        {
            "game": GAME,
            "players": 2,
            "agents": agents,
            "games": games,
            "seed": 3,
            "output": str(tmp_path / "run"),
            "replays": replays,
            "options": {"num_cards": 5},
        },
        "r.toml",
    )


def test_a_python_agents_sample_is_recorded_as_played(tmp_path):
    cfg = config(tmp_path, [f"{__name__}:Drifting", "heuristic"])
    ctx = ChunkContext(job_of(cfg))
    chunk = ctx.play(0, cfg.games)
    sample = replay_indices(cfg.games, cfg.replays)
    assert sorted(chunk["replays"]) == sample == [0, 6, 11]
    for i, rep in chunk["replays"].items():
        assert rep["scores"] == chunk["scores"][i].tolist()
        assert Game.from_replay(rep).history == rep["decisions"]
        seats = chunk["seat_agent"][i]
        assert rep["experiment"]["agents"] == [cfg.agents[s].label for s in seats]
    # a chunk without sample games records nothing
    assert "replays" not in ctx.play(1, 6)


def test_a_user_kernel_game_is_played_again_for_its_replay(tmp_path):
    cfg = config(tmp_path, ["agents.examples:random_legal", "heuristic"])
    ctx = ChunkContext(job_of(cfg))
    chunk = ctx.play(0, cfg.games)  # in the arena: nothing recorded
    assert "replays" not in chunk
    for i in replay_indices(cfg.games, cfg.replays):
        rep = ctx.replay(i)  # the kernel decides as it did in the arena
        assert rep["scores"] == chunk["scores"][i].tolist()


RAY_WORKERS = 1  # the module's Ray session (tests/conftest.py, ray_session)


def test_run_and_tournament_with_a_python_agent_write_replays_and_pages(ray_session, tmp_path):
    path = tmp_path / "u.toml"
    path.write_text(
        f'game = "{GAME}"\nplayers = 2\nagents = ["{PYTHON_AGENT}", "random"]\ngames = 10\n'
        f'seed = 5\nreplays = 2\noutput = "{tmp_path / "u"}"\n[options]\nnum_cards = 5\n'
    )
    assert main(["run", str(path), "--quiet", "--workers", "1", "--chunk-size", "4"]) == 0
    df = load_results(tmp_path / "u")
    files = sorted((tmp_path / "u" / "replays").glob("*.json"))
    assert [f.name for f in files] == ["game-000000000.json", "game-000000009.json"]
    for f in files:
        rep = json.loads(f.read_text())
        i = rep["experiment"]["game_index"]
        rows = df[df["game_index"] == i].sort_values("seat")
        assert Game.from_replay(f).scores == rep["scores"] == rows["score"].tolist()
        assert PYTHON_AGENT in rep["experiment"]["agents"]
    assert main(["view", str(tmp_path / "u")]) == 0
    pages = sorted(p.name for p in (tmp_path / "u" / "replays").glob("*.html"))
    assert pages == ["game-000000000.html", "game-000000009.html"]

    t = tmp_path / "t.toml"
    t.write_text(
        f'game = "{GAME}"\nplayers = 2\ndeals = 3\nseed = 1\noutput = "{tmp_path / "t"}"\n'
        f'pool = ["random", "heuristic", "{PYTHON_AGENT}"]\n[options]\nnum_cards = 5\n'
    )
    assert main(["tournament", str(t), "--quiet", "--workers", "1"]) == 0
    md = (tmp_path / "t" / "report" / "report.md").read_text()
    assert "no page" not in md
    lineups = sorted((tmp_path / "t" / "lineups").iterdir())
    kept = [x for x in lineups if (x / "replays" / "game-000000000.json").exists()]
    assert len(lineups) == 3 and len(kept) == 2  # the two lineups with the Python agent
    for x in kept:
        rep = json.loads((x / "replays" / "game-000000000.json").read_text())
        assert PYTHON_AGENT in rep["experiment"]["agents"]
        assert Game.from_replay(rep).scores == rep["scores"]
        row = load_results(x).query("game_index == 0").sort_values("seat")
        assert np.allclose(row["score"], rep["scores"])
    assert md.count("](viewer/lineup-") == 3  # a page for every lineup
    viewer = sorted(p.name for p in (tmp_path / "t" / "report" / "viewer").glob("*.html"))
    assert len(viewer) == 3
