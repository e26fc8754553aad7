"""The Middle Kingdom heuristic agent.

Plan (public information only: own hand, the others' hands at the start of the round,
face-up discards, tableaux, goals, the row; never a pending secret bid):

* **Card value** (``card_value``): the VP a card is worth to the seat now: printed VP,
  +3 when it fills a missing type, the marginal step of the Peasant table against the
  current minimum, the Philosopher's per-Official bonus, and the value of a goal card it
  would take from the display or from its holder (goal VP plus a small bonus for its
  effect).  Generals also count toward the end-game Heir award.
* **Blind bid** (``blind_bid``): for each card in hand, estimate how many rivals bid higher
  by assuming each rival bids uniformly from the cards they hold (public), take the value
  of the row card at that pick position, discount it by the chance that a rival ties the
  bid exactly (a tie wins nothing), and subtract the cost of spending a high card.  A 0
  (an abstention) is worth the recall of the discarded cards when the hand runs low.
* **Late bid** (Palace, Harvest swap): every other bid is known, so the pick position of
  each candidate is exact; take the cheapest card that reaches the best position.
* **Picks** (picks, the Dragon exchange, the Heir's leftover, Market placement): the
  legal option of largest card value; the Heir passes only when nothing is worth taking.
"""

import numba as nb
import numpy as np

from sim.core import H_CURRENT, argmax_masked, bit_count, kernel
from sim.middle_kingdom.layout import (
    A_BID,
    A_EMP_LATE,
    A_HOST,
    A_PASS,
    A_ROW,
    CARD_TYPE,
    CARD_VP,
    DK_BID,
    DK_EMPEROR,
    DK_EXCHANGE,
    DK_HARVEST,
    DK_HEIR,
    DK_HOST,
    DK_PICK,
    EMPEROR,
    F_CARRY,
    F_DISC,
    F_EFF,
    F_EMP_SLOT,
    F_HAND,
    F_HAND_START,
    F_SLOT_CARD,
    F_SLOT_STACK,
    G_DECISION,
    G_K,
    G_PHASE,
    G_TWO_BID,
    GENERAL,
    GOAL_OWNER,
    GOAL_VP,
    KMAX,
    LOC,
    LOC_OWNED,
    MERCHANT,
    N_TYPES,
    NO_CARD,
    NUM_ACTIONS,
    OFFICIAL,
    PALACE,
    PEASANT,
    PEASANT_VP,
    PH_COMMIT,
    ROW,
    ROW_DRAGON,
    S_PENALTY,
    S_PHIL,
    S_THRESHOLD,
    S_TOKEN_VP,
)
from sim.middle_kingdom.rules import commit_slot_stack, legal_mask, n_players, palace_late_stack, pb

# Value of a goal card's effect while held, on top of its end-game VP (heuristic weights).
EFFECT_BONUS = np.array([2.0, 1.0, 1.0, 1.0, 2.0, 0.0])
HIGH_CARD_COST = 0.35  # VP-equivalent cost of spending one point of bid value
RECALL_VALUE = 0.6  # VP-equivalent value of each discarded card recalled by a 0


@kernel
def type_gain_value(s, p, t, amount):
    """Value to seat ``p`` of ``amount`` more effective cards of type ``t``."""
    b = pb(p)
    n = n_players(s)
    eff = s[b + F_EFF + t]
    v = 0.0
    if eff == 0:
        v += s[S_PENALTY]
    new = eff + amount
    owner = s[GOAL_OWNER + t]
    if owner != p and (
        (owner < 0 and new >= s[S_THRESHOLD]) or (owner >= 0 and new > s[pb(owner) + F_EFF + t])
    ):
        v += s[GOAL_VP + t] + EFFECT_BONUS[t]
    if t == PEASANT:
        m = 1 << 30
        for q in range(n):
            x = s[pb(q) + F_EFF + PEASANT]
            if q != p and x < m:
                m = x
        before = eff - m
        after = new - m
        before = 0 if before < 0 else (5 if before > 5 else before)
        after = 0 if after < 0 else (5 if after > 5 else after)
        v += s[PEASANT_VP + after] - s[PEASANT_VP + before]
    if t == OFFICIAL and s[LOC + s[S_PHIL]] == LOC_OWNED + p:
        v += amount
    if t == GENERAL:  # the end-game Heir (5 VP) goes to the most Generals
        best = 0
        for q in range(n):
            if q != p and s[pb(q) + F_EFF + GENERAL] > best:
                best = s[pb(q) + F_EFF + GENERAL]
        if eff <= best < new:
            v += 2.5
    return v


@kernel
def card_value(s, p, c):
    """Value of gaining row item ``c`` (a dynasty card id or the Dragon) for seat ``p``."""
    if c == ROW_DRAGON:
        return float(s[S_TOKEN_VP])
    t = s[CARD_TYPE + c]
    v = float(s[CARD_VP + c])
    if c == s[S_PHIL]:
        v += s[pb(p) + F_EFF + OFFICIAL]
    best = type_gain_value(s, p, t, 1)
    if t == MERCHANT and s[GOAL_OWNER + 2] == p:  # Market: may double on another stack
        for h in range(N_TYPES):
            if h != MERCHANT and s[pb(p) + F_EFF + h] >= 1:
                x = type_gain_value(s, p, h, 2)
                if x > best:
                    best = x
    return v + best


@kernel
def row_values(s, p, out):
    """Values of the row's items for ``p``, sorted descending; returns how many."""
    k = 0
    for i in range(s[G_K]):
        c = s[ROW + i]
        if c >= 0:
            v = card_value(s, p, c)
            # insertion, largest first (a handful of items; np.sort would compile a quicksort)
            j = k
            while j > 0 and out[j - 1] < v:
                out[j] = out[j - 1]
                j -= 1
            out[j] = v
            k += 1
    return k


@nb.njit(cache=True)
def blind_bid(s, p, rng):
    """Choose a card to commit blind (P1.1); see the module docstring."""
    n = n_players(s)
    b = pb(p)
    hand = s[b + F_HAND]
    rv = np.zeros(KMAX)
    k = row_values(s, p, rv)
    j = 0 if s[b + F_SLOT_CARD] == NO_CARD else 1
    st = commit_slot_stack(s, p, j)
    bottom = s[b + F_CARRY + st] if st >= 0 else 0
    emperor = 0.5 if s[GOAL_OWNER + EMPEROR] == p and s[G_TWO_BID] == 0 else 0.0
    vals = np.full(NUM_ACTIONS, -1e9)
    mask = np.zeros(NUM_ACTIONS, np.bool_)
    for v in range(8):
        if not (hand >> v) & 1:
            continue
        mask[A_BID + v] = True
        if v == 0 and st < 0:
            recall = bit_count(s[b + F_DISC]) * RECALL_VALUE
            left = bit_count(hand)
            vals[A_BID + v] = recall if left <= 4 else recall * 0.3
            continue
        total = bottom + v + emperor + (0.25 if st >= 0 else 0.0)
        higher = 0.0
        tie = 0.0
        for q in range(n):
            if q == p:
                continue
            hq = s[pb(q) + F_HAND_START]
            cnt = bit_count(hq)
            if cnt == 0:
                continue
            if s[GOAL_OWNER + PALACE] == q:  # bids after seeing ours: assume it beats us if it can
                for w in range(8):
                    if (hq >> w) & 1 and w > total:
                        higher += 1.0
                        break
                continue
            for w in range(8):
                if (hq >> w) & 1:
                    if w > total:
                        higher += 1.0 / cnt
                    elif w == total and st < 0:
                        tie += 1.0 / cnt
        rank = int(higher + 0.5)
        gain = rv[rank] if rank < k else 0.0
        if tie > 1.0:
            tie = 1.0
        vals[A_BID + v] = gain * (1.0 - tie) - HIGH_CARD_COST * v
    return argmax_masked(vals, mask, rng, 0)


@kernel
def _my_position(s, p, total2, is_stack, top):
    """Pick position of a (p) entry against the other seats' revealed entries; -1 on a tie."""
    n = n_players(s)
    above = 0
    for q in range(n):
        if q == p:
            continue
        bq = pb(q)
        for jj in range(2):
            c = s[bq + F_SLOT_CARD + jj]
            if c == NO_CARD:
                continue
            stq = s[bq + F_SLOT_STACK + jj]
            if stq < 0 and c == 0:
                continue
            bot = s[bq + F_CARRY + stq] if stq >= 0 else 0
            t2 = 2 * (c + bot) + (1 if s[GOAL_OWNER + EMPEROR] == q and s[G_TWO_BID] == 0 else 0)
            iss = 1 if stq >= 0 else 0
            if t2 > total2 or (t2 == total2 and (iss > is_stack or (iss == is_stack and c > top))):
                above += 1
            elif t2 == total2 and iss == is_stack and c == top and iss == 0:
                return -1
    return above


@nb.njit(cache=True)
def late_bid(s, p, rng, allow_pass):
    """Palace late bid or Harvest swap: every other bid is known."""
    b = pb(p)
    hand = s[b + F_HAND]
    rv = np.zeros(KMAX)
    k = row_values(s, p, rv)
    if s[G_DECISION] == DK_BID:
        st = palace_late_stack(s, p)
        j = 0 if s[G_TWO_BID] == 0 else 1
    else:  # Harvest: the replacement takes the 0's place
        j = 0 if s[b + F_SLOT_CARD] == 0 else 1
        st = s[b + F_SLOT_STACK + j]
    bottom = s[b + F_CARRY + st] if st >= 0 else 0
    # the +0.5: automatic at 3-5p; at 2p it is here only if named at the commit (D5 at_commit)
    emperor = (
        1 if s[GOAL_OWNER + EMPEROR] == p and (s[G_TWO_BID] == 0 or s[b + F_EMP_SLOT] == j) else 0
    )
    vals = np.full(NUM_ACTIONS, -1e9)
    mask = np.zeros(NUM_ACTIONS, np.bool_)
    if allow_pass:
        mask[A_PASS] = True
        vals[A_PASS] = 0.0
    for v in range(8):
        if not (hand >> v) & 1:
            continue
        mask[A_BID + v] = True
        if v == 0 and st < 0:
            vals[A_BID + v] = bit_count(s[b + F_DISC]) * RECALL_VALUE * 0.5
            continue
        pos = _my_position(s, p, 2 * (v + bottom) + emperor, 1 if st >= 0 else 0, v)
        gain = rv[pos] if 0 <= pos < k else 0.0
        cost = 0.0 if allow_pass else HIGH_CARD_COST * v  # a Harvest swap is recalled anyway
        vals[A_BID + v] = gain - cost - 0.01 * v
    return argmax_masked(vals, mask, rng, 0)


@nb.njit(cache=True)
def heuristic(s, rng):
    """The heuristic's action in state ``s`` (see the module docstring)."""
    p = s[H_CURRENT]
    kind = s[G_DECISION]
    mask = np.zeros(NUM_ACTIONS, np.bool_)
    legal_mask(s, mask)
    vals = np.zeros(NUM_ACTIONS)
    if kind == DK_BID and s[G_PHASE] == PH_COMMIT:
        return blind_bid(s, p, rng)
    if (
        kind == DK_BID or kind == DK_HARVEST
    ):  # one call site: a literal True / False would compile it twice
        return late_bid(s, p, rng, kind == DK_HARVEST)
    if kind == DK_PICK or kind == DK_EXCHANGE or kind == DK_HEIR:
        for i in range(s[G_K]):
            if mask[A_ROW + i]:
                vals[A_ROW + i] = card_value(s, p, s[ROW + i])
        if kind == DK_HEIR and mask[A_PASS]:
            vals[A_PASS] = 0.0
        return argmax_masked(vals, mask, rng, 0)
    if kind == DK_HOST:
        for h in range(N_TYPES):
            if mask[A_HOST + h]:
                vals[A_HOST + h] = type_gain_value(s, p, h, 1 if h == MERCHANT else 2)
        return argmax_masked(vals, mask, rng, 0)
    if kind == DK_EMPEROR:
        # +0.5 where it breaks a tie, else on the higher bid; named with the commit (D5
        # at_commit) the rivals' bids are still face down: the higher bid, or the Palace's
        # late bid, which is laid seeing every bid
        if mask[A_EMP_LATE]:
            return A_EMP_LATE
        b = pb(p)
        blind = s[G_PHASE] == PH_COMMIT
        for jj in range(2):
            c = s[b + F_SLOT_CARD + jj]
            if c != NO_CARD and mask[A_BID + c]:
                stq = s[b + F_SLOT_STACK + jj]
                bot = s[b + F_CARRY + stq] if stq >= 0 else 0
                pos = 0 if blind else _my_position(s, p, 2 * (c + bot), 1 if stq >= 0 else 0, c)
                vals[A_BID + c] = c + (10.0 if pos < 0 else 0.0)
        return argmax_masked(vals, mask, rng, 0)
    # DK_SLOT and anything else: uniformly among the legal actions
    return argmax_masked(vals, mask, rng, 0)
