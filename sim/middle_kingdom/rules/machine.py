"""The round as a state machine: ``advance`` runs automatic steps until a seat must
decide (``G_DECISION`` names the kind, ``H_CURRENT`` the seat) or the game ends.
"""

from sim.core import H_CURRENT, NO_PLAYER, kernel
from sim.middle_kingdom.layout import (
    DECK,
    DK_BID,
    DK_EMPEROR,
    DK_EXCHANGE,
    DK_HARVEST,
    DK_HEIR,
    DK_HOST,
    DK_NONE,
    DK_PICK,
    DR_HELD,
    DRAGON,
    EMPEROR,
    F_EMP_SLOT,
    F_HAND,
    F_SLOT_CARD,
    G_DECISION,
    G_DECK_PTR,
    G_DRAGON,
    G_IDENT_DRAWS,
    G_K,
    G_ORD_N,
    G_ORD_POS,
    G_PEND_P,
    G_PHASE,
    G_SUB,
    G_TWO_BID,
    GK_PICK,
    GOAL_OWNER,
    HARVEST,
    HEIR,
    NO_CARD,
    O_HEIR_DRAGON,
    O_IDENT_GOAL,
    O_IDENT_SHORT,
    ORD_ENT,
    ORD_GEND,
    ORD_GKIND,
    ORD_HOST,
    PALACE,
    PH_COMMIT,
    PH_DRAGON,
    PH_EMPEROR,
    PH_HARVEST,
    PH_HEIR,
    PH_PALACE,
    PH_RESOLVE,
    ROW,
    ROW_DRAGON,
)
from sim.middle_kingdom.rules.bids import (
    commit_decision,
    emperor_entries,
    emperor_names_at_commit,
    harvest_eligible,
)
from sim.middle_kingdom.rules.gains import VIA_DECKDRAW, gain, goal_check
from sim.middle_kingdom.rules.helpers import deck_left, n_players, pb, row_count
from sim.middle_kingdom.rules.order import build_order, discard_entry, exchange_mask
from sim.middle_kingdom.rules.scoring import end_round


@kernel(inline=True)
def _decide(s, p, kind):
    s[H_CURRENT] = p
    s[G_DECISION] = kind


@kernel  # called, not inlined: inlined, it would be compiled into each of its callers
def advance(s):
    """Run automatic steps until a seat must decide (or the game ends)."""
    n = n_players(s)
    while True:
        if s[G_PEND_P] >= 0:
            _decide(s, s[G_PEND_P], DK_HOST)
            return
        ph = s[G_PHASE]
        if ph == PH_COMMIT:
            while s[G_SUB] < n:
                p = s[G_SUB]
                kind = commit_decision(s, p)
                if kind != DK_NONE:
                    _decide(s, p, kind)
                    return
                s[G_SUB] += 1
            s[G_PHASE] = PH_PALACE
        elif ph == PH_PALACE:
            q = s[GOAL_OWNER + PALACE]
            if q >= 0:
                b = pb(q)
                j = 0 if s[G_TWO_BID] == 0 else 1
                if (
                    s[b + F_SLOT_CARD + j] == NO_CARD
                    and s[b + F_HAND] != 0
                    and (s[G_TWO_BID] == 0 or s[b + F_SLOT_CARD] != NO_CARD)
                ):
                    _decide(s, q, DK_BID)
                    return
            s[G_PHASE] = PH_HARVEST
            s[G_SUB] = 0
        elif ph == PH_HARVEST:
            h = s[GOAL_OWNER + HARVEST]
            if s[G_SUB] == 0 and h >= 0 and harvest_eligible(s, h):
                _decide(s, h, DK_HARVEST)
                return
            s[G_PHASE] = PH_EMPEROR
            s[G_SUB] = 0
        elif ph == PH_EMPEROR:
            e = s[GOAL_OWNER + EMPEROR]
            if e >= 0 and s[pb(e) + F_EMP_SLOT] < 0 and not emperor_names_at_commit(s, e):
                m = emperor_entries(s, e)
                if s[G_TWO_BID] == 1 and m == 3:
                    _decide(s, e, DK_EMPEROR)
                    return
                if m == 1:
                    s[pb(e) + F_EMP_SLOT] = 0
                elif m == 2:
                    s[pb(e) + F_EMP_SLOT] = 1
                elif m == 3:  # standard rules use one slot only; unreachable
                    s[pb(e) + F_EMP_SLOT] = 0
            build_order(s)
            s[G_PHASE] = PH_DRAGON
        elif ph == PH_DRAGON:
            d = s[GOAL_OWNER + DRAGON]
            if s[G_SUB] == 0 and s[G_DRAGON] == DR_HELD and d >= 0 and exchange_mask(s, d) != 0:
                _decide(s, d, DK_EXCHANGE)
                return
            s[G_PHASE] = PH_RESOLVE
            s[G_SUB] = 0
        elif ph == PH_RESOLVE:
            if s[G_ORD_POS] >= s[G_ORD_N]:
                s[G_PHASE] = PH_HEIR
                s[G_SUB] = 0
                continue
            pos = s[G_ORD_POS]
            en = s[ORD_ENT + pos]
            kind = s[ORD_GKIND + pos]
            if kind == GK_PICK:
                p = en // 2
                if row_count(s) > 0:
                    _decide(s, p, DK_PICK)
                    return
                discard_entry(s, p, en % 2)
                s[G_ORD_POS] = pos + 1
            else:
                if _resolve_identical(s, pos):
                    continue  # a host decision is pending
        elif ph == PH_HEIR:
            h = s[GOAL_OWNER + HEIR]
            if s[G_SUB] == 0 and h >= 0 and _heir_has_choice(s):
                _decide(s, h, DK_HEIR)
                return
            if end_round(s):
                return
        else:
            s[H_CURRENT] = NO_PLAYER
            return


@kernel(inline=True)
def _heir_has_choice(s):
    for i in range(s[G_K]):
        c = s[ROW + i]
        if c >= 0 and (c != ROW_DRAGON or s[O_HEIR_DRAGON] == 0):
            return True
    return False


@kernel
def _resolve_identical(s, pos):
    """P2.3 IDENTICAL slot starting at ``pos``: members draw in order, then stacks are
    discarded, then deferred goal checks in draw order.  ``G_SUB`` counts members done.
    Under ``ident_short_deck = all_or_none`` the deck is measured against the members once,
    when the slot starts (D33); after that every member draws.
    Returns True when a Market host decision is pending."""
    end = s[ORD_GEND + pos]
    size = end - pos
    defer = s[O_IDENT_GOAL] == 0
    if s[G_SUB] == 0 and s[O_IDENT_SHORT] == 1 and deck_left(s) < size:
        s[G_SUB] = size  # D33 all_or_none, judged once at the start of the slot: nobody draws
    while s[G_SUB] < size:
        i = pos + s[G_SUB]
        s[G_SUB] += 1
        p = s[ORD_ENT + i] // 2
        if deck_left(s) > 0:
            c = s[DECK + s[G_DECK_PTR]]
            s[G_DECK_PTR] += 1
            s[G_IDENT_DRAWS] += 1
            if gain(s, p, c, VIA_DECKDRAW, defer, i):
                return True
    for i in range(pos, end):
        en = s[ORD_ENT + i]
        discard_entry(s, en // 2, en % 2)
    if defer:
        for i in range(pos, end):
            h = s[ORD_HOST + i]
            if h >= 0:
                goal_check(s, s[ORD_ENT + i] // 2, h)
    s[G_ORD_POS] = end
    s[G_SUB] = 0
    return False
