"""The tracks: VP (never below 0, R-C6), Trust (its overflow and the exhaustion
event), soldier cubes, and Tribute draws.
"""

from sim.core import H_NPLAYERS, kernel
from sim.emperors_choice.layout import (
    CH_TRIBUTE,
    EMPTY_TRIBUTE_VP,
    EXHAUST_CUBES,
    EXHAUST_SHORT_VP,
    F_BID_CUBES,
    F_CUBES,
    F_PEND_CUBES,
    F_TRIB,
    F_TRUST,
    F_VP,
    F_VP_LOST,
    F_VP_OTHER,
    G_EXHAUST,
    G_OVERFLOWS,
    G_PHASE,
    G_RECOUNT,
    G_SUPPLY,
    N_TRIB,
    O_SOLDIER_PAY,
    O_TRUST_OVERFLOW,
    OVERFLOW_LOSS,
    PH_AUCTION,
    TRIB_DECK,
    TRUST_MAX,
    TRUST_SHORT_VP,
)
from sim.emperors_choice.rules.chance import pick_weighted
from sim.emperors_choice.rules.helpers import pb, seat_at, turn_order_code


@kernel(per_type=True)
def gain_vp(s, p, k, field):
    s[pb(p) + F_VP] += k
    s[pb(p) + field] += k


@kernel
def lose_vp(s, p, k):
    """R-C6: VP never below 0; only the VP actually lost is recorded."""
    b = pb(p)
    x = min(k, s[b + F_VP])
    s[b + F_VP] -= x
    s[b + F_VP_LOST] += x


@kernel
def trust_loss(s, p, k):
    b = pb(p)
    if k > s[b + F_TRUST]:
        short = k - s[b + F_TRUST]
        s[b + F_TRUST] = 0
        lose_vp(s, p, TRUST_SHORT_VP * short)
    else:
        s[b + F_TRUST] -= k


@kernel
def overflow(s):
    s[G_OVERFLOWS] += 1
    order = turn_order_code(s)
    for i in range(s[H_NPLAYERS]):
        trust_loss(s, seat_at(order, i), OVERFLOW_LOSS)


@kernel(per_type=True)
def trust_gain(s, p, k):
    """R-C4: above 30 the gainer stops at 30, then everyone loses 10 (option: keep the excess)."""
    b = pb(p)
    if s[O_TRUST_OVERFLOW] == 0:
        if s[b + F_TRUST] + k > TRUST_MAX:
            s[b + F_TRUST] = TRUST_MAX
            overflow(s)
        else:
            s[b + F_TRUST] += k
    else:
        s[b + F_TRUST] += k
        while s[b + F_TRUST] > TRUST_MAX:
            overflow(s)


@kernel(per_type=True)
def take_cubes(s, q, k):
    """Take up to ``k`` cubes from ``q`` (hand first, then bid cubes); returns how many."""
    b = pb(q)
    x = min(k, s[b + F_CUBES])
    s[b + F_CUBES] -= x
    if s[b + F_PEND_CUBES] > s[b + F_CUBES]:
        s[b + F_PEND_CUBES] = s[b + F_CUBES]
    y = min(k - x, s[b + F_BID_CUBES])
    s[b + F_BID_CUBES] -= y
    if y > 0 or (x > 0 and s[G_PHASE] == PH_AUCTION):
        s[G_RECOUNT] = 1
    s[G_SUPPLY] += x + y
    return x + y


@kernel
def exhaustion_event(s):
    """R-C2: every player returns 2 cubes; 3 VP per cube a player cannot return."""
    s[G_EXHAUST] += 1
    order = turn_order_code(s)
    for i in range(s[H_NPLAYERS]):
        q = seat_at(order, i)
        got = take_cubes(s, q, EXHAUST_CUBES)
        if got < EXHAUST_CUBES:
            lose_vp(s, q, EXHAUST_SHORT_VP * (EXHAUST_CUBES - got))


@kernel
def gain_soldiers(s, p, k):
    while s[G_SUPPLY] < k:
        before = s[G_SUPPLY]
        exhaustion_event(s)
        if s[G_SUPPLY] == before:
            break
    x = min(k, s[G_SUPPLY])
    s[G_SUPPLY] -= x
    s[pb(p) + F_CUBES] += x


@kernel
def pay_cubes(s, p, k):
    """A policy's cube payment: what the player has (option: 3 VP per missing cube)."""
    got = take_cubes(s, p, k)
    if got < k and s[O_SOLDIER_PAY] == 1:
        lose_vp(s, p, EXHAUST_SHORT_VP * (k - got))


@kernel
def draw_tribute(s, p):
    """R-C5: a private Tribute draw; an empty deck gives 3 VP instead."""
    t = pick_weighted(s, CH_TRIBUTE, TRIB_DECK, N_TRIB)
    if t < 0:
        gain_vp(s, p, EMPTY_TRIBUTE_VP, F_VP_OTHER)
    else:
        s[pb(p) + F_TRIB + t] += 1
