"""Chance and the decks: every chance outcome drawn or replayed through the log
(``chance``), shuffles, province rolls, and the Dynasty, Ruler, Vote and Event decks,
hands and discards.
"""

import numpy as np

from sim.core import H_RNG_LO, kernel, rng_below
from sim.eternal_dynasty.layout import (
    C_COUNT,
    C_SETASIDE,
    DYN_DECK,
    DYN_KNOW,
    DYN_LOC,
    DYN_TYPE,
    F_HAND,
    F_NDYN,
    F_NVOTE,
    F_VHAND,
    G_DYN_END,
    G_DYN_PTR,
    G_LOG_LEN,
    G_LOG_OVERFLOW,
    G_LOG_PTR,
    G_VOTE_END,
    G_VOTE_PTR,
    HAND_MAX,
    K_DIE_SIDES,
    LOC_DECK,
    LOC_DISCARD,
    LOC_HAND,
    LOC_SETASIDE,
    LOG,
    LOG_MAX,
    N_DYN,
    N_PROV,
    N_VOTES,
    QUAR,
    VHAND_MAX,
    VOTE_DECK,
    VOTE_KNOW,
    VOTE_LOC,
)
from sim.eternal_dynasty.rules.helpers import dconst, dyn_field, pb


@kernel
def chance(s, k):
    """A chance outcome in [0, k): replayed from LOG while it lasts, else drawn and logged."""
    ptr = s[G_LOG_PTR]
    if ptr < s[G_LOG_LEN]:
        s[G_LOG_PTR] = ptr + 1
        return np.int64(s[LOG + ptr])
    v = rng_below(s, H_RNG_LO, k)
    if ptr < LOG_MAX:
        s[LOG + ptr] = v
        s[G_LOG_LEN] = ptr + 1
        s[G_LOG_PTR] = ptr + 1
    else:
        s[G_LOG_OVERFLOW] = 1
    return v


@kernel(per_type=True)
def shuffle(s, base, lo, hi):
    for i in range(hi - 1, lo, -1):
        j = lo + chance(s, i - lo + 1)
        t = s[base + i]
        s[base + i] = s[base + j]
        s[base + j] = t


@kernel
def roll_province(s):
    """The province die: re-roll 19-20 and quarantined provinces (spec 3.4)."""
    sides = dconst(s, K_DIE_SIDES)
    while True:
        v = chance(s, sides)
        if v < N_PROV and s[QUAR + v] == 0:
            return v


@kernel(per_type=True)
def draw_card(s, deck, loc, ptr_f, end_f, size, know):
    """Top card of a deck (reshuffling its discard pile when empty); -1 if none at all.
    ``know``: the deck's knowledge bits (-1 none), cleared for reshuffled cards."""
    if s[ptr_f] >= s[end_f]:
        k = 0
        for c in range(size):
            if s[loc + c] == LOC_DISCARD:
                s[deck + k] = c
                s[loc + c] = LOC_DECK
                if know >= 0:
                    s[know + c] = 0
                k += 1
        s[ptr_f] = 0
        s[end_f] = k
        shuffle(s, deck, 0, k)
        if k == 0:
            return -1
    c = s[deck + s[ptr_f]]
    s[ptr_f] += 1
    return c


@kernel
def draw_dynasty(s, p):
    if s[pb(p) + F_NDYN] >= HAND_MAX:
        return
    c = draw_card(s, DYN_DECK, DYN_LOC, G_DYN_PTR, G_DYN_END, N_DYN, DYN_KNOW)
    if c >= 0:
        add_to_hand(s, p, c)


@kernel
def add_to_hand(s, p, c):
    b = pb(p)
    s[b + F_HAND + s[b + F_NDYN]] = c
    s[b + F_NDYN] += 1
    s[DYN_LOC + c] = LOC_HAND


@kernel
def remove_from_hand(s, p, slot):
    b = pb(p)
    c = s[b + F_HAND + slot]
    n = s[b + F_NDYN]
    for i in range(slot, n - 1):
        s[b + F_HAND + i] = s[b + F_HAND + i + 1]
    s[b + F_HAND + n - 1] = -1
    s[b + F_NDYN] = n - 1
    return c


@kernel
def discard_card(s, c, know):
    """A played or discarded Dynasty card: the set-aside copies go back (spec 3.5).
    ``know``: who sees it (KNOW_ALL played; the discarder's bit face down, spec 9)."""
    s[DYN_KNOW + c] = know
    if is_setaside_copy(s, c):
        s[DYN_LOC + c] = LOC_SETASIDE
    else:
        s[DYN_LOC + c] = LOC_DISCARD


@kernel
def is_setaside_copy(s, c):
    """The first ``set_aside_at_start`` instances of a kind are its set-aside copies."""
    ct = s[DYN_TYPE + c]
    first = 0
    for k in range(ct):
        first += dyn_field(s, k, C_COUNT)
    return c - first < dyn_field(s, ct, C_SETASIDE)


@kernel
def draw_vote(s, p):
    b = pb(p)
    if s[b + F_NVOTE] >= VHAND_MAX:
        return
    c = draw_card(s, VOTE_DECK, VOTE_LOC, G_VOTE_PTR, G_VOTE_END, N_VOTES, VOTE_KNOW)
    if c >= 0:
        s[b + F_VHAND + s[b + F_NVOTE]] = c
        s[b + F_NVOTE] += 1
        s[VOTE_LOC + c] = LOC_HAND


@kernel
def remove_vote(s, p, slot, know):
    """A called (``know`` = KNOW_ALL) or spent (face down: p's bit, spec 9) Vote card."""
    b = pb(p)
    c = s[b + F_VHAND + slot]
    n = s[b + F_NVOTE]
    for i in range(slot, n - 1):
        s[b + F_VHAND + i] = s[b + F_VHAND + i + 1]
    s[b + F_VHAND + n - 1] = -1
    s[b + F_NVOTE] = n - 1
    s[VOTE_LOC + c] = LOC_DISCARD
    s[VOTE_KNOW + c] = know
    return c
