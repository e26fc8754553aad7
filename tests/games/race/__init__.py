"""Race to 10: the smallest game the contract allows (no data files, no invariants, no board,
no observation).  tests/test_game_contract.py registers it through ``DYNASTY_GAMES_PATH`` and
plays it through ``dynasty run``, ``report`` and ``view``.

The seats add 1 or 2 to a shared counter in turn; the seat that brings it to 10 or more wins.
No chance and no hidden information: ``determinize`` has nothing to resample.

State (int32): the sim.core header, then ``COUNT`` (the counter) and ``WINNER``.
"""

import sys

import numba as nb
import numpy as np

from sim.core import (
    H_CURRENT,
    H_NPLAYERS,
    H_PLY,
    HEADER_SIZE,
    NO_PLAYER,
    GameSpec,
    init_header,
    kernel,
    kernels_from,
)

COUNT = HEADER_SIZE
WINNER = HEADER_SIZE + 1
STATE_SIZE = HEADER_SIZE + 2
TARGET = 10
NUM_ACTIONS = 2  # action a adds a + 1


@nb.njit(cache=True)
def new_state(seed, n_players, options):
    state = np.zeros(STATE_SIZE, np.int32)
    init_header(state, seed, n_players)
    state[H_CURRENT] = 0
    state[WINNER] = NO_PLAYER
    return state


@kernel
def legal_mask(state, out):
    out[0] = True
    out[1] = True
    return 2


@kernel
def apply(state, action):
    p = state[H_CURRENT]
    state[COUNT] += action + 1
    state[H_PLY] += 1
    if state[COUNT] >= TARGET:
        state[WINNER] = p
        state[H_CURRENT] = NO_PLAYER
    else:
        state[H_CURRENT] = (p + 1) % state[H_NPLAYERS]


@kernel
def returns(state, scores, wins):
    for p in range(state[H_NPLAYERS]):
        won = 1.0 if p == state[WINNER] else 0.0
        scores[p] = won
        wins[p] = won


@kernel
def determinize(state, observer, rng):
    return None


@kernel
def heuristic(state, rng):
    """Add 2, unless adding 1 leaves the count at 7 (from which the next seat cannot win)."""
    return np.int64(0) if state[COUNT] == TARGET - 4 else np.int64(1)


@kernel
def evaluate(state, out):
    for p in range(state[H_NPLAYERS]):
        out[p] = 1.0 / state[H_NPLAYERS]


@kernel
def features(state, out):
    for p in range(state[H_NPLAYERS]):
        out[p, 0] = state[COUNT]


def action_name(state, action):
    return f"add {int(action) + 1}"


def render(state):
    return f"count {int(state[COUNT])} of {TARGET}"


def chance_outcomes(state):
    return []


def state_from_chance(n_players, options, outcomes):
    return new_state(np.int64(0), np.int64(n_players), np.asarray(options, np.int32))


def chance_problem(n, options, chance):
    return None if chance == [] else "race has no chance outcomes"


SPEC = GameSpec(
    name="race",
    title="Race to 10",
    min_players=2,
    max_players=4,
    num_actions=NUM_ACTIONS,
    max_decisions=TARGET,
    kernels=kernels_from(sys.modules[__name__]),
    options=(),
    feature_names=("final_count",),
    action_name=action_name,
    render=render,
    chance_outcomes=chance_outcomes,
    state_from_chance=state_from_chance,
    chance_problem=chance_problem,
)
