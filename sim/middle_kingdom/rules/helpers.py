"""Small accessors of the Middle Kingdom state: player blocks, seat count, carried
stacks, abstentions, the deck, the row and goal counts.
"""

from sim.core import H_NPLAYERS, kernel
from sim.middle_kingdom.layout import (
    F_CARRY,
    F_DBL,
    F_PHYS,
    F_SLOT_CARD,
    F_SLOT_STACK,
    G_DECK_PTR,
    G_K,
    GOAL_OWNER,
    N_DYN,
    N_GOALS,
    N_TYPES,
    NO_CARD,
    PL,
    PS,
    ROW,
)


@kernel(inline=True)
def pb(p):
    """Offset of seat ``p``'s player block."""
    return PL + p * PS


@kernel(inline=True)
def n_players(s):
    return s[H_NPLAYERS]


@kernel(inline=True)
def n_carry(s, p):
    b = pb(p)
    return (1 if s[b + F_CARRY] != NO_CARD else 0) + (1 if s[b + F_CARRY + 1] != NO_CARD else 0)


@kernel(inline=True)
def is_abstention(s, p, j):
    """A lone 0: a single entry whose only card is 0 (D1)."""
    b = pb(p)
    return s[b + F_SLOT_CARD + j] == 0 and s[b + F_SLOT_STACK + j] < 0


@kernel(inline=True)
def goals_held(s, p):
    c = 0
    for g in range(N_GOALS):
        c += s[GOAL_OWNER + g] == p
    return c


@kernel(inline=True)
def dyn_count(s, p):
    """Physical dynasty cards owned (D13, D22)."""
    b = pb(p)
    c = 0
    for t in range(N_TYPES):
        c += s[b + F_PHYS + t] + s[b + F_DBL + t]
    return c


@kernel(inline=True)
def deck_left(s):
    return N_DYN - s[G_DECK_PTR]


@kernel(inline=True)
def row_count(s):
    c = 0
    for i in range(s[G_K]):
        c += s[ROW + i] >= 0
    return c
