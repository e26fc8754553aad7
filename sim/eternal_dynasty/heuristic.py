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
   In the main action every card is tried but only the ``SHORTLIST`` placements with the
   best one-province estimate (:func:`shortlist_placements`), and passing is valued as no
   change without a try; :func:`exhaustive` tries every legal choice.
"""

import numba as nb
import numpy as np

from sim.core import kernel, H_CURRENT, argmax_masked, random_legal
from sim.eternal_dynasty.layout import *  # noqa: F401,F403
from sim.eternal_dynasty.rules import (
    TK_ACTION, TK_AYENAY, TK_BID, TK_DISCARD, TK_DONG, TK_DRAFT, TK_EE_VOTE, TK_EXTRA, TK_FREE, TK_GAIN, TK_RULER,
    TK_VOTECALL,
    add_tokens, apply, dconst, dyn_field, leader_strength, legal_mask, n_colours, pb, provisional_into, rank_strengths,
    ruler_field, ti, top, vote_field,
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


@kernel
def best_gap(s, p, v):
    best = -1e9
    for o in range(n_colours(s)):  # the Eternal Emperor included
        if o != p and v[o] > best:
            best = v[o]
    return v[p] - best


@kernel
def completes_effect(kind):
    return kind != TK_ACTION and kind != TK_VOTECALL and kind != TK_FREE and kind != TK_RULER \
        and kind != TK_DRAFT and kind != TK_DISCARD and kind != TK_AYENAY and kind != TK_EXTRA \
        and kind != TK_BID and kind != TK_EE_VOTE


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
    for p in range(MAXP + 1):
        tot[p] = 0
    sm = st[0]
    sp = st[1]
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
    sacred = s[MARK + q] & MK_SACRED
    if sacred:  # the Sacred Mountain compares the strengths before any tie-break
        both = st[2]
        for p in range(n):
            both[p] = (sm[p] + sp[p]) // 2
    fm = rank_strengths(s, q, n, sm, tot)
    fp = rank_strengths(s, q, n, sp, tot)
    if s[STRUCT + q * 2 + FORTRESS] > 0 and fm >= 0:
        tot[fm] += dconst(s, K_FORTRESS)
    if s[STRUCT + q * 2 + PALACE] > 0 and fp >= 0:
        tot[fp] += dconst(s, K_PALACE)
    if fm >= 0 and fm == fp:
        tot[fm] += dconst(s, K_COIN)
    if sacred:
        both = st[2]
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


@kernel
def scored_now(s):
    return s[G_OVER] == 0 and (s[G_PHASE] == SCORING_PHASE_A or s[G_PHASE] == SCORING_PHASE_B)


@kernel
def board_table(s, table, st, ls):
    """``table[q]``: the points province ``q`` gives each colour (quarantined: none)."""
    for q in range(N_PROV):
        if s[QUAR + q] == 0:
            province_points_fast(s, q, table[q], st, ls)
        else:
            for p in range(MAXP + 1):
                table[q, p] = 0


@kernel
def changed_provinces(c, s, n):
    """Bit q set when province ``q`` holds other tokens, Leaders, Structures or marks in ``c``
    than in ``s`` (colours below ``n``; the others hold none in either).  Each colour's block
    is compared whole first: most tries change one or two colours' blocks."""
    bits = 0
    for p in range(n):
        t = TOK + p * N_PROV * 2
        ld = LEAD + p * N_PROV * 2
        acc = 0
        for i in range(N_PROV * 2):
            acc |= (c[t + i] ^ s[t + i]) | (c[ld + i] ^ s[ld + i])
        if acc != 0:
            for q in range(N_PROV):
                if c[t + q * 2] != s[t + q * 2] or c[t + q * 2 + 1] != s[t + q * 2 + 1] \
                        or c[ld + q * 2] != s[ld + q * 2] or c[ld + q * 2 + 1] != s[ld + q * 2 + 1]:
                    bits |= 1 << q
    acc = 0
    for i in range(N_PROV * 3):  # Structures and marks
        acc |= c[STRUCT + i] ^ s[STRUCT + i]
    if acc != 0:
        for q in range(N_PROV):
            if c[STRUCT + q * 2] != s[STRUCT + q * 2] or c[STRUCT + q * 2 + 1] != s[STRUCT + q * 2 + 1] \
                    or c[MARK + q] != s[MARK + q]:
                bits |= 1 << q
    return bits


@kernel
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


@kernel
def value_of_try(c, s, p, table, base, v, tot, work, st, fst, ls):
    """``margin(c, p)``, reusing ``table`` (the board points of ``s``, summed in ``base``) for
    the provinces the try left unchanged when both states are scored the same way (and with
    the same Rulers, so ``s``'s Leader strengths ``ls`` hold for ``c``)."""
    n = n_colours(c)
    if not (scored_now(s) and scored_now(c) and same_rulers(c, s, n)):
        provisional_into(c, v, work[0], work[1], work[2], st)
        return best_gap(c, p, v)
    for o in range(MAXP + 1):
        v[o] = 0.0
    sums = work[3]
    for o in range(n):
        tot[o] = base[o]
    bits = changed_provinces(c, s, n)
    while bits != 0:
        q = 0
        while (bits >> q) & 1 == 0:
            q += 1
        bits &= ~(1 << q)
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
    legal_mask(c, m2)
    if kind == TK_DONG:
        m2[A_SKIP] = False  # Dong's gain is taken (plan item 5)
    for b in range(m2.shape[0] - 1, -1, -1):
        if m2[b]:
            return b
    return -1


@kernel
def shortlist_placements(c, p, keep, k, table, base, now, after, sums, fst, ls, sv, cand, rng):
    """Keep in ``keep`` the ``k`` placements (``A_PQ`` actions) of the main action with the
    best one-province estimate and clear the others (ties broken at random with ``rng``).  The
    estimate of placing type ``t`` in ``q``: the token and both whole bonus pools added to ``q`` as
    ``rules.add_tokens`` adds them (the Influence cap applied), ``q`` re-scored, the gap taken
    as :func:`value_of_try` takes it (:func:`best_gap`); what else a gain may do (extra tokens
    from abilities, taxes, the turn's or round's end) is left to the tries of the shortlisted
    placements.  ``c`` is the untouched work copy (its words are put back); ``now``, ``after``,
    ``sums``, ``sv`` and ``cand`` are scratch."""
    count = 0
    for a in range(A_PQ, A_PROV):
        count += keep[a]
    if count <= k:
        return
    n = n_colours(c)
    b = pb(p)
    bm = min(c[b + F_BM], N_NUM - 1)
    bp = min(c[b + F_BP], N_NUM - 1)
    # what a placement of each type adds: add_tokens on the first province (the cap depends
    # only on the totals, so every province gets the same), its words put back
    im = ti(p, 0, M)
    ip = ti(p, 0, P)
    wm = c[im]
    wp = c[ip]
    add_tokens(c, p, 0, 1, 0, bm, bp)
    mm = c[im] - wm
    mp = c[ip] - wp
    c[im] = wm
    c[ip] = wp
    add_tokens(c, p, 0, 0, 1, bm, bp)
    pm = c[im] - wm
    pp = c[ip] - wp
    c[im] = wm
    c[ip] = wp
    for o in range(n):
        now[o] = c[pb(o) + F_SCORE] + c[pb(o) + F_COINS] + base[o]
    for a in range(A_PQ, A_PROV):
        if not keep[a]:
            continue
        q = (a - A_PQ) // 2
        im = ti(p, q, M)
        ip = ti(p, q, P)
        wm = c[im]
        wp = c[ip]
        if (a - A_PQ) % 2 == M:
            c[im] = wm + mm
            c[ip] = wp + mp
        else:
            c[im] = wm + pm
            c[ip] = wp + pp
        province_points_fast(c, q, sums, fst, ls)
        c[im] = wm
        c[ip] = wp
        for o in range(n):
            after[o] = now[o] - table[q, o] + sums[o]
        sv[a] = best_gap(c, p, after)
    for a in range(cand.shape[0]):
        cand[a] = keep[a] and A_PQ <= a < A_PROV
    for _ in range(k):  # the k best, ties broken at random as the tries' are; marked in sv
        j = argmax_masked(sv, cand, rng, 0)
        cand[j] = False
        sv[j] = 1e18
    for a in range(A_PQ, A_PROV):
        keep[a] = keep[a] and sv[a] == 1e18


@nb.njit(cache=True, inline="always")  # into plan: a compiled level less (docs/performance.md, cold start)
def greedy(s, p, mask, rng, shortlist):
    """One-ply greedy for the seat ``p`` to move (also when it decides for the Emperor).  In
    the main action only the ``shortlist`` best placements by :func:`shortlist_placements`
    are tried (0: every legal choice).  Allocates the work space; the search is
    :func:`greedy_search`, a kernel without reference counting."""
    na = mask.shape[0]
    fbuf = np.full(na + MAXP + 1, -1e18)  # four allocations
    mbuf = np.zeros(2 * na, np.bool_)
    cw = np.empty(s.shape[0] + 10 * (MAXP + 1), np.int32)  # the work copy and the small scratch
    lw = np.zeros((N_PROV + 4, MAXP + 1), np.int64)
    return greedy_search(s, p, mask, rng, shortlist, fbuf, mbuf, cw, lw)


@kernel
def greedy_search(s, p, mask, rng, shortlist, fbuf, mbuf, cw, lw):
    """:func:`greedy` in the work space it allocated."""
    na = mask.shape[0]
    vals = fbuf[:na]
    v = fbuf[na:]
    m2 = mbuf[:na]
    tried = mbuf[na:]
    c = cw[:s.shape[0]]
    iw = cw[s.shape[0]:].reshape(10, MAXP + 1)
    iw[:, :] = 0
    work = iw[:4]
    st = iw[4]
    fst = iw[5:8]
    ls = iw[8:]
    table = lw[:N_PROV]
    tot = lw[N_PROV]
    base = lw[N_PROV + 1]
    lookahead_copy(c, s)
    for a in range(na):
        tried[a] = mask[a]
    pass_unchanged = False
    if scored_now(s):
        leader_strengths(s, ls)
        board_table(s, table, fst, ls)
        board_total(s, table, base)
        pass_unchanged = shortlist > 0 and s[top(s)] == TK_ACTION
        if pass_unchanged:
            shortlist_placements(c, p, tried, shortlist, table, base, lw[N_PROV + 2], lw[N_PROV + 3], tot, fst, ls,
                                 vals, m2, rng)
            for a in range(A_PQ, A_PROV):
                vals[a] = -1e18
    first = True
    for a in range(na):
        if not tried[a]:
            continue
        if a == A_SKIP and pass_unchanged:  # passing is valued as no change (plan item 5)
            vals[a] = value_of_try(s, s, p, table, base, v, tot, work, st, fst, ls)
            continue
        if not first:
            restore(c, s)
        first = False
        apply(c, a)
        steps = 0
        while c[H_CURRENT] == p and steps < 12 and completes_effect(c[top(c)]):
            apply(c, default_choice(c, m2))
            steps += 1
        vals[a] = value_of_try(c, s, p, table, base, v, tot, work, st, fst, ls)
    return argmax_masked(vals, tried, rng, 0)


# Placements tried in the main action (plan item 5; docs/games/eternal_dynasty.md, "Heuristic").
SHORTLIST = 2


@nb.njit(cache=True)
def heuristic(s, rng):
    """The contract's heuristic: the plan with the main action's placements shortlisted."""
    return plan(s, rng, SHORTLIST)


@nb.njit(cache=True)
def exhaustive(state, legal, rng):
    """The heuristic with every legal choice of the main action tried (the policy before the
    shortlist), as a user agent with the arena's signature:
    ``"sim.eternal_dynasty.heuristic:exhaustive"``.  ``legal`` is recomputed, not read."""
    return plan(state, rng, 0)


@nb.njit(cache=True, inline="always")  # into heuristic and exhaustive, as greedy into it
def plan(s, rng, shortlist):
    """The plan of the module docstring; ``shortlist``: the placements of the main action
    tried (0: every legal choice, and passing tried like the rest)."""
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
    a = greedy(s, s[H_CURRENT], mask, rng, shortlist)
    if a < 0:
        a = random_legal(mask, rng, 0)
    return a
