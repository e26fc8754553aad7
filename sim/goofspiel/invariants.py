"""Goofspiel invariants, checked after every decision (``dynasty fuzz``; protocol in
:mod:`sim.invariants`), recounted from the revealed bids rather than the engine's counters.

Each seat holds ``num_cards - rounds`` cards, all below ``num_cards`` and none it has bid
already; bids are pending for exactly the seats before the one to move, each a card of its
hand; the point cards are a permutation and the prize is the next of them; each resolved
round's winner is the unique highest bid (none on a tie), and each seat's points are the
values of the point cards it won.
"""

import numba as nb
import numpy as np

from sim.goofspiel import rules as R

E_HAND, E_PENDING, E_DECK, E_WINNER, E_POINTS = range(1, 6)
ERRORS = ("", "E_HAND", "E_PENDING", "E_DECK", "E_WINNER", "E_POINTS")
MEMO_SIZE = 0
STATS_SIZE = 0


@nb.njit(cache=True)  # compiled for CHECK_SIG when first passed or called
def check(s, before, action, mask, memo, stats):
    n = s[2]
    nc = s[R.NUM_CARDS]
    t = s[R.TURN]
    over = s[3] < 0
    if t < 0 or t > nc or over != (t == nc):
        return E_DECK
    seen = 0
    for i in range(nc):
        c = s[R.DECK + i]
        if c < 0 or c >= nc or (seen >> c) & 1:
            return E_DECK
        seen |= 1 << c
    if s[R.PRIZE] != (R.NO_CARD if over else s[R.DECK + t]):
        return E_DECK
    points = np.zeros(R.MAX_PLAYERS, np.int64)
    for r in range(t):
        best = -1
        count = 0
        winner = -1
        for p in range(n):
            b = s[R.BIDS + r * R.MAX_PLAYERS + p]
            if b < 0 or b >= nc:
                return E_WINNER
            if b > best:
                best, count, winner = b, 1, p
            elif b == best:
                count += 1
        if count > 1:
            winner = -1
        if s[R.WINNER + r] != winner:
            return E_WINNER
        if winner >= 0:
            points[winner] += s[R.DECK + r] + 1
    for p in range(n):
        if s[R.POINTS + p] != points[p]:
            return E_POINTS
        hand = s[R.HANDS + p]
        k = 0
        for c in range(R.MAX_CARDS):
            if (hand >> c) & 1:
                k += 1
                if c >= nc:
                    return E_HAND
                for r in range(t):
                    if s[R.BIDS + r * R.MAX_PLAYERS + p] == c:
                        return E_HAND
        if k != nc - t:
            return E_HAND
        b = s[R.PENDING + p]
        if over or p >= s[3]:
            if b != R.NO_CARD:
                return E_PENDING
        elif b < 0 or not (hand >> b) & 1:
            return E_PENDING
    return 0


def chance_problem(n: int, options: dict, chance: list) -> str | None:
    """What is wrong with a replay's chance outcomes (None if nothing): with a random order,
    the point cards turned up, distinct values 1..num_cards; with a fixed order, none."""
    nc = options["num_cards"]
    if options["points_order"] != "random":
        return (
            None
            if not chance
            else f"points_order {options['points_order']!r} has no chance outcomes"
        )
    if (
        not chance
        or len(chance) > nc
        or len(set(map(repr, chance))) != len(chance)
        or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= nc for v in chance)
    ):
        return f"expected 1 to {nc} distinct point cards 1..{nc}"
    return None
