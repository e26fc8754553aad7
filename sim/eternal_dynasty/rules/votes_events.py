"""Resolving Votes and Events: a passed Vote's effect on every colour, the 2-player
bids for the Eternal Emperor's choices, Event rolls, marks and Coin majorities.
"""

from sim.core import bit_count, kernel
from sim.eternal_dynasty.layout import (
    E_A0,
    E_KIND,
    E_SET,
    EK_COIN_CONTROL,
    EK_COIN_MAJORITY,
    EK_FAMINE,
    EK_MARK,
    EK_REMOVE_ALL_STRUCTURES,
    EK_ROLL_EACH_GAIN,
    EK_ROLL_EACH_REMOVE,
    EK_ROLL_HALVE,
    EK_ROLL_WIPE,
    EK_SET_HALVE,
    EK_SET_REMOVE,
    EK_TOP_TAX,
    F_BID,
    F_BIDS_WON,
    F_DI,
    F_DI_SPENT,
    F_VOTES_PASSED,
    G_AYES,
    G_BAN,
    G_BID_WINNER,
    G_BIDS,
    G_EE_DEC,
    G_FIRST,
    G_NAYS,
    G_VOTE_CALLER,
    G_VOTE_CARD,
    G_VOTE_STAGE,
    G_VOTES_PASSED,
    LEAD,
    MARK,
    MAXP,
    N_PROV,
    NCOL,
    OR_EVENT,
    OR_VOTE,
    SC_COUNTS,
    SC_ORDER,
    SC_ROLLED,
    SC_TOPS,
    STRUCT,
    V_A0,
    V_KIND,
    VK_BAN,
    VK_EACH_DRAW,
    VK_EACH_GAIN,
    VK_EACH_MOVE,
    VK_EACH_REMOVE_OWN,
    VK_REMOVE_ALL_LEADERS,
    VK_TOP_TAX,
    VOTE_TYPE,
    M,
    P,
)
from sim.eternal_dynasty.rules.decks import draw_dynasty, roll_province
from sim.eternal_dynasty.rules.helpers import (
    colour_order,
    event_field,
    in_set,
    n_colours,
    n_players,
    pb,
    represented,
    ti,
    tokens_total,
    vote_field,
)
from sim.eternal_dynasty.rules.scoring import award_coins
from sim.eternal_dynasty.rules.tasks import (
    GF_NO_BONUS,
    GF_NO_EXTRAS,
    TK_EE_VOTE,
    TK_MOVE_FROM,
    TK_REMOVE_OWN,
    TK_TARGET,
    precheck_snapshot,
    push,
    push_typed_gain,
    remove_n,
    touch_all,
)


@kernel
def most_tokens_players(s, out):
    n = n_colours(s)
    best = -1
    for p in range(n):
        t = tokens_total(s, p)
        if t > best:
            best = t
    k = 0
    for p in range(n):
        if tokens_total(s, p) == best:
            out[k] = p
            k += 1
    return k


@kernel
def resolve_vote(s):
    """V6-V8."""
    n = n_players(s)
    vt = s[VOTE_TYPE + s[G_VOTE_CARD]]
    caller = s[G_VOTE_CALLER]
    passed = s[G_AYES] > s[G_NAYS]
    kind = vote_field(s, vt, V_KIND)
    a0 = vote_field(s, vt, V_A0)
    a1 = vote_field(s, vt, V_A0 + 1)
    a2 = vote_field(s, vt, V_A0 + 2)
    s[G_VOTE_STAGE] = 2
    if kind == VK_BAN:
        s[G_BAN + vt] = 1 if passed else 0
    if not passed:
        return
    s[G_VOTES_PASSED] += 1
    s[pb(caller) + F_VOTES_PASSED] += 1
    order = s[SC_ORDER + OR_VOTE * (MAXP + 1) : SC_ORDER + (OR_VOTE + 1) * (MAXP + 1)]
    # from the caller's left, the caller last, then the EE (2 players: non-caller, caller, EE)
    nc = colour_order(s, caller + 1, order)
    if kind == VK_REMOVE_ALL_LEADERS:
        for i in range(NCOL * N_PROV * 2):
            s[LEAD + i] = 0
        touch_all(s)
        return
    if kind == VK_EACH_DRAW:
        for i in range(n):  # the seats only: the EE holds no cards (D43)
            for _ in range(a0):
                draw_dynasty(s, order[i])
        return
    if kind == VK_TOP_TAX:
        tops = s[SC_TOPS : SC_TOPS + MAXP + 1]
        k = most_tokens_players(s, tops)
        for i in range(nc - 1, -1, -1):
            p = order[i]
            for j in range(k):
                if tops[j] == p:
                    push(s, TK_REMOVE_OWN, p, a0, -1, -1, -1, 0, 0)
        return
    for i in range(nc - 1, -1, -1):
        p = order[i]
        if kind == VK_EACH_GAIN:
            # 5.4 step 1: every share is checked on the board from before the first share
            push(s, TK_TARGET, p, a2, a1, a0, 1, precheck_snapshot(s, p), 0)
        elif kind == VK_EACH_REMOVE_OWN:
            push(s, TK_REMOVE_OWN, p, a0, -1, a1, -1, 0, 0)
        elif kind == VK_EACH_MOVE:
            push(s, TK_MOVE_FROM, p, a0, 1, 0, 0, 0, 0)


@kernel
def resolve_bids(s):
    """2 players, after both bids (spec 8): the higher bid wins, equal bids go to the First
    Player token holder; only the winner pays.  The bids are public from here on; the winner
    makes the EE's choices in this Vote and now declares the EE's vote."""
    b0 = s[pb(0) + F_BID]
    b1 = s[pb(1) + F_BID]
    w = 0 if b0 > b1 else (1 if b1 > b0 else s[G_FIRST])
    bid = s[pb(w) + F_BID]
    s[pb(w) + F_DI] -= bid
    s[pb(w) + F_DI_SPENT] += bid
    s[pb(w) + F_BIDS_WON] += 1
    s[G_BID_WINNER] = w
    s[G_EE_DEC] = w
    s[G_BIDS] += 1
    push(s, TK_EE_VOTE, w, 0, 0, 0, 0, 0, 0)


@kernel
def roll_distinct(s, k, out):
    for i in range(k):
        while True:
            q = roll_province(s)
            dup = False
            for j in range(i):
                if out[j] == q:
                    dup = True
            if not dup:
                out[i] = q
                break


@kernel
def coin_majority(s, counts, first, second):
    """7.2: event Coin awards by counts (positive only); the EE takes part (spec 8)."""
    n = n_colours(s)
    best = 0
    for p in range(n):
        if counts[p] > best:
            best = counts[p]
    if best <= 0:
        return
    k = 0
    for p in range(n):
        if counts[p] == best:
            k += 1
    if k == 2:
        for p in range(n):
            if counts[p] == best:
                award_coins(s, p, second)
        return
    if k >= 3:
        return
    top_p = -1
    for p in range(n):
        if counts[p] == best:
            top_p = p
    award_coins(s, top_p, first)
    sec = 0
    for p in range(n):
        if p != top_p and counts[p] > sec:
            sec = counts[p]
    if sec > 0:
        k = 0
        who = -1
        for p in range(n):
            if p != top_p and counts[p] == sec:
                k += 1
                who = p
        if k == 1:
            award_coins(s, who, second)


@kernel
def resolve_event(s, e):
    """3.4: one Event card.  In 2 players the EE is affected like a player and comes after
    both in the order of choices; the first player chooses for it (D29)."""
    n = n_colours(s)
    kind = event_field(s, e, E_KIND)
    a0 = event_field(s, e, E_A0)
    a1 = event_field(s, e, E_A0 + 1)
    a2 = event_field(s, e, E_A0 + 2)
    a3 = event_field(s, e, E_A0 + 3)
    order = s[SC_ORDER + OR_EVENT * (MAXP + 1) : SC_ORDER + (OR_EVENT + 1) * (MAXP + 1)]
    colour_order(s, s[G_FIRST], order)
    rolled = s[SC_ROLLED : SC_ROLLED + 4]
    touch_all(s)  # an event may change any province
    if kind == EK_ROLL_EACH_REMOVE:
        roll_distinct(s, a0, rolled)
        for i in range(a0):
            for p in range(n):
                remove_n(s, p, rolled[i], a1, a2)
    elif kind == EK_COIN_MAJORITY:
        counts = s[SC_COUNTS : SC_COUNTS + MAXP + 1]
        for p in range(MAXP + 1):
            counts[p] = 0
        for p in range(n):
            for q in range(N_PROV):
                if in_set(s, q, a1):
                    counts[p] += s[ti(p, q, a0)]
        coin_majority(s, counts, a2, a3)
    elif kind == EK_MARK:
        roll_distinct(s, a1, rolled)
        for i in range(a1):
            s[MARK + rolled[i]] |= a0
    elif kind == EK_ROLL_HALVE or kind == EK_ROLL_WIPE:
        roll_distinct(s, a0, rolled)
        for i in range(a0):
            q = rolled[i]
            for p in range(n):
                for t in range(2):
                    if kind == EK_ROLL_WIPE:
                        s[ti(p, q, t)] = 0
                    else:
                        h = s[ti(p, q, t)]
                        s[ti(p, q, t)] = h - ((h + a1) // 2)
            if kind == EK_ROLL_WIPE and a1 == 1:
                s[STRUCT + q * 2] = 0
                s[STRUCT + q * 2 + 1] = 0
    elif kind == EK_SET_HALVE:
        for q in range(N_PROV):
            if (event_field(s, e, E_SET) >> q) & 1:
                for p in range(n):
                    for t in range(2):
                        h = s[ti(p, q, t)]
                        s[ti(p, q, t)] = h - ((h + a1) // 2)
    elif kind == EK_SET_REMOVE:
        for q in range(N_PROV):
            if in_set(s, q, a0):
                for p in range(n):
                    remove_n(s, p, q, a1, a2)
    elif kind == EK_REMOVE_ALL_STRUCTURES:
        for i in range(N_PROV * 2):
            s[STRUCT + i] = 0
    elif kind == EK_COIN_CONTROL:
        counts = s[SC_COUNTS : SC_COUNTS + MAXP + 1]
        for p in range(MAXP + 1):
            counts[p] = 0
        for q in range(N_PROV):
            for p in range(n):
                sole = True
                for t in range(2):
                    mine = s[ti(p, q, t)]
                    if mine <= 0:
                        sole = False
                    for v in range(n):
                        if v != p and s[ti(v, q, t)] >= mine:
                            sole = False
                if sole:
                    counts[p] += 1
        coin_majority(s, counts, a0, a1)
    elif kind == EK_ROLL_EACH_GAIN:
        roll_distinct(s, a0, rolled)
        for i in range(a0 - 1, -1, -1):
            q = rolled[i]
            for j in range(n - 1, -1, -1):
                p = order[j]
                if represented(s, p, q):
                    push_typed_gain(
                        s, p, q, event_field(s, e, E_A0 + 2), a1, GF_NO_BONUS | GF_NO_EXTRAS
                    )
    elif kind == EK_TOP_TAX:
        tops = s[SC_TOPS : SC_TOPS + MAXP + 1]
        k = most_tokens_players(s, tops)
        for j in range(n - 1, -1, -1):
            p = order[j]
            for i in range(k):
                if tops[i] == p:
                    push(s, TK_REMOVE_OWN, p, a0, -1, -1, -1, 0, 0)
    elif kind == EK_FAMINE:
        # one task per player: one token (a1 == 1, checked on load) from each province in the mask
        for j in range(n - 1, -1, -1):
            p = order[j]
            mask = 0
            for q in range(N_PROV):
                if s[ti(p, q, M)] + s[ti(p, q, P)] >= a0:
                    mask |= 1 << q
            if mask != 0:
                push(s, TK_REMOVE_OWN, p, bit_count(mask), -2, -1, -1, 0, mask)
