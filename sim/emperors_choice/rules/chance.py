"""Chance: every draw picks uniformly among what is left (tiles, cards, Tribute cards)
with the game's RNG and is logged (``LOG``/``LOGK``); a state built with ``G_FORCED_N`` >
0 replays the logged outcomes instead (``choose``).
"""

import numpy as np

from sim.core import H_RNG_LO, kernel, nth_bit, rng_below
from sim.core import bit_count as card_count
from sim.core import lowest_bit as lowest_card
from sim.emperors_choice.layout import (
    BAG,
    BARB1,
    BARB2,
    BARB_MAX,
    CH_CARD,
    CH_TILE,
    D_BARB,
    DAT,
    G_BARB,
    G_FORCED_N,
    G_LOG_N,
    KNOWN,
    LOC_DECK,
    LOC_DISCARD,
    LOG,
    LOG_CAP,
    LOGK,
    N_TILE,
    REMOVED,
)
from sim.emperors_choice.rules.helpers import cards_at, move_card


@kernel
def log_outcome(s, kind, v):
    i = s[G_LOG_N]
    if i >= LOG_CAP:
        raise ValueError("emperors_choice: chance log full")
    s[LOG + i] = v
    s[LOGK + i] = kind
    s[G_LOG_N] = i + 1


@kernel
def forced(s):
    return s[G_LOG_N] < s[G_FORCED_N]


@kernel(per_type=True)
def choose(s, kind, n):
    """A uniform integer in [0, n) logged as a chance outcome (or the logged one when replaying)."""
    if forced(s):
        v = s[LOG + s[G_LOG_N]]
        s[LOGK + s[G_LOG_N]] = kind
        s[G_LOG_N] += 1
        return v
    v = rng_below(s, H_RNG_LO, n)
    log_outcome(s, kind, v)
    return v


@kernel(inline=True)
def pick_weighted(s, kind, off, k):
    """Draw one item from the counts ``s[off:off+k]`` (returns its index, -1 if empty); logged."""
    total = 0
    for i in range(k):
        total += s[off + i]
    if total == 0:
        return -1
    if forced(s):
        t = s[LOG + s[G_LOG_N]]
        s[LOGK + s[G_LOG_N]] = kind
        s[G_LOG_N] += 1
    else:
        r = rng_below(s, H_RNG_LO, total)
        t = 0  # the items whose counts, with those before them, end at or before r (no branch on r)
        run = 0
        for i in range(k):
            run += s[off + i]
            t += np.int64(run <= r)
        log_outcome(s, kind, t)
    s[off + t] -= 1
    return t


@kernel
def draw_card(s):
    """Draw a Character card from the deck; an empty deck takes the discard pile back (R-C3)."""
    deck = cards_at(s, LOC_DECK)
    if deck == 0:
        deck = cards_at(s, LOC_DISCARD)
        m = deck
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            move_card(s, c, LOC_DECK)
            s[KNOWN + c] = 0
    n_deck = card_count(deck)
    if n_deck == 0:
        return -1
    if forced(s):
        c = s[LOG + s[G_LOG_N]]
        s[LOGK + s[G_LOG_N]] = CH_CARD
        s[G_LOG_N] += 1
        return c
    c = nth_bit(deck, rng_below(s, H_RNG_LO, n_deck))  # the r-th card of the deck in card-id order
    log_outcome(s, CH_CARD, c)
    return c


@kernel
def draw_qin_tile(s):
    """A bag tile for a player; Barbarians raise the strength, leave the game and are replaced."""
    while True:
        t = pick_weighted(s, CH_TILE, BAG, N_TILE)
        if t < 0:
            return -1
        if t == BARB1 or t == BARB2:
            s[G_BARB] = min(BARB_MAX, s[G_BARB] + s[DAT + D_BARB + t - BARB1])
            s[REMOVED + t] += 1
            continue
        return t
