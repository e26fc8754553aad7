"""Gaining a card (``gain``: a pick, the Dragon exchange, a deck draw, the Heir), placing
it on a stack, taking the Dragon, and the goal checks a gain triggers (``goal_check``).
"""

from sim.core import NO_PLAYER, kernel
from sim.middle_kingdom.layout import (
    CARD_TYPE,
    DR_SET_ASIDE,
    DRAGON,
    F_DBL,
    F_EFF,
    F_LAST_DRAGON,
    F_LAST_DRAGON_SUMMONED,
    F_PHYS,
    F_TOKENS,
    G_DRAGON,
    G_PEND_CARD,
    G_PEND_DEFER,
    G_PEND_MEMBER,
    G_PEND_P,
    G_ROUND,
    G_TOKEN_OVER,
    G_TOKENS_OUT,
    GOAL_OWNER,
    HOST,
    LOC,
    LOC_OWNED,
    MARKET,
    MERCHANT,
    N_TYPES,
    O_DRAGON_ROW_PICK,
    O_MARKET_ANY_GAIN,
    O_MARKET_DBL_MERCHANT,
    O_TOKEN_LIMIT,
    ORD_HOST,
    ROW_DRAGON,
    S_THRESHOLD,
    S_TOKEN_SUPPLY,
)
from sim.middle_kingdom.rules.helpers import pb

# Ways a card is gained (GAIN's ``via``).
VIA_PICK, VIA_EXCHANGE, VIA_DECKDRAW, VIA_HEIR = 0, 1, 2, 3


@kernel(inline=True)
def goal_check(s, p, t):
    """GOAL_CHECK(p, t): take an unowned goal at the threshold, or pass it on a strict lead."""
    owner = s[GOAL_OWNER + t]
    eff = s[pb(p) + F_EFF + t]
    if owner < 0:
        if eff >= s[S_THRESHOLD]:
            s[GOAL_OWNER + t] = p
    elif owner != p and eff > s[pb(owner) + F_EFF + t]:
        s[GOAL_OWNER + t] = p


@kernel(inline=True)
def place_card(s, p, card, host):
    """Put ``card`` on seat ``p``'s ``host`` stack (a Market Merchant may lie on another type)."""
    b = pb(p)
    t = s[CARD_TYPE + card]
    s[LOC + card] = LOC_OWNED + p
    s[HOST + card] = host
    if host == t:
        s[b + F_PHYS + t] += 1
        s[b + F_EFF + t] += 1
    else:
        s[b + F_DBL + host] += 1
        s[b + F_EFF + host] += 2
        if s[O_MARKET_DBL_MERCHANT] == 1:
            s[b + F_EFF + MERCHANT] += 1


@kernel(inline=True)
def has_other_stack(s, p):
    b = pb(p)
    for h in range(N_TYPES):  # noqa: SIM110 (numba kernel: a plain loop, no generator)
        if h != MERCHANT and s[b + F_PHYS + h] + s[b + F_DBL + h] >= 1:
            return True
    return False


@kernel(inline=True)
def take_dragon(s, p):
    """GAIN of the Dragon from the row: a 2-VP token, the Dragon set aside (D11, D18)."""
    s[G_DRAGON] = DR_SET_ASIDE
    s[GOAL_OWNER + DRAGON] = NO_PLAYER
    if s[O_DRAGON_ROW_PICK] == 1:  # D13: held in phase 2 of this round
        s[pb(p) + F_LAST_DRAGON] = s[G_ROUND]
        s[pb(p) + F_LAST_DRAGON_SUMMONED] = 0
    if s[G_TOKENS_OUT] >= s[S_TOKEN_SUPPLY]:
        s[G_TOKEN_OVER] += 1
        if s[O_TOKEN_LIMIT] == 1:
            return
    s[G_TOKENS_OUT] += 1
    s[pb(p) + F_TOKENS] += 1


@kernel(inline=True)
def gain(s, p, item, via, defer, member):
    """GAIN(p, item, via).  Returns True when a Market host decision is now pending.

    ``defer``: skip the goal check (identical-stack draws, D7); ``member``: the index in
    the resolution order whose drawn host must be recorded (-1 if none).
    """
    if item == ROW_DRAGON:
        take_dragon(s, p)
        return False
    t = s[CARD_TYPE + item]
    s[LOC + item] = LOC_OWNED + p
    if (
        t == MERCHANT
        and s[GOAL_OWNER + MARKET] == p
        and has_other_stack(s, p)
        and (s[O_MARKET_ANY_GAIN] == 0 or via == VIA_PICK)
    ):
        s[G_PEND_P] = p
        s[G_PEND_CARD] = item
        s[G_PEND_DEFER] = 1 if defer else 0
        s[G_PEND_MEMBER] = member
        return True
    place_card(s, p, item, t)
    if member >= 0:
        s[ORD_HOST + member] = t
    if not defer:
        goal_check(s, p, t)
    return False
