"""Small accessors of the Emperor's Choice state (player blocks, card data, Power,
walls, castles, card sets by location, turn order) and the work stack's ``push`` and
``push_option``, which every part of the rules uses to queue effect atoms.
"""

import numpy as np

from sim.core import H_CURRENT, H_NPLAYERS, kernel
from sim.core import bit_count as card_count
from sim.emperors_choice.layout import (
    CANAL,
    CARDS_AT,
    CASTLE,
    CD_POWER,
    CD_RULE,
    CD_SIZE,
    D_CARDS,
    D_EFF,
    D_NCARDS,
    D_POOL,
    DAT,
    EFF_SIZE,
    EXTRAV_CARD,
    F_BID_CUBES,
    F_CUBES,
    F_TAB,
    F_TILE,
    FM_BONUS,
    G_DECISION,
    G_STACK_N,
    G_START,
    LOC,
    MAX_ATOMS,
    N_LOC,
    PL,
    POLICY,
    PR_SOLDIERS_PLUS_2,
    PS,
    STACK,
    STACK_CAP,
    TOWER,
    WALL,
)


@kernel(inline=True)
def pb(p):
    return PL + p * PS


@kernel(inline=True)
def cd(s, c, f):
    return s[DAT + D_CARDS + c * CD_SIZE + f]


@kernel(inline=True)
def ncards(s):
    return s[DAT + D_NCARDS]


@kernel
def cubes(s, p):
    return s[pb(p) + F_CUBES] + s[pb(p) + F_BID_CUBES]


@kernel
def power(s, c, p):
    """Power of card ``c`` held by ``p`` (Field Marshal: cubes + 2, evaluated now)."""
    if cd(s, c, CD_RULE) == PR_SOLDIERS_PLUS_2:
        return cubes(s, p) + FM_BONUS
    return cd(s, c, CD_POWER)


@kernel
def wall_len(towers, walls):
    """Great Wall length from the counts (spec 1.2): 2 min(T, W) + (1 if T != W)."""
    m = min(towers, walls)
    return 2 * m + (1 if towers != walls else 0)


@kernel
def player_wall(s, p):
    b = pb(p)
    return wall_len(s[b + F_TAB + TOWER], s[b + F_TAB + WALL])


@kernel
def extravagance_up(s):
    return s[POLICY + 2 * EXTRAV_CARD] == 0


@kernel
def castles_eff(s, p):
    b = pb(p)
    c = s[b + F_TAB + CASTLE]
    if extravagance_up(s):
        c += s[b + F_TAB + CANAL]
    return c


@kernel
def pidx(s):
    return s[H_NPLAYERS] - 3


@kernel
def pool(s):
    return s[DAT + D_POOL + pidx(s)]


# ---------------------------------------------------------------- card sets (CARDS_AT)
# Each location's cards as one 64-bit set, kept with LOC by move_card: a kernel visits the
# cards of a hand or a bid in card-id order (the order of a scan of LOC) with
#     m = cards_at(s, loc)
#     while m != 0:
#         c = lowest_card(m)
#         m &= m - 1
# and counts them with one instruction (card_count: sim.core's bit_count; lowest_card: its
# lowest_bit), instead of scanning every card's location.


@kernel(inline=True)
def cards_at(s, loc):
    """The set of cards at location ``loc`` (bit c: card c)."""
    i = CARDS_AT + 2 * loc
    return (np.int64(s[i + 1]) << 32) | (np.int64(s[i]) & 0xFFFFFFFF)


@kernel
def move_card(s, c, loc):
    """Put card ``c`` at location ``loc`` (LOC and the two locations' sets in CARDS_AT)."""
    w = CARDS_AT + (c >> 5)
    bit = np.int64(1) << (c & 31)
    s[w + 2 * s[LOC + c]] &= ~bit
    s[w + 2 * loc] |= bit
    s[LOC + c] = loc


@kernel
def sync_card_sets(s):
    """Rebuild every location's set (CARDS_AT) from LOC: after LOC was written directly."""
    for i in range(2 * N_LOC):
        s[CARDS_AT + i] = 0
    for c in range(ncards(s)):
        s[CARDS_AT + 2 * s[LOC + c] + (c >> 5)] |= np.int64(1) << (c & 31)


@kernel
def count_loc(s, loc):
    return card_count(cards_at(s, loc))


@kernel(per_type=True)
def set_decision(s, kind, p):
    s[G_DECISION] = kind
    s[H_CURRENT] = p


@kernel(inline=True)
def turn_order_code(s):
    """The seats in Turn Order packed into one int (seat ``i`` in Turn Order: ``seat_at(code,
    i)``, 4 bits each): ascending Turn Order tile, or seat order from the start player before
    every seat holds a tile.  A snapshot: later changes to the tiles do not alter it."""
    n = s[H_NPLAYERS]
    have = True
    for p in range(n):
        if s[pb(p) + F_TILE] == 0:
            have = False
    code = np.int64(0)
    if have:
        for p in range(n):
            sh = 4 * (s[pb(p) + F_TILE] - 1)
            code = (code & ~(np.int64(15) << sh)) | (np.int64(p) << sh)
    else:
        for i in range(n):
            code |= np.int64((s[G_START] + i) % n) << (4 * i)
    return code


@kernel(inline=True)
def seat_at(code, i):
    return (code >> (4 * i)) & 15


@kernel
def holder_of_tile(s, t):
    for p in range(s[H_NPLAYERS]):
        if s[pb(p) + F_TILE] == t:
            return p
    return -1


# ---------------------------------------------------------------- the work stack


@kernel(per_type=True)
def push(s, kind, val, p):
    i = s[G_STACK_N]
    if i >= STACK_CAP:
        raise ValueError("emperors_choice: effect stack full")
    s[STACK + 3 * i] = kind
    s[STACK + 3 * i + 1] = val
    s[STACK + 3 * i + 2] = p
    s[G_STACK_N] = i + 1


@kernel
def push_option(s, e, o, p):
    """Push the atoms of option ``o`` of effect ``e`` so that they run left to right."""
    base = DAT + D_EFF + e * EFF_SIZE + 1 + o * MAX_ATOMS * 2
    for a in range(MAX_ATOMS - 1, -1, -1):
        kind = s[base + 2 * a]
        if kind != 0:
            push(s, kind, s[base + 2 * a + 1], p)
