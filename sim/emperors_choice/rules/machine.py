"""The state machine and the contract's kernels of play: ``advance`` runs atoms and the
phase machine until a seat must decide; ``legal_mask`` and ``apply`` for every decision.
"""

from sim.core import H_CURRENT, H_NPLAYERS, H_PLY, NO_PLAYER, clear_mask, kernel
from sim.core import bit_count as card_count
from sim.core import lowest_bit as lowest_card
from sim.emperors_choice.layout import (
    A_CARD,
    A_CONFIRM,
    A_CUBE,
    A_END,
    A_FLIP,
    A_HIRE,
    A_IMM,
    A_OPT,
    A_PASS,
    A_RAISE,
    A_RECRUIT,
    A_SCORE,
    A_SET,
    A_TREASURE,
    A_WD,
    AT_BID_EFFECTS,
    AT_BID_NEXT,
    AT_EFFECT,
    AT_IMM,
    AT_LEVEL,
    BAG,
    BID_FX,
    CD_BID,
    CD_COST,
    CD_NAME,
    D_EFF,
    D_POLICY,
    D_RAISE_COST,
    DAT,
    DC_FLIP,
    DC_SCORED,
    DC_TRIBUTE,
    DC_VP,
    DECREE_VP,
    DK_BID,
    DK_DECREE1,
    DK_DECREE_TILE,
    DK_IMM,
    DK_JADE,
    DK_KEEP,
    DK_LOSE,
    DK_NONE,
    DK_OPTION,
    DK_ORDER,
    DK_RESUPPLY,
    DK_REVEAL,
    DK_SEAL,
    DK_SET,
    DK_SIDE,
    DK_TREASURE,
    DK_WITHDRAW,
    EFF_PAL,
    EFF_SIZE,
    EFF_TR,
    EFF_WD,
    F_BID_CUBES,
    F_CUBES,
    F_GOLD,
    F_HIRED,
    F_LOST_ITEMS,
    F_PALACE,
    F_PEND_CUBES,
    F_PENDING,
    F_RECRUITS,
    F_TAB,
    F_VP_DECREE,
    F_WD_COUNT,
    G_DC_FLAGS,
    G_DECISION,
    G_DECREE_UP,
    G_FIRST,
    G_HIGH,
    G_KEEP0,
    G_KEEP1,
    G_LOSE_V,
    G_MG_STEP,
    G_PEND_EFF,
    G_PHASE,
    G_REVEAL_ITEM,
    G_ROUND,
    G_RS_USED,
    G_SETS_TAKEN,
    G_STACK_N,
    G_START,
    G_SUPPLY,
    G_TR_IDX,
    G_WD_UP,
    JADE,
    KNOWN,
    LOC_BID,
    LOC_DISCARD,
    LOC_HAND,
    LOC_PEND,
    MAX_RECRUIT,
    N_LEVELS,
    N_POLICY,
    N_TILE,
    N_TREASURE,
    N_WD,
    NUM_ACTIONS,
    PH_AUCTION,
    PH_DECREE,
    PH_MGMT,
    PH_OVER,
    PH_SETUP,
    POLICY,
    RECRUIT,
    REVEALING,
    SEAL,
    SETS,
    STACK,
    TR_USED,
    TREASURE,
)
from sim.emperors_choice.rules.helpers import (
    cards_at,
    cd,
    move_card,
    ncards,
    pb,
    pool,
    power,
    push,
    push_option,
    set_decision,
)
from sim.emperors_choice.rules.policies import (
    flip_policy,
    reveal_qualifies,
    score_policy,
    score_revealed,
)
from sim.emperors_choice.rules.round import (
    auction_turn,
    begin_auction,
    cmax_now,
    confirm_bid,
    decree_step,
    do_pass,
    finish_pass,
    management_step,
    start_decree_tile,
)
from sim.emperors_choice.rules.stack import get_tile, jade_targets, run_atom
from sim.emperors_choice.rules.tracks import draw_tribute, gain_soldiers, gain_vp


@kernel(inline=True)
def advance(s):
    while True:
        if s[G_DECISION] != DK_NONE or s[G_PHASE] == PH_OVER:
            return
        if s[G_STACK_N] > 0:
            i = s[G_STACK_N] - 1
            s[G_STACK_N] = i
            run_atom(s, s[STACK + 3 * i], s[STACK + 3 * i + 1], s[STACK + 3 * i + 2])
            continue
        ph = s[G_PHASE]
        if ph == PH_SETUP:
            begin_auction(s)
        elif ph == PH_AUCTION:
            auction_turn(s)
        elif ph == PH_MGMT:
            management_step(s)
        elif ph == PH_DECREE:
            decree_step(s)


@kernel
def is_terminal(s):
    return s[H_CURRENT] == NO_PLAYER


@kernel
def raise_cost(s, k):
    return s[DAT + D_RAISE_COST + k - 1]


@kernel
def legal_mask(s, out):
    clear_mask(out, NUM_ACTIONS)
    if s[H_CURRENT] == NO_PLAYER:
        return 0
    p = s[H_CURRENT]
    b = pb(p)
    kind = s[G_DECISION]
    count = 0
    if kind == DK_BID:
        first = s[G_FIRST] == 1 and p == s[G_START]
        if not first:
            out[A_PASS] = True
            count += 1
        # one pass over the cards: the hand (offered unless the display is full), the
        # displayed and pending cards (their number, and the bid total pending_total gives)
        pend_set = cards_at(s, LOC_PEND + p)
        m = cards_at(s, LOC_BID + p) | pend_set
        shown = card_count(m)
        tot = s[b + F_BID_CUBES] + s[b + F_PEND_CUBES]
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            tot += power(s, c, p)
        if shown + 1 <= cmax_now(s) + 1:
            m = cards_at(s, LOC_HAND + p)
            count += card_count(m)
            while m != 0:
                out[A_CARD + lowest_card(m)] = True
                m &= m - 1
        if s[b + F_CUBES] - s[b + F_PEND_CUBES] > 0:
            out[A_CUBE] = True
            count += 1
        adding = s[b + F_PEND_CUBES] > 0 or pend_set != 0
        if adding and tot > s[G_HIGH]:
            out[A_CONFIRM] = True
            count += 1
    elif kind == DK_LOSE:
        v = s[G_LOSE_V]
        names = 0
        m = cards_at(s, LOC_BID + p)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            if power(s, c, p) == v:
                bit = 1 << cd(s, c, CD_NAME)
                if not names & bit:
                    names |= bit
                    out[A_CARD + c] = True
                    count += 1
        if s[b + F_BID_CUBES] == v:
            out[A_CUBE] = True
            count += 1
    elif kind == DK_WITHDRAW:
        for i in range(N_WD):
            if (s[G_WD_UP] >> i) & 1:
                out[A_WD + i] = True
                count += 1
    elif kind == DK_SIDE or kind == DK_KEEP:
        out[A_OPT] = True
        out[A_OPT + 1] = True
        count = 2
    elif kind == DK_ORDER:
        # D-A4: the card whose effect runs next; cards with the same effect are one choice
        # (the lowest card id stands for them)
        seen = 0
        for c in range(ncards(s)):
            if s[BID_FX + c] == 1:
                bit = 1 << cd(s, c, CD_BID)
                if not seen & bit:
                    seen |= bit
                    out[A_CARD + c] = True
                    count += 1
    elif kind == DK_OPTION:
        for o in range(s[DAT + D_EFF + s[G_PEND_EFF] * EFF_SIZE]):
            out[A_OPT + o] = True
            count += 1
    elif kind == DK_TREASURE:
        out[A_OPT] = True
        out[A_OPT + 1] = True
        count = 2
    elif kind == DK_SET:
        for i in range(s[H_NPLAYERS]):
            if not (s[G_SETS_TAKEN] >> i) & 1:
                out[A_SET + i] = True
                count += 1
    elif kind == DK_IMM:
        for t in range(JADE, SEAL + 1):
            if s[b + F_PENDING + t] > 0:
                out[A_IMM + t - JADE] = True
                count += 1
    elif kind == DK_JADE:
        m = jade_targets(s, p)
        for i in range(N_TREASURE):
            if (m >> i) & 1:
                out[A_TREASURE + i] = True
                count += 1
    elif kind == DK_SEAL or kind == DK_DECREE1:
        # DK_DECREE1 (R-D2): before the scoring any part left -- score, +3 VP (A_OPT), draw
        # the Tribute (A_OPT + 1), flip; after it only the flip left, or no flip (A_END)
        flags = s[G_DC_FLAGS] if kind == DK_DECREE1 else 0
        if not flags & DC_SCORED:
            for c in range(N_POLICY):
                if s[POLICY + 2 * c + 1] == 0:
                    out[A_SCORE + c] = True
                    count += 1
        if not flags & DC_FLIP:
            for c in range(N_POLICY):
                out[A_FLIP + c] = True
                count += 1
        if kind == DK_DECREE1:
            if flags & DC_SCORED:
                out[A_END] = True
                count += 1
            else:
                if not flags & DC_VP:
                    out[A_OPT] = True
                    count += 1
                if not flags & DC_TRIBUTE:
                    out[A_OPT + 1] = True
                    count += 1
    elif kind == DK_RESUPPLY:
        out[A_END] = True
        count = 1
        used = s[G_RS_USED]
        gold = s[b + F_GOLD]
        if not used & 1:
            for i in range(MAX_RECRUIT):
                c = s[RECRUIT + i]
                if c >= 0 and cd(s, c, CD_COST) <= gold:
                    out[A_RECRUIT + i] = True
                    count += 1
        if not used & 2:
            for k in range(1, min(gold, pool(s)) + 1):
                out[A_HIRE + k - 1] = True
                count += 1
        if not used & 4:
            for k in range(1, 4):
                if raise_cost(s, k) <= gold and s[b + F_PALACE] + k <= N_LEVELS:
                    out[A_RAISE + k - 1] = True
                    count += 1
    elif kind == DK_DECREE_TILE:
        for t in range(2):
            if (s[G_DECREE_UP] >> t) & 1:
                out[A_OPT + t] = True
                count += 1
    elif kind == DK_REVEAL:
        out[A_END] = True
        count = 1
        sid = s[DAT + D_POLICY + s[G_REVEAL_ITEM]]
        m = cards_at(s, LOC_HAND + p)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            if reveal_qualifies(s, p, c, sid):
                out[A_CARD + c] = True
                count += 1
    return count


@kernel
def apply(s, a):
    p = s[H_CURRENT]
    b = pb(p)
    kind = s[G_DECISION]
    s[G_DECISION] = DK_NONE
    s[H_PLY] += 1
    if kind == DK_BID:
        if a == A_PASS:
            m = cards_at(s, LOC_PEND + p)
            while m != 0:
                c = lowest_card(m)
                m &= m - 1
                move_card(s, c, LOC_HAND + p)
            s[b + F_PEND_CUBES] = 0
            do_pass(s, p)
        elif a == A_CUBE:
            s[b + F_PEND_CUBES] += 1
            set_decision(s, DK_BID, p)
        elif a == A_CONFIRM:
            confirm_bid(s, p)
        else:
            move_card(s, a - A_CARD, LOC_PEND + p)
            set_decision(s, DK_BID, p)
    elif kind == DK_ORDER:
        c = a - A_CARD
        s[BID_FX + c] = 0
        push(s, AT_BID_NEXT, 0, p)  # then the next one (asked again while two kinds wait)
        push(s, AT_BID_EFFECTS, c, p)
    elif kind == DK_LOSE:
        if a == A_CUBE:
            s[G_SUPPLY] += s[b + F_BID_CUBES]
            s[b + F_BID_CUBES] = 0
        else:
            move_card(s, a - A_CARD, LOC_DISCARD)
        s[b + F_LOST_ITEMS] += 1
        finish_pass(s, p)
    elif kind == DK_WITHDRAW:
        i = a - A_WD
        s[G_WD_UP] &= ~(1 << i)
        s[b + F_WD_COUNT + i] += 1
        push(s, AT_EFFECT, EFF_WD + i, p)
    elif kind == DK_SIDE:
        lv = s[b + F_PALACE]
        push(s, AT_EFFECT, EFF_PAL + 2 * (lv - 1) + (a - A_OPT), p)
    elif kind == DK_KEEP:
        keep = s[G_KEEP0] if a == A_OPT else s[G_KEEP1]
        back = s[G_KEEP1] if a == A_OPT else s[G_KEEP0]
        s[BAG + back] += 1
        get_tile(s, p, keep)
    elif kind == DK_OPTION:
        push_option(s, s[G_PEND_EFF], a - A_OPT, p)
    elif kind == DK_SET:
        # R-C8 / D-M2: the set's immediate tiles are resolved in step 2, which follows at once,
        # in the player's order; so under always_instant too (nothing happens in between)
        i = a - A_SET
        s[G_SETS_TAKEN] |= 1 << i
        for t in range(N_TILE):
            k = s[SETS + i * N_TILE + t]
            s[SETS + i * N_TILE + t] = 0
            if JADE <= t <= SEAL:
                s[b + F_PENDING + t] += k
            else:
                s[b + F_TAB + t] += k
        s[G_MG_STEP] = 1
    elif kind == DK_IMM:
        t = a - A_IMM + JADE
        s[b + F_PENDING + t] -= 1
        push(s, AT_IMM, t, p)
    elif kind == DK_JADE:
        i = a - A_TREASURE
        s[TREASURE + i] = p
    elif kind == DK_SEAL:
        if a >= A_FLIP:
            flip_policy(s, a - A_FLIP)
        else:
            score_policy(s, a - A_SCORE, p)
    elif kind == DK_TREASURE:
        i = s[G_TR_IDX]
        if a == A_OPT + 1:
            s[TR_USED + i] = 1
            late = 1 if s[G_ROUND] >= 5 else 0
            push(s, AT_EFFECT, EFF_TR + 2 * i + late, p)
        s[G_TR_IDX] = i + 1
    elif kind == DK_RESUPPLY:
        if a == A_END:
            s[G_MG_STEP] = 5
        elif a >= A_RAISE:
            k = a - A_RAISE + 1
            s[G_RS_USED] |= 4
            s[b + F_GOLD] -= raise_cost(s, k)
            for _ in range(k):
                push(s, AT_LEVEL, 1, p)
        elif a >= A_HIRE:
            k = a - A_HIRE + 1
            s[G_RS_USED] |= 2
            s[b + F_GOLD] -= k
            s[b + F_HIRED] += k
            gain_soldiers(s, p, k)
        else:
            i = a - A_RECRUIT
            c = s[RECRUIT + i]
            s[G_RS_USED] |= 1
            s[b + F_GOLD] -= cd(s, c, CD_COST)
            s[RECRUIT + i] = -1
            move_card(s, c, LOC_HAND + p)
            s[KNOWN + c] = 1
            s[b + F_RECRUITS] += 1
    elif kind == DK_DECREE_TILE:
        start_decree_tile(s, p, a - A_OPT)
    elif kind == DK_REVEAL:
        if a == A_END:
            score_revealed(s, p, s[G_REVEAL_ITEM])
        else:
            s[REVEALING + a - A_CARD] = 1
            s[KNOWN + a - A_CARD] = 1  # shown to everybody
            set_decision(s, DK_REVEAL, p)
    elif kind == DK_DECREE1:
        # one part of the Decree tile; decree_step asks for the next once the stack is empty
        if a == A_END:
            s[G_DC_FLAGS] |= DC_FLIP  # no flip
        elif a == A_OPT:
            gain_vp(s, p, DECREE_VP, F_VP_DECREE)
            s[G_DC_FLAGS] |= DC_VP
        elif a == A_OPT + 1:
            draw_tribute(s, p)
            s[G_DC_FLAGS] |= DC_TRIBUTE
        elif a >= A_FLIP:
            flip_policy(s, a - A_FLIP)
            s[G_DC_FLAGS] |= DC_FLIP
        else:
            score_policy(s, a - A_SCORE, p)
            s[G_DC_FLAGS] |= DC_SCORED
    advance(s)
