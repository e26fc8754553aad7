"""Setup (spec 2.2): option codes and component data copied into the state, the deck
shuffled, the lead seat drawn; ``new_state`` and ``state_from_deck`` (replays).
"""

import numba as nb
import numpy as np

from sim.core import H_RNG_LO, NO_PLAYER, init_header, kernel, rng_below, shuffle_range
from sim.middle_kingdom.layout import (
    ALL_BIDS,
    CARD_TYPE,
    CARD_VP,
    D_GOAL_VP,
    D_HARVEST_LIMIT,
    D_PEASANT,
    D_PENALTY,
    D_PHIL,
    D_SUMMON_MIN,
    D_THRESHOLD,
    D_TOKEN_SUPPLY,
    D_TOKEN_VP,
    D_TYPE,
    D_VP,
    DECK,
    DR_DISPLAY,
    F_CARRY,
    F_DISC,
    F_HAND,
    F_LAST_DRAGON,
    G_DECK_PTR,
    G_DRAGON,
    G_K,
    G_LEAD,
    G_PEND_MEMBER,
    G_PEND_P,
    G_ROUND,
    G_TWO_BID,
    GOAL_OWNER,
    GOAL_VP,
    HOST,
    KMAX,
    LOC,
    LOC_DECK,
    MAXP,
    N_DYN,
    N_GOALS,
    N_OPTION_CODES,
    NO_CARD,
    O_LEAD_SEAT,
    O_NOBLE_TABLE,
    O_VARIANT,
    OPT,
    PEASANT_VP,
    ROW,
    S_HARVEST_LIMIT,
    S_PENALTY,
    S_PHIL,
    S_SUMMON_MIN,
    S_THRESHOLD,
    S_TOKEN_SUPPLY,
    S_TOKEN_VP,
    STATE_SIZE,
)
from sim.middle_kingdom.rules.bids import begin_round
from sim.middle_kingdom.rules.helpers import pb
from sim.middle_kingdom.rules.machine import advance
from sim.middle_kingdom.rules.scoring import reveal


@kernel(inline=True)
def _install_data(s, options):
    """Copy option codes and component data (spec 1.5) into the state."""
    for i in range(N_OPTION_CODES):
        s[OPT + i] = options[i]
    d = N_OPTION_CODES
    table = options[O_NOBLE_TABLE - OPT]
    for c in range(N_DYN):
        s[CARD_TYPE + c] = options[d + D_TYPE + c]
        s[CARD_VP + c] = options[d + D_VP + table * N_DYN + c]
    for g in range(N_GOALS):
        s[GOAL_VP + g] = options[d + D_GOAL_VP + g]
    for i in range(6):
        s[PEASANT_VP + i] = options[d + D_PEASANT + i]
    s[S_PENALTY] = options[d + D_PENALTY]
    s[S_TOKEN_VP] = options[d + D_TOKEN_VP]
    s[S_TOKEN_SUPPLY] = options[d + D_TOKEN_SUPPLY]
    s[S_THRESHOLD] = options[d + D_THRESHOLD]
    s[S_HARVEST_LIMIT] = options[d + D_HARVEST_LIMIT]
    s[S_SUMMON_MIN] = options[d + D_SUMMON_MIN]
    s[S_PHIL] = options[d + D_PHIL]


@kernel(inline=True)
def setup(s, n, options, deck, lead):
    """Setup (spec 2.2) from a given deck order and lead seat; ends at the first decision."""
    _install_data(s, options)
    two_bid = n == 2 or (n == 3 and s[O_VARIANT] == 1)
    s[G_TWO_BID] = 1 if two_bid else 0
    if n == 2:
        s[G_K] = 3
    elif two_bid:
        s[G_K] = 5
    else:
        s[G_K] = n - 1
    for p in range(MAXP):
        b = pb(p)
        s[b + F_HAND] = ALL_BIDS if p < n else 0
        s[b + F_DISC] = 0
        s[b + F_CARRY] = NO_CARD
        s[b + F_CARRY + 1] = NO_CARD
        s[b + F_LAST_DRAGON] = -1
    for g in range(N_GOALS):
        s[GOAL_OWNER + g] = NO_PLAYER
    s[G_DRAGON] = DR_DISPLAY
    for c in range(N_DYN):
        s[DECK + c] = deck[c]
        s[LOC + c] = LOC_DECK
        s[HOST + c] = -1
    s[G_DECK_PTR] = 0
    for i in range(KMAX):
        s[ROW + i] = -1
    s[G_LEAD] = 0 if s[O_LEAD_SEAT] == 1 else lead
    s[G_ROUND] = 1
    s[G_PEND_P] = NO_PLAYER
    s[G_PEND_MEMBER] = -1
    reveal(s)
    begin_round(s)
    advance(s)


@nb.njit(cache=True)
def new_state(seed, n, options):
    """A new game: shuffle the deck with the state's RNG, draw the lead seat, set up."""
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, seed, n)
    for c in range(N_DYN):  # shuffled in place: the deck's own slots serve as setup's input
        s[DECK + c] = c
    shuffle_range(s, DECK, DECK + N_DYN, s, H_RNG_LO)
    lead = rng_below(s, H_RNG_LO, n)
    setup(s, n, options, s[DECK : DECK + N_DYN], lead)
    return s


@nb.njit(cache=True)
def state_from_deck(n, options, deck, lead):
    """A new game with a given deck order and lead seat (engine-independent replays)."""
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, 0, n)
    setup(s, n, options, deck, lead)
    return s
