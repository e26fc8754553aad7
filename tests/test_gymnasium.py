"""The single-agent Gymnasium wrapper: Gymnasium's own env checker, opponents from agent
specifications, seeded episodes, the learning seat's reward."""

import numpy as np
import pytest

pytest.importorskip("gymnasium")
import gymnasium as gym
from gymnasium.utils.env_checker import check_env

from dynasty_lab.envs.gymnasium import DynastyEnv
from sim.core import IllegalActionError


def play(env, seed, policy="first"):
    obs, info = env.reset(seed=seed)
    total, steps, observations = 0.0, 0, [obs]
    while True:
        legal = np.flatnonzero(info["action_mask"])
        obs, r, term, trunc, info = env.step(
            int(legal[0]) if policy == "first" else policy(env, legal)
        )
        observations.append(obs)
        total += r
        steps += 1
        if term or trunc:
            return total, steps, observations


@pytest.mark.parametrize("name,players", [("goofspiel", 3), ("middle_kingdom", 4)])
def test_gymnasium_env_checker(name, players):
    env = DynastyEnv(name, players, seat=1, opponents="random", illegal_action="remap")
    check_env(env, skip_render_check=True)


def test_opponents_from_agent_specs_and_seeded_episodes():
    env = DynastyEnv(
        "goofspiel", 3, seat=0, opponents=["heuristic", "mcts:20"], options={"num_cards": 6}
    )
    a = play(env, 7)
    b = play(env, 7)
    assert a[0] == b[0] and a[1] == b[1] == 5
    assert all(np.array_equal(x, y) for x, y in zip(a[2], b[2]))
    assert a[0] in (0.0, 0.5, 1.0, 1 / 3)
    with pytest.raises(ValueError, match="one agent per other seat"):
        DynastyEnv("goofspiel", 3, opponents=["heuristic", "random", "random"])
    with pytest.raises(Exception, match="mcts|unknown|agent"):
        DynastyEnv("goofspiel", 2, opponents=["nonsense:1"])


def test_the_learning_seat_actions_count():
    """Against two random bidders, bidding the card that matches the point card (the lowest
    held above it otherwise) wins more often than always bidding the lowest card: the wrapper
    really plays the learning seat's actions.  (Against two heuristic bidders any bid wins:
    they bid alike and always tie.)"""
    from sim.goofspiel import rules as R

    def match(env, legal):
        prize = int(env.table.state[R.PRIZE])
        above = [a for a in legal if a >= prize]
        return int(above[0] if above else legal[0])

    env = DynastyEnv("goofspiel", 3, seat=2, opponents="random", options={"num_cards": 6})
    low = [play(env, s, "first")[0] for s in range(60)]
    good = [play(env, s, match)[0] for s in range(60)]
    assert np.mean(good) > np.mean(low) + 0.1


def test_illegal_actions_are_named_and_the_registered_id_works():
    env = DynastyEnv("goofspiel", 2, options={"num_cards": 4})
    _, info = env.reset(seed=1)
    with pytest.raises(IllegalActionError, match="legal"):
        env.step(10)
    e = gym.make("dynasty-lab/Dynasty-v0", game="middle_kingdom", players=3, opponents="heuristic")
    obs, info = e.reset(seed=0)
    assert obs.shape == e.observation_space.shape and info["action_mask"].any()
