"""The plan by decision (the package docstring): fixed rules for Rulers, keeps, Votes and
bids, the greedy search for everything else; the contract's ``heuristic`` and the earlier
policies kept as user kernels (``shortlisted``, ``exhaustive``).
"""

import numba as nb
import numpy as np

from sim.core import H_CURRENT, argmax_masked, random_legal
from sim.eternal_dynasty.heuristic.search import ESTIMATED, EXHAUSTIVE, SHORTLISTED, greedy
from sim.eternal_dynasty.layout import (
    A_AYE,
    A_CARD,
    A_NAY,
    A_NUM,
    A_SKIP,
    ADJ,
    C_KIND,
    DYN_TYPE,
    F_BID,
    F_DEALT,
    F_DI,
    F_HAND,
    F_NDYN,
    F_NVOTE,
    F_PICK,
    F_VHAND,
    G_ROUND,
    G_VOTE_CALLER,
    G_VOTE_CARD,
    N_NUM,
    N_PROV,
    NUM_ACTIONS,
    R_BM,
    R_BP,
    R_HOME,
    R_KEEP,
    TOK,
    V_KIND,
    VK_EACH_DRAW,
    VK_EACH_GAIN,
    VOTE_TYPE,
)
from sim.eternal_dynasty.rules import (
    TK_AYENAY,
    TK_BID,
    TK_DISCARD,
    TK_DONG,
    TK_DRAFT,
    TK_EE_VOTE,
    TK_EXTRA,
    TK_RULER,
    TK_VOTECALL,
    determinize,
    dyn_field,
    legal_mask,
    pb,
    ruler_field,
    top,
    vote_field,
)

# Keep priority per Dynasty effect kind (layout.DK_*): higher is kept.
KEEP_PRIORITY = np.array([4, 5, 3, 3, 1, 3, 3, 2, 1, 2], np.float64)


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


@nb.njit(cache=True)
def honest(state, legal, rng):
    """The contract's heuristic in a copy of the state whose hidden information is resampled
    from the mover's information set (``determinize``, then the heuristic, both from ``rng``:
    the hint a hint model reads, agents.policy.seat_hint), as a user agent:
    ``"sim.eternal_dynasty.heuristic:honest"``.  The contract's heuristic completes the effects
    it tries on the true state, so its tries see the drawn Coin values, the chance stream and
    the decks (docs/games/eternal_dynasty.md, "What the heuristic reads"); this one sees only
    what its seat may know."""
    work = state.copy()
    determinize(work, state[H_CURRENT], rng)
    return heuristic(work, rng)


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
