"""A run compiles only what it calls (issue 15: the cold start), and plays the same games.

The arena's entries are compiled at their first call, not at import; runs without an MCTS agent
go through entries without the search, and pass the game's kernels with stand-ins in the slots
their agents never call (``agents.arena.kernels_of_run``, ``sim.stand_ins.run_kernels``).
These tests check that the same seeds give the same games and choices either way, that the
stand-ins are never reached, and that a local ``dynasty run`` prints no Ray token-authentication
notice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import agents.arena as arena
import agents.decision as decision
from agents.arena import kernels_of_run, play_games
from agents.net import no_nets
from agents.table import HEURISTIC, MCTS, N_AGENT_PARAMS, RANDOM
from sim import game_names, get_game
from sim.core import KERNEL_SIGNATURES, new_rng
from sim.stand_ins import run_kernels

ROOT = Path(__file__).resolve().parents[1]


def test_importing_the_agents_compiles_no_entry():
    code = (
        "import agents.arena as a, agents.decision as d, agents.mcts as m; "
        "print([e._ready for e in (a.play_chunk, a.play_chunk_no_search, d.choose_action_search, "
        "d.choose_action_no_search, m.search)])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str([False] * 5)


def test_run_kernels_fill_only_the_slots_a_run_does_not_call():
    spec = get_game("middle_kingdom")
    k = spec.kernels
    observe = KERNEL_SIGNATURES._fields.index("observe")
    assert run_kernels(k, observe=True, hint=True) == tuple(k)
    assert run_kernels(k)[observe] is not k.observe  # observe only for learned agents
    assert run_kernels(k, observe=True)[-1] is not k.action_features  # only with hint models
    lean = dict(
        zip(
            KERNEL_SIGNATURES._fields, run_kernels(k, heuristic=False, search=False, evaluate=False)
        )
    )
    kept = (
        "new_state",
        "current_player",
        "legal_mask",
        "apply",
        "is_terminal",
        "returns",
        "features",
    )
    assert all(lean[name] is getattr(k, name) for name in kept)
    assert all(
        lean[name] is not getattr(k, name) for name in KERNEL_SIGNATURES._fields if name not in kept
    )
    assert (
        dict(zip(KERNEL_SIGNATURES._fields, kernels_of_run(spec, [RANDOM, HEURISTIC])))["heuristic"]
        is k.heuristic
    )
    assert kernels_of_run(spec, [RANDOM, MCTS], nets=True, hint=True) == tuple(k)
    assert kernels_of_run(spec, [RANDOM, MCTS])[observe] is not k.observe  # no network


def _play(spec, n, kinds, seeds, trace):
    seats = np.zeros((len(seeds), n), np.int64)
    if len(kinds) > 1:  # agent 0 in one seat, rotating
        seats[:] = 1
        seats[np.arange(len(seeds)), np.arange(len(seeds)) % n] = 0
    timing, traces = {}, ({} if trace else None)
    out = play_games(
        spec,
        seeds,
        n,
        spec.encode_options({}),
        seats,
        np.array(kinds),
        np.zeros((len(kinds), N_AGENT_PARAMS)),
        timing=timing,
        trace=traces,
    )
    return (*out, timing["decisions"], *(traces.values() if trace else ()))


@pytest.mark.parametrize("game", game_names())
def test_same_games_through_the_entry_with_and_without_search(game, monkeypatch):
    spec = get_game(game)
    n = spec.players()[-1]
    seeds = np.arange(500, 520)
    cases = [([RANDOM], False), ([HEURISTIC, RANDOM], True), ([HEURISTIC], False)]
    lean = [_play(spec, n, kinds, seeds, trace) for kinds, trace in cases]
    # the same games through the entry with the search and every kernel of the game
    monkeypatch.setattr(arena, "play_chunk_no_search", arena.play_chunk)
    monkeypatch.setattr(
        arena,
        "kernels_of_run",
        lambda spec, kinds, trace=False, nets=False, hint=False: tuple(spec.kernels),
    )
    full = [_play(spec, n, kinds, seeds, trace) for kinds, trace in cases]
    for a, b in zip(lean, full):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_same_choices_through_both_choose_action_entries():
    spec = get_game("middle_kingdom")
    k = spec.kernels
    lean = kernels_of_run(spec, [HEURISTIC, RANDOM])
    mask = np.zeros(spec.num_actions, np.bool_)
    state = k.new_state(np.int64(11), np.int64(4), spec.encode_options({}))
    picked = 0
    while not k.is_terminal(state):
        for kind in (HEURISTIC, RANDOM):
            params = np.zeros(N_AGENT_PARAMS)
            a = decision.choose_action_no_search(
                lean, no_nets(), state, kind, params, new_rng(np.int64(picked)), mask
            )
            b = decision.choose_action_search(
                tuple(k), no_nets(), state, kind, params, new_rng(np.int64(picked)), mask
            )
            assert a == b
        state_a = int(
            decision.choose_action(
                lean, state, RANDOM, np.zeros(N_AGENT_PARAMS), new_rng(np.int64(picked)), mask
            )
        )
        k.apply(state, np.int64(state_a))
        picked += 1
    assert picked > 50


def test_stand_ins_and_the_entry_without_search_refuse_to_play():
    spec = get_game("middle_kingdom")
    k = spec.kernels
    state = k.new_state(np.int64(1), np.int64(4), spec.encode_options({}))
    mask = np.zeros(spec.num_actions, np.bool_)
    params = np.zeros(N_AGENT_PARAMS)
    params[0] = 4
    with pytest.raises(ValueError, match="not compiled|without the search"):
        decision.choose_action_no_search(
            tuple(k), no_nets(), state, MCTS, params, new_rng(np.int64(1)), mask
        )
    lean = run_kernels(k, heuristic=False, search=False)
    with pytest.raises(ValueError, match="not among this run's kernels"):
        decision.choose_action_no_search(
            lean, no_nets(), state, HEURISTIC, params, new_rng(np.int64(1)), mask
        )


def test_kernels_warmed_from_python_load_in_another_process(tmp_path):
    """warm_leaf_kernels files the kernels under the key an entry's function pointer looks up, so a
    later process (a worker) loads them instead of compiling them again."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    warm = (
        "from sim import get_game; from experiments.run.runner import warm_leaf_kernels; "
        "warm_leaf_kernels(get_game('goofspiel'))"
    )
    subprocess.run([sys.executable, "-c", warm], cwd=ROOT, env=env, check=True)
    play = (
        "import numpy as np; from sim import get_game; "
        "from agents.arena import play_games; from agents.table import HEURISTIC, RANDOM; "
        "spec = get_game('goofspiel'); play_games(spec, [1, 2], 2, spec.encode_options({}), "
        "np.array([[0, 1], [1, 0]]), [HEURISTIC, RANDOM], np.zeros((2, 8)), trace={})"
    )
    out = subprocess.run(
        [sys.executable, "-c", play],
        cwd=ROOT,
        env={**env, "NUMBA_DEBUG_CACHE": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    saved = [
        line for line in out.stdout.splitlines() if "saved" in line and "sim.goofspiel" in line
    ]
    assert not saved, saved[:4]
    assert any("loaded" in line and "sim.goofspiel" in line for line in out.stdout.splitlines())


def test_a_local_run_prints_no_token_authentication_notice(tmp_path):
    cfg = {
        "name": "quiet",
        "game": "goofspiel",
        "players": 2,
        "agents": ["random"],
        "games": 20,
        "seed": 5,
        "output": str(tmp_path / "out"),
        "replays": 0,
    }
    path = tmp_path / "quiet.toml"
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in cfg.items()))
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_AUTH_MODE", "RAY_ADDRESS")}
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.cli", "run", str(path), "--quiet", "--workers", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Token authentication" not in proc.stderr + proc.stdout
    assert (tmp_path / "out" / "manifest.json").exists()


@pytest.mark.parametrize("command", ["study", "tournament"])
def test_local_studies_and_tournaments_print_no_token_notice(tmp_path, command):
    """Studies and tournaments import Ray themselves: they state the mode before that import too."""
    if command == "study":
        text = (
            f'output = "{tmp_path / "out"}"\ngames = 20\n[base]\ngame = "goofspiel"\nplayers = 2\n'
            f'agents = ["random"]\nseed = 5\n[axes.options]\nnum_cards = [4, 5]\n'
        )
    else:
        text = (
            'game = "goofspiel"\nplayers = 2\npool = ["random", "heuristic"]\n'
            f'deals = 4\nseed = 5\noutput = "{tmp_path / "out"}"\n'
        )
    path = tmp_path / f"{command}.toml"
    path.write_text(text)
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_AUTH_MODE", "RAY_ADDRESS")}
    proc = subprocess.run(
        [sys.executable, "-m", "experiments.cli", command, str(path), "--quiet", "--workers", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Token authentication" not in proc.stderr + proc.stdout


def _put(a, i, v):
    a[i] = v


def test_a_per_type_kernel_is_compiled_once_for_any_integer_constants():
    """sim.core.kernel(per_type=True): one compiled version for calls with different integer
    constants (numba would compile one per combination of literals), and the same results."""
    import numba as nb

    from sim.core import kernel

    per_type = kernel(per_type=True)(_put)
    per_literal = kernel(_put)

    @nb.njit
    def caller(a):
        per_type(a, 0, 1)
        per_type(a, 1, 2)
        per_type(a, 2, 3)
        per_literal(a, 3, 4)
        per_literal(a, 4, 5)

    a = np.zeros(5, np.int64)
    caller(a)
    assert list(a) == [1, 2, 3, 4, 5]
    assert len(per_type.overloads) == 1
    assert len(per_literal.overloads) == 2
