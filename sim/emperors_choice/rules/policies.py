"""The Policy cards: compulsory and optional reveals, the scoring of a Policy side
(``score_side``), and the chance policies of flips and scorings.
"""

from sim.core import H_NPLAYERS, kernel
from sim.core import lowest_bit as lowest_card
from sim.emperors_choice.layout import (
    AT_REVEAL,
    BOOK,
    BORDER_LOSS_PAY,
    BORDER_WALL_MULT,
    BORDER_WIN_PAY,
    BURNING_VP,
    CANAL,
    CAR1,
    CD_DEFENCE,
    CD_LINEAGE,
    CENTRAL_GOLD,
    CENTRAL_PAY,
    CH_TRIBUTE,
    CONF,
    D_PARADE,
    D_POLICY,
    D_TIER,
    D_TOUR,
    DAT,
    DECENTRAL_VP,
    DEFENCE_WIN_BONUS,
    EXPED_LOSS_PAY,
    EXPED_WIN_PAY,
    EXTRAV_CANAL_VP,
    EXTRAV_WALL_VP,
    F_GOLD,
    F_TAB,
    F_TRIB,
    F_VP_POLICY,
    G_BARB,
    G_DISCS,
    G_POLICIES_SCORED,
    KNOWN,
    LEGAL,
    LINEAGE_VP,
    LOC,
    LOC_HAND,
    MAX_DISCS,
    N_POLICY,
    N_TRIB,
    O_REVEAL,
    POLICY,
    PRESERVE_VP,
    REMOVED,
    REVEALING,
    SC_BORDER,
    SC_BURN,
    SC_CENTRAL,
    SC_CONF,
    SC_DECENTRAL,
    SC_EXPED,
    SC_EXTRAV,
    SC_FRUGAL,
    SC_LEGAL,
    SC_LINEAGE,
    SC_MERIT,
    SC_PARADE,
    SC_PRESERVE,
    SC_TOUR,
    SCORED_BY_SIDE,
    TRIB_DECK,
    UNDER,
)
from sim.emperors_choice.rules.chance import pick_weighted
from sim.emperors_choice.rules.helpers import (
    cards_at,
    castles_eff,
    cd,
    cubes,
    pb,
    player_wall,
    power,
    push,
    seat_at,
    turn_order_code,
)
from sim.emperors_choice.rules.tracks import draw_tribute, gain_vp, pay_cubes, trust_gain


@kernel
def reveal(s, p, what):
    """Compulsory public reveals (D#36): defence (0), lineage (1) cards become known."""
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if (what == 0 and cd(s, c, CD_DEFENCE) > 0) or (what == 1 and cd(s, c, CD_LINEAGE) > 0):
            s[KNOWN + c] = 1


@kernel
def reveal_qualifies(s, p, c, sid):
    """optional_subset: may card ``c`` of ``p`` still be revealed for a scoring of ``sid``?"""
    if s[LOC + c] != LOC_HAND + p or s[REVEALING + c] == 1:
        return False
    if sid == SC_BORDER or sid == SC_EXPED:
        return cd(s, c, CD_DEFENCE) > 0
    if sid == SC_LINEAGE:
        return cd(s, c, CD_LINEAGE) > 0
    shown = 0  # SC_MERIT: the two cards whose Powers count
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        x = lowest_card(m)
        m &= m - 1
        shown += s[REVEALING + x] == 1
    return shown < 2


@kernel
def any_reveal(s, p, sid):
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if reveal_qualifies(s, p, c, sid):
            return True
    return False


@kernel
def score_revealed(s, p, item):
    """optional_subset (D#36 alternative): score policy side ``item`` (card * 2 + side) for
    ``p`` counting only the cards ``p`` revealed (``REVEALING``), then clear the flags."""
    sid = s[DAT + D_POLICY + item]
    field = F_VP_POLICY + item
    d = 0
    k = 0
    tot = 0
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if s[REVEALING + c] == 1:
            d += cd(s, c, CD_DEFENCE)
            if cd(s, c, CD_LINEAGE) > 0:
                k += 1
            tot += power(s, c, p)
            s[REVEALING + c] = 0
    if sid == SC_BORDER:
        lw = player_wall(s, p)
        if BORDER_WALL_MULT * lw + d >= s[G_BARB]:
            gain_vp(s, p, s[G_BARB] + DEFENCE_WIN_BONUS, field)
            pay_cubes(s, p, BORDER_WIN_PAY)
        else:
            gain_vp(s, p, lw // 2, field)
            pay_cubes(s, p, BORDER_LOSS_PAY)
    elif sid == SC_EXPED:
        d += player_wall(s, p) + cubes(s, p)
        if d >= s[G_BARB]:
            gain_vp(s, p, s[G_BARB] + DEFENCE_WIN_BONUS, field)
            pay_cubes(s, p, EXPED_WIN_PAY)
        else:
            gain_vp(s, p, d // 2, field)
            pay_cubes(s, p, EXPED_LOSS_PAY)
    elif sid == SC_MERIT:
        gain_vp(s, p, tot, field)
    elif sid == SC_LINEAGE:
        gain_vp(s, p, LINEAGE_VP * k, field)


@kernel
def hand_defence(s, p):
    d = 0
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        d += cd(s, c, CD_DEFENCE)
    return d


@kernel
def remove_tiles(s, p, t, k):
    x = min(k, s[pb(p) + F_TAB + t])
    s[pb(p) + F_TAB + t] -= x
    s[REMOVED + t] += x
    return x


@kernel
def score_side(s, card, side, chooser, final):
    """Score one policy side for every player in Turn Order (spec 1.10, D#55)."""
    sid = s[DAT + D_POLICY + 2 * card + side]
    field = F_VP_POLICY + 2 * card + side
    n = s[H_NPLAYERS]
    order = turn_order_code(s)
    if sid == SC_FRUGAL:
        if not final:
            draw_tribute(s, chooser)
        return
    if (
        s[O_REVEAL] == 1
        and not final
        and (sid == SC_BORDER or sid == SC_EXPED or sid == SC_MERIT or sid == SC_LINEAGE)
    ):
        # optional_subset: each player in Turn Order picks the cards to reveal (DK_REVEAL),
        # then scores with those only; pushed last-first so that they run in Turn Order.
        # (At the final scoring nothing is left to hide and revealing never costs VP, so the
        # reveal stays compulsory there.)
        for i in range(n - 1, -1, -1):
            push(s, AT_REVEAL, 2 * card + side, seat_at(order, i))
        return
    if sid == SC_CENTRAL:
        for i in range(n):
            p = seat_at(order, i)
            gain_vp(s, p, cubes(s, p), field)
        m = 0
        for p in range(n):
            m = max(m, cubes(s, p))
        if m > 0:
            for i in range(n):
                p = seat_at(order, i)
                if cubes(s, p) == m:
                    pay_cubes(s, p, min(CENTRAL_PAY, m))
                    s[pb(p) + F_GOLD] += CENTRAL_GOLD
        return
    for i in range(n):
        p = seat_at(order, i)
        b = pb(p)
        if sid == SC_DECENTRAL:
            gain_vp(s, p, DECENTRAL_VP * castles_eff(s, p), field)
        elif sid == SC_LEGAL or sid == SC_CONF:
            t = LEGAL if sid == SC_LEGAL else CONF
            k = s[b + F_TAB + t]
            gain_vp(s, p, s[DAT + D_TIER + min(k, 3)], field)
            if k > 0:
                trust_gain(s, p, k)
                remove_tiles(s, p, t, 1)
        elif sid == SC_EXTRAV:
            gain_vp(
                s,
                p,
                EXTRAV_CANAL_VP * s[b + F_TAB + CANAL] + EXTRAV_WALL_VP * player_wall(s, p),
                field,
            )
        elif sid == SC_BORDER:
            reveal(s, p, 0)
            lw = player_wall(s, p)
            if BORDER_WALL_MULT * lw + hand_defence(s, p) >= s[G_BARB]:
                gain_vp(s, p, s[G_BARB] + DEFENCE_WIN_BONUS, field)
                pay_cubes(s, p, BORDER_WIN_PAY)
            else:
                gain_vp(s, p, lw // 2, field)
                pay_cubes(s, p, BORDER_LOSS_PAY)
        elif sid == SC_EXPED:
            reveal(s, p, 0)
            d = player_wall(s, p) + cubes(s, p) + hand_defence(s, p)
            if d >= s[G_BARB]:
                gain_vp(s, p, s[G_BARB] + DEFENCE_WIN_BONUS, field)
                pay_cubes(s, p, EXPED_WIN_PAY)
            else:
                gain_vp(s, p, d // 2, field)
                pay_cubes(s, p, EXPED_LOSS_PAY)
        elif sid == SC_MERIT:
            b1, c1, b2, c2 = -1, -1, -1, -1
            m = cards_at(s, LOC_HAND + p)
            while m != 0:
                c = lowest_card(m)
                m &= m - 1
                v = power(s, c, p)
                if v > b1:
                    b2, c2 = b1, c1
                    b1, c1 = v, c
                elif v > b2:
                    b2, c2 = v, c
            tot = 0
            if c1 >= 0:
                tot += b1
                s[KNOWN + c1] = 1
            if c2 >= 0:
                tot += b2
                s[KNOWN + c2] = 1
            gain_vp(s, p, tot, field)
        elif sid == SC_LINEAGE:
            reveal(s, p, 1)
            k = 0
            m = cards_at(s, LOC_HAND + p)
            while m != 0:
                c = lowest_card(m)
                m &= m - 1
                k += cd(s, c, CD_LINEAGE) > 0
            gain_vp(s, p, LINEAGE_VP * k, field)
        elif sid == SC_BURN:
            if s[b + F_TAB + BOOK] == 0:
                gain_vp(s, p, BURNING_VP, field)
        elif sid == SC_PRESERVE:
            gain_vp(s, p, PRESERVE_VP * s[b + F_TAB + BOOK], field)
        elif sid == SC_TOUR or sid == SC_PARADE:
            tot = 0
            kinds = 0
            bonus = 0
            for j in range(5):
                k = s[b + F_TAB + CAR1 + j]
                tot += k
                if k > 0:
                    kinds += 1
                if sid == SC_PARADE and k >= 2:
                    bonus += s[DAT + D_PARADE + min(k, 5)]
            if sid == SC_TOUR:
                bonus = s[DAT + D_TOUR + min(kinds, 5)]
            gain_vp(s, p, tot + bonus, field)
    if sid == SC_BURN or sid == SC_PRESERVE:
        for i in range(n):
            p = seat_at(order, i)
            lost = remove_tiles(s, p, BOOK, s[pb(p) + F_TAB + BOOK])
            if sid == SC_PRESERVE and lost > 0:
                draw_tribute(s, p)


@kernel
def score_policy(s, card, chooser):
    """R-D3: take the Tributes under the card, score it for all, place a disc, reset at 6."""
    for t in range(N_TRIB):
        s[pb(chooser) + F_TRIB + t] += s[UNDER + card * N_TRIB + t]
        s[UNDER + card * N_TRIB + t] = 0
    side = s[POLICY + 2 * card]
    score_side(s, card, side, chooser, False)
    s[SCORED_BY_SIDE + 2 * card + side] += 1
    s[G_POLICIES_SCORED] += 1
    s[POLICY + 2 * card + 1] = 1
    s[G_DISCS] += 1
    if s[G_DISCS] == MAX_DISCS:
        free = -1
        for c in range(N_POLICY):
            if s[POLICY + 2 * c + 1] == 0:
                free = c
        t = pick_weighted(s, CH_TRIBUTE, TRIB_DECK, N_TRIB)
        if t >= 0 and free >= 0:
            s[UNDER + free * N_TRIB + t] += 1
        for c in range(N_POLICY):
            s[POLICY + 2 * c + 1] = 0
        s[G_DISCS] = 0


@kernel
def flip_policy(s, card):
    s[POLICY + 2 * card] = 1 - s[POLICY + 2 * card]
