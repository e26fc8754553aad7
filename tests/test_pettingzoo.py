"""PettingZoo adapters: PettingZoo's own api_test, seed_test, max_cycles_test and
parallel_api_test for every game and player count (few cycles, to keep the time small)."""

import types
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, parallel_api_test, seed_test

from dynasty_lab.envs import pettingzoo as dz
from sim.core import IllegalActionError
from sim.registry import game_names, get_game

CYCLES = {
    "goofspiel": 60,
    "middle_kingdom": 25,
    "ming_dynasty": 25,
    "emperors_choice": 20,
    "eternal_dynasty": 20,
}


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
    # the AEC half of max_cycles_test counts how often each agent is selected and wants the
    # median seat at the limit: that is the parallel env as an AEC env (every live agent
    # once per step), cycle_env; the engine-order env is checked against it below
    return types.SimpleNamespace(
        env=lambda max_cycles: dz.cycle_env(
            name, players, seed=seed, max_cycles=max_cycles, illegal_action="remap"
        ),
        parallel_env=lambda max_cycles: dz.parallel_env(
            name, players, seed=seed, max_cycles=max_cycles, illegal_action="remap"
        ),
    )


@pytest.mark.parametrize("name,players", list(cases()))
def test_max_cycles_and_parallel_api_tests(name, players):
    from pettingzoo.test import max_cycles_test

    max_cycles_test(_max_cycles_module(name, players, seed=1))
    parallel_api_test(dz.parallel_env(name, players, seed=2), num_cycles=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "action mask all zeros" for the dead steps' observations
        api_test(dz.cycle_env(name, players, seed=3), num_cycles=10)


def _first_legal(mask):
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("name,players", [(g, min(get_game(g).players())) for g in game_names()])
def test_the_aec_env_truncates_where_the_parallel_env_does(name, players):
    """max_cycles counts parallel steps in both APIs: the same deal and the same choices
    stop after the same engine decision."""
    max_cycles = 6
    p = dz.parallel_env(name, players, seed=7, max_cycles=max_cycles)
    obs, _ = p.reset()
    steps = 0
    while p.agents:
        obs, _, term, trunc, _ = p.step({a: _first_legal(obs[a]["action_mask"]) for a in p.agents})
        steps += 1
    assert steps == max_cycles and all(trunc.values()) and not any(term.values())
    e = dz.env(name, players, seed=7, max_cycles=max_cycles)
    e.reset()
    counts = np.zeros(players)
    for a in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        counts[e.possible_agents.index(a)] += 1
        e.step(None if term or trunc else _first_legal(obs["action_mask"]))
    assert int(e.table.state[4]) == int(p.table.state[4])  # H_PLY: the decisions made
    assert counts.sum() == int(p.table.state[4]) + players  # each decision, and a final dead step


@pytest.mark.parametrize("name", game_names())
def test_a_whole_game_through_the_parallel_api(name):
    """Every step's deciding seats are the ones the engine asks (else the env raises), the
    others may only wait, and the game pays the win shares; a round of secret choices is one
    step (Goofspiel's every round, Middle Kingdom's commit of all seats)."""
    spec = get_game(name)
    players = max(spec.players())
    p = dz.parallel_env(name, players, seed=5)
    obs, _ = p.reset()
    rng = np.random.default_rng(5)
    total = dict.fromkeys(p.possible_agents, 0.0)
    widest = 0
    while p.agents:
        acting = [a for a in p.agents if not obs[a]["action_mask"][p.wait]]
        assert acting and all(obs[a]["action_mask"].sum() == 1 for a in p.agents if a not in acting)
        widest = max(widest, len(acting))
        obs, r, _, _, _ = p.step(
            {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in p.agents}
        )
        for a, v in r.items():
            total[a] += v
    assert sum(total.values()) == pytest.approx(1.0) or (
        spec.can_all_lose and sum(total.values()) == 0
    )
    if name in ("goofspiel", "middle_kingdom"):
        assert widest == players


def test_waiting_seats_may_only_wait_and_deciding_seats_must_act():
    p = dz.parallel_env("middle_kingdom", 3, seed=1)
    obs, _ = p.reset()
    rng = np.random.default_rng(1)
    while p.agents and all(not obs[a]["action_mask"][p.wait] for a in p.agents):
        # to a step where a seat waits
        obs, *_ = p.step(
            {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in p.agents}
        )
    assert p.agents
    waiting = next(a for a in p.agents if obs[a]["action_mask"][p.wait])
    acting = [a for a in p.agents if a != waiting and not obs[a]["action_mask"][p.wait]]
    actions = {a: _first_legal(obs[a]["action_mask"]) for a in p.agents}
    with pytest.raises(IllegalActionError, match="WAIT"):
        p.step({**actions, waiting: 0})
    with pytest.raises(ValueError, match="sent no action"):
        p.step({a: v for a, v in actions.items() if a != acting[0]})
    p.step({**actions, waiting: None})


def test_rewards_are_win_shares_or_scores_and_illegal_actions_are_named():
    for reward in ("win", "score"):
        e = dz.env(
            "goofspiel", 3, {"num_cards": 5, "returns_type": "total_points"}, seed=4, reward=reward
        )
        e.reset()
        total = dict.fromkeys(e.possible_agents, 0.0)
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
    assert np.array_equal(
        e.observe("player_1")["observation"], e2.observe("player_1")["observation"]
    )
    assert not np.array_equal(after0, e2.observe("player_0")["observation"])
    assert not np.array_equal(before, e.observe("player_1")["observation"])


@pytest.mark.parametrize("name", game_names())
def test_a_whole_game_through_the_aec_api_pays_the_win_shares(name):
    spec = get_game(name)
    players = max(spec.players())
    e = dz.env(name, players, seed=5)
    e.reset()
    rng = np.random.default_rng(5)
    total = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    for a in e.agent_iter():
        obs, r, term, trunc, _ = e.last()
        total[a] += r
        assert not trunc
        e.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps <= spec.max_decisions + players
    assert sum(total.values()) == pytest.approx(1.0) or (
        spec.can_all_lose and sum(total.values()) == 0
    )
