"""PettingZoo adapters: PettingZoo's own api_test, seed_test and max_cycles_test for every
game and player count (few cycles, to keep the time small)."""

import types
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, parallel_api_test, seed_test  # noqa: E402

from dynasty_lab.envs import pettingzoo as dz  # noqa: E402
from sim.core import IllegalActionError  # noqa: E402
from sim.registry import game_names, get_game  # noqa: E402

CYCLES = {"goofspiel": 60, "middle_kingdom": 25, "ming_dynasty": 25, "emperors_choice": 20, "eternal_dynasty": 20}
# a few fixed seeds per game for the max_cycles check of games whose seats do not move in
# strict rotation (the check wants every seat to reach the cycle limit together)
MAX_CYCLES_SEED = {"goofspiel": 0, "middle_kingdom": 0, "ming_dynasty": 0, "emperors_choice": 0, "eternal_dynasty": 0}


def cases():
    for name in game_names():
        for n in get_game(name).players():
            yield name, n


@pytest.mark.parametrize("name,players", list(cases()))
def test_pettingzoo_api_and_seed_tests(name, players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "action mask all zeros" for seats not to move, by design
        api_test(dz.env(name, players, seed=3), num_cycles=CYCLES[name])
        seed_test(lambda: dz.env(name, players), num_cycles=CYCLES[name])


def _max_cycles_module(name, players, seed):
    return types.SimpleNamespace(
        env=lambda max_cycles: dz.env(name, players, seed=seed, max_cycles=max_cycles, illegal_action="remap"),
        parallel_env=lambda max_cycles: dz.parallel_env(name, players, seed=seed, max_cycles=max_cycles,
                                                        illegal_action="remap"))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_goofspiel_max_cycles_and_parallel_api(players):
    from pettingzoo.test import max_cycles_test
    max_cycles_test(_max_cycles_module("goofspiel", players, seed=1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(dz.parallel_env("goofspiel", players, seed=2, illegal_action="remap"), num_cycles=30)


@pytest.mark.parametrize("name,players", [c for c in cases() if c[0] != "goofspiel"])
def test_max_cycles_truncates_every_game(name, players):
    """The AEC half of pettingzoo.test.max_cycles_test (the parallel half needs a parallel
    API, which only Goofspiel has): no seat makes more than max_cycles decisions, and the
    game is truncated when the seat to move reaches the limit."""
    max_cycles = 4
    e = dz.env(name, players, seed=MAX_CYCLES_SEED[name], max_cycles=max_cycles, illegal_action="remap")
    e.reset()
    counts = np.zeros(players)
    for a in e.agent_iter():
        counts[e.possible_agents.index(a)] += 1
        _, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else e.action_space(a).sample())
    assert counts.max() == max_cycles + 1  # max_cycles decisions and the final dead step
    assert (counts >= 1).all()


def test_rewards_are_win_shares_or_scores_and_illegal_actions_are_named():
    for reward in ("win", "score"):
        e = dz.env("goofspiel", 3, {"num_cards": 5, "returns_type": "total_points"}, seed=4, reward=reward)
        e.reset()
        total = {a: 0.0 for a in e.possible_agents}
        for a in e.agent_iter():
            obs, r, term, trunc, _ = e.last()
            total[a] += r
            e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        vals = sorted(total.values())
        if reward == "win":
            assert sum(vals) == pytest.approx(1.0)
        else:
            assert sum(vals) == pytest.approx(15.0) or sum(vals) < 15  # discarded ties lose points
    e = dz.env("goofspiel", 2, {"num_cards": 5}, seed=4)
    e.reset()
    e.step(2)
    with pytest.raises(IllegalActionError, match="legal"):
        e.step(7)  # beyond num_cards


def test_a_seat_observation_does_not_show_the_others_pending_bid():
    e = dz.env("goofspiel", 2, {"num_cards": 5}, seed=4)
    e.reset()
    before = e.observe("player_1")["observation"].copy()
    e.step(4)
    after0 = e.observe("player_0")["observation"]
    e2 = dz.env("goofspiel", 2, {"num_cards": 5}, seed=4)
    e2.reset()
    e2.step(1)
    assert np.array_equal(e.observe("player_1")["observation"], e2.observe("player_1")["observation"])
    assert not np.array_equal(after0, e2.observe("player_0")["observation"])
    assert not np.array_equal(before, e.observe("player_1")["observation"])


@pytest.mark.parametrize("name", game_names())
def test_a_whole_game_through_the_aec_api_pays_the_win_shares(name):
    spec = get_game(name)
    players = max(spec.players())
    e = dz.env(name, players, seed=5)
    e.reset()
    rng = np.random.default_rng(5)
    total = {a: 0.0 for a in e.possible_agents}
    steps = 0
    for a in e.agent_iter():
        obs, r, term, trunc, _ = e.last()
        total[a] += r
        assert not trunc
        e.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps <= spec.max_decisions + players
    assert sum(total.values()) == pytest.approx(1.0) or (spec.can_all_lose and sum(total.values()) == 0)
