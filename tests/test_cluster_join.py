"""`dynasty run --address` against a cluster started as users start one (``ray start`` on a head
and on a second node, separate raylets on loopback, token authentication on): joining with the
token, the one-line errors of joining without it, with a wrong one or at an address where
nothing listens, a node that lacks the project or has other component data, the workers'
niceness per node, and a node lost in the middle of a run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from experiments.analysis.results import load_results
from experiments.run.config import load_config
from experiments.run.loopback import RayStartCluster, free_port
from experiments.run.runner import ChunkContext, job_of

DYNASTY = str(Path(sys.executable).with_name("dynasty"))
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def cluster():
    c = RayStartCluster()
    try:
        c.start_node()
        c.start_node()
        c.wait_nodes(2)
        yield c
    finally:
        c.shutdown()


def user_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A user's shell: no Ray address or mode set, a home of its own (no ~/.ray/auth_token)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_ADDRESS", "RAY_AUTH"))}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), **extra)
    return env


def write_config(tmp_path: Path, name: str, **fields) -> Path:
    body = {
        "name": name,
        "game": "goofspiel",
        "players": 4,
        "agents": ["heuristic", "random", "heuristic", "random"],
        "seats": "rotate",
        "games": 800,
        "seed": 99,
        "output": str(tmp_path / name),
        **fields,
    }
    lines = [f"{k} = {json.dumps(v)}" for k, v in body.items() if not isinstance(v, dict)] + [
        f"[{k}]\n" + "\n".join(f"{a} = {b}" for a, b in v.items())
        for k, v in body.items()
        if isinstance(v, dict)
    ]
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def dynasty(
    args: list[str], env: dict[str, str], timeout: float = 300
) -> subprocess.CompletedProcess:
    # run outside the checkout: Ray puts the driver's folder on its workers' import path
    return subprocess.run(
        [DYNASTY, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=env["HOME"],
    )


def errors(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.strip()]


def test_a_joined_run_uses_both_nodes_and_gives_the_local_rows(cluster, tmp_path):
    cfg_path = write_config(tmp_path, "joined", options={"num_cards": 5})
    env = user_env(tmp_path, RAY_AUTH_TOKEN_PATH=str(cluster.token_path))  # the copied token
    r = dynasty(["run", str(cfg_path), "--address", cluster.address, "--chunk-size", "50"], env)
    assert r.returncode == 0, r.stderr
    manifest = json.loads((tmp_path / "joined" / "manifest.json").read_text())
    session = manifest["sessions"][-1]
    assert session["nodes"] == 2 and session["workers"] == 2
    assert session["address"] == cluster.address
    found = {n["address"]: n["niceness"] for n in session["cluster_nodes"]}
    assert set(found) == {"127.0.0.2", "127.0.0.3"}
    # `ray start` runs workers at Ray's default niceness 15: one line per node says so
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert all(v == 15 for v in found.values())
    if mine < 15:
        for ip in found:
            assert any(
                ln.startswith(f"node {ip} ") and "niceness 15" in ln for ln in r.stderr.splitlines()
            ), r.stderr

    cfg = load_config(cfg_path)
    df = load_results(cfg.output).drop(columns=["game", "agent_ms"])  # agent time: measured
    ctx = ChunkContext(job_of(cfg))
    ref = ctx.table.fill(ctx.play(0, cfg.games)).to_pandas()
    assert len(df) == 800 * 4
    pd.testing.assert_frame_equal(
        df.astype({"agent": str}).reset_index(drop=True),
        ref.astype({"agent": str})[df.columns],
        check_categorical=False,
    )


@pytest.mark.parametrize("case", ["no token", "wrong token", "mode disabled"])
def test_joining_without_the_right_token_is_one_line(cluster, tmp_path, case):
    cfg_path = write_config(tmp_path, "refused")
    extra = {
        "no token": {},
        "wrong token": {"RAY_AUTH_TOKEN": "0" * 64},
        "mode disabled": {
            "RAY_AUTH_MODE": "disabled",
            "RAY_AUTH_TOKEN_PATH": str(cluster.token_path),
        },
    }[case]
    r = dynasty(["run", str(cfg_path), "--address", cluster.address], user_env(tmp_path, **extra))
    assert r.returncode == 2
    lines = errors(r.stderr)
    assert len(lines) == 1, r.stderr
    expected = {
        "no token": "no token is found here",
        "wrong token": "refused the token from RAY_AUTH_TOKEN",
        "mode disabled": "RAY_AUTH_MODE=disabled is set here",
    }[case]
    assert lines[0].startswith("dynasty: error: the Ray cluster at ") and expected in lines[0]
    assert not (tmp_path / "refused" / "data").exists()


def test_an_address_where_nothing_listens_is_one_line_at_once(tmp_path):
    cfg_path = write_config(tmp_path, "nowhere")
    t0 = time.time()
    r = dynasty(["run", str(cfg_path), "--address", f"127.0.0.1:{free_port()}"], user_env(tmp_path))
    assert r.returncode == 2
    lines = errors(r.stderr)
    assert len(lines) == 1 and "no Ray cluster answers at 127.0.0.1:" in lines[0], r.stderr
    assert time.time() - t0 < 60  # Ray alone retries for minutes


def test_a_node_lost_mid_run_leaves_the_planned_games(cluster, tmp_path):
    """Kill the second node's raylet and workers while it plays: its chunks go to the head's
    worker, and the run ends with every planned game once."""
    games = 300_000
    cfg_path = write_config(
        tmp_path,
        "lost",
        game="middle_kingdom",
        agents=["random"] * 4,
        games=games,
        seed=5,
    )
    env = user_env(tmp_path, RAY_AUTH_TOKEN_PATH=str(cluster.token_path))
    proc = subprocess.Popen(
        [DYNASTY, "run", str(cfg_path), "--address", cluster.address, "--chunk-size", "2000"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=env["HOME"],
    )
    data = tmp_path / "lost" / "data" / "game=middle_kingdom"
    t0 = time.time()
    while not (data.is_dir() and len(list(data.glob("part-*.parquet"))) >= 4):
        assert proc.poll() is None and time.time() - t0 < 240, proc.communicate()
        time.sleep(0.05)
    cluster.kill_node(cluster.nodes[1])
    out, err = proc.communicate(timeout=400)
    assert proc.returncode == 0, err
    assert "is lost" in err, err
    n, distinct, lo, hi = duckdb.sql(
        f"select count(*), count(distinct game_index), min(game_index), max(game_index) "
        f"from read_parquet('{data}/*.parquet')"
    ).fetchall()[0]
    assert (n, distinct, lo, hi) == (games * 4, games, 0, games - 1)
    manifest = json.loads((tmp_path / "lost" / "manifest.json").read_text())
    assert manifest["complete"] and manifest["games_done"] == games


def test_a_node_without_the_project_is_named(cluster, tmp_path):
    """A node whose Python lacks the project stops the run at once with one line naming it."""
    node = cluster.start_node(python=bare_python(cluster.root))
    try:
        cfg_path = write_config(tmp_path, "bare")
        env = user_env(tmp_path, RAY_AUTH_TOKEN_PATH=str(cluster.token_path))
        r = dynasty(["run", str(cfg_path), "--address", cluster.address], env)
        assert r.returncode == 2
        last = errors(r.stderr)[-1]
        assert last.startswith(f"dynasty: error: node {node.ip} (") and (
            "cannot run the project (No module named 'experiments')" in last
        ), r.stderr
    finally:
        cluster.kill_node(node)


def test_a_node_with_other_component_data_is_named(cluster, tmp_path):
    """A node whose copy of the project has another goal card value for Middle Kingdom stops a
    Middle Kingdom run before its first game, in one line naming the node and the digests; the
    manifest's sessions keep nothing played."""
    root = Path(__file__).resolve().parents[1]
    copy = tmp_path / "other"
    for pkg in ("sim", "agents", "experiments", "dynasty_lab"):
        shutil.copytree(root / pkg, copy / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    comp = copy / "sim" / "middle_kingdom" / "data" / "components.json"
    data = json.loads(comp.read_text())
    data["goal_cards"][0]["vp"] += 1
    comp.write_text(json.dumps(data))
    node = cluster.start_node(python=bare_python(cluster.root), PYTHONPATH=str(copy))
    try:
        cfg_path = write_config(
            tmp_path, "other_data", game="middle_kingdom", agents=["random"] * 4, games=400
        )
        env = user_env(tmp_path, RAY_AUTH_TOKEN_PATH=str(cluster.token_path))
        r = dynasty(["run", str(cfg_path), "--address", cluster.address], env)
        assert r.returncode == 2, r.stderr
        last = errors(r.stderr)[-1]
        assert last.startswith(f"dynasty: error: node {node.ip} (") and (
            "has other middle_kingdom component data (digest " in last
            and "install the same sim/middle_kingdom/data/ files on every node" in last
            and last.endswith("0 of 400 games are saved")
        ), r.stderr
        assert not list((tmp_path / "other_data").glob("data/*/*.parquet"))
    finally:
        cluster.kill_node(node)


@pytest.mark.parametrize(
    "command, config",
    [
        ("study", "studies/middle_kingdom_seats.toml"),
        ("tournament", "tournaments/goofspiel_ladder.toml"),
        ("tune", "tunings/goofspiel_mcts.toml"),
        ("train", "train/emperors_choice.toml"),
    ],
)
def test_every_workflow_joins_through_the_same_door(tmp_path, command, config):
    """study, tournament, tune and train join with --address as run does: one line, exit 2."""
    root = Path(__file__).resolve().parents[1] / "experiments" / "configs"
    address = f"127.0.0.1:{free_port()}"
    r = dynasty([command, str(root / config), "--address", address], user_env(tmp_path))
    assert r.returncode == 2, r.stderr
    lines = errors(r.stderr)
    assert lines == [lines[-1]] and f"no Ray cluster answers at {address}" in lines[-1], r.stderr


def bare_python(root: Path) -> str:
    """A Python with this environment's packages (Ray, numpy, numba ...) but without the project:
    a venv whose only path entry is this one's site-packages, so the project's editable-install
    hook there (a ``.pth`` file) is never run."""
    venv = root / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = subprocess.run(
        [str(py), "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    here = next(p for p in sys.path if p.endswith("site-packages") and Path(p, "ray").is_dir())
    Path(site, "environment.pth").write_text(here + "\n")
    return str(py)
