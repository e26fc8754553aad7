"""The board table of the one-ply search: each province's points by colour and its
rankings, kept in the state (``HC``) for the board last scored so that a decision re-scores
only the provinces changed since (``cached_board_table``), and the value of a try
(``value_of_try``): a province whose board the try left unchanged keeps the points it had
before the try.  The values are those of scoring the whole board on a fresh copy, so the
choices and tie-breaks are the same.
"""

from sim.core import kernel, lowest_bit
from sim.eternal_dynasty.heuristic.tries import best_gap
from sim.eternal_dynasty.layout import (
    BOARD_WORDS,
    F_COINS,
    F_HOME,
    F_RULER,
    F_SCORE,
    FORTRESS,
    G_OVER,
    G_PHASE,
    GENERAL,
    HC_BOARD,
    HC_RANKS,
    HC_ROWS,
    HC_RULERS,
    HC_TABLE,
    HC_VALID,
    K_COIN,
    K_FORTRESS,
    K_PALACE,
    LEAD,
    MAGISTRATE,
    MARK,
    MAXP,
    MK_SACRED,
    N_PROV,
    PALACE,
    PH_AFTER_KEEP,
    PH_TURNS,
    QUAR,
    SC_DIRTY,
    STRUCT,
    TOK,
    M,
    P,
)
from sim.eternal_dynasty.rules import (
    dconst,
    leader_strength,
    n_colours,
    pb,
    provisional_into,
    rank_strengths,
)

# The phases whose provisional score includes the board (scored_now).
SCORING_PHASE_A = PH_TURNS
SCORING_PHASE_B = PH_AFTER_KEEP


@kernel
def leader_strengths(s, ls):
    """``ls[k, p]``: the strength a Leader of kind ``k`` gives colour ``p`` (its Ruler's)."""
    for p in range(n_colours(s)):
        ls[GENERAL, p] = leader_strength(s, p, GENERAL)
        ls[MAGISTRATE, p] = leader_strength(s, p, MAGISTRATE)


@kernel
def province_points_fast(s, q, tot, st, ls):
    """``rules.score_province``'s points, Structure points and Coins of province ``q``
    summed per colour into ``tot``, with the Leader strengths ``ls`` of
    :func:`leader_strengths` (the same Rulers): the strengths of each colour are read once
    for both types and the Sacred Mountain."""
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
    """Own provisional score minus the best other colour's in ``c`` (:func:`best_gap`),
    reusing ``table`` (the board points of ``s``, summed in ``base``) for the provinces the
    try left unchanged when both states are scored the same way (and with the same Rulers,
    so ``s``'s Leader strengths ``ls`` hold for ``c``).  ``c[SC_DIRTY]`` was cleared before
    the try (layout.SC_DIRTY)."""
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
