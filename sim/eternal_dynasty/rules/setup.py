"""Setup (spec 4.2): option codes and component data copied into the state, decks,
Rulers, the board, the 2-player Eternal Emperor; ``new_state`` and replays from a chance
log (``state_from_log``).
"""

import numba as nb
import numpy as np

from sim.core import init_header, kernel
from sim.eternal_dynasty.layout import (
    ADJ,
    C_COUNT,
    C_SETASIDE,
    CF,
    D_ADJ,
    D_ADJQ,
    D_CONFIG,
    DATA,
    DATA_SIZE,
    DYN_DECK,
    DYN_LOC,
    DYN_TYPE,
    E_CLASS,
    EE,
    EV_FULL,
    EV_MINOR,
    EVT_DECK,
    EVT_LOC,
    F_BID,
    F_CHOICE,
    F_DEALT,
    F_DI,
    F_DPICK,
    F_HAND,
    F_HOME,
    F_KEPT,
    F_PICK,
    F_RULER,
    F_RULER_HIST,
    F_VHAND,
    FORTRESS,
    G_BAG0,
    G_BAG1,
    G_BAG2,
    G_BID_WINNER,
    G_DYN_END,
    G_DYN_PTR,
    G_EE_DEC,
    G_EE_START,
    G_EVT_END,
    G_EVT_PTR,
    G_FIRST,
    G_GEN,
    G_LOG_LEN,
    G_LOG_PTR,
    G_NGEN,
    G_NROUNDS,
    G_NVOTES,
    G_PHASE,
    G_RUL_END,
    G_RUL_PTR,
    G_VOTE_CARD,
    G_VOTE_END,
    G_VOTE_PTR,
    HAND_MAX,
    K_BAG0,
    K_BAG1,
    K_BAG2,
    K_DI_START,
    K_EE_TIERS,
    LOC_DECK,
    LOC_OUT,
    LOC_SETASIDE,
    LOG,
    LOG_MAX,
    MAX_GENS,
    MAXP,
    MINOR,
    N_DYN_TYPES,
    N_EE_TIERS,
    N_EVENTS,
    N_OPT,
    N_PROV,
    N_RULERS,
    N_VOTE_TYPES,
    N_VOTES,
    NCONFIG,
    O_ADJACENCY,
    O_EVENTS,
    O_LENGTH,
    OPT,
    PALACE,
    PH_GEN_START,
    QUAR,
    R_HOME,
    RUL_DECK,
    RUL_LOC,
    STATE_SIZE,
    STRUCT,
    V_COUNT,
    VHAND_MAX,
    VOTE_DECK,
    VOTE_LOC,
    VOTE_TYPE,
    M,
    P,
)
from sim.eternal_dynasty.rules.decks import chance, draw_vote, roll_province, shuffle
from sim.eternal_dynasty.rules.helpers import (
    dconst,
    dyn_field,
    event_field,
    pb,
    ruler_field,
    set_adjacency_bits,
    ti,
    vote_field,
)
from sim.eternal_dynasty.rules.machine import advance
from sim.eternal_dynasty.rules.tasks import touch, touch_all
from sim.eternal_dynasty.rules.votes_events import roll_distinct


@kernel
def config_row(s, n):
    for i in range(NCONFIG):
        b = DATA + D_CONFIG + i * CF
        if s[b] == n and s[b + 1] == s[O_LENGTH]:
            return b
    return -1


@nb.njit(cache=True)
def setup(s, n, options):
    for i in range(N_OPT + DATA_SIZE):
        s[OPT + i] = options[i]
    row = config_row(s, n)
    if row < 0:
        raise ValueError("eternal_dynasty: no configuration for this player count and length")
    s[G_NGEN] = s[row + 2]
    s[G_NROUNDS] = s[row + 3]
    s[G_NVOTES] = s[row + 4]
    adj = D_ADJQ if s[O_ADJACENCY] == 1 else D_ADJ
    for i in range(N_PROV * N_PROV):
        s[ADJ + i] = s[DATA + adj + i]
    for c in range(N_RULERS):
        s[RUL_LOC + c] = LOC_DECK
    # 4.2 step 2: quarantine (3 players)
    nq = s[row + 5]
    k = 0
    while k < nq:
        q = roll_province(s)
        s[QUAR + q] = 1
        touch(s, q)
        k += 1
    for q in range(N_PROV):
        if s[QUAR + q] == 1:
            for r in range(N_PROV):
                s[ADJ + q * N_PROV + r] = 0
                s[ADJ + r * N_PROV + q] = 0
            for c in range(N_RULERS):
                if ruler_field(s, c, R_HOME) == q:
                    s[RUL_LOC + c] = LOC_OUT
    set_adjacency_bits(s)
    # 2 players: the Eternal Emperor's Influence, Structures and Starting Province (spec 8
    # setup steps 2-4), right after the quarantine as the 2-player setup list orders them
    if n == 2:
        ee_setup(s)
    # step 3: Ruler deck, set-aside cards, Dynasty deck
    k = 0
    for c in range(N_RULERS):
        if s[RUL_LOC + c] == LOC_DECK:
            s[RUL_DECK + k] = c
            k += 1
    s[G_RUL_PTR] = 0
    s[G_RUL_END] = k
    shuffle(s, RUL_DECK, 0, k)
    c = 0
    k = 0
    for ct in range(N_DYN_TYPES):
        for j in range(dyn_field(s, ct, C_COUNT)):
            s[DYN_TYPE + c] = ct
            if j < dyn_field(s, ct, C_SETASIDE):
                s[DYN_LOC + c] = LOC_SETASIDE
            else:
                s[DYN_LOC + c] = LOC_DECK
                s[DYN_DECK + k] = c
                k += 1
            c += 1
    s[G_DYN_PTR] = 0
    s[G_DYN_END] = k
    shuffle(s, DYN_DECK, 0, k)
    # step 4: Vote deck, dealt from seat 0 (D47)
    c = 0
    for vt in range(N_VOTE_TYPES):
        for _ in range(vote_field(s, vt, V_COUNT)):
            s[VOTE_TYPE + c] = vt
            s[VOTE_LOC + c] = LOC_DECK
            s[VOTE_DECK + c] = c
            c += 1
    s[G_VOTE_PTR] = 0
    s[G_VOTE_END] = N_VOTES
    shuffle(s, VOTE_DECK, 0, N_VOTES)
    for p in range(MAXP + 1):
        b = pb(p)
        s[b + F_RULER] = -1
        s[b + F_HOME] = -1
        s[b + F_CHOICE] = -1
        s[b + F_PICK] = -1
        s[b + F_DPICK] = -1
        s[b + F_KEPT] = -1
        s[b + F_KEPT + 1] = -1
        for i in range(3):
            s[b + F_DEALT + i] = -1
        for i in range(HAND_MAX):
            s[b + F_HAND + i] = -1
        for i in range(VHAND_MAX):
            s[b + F_VHAND + i] = -1
        for i in range(MAX_GENS):
            s[b + F_RULER_HIST + i] = -1
        s[b + F_BID] = -1
        if n == 2 and p < n:
            s[b + F_DI] = dconst(s, K_DI_START)  # spec 8 setup step 5
    s[G_BID_WINNER] = -1
    s[G_EE_DEC] = -1
    if n == 2:
        s[pb(EE) + F_HOME] = s[G_EE_START]  # its Home Province for LEGAL, never changed (D30)
    for p in range(n):
        for _ in range(s[G_NVOTES]):
            draw_vote(s, p)
    # step 6: coins; step 7: Event deck
    s[G_BAG0] = dconst(s, K_BAG0)
    s[G_BAG1] = dconst(s, K_BAG1)
    s[G_BAG2] = dconst(s, K_BAG2)
    k = 0
    for e in range(N_EVENTS):
        use = s[O_EVENTS] == EV_FULL or (
            s[O_EVENTS] == EV_MINOR and event_field(s, e, E_CLASS) == MINOR
        )
        s[EVT_LOC + e] = LOC_DECK if use else LOC_OUT
        if use:
            s[EVT_DECK + k] = e
            k += 1
    s[G_EVT_PTR] = 0
    s[G_EVT_END] = k
    shuffle(s, EVT_DECK, 0, k)
    # step 8: first player
    s[G_FIRST] = chance(s, n)
    s[G_VOTE_CARD] = -1
    s[G_PHASE] = PH_GEN_START
    s[G_GEN] = 0
    advance(s)


@nb.njit(cache=True)
def ee_best_province(s, metric):
    """The province where the EE holds the most M (metric 0), P (1) or M + P (2); a tie is
    broken by rolling the province die until it shows one of the tied provinces (D47)."""
    val = np.zeros(N_PROV, np.int64)
    best = 0
    for q in range(N_PROV):
        if metric == 2:
            val[q] = s[ti(EE, q, M)] + s[ti(EE, q, P)]
        else:
            val[q] = s[ti(EE, q, metric)]
        if val[q] > best:
            best = val[q]
    k = 0
    who = -1
    for q in range(N_PROV):
        if val[q] == best:
            k += 1
            who = q
    if k == 1:
        return who
    while True:
        q = roll_province(s)
        if val[q] == best:
            return q


@nb.njit(cache=True)
def ee_setup(s):
    """Spec 8 setup steps 2-4: per type (all Military tiers, then all Political ones), each
    tier rolls that many different provinces (re-rolling 19-20, quarantined provinces and
    repeats within the tier; tiers may stack) and puts that much Influence in each; then a
    Fortress where the EE has the most M, a Palace where it has the most P, and its Starting
    Province where it has the most M + P."""
    rolled = np.zeros(N_PROV, np.int64)
    for t in range(2):
        for i in range(N_EE_TIERS):
            k = dconst(s, K_EE_TIERS + 2 * i)
            amount = dconst(s, K_EE_TIERS + 2 * i + 1)
            roll_distinct(s, k, rolled)
            for j in range(k):
                s[ti(EE, rolled[j], t)] += amount
    s[STRUCT + ee_best_province(s, M) * 2 + FORTRESS] = 1
    s[STRUCT + ee_best_province(s, P) * 2 + PALACE] = 1
    touch_all(s)
    s[G_EE_START] = ee_best_province(s, 2)


@nb.njit(cache=True)
def new_state(seed, n, options):
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, seed, n)
    setup(s, n, options)
    return s


@nb.njit(cache=True)
def state_from_log(n, options, outcomes):
    """A new game whose chance outcomes are ``outcomes`` (engine-independent replays)."""
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, 0, n)
    m = min(outcomes.shape[0], LOG_MAX)
    for i in range(m):
        s[LOG + i] = outcomes[i]
    s[G_LOG_LEN] = m
    s[G_LOG_PTR] = 0
    setup(s, n, options)
    return s
