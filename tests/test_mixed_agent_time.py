"""Agent time in runs with a Python agent: every seat is charged its own decisions only, not the
Python agent's work nor the cost of calling compiled agents from the Python loop."""

import time

import numpy as np

from agents.arena import play_games
from agents.decision import choose_action
from agents.spec import parse_agent
from agents.table import HEURISTIC, N_AGENT_PARAMS, PYTHON
from sim.core import new_rng
from sim.registry import get_game

BURN_NS = 1_000_000  # CPU time the slow agent spends on each decision


class Burner:
    """Spends BURN_NS of its thread's CPU time, then plays the first legal action."""

    def act(self, view, legal_actions):
        t0 = time.thread_time_ns()
        while time.thread_time_ns() - t0 < BURN_NS:
            pass
        return legal_actions[0]


def test_python_agent_time_is_not_charged_to_the_other_seats():
    spec = get_game("goofspiel")
    games, players = 6, 2
    heuristic = parse_agent("heuristic")
    kinds = np.array([HEURISTIC, PYTHON])
    params = np.stack([heuristic[1], np.zeros(N_AGENT_PARAMS)])
    seeds = np.arange(games, dtype=np.int64) + 40
    seats = np.tile(np.arange(players), (games, 1))
    timing: dict = {}
    play_games(
        spec,
        seeds,
        players,
        spec.encode_options({"num_cards": 6}),
        seats,
        kinds,
        params,
        user_agents=[None, Burner],
        timing=timing,
    )
    ns, n = timing["agent_ns"].sum(0), timing["decisions"].sum(0)
    assert n[0] == n[1] >= games
    assert ns[1] >= n[1] * BURN_NS  # the Python agent is charged its own work
    # the heuristic is charged its decisions (taken inside compiled code: microseconds), not the
    # Python agent's millisecond, nor the ~0.3 ms of each call into compiled code from Python
    assert 0 < ns[0] / n[0] < 0.05 * BURN_NS


def test_a_timed_decision_is_the_same_decision():
    spec = get_game("middle_kingdom")
    k = spec.kernels
    state = k.new_state(np.int64(3), np.int64(4), spec.encode_options({}))
    mask = np.zeros(spec.num_actions, np.bool_)
    params = np.zeros(N_AGENT_PARAMS)
    spent = np.full(1, -1, np.int64)
    for seed in range(5):
        a = choose_action(tuple(k), state, HEURISTIC, params, new_rng(np.int64(seed)), mask)
        b = choose_action(
            tuple(k), state, HEURISTIC, params, new_rng(np.int64(seed)), mask, spent=spent
        )
        assert a == b and spent[0] >= 0
