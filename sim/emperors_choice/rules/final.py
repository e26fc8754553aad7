"""Final scoring (spec section 4, steps 1-7) and the end-game VP of Character cards."""

from sim.core import H_CURRENT, H_NPLAYERS, NO_PLAYER, kernel
from sim.core import lowest_bit as lowest_card
from sim.emperors_choice.layout import (
    CD_END,
    CD_END_K,
    CONF,
    D_PAL_VP,
    D_TREASURE_VP,
    D_TRIB_VP,
    DAT,
    DK_NONE,
    EE_FLAT,
    EE_PER_CASTLE,
    EE_PER_PHILO,
    F_GOLD,
    F_PALACE,
    F_SCORE,
    F_TAB,
    F_TB_CARDS,
    F_TB_POWER,
    F_TRIB,
    F_TRUST,
    F_VP,
    F_VP_CHARS,
    F_VP_GOLD,
    F_VP_PALACE,
    F_VP_TREASURE,
    F_VP_TRIBUTE,
    F_VP_TRUST,
    G_DECISION,
    G_DISCS,
    G_IN_FINAL,
    G_PHASE,
    LEGAL,
    LOC_HAND,
    N_POLICY,
    N_TREASURE,
    N_TRIB,
    PH_OVER,
    POLICY,
    TREASURE,
)
from sim.emperors_choice.rules.helpers import cards_at, castles_eff, cd, count_loc, pb, power
from sim.emperors_choice.rules.policies import score_side
from sim.emperors_choice.rules.tracks import gain_vp


@kernel
def end_card_vp(s, p):
    v = 0
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        e = cd(s, c, CD_END)
        k = cd(s, c, CD_END_K)
        if e == EE_FLAT:
            v += k
        elif e == EE_PER_CASTLE:
            v += k * castles_eff(s, p)
        elif e == EE_PER_PHILO:
            v += k * (s[pb(p) + F_TAB + LEGAL] + s[pb(p) + F_TAB + CONF])
    return v


@kernel
def final_scoring(s):
    """Spec section 4, steps 1-7, then the tie-break keys."""
    n = s[H_NPLAYERS]
    s[G_IN_FINAL] = 1
    for c in range(N_POLICY):
        s[POLICY + 2 * c + 1] = 0
    s[G_DISCS] = 0
    for c in range(N_POLICY):
        score_side(s, c, s[POLICY + 2 * c], -1, True)
    for p in range(n):
        b = pb(p)
        gain_vp(s, p, s[b + F_TRUST] // 2, F_VP_TRUST)
        gain_vp(s, p, s[DAT + D_PAL_VP + s[b + F_PALACE]], F_VP_PALACE)
        gain_vp(s, p, s[b + F_GOLD], F_VP_GOLD)
        gain_vp(s, p, end_card_vp(s, p), F_VP_CHARS)
        tv = 0
        for i in range(N_TREASURE):
            if s[TREASURE + i] == p:
                tv += s[DAT + D_TREASURE_VP + i]
        gain_vp(s, p, tv, F_VP_TREASURE)
        tr = 0
        for t in range(N_TRIB):
            tr += s[b + F_TRIB + t] * s[DAT + D_TRIB_VP + t]
        gain_vp(s, p, tr, F_VP_TRIBUTE)
        s[b + F_SCORE] = s[b + F_VP]
        s[b + F_TB_CARDS] = count_loc(s, LOC_HAND + p)
        top = 0
        m = cards_at(s, LOC_HAND + p)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            top = max(top, power(s, c, p))
        s[b + F_TB_POWER] = top
    s[G_PHASE] = PH_OVER
    s[G_DECISION] = DK_NONE
    s[H_CURRENT] = NO_PLAYER
