"""Broken user agents for tests/test_user_agents.py (each fails in one way)."""

import contextlib
import time

import numba as nb

from sim.core import H_PLY, H_SEED_LO


@nb.njit(cache=True)
def two_args(state, legal):
    """Wrong signature: no rng."""
    return 0


@nb.njit(cache=True)
def returns_float(state, legal, rng):
    """Wrong return type."""
    return 0.5


@nb.njit(cache=True)
def sometimes_illegal(state, legal, rng):
    """Illegal in about one game in 40 (decided by the deal's seed),
    at the seat's third decision."""
    if state[H_PLY] >= 4 and state[H_SEED_LO] % 40 == 0:
        return legal.shape[0] + 5
    for a in range(legal.shape[0]):
        if legal[a]:
            return a
    return -1


NOT_AN_AGENT = 42


class NoAct:
    pass


class Raises:
    def act(self, view, legal_actions):
        if view.ply >= 3:
            raise RuntimeError("the library failed")
        return legal_actions[0]


class Illegal:
    def act(self, view, legal_actions):
        return -7


class Slow:
    def act(self, view, legal_actions):
        time.sleep(0.05)
        return legal_actions[0]


class RaisesLate:
    """Raises in about one game in 40 (decided by the deal's seed), so in a Ray worker."""

    def act(self, view, legal_actions):
        if view.ply >= 3 and view.state[H_SEED_LO] % 40 == 0:
            raise RuntimeError("the library failed\non two lines")
        return legal_actions[0]


class Hangs:
    """Never returns, and catches every Exception on the way: only its timeout stops it."""

    def act(self, view, legal_actions):
        while True:
            with contextlib.suppress(Exception):
                time.sleep(1)


class HangsLate(Hangs):
    """Hangs in about one game in 40 (decided by the deal's seed), so in a Ray worker."""

    def act(self, view, legal_actions):
        if view.ply >= 3 and view.state[H_SEED_LO] % 40 == 0:
            return super().act(view, legal_actions)
        return legal_actions[0]
