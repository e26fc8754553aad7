"""The uniformly random agent: every legal action equally likely."""

import numba as nb

from sim.core import random_of_legal


@nb.njit(cache=True)
def random_act(G, state, mask, rng):
    """A uniformly random legal action of ``state`` (``mask`` is scratch space)."""
    return random_of_legal(mask, G.legal_mask(state, mask), rng, 0)
