"""``dynasty bench search_consistency``: two searches of the same positions with different seeds,
how often they agree and how often a departure from the heuristic is repeated."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agents.spec import AgentSpecError
from experiments.bench.search_consistency import consistency, search_params

CUT = "mcts:100,rollout=heuristic,rollout_depth=20,prior=1"


def test_the_figures_are_a_function_of_the_arguments_and_the_two_searches_differ():
    a = consistency("middle_kingdom", "mcts:10", 2, 30, 1)
    assert a == consistency("middle_kingdom", "mcts:10", 2, 30, 1)
    assert a.states == 30
    # a 10-simulation search is noisy: with one seed for both searches they would always agree
    assert a.agree < 0.9
    # a repeated departure is an agreement: never more of them than agreements
    assert a.repeated * a.departs <= a.agree + 1e-12
    assert a != consistency("middle_kingdom", "mcts:10", 2, 30, 2)


def test_cut_heuristic_rollouts_make_ming_dynastys_search_surer():
    """On 40 positions of 4-player Ming Dynasty, 100 simulations with cut heuristic rollouts
    agree with themselves far more often than with random rollouts (docs/training.md: 0.80
    against 0.30 on 120 positions). The two shares of 40 differ by more than 0.3 here, over four
    standard errors of a difference of two shares of 40 (at most 0.11 each)."""
    cut = consistency("ming_dynasty", CUT, 4, 40, 3)
    rand = consistency("ming_dynasty", "mcts:100,prior=1", 4, 40, 3)
    assert cut.agree - rand.agree > 0.3, (cut, rand)


@pytest.mark.parametrize(
    "label", ["heuristic", "random", "policy:ming_dynasty_hint", "mcts:50,net=ming_dynasty_hint"]
)
def test_only_a_search_without_a_network_is_measured(label):
    with pytest.raises(AgentSpecError, match="a search without a network"):
        search_params(label)


def test_the_command_prints_a_row_per_game_and_search_and_refuses_bad_input():
    cmd = [sys.executable, "-m", "experiments.cli", "bench", "search_consistency"]
    args = ["--game", "middle_kingdom", "--search", "mcts:10", "--states", "5", "--players", "2"]
    out = subprocess.run(
        [*cmd, *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out[0].startswith("game | search | positions")
    assert out[1].startswith("middle_kingdom | `mcts:10` | 5 | ")
    for bad, says in (
        (["--game", "nope"], "unknown game 'nope'"),
        (["--search", "heuristic"], "a search without a network"),
        (
            ["--game", "ming_dynasty", "--players", "9"],
            "ming_dynasty: 9 players is not allowed (allowed: 2, 3, 4)",
        ),
        (["--states", "0"], "--states must be at least 1"),
    ):
        r = subprocess.run([*cmd, *bad], capture_output=True, text=True)
        assert r.returncode == 2 and says in r.stderr, (bad, r.stderr)
