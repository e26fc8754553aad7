"""Phases 3 and 4 and the scoring: the Dragon summon (P3.1), the end of a round and the
row revealed for the next (P4), and the final scoring (S1-S4).
"""

from sim.core import H_CURRENT, NO_PLAYER, bit_count, kernel
from sim.middle_kingdom.layout import (
    CARD_TYPE,
    CARD_VP,
    DECK,
    DK_NONE,
    DR_DISPLAY,
    DR_HELD,
    DR_SET_ASIDE,
    DRAGON,
    F_DISC,
    F_DRAGON_GOT,
    F_DYN_COUNT,
    F_EFF,
    F_HAND,
    F_LAST_DRAGON,
    F_LAST_DRAGON_SUMMONED,
    F_PENALTY,
    F_SCORE,
    F_TOKENS,
    F_VP_CARDS,
    F_VP_GOALS,
    F_VP_PEASANTS,
    F_VP_PHIL,
    F_VP_TOKENS,
    F_ZERO,
    G_DECISION,
    G_DECK_PTR,
    G_DRAGON,
    G_K,
    G_LEAD,
    G_PHASE,
    G_ROUND,
    G_SCORED,
    G_SUMMONS,
    GENERAL,
    GOAL_OWNER,
    GOAL_VP,
    HEIR,
    HOST,
    LOC,
    LOC_DISCARD,
    LOC_OWNED,
    LOC_ROW,
    N_DYN,
    N_GOALS,
    N_TYPES,
    O_DRAGON_TIEBREAK,
    O_LEAD_SEAT,
    OFFICIAL,
    PEASANT,
    PEASANT_VP,
    PH_OVER,
    ROW,
    ROW_DRAGON,
    S_PENALTY,
    S_PHIL,
    S_SUMMON_MIN,
    S_TOKEN_VP,
)
from sim.middle_kingdom.rules.bids import begin_round
from sim.middle_kingdom.rules.helpers import deck_left, dyn_count, goals_held, n_players, pb


@kernel
def reveal(s):
    """P4.1 / setup: reveal K cards into the row."""
    k = s[G_K]
    for i in range(k):
        c = s[DECK + s[G_DECK_PTR]]
        s[G_DECK_PTR] += 1
        s[ROW + i] = c
        s[LOC + c] = LOC_ROW


@kernel
def summon(s):
    """P3.1: give the Dragon to the seat with the fewest goals (D13 tie-breaks)."""
    if s[G_DRAGON] != DR_DISPLAY and s[G_DRAGON] != DR_SET_ASIDE:
        return
    held = 0
    for g in range(DRAGON):
        held += s[GOAL_OWNER + g] >= 0
    if held < s[S_SUMMON_MIN]:
        return
    n = n_players(s)
    cand = 0  # bitmask of seats still in the running
    best = 1 << 30
    for p in range(n):
        v = goals_held(s, p)
        if v < best:
            best = v
            cand = 1 << p
        elif v == best:
            cand |= 1 << p
    if bit_count(cand) > 1:
        best = 1 << 30
        keep = 0
        for p in range(n):
            if (cand >> p) & 1:
                v = _dragon_count(s, p)
                if v < best:
                    best = v
                    keep = 1 << p
                elif v == best:
                    keep |= 1 << p
        cand = keep
    r = -1
    if bit_count(cand) == 1:
        for p in range(n):
            if (cand >> p) & 1:
                r = p
    else:
        best = -1
        ties = 0
        for p in range(n):
            if (cand >> p) & 1:
                last = _dragon_held_at(s, p)
                if last > best:
                    best = last
                    r = p
                    ties = 1
                elif last == best and last >= 0:
                    ties += 1
        if best < 0 or ties != 1:
            r = -1
    if r >= 0:
        s[GOAL_OWNER + DRAGON] = r
        s[G_DRAGON] = DR_HELD
        s[pb(r) + F_LAST_DRAGON] = s[G_ROUND]
        s[pb(r) + F_LAST_DRAGON_SUMMONED] = 1
        s[pb(r) + F_DRAGON_GOT] += 1
        s[G_SUMMONS] += 1


@kernel(inline=True)
def _dragon_held_at(s, p):
    """When seat ``p`` last held the Dragon, in the order of events (D13): twice the round,
    plus 1 for a summon (phase 3) over a take from the row (phase 2, counted under
    ``dragon_held_includes_row_pick`` only); -1 if never."""
    last = s[pb(p) + F_LAST_DRAGON]
    if last < 0:
        return -1
    return 2 * last + s[pb(p) + F_LAST_DRAGON_SUMMONED]


@kernel(inline=True)
def _dragon_count(s, p):
    if s[O_DRAGON_TIEBREAK] == 1:
        b = pb(p)
        c = 0
        for t in range(N_TYPES):
            c += s[b + F_EFF + t]
        return c
    return dyn_count(s, p)


@kernel
def score_game(s):
    """Section 6, S1-S6: the Heir re-award, then each seat's score and its parts."""
    n = n_players(s)
    best = -1
    who = NO_PLAYER
    ties = 0
    for p in range(n):
        g = s[pb(p) + F_EFF + GENERAL]
        if g > best:
            best = g
            who = p
            ties = 1
        elif g == best:
            ties += 1
    s[GOAL_OWNER + HEIR] = who if ties == 1 else NO_PLAYER
    m = 1 << 30
    for p in range(n):
        v = s[pb(p) + F_EFF + PEASANT]
        if v < m:
            m = v
    for p in range(n):
        b = pb(p)
        vg = 0
        for g in range(N_GOALS):
            if s[GOAL_OWNER + g] == p:
                vg += s[GOAL_VP + g]
        vc = 0
        for c in range(N_DYN):
            if s[LOC + c] == LOC_OWNED + p and s[HOST + c] == s[CARD_TYPE + c]:
                vc += s[CARD_VP + c]
        vt = s[b + F_TOKENS] * s[S_TOKEN_VP]
        missing = 0
        for t in range(N_TYPES):
            if s[b + F_EFF + t] == 0:
                missing += 1
        pen = missing * s[S_PENALTY]
        kept = s[b + F_EFF + PEASANT] - m
        vpz = s[PEASANT_VP + (kept if kept < 5 else 5)]
        vph = 0
        if s[LOC + s[S_PHIL]] == LOC_OWNED + p:
            vph = s[b + F_EFF + OFFICIAL] - 1
        s[b + F_VP_GOALS] = vg
        s[b + F_VP_CARDS] = vc
        s[b + F_VP_TOKENS] = vt
        s[b + F_PENALTY] = pen
        s[b + F_VP_PEASANTS] = vpz
        s[b + F_VP_PHIL] = vph
        s[b + F_SCORE] = vg + vc + vt - pen + vpz + vph
        s[b + F_DYN_COUNT] = dyn_count(s, p)
    s[G_SCORED] = 1


@kernel
def end_round(s):
    """P2.5, P3, P4 and E1-E2.  Returns True when the game ended."""
    for i in range(s[G_K]):
        c = s[ROW + i]
        if c == ROW_DRAGON:
            s[G_DRAGON] = DR_SET_ASIDE
        elif c >= 0:
            s[LOC + c] = LOC_DISCARD
        s[ROW + i] = -1
    summon(s)
    if deck_left(s) < s[G_K]:
        score_game(s)
        s[G_PHASE] = PH_OVER
        s[G_DECISION] = DK_NONE
        s[H_CURRENT] = NO_PLAYER
        return True
    reveal(s)
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        if s[b + F_ZERO] == 1:
            s[b + F_HAND] |= s[b + F_DISC]
            s[b + F_DISC] = 0
    if s[O_LEAD_SEAT] == 0:
        s[G_LEAD] = (s[G_LEAD] + 1) % n
    s[G_ROUND] += 1
    begin_round(s)
    return False
