"""Experiments pipeline: config validation, planning, determinism across workers and chunk
sizes, resume after an interruption or a killed process, replays, the report and the CLI.

Runs on goofspiel (small and fast); nothing here depends on which game it is beyond the
config.  One local Ray session (2 CPUs) is shared by the tests of this module.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.analysis.report import make_report
from experiments.analysis.results import load_results
from experiments.cli import main
from experiments.run import store
from experiments.run.config import ConfigError, from_dict, load_config
from experiments.run.plan import Plan, chunk_ranges, missing_ranges, rotations_of
from experiments.run.runner import ChunkContext, job_of, release_workers, run
from experiments.run.schema import FEATURE_PREFIX, OPTION_PREFIX
from sim import Game, get_game
from tests.toml_files import write_toml

ROOT = Path(__file__).resolve().parents[1]
GAME = "goofspiel"


def base(tmp_path, **kw):
    d = {
        "game": GAME,
        "players": 3,
        "agents": ["heuristic", "random", "random"],
        "seats": "rotate",
        "games": 600,
        "seed": 12345,
        "output": str(tmp_path / "out"),
        "options": {"num_cards": 6},
    }
    d.update(kw)
    return d


def reference(cfg) -> pd.DataFrame:
    """All rows of a config played in this process in one chunk, without Ray."""
    ctx = ChunkContext(job_of(cfg))
    df = ctx.table.fill(ctx.play(0, cfg.games)).to_pandas()
    df.insert(0, "game", GAME)
    return df


def comparable(df: pd.DataFrame) -> pd.DataFrame:
    from experiments.run.schema import (
        MEASURED_COLUMNS,
    )  # agent time: a measurement, different in every run

    df = df.assign(**{c: 0.0 for c in MEASURED_COLUMNS if c in df.columns})
    df = df.sort_values(["game_index", "seat"]).reset_index(drop=True)
    return df.astype(
        {
            c: str
            for c in df.columns
            if isinstance(df[c].dtype, pd.CategoricalDtype) or df[c].dtype == object
        }
    )


# --------------------------------------------------------------------------- without Ray


@pytest.mark.parametrize(
    "change, field",
    [
        ({"game": "chess"}, "game: unknown game 'chess'"),
        ({"players": 7}, "players: "),
        ({"players": "three"}, "players: expected an integer"),
        ({"agents": ["heuristic", "alphazero", "random"]}, "agents[1]: unknown agent 'alphazero'"),
        ({"agents": ["random", "random"]}, "agents: 2 agents for 3 players"),
        ({"options": {"num_cards": 0}}, "options: option 'num_cards'"),
        ({"options": {"deck": "short"}}, "options: goofspiel: unknown option 'deck'"),
        (
            {"options": {"points_order": "sideways"}},
            "options: option 'points_order': 'sideways' is not allowed",
        ),
        ({"seats": "random"}, "seats: 'random' is not allowed (allowed: rotate, fixed)"),
        ({"games": 601}, "games: 601 is not a multiple of the 3 seat rotations"),
        ({"games": 0}, "games: 0 is out of range"),
        ({"seed": -3}, "seed: -3 is out of range"),
        ({"seed": 1.5}, "seed: expected an integer"),
        ({"colour": "red"}, "unknown key 'colour'"),
        ({"replays": 601}, "replays: 601 is out of range"),
    ],
)
def test_bad_configs_are_one_line_errors_naming_the_field(tmp_path, change, field):
    with pytest.raises(ConfigError) as e:
        from_dict(base(tmp_path, **change), "exp.toml")
    msg = str(e.value)
    assert msg.startswith("exp.toml: ") and field in msg, msg
    assert "\n" not in msg


def test_missing_key_and_cli_exit_code(tmp_path, capsys):
    d = base(tmp_path)
    del d["seed"]
    path = write_toml(tmp_path / "bad.toml", d)
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err == f"dynasty: error: {path}: missing key 'seed' (required: "
        "game, players, agents, games, seed, output)"
    )
    (tmp_path / "broken.toml").write_text("game = goofspiel\n")
    assert main(["run", str(tmp_path / "broken.toml")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_cli_lists_games_and_benchmarks(capsys):
    from sim import game_names

    assert main(["games"]) == 0
    out = capsys.readouterr().out
    for name in game_names():
        assert out.count(f"{name} — ") == 1
    assert any(line.startswith("agents: ") and "mcts" in line for line in out.splitlines())
    assert "models: " in out
    assert "  middle_kingdom: middle_kingdom, 4 players, generation " in out
    assert "  middle_kingdom_all: middle_kingdom, 2, 3, 4, 5 players, generation " in out
    assert "(policy:middle_kingdom, mcts:5ms,net=middle_kingdom,leaf=rollout)" in out
    assert main(["bench", "--list"]) == 0
    assert "runner" in capsys.readouterr().out.split()
    assert main(["bench", "no_such_bench"]) == 2
    assert "unknown benchmark 'no_such_bench'" in capsys.readouterr().err


def test_engine_benchmark_pairs_random_and_heuristic_chunks(capsys):
    """``dynasty bench engines`` times random and heuristic chunks in turn and prints the
    heuristic's cost as the median of the rounds' ratios, inside their range."""
    from agents.table import HEURISTIC, RANDOM
    from experiments.bench.engines import paired_rates

    rates = paired_rates(get_game(GAME), 2, 0.2)
    med, lo, hi, rounds = rates[HEURISTIC]["ratio"]
    assert rounds >= 1 and lo <= med <= hi and "ratio" not in rates[RANDOM]
    for r in rates.values():
        assert r["played"] > 0 and r["decisions"] > r["games"] > 0 and len(r["dps"]) == rounds
    assert main(["bench", "engines", "--game", GAME, "--seconds", "0.1", "--no-versus"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"| {GAME} |")]
    assert len(rows) == len(get_game(GAME).players())
    assert all(" rounds) |" in row for row in rows)


def test_eternal_dynasty_heuristic_benchmark_splits_its_time_by_decision_kind(capsys):
    """``dynasty bench eternal_dynasty_heuristic`` counts every decision's kind (the shares of
    the kinds it timed sum to at most 1, the main action among them), times the kinds it kept states
    of, and prints one row per kind; bad arguments are refused."""
    from experiments.bench.eternal_dynasty_heuristic import kind_names, measure

    r = measure(3, 2, 1)
    names = kind_names()
    kinds = {names[row["kind"]] for row in r["rows"]}
    assert "action" in kinds and "gain" in kinds
    assert sum(row["freq"] for row in r["rows"]) <= 1 + 1e-9
    assert sum(row["calls"] for row in r["rows"]) <= r["decisions"]
    assert all(row["sampled"] >= 1 and row["calls"] >= row["sampled"] for row in r["rows"])
    assert r["random_us"] > 0 and r["heuristic_us"] == pytest.approx(
        sum(row["us_per_decision"] for row in r["rows"])
    )
    assert (
        main(
            ["bench", "eternal_dynasty_heuristic", "--players", "2", "--games", "1", "--reps", "1"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "| action |" in out and "x random play's decision" in out
    with pytest.raises(SystemExit):
        main(["bench", "eternal_dynasty_heuristic", "--games", "0"])
    with pytest.raises(Exception, match="players"):
        measure(7, 1, 1)


def test_compare_benchmark_times_the_same_games_in_two_trees(capsys):
    """``dynasty bench compare`` plays the same chunks in a worker per tree and says whether
    their games were the same: this tree against itself (its own numba cache) gives the same
    games and a ratio near 1, per chunk and per decision; a revision git cannot check out and an
    unknown game are errors."""
    cache = os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
    assert (
        main(
            [
                "bench",
                "compare",
                "--base-tree",
                str(ROOT),
                "--base-cache",
                cache,
                "--game",
                f"{GAME}:2",
                "--rounds",
                "4",
                "--seconds",
                "0.4",
            ]
        )
        == 0
    )
    rows = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith(f"| {GAME} | 2 |")
    ]
    assert len(rows) == 1 and rows[0].endswith("| yes |")
    median, per_decision = (float(rows[0].split("|")[i].split()[0]) for i in (4, 5))
    assert 0.3 < median < 3  # the same code: far from a real change's ratio only by noise
    assert per_decision == pytest.approx(median, rel=1e-9)  # the same games: the same decisions
    with pytest.raises(SystemExit, match="cannot check out 'no-such-revision'"):
        main(["bench", "compare", "--base", "no-such-revision", "--game", GAME])
    assert main(["bench", "compare", "--base-tree", str(ROOT), "--game", "no_such_game"]) == 2
    assert "unknown game 'no_such_game'" in capsys.readouterr().err
    assert main(["bench", "compare"]) == 0 and "nothing to compare with" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["bench", "compare", "--base-tree", str(ROOT), "--rounds", "0"])
    assert "--rounds must be at least 1" in capsys.readouterr().err


def test_good_config_fills_option_defaults_and_dedupes_agents(tmp_path):
    cfg = load_config(write_toml(tmp_path / "ok.toml", base(tmp_path)))
    assert cfg.options == {**get_game(GAME).option_defaults(), "num_cards": 6}
    assert [a.label for a in cfg.agents] == ["heuristic", "random"] and cfg.lineup == (0, 1, 1)
    assert load_config(
        write_toml(tmp_path / "one.toml", base(tmp_path, agents=["random"]))
    ).lineup == (0, 0, 0)


@pytest.mark.parametrize(
    "lineup, n_rot", [((0, 1, 1), 3), ((0, 1, 0, 1), 2), ((0, 0, 0, 0), 1), ((0, 1, 1, 1), 4)]
)
def test_rotations_seat_every_lineup_slot_everywhere_equally(lineup, n_rot):
    rots = rotations_of(lineup, rotate=True)
    assert len(rots) == n_rot and len(set(rots)) == n_rot
    counts = np.zeros((max(lineup) + 1, len(lineup)), int)
    for r in rots:
        for seat, agent in enumerate(r):
            counts[agent, seat] += 1
    for agent in range(counts.shape[0]):
        assert len(set(counts[agent])) == 1, counts  # every agent equally often in every seat
    assert rotations_of(lineup, rotate=False) == (lineup,)


def test_plan_mirrors_deals_and_separates_agent_seeds():
    plan = Plan(games=12, players=3, master_seed=7, rotations=rotations_of((0, 1, 1), True))
    g = plan.games_of(0, 12)
    assert (g["deal"] == np.arange(12) // 3).all()
    for d in range(4):
        assert len(set(g["seed"][g["deal"] == d])) == 1  # rotations of a deal share its seed
    assert len(set(g["seed"])) == 4 and len(set(g["agent_seed"])) == 12
    part = plan.games_of(5, 9)
    for k in part:
        assert (part[k] == g[k][5:9]).all()  # a game's plan does not depend on its chunk


def test_missing_and_chunk_ranges():
    assert missing_ranges([], 10) == [(0, 10)]
    assert missing_ranges([(0, 3), (5, 7)], 10) == [(3, 5), (7, 10)]
    assert missing_ranges([(0, 10)], 10) == []
    chunks = chunk_ranges([(3, 5), (7, 23)], 8)
    assert chunks == [(3, 5), (7, 8), (8, 16), (16, 23)]


def test_results_doc_lists_every_fixed_column():
    from experiments.run.schema import ResultsTable

    doc = (ROOT / "docs" / "results-format.md").read_text()
    table = ResultsTable(get_game(GAME), 3, get_game(GAME).option_defaults(), ["random"])
    for c in table.columns:
        if not c.name.startswith((OPTION_PREFIX, FEATURE_PREFIX)):
            assert f"`{c.name}`" in doc, c.name


# --------------------------------------------------------------------------- with Ray


def test_same_results_with_one_or_two_workers_and_any_chunk_size(ray_session, tmp_path):
    cfg1 = from_dict(base(tmp_path, output=str(tmp_path / "w1"), replays=3), "a.toml")
    cfg2 = from_dict(base(tmp_path, output=str(tmp_path / "w2")), "a.toml")
    s1 = run(cfg1, workers=1, chunk_size=600, progress=False)
    s2 = run(cfg2, workers=2, chunk_size=97, progress=False)
    assert (s1.workers, s2.workers) == (1, 2) and s1.status == s2.status == "complete"
    assert len(store.done_ranges(cfg2.output, GAME)) == -(-600 // 97)
    d1, d2 = comparable(load_results(cfg1.output)), comparable(load_results(cfg2.output))
    assert len(d1) == 600 * 3 and d1["game_index"].nunique() == 600
    pd.testing.assert_frame_equal(d1, d2)
    pd.testing.assert_frame_equal(d1, comparable(reference(cfg1))[d1.columns])
    # a sanity check that the games are real: every game has exactly one unit of win shares
    assert np.allclose(d1.groupby("game_index")["win"].sum(), 1.0)

    # replays re-play to the same final scores as the Parquet rows
    reps = sorted((cfg1.output / "replays").glob("game-*.json"))
    assert len(reps) == 3
    for p in reps:
        rep = json.loads(p.read_text())
        i = rep["experiment"]["game_index"]
        rows = d1[d1["game_index"] == i].sort_values("seat")
        assert rep["scores"] == rows["score"].tolist() and rep["seed"] == int(rows["seed"].iloc[0])
        assert Game.from_replay(rep).scores == rep["scores"]

    m = json.loads((cfg1.output / "manifest.json").read_text())
    assert (
        m["complete"] and m["games_done"] == 600 and m["versions"]["numba"] and "commit" in m["git"]
    )
    assert m["sessions"][-1]["status"] == "complete" and m["sessions"][-1]["timings"]["total_s"] > 0

    # the report: tables with sample sizes, plots, and a fairness test
    paths = make_report(cfg1.output)
    md = paths["markdown"].read_text()
    for name in (
        "win_rate_by_seat.png",
        "win_rate_by_agent.png",
        "scores_by_seat.png",
        "game_length.png",
    ):
        assert paths[name].stat().st_size > 1000
    assert "| 0 | 600 |" in md and "| heuristic | 600 |" in md and "| random | 1200 |" in md
    assert "chi-square" in md and "mirrored" in md
    assert "<table>" in paths["html"].read_text()


def test_report_breaks_win_rate_down_by_the_groups_a_game_declares(
    ray_session, tmp_path, monkeypatch
):
    import dataclasses

    import sim.registry

    cfg = from_dict(base(tmp_path, output=str(tmp_path / "g"), games=300), "g.toml")
    run(cfg, workers=2, progress=False)
    spec = dataclasses.replace(
        get_game(GAME), report_groups=(("Rounds won", ("rounds_won", "points")),)
    )
    monkeypatch.setattr(sim.registry, "get_game", lambda name: spec)
    md = make_report(cfg.output, tmp_path / "rep")["markdown"].read_text()
    df = load_results(cfg.output)
    section = md.split("## Win rate by rounds won")[1].split("##")[0]
    for feat in ("rounds_won", "points"):
        held = df[f"f_{feat}"] > 0
        row = next(line for line in section.splitlines() if line.startswith(f"| {feat} |")).split(
            "|"
        )
        assert int(row[2]) == held.sum() and int(row[5]) == (~held).sum()
        assert abs(float(row[3]) - df.loc[held, "win"].mean()) < 1e-4
    assert (tmp_path / "rep" / "win_rate_by_group_0.png").exists()


@pytest.mark.parametrize("game", __import__("sim").game_names())
def test_every_game_runs_through_the_pipeline(ray_session, tmp_path, game):
    """Any registered game works here unchanged: a small rotated run, its rows, its report."""
    spec = get_game(game)
    n = min(spec.players())
    lineup = ["heuristic"] + ["random"] * (n - 1)
    cfg = from_dict(
        {
            "game": game,
            "players": n,
            "agents": lineup,
            "games": 20 * n,
            "seed": 3,
            "output": str(tmp_path / game),
        },
        f"{game}.toml",
    )
    s = run(cfg, workers=2, chunk_size=7, progress=False)
    assert s.status == "complete"
    df = load_results(cfg.output)
    assert len(df) == 20 * n * n and df["game_index"].nunique() == 20 * n
    assert np.allclose(df.groupby("game_index")["win"].sum(), 1.0)
    assert (df.groupby("seat")["agent"].apply(lambda a: (a == "heuristic").sum()) == 20).all()
    assert {f"f_{f}" for f in spec.feature_names} <= set(df.columns)
    assert {f"opt_{o.name}" for o in spec.options} <= set(df.columns)
    md = make_report(cfg.output)["markdown"].read_text()
    for title, _ in spec.report_groups:
        assert f"## Win rate by {title.lower()}" in md


def test_interrupted_run_resumes_without_loss_or_duplicates(ray_session, tmp_path, capsys):
    d = base(tmp_path, games=900, output=str(tmp_path / "r"))
    cfg = load_config(write_toml(tmp_path / "r.toml", d))
    s = run(cfg, workers=2, chunk_size=100, progress=False, stop_after=3)
    assert s.status == "interrupted"
    partial = store.done_ranges(cfg.output, GAME)
    assert 3 <= len(partial) < 9
    (store.data_dir(cfg.output, GAME) / ".tmp-999-part-000000800-000000900.parquet").write_bytes(
        b"half"
    )
    # the same command again (through the CLI), with another chunk size: only the rest is played
    assert main(["run", str(tmp_path / "r.toml"), "--chunk-size", "64", "--quiet"]) == 0
    assert "games played" in capsys.readouterr().out
    df = load_results(cfg.output)
    assert len(df) == 900 * 3 and not df.duplicated(["game_index", "seat"]).any()
    assert sorted(df["game_index"].unique()) == list(range(900))
    pd.testing.assert_frame_equal(comparable(df), comparable(reference(cfg))[df.columns])
    m = json.loads((cfg.output / "manifest.json").read_text())
    assert [x["status"] for x in m["sessions"]] == ["interrupted", "complete"] and m["complete"]
    # a third run has nothing to do; a different experiment in the same folder is refused
    assert main(["run", str(tmp_path / "r.toml"), "--quiet"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    write_toml(tmp_path / "other.toml", {**d, "seed": 99})
    assert main(["run", str(tmp_path / "other.toml")]) == 2
    assert "different experiment (seed: 12345 there, 99 in the config)" in capsys.readouterr().err


def test_a_lost_workers_chunks_are_played_by_the_worker_left(ray_session, tmp_path):
    cfg = from_dict(base(tmp_path, output=str(tmp_path / "lost"), games=1200), "lost.toml")
    killed = []

    def kill_a_worker(written, actors):
        if written == 1:
            pid = ray_session.get(actors[1].ready.remote())["pid"]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    s = run(cfg, workers=2, chunk_size=50, progress=False, on_chunk=kill_a_worker)
    assert killed and s.status == "complete"
    df = load_results(cfg.output)
    assert len(df) == 1200 * 3 and not df.duplicated(["game_index", "seat"]).any()
    pd.testing.assert_frame_equal(comparable(df), comparable(reference(cfg))[df.columns])


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killed_process_resumes(ray_session, tmp_path, sig):
    """SIGKILL (or SIGTERM: a clean interruption, recorded) a `dynasty run` joined to this Ray
    cluster mid-way, then run again."""
    d = base(tmp_path, games=30000, output=str(tmp_path / "k"))
    path = write_toml(tmp_path / "k.toml", d)
    cfg = load_config(path)
    # this process's warm workers hold the session's CPUs; the subprocess needs them
    release_workers()
    env = {**os.environ, "RAY_ADDRESS": ray_session.get_runtime_context().gcs_address}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "experiments.cli",
            "run",
            str(path),
            "--chunk-size",
            "10",
            "--quiet",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 120
    while (
        time.time() < deadline
        and proc.poll() is None
        and len(store.done_ranges(cfg.output, GAME)) < 5
    ):
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
    proc.send_signal(sig)
    proc.wait()
    if sig == signal.SIGTERM:
        # the CLI's handler, not Ray's (which aborts): exit 130 and the session recorded
        assert proc.returncode == 130 and "interrupted:" in proc.stderr.read().decode()
        assert (
            json.loads((cfg.output / "manifest.json").read_text())["sessions"][-1]["status"]
            == "interrupted"
        )
    before = store.done_ranges(cfg.output, GAME)
    assert 5 <= len(before) < 3000
    s = run(cfg, workers=2, chunk_size=5000, progress=False)
    assert s.status == "complete" and s.played == 30000 - sum(b - a for a, b in before)
    df = load_results(cfg.output, columns=["game_index", "seat", "win", "score"])
    assert len(df) == 30000 * 3 and not df.duplicated(["game_index", "seat"]).any()
    assert df["game_index"].nunique() == 30000
    ref = comparable(reference(cfg))
    pd.testing.assert_frame_equal(comparable(df), ref[["game_index", "seat", "win", "score"]])


def test_results_on_a_filesystem_uri_run_resume_and_report(ray_session, tmp_path, monkeypatch):
    """A results folder given as a pyarrow filesystem URI (here file://, the same code as s3:// or gs://):
    the workers write their own part files there, a stopped run resumes, the report reads it."""
    uri = "file://" + str(tmp_path / "remote")
    cfg = from_dict(base(tmp_path, output=uri, games=900, replays=2), "uri.toml")
    assert isinstance(cfg.output, store.FsPath) and str(cfg.output) == uri
    real_write = store.atomic_write

    def driver_write(path, data):
        assert not store.PART_RE.match(path.name), f"the driver wrote a part file: {path}"
        real_write(path, data)

    monkeypatch.setattr(
        store, "atomic_write", driver_write
    )  # the workers' own module is not patched
    s = run(cfg, workers=2, chunk_size=100, progress=False, stop_after=2)
    assert s.status == "interrupted" and 2 <= len(store.done_ranges(cfg.output, GAME)) < 9
    s = run(cfg, workers=2, chunk_size=64, progress=False)
    assert s.status == "complete"
    names = [p.name for p in (tmp_path / "remote" / "data" / f"game={GAME}").iterdir()]
    # a chunk the stopped session's workers finished late stays under its hidden name:
    # never published
    assert all(store.PART_RE.match(n) or n.startswith(store.TMP_PREFIX) for n in names)
    df = load_results(uri)
    assert len(df) == 900 * 3 and not df.duplicated(["game_index", "seat"]).any()
    pd.testing.assert_frame_equal(comparable(df), comparable(reference(cfg))[df.columns])
    paths = make_report(uri)
    assert str(paths["markdown"]) == uri + "/report/report.md"
    assert "**Games:** 900 of 900" in (tmp_path / "remote" / "report" / "report.md").read_text()
    assert len(list((tmp_path / "remote" / "replays").iterdir())) == 2
    with pytest.raises(ConfigError, match="output: nosuchscheme://x: not a results location"):
        from_dict(base(tmp_path, output="nosuchscheme://x"), "bad.toml")


def test_a_process_that_imported_ray_ends_with_its_code_and_its_output(tmp_path):
    """end_process: the exit code and everything printed survive, and the interpreter's teardown
    (atexit handlers, C++ static destructors beside Ray's leftover threads) does not run."""
    marker = tmp_path / "teardown-ran"
    script = (
        "import atexit, sys, ray\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').close())\n"
        "from experiments.run.runner import end_process\n"
        "print('written to stdout', end='')\n"
        "sys.stderr.write('written to stderr')\n"
        "end_process(3)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == "written to stdout" and proc.stderr.endswith("written to stderr")
    assert not marker.exists()
    without_ray = subprocess.run(
        [sys.executable, "-c", script.replace(", ray", "")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert (
        without_ray.returncode == 3 and marker.exists()
    )  # no Ray: a plain exit, atexit handlers run
