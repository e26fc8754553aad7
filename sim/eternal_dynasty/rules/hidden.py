"""Hidden information: ``determinize`` (resample what a seat cannot see: other hands,
face-down discards, deck orders, dealt Rulers, pending secret picks), ``masked_state``
and ``info_key``.
"""

import numba as nb
import numpy as np

from sim.core import H_RNG_LO, hash_words, kernel, rng_below, rng_next, rng_seed, shuffle_range
from sim.eternal_dynasty.layout import (
    CD_AWARD,
    DYN_DECK,
    DYN_KNOW,
    DYN_LOC,
    EVT_DECK,
    F_BID,
    F_CHOICE,
    F_COIN_VALUE,
    F_COINS,
    F_DEALT,
    F_DI,
    F_DPICK,
    F_HAND,
    F_KEPT,
    F_NDYN,
    F_NVOTE,
    F_PICK,
    F_VHAND,
    G_BAG0,
    G_BAG1,
    G_BAG2,
    G_BID_WINNER,
    G_DYN_END,
    G_DYN_PTR,
    G_EVT_END,
    G_EVT_PTR,
    G_GEN,
    G_LOG_LEN,
    G_LOG_OVERFLOW,
    G_LOG_PTR,
    G_OVER,
    G_PHASE,
    G_RUL_END,
    G_RUL_PTR,
    G_SP,
    G_VOTE_CARD,
    G_VOTE_END,
    G_VOTE_PTR,
    G_VOTE_STAGE,
    HAND_MAX,
    K_BAG0,
    K_BAG1,
    K_BAG2,
    LOC_DEALT,
    LOC_DECK,
    LOC_DISCARD,
    LOC_HAND,
    LOG,
    N_DYN,
    N_NUM,
    N_RULERS,
    N_VOTES,
    NCOL,
    O_COIN_DRAW,
    O_DRAFT,
    PH_AFTER_CHOICE,
    RUL_DECK,
    RUL_KNOW,
    RUL_LOC,
    SC_POOL,
    STACK,
    TASK_SIZE,
    VHAND_MAX,
    VOTE_DECK,
    VOTE_KNOW,
    VOTE_LOC,
    VOTE_TYPE,
)
from sim.eternal_dynasty.rules.decks import is_setaside_copy
from sim.eternal_dynasty.rules.helpers import dconst, n_colours, n_players, pb
from sim.eternal_dynasty.rules.tasks import TK_BID, TK_DEAL, TK_DRAFT_PASS, TK_EVENT_DRAW, top


@kernel
def in_simultaneous_pick(s):
    """True while Aye/Nay picks are being collected (before the reveal)."""
    return s[G_VOTE_CARD] >= 0 and s[G_VOTE_STAGE] == 0


@kernel
def _resample(
    s, observer, rng, pool, slot_know, deck, ptr, end, hand, count, loc, know, size, dynasty
):
    """One card family (Dynasty or Vote): shuffle together every card ``observer`` cannot
    place -- the undrawn deck, the other seats' hands, and the discards it does not know
    (other seats' face-down discards, spec 9) -- and deal them back into the same places, so
    hand sizes, the deck size and every seat's count of face-down discards are kept.  A
    card keeps the knowledge bits of the place it lands in.  Set-aside copies in a hand are
    public (spec 3.5) and stay."""
    n = n_players(s)
    ob = 1 << observer
    k = 0
    for i in range(s[ptr], s[end]):
        pool[k] = s[deck + i]
        k += 1
    for p in range(n):
        if p != observer:
            for i in range(s[pb(p) + count]):
                c = s[pb(p) + hand + i]
                if dynasty and is_setaside_copy(s, c):
                    continue
                pool[k] = c
                k += 1
    for c in range(size):
        if s[loc + c] == LOC_DISCARD and (s[know + c] & ob) == 0:
            pool[k] = c
            k += 1
    for i in range(k):
        slot_know[i] = s[know + pool[i]]
    shuffle_range(pool, 0, k, rng, 0)
    j = 0
    for i in range(s[ptr], s[end]):
        s[deck + i] = pool[j]
        s[loc + pool[j]] = LOC_DECK
        s[know + pool[j]] = slot_know[j]
        j += 1
    for p in range(n):
        if p != observer:
            for i in range(s[pb(p) + count]):
                if dynasty and is_setaside_copy(s, s[pb(p) + hand + i]):
                    continue
                s[pb(p) + hand + i] = pool[j]
                s[loc + pool[j]] = LOC_HAND
                s[know + pool[j]] = slot_know[j]
                j += 1
    # the rest go to the discard places (a discard pile is a set: only the count matters)
    while j < k:
        s[loc + pool[j]] = LOC_DISCARD
        s[know + pool[j]] = slot_know[j]
        j += 1


@kernel
def _ruler_slot(p, i):
    """The i-th Ruler place of seat p's block: F_DEALT (3), then F_KEPT (2)."""
    return pb(p) + (F_DEALT + i if i < 3 else F_KEPT + i - 3)


@kernel
def draft_passes_done(s):
    """Ruler Draft: both passes made and the Rulers not yet revealed (the final choice)."""
    if s[O_DRAFT] != 1 or s[G_PHASE] != PH_AFTER_CHOICE:
        return False
    for i in range(s[G_SP]):
        kind = s[STACK + i * TASK_SIZE]
        if kind == TK_DEAL or kind == TK_DRAFT_PASS or kind == TK_EVENT_DRAW:
            return False
    return True


@kernel
def _resample_rulers(s, observer, rng, pool, slot_know):
    """Rulers: the undrawn deck, the Rulers in other seats' dealt and kept places that
    ``observer`` never held, and the discarded Rulers it never held, shuffled together and
    put back (every place keeps its knowledge bits).  A Ruler the observer held stays where
    it is (spec 9: unpicked Rulers are seen by each player who held them, in the draft by
    everyone they passed through); the one place that knowledge leaves open is handled by
    ``determinize``."""
    n = n_players(s)
    ob = 1 << observer
    k = 0
    for i in range(s[G_RUL_PTR], s[G_RUL_END]):
        pool[k] = s[RUL_DECK + i]
        k += 1
    for p in range(n):
        if p != observer:
            for i in range(5):
                r = s[_ruler_slot(p, i)]
                if r >= 0 and (s[RUL_KNOW + r] & ob) == 0:
                    pool[k] = r
                    k += 1
    for r in range(N_RULERS):
        if s[RUL_LOC + r] == LOC_DISCARD and (s[RUL_KNOW + r] & ob) == 0:
            pool[k] = r
            k += 1
    for i in range(k):
        slot_know[i] = s[RUL_KNOW + pool[i]]
    shuffle_range(pool, 0, k, rng, 0)
    j = 0
    for i in range(s[G_RUL_PTR], s[G_RUL_END]):
        s[RUL_DECK + i] = pool[j]
        s[RUL_LOC + pool[j]] = LOC_DECK
        s[RUL_KNOW + pool[j]] = slot_know[j]
        j += 1
    for p in range(n):
        if p != observer:
            for i in range(5):
                f = _ruler_slot(p, i)
                r = s[f]
                if r >= 0 and (s[RUL_KNOW + r] & ob) == 0:
                    s[f] = pool[j]
                    s[RUL_LOC + pool[j]] = LOC_DEALT
                    s[RUL_KNOW + pool[j]] = slot_know[j]
                    j += 1
    while j < k:
        s[RUL_LOC + pool[j]] = LOC_DISCARD
        s[RUL_KNOW + pool[j]] = slot_know[j]
        j += 1


@kernel
def determinize(s, observer, rng):
    """Resample what ``observer`` cannot see (spec 9): other seats' Dynasty and Vote hands
    together with the decks and other seats' face-down discards (every count kept), the
    Rulers other seats hold or discarded that the observer never held, deck orders, other
    seats' pending secret choices, the Coin values drawn so far, and the chance stream."""
    n = n_players(s)
    pool = s[SC_POOL : SC_POOL + N_DYN]
    slot_know = s[SC_POOL + N_DYN : SC_POOL + 2 * N_DYN]
    _resample(
        s,
        observer,
        rng,
        pool,
        slot_know,
        DYN_DECK,
        G_DYN_PTR,
        G_DYN_END,
        F_HAND,
        F_NDYN,
        DYN_LOC,
        DYN_KNOW,
        N_DYN,
        True,
    )
    _resample(
        s,
        observer,
        rng,
        pool,
        slot_know,
        VOTE_DECK,
        G_VOTE_PTR,
        G_VOTE_END,
        F_VHAND,
        F_NVOTE,
        VOTE_LOC,
        VOTE_KNOW,
        N_VOTES,
        False,
    )
    _resample_rulers(s, observer, rng, pool, slot_know)
    if draft_passes_done(s) and n > 2:
        # Ruler Draft after the second pass: of the two Rulers the observer passed at the
        # first pass, its receiver X kept one (X's second pick, secret) and passed the other
        # to the next seat Y; the observer cannot tell which (with 2 players Y is the
        # observer, who then knows).  The two places hold them either way, equally likely.
        d = 1 if s[G_GEN] % 2 == 1 else n - 1
        x = (observer + d) % n
        y = (x + d) % n
        if y != observer:
            fa = pb(x) + F_DEALT + 1
            fb = pb(y) + F_DEALT + 2
            ra = s[fa]
            rb = s[fb]
            ob = 1 << observer
            if (
                ra >= 0
                and rb >= 0
                and (s[RUL_KNOW + ra] & ob) != 0
                and (s[RUL_KNOW + rb] & ob) != 0
                and rng_below(rng, 0, 2) == 1  # drawn only when both are known
            ):
                ka = s[RUL_KNOW + ra]
                s[fa] = rb
                s[fb] = ra
                s[RUL_KNOW + ra] = s[RUL_KNOW + rb]
                s[RUL_KNOW + rb] = ka
    for p in range(n):
        if p != observer:
            nd = 0
            for i in range(3):
                if s[pb(p) + F_DEALT + i] >= 0:
                    nd += 1
            if s[pb(p) + F_CHOICE] >= 0:
                s[pb(p) + F_CHOICE] = rng_below(rng, 0, nd)
            if s[pb(p) + F_DPICK] >= 0:
                s[pb(p) + F_DPICK] = rng_below(rng, 0, nd)
    # Event deck order
    shuffle_range(s, EVT_DECK + s[G_EVT_PTR], EVT_DECK + s[G_EVT_END], rng, 0)
    # pending Aye/Nay picks, and (2 players) bids made before the bid reveal: uniform over
    # the legal choices (a bid halfway through its two digits keeps a multiple of 16)
    if in_simultaneous_pick(s):
        for p in range(n):
            if p != observer and s[pb(p) + F_PICK] >= 0:
                s[pb(p) + F_PICK] = rng_below(rng, 0, 2)
            if p != observer and s[pb(p) + F_BID] >= 0 and s[G_BID_WINNER] < 0:
                di = s[pb(p) + F_DI]
                o = top(s)
                if s[G_SP] > 0 and s[o] == TK_BID and s[o + 1] == p and s[o + 2] == 1:
                    s[pb(p) + F_BID] = N_NUM * rng_below(rng, 0, min(di // N_NUM, N_NUM - 1) + 1)
                else:
                    s[pb(p) + F_BID] = rng_below(rng, 0, min(di, N_NUM * N_NUM - 1) + 1)
    # Coin values drawn at their awards (D47): nobody has seen any (7.3), so all of them are
    # drawn again, jointly and without replacement from the full bag
    if s[O_COIN_DRAW] == CD_AWARD and s[G_OVER] == 0:
        s[G_BAG0] = dconst(s, K_BAG0)
        s[G_BAG1] = dconst(s, K_BAG1)
        s[G_BAG2] = dconst(s, K_BAG2)
        for p in range(n_colours(s)):
            v = 0
            for _ in range(s[pb(p) + F_COINS]):
                r = rng_below(rng, 0, s[G_BAG0] + s[G_BAG1] + s[G_BAG2])
                if r < s[G_BAG0]:
                    s[G_BAG0] -= 1
                elif r < s[G_BAG0] + s[G_BAG1]:
                    s[G_BAG1] -= 1
                    v += 1
                else:
                    s[G_BAG2] -= 1
                    v += 2
            s[pb(p) + F_COIN_VALUE] = v
    # future chance (dice, Xun's later rolls, reshuffles) is unknown to everyone: a new chance
    # stream, and no replay of logged outcomes still ahead
    rng_seed(s, H_RNG_LO, np.int64(rng_next(rng, 0) >> np.uint64(1)))
    s[G_LOG_LEN] = s[G_LOG_PTR]


@nb.njit(cache=True)
def masked_state(s, player):
    """The state with what ``player`` cannot see masked (-1: for every seat): what
    :func:`info_key` hashes and the observation tensors (observe.py) show."""
    c = s[:LOG].copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    for i in range(DYN_LOC, STACK):
        if i < VOTE_TYPE or i >= VOTE_LOC:
            c[i] = 0
    n = n_players(s)
    pick = in_simultaneous_pick(s)
    for p in range(n):
        if p == player:
            continue
        b = pb(p)
        for i in range(HAND_MAX):
            c[b + F_HAND + i] = 0
        for i in range(VHAND_MAX):
            c[b + F_VHAND + i] = 0
        for i in range(3):
            c[b + F_DEALT + i] = 0
        c[b + F_KEPT] = 0
        c[b + F_KEPT + 1] = 0
        c[b + F_CHOICE] = 0 if s[b + F_CHOICE] < 0 else 1
        c[b + F_DPICK] = 0 if s[b + F_DPICK] < 0 else 1
        if pick:
            c[b + F_PICK] = 0 if s[b + F_PICK] < 0 else 1
            if s[G_BID_WINNER] < 0:  # 2 players: bids are secret until the bid reveal
                c[b + F_BID] = 0 if s[b + F_BID] < 0 else 1
    # the log pointers count chance draws, which determinize does not replay
    c[G_LOG_LEN] = 0
    c[G_LOG_PTR] = 0
    c[G_LOG_OVERFLOW] = 0
    # Coin values and what is left in the bag: nobody sees them before the reveal (7.3)
    if s[G_OVER] == 0:
        c[G_BAG0] = 0
        c[G_BAG1] = 0
        c[G_BAG2] = 0
        for p in range(NCOL):
            c[pb(p) + F_COIN_VALUE] = 0
    return c


@nb.njit(cache=True)
def info_key(s, player):
    """A 64-bit key of what ``player`` knows: the state up to the chance log, with the RNG,
    deck orders, card locations and the knowledge bits (DYN_KNOW ...) masked, other seats'
    hands, dealt Rulers and pending secret choices masked (their counts stay), and every Coin
    value and the bag's contents masked (Coin counts stay).  Everything
    ``determinize`` changes for ``player`` is masked, so its states share the key."""
    return hash_words(masked_state(s, player), player)
