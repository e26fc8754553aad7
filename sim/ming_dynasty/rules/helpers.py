"""Small accessors of the Ming Dynasty state: player blocks, seat and entity counts
(the 2-player neutral colour), borders, hands, princes, city members and monasteries.
"""

from sim.core import H_NPLAYERS, kernel
from sim.ming_dynasty.layout import (
    ADJ,
    CITY,
    DPP,
    F_HAND,
    MONK,
    N_DIST,
    N_ENT,
    NEUTRAL,
    PL,
    PRINCE,
    PS,
)


@kernel(inline=True)
def pb(p):
    """Offset of seat ``p``'s player block."""
    return PL + p * PS


@kernel(inline=True)
def n_players(s):
    return s[H_NPLAYERS]


@kernel(inline=True)
def n_entities(s):
    """Seats, plus the neutral colour in the 2-player game (entity id NEUTRAL)."""
    return N_ENT if s[H_NPLAYERS] == 2 else s[H_NPLAYERS]


@kernel(inline=True)
def is_entity(s, e):
    return e < s[H_NPLAYERS] or (e == NEUTRAL and s[H_NPLAYERS] == 2)


@kernel(inline=True)
def adj(s, a, b):
    return s[ADJ + a * N_DIST + b]


@kernel
def hand_size(s, p):
    b = pb(p)
    return s[b + F_HAND] + s[b + F_HAND + 1] + s[b + F_HAND + 2] + s[b + F_HAND + 3]


@kernel
def prince_at(s, d, exclude):
    """True if a prince of a seat other than ``exclude`` stands in district ``d``."""
    for q in range(n_players(s)):  # noqa: SIM110 (numba kernel: a plain loop, no generator)
        if q != exclude and s[PRINCE + q] == d:
            return True
    return False


@kernel
def city_count(s, prov, e):
    c = 0
    for j in range(DPP):
        c += s[CITY + (prov * DPP + j) * N_ENT + e]
    return c


@kernel
def monks_of(s, p):
    c = 0
    for d in range(N_DIST):
        if s[MONK + d] == p:
            c += 1
    return c
