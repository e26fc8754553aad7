"""Hidden information, for search: ``masked_state`` and ``info_key`` (what a seat knows:
other hands' unknown cards, the Tribute cards it has not seen and the chance log masked),
and ``determinize`` (the unknown cards and Tribute cards dealt again, a fresh RNG stream
for future draws).
"""

import numba as nb
import numpy as np

from sim.core import (
    FNV_OFFSET,
    H_NPLAYERS,
    H_RNG_LO,
    fnv_words,
    hash64,
    kernel,
    rng_below,
    rng_next,
    rng_seed,
)
from sim.emperors_choice.layout import (
    CARDS_AT,
    F_TRIB,
    G_FORCED_N,
    G_LOG_N,
    KNOWN,
    LOC,
    LOC_DECK,
    LOC_HAND,
    LOG,
    MAXP,
    N_POLICY,
    N_TRIB,
    REVEALING,
    SCRATCH,
    TRIB_DECK,
    UNDER,
)
from sim.emperors_choice.rules.helpers import ncards, pb, sync_card_sets


@nb.njit(cache=True)
def masked_state(s, player, hidden):
    """The state with what ``player`` cannot see masked (-1: for every seat), and the number of
    unknown cards in each hand in ``hidden``: what :func:`info_key` hashes and the observation
    tensors (observe.py) show."""
    c = s.copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    n = s[H_NPLAYERS]
    hidden[:] = 0
    for card in range(ncards(s)):
        loc = s[LOC + card]
        if (
            loc >= LOC_HAND
            and loc < LOC_HAND + MAXP
            and loc != LOC_HAND + player
            and s[KNOWN + card] == 0
        ):
            hidden[loc - LOC_HAND] += 1
            c[LOC + card] = LOC_DECK
    c[CARDS_AT:] = 0  # the card sets: derived from LOC, neither hashed nor shown
    for q in range(n):
        if q != player:
            tot = 0
            for t in range(N_TRIB):
                tot += s[pb(q) + F_TRIB + t]
                c[pb(q) + F_TRIB + t] = 0
            c[pb(q) + F_TRIB] = tot
    for card in range(N_POLICY):
        tot = 0
        for t in range(N_TRIB):
            tot += s[UNDER + card * N_TRIB + t]
            c[UNDER + card * N_TRIB + t] = 0
        c[UNDER + card * N_TRIB] = tot
    for t in range(N_TRIB):
        c[TRIB_DECK + t] = 0
    for i in range(LOG, REVEALING):  # the chance log (REVEALING, BID_FX are public)
        c[i] = 0
    c[G_LOG_N] = 0
    c[G_FORCED_N] = 0
    return c


@nb.njit(cache=True)
def info_key(s, player):
    """A 64-bit key of what ``player`` knows (sim.core contract).

    Masked: the RNG and seed words, the chance log, which unknown cards lie in the deck or
    in other hands (only how many each hand holds is public: R-C7), the values of other
    players' Tribute cards and of those under Policy cards (only counts), and the Tribute
    deck's composition.
    """
    hidden = np.zeros(MAXP, np.int64)
    c = masked_state(s, player, hidden)
    return hash64(np.int64(fnv_words(hidden, fnv_words(c[:SCRATCH], FNV_OFFSET))), player)


@kernel
def determinize(s, observer, rng):
    """Resample exactly what ``observer`` cannot see (R-C7).

    Unknown cards (the deck and other players' blind-drawn cards) are dealt again from the
    cards the observer cannot place, keeping each hand's size; other players' Tribute cards
    and those under Policy cards are dealt again from the Tribute cards the observer cannot
    place, keeping the counts; future chance draws get a fresh RNG stream.
    """
    n = s[H_NPLAYERS]
    # the unknown cards' ids in SCRATCH; their locations are shuffled in place in LOC
    k = 0
    for c in range(ncards(s)):
        loc = s[LOC + c]
        if loc == LOC_DECK or (
            loc >= LOC_HAND
            and loc < LOC_HAND + MAXP
            and loc != LOC_HAND + observer
            and s[KNOWN + c] == 0
        ):
            s[SCRATCH + k] = c
            k += 1
    for i in range(k - 1, 0, -1):
        j = rng_below(rng, 0, i + 1)
        ci = LOC + s[SCRATCH + i]
        cj = LOC + s[SCRATCH + j]
        t = s[ci]
        s[ci] = s[cj]
        s[cj] = t
    for i in range(k):
        s[SCRATCH + i] = 0
    sync_card_sets(s)
    # Tribute cards: pool of the deck, other hands and the cards under policies (counted
    # in TRIB_DECK, which ends up holding what the holders below do not get)
    for t in range(N_TRIB):
        for q in range(n):
            if q != observer:
                s[TRIB_DECK + t] += s[pb(q) + F_TRIB + t]
        for card in range(N_POLICY):
            s[TRIB_DECK + t] += s[UNDER + card * N_TRIB + t]
    # holders: other players, policy cards; the rest is the deck
    for h in range(n + N_POLICY):
        if h < n:
            if h == observer:
                continue
            off = pb(h) + F_TRIB
        else:
            off = UNDER + (h - n) * N_TRIB
        need = 0
        for t in range(N_TRIB):
            need += s[off + t]
            s[off + t] = 0
        for _ in range(need):
            tot = 0
            for t in range(N_TRIB):
                tot += s[TRIB_DECK + t]
            r = rng_below(rng, 0, tot)
            for t in range(N_TRIB):
                if r < s[TRIB_DECK + t]:
                    s[TRIB_DECK + t] -= 1
                    s[off + t] += 1
                    break
                r -= s[TRIB_DECK + t]
    rng_seed(s, H_RNG_LO, np.int64(rng_next(rng, 0) >> np.uint64(1)))
    s[G_FORCED_N] = 0
