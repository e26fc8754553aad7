"""Hidden information: ``determinize`` (resample the undrawn deck and other seats' blind
commits), ``masked_state`` and ``info_key`` (what a seat knows), and ``rewind_secrets``
(take back other seats' blind commits of the round, so that they choose again).
"""

import numba as nb

from sim.core import H_PLY, bit_count, hash_words, kernel, rng_below, shuffle_range
from sim.middle_kingdom.layout import (
    DECK,
    F_EMP_SLOT,
    F_HAND,
    F_HAND_START,
    F_PAL_FIRST,
    F_SLOT_CARD,
    F_SLOT_STACK,
    F_SLOT_STEP,
    F_ZERO,
    G_DECK_PTR,
    G_PHASE,
    G_SUB,
    G_TWO_BID,
    GOAL_OWNER,
    N_DYN,
    NO_CARD,
    PALACE,
    PH_COMMIT,
    STEP_COMMIT,
)
from sim.middle_kingdom.rules.bids import emperor_entries, emperor_late_named, lay
from sim.middle_kingdom.rules.helpers import n_carry, n_players, pb
from sim.middle_kingdom.rules.machine import advance


@kernel
def determinize(s, observer, rng):
    """Resample what ``observer`` cannot see: the deck order and other seats' hidden commits."""
    shuffle_range(s, DECK + s[G_DECK_PTR], DECK + N_DYN, rng, 0)
    if s[G_PHASE] != PH_COMMIT:
        return
    for q in range(n_players(s)):
        if q == observer:
            continue
        b = pb(q)
        for j in range(2):
            card = s[b + F_SLOT_CARD + j]
            if card != NO_CARD and s[b + F_SLOT_STEP + j] == STEP_COMMIT:
                s[b + F_HAND] |= 1 << card
        s[b + F_ZERO] = 0
        for j in range(2):
            if s[b + F_SLOT_CARD + j] != NO_CARD and s[b + F_SLOT_STEP + j] == STEP_COMMIT:
                hand = s[b + F_HAND]
                k = rng_below(rng, 0, bit_count(hand))
                for v in range(8):
                    if (hand >> v) & 1:
                        if k == 0:
                            break
                        k -= 1
                st = s[b + F_SLOT_STACK + j]
                if s[b + F_HAND_START] == 1 and n_carry(s, q) == 2:
                    st = rng_below(rng, 0, 2)  # which stack took the 0 is secret too
                lay(s, q, j, v, st, STEP_COMMIT)
        if s[b + F_EMP_SLOT] >= 0:  # D5 at_commit: the secret naming follows the resampled cards
            m = emperor_entries(s, q)
            if emperor_late_named(s, q):
                m |= 2  # the late bid, always a choice
            s[b + F_EMP_SLOT] = rng_below(rng, 0, 2) if m == 3 else (0 if m == 1 else 1)


COMMITTED = 99  # info_key: "a card lies face down here", value unknown


@nb.njit(cache=True)
def masked_state(s, player):
    """The state with what ``player`` cannot see masked (-1: for every seat): what
    :func:`info_key` hashes and the observation tensors (observe.py) show."""
    c = s.copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    for i in range(DECK + s[G_DECK_PTR], DECK + N_DYN):
        c[i] = 0
    if s[G_PHASE] == PH_COMMIT:
        for q in range(n_players(s)):
            if q == player:
                continue
            b = pb(q)
            c[b + F_HAND] = s[b + F_HAND_START]
            c[b + F_ZERO] = 0
            # named (D5 at_commit), not which
            c[b + F_EMP_SLOT] = 0 if s[b + F_EMP_SLOT] >= 0 else -1
            for j in range(2):
                if s[b + F_SLOT_CARD + j] != NO_CARD and s[b + F_SLOT_STEP + j] == STEP_COMMIT:
                    c[b + F_SLOT_CARD + j] = COMMITTED
                    if s[b + F_HAND_START] == 1:
                        c[b + F_SLOT_STACK + j] = 0
    return c


@nb.njit(cache=True)
def info_key(s, player):
    """A 64-bit key of what ``player`` knows (sim.core contract).

    Hashes the state with the hidden parts masked: the RNG and seed words, the order of
    the undrawn deck, and, during the blind commit, the other seats' face-down cards (only
    *that* they committed is public; their hands show as at the start of the round).
    """
    return hash_words(masked_state(s, player), player)


@kernel
def rewind_secrets(s, observer):
    """Take back the blind commits other seats made earlier in this round (contract: see
    sim.core).  Their cards return to hand and they are to choose again; the observer's own
    commit stays; the ply counter drops by the decisions taken back."""
    if s[G_PHASE] != PH_COMMIT:
        return
    undone = 0
    for q in range(n_players(s)):
        if q == observer:
            continue
        b = pb(q)
        laid = 0
        for j in range(2):
            if s[b + F_SLOT_CARD + j] != NO_CARD:
                laid += 1
        if laid == 0:
            continue
        nc = n_carry(s, q)
        if s[G_TWO_BID] == 1 and s[b + F_HAND_START] == 1:
            undone += 1 if nc == 2 else 0  # 5.1: a lone 0 is laid for them unless it picks a stack
        else:
            undone += laid
            if s[G_TWO_BID] == 1 and s[GOAL_OWNER + PALACE] == q and nc >= 1:
                undone += 1  # the Palace's public announcement
        if s[b + F_EMP_SLOT] >= 0:  # D5 at_commit: the naming is taken back with the commit
            if s[b + F_HAND_START] != 1:  # it was asked (a hand of {0} names unasked)
                undone += 1
            s[b + F_EMP_SLOT] = -1
        for j in range(2):
            card = s[b + F_SLOT_CARD + j]
            if card != NO_CARD:
                s[b + F_HAND] |= 1 << card
                s[b + F_SLOT_CARD + j] = NO_CARD
                s[b + F_SLOT_STACK + j] = -1
        s[b + F_ZERO] = 0
        s[b + F_PAL_FIRST] = -2
    s[H_PLY] -= undone
    s[G_SUB] = 0
    advance(s)
