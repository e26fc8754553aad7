"""Setup (spec section 2): ``new_state``, and ``new_state_forced``, which replays
logged chance outcomes (engine-independent replays).
"""

import numba as nb
import numpy as np

from sim.core import init_header
from sim.core import lowest_bit as lowest_card
from sim.emperors_choice.layout import (
    AT_SB_DRAW,
    BAG,
    BARB_START,
    CAR1,
    CASTLE,
    CD_KIND,
    CH_CARRIAGE,
    CH_SIDES,
    CH_START,
    CK_DECK,
    CK_START2,
    CK_START3,
    D_BAG,
    D_SIZE,
    D_START,
    D_TRIB_N,
    DAT,
    F_CUBES,
    F_GOLD,
    F_PALACE,
    F_START_CAR,
    F_TAB,
    F_TRUST,
    F_VP,
    G_BARB,
    G_DECREE_UP,
    G_FIRST_START,
    G_FORCED_N,
    G_PHASE,
    G_ROUND,
    G_START,
    G_SUPPLY,
    G_WD_UP,
    KNOWN,
    LOC,
    LOC_BOX,
    LOC_DECK,
    LOC_HAND,
    LOG,
    MAX_RECRUIT,
    N_OPT,
    N_POLICY,
    N_TILE,
    N_TREASURE,
    N_TRIB,
    N_WD,
    O_BONUS_MODE,
    O_POLICY_START,
    OPT,
    PH_SETUP,
    POLICY,
    RECRUIT,
    STATE_SIZE,
    TREASURE,
    TRIB_DECK,
)
from sim.emperors_choice.rules.chance import choose
from sim.emperors_choice.rules.helpers import (
    cards_at,
    cd,
    move_card,
    ncards,
    pb,
    pool,
    push,
    sync_card_sets,
)
from sim.emperors_choice.rules.machine import advance
from sim.emperors_choice.rules.round import fill_display, fill_recruit


@nb.njit(cache=True)
def new_state_forced(seed, n, options, log, nlog):
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, seed, n)
    for i in range(
        N_OPT + D_SIZE
    ):  # a loop, not a slice assignment: its copy runs as one block move
        s[OPT + i] = options[i]
    for i in range(nlog):
        s[LOG + i] = log[i]
    s[G_FORCED_N] = nb.int32(nlog)
    s[G_ROUND] = 1
    s[G_BARB] = BARB_START
    for c in range(MAX_RECRUIT):
        s[RECRUIT + c] = -1
    for t in range(N_TILE):
        s[BAG + t] = s[DAT + D_BAG + t]
    for t in range(N_TRIB):
        s[TRIB_DECK + t] = s[DAT + D_TRIB_N + t]
    for i in range(N_TREASURE):
        s[TREASURE + i] = -1
    s[G_SUPPLY] = pool(s)
    for c in range(ncards(s)):
        s[LOC + c] = LOC_DECK if cd(s, c, CD_KIND) == CK_DECK else LOC_BOX
    sync_card_sets(s)
    # 4: players; S-Carriages dealt to seats 0..n-1 (D#58)
    cars = np.zeros(5, np.int32)
    for j in range(5):
        cars[j] = 1
    for p in range(n):
        b = pb(p)
        s[b + F_VP] = s[DAT + D_START]
        s[b + F_TRUST] = s[DAT + D_START + 1]
        s[b + F_PALACE] = s[DAT + D_START + 2]
        s[b + F_GOLD] = s[DAT + D_START + 3]
        s[b + F_TAB + CASTLE] = s[DAT + D_START + 5]
        take_k = s[DAT + D_START + 4]
        s[b + F_CUBES] = take_k
        s[G_SUPPLY] -= take_k
        j = -1  # uniform among the S-Carriages left
        left = 0
        for q in range(5):
            left += cars[q]
        r = choose(s, CH_CARRIAGE, left)
        for q in range(5):
            if cars[q] == 1:
                if r == 0:
                    j = q
                    break
                r -= 1
        cars[j] = 0
        s[b + F_TAB + CAR1 + j] += 1
        s[b + F_START_CAR] = j + 1
        got2, got3 = False, False
        m = cards_at(s, LOC_BOX)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            k = cd(s, c, CD_KIND)
            if (k == CK_START2 and not got2) or (k == CK_START3 and not got3):
                move_card(s, c, LOC_HAND + p)
                s[KNOWN + c] = 1
                if k == CK_START2:
                    got2 = True
                else:
                    got3 = True
    # 5: policy row
    for c in range(N_POLICY):
        s[POLICY + 2 * c] = choose(s, CH_SIDES, 2) if s[O_POLICY_START] == 1 else 0
    # 8: recruitment display; 9: tile display
    fill_recruit(s)
    fill_display(s)
    # 10: start player; 11: Starting Bonus tiles in order from the start player
    s[G_START] = choose(s, CH_START, n)
    s[G_FIRST_START] = s[G_START]
    s[G_DECREE_UP] = 3
    s[G_WD_UP] = (1 << N_WD) - 1
    s[G_PHASE] = PH_SETUP
    if s[O_BONUS_MODE] == 0:
        push(s, AT_SB_DRAW, 0, s[G_START])  # draw one, resolve it, then the next player
    advance(s)
    return s


@nb.njit(cache=True)
def new_state(seed, n, options):
    return new_state_forced(seed, n, options, np.zeros(0, np.int32), 0)
