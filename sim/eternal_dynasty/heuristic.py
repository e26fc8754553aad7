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
"""

import numba as nb
import numpy as np

from sim.core import kernel, H_CURRENT, argmax_masked, random_legal
from sim.eternal_dynasty.layout import *  # noqa: F401,F403
from sim.eternal_dynasty.rules import (
    TK_ACTION, TK_AYENAY, TK_BID, TK_DISCARD, TK_DONG, TK_DRAFT, TK_EE_VOTE, TK_EXTRA, TK_FREE, TK_RULER, TK_VOTECALL,
    apply, dyn_field, legal_mask, n_colours, pb, provisional, ruler_field, top, vote_field,
)

# Keep priority per Dynasty effect kind (layout.DK_*): higher is kept.
KEEP_PRIORITY = np.array([4, 5, 3, 3, 1, 3, 3, 2, 1, 2], np.float64)


@nb.njit(cache=True)
def margin(s, p):
    v = np.zeros(MAXP + 1, np.float64)
    provisional(s, v)
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


@nb.njit(cache=True)
def greedy(s, p, mask, rng):
    """One-ply greedy for the seat ``p`` to move (also when it decides for the Emperor)."""
    vals = np.full(mask.shape[0], -1e18)
    m2 = np.zeros(mask.shape[0], np.bool_)
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        c = s.copy()
        apply(c, a)
        steps = 0
        while c[H_CURRENT] == p and steps < 12 and completes_effect(c[top(c)]):
            legal_mask(c, m2)
            if c[top(c)] == TK_DONG:
                m2[A_SKIP] = False  # Dong's gain is taken (plan item 5)
            last = -1
            for b in range(m2.shape[0]):
                if m2[b]:
                    last = b
            apply(c, last)
            steps += 1
        vals[a] = margin(c, p)
    return argmax_masked(vals, mask, rng, 0)


@nb.njit(cache=True)
def heuristic(s, rng):
    mask = np.zeros(NUM_ACTIONS, np.bool_)
    legal_mask(s, mask)
    o = top(s)
    kind = s[o]
    p = s[o + 1]
    b = pb(p)
    vals = np.zeros(NUM_ACTIONS, np.float64)
    if kind == TK_BID:
        want = (s[b + F_DI] + 3) // 4
        k = min(want // N_NUM if s[o + 2] == 0 else want - s[b + F_BID], N_NUM - 1)
        while k > 0 and not mask[A_NUM + k]:
            k -= 1
        return A_NUM + max(k, 0)
    if kind == TK_EE_VOTE:
        return A_AYE if s[b + F_PICK] == 0 else A_NAY
    if kind == TK_RULER or kind == TK_DRAFT:
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
    if kind == TK_DONG:
        mask[A_SKIP] = False  # Dong's start-of-turn gain is always taken; greedy picks its type
    a = greedy(s, s[H_CURRENT], mask, rng)
    if a < 0:
        a = random_legal(mask, rng, 0)
    return a
