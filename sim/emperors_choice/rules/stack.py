"""The work stack's effect atoms: tiles and Jade targets, bid-time effects (D-A4), the
Starting Bonus draw, and ``run_atom``, which runs the atom on top of the stack.
"""

from sim.core import H_NPLAYERS, kernel
from sim.core import lowest_bit as lowest_card
from sim.emperors_choice.layout import (
    AT_BID_EFFECTS,
    AT_BID_NEXT,
    AT_BONUS_CAV,
    AT_CHARACTER,
    AT_EFFECT,
    AT_GOLD,
    AT_IMM,
    AT_LEVEL,
    AT_PALACE_UP,
    AT_QIN_DRAW2,
    AT_QIN_TILE,
    AT_REVEAL,
    AT_SB_DRAW,
    AT_SOLDIERS,
    AT_TRIBUTE,
    AT_TRUST,
    AT_TRUST_LOSS,
    AT_VP,
    BAG,
    BE_EUNUCH,
    BE_TRUST_PLUS_1,
    BID_FX,
    CD_BID,
    CD_KIND,
    CH_BONUS,
    CK_BONUS,
    D_EFF,
    D_POLICY,
    DAT,
    DK_JADE,
    DK_KEEP,
    DK_OPTION,
    DK_ORDER,
    DK_REVEAL,
    DK_SEAL,
    DK_SIDE,
    EFF_SB,
    EFF_SIZE,
    F_BONUS_TILE,
    F_GOLD,
    F_PALACE,
    F_PENDING,
    F_STEP2,
    F_TAB,
    F_VP_OTHER,
    G_KEEP0,
    G_KEEP1,
    G_PEND_EFF,
    G_REVEAL_ITEM,
    G_SEAL_USES,
    G_START,
    JADE,
    KNOWN,
    LOC_BID,
    LOC_BOX,
    LOC_HAND,
    MESSENGER,
    MESSENGER_TRUST,
    N_LEVELS,
    N_SB,
    N_TREASURE,
    NUGGET,
    NUGGET_GOLD,
    O_IMM_TIMING,
    REMOVED,
    SEAL,
    TREASURE,
)
from sim.emperors_choice.rules.chance import choose, draw_card, draw_qin_tile
from sim.emperors_choice.rules.helpers import (
    cards_at,
    cd,
    move_card,
    pb,
    push,
    push_option,
    set_decision,
)
from sim.emperors_choice.rules.policies import any_reveal, score_revealed
from sim.emperors_choice.rules.tracks import (
    draw_tribute,
    gain_soldiers,
    gain_vp,
    trust_gain,
    trust_loss,
)


@kernel
def get_tile(s, p, t):
    b = pb(p)
    if JADE <= t <= SEAL:
        if s[O_IMM_TIMING] == 1 or s[b + F_STEP2] == 1:
            push(s, AT_IMM, t, p)  # R-C8: after own step 2, at once
        else:
            s[b + F_PENDING + t] += 1
    else:
        s[b + F_TAB + t] += 1


@kernel
def jade_targets(s, p):
    m = 0
    for i in range(N_TREASURE):
        if s[TREASURE + i] != p:
            m |= 1 << i
    return m


@kernel
def bid_effect(s, c, p):
    """R-A3: the bid-time effect of card ``c`` shown by ``p``."""
    be = cd(s, c, CD_BID)
    if be == BE_TRUST_PLUS_1:
        trust_gain(s, p, 1)
    elif be == BE_EUNUCH:
        trust_loss(s, p, 2)
        draw_tribute(s, p)


@kernel
def bid_fx_kinds(s, p):
    """How many kinds of bid-time effect are still waiting (``BID_FX``: only cards of the
    bid bidder ``p`` just confirmed, which stay in ``p``'s display while they wait)."""
    m = 0
    k = 0
    cards = cards_at(s, LOC_BID + p)
    while cards != 0:
        c = lowest_card(cards)
        cards &= cards - 1
        if s[BID_FX + c] == 1:
            bit = 1 << cd(s, c, CD_BID)
            if not m & bit:
                m |= bit
                k += 1
    return k


@kernel
def starting_bonus_draw(s, i):
    """Setup step 11: the ``i``-th player from the start player draws a Starting Bonus tile
    (uniform among those not drawn yet) and resolves it before the next player draws."""
    n = s[H_NPLAYERS]
    q = (s[G_START] + i) % n
    used = 0
    for x in range(n):
        if s[pb(x) + F_BONUS_TILE] > 0:
            used |= 1 << (s[pb(x) + F_BONUS_TILE] - 1)
    r = choose(s, CH_BONUS, N_SB - i)
    t = -1
    for j in range(N_SB):
        if not (used >> j) & 1:
            if r == 0:
                t = j
                break
            r -= 1
    s[pb(q) + F_BONUS_TILE] = t + 1
    if i + 1 < n:
        push(s, AT_SB_DRAW, i + 1, (q + 1) % n)
    push(s, AT_EFFECT, EFF_SB + t, q)


@kernel
def run_atom(s, kind, val, p):
    """Run one atom; a decision it needs is left in G_DECISION."""
    b = pb(p)
    if kind == AT_GOLD:
        s[b + F_GOLD] += val
    elif kind == AT_SOLDIERS:
        gain_soldiers(s, p, val)
    elif kind == AT_TRUST:
        trust_gain(s, p, val)
    elif kind == AT_VP:
        gain_vp(s, p, val, F_VP_OTHER)
    elif kind == AT_PALACE_UP:
        for _ in range(val):
            push(s, AT_LEVEL, 0, p)
    elif kind == AT_LEVEL:
        if s[b + F_PALACE] < N_LEVELS:  # levels beyond the top are lost
            s[b + F_PALACE] += 1
            set_decision(s, DK_SIDE, p)
    elif kind == AT_BONUS_CAV:
        m = cards_at(s, LOC_BOX)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            if cd(s, c, CD_KIND) == CK_BONUS:
                move_card(s, c, LOC_HAND + p)
                s[KNOWN + c] = 1
                break
    elif kind == AT_QIN_TILE:
        t = draw_qin_tile(s)
        if t >= 0:
            get_tile(s, p, t)
    elif kind == AT_QIN_DRAW2:
        t1 = draw_qin_tile(s)
        t2 = draw_qin_tile(s) if t1 >= 0 else -1
        if t1 >= 0 and t2 < 0:
            get_tile(s, p, t1)
        elif t1 >= 0:
            if t1 == t2:
                s[BAG + t2] += 1
                get_tile(s, p, t1)
            else:
                s[G_KEEP0] = t1
                s[G_KEEP1] = t2
                set_decision(s, DK_KEEP, p)
    elif kind == AT_CHARACTER:
        c = draw_card(s)
        if c >= 0:
            move_card(s, c, LOC_HAND + p)
            s[KNOWN + c] = 0
    elif kind == AT_EFFECT:
        if s[DAT + D_EFF + val * EFF_SIZE] > 1:
            s[G_PEND_EFF] = val
            set_decision(s, DK_OPTION, p)
        else:
            push_option(s, val, 0, p)
    elif kind == AT_TRUST_LOSS:
        trust_loss(s, p, val)
    elif kind == AT_TRIBUTE:
        draw_tribute(s, p)
    elif kind == AT_REVEAL:
        s[G_REVEAL_ITEM] = val
        if any_reveal(s, p, s[DAT + D_POLICY + val]):
            set_decision(s, DK_REVEAL, p)
        else:
            score_revealed(s, p, val)
    elif kind == AT_IMM:
        s[REMOVED + val] += 1
        if val == MESSENGER:
            trust_gain(s, p, MESSENGER_TRUST)
        elif val == NUGGET:
            s[b + F_GOLD] += NUGGET_GOLD
        elif val == JADE:
            m = jade_targets(s, p)
            if m != 0:
                set_decision(s, DK_JADE, p)
        elif val == SEAL:
            s[G_SEAL_USES] += 1
            set_decision(s, DK_SEAL, p)
    elif kind == AT_BID_EFFECTS:
        bid_effect(s, val, p)
    elif kind == AT_BID_NEXT:
        # D-A4: two kinds of effect still waiting -> the bidder picks the next card; one
        # kind left -> the rest in card-id order (the order among equal effects changes nothing)
        if bid_fx_kinds(s, p) >= 2:
            set_decision(s, DK_ORDER, p)
        else:
            m = cards_at(s, LOC_BID + p)
            while m != 0:
                c = lowest_card(m)
                m &= m - 1
                if s[BID_FX + c] == 1:
                    s[BID_FX + c] = 0
                    bid_effect(s, c, p)
    elif kind == AT_SB_DRAW:
        starting_bonus_draw(s, val)
