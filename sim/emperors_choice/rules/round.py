"""The phases of a round: the auction, management, the decree and the setup phase that
refills the displays (R-S1) before the next auction.  Each phase hands over to the next, so
they share one module.
"""

import numpy as np

from sim.core import H_NPLAYERS, kernel
from sim.core import lowest_bit as lowest_card
from sim.emperors_choice.layout import (
    AT_BID_NEXT,
    AT_IMM,
    BE_NONE,
    BID_FX,
    CD_BID,
    CD_NAME,
    D_DECREE_COST,
    D_RECRUIT,
    D_SETS,
    DAT,
    DC_ALL,
    DC_FLIP,
    DC_SCORED,
    DC_TRIBUTE,
    DC_VP,
    DECREE_VP,
    DK_BID,
    DK_DECREE1,
    DK_DECREE_TILE,
    DK_IMM,
    DK_LOSE,
    DK_RESUPPLY,
    DK_SET,
    DK_TREASURE,
    DK_WITHDRAW,
    F_BID_CUBES,
    F_CUBES,
    F_DECLARED,
    F_DECREES,
    F_GOLD,
    F_LOST_ITEMS,
    F_PASSED,
    F_PEND_CUBES,
    F_PENDING,
    F_STEP2,
    F_TILE,
    F_TRUST,
    F_TURNS_TILE,
    F_VP_DECREE,
    G_ACTIVE,
    G_CMAX,
    G_DC_FLAGS,
    G_DC_P,
    G_DC_STEP,
    G_DC_TILE,
    G_DECREE_UP,
    G_FIRST,
    G_HIGH,
    G_LAST,
    G_LOSE_V,
    G_MG_IDX,
    G_MG_STEP,
    G_PHASE,
    G_RECOUNT,
    G_ROUND,
    G_RS_USED,
    G_SETS_TAKEN,
    G_START,
    G_SUPPLY,
    G_TR_IDX,
    G_WD_UP,
    JADE,
    KNOWN,
    LOC_BID,
    LOC_DISCARD,
    LOC_DISPLAY,
    LOC_HAND,
    LOC_PEND,
    MAX_RECRUIT,
    MAX_ROUNDS,
    MAX_SETS,
    N_TILE,
    N_TREASURE,
    N_WD,
    O_CMAX_SCOPE,
    O_CUBE_LOSS,
    O_TREASURE_ONCE,
    PH_AUCTION,
    PH_DECREE,
    PH_MGMT,
    RECRUIT,
    SEAL,
    SETS,
    TR_USED,
    TREASURE,
)
from sim.emperors_choice.rules.chance import draw_card, draw_qin_tile
from sim.emperors_choice.rules.final import final_scoring
from sim.emperors_choice.rules.helpers import (
    cards_at,
    castles_eff,
    cd,
    count_loc,
    holder_of_tile,
    move_card,
    pb,
    pidx,
    power,
    push,
    set_decision,
)
from sim.emperors_choice.rules.tracks import draw_tribute, gain_vp, trust_loss

# ============================================================================ displays


@kernel
def fill_display(s):
    """R-S1: tiles one at a time, set by set; Barbarians raise the strength and are replaced."""
    n = s[H_NPLAYERS]
    for i in range(MAX_SETS):
        for t in range(N_TILE):
            s[SETS + i * N_TILE + t] = 0
    s[G_SETS_TAKEN] = 0
    for i in range(n):
        size = s[DAT + D_SETS + pidx(s) * MAX_SETS + i]
        for _ in range(size):
            t = draw_qin_tile(s)
            if t >= 0:
                s[SETS + i * N_TILE + t] += 1


@kernel
def fill_recruit(s):
    for i in range(MAX_RECRUIT):
        c = s[RECRUIT + i]
        if c >= 0:
            move_card(s, c, LOC_DISCARD)
            s[RECRUIT + i] = -1
    for i in range(s[DAT + D_RECRUIT + pidx(s)]):
        c = draw_card(s)
        if c < 0:
            break
        move_card(s, c, LOC_DISPLAY)
        s[KNOWN + c] = 1
        s[RECRUIT + i] = c


# ============================================================================ auction


@kernel
def declared_now(s, p):
    tot = s[pb(p) + F_BID_CUBES]
    m = cards_at(s, LOC_BID + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        tot += power(s, c, p)
    return tot


@kernel
def cmax_now(s):
    if s[O_CMAX_SCOPE] == 0:
        return s[G_CMAX]
    m = 0
    for p in range(s[H_NPLAYERS]):
        if s[pb(p) + F_PASSED] == 0:
            m = max(m, count_loc(s, LOC_BID + p))
    return m


@kernel
def pending_total(s, p):
    """Bid total if the items being added were confirmed now."""
    b = pb(p)
    tot = s[b + F_BID_CUBES] + s[b + F_PEND_CUBES]
    m = cards_at(s, LOC_BID + p) | cards_at(s, LOC_PEND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        tot += power(s, c, p)
    return tot


@kernel
def begin_auction(s):
    n = s[H_NPLAYERS]
    s[G_PHASE] = PH_AUCTION
    s[G_CMAX] = 0
    s[G_HIGH] = 0
    s[G_ACTIVE] = n
    s[G_FIRST] = 1
    s[G_RECOUNT] = 0
    s[G_LAST] = (s[G_START] + n - 1) % n
    for p in range(n):
        b = pb(p)
        s[b + F_PASSED] = 0
        s[b + F_DECLARED] = 0
        s[b + F_TILE] = 0
        s[b + F_STEP2] = 0


@kernel
def auction_turn(s):
    n = s[H_NPLAYERS]
    if s[G_ACTIVE] == 0:
        begin_management(s)
        return
    p = (s[G_LAST] + 1) % n
    while s[pb(p) + F_PASSED] == 1:
        p = (p + 1) % n
    s[G_LAST] = p
    if s[O_CUBE_LOSS] == 0:
        if s[G_RECOUNT] == 1:  # R-A8: recount every active bid as the next turn begins
            s[G_RECOUNT] = 0
            high = 0
            for q in range(n):
                if s[pb(q) + F_PASSED] == 0:
                    s[pb(q) + F_DECLARED] = declared_now(s, q)
                    high = max(high, s[pb(q) + F_DECLARED])
            s[G_HIGH] = high
    else:
        s[pb(p) + F_DECLARED] = declared_now(s, p)
    if s[G_ACTIVE] == 1:
        do_pass(s, p)
        return
    if (
        s[G_FIRST] == 1
        and p == s[G_START]
        and count_loc(s, LOC_HAND + p) == 0
        and s[pb(p) + F_CUBES] == 0
    ):
        s[G_FIRST] = 0
        do_pass(s, p)
        return
    set_decision(s, DK_BID, p)


@kernel(inline=True)
def power_below(s, p, loc, upper):
    """The largest Power (for seat p) below ``upper`` among the cards at ``loc``, and how
    many of them have it; (-1, 0) if none."""
    v = -1
    cnt = 0
    m = cards_at(s, loc)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        x = power(s, c, p)
        if x < upper:
            if x > v:
                v = x
                cnt = 1
            elif x == v:
                cnt += 1
    return v, cnt


@kernel
def lost_rank_value(s, p, m):
    """Power of the item at rank m among p's displayed items (-1 if fewer than m items):
    the m-th largest Power counting equal ones, found by walking the distinct values down."""
    cubes_v = s[pb(p) + F_BID_CUBES]
    upper = np.int64(1) << 62
    left = m
    while True:
        v, cnt = power_below(s, p, LOC_BID + p, upper)  # the cube group counts as one item more
        if cubes_v > 0 and cubes_v < upper:
            if cubes_v > v:
                v = cubes_v
                cnt = 1
            elif cubes_v == v:
                cnt += 1
        if cnt == 0:
            return -1
        if cnt >= left:
            return v
        left -= cnt
        upper = v


@kernel
def lose_options(s, p, v):
    """Distinct items of power v (distinct card names, and the cube group): count, first card."""
    names = 0
    first = -1
    k = 0
    m = cards_at(s, LOC_BID + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if power(s, c, p) == v:
            bit = 1 << cd(s, c, CD_NAME)
            if not names & bit:
                names |= bit
                k += 1
                if first < 0:
                    first = c
    if s[pb(p) + F_BID_CUBES] == v and v > 0:
        k += 1
    return k, first


@kernel
def do_pass(s, p):
    """R-A5: Turn Order tile m, lose the item at rank m, the rest back to hand, a Withdrawal
    tile."""
    m = s[G_ACTIVE]
    b = pb(p)
    s[b + F_TILE] = m
    s[b + F_TURNS_TILE + s[G_ROUND] - 1] = m
    v = lost_rank_value(s, p, m)
    if v >= 0:
        k, first = lose_options(s, p, v)
        if k > 1:
            s[G_LOSE_V] = v
            set_decision(s, DK_LOSE, p)
            return
        if first >= 0:
            move_card(s, first, LOC_DISCARD)
        else:
            s[G_SUPPLY] += s[b + F_BID_CUBES]
            s[b + F_BID_CUBES] = 0
        s[b + F_LOST_ITEMS] += 1
    finish_pass(s, p)


@kernel
def finish_pass(s, p):
    b = pb(p)
    m = cards_at(s, LOC_BID + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        move_card(s, c, LOC_HAND + p)
    s[b + F_CUBES] += s[b + F_BID_CUBES]
    s[b + F_BID_CUBES] = 0
    s[b + F_DECLARED] = 0
    s[b + F_PASSED] = 1
    s[G_ACTIVE] -= 1
    set_decision(s, DK_WITHDRAW, p)


@kernel
def confirm_bid(s, p):
    """Move the items added to the display; bid-time effects once each (R-A3), in the
    bidder's order when they differ (D-A4: ``AT_BID_NEXT``)."""
    b = pb(p)
    push(s, AT_BID_NEXT, 0, p)
    m = cards_at(s, LOC_PEND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if cd(s, c, CD_BID) != BE_NONE:
            s[BID_FX + c] = 1
        move_card(s, c, LOC_BID + p)
        s[KNOWN + c] = 1
    s[b + F_BID_CUBES] += s[b + F_PEND_CUBES]
    s[b + F_CUBES] -= s[b + F_PEND_CUBES]
    s[b + F_PEND_CUBES] = 0
    tot = declared_now(s, p)
    s[b + F_DECLARED] = tot
    s[G_HIGH] = tot
    s[G_CMAX] = max(s[G_CMAX], count_loc(s, LOC_BID + p))
    s[G_FIRST] = 0


# ============================================================================ management


@kernel
def begin_management(s):
    s[G_PHASE] = PH_MGMT
    s[G_MG_IDX] = 0
    s[G_MG_STEP] = 0
    s[G_HIGH] = 0


@kernel(inline=True)
def management_step(s):
    n = s[H_NPLAYERS]
    if s[G_MG_IDX] >= n:
        begin_decree(s)
        return
    p = holder_of_tile(s, s[G_MG_IDX] + 1)
    b = pb(p)
    st = s[G_MG_STEP]
    if st == 0:
        set_decision(s, DK_SET, p)
    elif st == 1:
        kinds = 0
        last = -1
        for t in range(JADE, SEAL + 1):
            if s[b + F_PENDING + t] > 0:
                kinds += 1
                last = t
        if kinds == 0:
            s[b + F_STEP2] = 1
            s[G_MG_STEP] = 2
        elif kinds == 1:
            s[b + F_PENDING + last] -= 1
            push(s, AT_IMM, last, p)
        else:
            set_decision(s, DK_IMM, p)
    elif st == 2:
        s[b + F_GOLD] += castles_eff(s, p)
        s[G_MG_STEP] = 3
        s[G_TR_IDX] = 0
    elif st == 3:
        while s[G_TR_IDX] < N_TREASURE:
            i = s[G_TR_IDX]
            if s[TREASURE + i] == p and not (s[O_TREASURE_ONCE] == 1 and s[TR_USED + i] == 1):
                set_decision(s, DK_TREASURE, p)
                return
            s[G_TR_IDX] = i + 1
        s[G_MG_STEP] = 4
        s[G_RS_USED] = 0
    elif st == 4:
        set_decision(s, DK_RESUPPLY, p)
    else:
        s[G_MG_IDX] += 1
        s[G_MG_STEP] = 0


# ============================================================================ decree


@kernel
def decree_select(s):
    best = -1
    bp = -1
    for t in range(1, s[H_NPLAYERS] + 1):
        p = holder_of_tile(s, t)
        if s[pb(p) + F_TRUST] > best:
            best = s[pb(p) + F_TRUST]
            bp = p
    return bp


@kernel
def begin_decree(s):
    s[G_PHASE] = PH_DECREE
    s[G_DC_STEP] = 0


@kernel
def start_decree_tile(s, p, t):
    """R-D2: begin Decree tile ``t`` (0 Score + Flip, 1 Score + Tribute); its parts follow
    in the order the player picks (``decree_part``)."""
    s[G_DC_TILE] = t
    s[G_DECREE_UP] &= ~(1 << t)
    s[G_DC_FLAGS] = DC_TRIBUTE if t == 0 else DC_FLIP  # the part the tile lacks counts as done


@kernel
def decree_part(s):
    """R-D2 / D#47: the next part of the Decree tile being carried out, in the player's order.

    Before the scoring the player picks any part left (``DK_DECREE1``): the +3 VP, the
    Tribute draw (Score + Tribute), a flip (Score + Flip) or the scoring itself.  Once the
    scoring and everything it started (reveals under ``optional_subset``) is over, the +3 VP
    and the Tribute draw left happen at once: both only add (VP, a card or the empty deck's
    3 VP) and nothing can take VP away before the tile ends, so their order among themselves
    and against a later flip changes nothing; the flip left is asked (a card, or none).
    Returns True when the tile is done.
    """
    p = s[G_DC_P]
    f = s[G_DC_FLAGS]
    if f & DC_SCORED:
        if not f & DC_VP:
            gain_vp(s, p, DECREE_VP, F_VP_DECREE)
            f |= DC_VP
        if not f & DC_TRIBUTE:
            draw_tribute(s, p)
            f |= DC_TRIBUTE
        s[G_DC_FLAGS] = f
        if f == DC_ALL:
            return True
    set_decision(s, DK_DECREE1, p)
    return False


@kernel
def decree_step(s):
    st = s[G_DC_STEP]
    cost = s[DAT + D_DECREE_COST + s[G_ROUND] - 1]
    if st == 0:
        p = decree_select(s)
        s[G_DC_P] = p
        s[pb(p) + F_DECREES] += 1
        s[G_DC_STEP] = 1
        set_decision(s, DK_DECREE_TILE, p)
    elif st == 1 or st == 4:  # a tile under way (step 1: chosen by DK_DECREE_TILE)
        if decree_part(s):
            s[G_DC_STEP] = st + 1
    elif st == 2 or st == 5:
        trust_loss(s, s[G_DC_P], cost)
        s[G_DC_STEP] = st + 1
    elif st == 3:
        p = decree_select(s)
        s[G_DC_P] = p
        s[pb(p) + F_DECREES] += 1
        s[G_DC_STEP] = 4
        start_decree_tile(s, p, 0 if s[G_DECREE_UP] & 1 else 1)
    elif st == 6:
        if s[G_ROUND] == MAX_ROUNDS:
            final_scoring(s)
        else:
            setup_phase(s)


# ============================================================================ setup phase


@kernel
def setup_phase(s):
    n = s[H_NPLAYERS]
    fill_display(s)
    s[G_START] = holder_of_tile(s, n)
    s[G_WD_UP] = (1 << N_WD) - 1
    s[G_DECREE_UP] = 3
    fill_recruit(s)
    for i in range(N_TREASURE):
        s[TR_USED + i] = 0
    s[G_ROUND] += 1
    begin_auction(s)
