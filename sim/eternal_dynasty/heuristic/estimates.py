"""One-province estimates (plan item 6): the value of adding tokens of a colour to a
province, re-scoring that province alone (``estimate_at``); the best placements of the main
action, the shortlists of targets and removals, and the least bonus amount with the best
estimate.
"""

import numpy as np

from sim.core import argmax_masked, kernel, rng_below
from sim.eternal_dynasty.heuristic.board import (
    RK_FIRST,
    RK_PM,
    RK_PP,
    RK_SM,
    RK_SP,
    board_row,
    board_table,
    board_total,
    first_points,
    leader_strengths,
    points_of_strengths,
)
from sim.eternal_dynasty.heuristic.tries import best_gap
from sim.eternal_dynasty.layout import (
    A_NUM,
    A_PQ,
    A_PROV,
    F_BM,
    F_BP,
    F_COINS,
    F_SCORE,
    K_COIN,
    K_FIRST,
    K_FORTRESS,
    K_SECOND,
    K_TIE2,
    MARK,
    MK_SACRED,
    N_NUM,
    N_PROV,
    STRUCT,
    T_M,
    T_P,
    M,
    P,
)
from sim.eternal_dynasty.rules import capped_tokens, dconst, n_colours, pb, rank_strengths


@kernel
def shortlist_placements(
    c, p, keep, k, both_pools, table, base, now, after, sums, fst, strengths, sv, cand, rng
):
    """Keep in ``keep`` the ``k`` placements (``A_PQ`` actions) of the main action with the
    best one-province estimate (:func:`estimate_placements`, ``both_pools`` as there) and
    clear the others (ties broken at random with ``rng``); what else a gain may do (extra
    tokens from abilities, taxes, the turn's or round's end) is left to the tries of the
    shortlisted placements.  ``c``: the state (read only); ``now``, ``after``, ``sums``,
    ``sv`` and ``cand`` are scratch."""
    count = 0
    for a in range(A_PQ, A_PROV):
        count += keep[a]
    if count <= k:
        return
    estimate_placements(c, p, keep, both_pools, table, base, now, after, sums, fst, strengths, sv)
    keep_best(keep, A_PQ, A_PROV, k, sv, cand, rng)


@kernel
def best_placement(c, p, keep, table, base, now, after, sums, fst, ranks, rng):
    """:func:`shortlist_placements` with ``k`` 1 and the type's own pool (plan item 6): keep
    in ``keep`` only the placement with the best estimate (ties broken at random with ``rng``
    as :func:`keep_best` breaks them).  A placement whose :func:`placement_bound` is below the
    best estimate before it is not estimated: it would neither lead nor tie there, so the
    choice and the draws from ``rng`` are those of estimating every placement."""
    count = 0
    for a in range(A_PQ, A_PROV):
        count += keep[a]
    if count <= 1:
        return
    n = n_colours(c)
    mm, mp, pm, pp = placement_tokens(c, p, False)
    scores_now(c, n, base, now)
    best = -np.inf
    count = 0
    choice = -1
    for a in range(A_PQ, A_PROV):
        if not keep[a]:
            continue
        q = (a - A_PQ) // 2
        dm, dp = (mm, mp) if (a - A_PQ) % 2 == M else (pm, pp)
        if (dm == 0 or dp == 0) and placement_bound(c, p, n, q, dm, dp, table, now, ranks) < best:
            continue
        v = estimate_at(c, p, p, n, q, dm, dp, table, now, after, sums, fst, ranks)
        if v > best:
            best = v
            count = 1
            choice = a
        elif v == best:
            count += 1
            if rng_below(rng, 0, count) == 0:
                choice = a
    for a in range(A_PQ, A_PROV):
        keep[a] = a == choice


@kernel(inline=True)
def placement_bound(c, p, n, q, dm, dp, table, now, ranks):
    """An upper bound of :func:`estimate_at` for ``p``'s own ``dm`` Military and ``dp``
    Political tokens added to province ``q``, one of them 0 (one type ``t`` re-ranked): the
    other type's points and Structure stay; in type ``t`` ``p`` gets at most the best of the
    ranking's points, ``t``'s Structure, the Coin (when first in the other type) and the
    Sacred Mountain's point (the second's points and that point when it stays below another
    colour's strength), every other colour at least the least of them.  Sound for any
    scoring values (tests/test_eternal_dynasty_agents.py)."""
    rk = ranks[q]
    t = M if dp == 0 else P
    u = 1 - t
    kf = dconst(c, K_FIRST)
    ks = dconst(c, K_SECOND)
    k2 = dconst(c, K_TIE2)
    kc = dconst(c, K_COIN)
    kst = dconst(c, K_FORTRESS + t) if c[STRUCT + q * 2 + t] > 0 else 0
    ksu = dconst(c, K_FORTRESS + u) if c[STRUCT + q * 2 + u] > 0 else 0
    fu = rk[RK_FIRST, u]
    sacred = 1 if c[MARK + q] & MK_SACRED else 0
    mine = rk[RK_SM + t, p] + 2 * (dm + dp)
    above = False
    theirs = -1e9
    low = min(0, kf, ks, k2) + min(0, kst)
    for o in range(n):
        if o == p:
            continue
        above |= rk[RK_SM + t, o] > mine
        v = now[o] - table[q, o] + rk[RK_PM + u, o] + low
        if fu == o:  # first in the other type: its Structure stays, the Coin may go
            v += ksu + min(0, kc)
        if v > theirs:
            theirs = v
    if above:  # no first in t: no t Structure, no Coin
        high = max(0, ks) + sacred
    else:
        high = max(0, kf, ks, k2) + max(0, kst) + sacred
        if fu == p:
            high += max(0, kc)
    return now[p] - table[q, p] + rk[RK_PM + u, p] + (ksu if fu == p else 0) + high - theirs


@kernel
def keep_best(keep, lo, hi, k, sv, cand, rng):
    """Keep set in ``keep[lo:hi]`` only the ``k`` actions with the largest ``sv`` (ties broken
    at random with ``rng``, as the tries' are; the kept are marked 1e18 in ``sv``); ``cand``
    is scratch."""
    for a in range(cand.shape[0]):
        cand[a] = keep[a] and lo <= a < hi
    for _ in range(k):
        j = argmax_masked(sv, cand, rng, 0)
        cand[j] = False
        sv[j] = 1e18
    for a in range(lo, hi):
        keep[a] = keep[a] and sv[a] == 1e18


@kernel
def scores_now(c, n, base, now):
    """``now[o]``: the provisional score of colour ``o`` with the board points ``base``."""
    for o in range(n):
        now[o] = c[pb(o) + F_SCORE] + c[pb(o) + F_COINS] + base[o]


@kernel(inline=True)  # into the estimates' loops: a call would pass its seven arrays as structs
def estimate_at(c, p, g, n, q, dm, dp, table, now, after, sums, fst, ranks):
    """The gap of ``p`` (:func:`best_gap`) after ``dm`` Military and ``dp`` Political tokens of
    colour ``g`` are added to province ``q`` and ``q`` alone is re-scored from its rankings in
    ``ranks`` (:func:`board_table`; a token adds 2 to its type's doubled strength, and a type
    whose tokens do not change keeps its ranking); ``now``: the scores of :func:`scores_now`."""
    province_after(c, g, n, q, dm, dp, sums, fst, ranks)
    for o in range(n):
        after[o] = now[o] - table[q, o] + sums[o]
    return best_gap(c, p, after)


@kernel(inline=True)
def province_after(c, g, n, q, dm, dp, sums, fst, ranks):
    """``sums[:n]``: the points province ``q`` gives each colour once ``dm`` Military and ``dp``
    Political tokens of colour ``g`` are added, re-scored from its rankings in ``ranks``
    (:func:`estimate_at`); ``fst``: three rows of scratch."""
    rk = ranks[q]
    if dp == 0 or dm == 0:  # one type re-ranked, the other's ranking kept
        sacred = c[MARK + q] & MK_SACRED
        both = fst[2]
        if sacred:
            for o in range(n):
                both[o] = (rk[RK_SM, o] + rk[RK_SP, o]) // 2
            both[g] = (rk[RK_SM, g] + 2 * dm + rk[RK_SP, g] + 2 * dp) // 2
        t = M if dp == 0 else P
        st = fst[0]
        for o in range(n):
            st[o] = rk[RK_SM + t, o]
            sums[o] = rk[RK_PP - t, o]
        st[g] += 2 * (dm + dp)
        first = rank_strengths(c, q, n, st, sums)
        if t == M:
            first_points(c, q, n, first, rk[RK_FIRST, P], sacred, both, sums)
        else:
            first_points(c, q, n, rk[RK_FIRST, M], first, sacred, both, sums)
    else:
        for o in range(n):
            fst[0, o] = rk[RK_SM, o]
            fst[1, o] = rk[RK_SP, o]
        fst[0, g] += 2 * dm
        fst[1, g] += 2 * dp
        points_of_strengths(c, q, n, fst, sums)


@kernel(inline=True)
def placement_tokens(c, p, both_pools):
    """The Military and Political tokens a placement of ``p`` adds with its gain, as
    ``rules.add_tokens`` adds them (``rules.capped_tokens``): for a Military placement, then
    for a Political one; with its own type's whole bonus pool, or (``both_pools``) both."""
    b = pb(p)
    bm = min(c[b + F_BM], N_NUM - 1)
    bp = min(c[b + F_BP], N_NUM - 1)
    mm, mp = capped_tokens(c, p, 1, 0, bm, bp if both_pools else 0)
    pm, pp = capped_tokens(c, p, 0, 1, bm if both_pools else 0, bp)
    return mm, mp, pm, pp


@kernel
def estimate_placements(c, p, keep, both_pools, table, base, now, after, sums, fst, strengths, sv):
    """``sv[a]``: the one-province estimate of each placement ``a`` (an ``A_PQ`` action) set
    in ``keep``: :func:`estimate_at` with the token and the whole bonus pool of its type added
    as ``rules.add_tokens`` adds them (``rules.capped_tokens``; ``both_pools``: both types'
    pools, the shortlist's estimate).  ``c``: the state (read only); ``table``,
    ``strengths`` and ``base`` are of :func:`board_table` and :func:`board_total`; ``now``,
    ``after``, ``sums`` and ``fst`` are scratch."""
    n = n_colours(c)
    mm, mp, pm, pp = placement_tokens(c, p, both_pools)
    scores_now(c, n, base, now)
    for a in range(A_PQ, A_PROV):
        if not keep[a]:
            continue
        q = (a - A_PQ) // 2
        if (a - A_PQ) % 2 == M:
            sv[a] = estimate_at(c, p, p, n, q, mm, mp, table, now, after, sums, fst, strengths)
        else:
            sv[a] = estimate_at(c, p, p, n, q, pm, pp, table, now, after, sums, fst, strengths)


@kernel
def estimate_targets(c, p, o, keep, table, base, now, after, sums, fst, strengths, sv):
    """``sv[A_PROV + q]``: the estimate for ``p`` of each target province ``q`` set in ``keep``
    of the gain task at ``o`` (``TK_TARGET``; its colour may be another's, the Emperor's):
    :func:`estimate_at` with its tokens and the whole bonus pool of their type; tokens of
    either type: the better of all Military and all Political."""
    n = n_colours(c)
    g = c[o + 1]
    b = pb(g)
    typ = c[o + 3]
    nn = c[o + 4]
    m1, p1 = capped_tokens(c, g, nn, 0, min(c[b + F_BM], N_NUM - 1), 0)
    m2, p2 = capped_tokens(c, g, 0, nn, 0, min(c[b + F_BP], N_NUM - 1))
    scores_now(c, n, base, now)
    for q in range(N_PROV):
        if not keep[A_PROV + q]:
            continue
        v = -1e18
        if typ != T_P:
            v = max(v, estimate_at(c, p, g, n, q, m1, p1, table, now, after, sums, fst, strengths))
        if typ != T_M:
            v = max(v, estimate_at(c, p, g, n, q, m2, p2, table, now, after, sums, fst, strengths))
        sv[A_PROV + q] = v


@kernel
def estimate_removals(c, p, o, keep, table, base, now, after, sums, fst, strengths, sv):
    """``sv[a]``: the estimate for ``p`` of each removal ``a`` (an ``A_PQ`` action: a token of
    type ``t`` in ``q``) set in ``keep`` of the task at ``o`` (``TK_REMOVE_OWN``; its colour may
    be another's): :func:`estimate_at` with that one token taken away."""
    n = n_colours(c)
    g = c[o + 1]
    scores_now(c, n, base, now)
    for a in range(A_PQ, A_PROV):
        if keep[a]:
            q = (a - A_PQ) // 2
            if (a - A_PQ) % 2 == M:
                sv[a] = estimate_at(c, p, g, n, q, -1, 0, table, now, after, sums, fst, strengths)
            else:
                sv[a] = estimate_at(c, p, g, n, q, 0, -1, table, now, after, sums, fst, strengths)


@kernel
def least_best_bonus(c, p, o, keep, table, base, now, after, sums, fst, ls, ranks):
    """The bonus amount to add in the gain task at ``o`` (``TK_GAIN`` at stage 3, Military, or
    4, Political; its colour ``g``): the least legal amount in ``keep`` whose estimate for
    ``p`` (:func:`estimate_at`: the gain's tokens with that amount, in its province) is the
    best, so that what adds nothing stays in the pool.  When the amounts change the
    province's points of no colour but ``p``'s (the usual case), the estimates differ by
    those alone and the rest of the board is not scored; otherwise :func:`board_table` is
    filled (``ls``: scratch for the Leader strengths) and the estimates compared."""
    n = n_colours(c)
    g = c[o + 1]
    q = c[o + 2]
    leader_strengths(c, ls)
    board_row(c, q, n, table, fst, ls, ranks)
    most = -(1 << 62)
    choice = -1
    others_change = False
    for a in range(A_NUM, A_NUM + N_NUM):
        if not keep[a]:
            continue
        dm, dp = bonus_tokens(c, o, g, a - A_NUM)
        province_after(c, g, n, q, dm, dp, sums, fst, ranks)
        if choice < 0:  # the least legal amount: the others' points are compared with its (in now)
            for r in range(n):
                now[r] = sums[r]
        for r in range(n):
            others_change |= r != p and sums[r] != now[r]
        if others_change:  # the board is needed
            break
        if sums[p] > most:
            most = sums[p]
            choice = a
    if not others_change:
        return choice
    board_table(c, table, fst, ls, ranks)
    board_total(c, table, base)
    scores_now(c, n, base, now)
    best = -1e18
    choice = -1
    for a in range(A_NUM, A_NUM + N_NUM):
        if not keep[a]:
            continue
        dm, dp = bonus_tokens(c, o, g, a - A_NUM)
        v = estimate_at(c, p, g, n, q, dm, dp, table, now, after, sums, fst, ranks)
        if v > best:
            best = v
            choice = a
    return choice


@kernel(inline=True)
def bonus_tokens(c, o, g, k):
    """The tokens the gain task at ``o`` (colour ``g``, stage 3 or 4) adds with a bonus amount
    ``k`` of the type it asks (``rules.capped_tokens``)."""
    m = c[o + 3]
    pp = c[o + 4]
    if (c[o + 6] >> 4) == 3:
        return capped_tokens(c, g, m, pp, k, 0)
    bm = (c[o + 7] >> 8) & 255
    return capped_tokens(c, g, m - bm, pp, bm, k)
