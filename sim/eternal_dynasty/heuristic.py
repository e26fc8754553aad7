"""Eternal Dynasty heuristic: a documented plan over public information and the own hand.

Plan (docs/games/eternal_dynasty.md, "Heuristic"):

1. **Ruler choice**: the Ruler with the largest bonus pool plus keep count, plus half a
   point for every own token already in its Home Province and the provinces next to it
   (the Home Province is always a legal target, so a Home near the own Influence widens
   the reach).
2. **Keep**: discard the cards of the lowest fixed priority (Structures, Leaders and
   two-token gains first, removals last).
3. **Votes**: call the first Vote card that gives every player a gain or a card (it helps
   the caller no less than anyone) from round 2 on; vote Aye on one's own Vote and on
   those, Nay otherwise; spend no extra Vote cards.
4. **2 players**: bid a quarter of one's Dynasty Influence, rounded up, with every Aye/Nay
   (the bid winner decides the Emperor's vote and choices; a quarter keeps DI for later
   Votes and for naming the Emperor in an Alliance); the bid winner declares the Emperor's
   vote the same as its own pick.
5. **Everything else** (the action, card targets, types, bonus amounts): one-ply greedy.
   Each legal choice is tried on a copy, the rest of the same effect is completed with a
   fixed default (the largest legal action, so bonus is spent in full), and the choice
   that maximises own provisional score minus the best opponent's is taken (ties at
   random).  Provisional score: points so far, Coins at 1 each, and the board scored as
   if the Generation ended now.  Passing scores 0 change, so a useless card is not played.
   The Eternal Emperor counts as an opponent (its win is a loss), and the Emperor's own
   choices (its share of a Vote or an Alliance, its removals) are made the same way by the
   seat deciding for it, to that seat's advantage.  Dong's optional start-of-turn gain is
   always taken (only its type is chosen greedily), also when completing an effect.
6. **Estimates instead of most tries** (the contract's :func:`heuristic`, policy
   ``ESTIMATED``).  The one-province estimate of adding tokens of a colour to a province
   re-scores that province alone (:func:`estimate_at`).  In the main action every card is
   tried, passing is valued as no change, and only the placement with the best estimate
   (its token and its type's whole bonus pool) is tried.  A card's target province and a
   removal of one's own token: the ``SHORTLIST`` best by their estimate are tried, and
   outside the scoring phases (where the provisional score leaves the board out, so tries
   tie) the best estimate is taken.  A bonus amount: the least with the best estimate, so
   what adds nothing stays in the pool for a later gain (and, in 2 players, becomes Dynasty
   Influence at the Generation's end).
   :func:`shortlisted` (the main action's ``SHORTLIST`` best placements tried, everything
   else searched) and :func:`exhaustive` (every legal choice tried) are the earlier
   policies, kept as user kernels.
"""

import numba as nb
import numpy as np

from sim.core import (
    kernel,
    H_CURRENT,
    H_NPLAYERS,
    argmax_masked,
    lowest_bit,
    random_legal,
    rng_below,
)
from sim.eternal_dynasty.layout import *  # noqa: F401,F403
from sim.eternal_dynasty.rules import (
    TK_ACTION,
    TK_AYENAY,
    TK_BID,
    TK_DISCARD,
    TK_DONG,
    TK_DRAFT,
    TK_EE_VOTE,
    TK_EXTRA,
    TK_FREE,
    TK_GAIN,
    TK_RULER,
    TK_TARGET,
    TK_REMOVE_OWN,
    TK_VOTECALL,
    apply,
    capped_tokens,
    dconst,
    dyn_field,
    leader_strength,
    legal_mask,
    n_colours,
    pb,
    provisional_into,
    rank_strengths,
    ruler_field,
    target_candidates,
    ti,
    top,
    vote_field,
)

# Keep priority per Dynasty effect kind (layout.DK_*): higher is kept.
KEEP_PRIORITY = np.array([4, 5, 3, 3, 1, 3, 3, 2, 1, 2], np.float64)


@nb.njit(cache=True)
def margin(s, p):
    """Own provisional score minus the best other colour's (the Eternal Emperor included)."""
    v = np.zeros(MAXP + 1, np.float64)
    work = np.zeros((4, MAXP + 1), np.int32)
    provisional_into(s, v, work[0], work[1], work[2], work[3])
    return best_gap(s, p, v)


@kernel(inline=True)
def best_gap(s, p, v):
    best = -1e9
    for o in range(n_colours(s)):  # the Eternal Emperor included
        if o != p and v[o] > best:
            best = v[o]
    return v[p] - best


@kernel(inline=True)
def play_try(c, p, a, m2):
    """Try ``a`` for ``p`` in the work copy ``c``: clear its ``SC_DIRTY`` (the provinces the
    try changes, for :func:`value_of_try`), apply ``a`` and complete the effect with
    :func:`default_choice` (``m2``: scratch) until another seat moves."""
    c[SC_DIRTY] = 0
    apply(c, a)
    steps = 0
    while c[H_CURRENT] == p and steps < 12 and completes_effect(c[top(c)]):
        apply(c, default_choice(c, m2))
        steps += 1


@kernel(inline=True)
def completes_effect(kind):
    return (
        kind != TK_ACTION
        and kind != TK_VOTECALL
        and kind != TK_FREE
        and kind != TK_RULER
        and kind != TK_DRAFT
        and kind != TK_DISCARD
        and kind != TK_AYENAY
        and kind != TK_EXTRA
        and kind != TK_BID
        and kind != TK_EE_VOTE
    )


# ---------------------------------------------------------------------------- the one-ply search
#
# Each legal choice is tried on one work copy of the state, restored between tries, and
# valued by the provisional scores; a province whose board the try left unchanged keeps the
# points it had before the try.  The values are those of trying each choice on a fresh copy
# and scoring the whole board, so the choices and tie-breaks are unchanged (docs/performance.md,
# issue 15).

# Words a lookahead never needs restored: the option codes and component data, the province
# adjacency (ADJ and ADJB), quarantine and the card types (set at setup only), SNAP (written by the scoring,
# read by no kernel), the chance log (appended past its length; entries below it are never
# overwritten) and the task stack above the current top (pushes write whole tasks).
SCORING_PHASE_A = PH_TURNS
SCORING_PHASE_B = PH_AFTER_KEEP


@kernel
def restore(c, s):
    """Make the work copy ``c`` (made by :func:`lookahead_copy`) equal to ``s`` again in every
    word a kernel can read after ``apply`` changed it.  The token, Leader and player blocks of
    the colours not in play stay as they are: no kernel writes them."""
    n = n_colours(s)
    for i in range(DATA):
        c[i] = s[i]
    for i in range(DATA + DATA_SIZE, TOK + n * N_PROV * 2):  # game scalars, bans, tokens
        c[i] = s[i]
    for i in range(LEAD, LEAD + n * N_PROV * 2):  # leaders
        c[i] = s[i]
    for i in range(STRUCT, QUAR):  # structures, marks
        c[i] = s[i]
    for i in range(DYN_LOC, VOTE_TYPE):  # Dynasty and Ruler locations and decks
        c[i] = s[i]
    for i in range(VOTE_LOC, STACK + s[G_SP] * TASK_SIZE):  # the other decks, knowledge, the stack
        c[i] = s[i]
    for i in range(PL, PL + n * PS):  # players
        c[i] = s[i]


@kernel
def lookahead_copy(c, s):
    """Copy into ``c`` what the kernels read of ``s``: everything but SNAP and the chance
    log, except its entries still to be replayed (a state made from a list of outcomes), and
    the adjacency bit sets (ADJB, set at setup only)."""
    for i in range(SNAP_BOARD):
        c[i] = s[i]
    for i in range(ADJB, ADJB + N_PROV):
        c[i] = s[i]
    for i in range(LOG + s[G_LOG_PTR], LOG + s[G_LOG_LEN]):  # entries still to be replayed
        c[i] = s[i]


@kernel
def leader_strengths(s, ls):
    """``ls[k, p]``: the strength a Leader of kind ``k`` gives colour ``p`` (its Ruler's)."""
    for p in range(n_colours(s)):
        ls[GENERAL, p] = leader_strength(s, p, GENERAL)
        ls[MAGISTRATE, p] = leader_strength(s, p, MAGISTRATE)


@kernel
def province_points_fast(s, q, tot, st, ls):
    """``rules.score_province``'s points, Structure points and Coins of province ``q``
    summed per colour into ``tot``, with the Leader strengths ``ls`` of :func:`leader_strengths` (the same Rulers):
    the strengths of each colour are read once for both types and the Sacred Mountain."""
    n = n_colours(s)
    province_strengths(s, q, n, ls, st[0], st[1])
    points_of_strengths(s, q, n, st, tot)


@kernel(inline=True)
def province_strengths(s, q, n, ls, sm, sp):
    """The doubled Military (``sm``) and Political (``sp``) strengths of colours below ``n``
    in province ``q``: tokens plus the Leader strengths ``ls``."""
    for p in range(n):
        o = TOK + (p * N_PROV + q) * 2
        ld = LEAD + (p * N_PROV + q) * 2
        vm = s[o + M]
        if s[ld + GENERAL] > 0:
            vm += ls[GENERAL, p]
        vp = s[o + P]
        if s[ld + MAGISTRATE] > 0:
            vp += ls[MAGISTRATE, p]
        sm[p] = 2 * vm
        sp[p] = 2 * vp


# Rows of board_table's ``ranks[q]``: the doubled strengths of each type, the points of
# each type's ranking, and (M, P) each type's sole first (-1: none).
RK_SM, RK_SP, RK_PM, RK_PP, RK_FIRST = 0, 1, 2, 3, 4
RK_ROWS = 5
assert RK_ROWS == HC_ROWS  # the state's cached rankings (layout.HC_RANKS)


@kernel(inline=True)
def points_of_strengths(s, q, n, st, tot):
    """The points of :func:`province_points_fast` from the doubled strengths in ``st[0]``
    and ``st[1]`` (changed: a tie won by Cao adds one); ``st[2]`` is scratch."""
    for p in range(MAXP + 1):
        tot[p] = 0
    sm = st[0]
    sp = st[1]
    sacred = s[MARK + q] & MK_SACRED
    if sacred:  # the Sacred Mountain compares the strengths before any tie-break
        both = st[2]
        for p in range(n):
            both[p] = (sm[p] + sp[p]) // 2
    fm = rank_strengths(s, q, n, sm, tot)
    fp = rank_strengths(s, q, n, sp, tot)
    first_points(s, q, n, fm, fp, sacred, st[2], tot)


@kernel(inline=True)
def first_points(s, q, n, fm, fp, sacred, both, tot):
    """Add to ``tot`` what the sole firsts ``fm`` and ``fp`` (-1: none) get from Structures
    and the control Coin, and the Sacred Mountain's point (``sacred``: its mark; ``both``:
    the halved sums of the doubled strengths before any tie-break)."""
    if s[STRUCT + q * 2 + FORTRESS] > 0 and fm >= 0:
        tot[fm] += dconst(s, K_FORTRESS)
    if s[STRUCT + q * 2 + PALACE] > 0 and fp >= 0:
        tot[fp] += dconst(s, K_PALACE)
    if fm >= 0 and fm == fp:
        tot[fm] += dconst(s, K_COIN)
    if sacred:
        best = 0
        k = 0
        who = -1
        for p in range(n):
            v = both[p]
            if v > best:
                best = v
                k = 1
                who = p
            elif v == best and v > 0:
                k += 1
        if k == 1:
            tot[who] += 1


@kernel(inline=True)
def scored_now(s):
    return s[G_OVER] == 0 and (s[G_PHASE] == SCORING_PHASE_A or s[G_PHASE] == SCORING_PHASE_B)


@kernel
def board_table(s, table, st, ls, ranks):
    """``table[q]``: the points province ``q`` gives each colour (quarantined: none), and in
    ``ranks[q]`` (``RK_SM`` ...) its doubled strengths (:func:`province_strengths`), the
    points of each type's ranking and each type's sole first (quarantined too)."""
    n = n_colours(s)
    for q in range(N_PROV):
        board_row(s, q, n, table, st, ls, ranks)


@kernel
def cached_board_table(s, table, st, ls, ranks):
    """:func:`board_table` of ``s`` (and :func:`leader_strengths` in ``ls``), with ``ranks``
    the state's own cached rankings (:func:`cached_ranks`): only the rows of the provinces whose
    tokens, Leaders, Structures, marks or quarantine differ from the board the cache last
    scored are computed, all of them when a colour's Ruler or Home differs or the state has
    no cache yet (layout.HC); the cache then holds this board."""
    n = n_colours(s)
    leader_strengths(s, ls)
    full = s[HC_VALID] != 1
    for p in range(n):
        full |= (
            s[HC_RULERS + 2 * p] != s[pb(p) + F_RULER]
            or s[HC_RULERS + 2 * p + 1] != s[pb(p) + F_HOME]
        )
    bits = (1 << N_PROV) - 1 if full else board_changes(s, n)
    hold = s[HC_TABLE : HC_TABLE + N_PROV * (MAXP + 1)]
    while bits != 0:
        q = lowest_bit(bits)
        bits &= bits - 1
        board_row(s, q, n, table, st, ls, ranks)
        for o in range(MAXP + 1):
            hold[q * (MAXP + 1) + o] = table[q, o]
        if not full:
            keep_board(s, q, n)
    if full:
        for i in range(BOARD_WORDS):
            s[HC_BOARD + i] = s[TOK + i]
        for p in range(n):
            s[HC_RULERS + 2 * p] = s[pb(p) + F_RULER]
            s[HC_RULERS + 2 * p + 1] = s[pb(p) + F_HOME]
        s[HC_VALID] = 1
    for q in range(N_PROV):
        for o in range(MAXP + 1):
            table[q, o] = hold[q * (MAXP + 1) + o]


@kernel(inline=True)
def cached_ranks(s):
    """The state's cached rankings (layout.HC_RANKS) as :func:`board_table`'s ``ranks``."""
    return s[HC_RANKS : HC_RANKS + N_PROV * RK_ROWS * (MAXP + 1)].reshape(N_PROV, RK_ROWS, MAXP + 1)


@kernel(inline=True)
def board_changes(s, n):
    """Bit q set when province ``q``'s board (colours below ``n``) differs from the cached
    one (layout.HC_BOARD).  Each colour's block is compared whole first: most decisions
    follow one or two colours' changes."""
    bits = 0
    d = HC_BOARD - TOK
    for p in range(n):
        t = TOK + p * N_PROV * 2
        ld = LEAD + p * N_PROV * 2
        acc = 0
        for i in range(N_PROV * 2):
            acc |= (s[t + i] ^ s[d + t + i]) | (s[ld + i] ^ s[d + ld + i])
        if acc != 0:
            for q in range(N_PROV):
                if (
                    s[t + q * 2] != s[d + t + q * 2]
                    or s[t + q * 2 + 1] != s[d + t + q * 2 + 1]
                    or s[ld + q * 2] != s[d + ld + q * 2]
                    or s[ld + q * 2 + 1] != s[d + ld + q * 2 + 1]
                ):
                    bits |= 1 << q
    acc = 0
    for i in range(STRUCT, QUAR + N_PROV):  # Structures, marks, quarantine
        acc |= s[i] ^ s[d + i]
    if acc != 0:
        for q in range(N_PROV):
            if (
                s[STRUCT + q * 2] != s[d + STRUCT + q * 2]
                or s[STRUCT + q * 2 + 1] != s[d + STRUCT + q * 2 + 1]
                or s[MARK + q] != s[d + MARK + q]
                or s[QUAR + q] != s[d + QUAR + q]
            ):
                bits |= 1 << q
    return bits


@kernel(inline=True)
def keep_board(s, q, n):
    """Copy province ``q``'s board (colours below ``n``) into the cache (layout.HC_BOARD)."""
    d = HC_BOARD - TOK
    for p in range(n):
        for i in (TOK + (p * N_PROV + q) * 2, LEAD + (p * N_PROV + q) * 2):
            s[d + i] = s[i]
            s[d + i + 1] = s[i + 1]
    for i in (STRUCT + q * 2, STRUCT + q * 2 + 1, MARK + q, QUAR + q):
        s[d + i] = s[i]


@kernel(inline=True)
def board_row(s, q, n, table, st, ls, ranks):
    """Row ``q`` of :func:`board_table` (colours below ``n``); ``st``: three rows of scratch."""
    rk = ranks[q]
    province_strengths(s, q, n, ls, rk[RK_SM], rk[RK_SP])
    for p in range(MAXP + 1):
        rk[RK_PM, p] = 0
        rk[RK_PP, p] = 0
    for p in range(n):
        st[0, p] = rk[RK_SM, p]
        st[1, p] = rk[RK_SP, p]
    sacred = s[MARK + q] & MK_SACRED
    if sacred:
        for p in range(n):
            st[2, p] = (st[0, p] + st[1, p]) // 2
    rk[RK_FIRST, M] = rank_strengths(s, q, n, st[0], rk[RK_PM])
    rk[RK_FIRST, P] = rank_strengths(s, q, n, st[1], rk[RK_PP])
    tot = table[q]
    quarantined = s[QUAR + q] != 0
    for p in range(MAXP + 1):
        tot[p] = 0 if quarantined else rk[RK_PM, p] + rk[RK_PP, p]
    if not quarantined:
        first_points(s, q, n, rk[RK_FIRST, M], rk[RK_FIRST, P], sacred, st[2], tot)


@kernel(inline=True)
def changed_provinces(c, s, n, cand):
    """Bit q set when province ``q``, one of the bits of ``cand`` (the provinces a try may
    have changed: the work copy's ``SC_DIRTY``, cleared before it; -1: any), holds other
    tokens, Leaders, Structures or marks in ``c`` than in ``s`` (colours below ``n``; the
    others hold none in either)."""
    bits = 0
    cand &= (1 << N_PROV) - 1
    while cand != 0:
        q = lowest_bit(cand)
        cand &= cand - 1
        same = (
            c[STRUCT + q * 2] == s[STRUCT + q * 2]
            and c[STRUCT + q * 2 + 1] == s[STRUCT + q * 2 + 1]
            and c[MARK + q] == s[MARK + q]
        )
        for p in range(n):
            t = TOK + (p * N_PROV + q) * 2
            ld = LEAD + (p * N_PROV + q) * 2
            same = (
                same
                and c[t] == s[t]
                and c[t + 1] == s[t + 1]
                and c[ld] == s[ld]
                and c[ld + 1] == s[ld + 1]
            )
        if not same:
            bits |= 1 << q
    return bits


@kernel(inline=True)
def same_rulers(c, s, n):
    for p in range(n):
        if c[pb(p) + F_RULER] != s[pb(p) + F_RULER] or c[pb(p) + F_HOME] != s[pb(p) + F_HOME]:
            return False
    return True


@kernel
def board_total(s, table, base):
    """``base[o]``: the board points of colour ``o`` summed over the provinces of ``table``."""
    for o in range(MAXP + 1):
        base[o] = 0
        for q in range(N_PROV):
            base[o] += table[q, o]


@kernel(inline=True)
def value_of_try(c, s, p, table, base, v, tot, work, st, fst, ls):
    """``margin(c, p)``, reusing ``table`` (the board points of ``s``, summed in ``base``) for
    the provinces the try left unchanged when both states are scored the same way (and with
    the same Rulers, so ``s``'s Leader strengths ``ls`` hold for ``c``).  ``c[SC_DIRTY]`` was
    cleared before the try (layout.SC_DIRTY)."""
    n = n_colours(c)
    if not (scored_now(s) and scored_now(c) and same_rulers(c, s, n)):
        provisional_into(c, v, work[0], work[1], work[2], st)
        return best_gap(c, p, v)
    for o in range(MAXP + 1):
        v[o] = 0.0
    sums = work[3]
    for o in range(n):
        tot[o] = base[o]
    bits = changed_provinces(c, s, n, c[SC_DIRTY])
    while bits != 0:
        q = lowest_bit(bits)
        bits &= bits - 1
        if c[QUAR + q] != 0:
            continue
        province_points_fast(c, q, sums, fst, ls)
        for o in range(n):
            tot[o] += sums[o] - table[q, o]
    for o in range(n):
        v[o] = c[pb(o) + F_SCORE] + c[pb(o) + F_COINS] + tot[o]
    return best_gap(c, p, v)


@kernel
def default_choice(c, m2):
    """The largest legal action of the decision in ``c`` (Dong's skip left out): how the rest
    of an effect is completed.  A bonus amount is read off the pool (the largest of
    :func:`legal_mask`'s ``A_NUM + 0..min(pool, N_NUM - 1)``; both types when a type is
    asked); any other decision takes ``legal_mask``."""
    o = top(c)
    kind = c[o]
    if kind == TK_GAIN:
        stage = c[o + 6] >> 4
        if stage == 0 or stage == 2:
            return A_TYPE + 1
        b = pb(c[o + 1])
        k = min(c[b + F_BM] if stage == 3 else c[b + F_BP], N_NUM - 1)
        return A_NUM + k if k >= 0 else -1
    if (
        kind == TK_TARGET
    ):  # legal_mask's A_PROV + q for each candidate q: the largest without filling the mask
        cands = target_candidates(c, o)
        for q in range(N_PROV - 1, -1, -1):
            if (cands >> q) & 1:
                return A_PROV + q
        return -1
    legal_mask(c, m2)
    if kind == TK_DONG:
        m2[A_SKIP] = False  # Dong's gain is taken (plan item 5)
    for b in range(m2.shape[0] - 1, -1, -1):
        if m2[b]:
            return b
    return -1


@kernel
def shortlist_placements(
    c, p, keep, k, both_pools, table, base, now, after, sums, fst, strengths, sv, cand, rng
):
    """Keep in ``keep`` the ``k`` placements (``A_PQ`` actions) of the main action with the
    best one-province estimate (:func:`estimate_placements`, ``both_pools`` as there) and
    clear the others (ties broken at random with ``rng``); what else a gain may do (extra
    tokens from abilities, taxes, the turn's or round's end) is left to the tries of the
    shortlisted placements.  ``c``: the state (read only); ``now``, ``after``, ``sums``, ``sv`` and ``cand`` are scratch."""
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
    pools, the shortlist's estimate).  ``c``: the state (read only); ``table``, ``strengths`` and ``base`` are of :func:`board_table` and
    :func:`board_total`; ``now``, ``after``, ``sums`` and ``fst`` are scratch."""
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


# The work space of one searched decision, one allocation (each costs about a quarter of a
# board table): int64 words of the board table, float64 values, int32 words of the work
# copy and its scratch, and the bytes of the masks.
LW_WORDS = (N_PROV + 4) * (MAXP + 1)
F_WORDS = NUM_ACTIONS + MAXP + 1
CW_EXTRA = (10 + RK_ROWS * N_PROV) * (MAXP + 1)
M_WORDS = (2 * NUM_ACTIONS + 7) // 8


@nb.njit(
    cache=True, inline="always"
)  # into plan: a compiled level less (docs/performance.md, cold start)
def greedy(s, p, mask, rng, policy):
    """One-ply greedy for the seat ``p`` to move (also when it decides for the Emperor), by
    ``policy`` (``EXHAUSTIVE``, ``SHORTLISTED`` or ``ESTIMATED``).  Allocates the work space;
    :func:`work_space_search` cuts it into its arrays and searches, in a kernel without
    reference counting (each view made here would cost two atomic operations)."""
    buf = np.empty(LW_WORDS + F_WORDS + cw_words(s) + M_WORDS, np.int64)
    return work_space_search(s, p, mask, rng, policy, buf)


@kernel(inline=True)
def cw_words(s):
    """The int64 words of the work space that hold the work copy of ``s`` and its scratch."""
    return (s.shape[0] + CW_EXTRA + 1) // 2


@kernel
def work_space_search(s, p, mask, rng, policy, buf):
    """:func:`greedy_search` in the work space ``buf`` (:func:`greedy`): views of it for the
    board table, the values, the work copy and its scratch, and the masks."""
    words = cw_words(s)
    lw = buf[:LW_WORDS].reshape(N_PROV + 4, MAXP + 1)
    fbuf = buf[LW_WORDS : LW_WORDS + F_WORDS].view(np.float64)
    cw = buf[LW_WORDS + F_WORDS : LW_WORDS + F_WORDS + words].view(np.int32)[
        : s.shape[0] + CW_EXTRA
    ]
    mbuf = buf[LW_WORDS + F_WORDS + words :].view(np.bool_)
    for i in range(LW_WORDS):
        buf[i] = 0
    for a in range(F_WORDS):
        fbuf[a] = -1e18
    for a in range(mbuf.shape[0]):
        mbuf[a] = False
    return greedy_search(s, p, mask, rng, policy, fbuf, mbuf[: 2 * NUM_ACTIONS], cw, lw)


@kernel
def greedy_search(s, p, mask, rng, policy, fbuf, mbuf, cw, lw):
    """:func:`greedy` in the work space it allocated."""
    na = mask.shape[0]
    vals = fbuf[:na]
    v = fbuf[na:]
    m2 = mbuf[:na]
    tried = mbuf[na:]
    c = cw[: s.shape[0]]
    iw = cw[s.shape[0] : s.shape[0] + 10 * (MAXP + 1)].reshape(10, MAXP + 1)
    strengths = cw[s.shape[0] + 10 * (MAXP + 1) :].reshape(N_PROV, RK_ROWS, MAXP + 1)
    iw[:, :] = 0
    work = iw[:4]
    st = iw[4]
    fst = iw[5:8]
    ls = iw[8:]
    table = lw[:N_PROV]
    tot = lw[N_PROV]
    base = lw[N_PROV + 1]
    for a in range(na):
        tried[a] = mask[a]
    pass_unchanged = False
    kind = s[top(s)]
    scored = scored_now(s)
    by_estimate = policy == ESTIMATED and (kind == TK_TARGET or kind == TK_REMOVE_OWN)
    least_bonus = (
        policy == ESTIMATED and kind == TK_GAIN and (s[top(s) + 6] >> 4) >= 3
    )  # a bonus amount
    if least_bonus:
        return least_best_bonus(
            s, p, top(s), mask, table, base, lw[N_PROV + 2], lw[N_PROV + 3], tot, fst, ls, strengths
        )
    if scored or by_estimate:
        strengths = cached_ranks(s)
        cached_board_table(s, table, fst, ls, strengths)
        board_total(s, table, base)
    if scored:
        pass_unchanged = policy != EXHAUSTIVE and kind == TK_ACTION
        if pass_unchanged:  # SHORTLISTED: its 2 best placements tried; ESTIMATED: its best
            if policy == SHORTLISTED:
                shortlist_placements(
                    s,
                    p,
                    tried,
                    SHORTLIST,
                    True,
                    table,
                    base,
                    lw[N_PROV + 2],
                    lw[N_PROV + 3],
                    tot,
                    fst,
                    strengths,
                    vals,
                    m2,
                    rng,
                )
            else:
                best_placement(
                    s,
                    p,
                    tried,
                    table,
                    base,
                    lw[N_PROV + 2],
                    lw[N_PROV + 3],
                    tot,
                    fst,
                    strengths,
                    rng,
                )
            for a in range(A_PQ, A_PROV):
                vals[a] = -1e18
    if by_estimate:  # a target or a removal: the SHORTLIST best by their estimate tried
        lo = A_PROV if kind == TK_TARGET else A_PQ
        hi = A_PROV + N_PROV if kind == TK_TARGET else A_PROV
        count = 0
        for a in range(lo, hi):
            count += tried[a]
        if count > SHORTLIST or not scored:
            if kind == TK_TARGET:
                estimate_targets(
                    s,
                    p,
                    top(s),
                    tried,
                    table,
                    base,
                    lw[N_PROV + 2],
                    lw[N_PROV + 3],
                    tot,
                    fst,
                    strengths,
                    vals,
                )
            else:
                estimate_removals(
                    s,
                    p,
                    top(s),
                    tried,
                    table,
                    base,
                    lw[N_PROV + 2],
                    lw[N_PROV + 3],
                    tot,
                    fst,
                    strengths,
                    vals,
                )
            if (
                not scored
            ):  # the provisional score leaves the board out here: a try cannot tell them apart
                return argmax_masked(vals, tried, rng, 0)
            keep_best(tried, lo, hi, SHORTLIST, vals, m2, rng)
    first = True
    for a in range(na):
        if not tried[a]:
            continue
        if a == A_SKIP and pass_unchanged:  # passing is valued as no change (plan item 5)
            scores_now(s, n_colours(s), base, lw[N_PROV + 2])  # value_of_try(s, s, ...)
            vals[a] = best_gap(s, p, lw[N_PROV + 2])
            continue
        if (
            first
        ):  # the work copy, made once the estimates have left no choice to take without a try
            lookahead_copy(c, s)
        else:
            restore(c, s)
        first = False
        play_try(c, p, a, m2)
        vals[a] = value_of_try(c, s, p, table, base, v, tot, work, st, fst, ls)
    return argmax_masked(vals, tried, rng, 0)


# The policies of plan items 5 and 6 (docs/games/eternal_dynasty.md, "Heuristic"): every
# legal choice tried; the main action's SHORTLIST best placements by their estimate tried;
# estimates instead of most tries (plan item 6: the contract's heuristic).
EXHAUSTIVE, SHORTLISTED, ESTIMATED = 0, 1, 2
SHORTLIST = 2


@nb.njit(cache=True)
def heuristic(s, rng):
    """The contract's heuristic: the plan with estimates instead of most tries (plan item 6,
    ``ESTIMATED``)."""
    return plan(s, rng, ESTIMATED)


@nb.njit(cache=True)
def shortlisted(state, legal, rng):
    """The heuristic trying the main action's ``SHORTLIST`` best placements by their estimate
    and every other legal choice (the policy before plan item 6), as a user agent with the
    arena's signature: ``"sim.eternal_dynasty.heuristic:shortlisted"``.  ``legal`` is
    recomputed, not read."""
    return plan(state, rng, SHORTLISTED)


@nb.njit(cache=True)
def exhaustive(state, legal, rng):
    """The heuristic with every legal choice tried (the policy before the shortlist), as a
    user agent: ``"sim.eternal_dynasty.heuristic:exhaustive"``."""
    return plan(state, rng, EXHAUSTIVE)


@nb.njit(cache=True, inline="always")  # into the three policies, as greedy into it
def plan(s, rng, policy):
    """The plan of the module docstring by ``policy`` (``EXHAUSTIVE``, ``SHORTLISTED`` or
    ``ESTIMATED``)."""
    mask = np.zeros(NUM_ACTIONS, np.bool_)
    n_legal = legal_mask(s, mask)
    o = top(s)
    kind = s[o]
    p = s[o + 1]
    b = pb(p)
    if kind == TK_BID:
        want = (s[b + F_DI] + 3) // 4
        k = min(want // N_NUM if s[o + 2] == 0 else want - s[b + F_BID], N_NUM - 1)
        while k > 0 and not mask[A_NUM + k]:
            k -= 1
        return A_NUM + max(k, 0)
    if kind == TK_EE_VOTE:
        return A_AYE if s[b + F_PICK] == 0 else A_NAY
    if kind == TK_RULER or kind == TK_DRAFT:
        vals = np.zeros(NUM_ACTIONS, np.float64)
        for k in range(3):
            r = s[b + F_DEALT + k]
            if r < 0:
                continue
            h = ruler_field(s, r, R_HOME)
            v = ruler_field(s, r, R_BM) + ruler_field(s, r, R_BP) + ruler_field(s, r, R_KEEP) + 0.0
            for q in range(N_PROV):
                if q == h or s[ADJ + h * N_PROV + q] == 1:
                    v += 0.5 * (s[TOK + (p * N_PROV + q) * 2] + s[TOK + (p * N_PROV + q) * 2 + 1])
            vals[A_NUM + k] = v
        return argmax_masked(vals, mask, rng, 0)
    if kind == TK_DISCARD:
        vals = np.zeros(NUM_ACTIONS, np.float64)
        for i in range(s[b + F_NDYN]):
            ct = s[DYN_TYPE + s[b + F_HAND + i]]
            vals[A_CARD + i] = -KEEP_PRIORITY[dyn_field(s, ct, C_KIND)]
        return argmax_masked(vals, mask, rng, 0)
    if kind == TK_VOTECALL:
        if s[G_ROUND] >= 2:
            for i in range(s[b + F_NVOTE]):
                vk = vote_field(s, s[VOTE_TYPE + s[b + F_VHAND + i]], V_KIND)
                if vk == VK_EACH_GAIN or vk == VK_EACH_DRAW:
                    return A_NUM + i
        return A_SKIP
    if kind == TK_AYENAY:
        vk = vote_field(s, s[VOTE_TYPE + s[G_VOTE_CARD]], V_KIND)
        if s[G_VOTE_CALLER] == p or vk == VK_EACH_GAIN or vk == VK_EACH_DRAW:
            return A_AYE
        return A_NAY
    if kind == TK_EXTRA:
        return A_SKIP
    if kind == TK_DONG and mask[A_SKIP]:
        mask[A_SKIP] = False  # Dong's start-of-turn gain is always taken; greedy picks its type
        n_legal -= 1
    if n_legal == 1:  # a single choice: nothing to compare (and no tie to break)
        for a in range(NUM_ACTIONS):
            if mask[a]:
                return a
    a = greedy(s, s[H_CURRENT], mask, rng, policy)
    if a < 0:
        a = random_legal(mask, rng, 0)
    return a
