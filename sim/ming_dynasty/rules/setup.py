"""Setup (spec 2): option codes and component data copied into the state, the start
player, the supply; ``new_state`` and ``state_from_script`` (replays).
"""

import numba as nb
import numpy as np

from sim.core import H_RNG_LO, init_header, kernel, rng_below, shuffle_range
from sim.ming_dynasty.layout import (
    ADJ,
    CARD_D,
    D_ADJ,
    D_SIZE,
    DECK,
    F_HAND,
    F_SUPPLY,
    G_CHOOSER,
    G_DECK_N,
    G_DECK_PTR,
    G_DRAGON_SUPPLY,
    G_FIRST_START,
    G_LOG_N,
    G_NEUTRAL_POOL,
    G_PHASE,
    G_ROUND,
    G_SCRIPT_N,
    G_START,
    G_SUB,
    LOG,
    MAXP,
    MONK,
    N_DIST,
    N_OPTION_CODES,
    N_PROV,
    N_SYM,
    O_NEUTRAL_POOL,
    O_START,
    OPT,
    PH_PRINCE,
    PRINCE,
    S_CARDS,
    S_DRAGONS,
    S_MEMBERS,
    S_NEUTRAL_POOL,
    S_NEUTRAL_STRICT,
    S_TILES,
    STATE_SIZE,
    TILE_SUPPLY,
)
from sim.ming_dynasty.rules.cards import refill
from sim.ming_dynasty.rules.helpers import pb
from sim.ming_dynasty.rules.machine import advance


@kernel
def _install_data(s, options):
    for i in range(N_OPTION_CODES):
        s[OPT + i] = options[i]
    base = N_OPTION_CODES
    for i in range(D_SIZE):
        s[ADJ + i] = options[base + D_ADJ + i]


@kernel
def setup(s, n, options, start, script, n_script):
    """Setup (spec 2.1) with a given first start player; ``script`` fixes the first draws."""
    _install_data(s, options)
    if s[O_START] == 1:
        start = 0
    k = 0
    for sym in range(N_SYM):
        for _ in range(s[S_CARDS + sym]):
            s[DECK + k] = sym
            k += 1
    shuffle_range(s, DECK, DECK + k, s, H_RNG_LO)
    s[G_DECK_PTR] = 0
    s[G_DECK_N] = k
    for i in range(n_script):
        s[LOG + i] = script[i]
    s[G_SCRIPT_N] = n_script
    s[G_LOG_N] = 0
    for slot in range(N_PROV):
        refill(s, slot)
    s[G_DRAGON_SUPPLY] = s[S_DRAGONS] - n
    for c in range(N_PROV):
        s[TILE_SUPPLY + c] = s[S_TILES]
    for d in range(N_DIST):
        s[MONK + d] = -1
    for p in range(MAXP):
        s[PRINCE + p] = -1
    for p in range(n):
        b = pb(p)
        s[b + F_SUPPLY] = s[S_MEMBERS]
        s[b + F_HAND + CARD_D] = 1
    s[G_NEUTRAL_POOL] = s[S_NEUTRAL_STRICT] if s[O_NEUTRAL_POOL] == 1 else s[S_NEUTRAL_POOL]
    s[G_ROUND] = 1
    s[G_START] = start
    s[G_FIRST_START] = start
    s[G_PHASE] = PH_PRINCE
    s[G_SUB] = 0
    s[G_CHOOSER] = -1
    advance(s)


@nb.njit(cache=True)
def new_state(seed, n, options):
    """A new game: shuffle the supply with the state's RNG, draw the start player, set up."""
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, seed, n)
    start = rng_below(s, H_RNG_LO, n)
    setup(s, n, options, start, np.zeros(1, np.int32), 0)
    return s


@nb.njit(cache=True)
def state_from_script(n, options, start, script):
    """A new game whose first start player and drawn symbols are given (replays)."""
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, 0, n)
    setup(s, n, options, start, script, script.shape[0])
    return s
