"""The contract's ``returns``: scores and win shares by the tie-break keys (the
Power of the cards in hand).
"""

import numpy as np

from sim.core import H_NPLAYERS, kernel
from sim.emperors_choice.layout import F_SCORE, F_TB_CARDS, F_TB_POWER, F_TILE, LOC_HAND, O_TIEBREAK
from sim.emperors_choice.rules.helpers import pb
from sim.emperors_choice.rules.round import power_below


@kernel(inline=True)
def next_power_down(s, p, v, left):
    """Step through seat p's hand Powers from the highest, equal ones repeated: from the
    current value ``v`` with ``left`` more copies of it still to come, the next value and
    its copies left after it (v = -1: no more cards)."""
    if left > 0:
        return v, left - 1
    nv, cnt = power_below(s, p, LOC_HAND + p, v)
    return nv, max(cnt - 1, 0)


@kernel
def better(s, p, q):
    """1 if seat p ranks above q at the end, -1 below (spec 4: VP, cards in hand, highest
    Power (top card, or all Powers sorted by option), lower Turn Order tile)."""
    bp, bq = pb(p), pb(q)
    for f in (F_SCORE, F_TB_CARDS):
        if s[bp + f] != s[bq + f]:
            return 1 if s[bp + f] > s[bq + f] else -1
    if s[O_TIEBREAK] == 0:
        if s[bp + F_TB_POWER] != s[bq + F_TB_POWER]:
            return 1 if s[bp + F_TB_POWER] > s[bq + F_TB_POWER] else -1
    else:
        # the two hands' Powers sorted high to low, compared up to the shorter hand
        va, la = np.int64(1) << 62, 0
        vb, lb = np.int64(1) << 62, 0
        while True:
            va, la = next_power_down(s, p, va, la)
            vb, lb = next_power_down(s, q, vb, lb)
            if va < 0 or vb < 0:
                break
            if va != vb:
                return 1 if va > vb else -1
    if s[bp + F_TILE] != s[bq + F_TILE]:
        return 1 if s[bp + F_TILE] < s[bq + F_TILE] else -1
    return 0


@kernel
def returns(s, scores, wins):
    n = s[H_NPLAYERS]
    k = 0
    for p in range(n):
        scores[p] = s[pb(p) + F_SCORE]
        top = True
        for q in range(n):
            if q != p and better(s, q, p) > 0:
                top = False
        wins[p] = 1.0 if top else 0.0
        if top:
            k += 1
    for p in range(n):
        wins[p] /= k
