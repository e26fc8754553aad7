"""Whole games between agents, inside one compiled call.

An *agent table* describes the agents of a run: ``agent_kind[a]`` (RANDOM, HEURISTIC,
MCTS) and ``agent_params[a, :N_AGENT_PARAMS]`` (float64; meaning depends on the kind).
``seat_agent[g, p]`` says which agent of the table plays seat ``p`` in game ``g``.

Each game's deal comes from ``seeds[g]``; each seat's agent RNG from
``hash64(agent_seeds[g], p)``, a stream separate from the game's chance.  Nothing here
depends on which process or chunk plays a game, so results are reproducible whatever
the distribution.
"""

import numba as nb
import numpy as np

from agents.mcts import mcts_act
from agents.random import random_act
from sim.core import H_CURRENT, NO_PLAYER, as_kernels, entry, hash64, kernel, random_of_legal, rng_seed

RANDOM = 0
HEURISTIC = 1
MCTS = 2
AGENT_KINDS = {"random": RANDOM, "heuristic": HEURISTIC, "mcts": MCTS}
N_AGENT_PARAMS = 8


@nb.njit(cache=True)
def _choose_action(G, state, kind, params, rng, mask):
    """The action agent ``kind`` (with ``params``) takes in ``state``; checked for legality."""
    if kind == HEURISTIC:
        a = G.heuristic(state, rng)
    elif kind == MCTS:
        a = mcts_act(G, state, params, rng, mask)
    else:
        a = random_act(G, state, mask, rng)
        return a
    G.legal_mask(state, mask)
    if a < 0 or a >= mask.shape[0] or not mask[a]:
        raise ValueError("agent chose an illegal action")
    return a


@kernel
def _random_moves(G, state, seat_agent, g, agent_kind, rngs, mask):
    """The hot path: play while the seat to move has a random agent; return the moves made.

    A kernel without reference counting (sim.core.kernel): the calls through the game's
    function pointers then pass the state and mask without atomic increments."""
    steps = 0
    while state[H_CURRENT] != NO_PLAYER:
        p = state[H_CURRENT]
        if agent_kind[seat_agent[g, p]] != RANDOM:
            break
        G.apply(state, random_of_legal(mask, G.legal_mask(state, mask), rngs, 2 * p))
        steps += 1
    return steps


@nb.njit(cache=True)
def _play_chunk(G, seeds, agent_seeds, n_players, options, seat_agent, agent_kind, agent_params,
                num_actions, scores, wins, feats, lengths):
    """Play ``len(seeds)`` games; fill scores/wins ``[g, n]``, feats ``[g, n, F]``, lengths ``[g]``."""
    mask = np.zeros(num_actions, np.bool_)
    rngs = np.zeros(2 * n_players, np.int32)  # seat p's RNG words at [2p, 2p+2)
    for g in range(seeds.shape[0]):
        state = G.new_state(seeds[g], n_players, options)
        for p in range(n_players):
            rng_seed(rngs, 2 * p, hash64(agent_seeds[g], p))
        steps = 0
        while state[H_CURRENT] != NO_PLAYER:  # the header is part of the contract: no call needed
            p = state[H_CURRENT]
            a = seat_agent[g, p]
            kind = agent_kind[a]
            if kind == RANDOM:
                steps += _random_moves(G, state, seat_agent, g, agent_kind, rngs, mask)
            else:
                act = _choose_action(G, state, kind, agent_params[a], rngs[2 * p:2 * p + 2], mask)
                G.apply(state, act)
                steps += 1
        G.returns(state, scores[g], wins[g])
        G.features(state, feats[g])
        lengths[g] = steps


@entry(nb.int64[::1], nb.int64[::1], nb.int64, nb.int32[::1], nb.int64[:, ::1], nb.int64[::1],
       nb.float64[:, ::1], nb.int64, nb.float64[:, ::1], nb.float64[:, ::1], nb.float64[:, :, ::1], nb.int64[::1])
def play_chunk(K, seeds, agent_seeds, n_players, options, seat_agent, agent_kind, agent_params,
               num_actions, scores, wins, feats, lengths):
    """Entry: play a chunk of games of the game whose kernels are ``K = tuple(spec.kernels)``."""
    _play_chunk(as_kernels(K), seeds, agent_seeds, n_players, options, seat_agent, agent_kind, agent_params,
                num_actions, scores, wins, feats, lengths)


@entry(nb.int32[::1], nb.int64, nb.float64[::1], nb.int32[:], nb.boolean[::1], returns=nb.int64)
def choose_action(K, state, kind, params, rng, mask):
    """Entry: the action agent ``kind`` takes in ``state`` (``K = tuple(spec.kernels)``)."""
    return _choose_action(as_kernels(K), state, kind, params, rng, mask)


def play_games(spec, seeds, n_players, options, seat_agent, agent_kind, agent_params, agent_seeds=None):
    """Python wrapper: allocate outputs and play; returns (scores, wins, feats, lengths)."""
    seeds = np.asarray(seeds, np.int64)
    n = len(seeds)
    if agent_seeds is None:
        agent_seeds = seeds
    scores = np.zeros((n, n_players))
    wins = np.zeros((n, n_players))
    feats = np.zeros((n, n_players, len(spec.feature_names)))
    lengths = np.zeros(n, np.int64)
    play_chunk(tuple(spec.kernels), seeds, np.asarray(agent_seeds, np.int64), np.int64(n_players),
               np.asarray(options, np.int32), np.asarray(seat_agent, np.int64),
               np.asarray(agent_kind, np.int64), np.asarray(agent_params, np.float64),
               spec.num_actions, scores, wins, feats, lengths)
    return scores, wins, feats, lengths
