"""The state machine: ``advance`` runs automatic tasks (``run_auto``) until the task on
top is a decision.  Gains and their bonus, initial placement, the options of removals and
moves, and the Ruler abilities that act at the start of a turn or as an action.
"""

import numpy as np

from sim.core import H_CURRENT, NO_PLAYER, kernel
from sim.eternal_dynasty.layout import (
    AB_ARC_DRAW_DYNASTY,
    AB_ARC_DRAW_VOTE,
    AB_ARC_GAIN_SPLIT,
    AB_ARC_REMOVE_OTHERS,
    AB_ARC_ROLL_GAIN,
    AB_ARC_TAKE_SETASIDE,
    AB_EXTRA_CATCHUP,
    AB_EXTRA_IN_PROVINCE,
    AB_EXTRA_IN_SET,
    AB_EXTRA_NEW_PROVINCE,
    AB_HOME_TAX,
    AB_VOTE_WEIGHT,
    ADJ,
    C_CTYPE,
    DYN_LOC,
    DYN_TYPE,
    E_CLASS,
    EVT_DECK,
    EVT_LOC,
    F_BID,
    F_BM,
    F_BP,
    F_DI,
    F_HAND,
    F_HOME,
    F_KEEP,
    F_NDYN,
    F_NVOTE,
    F_PICK,
    G_AYES,
    G_EE_DEC,
    G_EVENTS_DRAWN,
    G_EVT_END,
    G_EVT_PTR,
    G_FIRST,
    G_NAYS,
    G_OVER,
    G_SP,
    G_VOTE_STAGE,
    HAND_MAX,
    K_EE_VOTE,
    K_INIT_M,
    K_INIT_P,
    LOC_DISCARD,
    LOC_SETASIDE,
    MARK,
    MINOR,
    MK_OMEN,
    N_DYN,
    N_EVENTS,
    N_NUM,
    N_PROV,
    T_ANY,
    T_M,
    T_P,
    M,
    P,
)
from sim.eternal_dynasty.rules.decks import (
    add_to_hand,
    draw_card,
    draw_dynasty,
    draw_vote,
    roll_province,
)
from sim.eternal_dynasty.rules.helpers import (
    ab_arg,
    ability,
    dconst,
    dyn_field,
    event_field,
    gain_ok,
    in_set,
    is_ee,
    n_colours,
    n_players,
    pb,
    represented,
    target_set,
    ti,
    tokens_total,
)
from sim.eternal_dynasty.rules.phases import deal, draft_pass, next_phase
from sim.eternal_dynasty.rules.playability import (
    card_playable,
    card_sets,
    free_type,
    move_sources,
    protected,
)
from sim.eternal_dynasty.rules.tasks import (
    GF_NO_BONUS,
    GF_NO_EXTRAS,
    GF_PRE_CATCH_M,
    GF_PRE_CATCH_P,
    GF_PRE_NEW,
    TG_MASK,
    TK_ARC,
    TK_BID,
    TK_BID_RESOLVE,
    TK_DEAL,
    TK_DISCARD,
    TK_DONG,
    TK_DRAFT_PASS,
    TK_EVENT_DRAW,
    TK_EXTRA,
    TK_FLIP,
    TK_FREE,
    TK_GAIN,
    TK_GUO,
    TK_INIT_PLACE,
    TK_MOVE_FROM,
    TK_REMOVE_OWN,
    TK_TAKE_OTHERS,
    TK_TARGET,
    TK_VOTE_RESOLVE,
    TK_VOTE_REVEAL,
    TK_XUN,
    add_tokens,
    pop,
    push,
    push_gain,
    top,
)
from sim.eternal_dynasty.rules.votes_events import resolve_bids, resolve_event, resolve_vote


@kernel
def run_auto(s, o):
    """Run the automatic task at ``o`` (or turn it into a decision).  True if a seat must decide."""
    kind = s[o]
    p = s[o + 1]
    if kind == TK_DEAL:
        pop(s)
        deal(s)
        return False
    if kind == TK_EVENT_DRAW:
        pop(s)
        e = draw_card(s, EVT_DECK, EVT_LOC, G_EVT_PTR, G_EVT_END, N_EVENTS, -1)
        if e < 0:
            return False
        s[EVT_LOC + e] = LOC_DISCARD
        s[G_EVENTS_DRAWN] += 1
        s[G_EE_DEC] = s[G_FIRST]  # D29: the First Player token holder chooses for the EE
        if s[o + 2] == 0 and event_field(s, e, E_CLASS) == MINOR:
            push(s, TK_EVENT_DRAW, 0, 1, 0, 0, 0, 0, 0)
        resolve_event(s, e)
        return False
    if kind == TK_ARC:
        pop(s)
        arc(s, p)
        return False
    if kind == TK_VOTE_REVEAL:
        pop(s)
        ayes = 0
        nays = 0
        for v in range(n_colours(s)):
            w = ab_arg(s, v, 0) if ability(s, v) == AB_VOTE_WEIGHT else 1
            if is_ee(s, v):
                w = dconst(s, K_EE_VOTE)  # the EE's vote, declared by the bid winner
            if s[pb(v) + F_PICK] == 0:
                ayes += w
            else:
                nays += w
        s[G_AYES] = ayes
        s[G_NAYS] = nays
        s[G_VOTE_STAGE] = 1
        return False
    if kind == TK_VOTE_RESOLVE:
        pop(s)
        resolve_vote(s)
        return False
    if kind == TK_BID_RESOLVE:
        pop(s)
        resolve_bids(s)
        return False
    if kind == TK_BID:
        if s[pb(p) + F_DI] == 0:
            s[pb(p) + F_BID] = 0  # nothing to bid: no decision
            pop(s)
            return False
        if s[o + 2] == 0 and s[pb(p) + F_DI] < N_NUM:
            s[o + 2] = 1  # a bid below 16 is one decision (the low digit)
            s[pb(p) + F_BID] = 0
        return True
    if kind == TK_DRAFT_PASS:
        stage = s[o + 2]
        pop(s)
        draft_pass(s, stage)
        return False
    if kind == TK_DONG:
        # T2 (optional, spec 6.3 / 6.5): offered when Dong qualifies and his Home can take a gain
        if dong_types(s, p) == 0:
            pop(s)
            return False
        return True
    if kind == TK_XUN:
        rem = s[o + 2]
        pop(s)
        if rem > 1:
            push(s, TK_XUN, p, rem - 1, 0, 0, 0, 0, 0)  # the next roll, made after this one's gain
        xun_roll(s, p)
        return False
    # decision tasks that may have become empty or automatic
    if kind == TK_DISCARD:
        if s[pb(p) + F_NDYN] <= s[pb(p) + F_KEEP]:
            pop(s)
            return False
        return True
    if kind == TK_GAIN:
        return gain_step(s, o)
    if kind == TK_TARGET:
        if target_candidates(s, o) == 0:
            pop(s)
            return False
        return True
    if kind == TK_REMOVE_OWN:
        if s[o + 2] <= 0 or remove_own_options(s, o) == 0:
            pop(s)
            return False
        return True
    if kind == TK_TAKE_OTHERS:
        if s[o + 2] <= 0 or take_others_options(s, o) == 0:
            pop(s)
            return False
        return True
    if kind == TK_INIT_PLACE:
        return init_place(s, o)
    if kind == TK_FREE:
        ft = free_type(s, p)
        if ft < 0 or s[o + 3] == 1 or not any_free_card(s, p, ft):
            pop(s)
            return False
        return True
    if kind == TK_MOVE_FROM:
        if move_sources(s, p, True) == 0:
            pop(s)
            return False
        return True
    if kind == TK_FLIP:
        if tokens_total(s, p) == 0:
            pop(s)
            return False
        return True
    if kind == TK_GUO:
        if guo_options(s, p) == 0:
            pop(s)
            return False
        return True
    if kind == TK_EXTRA:
        if s[pb(p) + F_NVOTE] == 0:
            pop(s)
            return False
        return True
    return True


@kernel
def any_free_card(s, p, ft):
    b = pb(p)
    ls, lsp = card_sets(s, p)
    for i in range(s[b + F_NDYN]):
        c = s[b + F_HAND + i]
        if dyn_field(s, s[DYN_TYPE + c], C_CTYPE) == ft and card_playable(s, p, c, ls, lsp):
            return True
    return False


@kernel
def advance(s):
    """Run automatic steps until a seat must decide (or the game is over)."""
    while True:
        if s[G_OVER] == 1:
            s[H_CURRENT] = NO_PLAYER
            return
        if s[G_SP] == 0:
            next_phase(s)
            continue
        o = top(s)
        if run_auto(s, o):
            p = s[o + 1]
            # the Eternal Emperor takes no decisions: the seat that decides for it does (spec 8)
            s[H_CURRENT] = s[G_EE_DEC] if is_ee(s, p) else p
            return


# ---------------------------------------------------------------------------- gains


@kernel
def gain_step(s, o):
    """The gain procedure (spec 5.4) as stages: ANY split, extras, either-type extras, bonus."""
    g = s[o + 1]
    q = s[o + 2]
    stage = s[o + 6] >> 4
    flags = s[o + 7]
    if stage == 0:
        if s[o + 5] > 0:
            return True  # the type of one ANY token
        stage = 1
    if stage == 1:
        either = 0
        m = s[o + 3]
        pp = s[o + 4]
        if (flags & GF_NO_EXTRAS) == 0:
            ab = ability(s, g)
            base_m = m > 0
            base_p = pp > 0
            if ab == AB_EXTRA_IN_PROVINCE and q == ab_arg(s, g, 0):
                either += ab_arg(s, g, 1)
            if ab == AB_EXTRA_CATCHUP:
                if ab_arg(s, g, 0) == M and base_m and (flags & GF_PRE_CATCH_M):
                    m += ab_arg(s, g, 1)
                if ab_arg(s, g, 0) == P and base_p and (flags & GF_PRE_CATCH_P):
                    pp += ab_arg(s, g, 1)
            if ab == AB_EXTRA_NEW_PROVINCE and (flags & GF_PRE_NEW):
                if base_m and base_p:
                    either += ab_arg(s, g, 0)
                elif base_m:
                    m += ab_arg(s, g, 0)
                elif base_p:
                    pp += ab_arg(s, g, 0)
            if ab == AB_EXTRA_IN_SET and in_set(s, q, ab_arg(s, g, 0)):
                if ab_arg(s, g, 1) == M and base_m:
                    m += ab_arg(s, g, 2)
                if ab_arg(s, g, 1) == P and base_p:
                    pp += ab_arg(s, g, 2)
            if s[MARK + q] & MK_OMEN:
                if base_m and base_p:
                    either += 1
                elif base_m:
                    m += 1
                elif base_p:
                    pp += 1
        s[o + 3] = m
        s[o + 4] = pp
        s[o + 6] = either | (2 << 4)
        stage = 2
    if stage == 2:
        if (s[o + 6] & 15) > 0:
            return True
        stage = 3
        s[o + 6] = 3 << 4
    if stage == 3:
        if (flags & GF_NO_BONUS) == 0 and s[o + 3] > 0 and s[pb(g) + F_BM] > 0:
            return True
        stage = 4
        s[o + 6] = 4 << 4
    if stage == 4 and (flags & GF_NO_BONUS) == 0 and s[o + 4] > 0 and s[pb(g) + F_BP] > 0:
        return True
    bm = (flags >> 8) & 255
    bp = (flags >> 16) & 255
    add_tokens(s, g, q, s[o + 3] - bm, s[o + 4] - bp, bm, bp)
    pop(s)
    return False


@kernel
def target_candidates(s, o):
    g = s[o + 1]
    target = s[o + 2]
    if target == TG_MASK:
        res = 0
        for q in range(N_PROV):
            if (s[o + 7] >> q) & 1 and gain_ok(s, q):
                res |= 1 << q
        return res
    return target_set(s, g, target, s[o + 3]) & ~s[o + 7]


@kernel
def init_place(s, o):
    """G8: 2 M + 2 P at Home, 3 under Wu-Gui's tax (the taxed player drops M or P); no bonus."""
    p = s[o + 1]
    h = s[pb(p) + F_HOME]
    if h < 0 or not gain_ok(s, h):
        pop(s)
        return False
    n = n_players(s)
    taxed = False
    for v in range(n):
        if v != p and ability(s, v) == AB_HOME_TAX and represented(s, v, h):
            taxed = True
    if taxed and s[o + 2] == 0:
        return True  # decision: which type to drop
    m = dconst(s, K_INIT_M)
    pp = dconst(s, K_INIT_P)
    if taxed:
        if s[o + 3] == M:
            m -= 1
        else:
            pp -= 1
    pop(s)
    push_gain(s, p, h, m, pp, 0, GF_NO_BONUS)
    return False


# ---------------------------------------------------------------------------- removals


@kernel
def remove_own_options(s, o):
    """TK_REMOVE_OWN(p, count, q or -1, type or -1, actor or -1): (q, t) bit set."""
    p = s[o + 1]
    qq = s[o + 3]
    tt = s[o + 4]
    actor = s[o + 5]
    res = np.int64(0)
    for q in range(N_PROV):
        if qq >= 0 and q != qq:
            continue
        if qq == -2 and ((s[o + 7] >> q) & 1) == 0:
            continue
        for t in range(2):
            if tt >= 0 and t != tt:
                continue
            if s[ti(p, q, t)] > 0 and not (actor >= 0 and protected(s, p, actor, q, t, True)):
                res |= np.int64(1) << (q * 2 + t)
    return res


@kernel
def take_others_options(s, o):
    """TK_TAKE_OTHERS(p, count, q, type or -1): bit v*2+t of other colours' tokens in q."""
    p = s[o + 1]
    q = s[o + 3]
    tt = s[o + 4]
    res = 0
    for v in range(n_colours(s)):
        if v == p:
            continue
        for t in range(2):
            if (tt < 0 or t == tt) and s[ti(v, q, t)] > 0:
                res |= 1 << (v * 2 + t)
    return res


@kernel
def guo_options(s, p):
    h = s[pb(p) + F_HOME]
    res = 0
    for q in range(N_PROV):
        if s[ADJ + h * N_PROV + q] == 1:
            for v in range(n_colours(s)):
                if v != p and s[ti(v, q, M)] > 0:
                    res |= 1 << q
    return res


# ---------------------------------------------------------------------------- abilities


@kernel
def arc(s, p):
    """G7: a Ruler's "after Rulers are chosen" ability."""
    ab = ability(s, p)
    if ab == AB_ARC_TAKE_SETASIDE:
        want = ab_arg(s, p, 0)
        for c in range(N_DYN):
            if (
                s[DYN_TYPE + c] == want
                and s[DYN_LOC + c] == LOC_SETASIDE
                and s[pb(p) + F_NDYN] < HAND_MAX
            ):
                add_to_hand(s, p, c)
                break
    elif ab == AB_ARC_DRAW_DYNASTY:
        for _ in range(ab_arg(s, p, 0)):
            draw_dynasty(s, p)
    elif ab == AB_ARC_DRAW_VOTE:
        for _ in range(ab_arg(s, p, 0)):
            draw_vote(s, p)
    elif ab == AB_ARC_GAIN_SPLIT:
        push(
            s,
            TK_TARGET,
            p,
            ab_arg(s, p, 3),
            ab_arg(s, p, 2),
            ab_arg(s, p, 1),
            ab_arg(s, p, 0),
            0,
            0,
        )
    elif ab == AB_ARC_ROLL_GAIN:
        # Xun (Ruler 13: "twice: roll ...; choose ...; gain ..."): one roll at a time, each
        # resolved (choice, gain) before the next is made (TK_XUN)
        if ab_arg(s, p, 0) > 0:
            push(s, TK_XUN, p, ab_arg(s, p, 0), 0, 0, 0, 0, 0)
    elif ab == AB_ARC_REMOVE_OTHERS:
        if ab_arg(s, p, 2) == 0:
            tt = -1 if ab_arg(s, p, 1) == T_ANY else ab_arg(s, p, 1)
            push(s, TK_TAKE_OTHERS, p, ab_arg(s, p, 0), s[pb(p) + F_HOME], tt, 0, 0, 0)
        else:
            push(s, TK_GUO, p, 0, 0, 0, 0, 0, 0)


@kernel
def xun_roll(s, p):
    """One of Xun's rolls: the rolled number and its neighbours (wrapping) where a gain is
    possible (D25); nothing when none is."""
    spread = ab_arg(s, p, 3)
    r = roll_province(s)
    mask = 0
    for d in range(-spread, spread + 1):
        q = r + d
        if q < 0 or q >= N_PROV:
            if ab_arg(s, p, 4) == 0:
                continue
            q = q % N_PROV
        if gain_ok(s, q):
            mask |= 1 << q
    if mask != 0:
        push(s, TK_TARGET, p, TG_MASK, ab_arg(s, p, 2), ab_arg(s, p, 1), 1, 0, mask)


@kernel
def dong_types(s, p):
    """Dong's start-of-turn gain (Ruler 34): the types he may take (bit t), 0 when it is not
    offered: another colour (the EE included) has fewer tokens on the board, or his Home
    cannot take a gain (5.4 step 0)."""
    mine = tokens_total(s, p)
    for v in range(n_colours(s)):
        if v != p and tokens_total(s, v) < mine:
            return 0
    h = s[pb(p) + F_HOME]
    if h < 0 or not gain_ok(s, h):
        return 0
    typ = ab_arg(s, p, 1)
    if typ == T_M:
        return 1
    if typ == T_P:
        return 2
    return 3
