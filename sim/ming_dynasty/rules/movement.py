"""A prince's walk (D12): which border steps keep a legal end reachable, and where it
may deploy members (``DEPLOY_OPEN`` / ``DEPLOY_MONK``: the open-area and monastery
members of each DEPLOY action).
"""

import numpy as np

from sim.core import kernel
from sim.ming_dynasty.layout import (
    CARD_D,
    DPP,
    F_HAND,
    MAXP,
    MONK,
    N_DIST,
    PRINCE,
    S_DEPLOY_MAX,
    SPACE,
)
from sim.ming_dynasty.rules.helpers import adj, pb, prince_at

DEPLOY_OPEN = np.array([0, 1, 2, 3, 0, 1, 2], np.int64)
DEPLOY_MONK = np.array([0, 0, 0, 0, 1, 1, 1], np.int64)


@kernel
def can_finish(s, p, d, h0, h1, h2, h3):
    """Can seat ``p``'s walk, now in ``d`` with hand (h0..h3), end legally (here or later)?"""
    if not prince_at(s, d, p):
        return True
    if h0 + h1 + h2 + h3 == 0:
        return False
    return _walk_on(s, p, d, h0, h1, h2, h3)


@kernel
def _walk_on(s, p, x, h0, h1, h2, h3):
    """Depth-first search over (district, hand) from ``x`` (held by another prince): can a
    step, paying a card of the hand, reach a district free of other princes, possibly
    through districts held by other princes?  Recursion depth is at most the hand size.
    (The walk goes on only through districts held by the at most 3 other princes.)"""
    more = h0 + h1 + h2 + h3 > 1
    for y in range(N_DIST):
        sym = adj(s, x, y)
        if sym < 0:
            continue
        for w in range(2):
            pay = np.int64(sym) if w == 0 else np.int64(CARD_D)
            hp = h0 if pay == 0 else (h1 if pay == 1 else (h2 if pay == 2 else h3))
            if hp == 0:
                continue
            if not prince_at(s, y, p):
                return True
            if more and _walk_on(
                s, p, y, h0 - (pay == 0), h1 - (pay == 1), h2 - (pay == 2), h3 - (pay == 3)
            ):
                return True
    return False


@kernel
def step_legal(s, p, y, pay):
    """A step of seat ``p``'s prince into ``y`` paying ``pay`` (symbol or CARD_D)."""
    x = s[PRINCE + p]
    sym = adj(s, x, y)
    if sym < 0:
        return False
    if pay != CARD_D and pay != sym:
        return False
    b = pb(p)
    if s[b + F_HAND + pay] == 0:
        return False
    h0 = np.int64(s[b + F_HAND]) - (pay == 0)
    h1 = np.int64(s[b + F_HAND + 1]) - (pay == 1)
    h2 = np.int64(s[b + F_HAND + 2]) - (pay == 2)
    h3 = np.int64(s[b + F_HAND + 3]) - (pay == 3)
    return can_finish(s, p, y, h0, h1, h2, h3)


@kernel
def deploy_legal(s, p, i):
    x = s[PRINCE + p]
    if s[MONK + x] == p:
        return i == 0  # own monk blocks deployment (only DEPLOY(0,0))
    prov = x // DPP
    have = s[SPACE + prov * MAXP + p]
    cap = s[S_DEPLOY_MAX]
    if have < cap:
        cap = have
    return DEPLOY_OPEN[i] + DEPLOY_MONK[i] <= cap
