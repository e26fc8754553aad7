"""The contract's kernels of play (sim.core): ``legal_mask``, ``apply``,
``is_terminal`` and ``returns``.
"""

from sim.core import H_CURRENT, H_PLY, NO_PLAYER, kernel
from sim.middle_kingdom.layout import (
    A_BID,
    A_EMP_LATE,
    A_HOST,
    A_PASS,
    A_ROW,
    A_SLOT_SINGLE,
    A_SLOT_STACK0,
    A_SLOT_STACK1,
    DK_BID,
    DK_EMPEROR,
    DK_EXCHANGE,
    DK_HARVEST,
    DK_HEIR,
    DK_HOST,
    DK_PICK,
    DK_SLOT,
    DR_IN_ROW,
    DRAGON,
    F_DBL,
    F_DISC,
    F_DYN_COUNT,
    F_EMP_SLOT,
    F_HAND,
    F_HAND_START,
    F_HARVEST_SWAPS,
    F_PAL_FIRST,
    F_PHYS,
    F_PICK_RANK_SUM,
    F_PICKS,
    F_SCORE,
    F_SLOT_CARD,
    F_SLOT_STEP,
    G_DECISION,
    G_DRAGON,
    G_K,
    G_ORD_POS,
    G_PEND_CARD,
    G_PEND_DEFER,
    G_PEND_MEMBER,
    G_PEND_P,
    G_PHASE,
    G_SUB,
    G_TWO_BID,
    GOAL_OWNER,
    MERCHANT,
    N_TYPES,
    NO_CARD,
    NUM_ACTIONS,
    O_HEIR_DRAGON,
    O_HEIR_OPTIONAL,
    ORD_ENT,
    ORD_HOST,
    PH_COMMIT,
    PH_OVER,
    ROW,
    ROW_DRAGON,
    STEP_COMMIT,
    STEP_HARVEST,
    STEP_PALACE,
)
from sim.middle_kingdom.rules.bids import (
    commit_slot_stack,
    emperor_late_named,
    lay,
    palace_late_stack,
)
from sim.middle_kingdom.rules.gains import (
    VIA_EXCHANGE,
    VIA_HEIR,
    VIA_PICK,
    gain,
    goal_check,
    place_card,
)
from sim.middle_kingdom.rules.helpers import is_abstention, n_carry, n_players, pb
from sim.middle_kingdom.rules.machine import advance
from sim.middle_kingdom.rules.order import discard_entry, exchange_mask


@kernel
def is_terminal(s):
    return s[G_PHASE] == PH_OVER


@kernel
def legal_mask(s, out):
    """Fill ``out[NUM_ACTIONS]``; return the number of legal actions."""
    for i in range(NUM_ACTIONS):  # (a loop: slice assignment costs a view per call)
        out[i] = False
    if s[G_PHASE] == PH_OVER:
        return 0
    p = s[H_CURRENT]
    b = pb(p)
    kind = s[G_DECISION]
    k = s[G_K]
    count = 0
    if kind == DK_BID:
        hand = s[b + F_HAND]
        for v in range(8):  # branch-free: the hand's bits are what a random player's draws vary
            bit = (hand >> v) & 1
            out[A_BID + v] = bit != 0
            count += bit
    elif kind == DK_SLOT:
        nc = n_carry(s, p)
        out[A_SLOT_STACK0] = True
        if nc == 2:
            out[A_SLOT_STACK1] = True
        else:
            out[A_SLOT_SINGLE] = True
        count = 2
    elif kind == DK_HARVEST:
        out[A_PASS] = True
        count = 1
        for v in range(8):
            if (s[b + F_HAND] >> v) & 1:
                out[A_BID + v] = True
                count += 1
    elif kind == DK_EMPEROR:
        for j in range(2):
            if s[b + F_SLOT_CARD + j] != NO_CARD and not is_abstention(s, p, j):
                out[A_BID + s[b + F_SLOT_CARD + j]] = True
                count += 1
        if s[G_PHASE] == PH_COMMIT and emperor_late_named(s, p):
            out[A_EMP_LATE] = True
            count += 1
    elif kind == DK_EXCHANGE:
        em = exchange_mask(s, p)
        for i in range(k):
            if (em >> i) & 1:
                out[A_ROW + i] = True
                count += 1
    elif kind == DK_PICK:
        for i in range(k):
            if s[ROW + i] >= 0:
                out[A_ROW + i] = True
                count += 1
    elif kind == DK_HOST:
        out[A_HOST + MERCHANT] = True
        count = 1
        for h in range(N_TYPES):
            if h != MERCHANT and s[b + F_PHYS + h] + s[b + F_DBL + h] >= 1:
                out[A_HOST + h] = True
                count += 1
    elif kind == DK_HEIR:
        if s[O_HEIR_OPTIONAL] == 0:
            out[A_PASS] = True
            count = 1
        for i in range(k):
            c = s[ROW + i]
            if c >= 0 and (c != ROW_DRAGON or s[O_HEIR_DRAGON] == 0):
                out[A_ROW + i] = True
                count += 1
    return count


@kernel
def apply(s, a):
    """Perform decision ``a`` of the seat to move (assumed legal), then advance."""
    p = s[H_CURRENT]
    b = pb(p)
    kind = s[G_DECISION]
    s[H_PLY] += 1
    if kind == DK_BID:
        v = a - A_BID
        if s[G_PHASE] == PH_COMMIT:
            j = 0 if s[b + F_SLOT_CARD] == NO_CARD else 1
            lay(s, p, j, v, commit_slot_stack(s, p, j), STEP_COMMIT)
        else:  # P1.3 Palace late bid
            j = 0 if s[G_TWO_BID] == 0 else 1
            lay(s, p, j, v, palace_late_stack(s, p), STEP_PALACE)
    elif kind == DK_SLOT:
        st = 0 if a == A_SLOT_STACK0 else (1 if a == A_SLOT_STACK1 else -1)
        if s[b + F_HAND_START] == 1:  # hand {0} with two stacks: the 0 goes on the chosen one
            lay(s, p, 0, 0, st, STEP_COMMIT)
        else:
            s[b + F_PAL_FIRST] = st
    elif kind == DK_HARVEST:
        s[G_SUB] = 1
        if a != A_PASS:
            v = a - A_BID
            for j in range(2):
                if s[b + F_SLOT_CARD + j] == 0:
                    s[b + F_DISC] |= 1
                    s[b + F_HAND] &= ~(1 << v)
                    s[b + F_SLOT_CARD + j] = v
                    s[b + F_SLOT_STEP + j] = STEP_HARVEST
                    break
            s[b + F_HARVEST_SWAPS] += 1
    elif kind == DK_EMPEROR:
        if a == A_EMP_LATE:
            s[b + F_EMP_SLOT] = 1  # the Palace's late card is laid in slot 1
        else:
            s[b + F_EMP_SLOT] = 0 if s[b + F_SLOT_CARD] == a - A_BID else 1
    elif kind == DK_EXCHANGE:
        i = a - A_ROW
        c = s[ROW + i]
        s[ROW + i] = ROW_DRAGON
        s[G_DRAGON] = DR_IN_ROW
        s[GOAL_OWNER + DRAGON] = NO_PLAYER
        s[G_SUB] = 1
        gain(s, p, c, VIA_EXCHANGE, False, -1)
    elif kind == DK_PICK:
        i = a - A_ROW
        c = s[ROW + i]
        s[ROW + i] = -1
        pos = s[G_ORD_POS]
        en = s[ORD_ENT + pos]
        discard_entry(s, p, en % 2)
        s[b + F_PICK_RANK_SUM] += pos + 1
        s[b + F_PICKS] += 1
        s[G_ORD_POS] = pos + 1
        gain(s, p, c, VIA_PICK, False, -1)
    elif kind == DK_HOST:
        h = a - A_HOST
        c = s[G_PEND_CARD]
        member = s[G_PEND_MEMBER]
        place_card(s, p, c, h)
        if member >= 0:
            s[ORD_HOST + member] = h
        if s[G_PEND_DEFER] == 0:
            goal_check(s, p, h)
        s[G_PEND_P] = NO_PLAYER
        s[G_PEND_MEMBER] = -1
    elif kind == DK_HEIR:
        s[G_SUB] = 1
        if a != A_PASS:
            i = a - A_ROW
            c = s[ROW + i]
            s[ROW + i] = -1
            gain(s, p, c, VIA_HEIR, False, -1)
    advance(s)


@kernel
def returns(s, scores, wins):
    """Final scores; win shares (1/k) by score, then physical dynasty cards (S6)."""
    n = n_players(s)
    best = -1
    for p in range(n):
        scores[p] = s[pb(p) + F_SCORE]
        key = s[pb(p) + F_SCORE] * 1024 + s[pb(p) + F_DYN_COUNT]
        if key > best or p == 0:
            best = key
    k = 0
    for p in range(n):
        if s[pb(p) + F_SCORE] * 1024 + s[pb(p) + F_DYN_COUNT] == best:
            k += 1
    for p in range(n):
        wins[p] = 1.0 / k if s[pb(p) + F_SCORE] * 1024 + s[pb(p) + F_DYN_COUNT] == best else 0.0
