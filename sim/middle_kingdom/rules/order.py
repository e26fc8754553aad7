"""Phase 2, the order (P1.6, P2): entries built and ordered (``build_order``), ties
settled, identical entries, the Dragon exchange.
"""

from sim.core import kernel
from sim.middle_kingdom.layout import (
    CARD_TYPE,
    F_CARRY,
    F_DISC,
    F_EFF,
    F_EMP_SLOT,
    F_SLOT_BOTTOM,
    F_SLOT_CARD,
    F_SLOT_STACK,
    F_SLOT_STEP,
    F_TIES,
    G_K,
    G_LEAD,
    G_ORD_N,
    G_ORD_POS,
    G_SUB,
    G_TIES,
    GK_IDENT,
    GK_PICK,
    MAXP,
    N_TYPES,
    NO_CARD,
    O_IDENT_DRAW,
    ORD_ENT,
    ORD_GEND,
    ORD_GKIND,
    ORD_HOST,
    ROW,
    ROW_DRAGON,
    S_PHIL,
    SCR_ENT,
    SCR_KEY,
)
from sim.middle_kingdom.rules.helpers import n_players, pb


@kernel(inline=True)
def entry_key(s, p, j):
    """P2.1 ordering key: (total*2 incl. Emperor, is_stack, top card, bottom card)."""
    b = pb(p)
    top = s[b + F_SLOT_CARD + j]
    bottom = s[b + F_SLOT_BOTTOM + j]
    is_stack = 1 if bottom != NO_CARD else 0
    total2 = 2 * (top + (bottom if is_stack else 0)) + (1 if s[b + F_EMP_SLOT] == j else 0)
    return ((total2 * 2 + is_stack) * 8 + top) * 9 + (bottom + 1)


@kernel
def build_order(s):
    """P1.6 + P2.1: build entries, discard abstentions, order them, settle ties.

    Entries are sorted in the scratch area (SCR_ENT / SCR_KEY), then written to the
    resolution order ORD_*: PICK singles, IDENT groups (members in drawing order); TIE
    groups become carried stacks at once and do not appear in the order.
    """
    n = n_players(s)
    m = 0
    for p in range(n):
        b = pb(p)
        used0 = False
        used1 = False
        for j in range(2):
            card = s[b + F_SLOT_CARD + j]
            if card == NO_CARD:
                continue
            st = s[b + F_SLOT_STACK + j]
            if st >= 0:
                s[b + F_SLOT_BOTTOM + j] = s[b + F_CARRY + st]
                if st == 0:
                    used0 = True
                else:
                    used1 = True
            elif card == 0:  # abstention: the 0 goes to the discard now (D2)
                s[b + F_DISC] |= 1
                s[b + F_SLOT_CARD + j] = NO_CARD
                continue
            s[SCR_ENT + m] = p * 2 + j
            s[SCR_KEY + m] = entry_key(s, p, j)
            m += 1
        # carried stacks that took a card are now part of an entry; keep the others (D23)
        c0 = NO_CARD if used0 else s[b + F_CARRY]
        c1 = NO_CARD if used1 else s[b + F_CARRY + 1]
        if c0 == NO_CARD:
            c0 = c1
            c1 = NO_CARD
        s[b + F_CARRY] = c0
        s[b + F_CARRY + 1] = c1
    for i in range(1, m):  # insertion sort, descending key
        ke = s[SCR_KEY + i]
        en = s[SCR_ENT + i]
        k = i - 1
        while k >= 0 and s[SCR_KEY + k] < ke:
            s[SCR_KEY + k + 1] = s[SCR_KEY + k]
            s[SCR_ENT + k + 1] = s[SCR_ENT + k]
            k -= 1
        s[SCR_KEY + k + 1] = ke
        s[SCR_ENT + k + 1] = en
    lead = s[G_LEAD]
    # settle ties and order identical members; mark IDENT groups by a negative key
    pos = 0
    while pos < m:
        end = _group_end(s, pos, m)
        if end - pos > 1:
            e0 = s[SCR_ENT + pos]
            if s[pb(e0 // 2) + F_SLOT_BOTTOM + e0 % 2] == NO_CARD:  # TIE: carried stacks [v]
                for i in range(pos, end):
                    p = s[SCR_ENT + i] // 2
                    j = s[SCR_ENT + i] % 2
                    b = pb(p)
                    ci = 0 if s[b + F_CARRY] == NO_CARD else 1
                    s[b + F_CARRY + ci] = s[b + F_SLOT_CARD + j]
                    s[b + F_SLOT_CARD + j] = NO_CARD
                    s[b + F_TIES] += 1
                    s[G_TIES] += 1
                    s[SCR_ENT + i] = -1
            else:  # IDENTICAL: members by laying step, then seat from the lead seat (D6)
                for i in range(pos + 1, end):
                    en = s[SCR_ENT + i]
                    ke = _ident_rank(s, en, lead, n)
                    k = i - 1
                    while k >= pos and _ident_rank(s, s[SCR_ENT + k], lead, n) > ke:
                        s[SCR_ENT + k + 1] = s[SCR_ENT + k]
                        k -= 1
                    s[SCR_ENT + k + 1] = en
        pos = end
    out = 0
    after_picks = s[O_IDENT_DRAW] == 1
    for sweep in range(2 if after_picks else 1):
        pos = 0
        while pos < m:
            end = _group_end(s, pos, m)
            size = end - pos
            if s[SCR_ENT + pos] >= 0:
                ident = size > 1
                if (not after_picks) or (ident == (sweep == 1)):
                    for i in range(pos, end):
                        s[ORD_ENT + out] = s[SCR_ENT + i]
                        s[ORD_GKIND + out] = GK_IDENT if ident else GK_PICK
                        s[ORD_GEND + out] = out - (i - pos) + size
                        s[ORD_HOST + out] = -1
                        out += 1
            pos = end
    s[G_ORD_N] = out
    s[G_ORD_POS] = 0
    s[G_SUB] = 0


@kernel(inline=True)
def _group_end(s, pos, m):
    end = pos + 1
    while end < m and s[SCR_KEY + end] == s[SCR_KEY + pos]:
        end += 1
    return end


@kernel(inline=True)
def _ident_rank(s, en, lead, n):
    p = en // 2
    step = s[pb(p) + F_SLOT_STEP + en % 2]
    return step * MAXP + (p - lead + n) % n


@kernel(inline=True)
def discard_entry(s, p, j):
    """An entry's bid cards go to the face-up discard."""
    b = pb(p)
    card = s[b + F_SLOT_CARD + j]
    if card != NO_CARD:
        s[b + F_DISC] |= 1 << card
    bottom = s[b + F_SLOT_BOTTOM + j]
    if bottom != NO_CARD:
        s[b + F_DISC] |= 1 << bottom
    s[b + F_SLOT_CARD + j] = NO_CARD
    s[b + F_SLOT_BOTTOM + j] = NO_CARD


@kernel(inline=True)
def exchange_mask(s, d):
    """D9: bitmask over row slots of the cards the Dragon holder may exchange for."""
    b = pb(d)
    k = s[G_K]
    mx = 0
    for t in range(N_TYPES):
        if s[b + F_EFF + t] > mx:
            mx = s[b + F_EFF + t]
    allowed = 0
    free = 0
    for i in range(k):
        c = s[ROW + i]
        if c < 0 or c == ROW_DRAGON or c == s[S_PHIL]:
            continue
        allowed |= 1 << i
        if mx == 0 or s[b + F_EFF + s[CARD_TYPE + c]] != mx:
            free |= 1 << i
    return free if free != 0 else allowed
