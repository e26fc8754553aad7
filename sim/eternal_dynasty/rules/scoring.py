"""Coins and scoring (spec 7): the Coin bag, awards, province rankings and points,
the Generation's scoring, the end of the game and its tie-break.
"""

from sim.core import kernel
from sim.eternal_dynasty.layout import (
    AB_SCORE_PER_REP,
    AB_WIN_TIES,
    ADJ,
    CD_AWARD,
    CD_REVEAL,
    F_COIN_VALUE,
    F_COINS,
    F_GEN_COINS,
    F_GEN_PTS,
    F_HOME,
    F_PTS_COINCONV,
    F_PTS_MAJORITY,
    F_PTS_PROV,
    F_PTS_RULER,
    F_PTS_STRUCT,
    F_RULER,
    F_SCORE,
    FORTRESS,
    G_BAG0,
    G_BAG1,
    G_BAG2,
    G_FINAL_FIRST,
    G_GEN,
    G_OVER,
    G_PHASE,
    K_BAG0,
    K_BAG1,
    K_BAG2,
    K_COIN,
    K_FIRST,
    K_FORTRESS,
    K_PALACE,
    K_SECOND,
    K_TIE2,
    MARK,
    MAXP,
    MK_SACRED,
    N_PROV,
    NCOL,
    O_COIN_DRAW,
    O_COINS,
    PALACE,
    PH_OVER,
    QUAR,
    SC_SCORE,
    SC_STRENGTH,
    SNAP_BOARD,
    SNAP_RULERS,
    STRUCT,
    TOK,
    M,
    P,
)
from sim.eternal_dynasty.rules.decks import chance
from sim.eternal_dynasty.rules.helpers import (
    ab_arg,
    ability,
    dconst,
    n_colours,
    n_players,
    pb,
    represented,
    strength,
    tokens_total,
)


@kernel
def coins_out(s):
    t = 0
    for p in range(n_colours(s)):
        t += s[pb(p) + F_COINS]
    return t


@kernel
def bag_size(s):
    """Coins in the bag at the start (spec 4.2 step 6)."""
    return dconst(s, K_BAG0) + dconst(s, K_BAG1) + dconst(s, K_BAG2)


@kernel
def draw_coin_value(s):
    """Draw one Coin from the bag (G_BAG0..2: what is left of each value), without
    replacement (7.3); its value."""
    r = chance(s, s[G_BAG0] + s[G_BAG1] + s[G_BAG2])
    if r < s[G_BAG0]:
        s[G_BAG0] -= 1
        return 0
    if r < s[G_BAG0] + s[G_BAG1]:
        s[G_BAG1] -= 1
        return 1
    s[G_BAG2] -= 1
    return 2


@kernel
def award_coins(s, p, k):
    """A Coin award (spec 7.3): face down from the bag; 1 point each with coins off or an empty
    bag (D27).  Its value is drawn now (D47, ``coin_draw = at_award``) or at the final reveal
    (``at_reveal``); either way nobody sees it before the reveal."""
    for _ in range(k):
        if s[O_COINS] == 0 and coins_out(s) < bag_size(s):
            s[pb(p) + F_COINS] += 1
            if s[O_COIN_DRAW] == CD_AWARD:
                s[pb(p) + F_COIN_VALUE] += draw_coin_value(s)
        else:
            s[pb(p) + F_SCORE] += 1
            s[pb(p) + F_PTS_COINCONV] += 1


@kernel
def rank_type(s, q, t, pts, st):
    """Spec 7.1 for one type in one province: add the points, return the sole first (-1 none).
    The Eternal Emperor ranks like a player (spec 8).  ``st``: work space (MAXP + 1 ints) for
    the strengths, doubled so that Cao's winning of a tie is a whole step."""
    n = n_colours(s)
    for p in range(n):
        st[p] = 2 * strength(s, p, q, t)
    return rank_strengths(s, q, n, st, pts)


@kernel(inline=True)
def rank_strengths(s, q, n, st, pts):
    """The ranking of :func:`rank_type` in province ``q`` on the doubled strengths ``st[:n]``,
    already filled in (Cao's win of a tie raises his by one): add the points, return the sole
    first (-1 none)."""
    best = 0  # one pass: the best, how many hold it, the last to hold it, and the best below it
    tied = 0
    first = -1
    second = 0
    for p in range(n):
        v = st[p]
        if v > best:
            second = best
            best = v
            tied = 1
            first = p
        elif v == best:
            tied += 1
        elif v > second:
            second = v
    if best <= 0:
        return -1
    if tied >= 2:
        # Cao the Ambitious: wins a tie for first in his home and its neighbours
        for p in range(n):
            if st[p] == best and ability(s, p) == AB_WIN_TIES:
                h = s[pb(p) + F_HOME]
                if h == q or s[ADJ + h * N_PROV + q] == 1:
                    second = best  # the others he tied are second
                    st[p] += 1
                    best += 1
                    tied = 1
                    first = p
                    break
    if tied == 2:
        for p in range(n):
            if st[p] == best:
                pts[p] += dconst(s, K_TIE2)
        return -1
    if tied >= 3:
        return -1
    pts[first] += dconst(s, K_FIRST)
    if second > 0:
        k = 0
        who = -1
        for p in range(n):
            if p != first and st[p] == second:
                k += 1
                who = p
        if k == 1:
            pts[who] += dconst(s, K_SECOND)
    return first


@kernel
def score_province(s, q, pts, spts, coin, st):
    """Majority points (``pts``), Structure points (``spts``) and Coin awards (``coin``)
    of province q (spec 7.1).  Returns who gets the Coins, in the order D47 draws them:
    ``(control + 1) | (sacred + 1) << 4``, the colour with both firsts (control Coin) and the
    sole strongest on a Sacred Mountain, each -1 for none.  ``st``: work space (MAXP + 1
    ints)."""
    ctrl = -1
    sacred = -1
    fm = rank_type(s, q, M, pts, st)
    fp = rank_type(s, q, P, pts, st)
    if s[STRUCT + q * 2 + FORTRESS] > 0 and fm >= 0:
        spts[fm] += dconst(s, K_FORTRESS)
    if s[STRUCT + q * 2 + PALACE] > 0 and fp >= 0:
        spts[fp] += dconst(s, K_PALACE)
    if fm >= 0 and fm == fp:
        coin[fm] += dconst(s, K_COIN)
        ctrl = fm
    if s[MARK + q] & MK_SACRED:
        n = n_colours(s)
        best = 0
        k = 0
        who = -1
        for p in range(n):
            v = strength(s, p, q, M) + strength(s, p, q, P)
            if v > best:
                best = v
                k = 1
                who = p
            elif v == best and v > 0:
                k += 1
        if k == 1:
            coin[who] += 1
            sacred = who
    return (ctrl + 1) | ((sacred + 1) << 4)


@kernel
def score_generation(s):
    n = n_colours(s)
    for i in range(ADJ - TOK):
        s[SNAP_BOARD + i] = s[TOK + i]
    for p in range(NCOL):
        s[SNAP_RULERS + p] = s[pb(p) + F_RULER] if p < n_players(s) else -1
    g = s[G_GEN] - 1
    before = s[SC_SCORE : SC_SCORE + MAXP + 1]
    cbefore = s[SC_SCORE + MAXP + 1 : SC_SCORE + 2 * (MAXP + 1)]
    pts = s[SC_SCORE + 2 * (MAXP + 1) : SC_SCORE + 3 * (MAXP + 1)]
    spts = s[SC_SCORE + 3 * (MAXP + 1) : SC_SCORE + 4 * (MAXP + 1)]
    coin = s[SC_SCORE + 4 * (MAXP + 1) : SC_SCORE + 5 * (MAXP + 1)]
    st = s[SC_STRENGTH : SC_STRENGTH + MAXP + 1]
    for p in range(n):
        before[p] = s[pb(p) + F_SCORE] - s[pb(p) + F_PTS_COINCONV]
        cbefore[p] = s[pb(p) + F_COINS] + s[pb(p) + F_PTS_COINCONV]
    for q in range(N_PROV):
        if s[QUAR + q] == 1:
            continue
        for p in range(MAXP + 1):
            pts[p] = 0
            spts[p] = 0
            coin[p] = 0
        who = score_province(s, q, pts, spts, coin, st)
        for p in range(n):
            s[pb(p) + F_SCORE] += pts[p] + spts[p]
            s[pb(p) + F_PTS_PROV + q] += pts[p] + spts[p]
            s[pb(p) + F_PTS_MAJORITY] += pts[p]
            s[pb(p) + F_PTS_STRUCT] += spts[p]
        # D47: province by province, the control Coin before a Sacred Mountain Coin
        if (who & 15) > 0:
            award_coins(s, (who & 15) - 1, dconst(s, K_COIN))
        if (who >> 4) > 0:
            award_coins(s, (who >> 4) - 1, 1)
    for p in range(n):
        if ability(s, p) == AB_SCORE_PER_REP:
            k = 0
            for q in range(N_PROV):
                if represented(s, p, q):
                    k += 1
            v = k // ab_arg(s, p, 0)
            s[pb(p) + F_SCORE] += v
            s[pb(p) + F_PTS_RULER] += v
    for p in range(n):
        s[pb(p) + F_GEN_PTS + g] = s[pb(p) + F_SCORE] - s[pb(p) + F_PTS_COINCONV] - before[p]
        s[pb(p) + F_GEN_COINS + g] = s[pb(p) + F_COINS] + s[pb(p) + F_PTS_COINCONV] - cbefore[p]


@kernel
def end_game(s):
    """7.4: reveal Coins.  Their values were drawn at each award (D47); with ``coin_draw =
    at_reveal`` they are drawn now, without replacement (7.3 allows it), seat by seat from
    seat 0, the Eternal Emperor last."""
    if s[O_COIN_DRAW] == CD_REVEAL:
        for p in range(n_colours(s)):
            v = 0
            for _ in range(s[pb(p) + F_COINS]):
                v += draw_coin_value(s)
            s[pb(p) + F_COIN_VALUE] = v
    s[G_PHASE] = PH_OVER
    s[G_OVER] = 1


@kernel
def final_score(s, p):
    return s[pb(p) + F_SCORE] + s[pb(p) + F_COIN_VALUE]


@kernel
def tiebreak_key(s, p):
    """7.4: Coins held, then tokens on the board, then earlier in the final Generation's order;
    the Eternal Emperor counts as after both players (D28)."""
    n = n_players(s)
    pos = n if p >= n else (p - s[G_FINAL_FIRST]) % n
    return (s[pb(p) + F_COINS] * 1000 + tokens_total(s, p)) * 8 + (7 - pos)
