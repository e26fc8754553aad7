"""The agents a tournament compares at equal cost: per-decision agent time in the arena, MCTS
budgets by time (`mcts:5ms`), and the search variants' parameters (heuristic prior)."""

import time

import numpy as np
import pytest

from agents.arena import play_games
from agents.mcts import P_PRIOR, P_SIMULATIONS, P_TIME_MS, mcts_params, search_root
from agents.spec import AgentSpecError, parse_agent
from agents.table import MCTS
from sim.registry import get_game

GAME = "goofspiel"


@pytest.mark.parametrize(
    "text, label",
    [
        ("mcts:5ms", "mcts:5ms"),
        ("mcts:0.5ms,uct_c=1", "mcts:0.5ms,uct_c=1"),
        ("mcts:2ms,simulations=300", "mcts:2ms,simulations=300"),
        ("mcts:300,prior=2", "mcts:300,prior=2"),
        (
            "mcts:4ms,rollout=heuristic,rollout_depth=20,prior=0.5",
            "mcts:4ms,rollout=heuristic,rollout_depth=20,prior=0.5",
        ),
    ],
)
def test_labels_round_trip(text, label):
    kind, params, got = parse_agent(text)
    assert kind == MCTS and got == label and parse_agent(got)[2] == label


def test_time_budget_parameters():
    p = parse_agent("mcts:5ms")[1]
    assert p[P_TIME_MS] == 5 and p[P_SIMULATIONS] == 0 and p[P_PRIOR] == 0
    assert parse_agent("mcts")[1][P_SIMULATIONS] == 1000
    for bad in ("mcts:fastms", "mcts:5ms,prior=-1", "mcts:5ms,prior=x"):
        with pytest.raises(AgentSpecError):
            parse_agent(bad)


def test_a_timed_search_spends_its_budget_in_cpu_time():
    """A search of mcts:2ms or mcts:8ms spends its budget in the thread's CPU time (the clock is
    read every 4 simulations, so the overshoot is a few simulations), whatever else the machine
    runs, and the larger budget runs more simulations.  Each search runs three times: every run
    spends at least its budget, and the quickest (the least disturbed by other processes,
    whose cache misses and page faults cost CPU time too) at most the overshoot more."""
    spec = get_game(GAME)
    state = spec.kernels.new_state(np.int64(3), np.int64(2), spec.encode_options({"num_cards": 8}))
    search_root(spec, state, mcts_params(time_ms=2), 1)  # compiled before it is timed
    cpu_ms, sims = {}, {}
    for budget in (2, 8):
        runs = []
        for _ in range(3):
            t0 = time.thread_time_ns()
            sims[budget] = search_root(spec, state, mcts_params(time_ms=budget), 1)[1].sum()
            runs.append((time.thread_time_ns() - t0) / 1e6)
        cpu_ms[budget] = runs
    assert min(cpu_ms[2]) >= 2 and min(cpu_ms[8]) >= 8, cpu_ms
    assert min(cpu_ms[2]) < 4 and min(cpu_ms[8]) < 12, cpu_ms
    assert sims[8] > 2 * sims[2] > 0


def test_the_arena_gives_each_timed_search_its_share_of_cpu_time():
    """In the arena, the seats' agent times of mcts:2ms against mcts:8ms add up to the CPU time
    of their searches (about 10 ms a pair of decisions), and the larger budget gets the larger
    share.  Each run's share is in proportion to its monotonic time (agents.arena), so on a
    loaded machine the split between the two is approximate while the sum is not."""
    spec = get_game(GAME)
    kinds = [MCTS, MCTS]
    params = np.vstack([mcts_params(time_ms=2), mcts_params(time_ms=8)])
    timing = {}
    play_games(
        spec,
        [1, 1],
        2,
        spec.encode_options({"num_cards": 8}),
        [[0, 1], [1, 0]],
        kinds,
        params,
        timing=timing,
    )
    ms = timing["agent_ns"] / np.maximum(timing["decisions"], 1) / 1e6
    # seat p of game g is agent (g + p) % 2
    a2 = np.mean([ms[0, 0], ms[1, 1]])
    a8 = np.mean([ms[0, 1], ms[1, 0]])
    assert 9.5 < a2 + a8 < 15 and a8 > 2 * a2 > 0, (a2, a8)


def test_decisions_and_agent_time_are_recorded_per_seat():
    spec = get_game(GAME)
    kinds, params = zip(*(parse_agent(a)[:2] for a in ("random", "heuristic", "mcts:200")))
    timing = {}
    play_games(
        spec,
        np.arange(6),
        3,
        spec.encode_options({"num_cards": 6}),
        [[0, 1, 2]] * 6,
        list(kinds),
        np.vstack(params),
        timing=timing,
    )
    assert (
        timing["decisions"] == 5
    ).all()  # every seat bids once per point card but the last (forced)
    mean_ns = timing["agent_ns"].sum(0) / timing["decisions"].sum(0)
    assert mean_ns[2] > 20 * mean_ns[1] and mean_ns[2] > 20 * mean_ns[0]  # a search costs far more


def timed_play(*args):
    """``play_games(*args)`` once to compile, then again with its timing: the timing dict and the
    thread's CPU time the second call spent, in ns."""
    import resource

    play_games(*args)
    timing = {}
    before = resource.getrusage(resource.RUSAGE_THREAD)
    play_games(*args, timing=timing)
    after = resource.getrusage(resource.RUSAGE_THREAD)
    return timing, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e9


def test_runs_of_one_agents_decisions_share_one_clock_read():
    """Middle Kingdom, the heuristic in seats 0-1 and MCTS in seat 2: the heuristic's
    consecutive decisions are timed as one run and shared by its seats; each seat's time
    is positive, the search's per decision far above the heuristic's, and all of it is
    CPU time the call spent (the arena's time per decision includes ``apply``)."""
    spec = get_game("middle_kingdom")
    kinds, params = zip(*(parse_agent(a)[:2] for a in ("heuristic", "mcts:50")))
    seats = [[0, 0, 1]] * 4
    timing, spent = timed_play(
        spec, np.arange(4), 3, spec.encode_options({}), seats, list(kinds), np.vstack(params)
    )
    ns, dec = timing["agent_ns"], timing["decisions"]
    assert (dec > 0).all() and (ns > 0).all()
    per = ns.sum(0) / dec.sum(0)
    assert per[2] > 20 * max(per[0], per[1])
    assert 0.5 * spent < ns.sum() <= 1.02 * spent + 1e7, (ns.sum(), spent)


def test_random_runs_get_the_chunks_cpu_time():
    """All-random Middle Kingdom games: runs are timed on the monotonic clock and converted to the
    chunk's CPU time, so the seats' times sum to no more than the thread's CPU time over the call
    and to most of it (the runs hold everything but setting up and scoring each game)."""
    from agents.table import N_AGENT_PARAMS, RANDOM

    spec = get_game("middle_kingdom")
    games = 2000
    timing, spent = timed_play(
        spec,
        np.arange(games),
        4,
        spec.encode_options({}),
        np.zeros((games, 4), np.int64),
        [RANDOM],
        np.zeros((1, N_AGENT_PARAMS)),
    )
    ns = timing["agent_ns"]
    assert (ns > 0).all() and (timing["decisions"] > 0).all()
    assert 0.5 * spent < ns.sum() <= 1.02 * spent + 1e7, (ns.sum(), spent)


def test_the_conversion_hands_out_the_chunks_cpu_time_in_proportion():
    """``_in_cpu_time`` scales the first ``games`` rows by the CPU time over the monotonic time
    since the chunk began: a chunk that spent 1 s waiting and almost no CPU time keeps almost none
    of its runs' monotonic time; a factor above 1 (clock granularity) is capped;
    later rows are untouched.  The kernels are compiled (or loaded) first: a compilation inside
    the measured call would be CPU time of the chunk."""
    from agents.arena import _in_cpu_time
    from agents.clock import cpu_ns, now_ns

    _in_cpu_time(np.zeros((1, 2), np.int64), 0, cpu_ns(), now_ns())
    ns = np.full((3, 2), 10**9, np.int64)
    _in_cpu_time(ns, 2, cpu_ns(), now_ns() - 10**9)
    assert (ns[:2] < 10**8).all() and (ns[2] == 10**9).all()
    ns = np.full((2, 2), 10**6, np.int64)
    _in_cpu_time(ns, 2, cpu_ns() - 10**9, now_ns())
    assert (ns == 10**6).all()


def test_the_heuristic_prior_is_tried_first():
    """With a prior, the root's first simulation goes to the heuristic's action; without it the
    search is the plain one (the prior slot is 0 in every label-less row)."""
    spec = get_game(GAME)
    state = spec.kernels.new_state(np.int64(5), np.int64(2), spec.encode_options({"num_cards": 8}))
    from sim.core import new_rng

    hint = int(spec.kernels.heuristic(state.copy(), new_rng(np.int64(1))))
    _, visits, _ = search_root(spec, state, mcts_params(simulations=1, prior=1.0), 1)
    assert visits[hint] == 1 and visits.sum() == 1
    plain = search_root(spec, state, mcts_params(simulations=300), 7)
    again = search_root(spec, state, mcts_params(simulations=300, prior=0.0), 7)
    assert plain[0] == again[0] and (plain[1] == again[1]).all()
