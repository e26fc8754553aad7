"""The one-ply greedy search (plan items 5 and 6): every legal choice tried, or a
shortlist by estimate, or the estimate alone, by policy (``EXHAUSTIVE``, ``SHORTLISTED``,
``ESTIMATED``), in one work space allocated per decision.
"""

import numba as nb
import numpy as np

from sim.core import argmax_masked, kernel
from sim.eternal_dynasty.heuristic.board import (
    RK_ROWS,
    board_total,
    cached_board_table,
    cached_ranks,
    scored_now,
    value_of_try,
)
from sim.eternal_dynasty.heuristic.estimates import (
    best_placement,
    estimate_removals,
    estimate_targets,
    keep_best,
    least_best_bonus,
    scores_now,
    shortlist_placements,
)
from sim.eternal_dynasty.heuristic.tries import best_gap, lookahead_copy, play_try, restore
from sim.eternal_dynasty.layout import A_PQ, A_PROV, A_SKIP, MAXP, N_PROV, NUM_ACTIONS
from sim.eternal_dynasty.rules import TK_ACTION, TK_GAIN, TK_REMOVE_OWN, TK_TARGET, n_colours, top

# The work space of one searched decision, one allocation (each costs about a quarter of a
# board table): int64 words of the board table, float64 values, int32 words of the work
# copy and its scratch, and the bytes of the masks.
LW_WORDS = (N_PROV + 4) * (MAXP + 1)
F_WORDS = NUM_ACTIONS + MAXP + 1
CW_EXTRA = (10 + RK_ROWS * N_PROV) * (MAXP + 1)
M_WORDS = (2 * NUM_ACTIONS + 7) // 8


# inlined into plan: a compiled level less (docs/performance.md, cold start)
@nb.njit(cache=True, inline="always")
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
    # a bonus amount
    least_bonus = policy == ESTIMATED and kind == TK_GAIN and (s[top(s) + 6] >> 4) >= 3
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
