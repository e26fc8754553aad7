"""The uniformly random agent: every legal action equally likely."""

import numba as nb

from sim.core import random_legal


@nb.njit(cache=True)
def random_act(G, state, mask, rng):
    """A uniformly random legal action of ``state`` (``mask`` is scratch space)."""
    G.legal_mask(state, mask)
    return random_legal(mask, rng, 0)
