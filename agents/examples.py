"""Example user agents, one of each form (docs/agents.md): use them as ``agents.examples:<name>``.

A user's agents live in the user's own module; these show the two forms, with and without
parameters, and are played by the tests.  They work for every game, since they use only the
legal actions and the contract's kernels.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agents.user import kernel_params
from sim.core import rng_below

# ------------------------------------------------------------------- fast path: numba kernels
# The arena's agent signature: act(state int32[::1], legal bool[::1], rng int32[:]) -> int64.
# ``legal`` is filled by the arena; ``rng`` is the seat's own RNG (two int32 words).


@nb.njit(cache=True)
def lowest_legal(state, legal, rng):
    """Always the legal action with the smallest id."""
    for a in range(legal.shape[0]):
        if legal[a]:
            return a
    return -1


@nb.njit(cache=True)
def random_legal(state, legal, rng):
    """A uniformly random legal action, drawn from the seat's own RNG."""
    n = 0
    for a in range(legal.shape[0]):
        n += legal[a]
    k = rng_below(rng, 0, n)
    for a in range(legal.shape[0]):
        if legal[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@kernel_params(epsilon=0.1)  # params[0] = epsilon
@nb.njit(cache=True)
def epsilon_lowest(state, legal, rng, params):
    """A random legal action with probability ``epsilon`` (``params[0]``), else the lowest:
    ``{ kind = "agents.examples:epsilon_lowest", params = { epsilon = 0.5 } }``."""
    if rng_below(rng, 0, 1_000_000) < params[0] * 1_000_000:
        return random_legal(state, legal, rng)
    return lowest_legal(state, legal, rng)


# ------------------------------------------------------------------- slow path: a Python class


class OnePlyEvaluate:
    """Looks one decision ahead: for each legal action, on a few states resampled from what the
    seat knows, applies it and asks the game's ``evaluate`` how good the result is for the seat;
    plays the best mean (ties: the lowest action).  Plain Python, called once per decision.
    ``samples`` (default 4) is a parameter: ``{ kind = "agents.examples:OnePlyEvaluate",
    params = { samples = 16 } }``."""

    def __init__(self, samples: int = 4):
        if not isinstance(samples, int) or samples < 1:
            raise ValueError(f"samples must be a positive integer, got {samples!r}")
        self.samples = samples

    def act(self, view, legal_actions):
        k = view.kernels
        values = np.zeros(view.players)
        best, best_v = legal_actions[0], -np.inf
        for a in legal_actions:
            total = 0.0
            for _ in range(self.samples):
                s = view.sample()
                k.apply(s, np.int64(a))
                if k.is_terminal(s):
                    k.returns(s, np.zeros(view.players), values)
                else:
                    k.evaluate(s, values)
                total += values[view.seat]
            if total > best_v:
                best, best_v = a, total
        return best
