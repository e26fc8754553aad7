"""Tree reuse (``mcts:...,reuse``): a seat's search continues in the tree its earlier decisions
built, the tree is emptied at every new game (so a game does not depend on the games before it in
a chunk), and where single decisions are taken (replays, interactive play) a
reuse agent is refused."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from agents.arena import play_games
from agents.decision import choose_action
from agents.mcts import (
    T_EDGE_AVAIL,
    T_EDGE_VALUE,
    T_EDGE_VISITS,
    T_NODE_KEY,
    T_NODE_PLAYER,
    T_TABLE,
    _search_in,
    mcts_label,
    mcts_params,
    seat_trees,
)
from agents.net import no_nets
from agents.spec import parse_agent
from agents.table import MCTS
from experiments.run.config import ConfigError, from_dict
from sim import Game, get_game
from sim.core import as_kernels, new_rng

GOOF = get_game("goofspiel")


@nb.njit
def _two_searches(K, N, root, params, rng, mask, trees):
    G = as_kernels(K)
    visits = np.zeros(mask.shape[0], np.int64)
    value = np.zeros(mask.shape[0], np.float64)
    out = np.zeros(4, np.int64)
    _, n1 = _search_in(
        G,
        root,
        params,
        rng,
        mask,
        visits,
        value,
        trees[T_NODE_KEY][0],
        trees[T_NODE_PLAYER][0],
        trees[T_EDGE_VISITS][0],
        trees[T_EDGE_AVAIL][0],
        trees[T_EDGE_VALUE][0],
        trees[T_TABLE][0],
        0,
        N,
        np.empty((0, mask.shape[0]), np.float32),
        np.empty(0, np.float64),
    )
    out[0] = visits.sum()
    out[1] = n1
    _, n2 = _search_in(
        G,
        root,
        params,
        rng,
        mask,
        visits,
        value,
        trees[T_NODE_KEY][0],
        trees[T_NODE_PLAYER][0],
        trees[T_EDGE_VISITS][0],
        trees[T_EDGE_AVAIL][0],
        trees[T_EDGE_VALUE][0],
        trees[T_TABLE][0],
        n1,
        N,
        np.empty((0, mask.shape[0]), np.float32),
        np.empty(0, np.float64),
    )
    out[2] = visits.sum()
    out[3] = n2
    return out


def test_a_second_search_in_the_same_tree_continues_its_statistics():
    g = Game("goofspiel", players=2, seed=4)
    params = mcts_params(300, reuse=True)
    kinds = np.array([MCTS], np.int64)
    trees = seat_trees(2, kinds, params[None, :], MCTS, GOOF.num_actions)
    assert trees[T_NODE_KEY].shape[1] >= 8 * 301  # room for REUSE_SEARCHES searches
    mask = np.zeros(GOOF.num_actions, np.bool_)
    out = _two_searches(
        tuple(GOOF.kernels), no_nets(), g.state, params, new_rng(np.int64(1)), mask, trees
    )
    assert out[0] == 300  # every simulation passes the searcher's own root node
    assert out[2] == 600  # the second search adds its 300 to the root's visits
    assert 1 < out[1] < out[3] <= 601


def _play(agents, seeds, n=2):
    rows = [parse_agent(a) for a in agents]
    kinds = np.array([k for k, _, _ in rows], np.int64)
    params = np.array([p for _, p, _ in rows])
    seat_agent = np.array([[(p + g) % n for p in range(n)] for g in range(len(seeds))], np.int64)
    return play_games(
        GOOF, np.asarray(seeds, np.int64), n, GOOF.encode_options({}), seat_agent, kinds, params
    )


def test_reuse_changes_the_games_and_each_game_starts_with_an_empty_tree():
    seeds = [11, 12, 13, 14]
    plain = _play(["mcts:60", "random"], seeds)
    reuse = _play(["mcts:60,reuse", "random"], seeds)
    assert not np.array_equal(
        plain[2], reuse[2]
    )  # the reused statistics change decisions (features: points won)
    # The same deals again, played after other games in the chunk: the same games.  Seat order
    # alternates with the game index, so the second half repeats the first exactly.
    again = _play(["mcts:60,reuse", "random"], seeds + seeds)
    for i in range(3):  # scores, wins, features
        assert np.array_equal(again[i][:4], reuse[i]) and np.array_equal(again[i][4:], reuse[i])


def test_reuse_is_a_parameter_with_a_label():
    kind, params, label = parse_agent("mcts:2ms,reuse")
    assert kind == MCTS and label == "mcts:2ms,reuse" and mcts_label(params) == label
    assert parse_agent({"kind": "mcts", "simulations": 50, "reuse": True})[2] == "mcts:50,reuse"
    with pytest.raises(ValueError, match="reuse must be true or false"):
        mcts_params(50, reuse=1)


def test_single_decisions_refuse_a_reuse_agent(tmp_path):
    g = Game("goofspiel", players=2, seed=1)
    _, params, _ = parse_agent("mcts:50,reuse")
    with pytest.raises(ValueError, match="tree reuse plays whole games in the arena only"):
        choose_action(
            tuple(GOOF.kernels),
            g.state,
            np.int64(MCTS),
            params,
            new_rng(np.int64(1)),
            np.zeros(GOOF.num_actions, np.bool_),
        )
    base = {
        "game": "goofspiel",
        "players": 2,
        "agents": ["mcts:50,reuse", "random"],
        "games": 10,
        "seed": 1,
        "output": str(tmp_path / "r"),
    }
    with pytest.raises(ConfigError, match="reuses its tree.*set replays = 0"):
        from_dict(dict(base, replays=2))
    assert from_dict(base).agents[0].label == "mcts:50,reuse"
