"""Eternal Dynasty kernels: the Generation as a state machine over a task stack.

Every step of the game is a *task* on a stack in the state (``STACK``; TASK_SIZE ints:
kind, colour, then six arguments).  ``advance`` runs automatic tasks until the task on top
is a decision; that task's colour is the seat to move and ``legal_mask`` / ``apply`` read
it.  An effect (a Dynasty card, a Vote, an Event, a Ruler ability) is interpreted by
pushing the tasks it needs: "X, then Y" pushes Y first.  When the stack is empty,
``next_phase`` pushes the next part of the Generation (spec 6.1).

Section numbers refer to the spec ``shared/rules/eternal_dynasty.md``; decisions D* are
listed in ``docs/games/eternal_dynasty.md``.
"""

import numba as nb
import numpy as np

from sim.core import (
    bit_count,
    kernel,
    H_CURRENT,
    H_NPLAYERS,
    H_PLY,
    H_RNG_LO,
    NO_PLAYER,
    clear_mask,
    hash_words,
    init_header,
    rng_below,
    rng_next,
    rng_seed,
    shuffle_range,
)
from sim.eternal_dynasty.layout import *  # noqa: F401,F403  (plain int constants)

# task kinds --------------------------------------------------------------------------
(
    TK_NONE,
    TK_EVENT_DRAW,
    TK_DEAL,
    TK_RULER,
    TK_DISCARD,
    TK_INIT_PLACE,
    TK_VOTECALL,
    TK_ACTION,
    TK_GAIN,
    TK_TARGET,
    TK_AYENAY,
    TK_VOTE_REVEAL,
    TK_EXTRA,
    TK_VOTE_RESOLVE,
    TK_PICK_PLAYER,
    TK_CONVERT_AT,
    TK_REMOVE_OTHER_AT,
    TK_ASSASSIN_AT,
    TK_UPRISING,
    TK_REMOVE_OWN,
    TK_LEADER,
    TK_STRUCT,
    TK_MOVE_FROM,
    TK_MOVE_TO,
    TK_MOVE_N,
    TK_TAKE_OTHERS,
    TK_GUO,
    TK_FREE,
    TK_FLIP,
    TK_DONG,
    TK_ARC,
    TK_DRAFT,
    TK_DRAFT_PASS,
    TK_BID,
    TK_BID_RESOLVE,
    TK_EE_VOTE,
    TK_XUN,
) = range(37)
DECISION_TASKS = (
    TK_RULER,
    TK_DISCARD,
    TK_VOTECALL,
    TK_ACTION,
    TK_GAIN,
    TK_TARGET,
    TK_AYENAY,
    TK_EXTRA,
    TK_PICK_PLAYER,
    TK_CONVERT_AT,
    TK_REMOVE_OTHER_AT,
    TK_ASSASSIN_AT,
    TK_UPRISING,
    TK_REMOVE_OWN,
    TK_LEADER,
    TK_STRUCT,
    TK_MOVE_FROM,
    TK_MOVE_TO,
    TK_MOVE_N,
    TK_TAKE_OTHERS,
    TK_GUO,
    TK_FREE,
    TK_FLIP,
    TK_INIT_PLACE,
    TK_DRAFT,
    TK_BID,
    TK_EE_VOTE,
    TK_DONG,
)
TG_MASK = 8  # TK_TARGET: the candidate provinces are the bit set in the last argument
# purposes of TK_PICK_PLAYER
PU_ALLY, PU_CONVERT, PU_REMOVE, PU_ASSASSIN = 0, 1, 2, 3
# TK_GAIN flags
GF_NO_BONUS, GF_NO_EXTRAS, GF_PRE_CATCH_M, GF_PRE_CATCH_P, GF_PRE_NEW = 1, 2, 4, 8, 16
GF_PRE_TAKEN = 32  # the pre-check flags were taken earlier (from the board before the effect)
# TK_TARGET's seventh word: the pre-check of every province taken when the effect began
# (bit q: the check holds in q), with PRE_SNAP set; 0: check when the province is chosen
PRE_SNAP = 1 << 20
N_OPTION_CODES = N_OPT


# ============================================================================ small helpers


@kernel(inline=True)
def pb(p):
    return PL + p * PS


@kernel(inline=True)
def ti(p, q, t):
    return TOK + (p * N_PROV + q) * 2 + t


@kernel(inline=True)
def li(p, q, k):
    return LEAD + (p * N_PROV + q) * 2 + k


@kernel(inline=True)
def n_players(s):
    return np.int64(s[H_NPLAYERS])


@kernel(inline=True)
def n_colours(s):
    """Colours in play: the seats, and in the 2-player game the Eternal Emperor (colour EE = 2)."""
    n = np.int64(s[H_NPLAYERS])
    return n + 1 if n == 2 else n


@kernel(inline=True)
def is_ee(s, p):
    return p == EE and s[H_NPLAYERS] == 2


@kernel
def colour_order(s, start, out):
    """The colours in a clockwise order: seats clockwise from ``start``, then the Eternal
    Emperor, which comes after both players in every order (spec 8, D43).  Returns the count."""
    n = n_players(s)
    for i in range(n):
        out[i] = (start + i) % n
    if n == 2:
        out[2] = EE
        return np.int64(3)
    return n


@kernel(inline=True)
def dconst(s, k):
    return s[DATA + D_CONST + k]


@kernel(inline=True)
def ruler_field(s, r, f):
    return s[DATA + D_RULER + r * RF + f]


@kernel(inline=True)
def dyn_field(s, ct, f):
    return s[DATA + D_DYN + ct * DF + f]


@kernel(inline=True)
def vote_field(s, vt, f):
    return s[DATA + D_VOTE + vt * VF + f]


@kernel(inline=True)
def event_field(s, e, f):
    return s[DATA + D_EVENT + e * EF + f]


@kernel
def ability(s, p):
    """The ability kind of p's chosen Ruler this Generation (-1 if none)."""
    r = s[pb(p) + F_RULER]
    if r < 0:
        return -1
    return ruler_field(s, r, R_AB)


@kernel(per_type=True)
def ab_arg(s, p, i):
    return ruler_field(s, s[pb(p) + F_RULER], R_A0 + i)


@kernel
def in_set(s, q, which):
    if which == SET_ALL:
        return s[QUAR + q] == 0
    if which == SET_BORDER:
        return s[DATA + D_BORDER + q] == 1 and s[QUAR + q] == 0
    return s[DATA + D_COASTAL + q] == 1 and s[QUAR + q] == 0


@kernel(per_type=True)
def tokens_total(s, p):
    t = 0
    for q in range(N_PROV):
        t += s[ti(p, q, M)] + s[ti(p, q, P)]
    return t


@kernel
def represented(s, p, q):
    return s[ti(p, q, M)] + s[ti(p, q, P)] > 0


@kernel
def leader_strength(s, p, k):
    st = dconst(s, K_LEADER_STR)
    if ability(s, p) == AB_LEADER_STRENGTH and ab_arg(s, p, 0) == k:
        st = ab_arg(s, p, 1)
    return st


@kernel
def strength(s, p, q, t):
    """Spec 5.2: tokens plus the Leader bonus of the matching Leader (General: M)."""
    v = s[ti(p, q, t)]
    k = GENERAL if t == M else MAGISTRATE
    if s[li(p, q, k)] > 0:
        v += leader_strength(s, p, k)
    return v


@kernel
def gain_ok(s, q):
    """Step 0 of the gain procedure: never in a quarantined or PLAGUE province.  (Both words
    read, ``&`` not ``and``: no branch, for :func:`gain_set`.)"""
    return (s[QUAR + q] == 0) & ((s[MARK + q] & MK_PLAGUE) == 0)


@kernel
def gain_set(s):
    """The provinces where tokens may be gained (:func:`gain_ok`) as a bit set.  The bit sets
    here are built without branches on the board (a branch per province is mispredicted often
    enough to cost more than the loop)."""
    res = 0
    for q in range(N_PROV):
        res |= np.int64(gain_ok(s, q)) << q
    return res


@kernel
def open_set(s):
    """The provinces not quarantined, as a bit set."""
    res = 0
    for q in range(N_PROV):
        res |= np.int64(s[QUAR + q] == 0) << q
    return res


@kernel
def set_adjacency_bits(s):
    """Write ADJB from ADJ (layout.py): after every change of ADJ."""
    for q in range(N_PROV):
        bits = 0
        for r in range(N_PROV):
            if s[ADJ + q * N_PROV + r] == 1:
                bits |= 1 << r
        s[ADJB + q] = bits


@kernel
def reach(s, p, placement):
    """The provinces LEGAL(p) takes (spec 5.3) before quarantine and PLAGUE are left out."""
    rep = 0
    for q in range(N_PROV):
        rep |= np.int64(represented(s, p, q)) << q
    out = rep
    for q in range(N_PROV):
        out |= s[ADJB + q] & -((rep >> q) & 1)
    home = s[pb(p) + F_HOME]
    if home >= 0:
        out |= 1 << home
    ab = ability(s, p)
    if ab == AB_REACH_SET:
        for q in range(N_PROV):
            if in_set(s, q, ab_arg(s, p, 0)):
                out |= 1 << q
    if placement and ab == AB_PLACE_RANGE:
        # Zeng (spec 5.3): "provinces within distance 2 of a represented province", for the
        # placement action only; the reach starts from represented provinces, never from the
        # Home (unless represented) or the neighbours of a represented province
        ring = rep
        for _ in range(ab_arg(s, p, 0)):
            nxt = ring
            for q in range(N_PROV):
                nxt |= s[ADJB + q] & -((ring >> q) & 1)
            ring = nxt
        out |= ring
    return out


@kernel
def legal_set(s, p, placement, ignore_plague):
    """LEGAL(p) as a bit set (spec 5.3)."""
    return reach(s, p, placement) & (open_set(s) if ignore_plague else gain_set(s))


@kernel
def target_set(s, g, target, typ, first=False):
    """Gain target sets of spec 3.1 as a bit set (PLAGUE and quarantine always left out).
    ``first``: stop at the first target found (a playability check)."""
    res = 0
    if target == TG_LEGAL:
        return legal_set(s, g, False, False)
    for q in range(N_PROV):
        if not gain_ok(s, q):
            continue
        ok = False
        if target == TG_HAS_OWN_TYPE:
            ok = s[ti(g, q, typ)] > 0 if typ <= T_P else represented(s, g, q)
        elif target == TG_SELF_REP or target == TG_REP:
            ok = represented(s, g, q)
        elif target == TG_REP_BORDER:
            ok = represented(s, g, q) and s[DATA + D_BORDER + q] == 1
        elif target == TG_REP_COASTAL:
            ok = represented(s, g, q) and s[DATA + D_COASTAL + q] == 1
        elif target == TG_HOME:
            ok = q == s[pb(g) + F_HOME]
        elif target == TG_ANY:
            ok = True
        if ok:
            res |= 1 << q
            if first:
                break
    return res


# ============================================================================ chance and decks


@kernel
def chance(s, k):
    """A chance outcome in [0, k): replayed from LOG while it lasts, else drawn and logged."""
    ptr = s[G_LOG_PTR]
    if ptr < s[G_LOG_LEN]:
        s[G_LOG_PTR] = ptr + 1
        return np.int64(s[LOG + ptr])
    v = rng_below(s, H_RNG_LO, k)
    if ptr < LOG_MAX:
        s[LOG + ptr] = v
        s[G_LOG_LEN] = ptr + 1
        s[G_LOG_PTR] = ptr + 1
    else:
        s[G_LOG_OVERFLOW] = 1
    return v


@kernel(per_type=True)
def shuffle(s, base, lo, hi):
    for i in range(hi - 1, lo, -1):
        j = lo + chance(s, i - lo + 1)
        t = s[base + i]
        s[base + i] = s[base + j]
        s[base + j] = t


@kernel
def roll_province(s):
    """The province die: re-roll 19-20 and quarantined provinces (spec 3.4)."""
    sides = dconst(s, K_DIE_SIDES)
    while True:
        v = chance(s, sides)
        if v < N_PROV and s[QUAR + v] == 0:
            return v


@kernel(per_type=True)
def _draw(s, deck, loc, ptr_f, end_f, size, know):
    """Top card of a deck (reshuffling its discard pile when empty); -1 if none at all.
    ``know``: the deck's knowledge bits (-1 none), cleared for reshuffled cards."""
    if s[ptr_f] >= s[end_f]:
        k = 0
        for c in range(size):
            if s[loc + c] == LOC_DISCARD:
                s[deck + k] = c
                s[loc + c] = LOC_DECK
                if know >= 0:
                    s[know + c] = 0
                k += 1
        s[ptr_f] = 0
        s[end_f] = k
        shuffle(s, deck, 0, k)
        if k == 0:
            return -1
    c = s[deck + s[ptr_f]]
    s[ptr_f] += 1
    return c


@kernel
def draw_dynasty(s, p):
    if s[pb(p) + F_NDYN] >= HAND_MAX:
        return
    c = _draw(s, DYN_DECK, DYN_LOC, G_DYN_PTR, G_DYN_END, N_DYN, DYN_KNOW)
    if c >= 0:
        add_to_hand(s, p, c)


@kernel
def add_to_hand(s, p, c):
    b = pb(p)
    s[b + F_HAND + s[b + F_NDYN]] = c
    s[b + F_NDYN] += 1
    s[DYN_LOC + c] = LOC_HAND


@kernel
def remove_from_hand(s, p, slot):
    b = pb(p)
    c = s[b + F_HAND + slot]
    n = s[b + F_NDYN]
    for i in range(slot, n - 1):
        s[b + F_HAND + i] = s[b + F_HAND + i + 1]
    s[b + F_HAND + n - 1] = -1
    s[b + F_NDYN] = n - 1
    return c


@kernel
def discard_card(s, c, know):
    """A played or discarded Dynasty card: the set-aside copies go back (spec 3.5).
    ``know``: who sees it (KNOW_ALL played; the discarder's bit face down, spec 9)."""
    s[DYN_KNOW + c] = know
    if is_setaside_copy(s, c):
        s[DYN_LOC + c] = LOC_SETASIDE
    else:
        s[DYN_LOC + c] = LOC_DISCARD


@kernel
def is_setaside_copy(s, c):
    """The first ``set_aside_at_start`` instances of a kind are its set-aside copies."""
    ct = s[DYN_TYPE + c]
    first = 0
    for k in range(ct):
        first += dyn_field(s, k, C_COUNT)
    return c - first < dyn_field(s, ct, C_SETASIDE)


@kernel
def draw_vote(s, p):
    b = pb(p)
    if s[b + F_NVOTE] >= VHAND_MAX:
        return
    c = _draw(s, VOTE_DECK, VOTE_LOC, G_VOTE_PTR, G_VOTE_END, N_VOTES, VOTE_KNOW)
    if c >= 0:
        s[b + F_VHAND + s[b + F_NVOTE]] = c
        s[b + F_NVOTE] += 1
        s[VOTE_LOC + c] = LOC_HAND


@kernel
def remove_vote(s, p, slot, know):
    """A called (``know`` = KNOW_ALL) or spent (face down: p's bit, spec 9) Vote card."""
    b = pb(p)
    c = s[b + F_VHAND + slot]
    n = s[b + F_NVOTE]
    for i in range(slot, n - 1):
        s[b + F_VHAND + i] = s[b + F_VHAND + i + 1]
    s[b + F_VHAND + n - 1] = -1
    s[b + F_NVOTE] = n - 1
    s[VOTE_LOC + c] = LOC_DISCARD
    s[VOTE_KNOW + c] = know
    return c


# ============================================================================ task stack


@kernel(per_type=True)
def push(s, kind, p, a, b, c, d, e, f):
    sp = s[G_SP]
    if sp >= STACK_MAX:
        raise ValueError("eternal_dynasty: task stack overflow")
    o = STACK + sp * TASK_SIZE
    s[o] = kind
    s[o + 1] = p
    s[o + 2] = a
    s[o + 3] = b
    s[o + 4] = c
    s[o + 5] = d
    s[o + 6] = e
    s[o + 7] = f
    s[G_SP] = sp + 1


@kernel(inline=True)
def top(s):
    return STACK + (s[G_SP] - 1) * TASK_SIZE


@kernel
def pop(s):
    s[G_SP] -= 1


@kernel
def seat_order(s, start, out):
    """Seats clockwise from ``start``."""
    n = n_players(s)
    for i in range(n):
        out[i] = (start + i) % n


@kernel(per_type=True)
def push_gain(s, g, q, m, pp, any_n, flags):
    """One gain event (spec 5.4) of g in q, with the pre-check of step 1 taken now."""
    if not gain_ok(s, q):
        return
    if (flags & (GF_NO_EXTRAS | GF_PRE_TAKEN)) == 0:
        flags |= precheck(s, g, q)
    push(s, TK_GAIN, g, q, m, pp, any_n, 0, flags)


@kernel
def precheck(s, g, q):
    f = 0
    n = n_colours(s)
    ab = ability(s, g)
    if ab == AB_EXTRA_CATCHUP:
        t = ab_arg(s, g, 0)
        mine = strength(s, g, q, t)
        for o in range(n):
            if o != g and strength(s, o, q, t) > mine:
                f |= GF_PRE_CATCH_M if t == M else GF_PRE_CATCH_P
    if ab == AB_EXTRA_NEW_PROVINCE and not represented(s, g, q):
        f |= GF_PRE_NEW
    return f


@kernel
def precheck_snapshot(s, g):
    """5.4 step 1 for every province at once, on the board as it stands now (taken when an
    effect with several shares begins, for the shares resolved after others): bit q set
    when g's pre-check holds in q, and PRE_SNAP."""
    snap = PRE_SNAP
    for q in range(N_PROV):
        if precheck(s, g, q) != 0:
            snap |= 1 << q
    return snap


@kernel
def precheck_from(s, g, q, snap):
    """The gain flags of g's pre-check in q read from a snapshot (0: none, check now)."""
    if snap == 0:
        return 0
    f = GF_PRE_TAKEN
    if (snap >> q) & 1:
        ab = ability(s, g)
        if ab == AB_EXTRA_CATCHUP:
            f |= GF_PRE_CATCH_M if ab_arg(s, g, 0) == M else GF_PRE_CATCH_P
        elif ab == AB_EXTRA_NEW_PROVINCE:
            f |= GF_PRE_NEW
    return f


@kernel(inline=True)
def touch(s, q):
    """Province ``q``'s board changed (layout.SC_DIRTY)."""
    s[SC_DIRTY] |= 1 << q


@kernel(inline=True)
def touch_all(s):
    """Any province's board may have changed (layout.SC_DIRTY)."""
    s[SC_DIRTY] = -1


@kernel
def add_tokens(s, p, q, m, pp, bm, bp):
    """Add base-and-extra tokens (m, pp) and bonus tokens (bm, bp), applying the Influence
    cap (:func:`capped_tokens`)."""
    dm, dp = capped_tokens(s, p, m, pp, bm, bp)
    s[ti(p, q, M)] += dm
    s[ti(p, q, P)] += dp
    touch(s, q)


@kernel(inline=True)
def capped_tokens(s, p, m, pp, bm, bp):
    """The Military and Political tokens :func:`add_tokens` adds for base-and-extra tokens
    (m, pp) and bonus tokens (bm, bp) under the Influence cap (D26); D46: what is kept first
    is base and extra Military, then base and extra Political, then bonus Military, then
    bonus Political."""
    if s[O_LIMITS] == 0:
        room = dconst(s, K_CAP) - tokens_total(s, p)
        if room < 0:
            room = 0
        m = min(m, room)
        room -= m
        pp = min(pp, room)
        room -= pp
        bm = min(bm, room)
        room -= bm
        bp = min(bp, room)
    return m + bm, pp + bp


# ============================================================================ setup


@kernel
def config_row(s, n):
    for i in range(NCONFIG):
        b = DATA + D_CONFIG + i * CF
        if s[b] == n and s[b + 1] == s[O_LENGTH]:
            return b
    return -1


@nb.njit(cache=True)
def setup(s, n, options):
    for i in range(N_OPTION_CODES + DATA_SIZE):
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
        for j in range(vote_field(s, vt, V_COUNT)):
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
        for j in range(s[G_NVOTES]):
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


# ============================================================================ phases


@kernel
def next_phase(s):
    """Push the next part of the Generation when the task stack is empty (spec 6.1)."""
    n = n_players(s)
    order = s[SC_ORDER + OR_NEXT * (MAXP + 1) : SC_ORDER + (OR_NEXT + 1) * (MAXP + 1)]
    seat_order(s, s[G_FIRST], order)
    ph = s[G_PHASE]
    if ph == PH_GEN_START:
        s[G_GEN] += 1
        if s[G_GEN] > s[G_NGEN]:
            end_game(s)
            return
        push(s, TK_DEAL, 0, 0, 0, 0, 0, 0, 0)
        if s[G_GEN] >= 2 and s[O_EVENTS] != EV_NONE:
            push(s, TK_EVENT_DRAW, 0, 0, 0, 0, 0, 0, 0)
        s[G_PHASE] = PH_AFTER_CHOICE
    elif ph == PH_AFTER_CHOICE:
        reveal_rulers(s)
        for i in range(n - 1, -1, -1):
            push(s, TK_DISCARD, order[i], 0, 0, 0, 0, 0, 0)
        s[G_PHASE] = PH_AFTER_KEEP
    elif ph == PH_AFTER_KEEP:
        for i in range(n - 1, -1, -1):
            push(s, TK_INIT_PLACE, order[i], 0, 0, 0, 0, 0, 0)
        for i in range(n - 1, -1, -1):
            push(s, TK_ARC, order[i], 0, 0, 0, 0, 0, 0)
        s[G_ROUND] = 1
        s[G_TURN_IDX] = -1
        s[G_PHASE] = PH_TURNS
    elif ph == PH_TURNS:
        s[G_TURN_IDX] += 1
        if s[G_TURN_IDX] >= n:
            s[G_TURN_IDX] = 0
            s[G_ROUND] += 1
        if s[G_ROUND] > s[G_NROUNDS]:
            score_generation(s)
            cleanup(s)
            s[G_PHASE] = PH_GEN_START
            return
        s[G_TURNS] += 1
        push_turn(s, order[s[G_TURN_IDX]])


@kernel
def push_turn(s, p):
    """Spec 6.3, p's turn: T1 Vote call (optional), T2 start-of-turn ability (optional: Yan's
    move, Jiang's flip and Dong's gain each offer a skip), T3 free play, T4 action, T5 free play."""
    push(s, TK_FREE, p, 1, 0, 0, 0, 0, 0)
    push(s, TK_ACTION, p, 0, 0, 0, 0, 0, 0)
    push(s, TK_FREE, p, 0, 0, 0, 0, 0, 0)
    ab = ability(s, p)
    if ab == AB_START_MOVE:
        push(s, TK_MOVE_FROM, p, ab_arg(s, p, 0), 1, 0, 0, 0, 0)
    elif ab == AB_START_CONVERT:
        push(s, TK_FLIP, p, 0, 0, 0, 0, 0, 0)
    elif ab == AB_START_CATCHUP_GAIN:
        push(s, TK_DONG, p, 0, 0, 0, 0, 0, 0)
    if s[pb(p) + F_CALLED] == 0 and s[pb(p) + F_NVOTE] > 0:
        push(s, TK_VOTECALL, p, 0, 0, 0, 0, 0, 0)


@kernel
def deal(s):
    """G2: 3 Rulers then 6 Dynasty cards each, one at a time clockwise from the first player."""
    n = n_players(s)
    order = s[SC_ORDER + OR_DEAL * (MAXP + 1) : SC_ORDER + (OR_DEAL + 1) * (MAXP + 1)]
    seat_order(s, s[G_FIRST], order)
    for k in range(dconst(s, K_DEALT_RULERS)):
        for i in range(n):
            p = order[i]
            r = _draw(s, RUL_DECK, RUL_LOC, G_RUL_PTR, G_RUL_END, N_RULERS, RUL_KNOW)
            s[pb(p) + F_DEALT + k] = r
            if r >= 0:
                s[RUL_LOC + r] = LOC_DEALT
                s[RUL_KNOW + r] = 1 << p
    for k in range(dconst(s, K_DEALT_DYN)):
        for i in range(n):
            draw_dynasty(s, order[i])
    if s[O_DRAFT] == 1:
        push(s, TK_DRAFT_PASS, 0, 1, 0, 0, 0, 0, 0)
        for i in range(n - 1, -1, -1):
            push(s, TK_DRAFT, order[i], 1, 0, 0, 0, 0, 0)
    else:
        for i in range(n - 1, -1, -1):
            push(s, TK_RULER, order[i], 0, 0, 0, 0, 0, 0)


@kernel
def draft_pass(s, stage):
    """G3: every player keeps the picked Ruler and passes the rest, to the left (seat + 1) in
    odd Generations and to the right in even ones; after the second pick the pool for G4 is
    {first pick, second pick, the Ruler received}."""
    n = n_players(s)
    d = 1 if s[G_GEN] % 2 == 1 else n - 1
    passed = s[SC_PASSED : SC_PASSED + MAXP * 3]
    for i in range(MAXP * 3):
        passed[i] = -1
    for p in range(n):
        b = pb(p)
        k = 0
        for j in range(3):
            r = s[b + F_DEALT + j]
            if r < 0:
                continue
            if j == s[b + F_DPICK]:
                s[b + F_KEPT + stage - 1] = r
            else:
                passed[((p + d) % n) * 3 + k] = r
                s[RUL_KNOW + r] |= 1 << ((p + d) % n)  # spec 9: seen by everyone it passes through
                k += 1
        s[b + F_DPICK] = -1
    for p in range(n):
        b = pb(p)
        for j in range(3):
            s[b + F_DEALT + j] = passed[p * 3 + j]
    order = s[SC_ORDER + OR_DRAFT * (MAXP + 1) : SC_ORDER + (OR_DRAFT + 1) * (MAXP + 1)]
    seat_order(s, s[G_FIRST], order)
    if stage == 1:
        push(s, TK_DRAFT_PASS, 0, 2, 0, 0, 0, 0, 0)
        for i in range(n - 1, -1, -1):
            push(s, TK_DRAFT, order[i], 2, 0, 0, 0, 0, 0)
        return
    for p in range(n):
        b = pb(p)
        got = s[b + F_DEALT]
        s[b + F_DEALT] = s[b + F_KEPT]
        s[b + F_DEALT + 1] = s[b + F_KEPT + 1]
        s[b + F_DEALT + 2] = got
        s[b + F_KEPT] = -1
        s[b + F_KEPT + 1] = -1
    for i in range(n - 1, -1, -1):
        push(s, TK_RULER, order[i], 0, 0, 0, 0, 0, 0)


@kernel
def reveal_rulers(s):
    """G5/G6: chosen Rulers revealed, unpicked ones discarded, bonus pools filled."""
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        r = s[b + F_DEALT + s[b + F_CHOICE]]
        s[b + F_RULER] = r
        s[RUL_LOC + r] = LOC_CHOSEN
        s[b + F_HOME] = ruler_field(s, r, R_HOME)
        s[b + F_BM] = ruler_field(s, r, R_BM)
        s[b + F_BP] = ruler_field(s, r, R_BP)
        s[b + F_KEEP] = ruler_field(s, r, R_KEEP)
        s[b + F_RULER_HIST + s[G_GEN] - 1] = r
        for k in range(3):
            o = s[b + F_DEALT + k]
            if o >= 0 and o != r:
                s[RUL_LOC + o] = LOC_DISCARD
            s[b + F_DEALT + k] = -1
        s[b + F_CHOICE] = -1


@kernel
def cleanup(s):
    """G11."""
    n = n_players(s)
    if n == 2:
        # step 1, 2 players: Dynasty Influence income, the unspent bonus (M + P) plus 2 per
        # Dynasty card still in hand, set-aside copies included (spec 8, D32)
        for p in range(n):
            b = pb(p)
            s[b + F_DI] += (
                dconst(s, K_DI_BONUS) * (s[b + F_BM] + s[b + F_BP])
                + dconst(s, K_DI_CARD) * s[b + F_NDYN]
            )
    for i in range(NCOL * N_PROV * 2):
        s[LEAD + i] = 0
    touch_all(s)
    for p in range(n):
        b = pb(p)
        while s[b + F_NDYN] > 0:
            discard_card(s, remove_from_hand(s, p, s[b + F_NDYN] - 1), 1 << p)
        if s[b + F_RULER] >= 0:
            s[RUL_LOC + s[b + F_RULER]] = LOC_OUT
        s[b + F_RULER] = -1
        s[b + F_HOME] = -1
        s[b + F_BM] = 0
        s[b + F_BP] = 0
        s[b + F_CALLED] = 0
    for q in range(N_PROV):
        s[MARK + q] = 0
    for v in range(N_VOTE_TYPES):
        s[G_BAN + v] = 0
    s[G_FINAL_FIRST] = s[G_FIRST]
    s[G_FIRST] = (s[G_FIRST] + 1) % n


# ============================================================================ coins and scoring


@kernel
def coins_out(s):
    t = 0
    for p in range(n_colours(s)):
        t += s[pb(p) + F_COINS]
    return t


@kernel
def bag_size(s):
    """Coins in the bag at the start (spec 4.2 step 6)."""
    return dconst(s, K_BAG0) + dconst(s, K_BAG1) + dconst(s, K_BAG2)


@kernel
def draw_coin_value(s):
    """Draw one Coin from the bag (G_BAG0..2: what is left of each value), without
    replacement (7.3); its value."""
    r = chance(s, s[G_BAG0] + s[G_BAG1] + s[G_BAG2])
    if r < s[G_BAG0]:
        s[G_BAG0] -= 1
        return 0
    if r < s[G_BAG0] + s[G_BAG1]:
        s[G_BAG1] -= 1
        return 1
    s[G_BAG2] -= 1
    return 2


@kernel
def award_coins(s, p, k):
    """A Coin award (spec 7.3): face down from the bag; 1 point each with coins off or an empty
    bag (D27).  Its value is drawn now (D47, ``coin_draw = at_award``) or at the final reveal
    (``at_reveal``); either way nobody sees it before the reveal."""
    for _ in range(k):
        if s[O_COINS] == 0 and coins_out(s) < bag_size(s):
            s[pb(p) + F_COINS] += 1
            if s[O_COIN_DRAW] == CD_AWARD:
                s[pb(p) + F_COIN_VALUE] += draw_coin_value(s)
        else:
            s[pb(p) + F_SCORE] += 1
            s[pb(p) + F_PTS_COINCONV] += 1


@kernel
def rank_type(s, q, t, pts, st):
    """Spec 7.1 for one type in one province: add the points, return the sole first (-1 none).
    The Eternal Emperor ranks like a player (spec 8).  ``st``: work space (MAXP + 1 ints) for
    the strengths, doubled so that Cao's winning of a tie is a whole step."""
    n = n_colours(s)
    for p in range(n):
        st[p] = 2 * strength(s, p, q, t)
    return rank_strengths(s, q, n, st, pts)


@kernel(inline=True)
def rank_strengths(s, q, n, st, pts):
    """The ranking of :func:`rank_type` in province ``q`` on the doubled strengths ``st[:n]``,
    already filled in (Cao's win of a tie raises his by one): add the points, return the sole
    first (-1 none)."""
    best = 0  # one pass: the best, how many hold it, the last to hold it, and the best below it
    tied = 0
    first = -1
    second = 0
    for p in range(n):
        v = st[p]
        if v > best:
            second = best
            best = v
            tied = 1
            first = p
        elif v == best:
            tied += 1
        elif v > second:
            second = v
    if best <= 0:
        return -1
    if tied >= 2:
        # Cao the Ambitious: wins a tie for first in his home and its neighbours
        for p in range(n):
            if st[p] == best and ability(s, p) == AB_WIN_TIES:
                h = s[pb(p) + F_HOME]
                if h == q or s[ADJ + h * N_PROV + q] == 1:
                    second = best  # the others he tied are second
                    st[p] += 1
                    best += 1
                    tied = 1
                    first = p
                    break
    if tied == 2:
        for p in range(n):
            if st[p] == best:
                pts[p] += dconst(s, K_TIE2)
        return -1
    if tied >= 3:
        return -1
    pts[first] += dconst(s, K_FIRST)
    if second > 0:
        k = 0
        who = -1
        for p in range(n):
            if p != first and st[p] == second:
                k += 1
                who = p
        if k == 1:
            pts[who] += dconst(s, K_SECOND)
    return first


@kernel
def score_province(s, q, pts, spts, coin, st):
    """Majority points (``pts``), Structure points (``spts``) and Coin awards (``coin``)
    of province q (spec 7.1).  Returns who gets the Coins, in the order D47 draws them:
    ``(control + 1) | (sacred + 1) << 4``, the colour with both firsts (control Coin) and the
    sole strongest on a Sacred Mountain, each -1 for none.  ``st``: work space (MAXP + 1
    ints)."""
    ctrl = -1
    sacred = -1
    fm = rank_type(s, q, M, pts, st)
    fp = rank_type(s, q, P, pts, st)
    if s[STRUCT + q * 2 + FORTRESS] > 0 and fm >= 0:
        spts[fm] += dconst(s, K_FORTRESS)
    if s[STRUCT + q * 2 + PALACE] > 0 and fp >= 0:
        spts[fp] += dconst(s, K_PALACE)
    if fm >= 0 and fm == fp:
        coin[fm] += dconst(s, K_COIN)
        ctrl = fm
    if s[MARK + q] & MK_SACRED:
        n = n_colours(s)
        best = 0
        k = 0
        who = -1
        for p in range(n):
            v = strength(s, p, q, M) + strength(s, p, q, P)
            if v > best:
                best = v
                k = 1
                who = p
            elif v == best and v > 0:
                k += 1
        if k == 1:
            coin[who] += 1
            sacred = who
    return (ctrl + 1) | ((sacred + 1) << 4)


@kernel
def score_generation(s):
    n = n_colours(s)
    for i in range(ADJ - TOK):
        s[SNAP_BOARD + i] = s[TOK + i]
    for p in range(NCOL):
        s[SNAP_RULERS + p] = s[pb(p) + F_RULER] if p < n_players(s) else -1
    g = s[G_GEN] - 1
    before = s[SC_SCORE : SC_SCORE + MAXP + 1]
    cbefore = s[SC_SCORE + MAXP + 1 : SC_SCORE + 2 * (MAXP + 1)]
    pts = s[SC_SCORE + 2 * (MAXP + 1) : SC_SCORE + 3 * (MAXP + 1)]
    spts = s[SC_SCORE + 3 * (MAXP + 1) : SC_SCORE + 4 * (MAXP + 1)]
    coin = s[SC_SCORE + 4 * (MAXP + 1) : SC_SCORE + 5 * (MAXP + 1)]
    st = s[SC_STRENGTH : SC_STRENGTH + MAXP + 1]
    for p in range(n):
        before[p] = s[pb(p) + F_SCORE] - s[pb(p) + F_PTS_COINCONV]
        cbefore[p] = s[pb(p) + F_COINS] + s[pb(p) + F_PTS_COINCONV]
    for q in range(N_PROV):
        if s[QUAR + q] == 1:
            continue
        for p in range(MAXP + 1):
            pts[p] = 0
            spts[p] = 0
            coin[p] = 0
        who = score_province(s, q, pts, spts, coin, st)
        for p in range(n):
            s[pb(p) + F_SCORE] += pts[p] + spts[p]
            s[pb(p) + F_PTS_PROV + q] += pts[p] + spts[p]
            s[pb(p) + F_PTS_MAJORITY] += pts[p]
            s[pb(p) + F_PTS_STRUCT] += spts[p]
        # D47: province by province, the control Coin before a Sacred Mountain Coin
        if (who & 15) > 0:
            award_coins(s, (who & 15) - 1, dconst(s, K_COIN))
        if (who >> 4) > 0:
            award_coins(s, (who >> 4) - 1, 1)
    for p in range(n):
        if ability(s, p) == AB_SCORE_PER_REP:
            k = 0
            for q in range(N_PROV):
                if represented(s, p, q):
                    k += 1
            v = k // ab_arg(s, p, 0)
            s[pb(p) + F_SCORE] += v
            s[pb(p) + F_PTS_RULER] += v
    for p in range(n):
        s[pb(p) + F_GEN_PTS + g] = s[pb(p) + F_SCORE] - s[pb(p) + F_PTS_COINCONV] - before[p]
        s[pb(p) + F_GEN_COINS + g] = s[pb(p) + F_COINS] + s[pb(p) + F_PTS_COINCONV] - cbefore[p]


@kernel
def end_game(s):
    """7.4: reveal Coins.  Their values were drawn at each award (D47); with ``coin_draw =
    at_reveal`` they are drawn now, without replacement (7.3 allows it), seat by seat from
    seat 0, the Eternal Emperor last."""
    if s[O_COIN_DRAW] == CD_REVEAL:
        for p in range(n_colours(s)):
            v = 0
            for _ in range(s[pb(p) + F_COINS]):
                v += draw_coin_value(s)
            s[pb(p) + F_COIN_VALUE] = v
    s[G_PHASE] = PH_OVER
    s[G_OVER] = 1


@kernel
def final_score(s, p):
    return s[pb(p) + F_SCORE] + s[pb(p) + F_COIN_VALUE]


@kernel
def tiebreak_key(s, p):
    """7.4: Coins held, then tokens on the board, then earlier in the final Generation's order;
    the Eternal Emperor counts as after both players (D28)."""
    n = n_players(s)
    pos = n if p >= n else (p - s[G_FINAL_FIRST]) % n
    return (s[pb(p) + F_COINS] * 1000 + tokens_total(s, p)) * 8 + (7 - pos)


# ============================================================================ playability


@kernel
def protected(s, victim, actor, q, t, intrigue):
    """PROTECT Rulers against removal/conversion of type t in q by a card of ``actor``."""
    if victim == actor or victim > MAXP:
        return False
    if ability(s, victim) != AB_PROTECT:
        return False
    bits = ab_arg(s, victim, 0)
    if (bits & PR_INTRIGUE_ONLY) and not intrigue:
        return False
    if (bits & PR_HOME_ONLY) and q != s[pb(victim) + F_HOME]:
        return False
    return (bits & (PR_M if t == M else PR_P)) != 0


@kernel
def leader_protected(s, victim, actor):
    if victim == actor or ability(s, victim) != AB_PROTECT:
        return False
    return (ab_arg(s, victim, 0) & PR_LEADERS) != 0


@kernel
def banned(s, ctype):
    for v in range(N_VOTE_TYPES):
        if (
            s[G_BAN + v] == 1
            and vote_field(s, v, V_KIND) == VK_BAN
            and vote_field(s, v, V_A0) == ctype
        ):
            return True
    return False


@kernel
def leaders_on_board(s, k):
    c = 0
    for p in range(n_players(s)):
        for q in range(N_PROV):
            c += s[li(p, q, k)]
    return c


@kernel
def structures_on_board(s, k):
    c = 0
    for q in range(N_PROV):
        c += s[STRUCT + q * 2 + k]
    return c


@kernel
def leader_targets(s, p, k, ls, first=False):
    """``ls``: LEGAL(p), ``legal_set(s, p, False, False)``.  ``first``: stop at the first
    target found (whether there is one is all a playability check asks; also below)."""
    if s[O_LIMITS] == 0:
        sup = dconst(s, K_SUP_GEN) if k == GENERAL else dconst(s, K_SUP_MAG)
        if leaders_on_board(s, k) >= sup:
            return 0
    res = 0
    for q in range(N_PROV):
        if (ls >> q) & 1 and s[li(p, q, k)] == 0:
            res |= 1 << q
            if first:
                break
    return res


@kernel
def structure_targets(s, p, k, t, first=False):
    if s[O_LIMITS] == 0:
        sup = dconst(s, K_SUP_FORT) if k == FORTRESS else dconst(s, K_SUP_PAL)
        if structures_on_board(s, k) >= sup:
            return 0
    res = 0
    for q in range(N_PROV):
        if gain_ok(s, q) and s[STRUCT + q * 2 + k] == 0 and s[ti(p, q, t)] > 0:
            res |= 1 << q
            if first:
                break
    return res


@kernel
def convert_targets(s, p, v, first=False):
    """Betrayal: (q, t) bit set (bit q*2+t) where both hold Influence and v has t tokens."""
    res = np.int64(0)
    for q in range(N_PROV):
        if not gain_ok(s, q) or not represented(s, p, q):
            continue
        for t in range(2):
            if s[ti(v, q, t)] > 0 and not protected(s, v, p, q, t, True):
                res |= np.int64(1) << (q * 2 + t)
                if first:
                    return res
    return res


@kernel
def remove_targets(s, p, v, t, ls, first=False):
    """``ls``: LEGAL(p) with PLAGUE provinces kept, ``legal_set(s, p, False, True)``."""
    res = 0
    for q in range(N_PROV):
        if (ls >> q) & 1 and s[ti(v, q, t)] > 0 and not protected(s, v, p, q, t, True):
            res |= 1 << q
            if first:
                break
    return res


@kernel
def assassin_targets(s, p, v, first=False):
    if leader_protected(s, v, p):
        return np.int64(0)
    res = np.int64(0)
    for q in range(N_PROV):
        for k in range(2):
            if s[li(v, q, k)] > 0:
                res |= np.int64(1) << (q * 2 + k)
                if first:
                    return res
    return res


@kernel
def uprising_targets(s, p, first=False):
    n = n_colours(s)
    res = 0
    for q in range(N_PROV):
        if not represented(s, p, q):
            continue
        for v in range(n):
            if v == p:
                continue
            for t in range(2):
                if s[ti(v, q, t)] > 0 and not protected(s, v, p, q, t, True):
                    res |= 1 << q
                    if first:
                        return res
    return res


@kernel
def move_sources(s, p, same_type, first=False):
    """(q, t) bit set of own tokens that may move to some adjacent province."""
    res = np.int64(0)
    gain = gain_set(s)
    for q in range(N_PROV):
        if (s[ADJB + q] & gain) == 0:
            continue
        for t in range(2):
            if s[ti(p, q, t)] > 0:
                res |= np.int64(1) << (q * 2 + t)
                if first:
                    return res
    return res


@kernel
def victim_ok(s, p, v, purpose, ct, lsp):
    """``lsp``: ``legal_set(s, p, False, True)`` (:func:`card_sets`)."""
    if purpose == PU_ALLY:
        # 2 players: naming the Eternal Emperor costs Dynasty Influence (DI >= cost needed)
        return not is_ee(s, v) or s[pb(p) + F_DI] >= dconst(s, K_ALLY_COST)
    if purpose == PU_CONVERT:
        return convert_targets(s, p, v, True) != 0
    if purpose == PU_REMOVE:
        return remove_targets(s, p, v, dyn_field(s, ct, C_A0 + 1), lsp, True) != 0
    return assassin_targets(s, p, v, True) != 0


@kernel
def card_sets(s, p):
    """LEGAL(p) and LEGAL(p) with PLAGUE provinces kept (``legal_set(s, p, False, False)`` and
    ``legal_set(s, p, False, True)``): what :func:`card_playable` takes, computed once for a hand."""
    r = reach(s, p, False)
    return r & gain_set(s), r & open_set(s)


@kernel
def card_playable(s, p, c, ls, lsp):
    """D18/D42: a card is playable when some part of it has a legal target.  ``ls``, ``lsp``:
    :func:`card_sets`."""
    ct = s[DYN_TYPE + c]
    if banned(s, dyn_field(s, ct, C_CTYPE)):
        return False
    kind = dyn_field(s, ct, C_KIND)
    a0 = dyn_field(s, ct, C_A0)
    a1 = dyn_field(s, ct, C_A0 + 1)
    n = n_players(s)
    if kind == DK_LEADER:
        return leader_targets(s, p, a0, ls, True) != 0
    if kind == DK_STRUCTURE:
        return structure_targets(s, p, a0, a1, True) != 0
    if kind == DK_GAIN_SPLIT or kind == DK_GAIN:
        target = dyn_field(s, ct, C_A0 + 3) if kind == DK_GAIN_SPLIT else dyn_field(s, ct, C_A0 + 2)
        if target == TG_LEGAL:
            return ls != 0
        return (
            target_set(
                s, p, target, dyn_field(s, ct, C_A0 + 2) if kind == DK_GAIN_SPLIT else a1, True
            )
            != 0
        )
    if kind == DK_MOVE:
        return move_sources(s, p, True, True) != 0
    if kind == DK_ALLIANCE:
        return n >= 2
    if kind == DK_EACH_OTHER_REMOVES:
        return uprising_targets(s, p, True) != 0
    purpose = (
        PU_CONVERT
        if kind == DK_CONVERT
        else (PU_REMOVE if kind == DK_REMOVE_OTHER else PU_ASSASSIN)
    )
    for v in range(n_colours(s)):
        if v != p and victim_ok(s, p, v, purpose, ct, lsp):
            return True
    return False


@kernel
def free_type(s, p):
    if ability(s, p) == AB_FREE_PLAY:
        return ab_arg(s, p, 0)
    return -1


# ============================================================================ the machine


@kernel
def run_auto(s, o):
    """Run the automatic task at ``o`` (or turn it into a decision).  True if a seat must decide."""
    kind = s[o]
    p = s[o + 1]
    n = n_players(s)
    if kind == TK_DEAL:
        pop(s)
        deal(s)
        return False
    if kind == TK_EVENT_DRAW:
        pop(s)
        e = _draw(s, EVT_DECK, EVT_LOC, G_EVT_PTR, G_EVT_END, N_EVENTS, -1)
        if e < 0:
            return False
        s[EVT_LOC + e] = LOC_DISCARD
        s[G_EVENTS_DRAWN] += 1
        s[G_EE_DEC] = s[G_FIRST]  # D29: the First Player token holder chooses for the EE
        if s[o + 2] == 0 and event_field(s, e, E_CLASS) == MINOR:
            push(s, TK_EVENT_DRAW, 0, 1, 0, 0, 0, 0, 0)
        resolve_event(s, e)
        return False
    if kind == TK_ARC:
        pop(s)
        arc(s, p)
        return False
    if kind == TK_VOTE_REVEAL:
        pop(s)
        ayes = 0
        nays = 0
        for v in range(n_colours(s)):
            w = ab_arg(s, v, 0) if ability(s, v) == AB_VOTE_WEIGHT else 1
            if is_ee(s, v):
                w = dconst(s, K_EE_VOTE)  # the EE's vote, declared by the bid winner
            if s[pb(v) + F_PICK] == 0:
                ayes += w
            else:
                nays += w
        s[G_AYES] = ayes
        s[G_NAYS] = nays
        s[G_VOTE_STAGE] = 1
        return False
    if kind == TK_VOTE_RESOLVE:
        pop(s)
        resolve_vote(s)
        return False
    if kind == TK_BID_RESOLVE:
        pop(s)
        resolve_bids(s)
        return False
    if kind == TK_BID:
        if s[pb(p) + F_DI] == 0:
            s[pb(p) + F_BID] = 0  # nothing to bid: no decision
            pop(s)
            return False
        if s[o + 2] == 0 and s[pb(p) + F_DI] < N_NUM:
            s[o + 2] = 1  # a bid below 16 is one decision (the low digit)
            s[pb(p) + F_BID] = 0
        return True
    if kind == TK_DRAFT_PASS:
        stage = s[o + 2]
        pop(s)
        draft_pass(s, stage)
        return False
    if kind == TK_DONG:
        # T2 (optional, spec 6.3 / 6.5): offered when Dong qualifies and his Home can take a gain
        if dong_types(s, p) == 0:
            pop(s)
            return False
        return True
    if kind == TK_XUN:
        rem = s[o + 2]
        pop(s)
        if rem > 1:
            push(s, TK_XUN, p, rem - 1, 0, 0, 0, 0, 0)  # the next roll, made after this one's gain
        xun_roll(s, p)
        return False
    # decision tasks that may have become empty or automatic
    if kind == TK_DISCARD:
        if s[pb(p) + F_NDYN] <= s[pb(p) + F_KEEP]:
            pop(s)
            return False
        return True
    if kind == TK_GAIN:
        return gain_step(s, o)
    if kind == TK_TARGET:
        if target_candidates(s, o) == 0:
            pop(s)
            return False
        return True
    if kind == TK_REMOVE_OWN:
        if s[o + 2] <= 0 or remove_own_options(s, o) == 0:
            pop(s)
            return False
        return True
    if kind == TK_TAKE_OTHERS:
        if s[o + 2] <= 0 or take_others_options(s, o) == 0:
            pop(s)
            return False
        return True
    if kind == TK_INIT_PLACE:
        return init_place(s, o)
    if kind == TK_FREE:
        ft = free_type(s, p)
        if ft < 0 or s[o + 3] == 1 or not any_free_card(s, p, ft):
            pop(s)
            return False
        return True
    if kind == TK_MOVE_FROM:
        if move_sources(s, p, True) == 0:
            pop(s)
            return False
        return True
    if kind == TK_FLIP:
        if tokens_total(s, p) == 0:
            pop(s)
            return False
        return True
    if kind == TK_GUO:
        if guo_options(s, p) == 0:
            pop(s)
            return False
        return True
    if kind == TK_EXTRA:
        if s[pb(p) + F_NVOTE] == 0:
            pop(s)
            return False
        return True
    return True


@kernel
def any_free_card(s, p, ft):
    b = pb(p)
    ls, lsp = card_sets(s, p)
    for i in range(s[b + F_NDYN]):
        c = s[b + F_HAND + i]
        if dyn_field(s, s[DYN_TYPE + c], C_CTYPE) == ft and card_playable(s, p, c, ls, lsp):
            return True
    return False


@kernel
def advance(s):
    """Run automatic steps until a seat must decide (or the game is over)."""
    while True:
        if s[G_OVER] == 1:
            s[H_CURRENT] = NO_PLAYER
            return
        if s[G_SP] == 0:
            next_phase(s)
            continue
        o = top(s)
        if run_auto(s, o):
            p = s[o + 1]
            # the Eternal Emperor takes no decisions: the seat that decides for it does (spec 8)
            s[H_CURRENT] = s[G_EE_DEC] if is_ee(s, p) else p
            return


# ---------------------------------------------------------------------------- gains


@kernel
def gain_step(s, o):
    """The gain procedure (spec 5.4) as stages: ANY split, extras, either-type extras, bonus."""
    g = s[o + 1]
    q = s[o + 2]
    stage = s[o + 6] >> 4
    flags = s[o + 7]
    if stage == 0:
        if s[o + 5] > 0:
            return True  # the type of one ANY token
        stage = 1
    if stage == 1:
        either = 0
        m = s[o + 3]
        pp = s[o + 4]
        if (flags & GF_NO_EXTRAS) == 0:
            ab = ability(s, g)
            base_m = m > 0
            base_p = pp > 0
            if ab == AB_EXTRA_IN_PROVINCE and q == ab_arg(s, g, 0):
                either += ab_arg(s, g, 1)
            if ab == AB_EXTRA_CATCHUP:
                if ab_arg(s, g, 0) == M and base_m and (flags & GF_PRE_CATCH_M):
                    m += ab_arg(s, g, 1)
                if ab_arg(s, g, 0) == P and base_p and (flags & GF_PRE_CATCH_P):
                    pp += ab_arg(s, g, 1)
            if ab == AB_EXTRA_NEW_PROVINCE and (flags & GF_PRE_NEW):
                if base_m and base_p:
                    either += ab_arg(s, g, 0)
                elif base_m:
                    m += ab_arg(s, g, 0)
                elif base_p:
                    pp += ab_arg(s, g, 0)
            if ab == AB_EXTRA_IN_SET and in_set(s, q, ab_arg(s, g, 0)):
                if ab_arg(s, g, 1) == M and base_m:
                    m += ab_arg(s, g, 2)
                if ab_arg(s, g, 1) == P and base_p:
                    pp += ab_arg(s, g, 2)
            if s[MARK + q] & MK_OMEN:
                if base_m and base_p:
                    either += 1
                elif base_m:
                    m += 1
                elif base_p:
                    pp += 1
        s[o + 3] = m
        s[o + 4] = pp
        s[o + 6] = either | (2 << 4)
        stage = 2
    if stage == 2:
        if (s[o + 6] & 15) > 0:
            return True
        stage = 3
        s[o + 6] = 3 << 4
    if stage == 3:
        if (flags & GF_NO_BONUS) == 0 and s[o + 3] > 0 and s[pb(g) + F_BM] > 0:
            return True
        stage = 4
        s[o + 6] = 4 << 4
    if stage == 4:
        if (flags & GF_NO_BONUS) == 0 and s[o + 4] > 0 and s[pb(g) + F_BP] > 0:
            return True
    bm = (flags >> 8) & 255
    bp = (flags >> 16) & 255
    add_tokens(s, g, q, s[o + 3] - bm, s[o + 4] - bp, bm, bp)
    pop(s)
    return False


@kernel
def target_candidates(s, o):
    g = s[o + 1]
    target = s[o + 2]
    if target == TG_MASK:
        res = 0
        for q in range(N_PROV):
            if (s[o + 7] >> q) & 1 and gain_ok(s, q):
                res |= 1 << q
        return res
    return target_set(s, g, target, s[o + 3]) & ~s[o + 7]


@kernel
def push_typed_gain(s, g, q, typ, nn, flags):
    if typ == T_M:
        push_gain(s, g, q, nn, 0, 0, flags)
    elif typ == T_P:
        push_gain(s, g, q, 0, nn, 0, flags)
    else:
        push_gain(s, g, q, 0, 0, nn, flags)


@kernel
def init_place(s, o):
    """G8: 2 M + 2 P at Home, 3 under Wu-Gui's tax (the taxed player drops M or P); no bonus."""
    p = s[o + 1]
    h = s[pb(p) + F_HOME]
    if h < 0 or not gain_ok(s, h):
        pop(s)
        return False
    n = n_players(s)
    taxed = False
    for v in range(n):
        if v != p and ability(s, v) == AB_HOME_TAX and represented(s, v, h):
            taxed = True
    if taxed and s[o + 2] == 0:
        return True  # decision: which type to drop
    m = dconst(s, K_INIT_M)
    pp = dconst(s, K_INIT_P)
    if taxed:
        if s[o + 3] == M:
            m -= 1
        else:
            pp -= 1
    pop(s)
    push_gain(s, p, h, m, pp, 0, GF_NO_BONUS)
    return False


# ---------------------------------------------------------------------------- removals


@kernel
def remove_own_options(s, o):
    """TK_REMOVE_OWN(p, count, q or -1, type or -1, actor or -1): (q, t) bit set."""
    p = s[o + 1]
    qq = s[o + 3]
    tt = s[o + 4]
    actor = s[o + 5]
    res = np.int64(0)
    for q in range(N_PROV):
        if qq >= 0 and q != qq:
            continue
        if qq == -2 and ((s[o + 7] >> q) & 1) == 0:
            continue
        for t in range(2):
            if tt >= 0 and t != tt:
                continue
            if s[ti(p, q, t)] > 0 and not (actor >= 0 and protected(s, p, actor, q, t, True)):
                res |= np.int64(1) << (q * 2 + t)
    return res


@kernel
def take_others_options(s, o):
    """TK_TAKE_OTHERS(p, count, q, type or -1): bit v*2+t of other colours' tokens in q."""
    p = s[o + 1]
    q = s[o + 3]
    tt = s[o + 4]
    res = 0
    for v in range(n_colours(s)):
        if v == p:
            continue
        for t in range(2):
            if (tt < 0 or t == tt) and s[ti(v, q, t)] > 0:
                res |= 1 << (v * 2 + t)
    return res


@kernel
def guo_options(s, p):
    h = s[pb(p) + F_HOME]
    res = 0
    for q in range(N_PROV):
        if s[ADJ + h * N_PROV + q] == 1:
            for v in range(n_colours(s)):
                if v != p and s[ti(v, q, M)] > 0:
                    res |= 1 << q
    return res


@kernel
def remove_n(s, v, q, t, k):
    r = min(k, s[ti(v, q, t)])
    s[ti(v, q, t)] -= r
    touch(s, q)
    return r


# ---------------------------------------------------------------------------- abilities, votes, events


@kernel
def arc(s, p):
    """G7: a Ruler's "after Rulers are chosen" ability."""
    ab = ability(s, p)
    if ab == AB_ARC_TAKE_SETASIDE:
        want = ab_arg(s, p, 0)
        for c in range(N_DYN):
            if (
                s[DYN_TYPE + c] == want
                and s[DYN_LOC + c] == LOC_SETASIDE
                and s[pb(p) + F_NDYN] < HAND_MAX
            ):
                add_to_hand(s, p, c)
                break
    elif ab == AB_ARC_DRAW_DYNASTY:
        for _ in range(ab_arg(s, p, 0)):
            draw_dynasty(s, p)
    elif ab == AB_ARC_DRAW_VOTE:
        for _ in range(ab_arg(s, p, 0)):
            draw_vote(s, p)
    elif ab == AB_ARC_GAIN_SPLIT:
        push(
            s,
            TK_TARGET,
            p,
            ab_arg(s, p, 3),
            ab_arg(s, p, 2),
            ab_arg(s, p, 1),
            ab_arg(s, p, 0),
            0,
            0,
        )
    elif ab == AB_ARC_ROLL_GAIN:
        # Xun (Ruler 13: "twice: roll ...; choose ...; gain ..."): one roll at a time, each
        # resolved (choice, gain) before the next is made (TK_XUN)
        if ab_arg(s, p, 0) > 0:
            push(s, TK_XUN, p, ab_arg(s, p, 0), 0, 0, 0, 0, 0)
    elif ab == AB_ARC_REMOVE_OTHERS:
        if ab_arg(s, p, 2) == 0:
            tt = -1 if ab_arg(s, p, 1) == T_ANY else ab_arg(s, p, 1)
            push(s, TK_TAKE_OTHERS, p, ab_arg(s, p, 0), s[pb(p) + F_HOME], tt, 0, 0, 0)
        else:
            push(s, TK_GUO, p, 0, 0, 0, 0, 0, 0)


@kernel
def xun_roll(s, p):
    """One of Xun's rolls: the rolled number and its neighbours (wrapping) where a gain is
    possible (D25); nothing when none is."""
    spread = ab_arg(s, p, 3)
    r = roll_province(s)
    mask = 0
    for d in range(-spread, spread + 1):
        q = r + d
        if q < 0 or q >= N_PROV:
            if ab_arg(s, p, 4) == 0:
                continue
            q = q % N_PROV
        if gain_ok(s, q):
            mask |= 1 << q
    if mask != 0:
        push(s, TK_TARGET, p, TG_MASK, ab_arg(s, p, 2), ab_arg(s, p, 1), 1, 0, mask)


@kernel
def dong_types(s, p):
    """Dong's start-of-turn gain (Ruler 34): the types he may take (bit t), 0 when it is not
    offered: another colour (the EE included) has fewer tokens on the board, or his Home
    cannot take a gain (5.4 step 0)."""
    mine = tokens_total(s, p)
    for v in range(n_colours(s)):
        if v != p and tokens_total(s, v) < mine:
            return 0
    h = s[pb(p) + F_HOME]
    if h < 0 or not gain_ok(s, h):
        return 0
    typ = ab_arg(s, p, 1)
    if typ == T_M:
        return 1
    if typ == T_P:
        return 2
    return 3


@kernel
def most_tokens_players(s, out):
    n = n_colours(s)
    best = -1
    for p in range(n):
        t = tokens_total(s, p)
        if t > best:
            best = t
    k = 0
    for p in range(n):
        if tokens_total(s, p) == best:
            out[k] = p
            k += 1
    return k


@kernel
def resolve_vote(s):
    """V6-V8."""
    n = n_players(s)
    vt = s[VOTE_TYPE + s[G_VOTE_CARD]]
    caller = s[G_VOTE_CALLER]
    passed = s[G_AYES] > s[G_NAYS]
    kind = vote_field(s, vt, V_KIND)
    a0 = vote_field(s, vt, V_A0)
    a1 = vote_field(s, vt, V_A0 + 1)
    a2 = vote_field(s, vt, V_A0 + 2)
    s[G_VOTE_STAGE] = 2
    if kind == VK_BAN:
        s[G_BAN + vt] = 1 if passed else 0
    if not passed:
        return
    s[G_VOTES_PASSED] += 1
    s[pb(caller) + F_VOTES_PASSED] += 1
    order = s[SC_ORDER + OR_VOTE * (MAXP + 1) : SC_ORDER + (OR_VOTE + 1) * (MAXP + 1)]
    # from the caller's left, the caller last, then the EE (2 players: non-caller, caller, EE)
    nc = colour_order(s, caller + 1, order)
    if kind == VK_REMOVE_ALL_LEADERS:
        for i in range(NCOL * N_PROV * 2):
            s[LEAD + i] = 0
        touch_all(s)
        return
    if kind == VK_EACH_DRAW:
        for i in range(n):  # the seats only: the EE holds no cards (D43)
            for _ in range(a0):
                draw_dynasty(s, order[i])
        return
    if kind == VK_TOP_TAX:
        tops = s[SC_TOPS : SC_TOPS + MAXP + 1]
        k = most_tokens_players(s, tops)
        for i in range(nc - 1, -1, -1):
            p = order[i]
            for j in range(k):
                if tops[j] == p:
                    push(s, TK_REMOVE_OWN, p, a0, -1, -1, -1, 0, 0)
        return
    for i in range(nc - 1, -1, -1):
        p = order[i]
        if kind == VK_EACH_GAIN:
            # 5.4 step 1: every share is checked on the board from before the first share
            push(s, TK_TARGET, p, a2, a1, a0, 1, precheck_snapshot(s, p), 0)
        elif kind == VK_EACH_REMOVE_OWN:
            push(s, TK_REMOVE_OWN, p, a0, -1, a1, -1, 0, 0)
        elif kind == VK_EACH_MOVE:
            push(s, TK_MOVE_FROM, p, a0, 1, 0, 0, 0, 0)


@kernel
def resolve_bids(s):
    """2 players, after both bids (spec 8): the higher bid wins, equal bids go to the First
    Player token holder; only the winner pays.  The bids are public from here on; the winner
    makes the EE's choices in this Vote and now declares the EE's vote."""
    b0 = s[pb(0) + F_BID]
    b1 = s[pb(1) + F_BID]
    w = 0 if b0 > b1 else (1 if b1 > b0 else s[G_FIRST])
    bid = s[pb(w) + F_BID]
    s[pb(w) + F_DI] -= bid
    s[pb(w) + F_DI_SPENT] += bid
    s[pb(w) + F_BIDS_WON] += 1
    s[G_BID_WINNER] = w
    s[G_EE_DEC] = w
    s[G_BIDS] += 1
    push(s, TK_EE_VOTE, w, 0, 0, 0, 0, 0, 0)


@kernel
def roll_distinct(s, k, out):
    for i in range(k):
        while True:
            q = roll_province(s)
            dup = False
            for j in range(i):
                if out[j] == q:
                    dup = True
            if not dup:
                out[i] = q
                break


@kernel
def coin_majority(s, counts, first, second):
    """7.2: event Coin awards by counts (positive only); the EE takes part (spec 8)."""
    n = n_colours(s)
    best = 0
    for p in range(n):
        if counts[p] > best:
            best = counts[p]
    if best <= 0:
        return
    k = 0
    for p in range(n):
        if counts[p] == best:
            k += 1
    if k == 2:
        for p in range(n):
            if counts[p] == best:
                award_coins(s, p, second)
        return
    if k >= 3:
        return
    top_p = -1
    for p in range(n):
        if counts[p] == best:
            top_p = p
    award_coins(s, top_p, first)
    sec = 0
    for p in range(n):
        if p != top_p and counts[p] > sec:
            sec = counts[p]
    if sec > 0:
        k = 0
        who = -1
        for p in range(n):
            if p != top_p and counts[p] == sec:
                k += 1
                who = p
        if k == 1:
            award_coins(s, who, second)


@kernel
def resolve_event(s, e):
    """3.4: one Event card.  In 2 players the EE is affected like a player and comes after
    both in the order of choices; the first player chooses for it (D29)."""
    n = n_colours(s)
    kind = event_field(s, e, E_KIND)
    a0 = event_field(s, e, E_A0)
    a1 = event_field(s, e, E_A0 + 1)
    a2 = event_field(s, e, E_A0 + 2)
    a3 = event_field(s, e, E_A0 + 3)
    order = s[SC_ORDER + OR_EVENT * (MAXP + 1) : SC_ORDER + (OR_EVENT + 1) * (MAXP + 1)]
    colour_order(s, s[G_FIRST], order)
    rolled = s[SC_ROLLED : SC_ROLLED + 4]
    touch_all(s)  # an event may change any province
    if kind == EK_ROLL_EACH_REMOVE:
        roll_distinct(s, a0, rolled)
        for i in range(a0):
            for p in range(n):
                remove_n(s, p, rolled[i], a1, a2)
    elif kind == EK_COIN_MAJORITY:
        counts = s[SC_COUNTS : SC_COUNTS + MAXP + 1]
        for p in range(MAXP + 1):
            counts[p] = 0
        for p in range(n):
            for q in range(N_PROV):
                if in_set(s, q, a1):
                    counts[p] += s[ti(p, q, a0)]
        coin_majority(s, counts, a2, a3)
    elif kind == EK_MARK:
        roll_distinct(s, a1, rolled)
        for i in range(a1):
            s[MARK + rolled[i]] |= a0
    elif kind == EK_ROLL_HALVE or kind == EK_ROLL_WIPE:
        roll_distinct(s, a0, rolled)
        for i in range(a0):
            q = rolled[i]
            for p in range(n):
                for t in range(2):
                    if kind == EK_ROLL_WIPE:
                        s[ti(p, q, t)] = 0
                    else:
                        h = s[ti(p, q, t)]
                        s[ti(p, q, t)] = h - ((h + a1) // 2)
            if kind == EK_ROLL_WIPE and a1 == 1:
                s[STRUCT + q * 2] = 0
                s[STRUCT + q * 2 + 1] = 0
    elif kind == EK_SET_HALVE:
        for q in range(N_PROV):
            if (event_field(s, e, E_SET) >> q) & 1:
                for p in range(n):
                    for t in range(2):
                        h = s[ti(p, q, t)]
                        s[ti(p, q, t)] = h - ((h + a1) // 2)
    elif kind == EK_SET_REMOVE:
        for q in range(N_PROV):
            if in_set(s, q, a0):
                for p in range(n):
                    remove_n(s, p, q, a1, a2)
    elif kind == EK_REMOVE_ALL_STRUCTURES:
        for i in range(N_PROV * 2):
            s[STRUCT + i] = 0
    elif kind == EK_COIN_CONTROL:
        counts = s[SC_COUNTS : SC_COUNTS + MAXP + 1]
        for p in range(MAXP + 1):
            counts[p] = 0
        for q in range(N_PROV):
            for p in range(n):
                sole = True
                for t in range(2):
                    mine = s[ti(p, q, t)]
                    if mine <= 0:
                        sole = False
                    for v in range(n):
                        if v != p and s[ti(v, q, t)] >= mine:
                            sole = False
                if sole:
                    counts[p] += 1
        coin_majority(s, counts, a0, a1)
    elif kind == EK_ROLL_EACH_GAIN:
        roll_distinct(s, a0, rolled)
        for i in range(a0 - 1, -1, -1):
            q = rolled[i]
            for j in range(n - 1, -1, -1):
                p = order[j]
                if represented(s, p, q):
                    push_typed_gain(
                        s, p, q, event_field(s, e, E_A0 + 2), a1, GF_NO_BONUS | GF_NO_EXTRAS
                    )
    elif kind == EK_TOP_TAX:
        tops = s[SC_TOPS : SC_TOPS + MAXP + 1]
        k = most_tokens_players(s, tops)
        for j in range(n - 1, -1, -1):
            p = order[j]
            for i in range(k):
                if tops[i] == p:
                    push(s, TK_REMOVE_OWN, p, a0, -1, -1, -1, 0, 0)
    elif kind == EK_FAMINE:
        # one task per player: one token (a1 == 1, checked on load) from each province in the mask
        for j in range(n - 1, -1, -1):
            p = order[j]
            mask = 0
            for q in range(N_PROV):
                if s[ti(p, q, M)] + s[ti(p, q, P)] >= a0:
                    mask |= 1 << q
            if mask != 0:
                push(s, TK_REMOVE_OWN, p, bit_count(mask), -2, -1, -1, 0, mask)


# ============================================================================ contract kernels


@kernel
def is_terminal(s):
    return s[H_CURRENT] == NO_PLAYER


@kernel
def _set_bits(out, base, bits, count):
    c = 0
    for i in range(count):
        if (np.int64(bits) >> i) & 1:
            out[base + i] = True
            c += 1
    return c


@kernel
def legal_mask(s, out):
    clear_mask(out, NUM_ACTIONS)
    if s[H_CURRENT] == NO_PLAYER:
        return np.int64(0)
    o = top(s)
    kind = s[o]
    p = s[o + 1]
    b = pb(p)
    c = 0
    if kind == TK_RULER or kind == TK_DRAFT:
        for k in range(3):
            if s[b + F_DEALT + k] >= 0:
                out[A_NUM + k] = True
                c += 1
    elif kind == TK_DISCARD:
        for i in range(s[b + F_NDYN]):
            out[A_CARD + i] = True
            c += 1
    elif kind == TK_VOTECALL:
        out[A_SKIP] = True
        c = 1
        for i in range(s[b + F_NVOTE]):
            out[A_NUM + i] = True
            c += 1
    elif kind == TK_ACTION:
        ls, lsp = card_sets(s, p)
        # the placement reach differs from LEGAL(p) only for Zeng's (reach's ``placement``)
        place = legal_set(s, p, True, False) if ability(s, p) == AB_PLACE_RANGE else ls
        for q in range(N_PROV):
            if (place >> q) & 1:
                out[A_PQ + q * 2] = True
                out[A_PQ + q * 2 + 1] = True
                c += 2
        for i in range(s[b + F_NDYN]):
            if card_playable(s, p, s[b + F_HAND + i], ls, lsp):
                out[A_CARD + i] = True
                c += 1
        out[A_SKIP] = True
        c += 1
    elif kind == TK_FREE:
        ft = free_type(s, p)
        ls, lsp = card_sets(s, p)
        for i in range(s[b + F_NDYN]):
            cc = s[b + F_HAND + i]
            if dyn_field(s, s[DYN_TYPE + cc], C_CTYPE) == ft and card_playable(s, p, cc, ls, lsp):
                out[A_CARD + i] = True
                c += 1
        out[A_SKIP] = True
        c += 1
    elif kind == TK_GAIN:
        stage = s[o + 6] >> 4
        if stage == 0 or stage == 2:
            out[A_TYPE] = True
            out[A_TYPE + 1] = True
            c = 2
        else:
            pool = s[b + F_BM] if stage == 3 else s[b + F_BP]
            for k in range(min(pool, N_NUM - 1) + 1):
                out[A_NUM + k] = True
                c += 1
    elif kind == TK_TARGET:
        c = _set_bits(out, A_PROV, target_candidates(s, o), N_PROV)
    elif kind == TK_INIT_PLACE:
        out[A_TYPE] = True
        out[A_TYPE + 1] = True
        c = 2
    elif kind == TK_AYENAY or kind == TK_EE_VOTE:
        out[A_AYE] = True
        out[A_NAY] = True
        c = 2
    elif kind == TK_BID:
        # a bid 0..DI in base 16: the high digit (only when DI >= 16), then the low digit
        di = s[b + F_DI]
        if s[o + 2] == 0:
            hi = min(di // N_NUM, N_NUM - 1)
        else:
            hi = min(di - s[b + F_BID], N_NUM - 1)
        for k in range(hi + 1):
            out[A_NUM + k] = True
            c += 1
    elif kind == TK_EXTRA:
        out[A_SKIP] = True
        c = 1
        for i in range(s[b + F_NVOTE]):
            out[A_NUM + i] = True
            out[A_NUM + VHAND_MAX + i] = True
            c += 2
    elif kind == TK_PICK_PLAYER:
        lsp = legal_set(s, p, False, True)
        for v in range(n_colours(s)):
            if v != p and victim_ok(s, p, v, s[o + 2], s[o + 3], lsp):
                out[A_PLAYER + v] = True
                c += 1
    elif kind == TK_CONVERT_AT:
        c = _set_bits(out, A_PQ, convert_targets(s, p, s[o + 2]), N_PROV * 2)
    elif kind == TK_REMOVE_OTHER_AT:
        c = _set_bits(
            out,
            A_PROV,
            remove_targets(s, p, s[o + 2], s[o + 4], legal_set(s, p, False, True)),
            N_PROV,
        )
    elif kind == TK_ASSASSIN_AT:
        c = _set_bits(out, A_PQ, assassin_targets(s, p, s[o + 2]), N_PROV * 2)
    elif kind == TK_UPRISING:
        c = _set_bits(out, A_PROV, uprising_targets(s, p), N_PROV)
    elif kind == TK_REMOVE_OWN:
        c = _set_bits(out, A_PQ, remove_own_options(s, o), N_PROV * 2)
    elif kind == TK_TAKE_OTHERS:
        c = _set_bits(out, A_NUM, take_others_options(s, o), N_NUM)
    elif kind == TK_GUO:
        c = _set_bits(out, A_PROV, guo_options(s, p), N_PROV)
    elif kind == TK_LEADER:
        c = _set_bits(
            out, A_PROV, leader_targets(s, p, s[o + 2], legal_set(s, p, False, False)), N_PROV
        )
    elif kind == TK_STRUCT:
        c = _set_bits(out, A_PROV, structure_targets(s, p, s[o + 2], s[o + 3]), N_PROV)
    elif kind == TK_MOVE_FROM:
        c = _set_bits(out, A_PQ, move_sources(s, p, True), N_PROV * 2)
        if s[o + 3] == 1:
            out[A_SKIP] = True
            c += 1
    elif kind == TK_MOVE_TO:
        c = _set_bits(out, A_PROV, s[ADJB + s[o + 2]] & gain_set(s), N_PROV)
    elif kind == TK_MOVE_N:
        k = min(s[o + 5], s[ti(p, s[o + 2], s[o + 3])])
        for j in range(1, k + 1):
            out[A_NUM + j] = True
            c += 1
    elif kind == TK_FLIP:
        for q in range(N_PROV):
            for t in range(2):
                if s[ti(p, q, t)] > 0:
                    out[A_PQ + q * 2 + t] = True
                    c += 1
        out[A_SKIP] = True
        c += 1
    elif kind == TK_DONG:
        # skip, or take the gain with the type of its (first) token
        c = _set_bits(out, A_TYPE, dong_types(s, p), 2)
        out[A_SKIP] = True
        c += 1
    return np.int64(c)


@kernel
def play_card(s, p, slot):
    """Play the Dynasty card in ``slot``: it goes to the discard (set-aside copies back).
    The card player makes the Eternal Emperor's choices in its effect (spec 8)."""
    s[G_EE_DEC] = p
    c = s[pb(p) + F_HAND + slot]
    if not is_setaside_copy(s, c):  # D50: a set-aside copy of the same kind is played first
        for i in range(s[pb(p) + F_NDYN]):
            o = s[pb(p) + F_HAND + i]
            if s[DYN_TYPE + o] == s[DYN_TYPE + c] and is_setaside_copy(s, o):
                slot = i
                break
    c = remove_from_hand(s, p, slot)
    discard_card(s, c, KNOW_ALL)
    s[pb(p) + F_CARDS_PLAYED] += 1
    ct = s[DYN_TYPE + c]
    kind = dyn_field(s, ct, C_KIND)
    a = s[SC_CARD : SC_CARD + 6]
    for i in range(6):
        a[i] = dyn_field(s, ct, C_A0 + i)
    if kind == DK_LEADER:
        push(s, TK_LEADER, p, a[0], a[1], a[2], 0, 0, 0)
    elif kind == DK_STRUCTURE:
        push(s, TK_STRUCT, p, a[0], a[1], a[2], 0, 0, 0)
    elif kind == DK_GAIN_SPLIT:
        push(s, TK_TARGET, p, a[3], a[2], a[1], a[0], 0, 0)
    elif kind == DK_GAIN:
        push(s, TK_TARGET, p, a[2], a[1], a[0], 1, 0, 0)
    elif kind == DK_MOVE:
        push(s, TK_MOVE_FROM, p, a[0], 0, 0, 0, 0, 0)
    elif kind == DK_ALLIANCE:
        push(s, TK_PICK_PLAYER, p, PU_ALLY, ct, 0, 0, 0, 0)
    elif kind == DK_CONVERT:
        push(s, TK_PICK_PLAYER, p, PU_CONVERT, ct, 0, 0, 0, 0)
    elif kind == DK_REMOVE_OTHER:
        push(s, TK_PICK_PLAYER, p, PU_REMOVE, ct, 0, 0, 0, 0)
    elif kind == DK_REMOVE_LEADER:
        push(s, TK_PICK_PLAYER, p, PU_ASSASSIN, ct, 0, 0, 0, 0)
    elif kind == DK_EACH_OTHER_REMOVES:
        push(s, TK_UPRISING, p, a[0], 0, 0, 0, 0, 0)


@kernel
def call_vote(s, p, slot):
    """V1-V5 pushed in order: picks from the caller's left (caller last, D48), reveal, extras, result."""
    n = n_players(s)
    c = remove_vote(s, p, slot, KNOW_ALL)
    s[G_VOTE_CARD] = c
    s[G_VOTE_CALLER] = p
    s[G_VOTE_STAGE] = 0
    s[G_AYES] = 0
    s[G_NAYS] = 0
    s[G_VOTES_CALLED] += 1
    s[pb(p) + F_CALLED] = 1
    s[pb(p) + F_VOTES_CALLED] += 1
    for v in range(n_colours(s)):
        s[pb(v) + F_PICK] = -1
        s[pb(v) + F_BID] = -1
    s[G_BID_WINNER] = -1
    order = s[SC_ORDER + OR_CALL * (MAXP + 1) : SC_ORDER + (OR_CALL + 1) * (MAXP + 1)]
    seat_order(s, p + 1, order)
    push(s, TK_VOTE_RESOLVE, p, 0, 0, 0, 0, 0, 0)
    for i in range(n - 1, -1, -1):
        push(s, TK_EXTRA, order[i], 0, 0, 0, 0, 0, 0)  # 2 players: the non-caller, then the caller
    push(s, TK_VOTE_REVEAL, p, 0, 0, 0, 0, 0, 0)
    if n == 2:
        # spec 8: each player's Aye/Nay comes with a secret bid; after both, the bid reveal
        # (TK_BID_RESOLVE), which pushes the winner's declaration of the EE's vote
        push(s, TK_BID_RESOLVE, p, 0, 0, 0, 0, 0, 0)
    for i in range(n - 1, -1, -1):
        if n == 2:
            push(s, TK_BID, order[i], 0, 0, 0, 0, 0, 0)
        push(s, TK_AYENAY, order[i], 0, 0, 0, 0, 0, 0)


@kernel
def apply(s, a):
    o = top(s)
    kind = s[o]
    p = s[o + 1]
    b = pb(p)
    n = n_players(s)
    s[H_PLY] += 1
    if kind == TK_RULER:
        s[b + F_CHOICE] = a - A_NUM
        pop(s)
    elif kind == TK_DRAFT:
        s[b + F_DPICK] = a - A_NUM
        pop(s)
    elif kind == TK_DISCARD:
        discard_card(s, remove_from_hand(s, p, a - A_CARD), 1 << p)
    elif kind == TK_VOTECALL:
        pop(s)
        if a != A_SKIP:
            call_vote(s, p, a - A_NUM)
    elif kind == TK_ACTION:
        pop(s)
        if a == A_SKIP:
            s[G_PASSES] += 1
        elif a < A_PROV:
            q = (a - A_PQ) // 2
            t = (a - A_PQ) % 2
            s[b + F_PLACED] += 1
            push_gain(s, p, q, 1 if t == M else 0, 1 if t == P else 0, 0, 0)
        else:
            play_card(s, p, a - A_CARD)
    elif kind == TK_FREE:
        if a == A_SKIP:
            pop(s)
        else:
            pop(s)
            # a free play at T3 uses up the one free play of the turn (the T5 task below)
            if s[o + 2] == 0 and s[G_SP] >= 2:
                o2 = STACK + (s[G_SP] - 2) * TASK_SIZE
                if s[o2] == TK_FREE and s[o2 + 1] == p:
                    s[o2 + 3] = 1
            play_card(s, p, a - A_CARD)
    elif kind == TK_GAIN:
        stage = s[o + 6] >> 4
        if stage == 0:
            s[o + 3 + (a - A_TYPE)] += 1
            s[o + 5] -= 1
        elif stage == 2:
            s[o + 3 + (a - A_TYPE)] += 1
            s[o + 6] -= 1
        elif stage == 3:
            k = a - A_NUM
            s[o + 3] += k
            s[b + F_BM] -= k
            s[o + 6] = 4 << 4
            s[o + 7] |= k << 8  # bonus amounts are remembered for the cap's loss order (D46)
        else:
            k = a - A_NUM
            s[o + 4] += k
            s[b + F_BP] -= k
            s[o + 6] = 5 << 4
            s[o + 7] |= GF_NO_BONUS | (k << 16)
    elif kind == TK_TARGET:
        q = a - A_PROV
        target = s[o + 2]
        typ = s[o + 3]
        nn = s[o + 4]
        rem = s[o + 5]
        snap = s[o + 6]
        excl = s[o + 7]
        pop(s)
        if rem > 1 and target != TG_MASK:
            push(s, TK_TARGET, p, target, typ, nn, rem - 1, snap, excl | (1 << q))
        push_typed_gain(s, p, q, typ, nn, precheck_from(s, p, q, snap))
    elif kind == TK_INIT_PLACE:
        s[o + 2] = 1
        s[o + 3] = a - A_TYPE
    elif kind == TK_AYENAY or kind == TK_EE_VOTE:
        # TK_EE_VOTE: the bid winner declares the Eternal Emperor's vote (stored in its block)
        s[pb(EE) + F_PICK if kind == TK_EE_VOTE else b + F_PICK] = 0 if a == A_AYE else 1
        pop(s)
    elif kind == TK_BID:
        if s[o + 2] == 0:
            s[b + F_BID] = N_NUM * (a - A_NUM)
            s[o + 2] = 1
        else:
            s[b + F_BID] += a - A_NUM
            pop(s)
    elif kind == TK_EXTRA:
        if a == A_SKIP:
            pop(s)
        else:
            k = a - A_NUM
            if k >= VHAND_MAX:
                remove_vote(s, p, k - VHAND_MAX, 1 << p)
                s[G_NAYS] += 1
            else:
                remove_vote(s, p, k, 1 << p)
                s[G_AYES] += 1
    elif kind == TK_PICK_PLAYER:
        v = a - A_PLAYER
        purpose = s[o + 2]
        ct = s[o + 3]
        pop(s)
        if purpose == PU_ALLY and is_ee(s, v):
            s[b + F_DI] -= dconst(s, K_ALLY_COST)  # 2 players: naming the EE costs DI
            s[b + F_DI_SPENT] += dconst(s, K_ALLY_COST)
        if purpose == PU_ALLY:
            # the ally resolves first (clockwise from the card player's left, card player last)
            # (5.4 step 1: the card player's check reads the board from before the ally's share)
            push(
                s,
                TK_TARGET,
                p,
                dyn_field(s, ct, C_A0 + 4),
                dyn_field(s, ct, C_A0 + 3),
                dyn_field(s, ct, C_A0 + 2),
                1,
                precheck_snapshot(s, p),
                0,
            )
            push(
                s,
                TK_TARGET,
                v,
                dyn_field(s, ct, C_A0 + 4),
                dyn_field(s, ct, C_A0 + 1),
                dyn_field(s, ct, C_A0),
                1,
                precheck_snapshot(s, v),
                0,
            )
        elif purpose == PU_CONVERT:
            push(s, TK_CONVERT_AT, p, v, dyn_field(s, ct, C_A0), 0, 0, 0, 0)
        elif purpose == PU_REMOVE:
            push(
                s,
                TK_REMOVE_OTHER_AT,
                p,
                v,
                dyn_field(s, ct, C_A0),
                dyn_field(s, ct, C_A0 + 1),
                0,
                0,
                0,
            )
        else:
            push(s, TK_ASSASSIN_AT, p, v, 0, 0, 0, 0, 0)
    elif kind == TK_CONVERT_AT:
        q = (a - A_PQ) // 2
        t = (a - A_PQ) % 2
        v = s[o + 2]
        k = s[o + 3]
        pop(s)
        pre = precheck(s, p, q)  # 5.4 step 1: checked before the Betrayal resolves
        r = remove_n(s, v, q, t, k)
        if r > 0:
            push(s, TK_GAIN, p, q, r if t == M else 0, r if t == P else 0, 0, 0, pre)
    elif kind == TK_REMOVE_OTHER_AT:
        remove_n(s, s[o + 2], a - A_PROV, s[o + 4], s[o + 3])
        pop(s)
    elif kind == TK_ASSASSIN_AT:
        q = (a - A_PQ) // 2
        k = (a - A_PQ) % 2
        s[li(s[o + 2], q, k)] = 0
        touch(s, q)
        pop(s)
    elif kind == TK_UPRISING:
        q = a - A_PROV
        k = s[o + 2]
        pop(s)
        order = s[SC_ORDER + OR_APPLY * (MAXP + 1) : SC_ORDER + (OR_APPLY + 1) * (MAXP + 1)]
        nc = colour_order(s, p + 1, order)  # the EE after both players
        for i in range(nc - 1, -1, -1):
            v = order[i]
            if v != p and represented(s, v, q):
                push(s, TK_REMOVE_OWN, v, k, q, -1, p, 0, 0)
    elif kind == TK_REMOVE_OWN:
        q = (a - A_PQ) // 2
        t = (a - A_PQ) % 2
        s[ti(p, q, t)] -= 1
        touch(s, q)
        s[o + 2] -= 1
        if s[o + 3] == -2:
            s[o + 7] &= ~(1 << q)
    elif kind == TK_TAKE_OTHERS:
        k = a - A_NUM
        s[ti(k // 2, s[o + 3], k % 2)] -= 1
        touch(s, s[o + 3])
        s[o + 2] -= 1
    elif kind == TK_GUO:
        q = a - A_PROV
        pop(s)
        push(s, TK_TAKE_OTHERS, p, ab_arg(s, p, 0), q, M, 0, 0, 0)
    elif kind == TK_LEADER:
        q = a - A_PROV
        k = s[o + 2]
        typ = s[o + 3]
        nn = s[o + 4]
        pop(s)
        pre = precheck(s, p, q) | GF_PRE_TAKEN  # 5.4 step 1: before the Leader is placed
        s[li(p, q, k)] = 1
        touch(s, q)
        push_typed_gain(s, p, q, typ, nn, pre)
    elif kind == TK_STRUCT:
        q = a - A_PROV
        k = s[o + 2]
        typ = s[o + 3]
        nn = s[o + 4]
        pop(s)
        s[STRUCT + q * 2 + k] = 1
        touch(s, q)
        push_typed_gain(s, p, q, typ, nn, 0)
    elif kind == TK_MOVE_FROM:
        if a == A_SKIP:
            pop(s)
        else:
            mx = s[o + 2]
            pop(s)
            push(s, TK_MOVE_TO, p, (a - A_PQ) // 2, (a - A_PQ) % 2, 0, mx, 0, 0)
    elif kind == TK_MOVE_TO:
        s[o + 4] = a - A_PROV
        s[o] = TK_MOVE_N
    elif kind == TK_MOVE_N:
        k = a - A_NUM
        q = s[o + 2]
        t = s[o + 3]
        r = s[o + 4]
        s[ti(p, q, t)] -= k
        s[ti(p, r, t)] += k
        touch(s, q)
        touch(s, r)
        pop(s)
    elif kind == TK_FLIP:
        pop(s)
        if a != A_SKIP:
            q = (a - A_PQ) // 2
            t = (a - A_PQ) % 2
            s[ti(p, q, t)] -= 1
            s[ti(p, q, 1 - t)] += 1
            touch(s, q)
    elif kind == TK_DONG:
        pop(s)
        if a != A_SKIP:
            # n tokens at Home, one gain event: the first of the chosen type, the rest of
            # either type (Dong's data: 1 token of either type)
            t = a - A_TYPE
            nn = ab_arg(s, p, 0)
            rest = nn - 1 if ab_arg(s, p, 1) == T_ANY else 0
            k = nn - rest
            push_gain(s, p, s[b + F_HOME], k if t == M else 0, k if t == P else 0, rest, 0)
    advance(s)


@kernel
def final_key(s, p):
    """7.4 as one number: final score, then the tie-breaks (never equal for two colours)."""
    return np.int64(final_score(s, p)) * 100000000 + tiebreak_key(s, p)


@kernel
def ee_wins(s):
    """2 players: the Eternal Emperor finishes first (then both players lose, spec 8).  A full
    tie cannot happen: the last tie-break puts the EE after both players (D28)."""
    if n_players(s) != 2:
        return False
    k = final_key(s, EE)
    return k > final_key(s, 0) and k > final_key(s, 1)


@kernel
def returns(s, scores, wins):
    """Win share 1 for the colour first by 7.4; when it is the Eternal Emperor every seat
    gets 0 (the game declares ``can_all_lose``)."""
    n = n_players(s)
    best = np.int64(-1)
    for p in range(n_colours(s)):
        if p < n:
            scores[p] = final_score(s, p)
        key = final_key(s, p)
        if key > best:
            best = key
    for p in range(n):
        wins[p] = 1.0 if final_key(s, p) == best else 0.0


# ============================================================================ hidden information


@kernel
def in_simultaneous_pick(s):
    """True while Aye/Nay picks are being collected (before the reveal)."""
    return s[G_VOTE_CARD] >= 0 and s[G_VOTE_STAGE] == 0


@kernel
def _resample(
    s, observer, rng, pool, slot_know, deck, ptr, end, hand, count, loc, know, size, dynasty
):
    """One card family (Dynasty or Vote): shuffle together every card ``observer`` cannot
    place -- the undrawn deck, the other seats' hands, and the discards it does not know
    (other seats' face-down discards, spec 9) -- and deal them back into the same places, so
    hand sizes, the deck size and every seat's count of face-down discards are kept.  A
    card keeps the knowledge bits of the place it lands in.  Set-aside copies in a hand are
    public (spec 3.5) and stay."""
    n = n_players(s)
    ob = 1 << observer
    k = 0
    for i in range(s[ptr], s[end]):
        pool[k] = s[deck + i]
        k += 1
    for p in range(n):
        if p != observer:
            for i in range(s[pb(p) + count]):
                c = s[pb(p) + hand + i]
                if dynasty and is_setaside_copy(s, c):
                    continue
                pool[k] = c
                k += 1
    for c in range(size):
        if s[loc + c] == LOC_DISCARD and (s[know + c] & ob) == 0:
            pool[k] = c
            k += 1
    for i in range(k):
        slot_know[i] = s[know + pool[i]]
    shuffle_range(pool, 0, k, rng, 0)
    j = 0
    for i in range(s[ptr], s[end]):
        s[deck + i] = pool[j]
        s[loc + pool[j]] = LOC_DECK
        s[know + pool[j]] = slot_know[j]
        j += 1
    for p in range(n):
        if p != observer:
            for i in range(s[pb(p) + count]):
                if dynasty and is_setaside_copy(s, s[pb(p) + hand + i]):
                    continue
                s[pb(p) + hand + i] = pool[j]
                s[loc + pool[j]] = LOC_HAND
                s[know + pool[j]] = slot_know[j]
                j += 1
    # the rest go to the discard places (a discard pile is a set: only the count matters)
    while j < k:
        s[loc + pool[j]] = LOC_DISCARD
        s[know + pool[j]] = slot_know[j]
        j += 1


@kernel
def _ruler_slot(p, i):
    """The i-th Ruler place of seat p's block: F_DEALT (3), then F_KEPT (2)."""
    return pb(p) + (F_DEALT + i if i < 3 else F_KEPT + i - 3)


@kernel
def draft_passes_done(s):
    """Ruler Draft: both passes made and the Rulers not yet revealed (the final choice)."""
    if s[O_DRAFT] != 1 or s[G_PHASE] != PH_AFTER_CHOICE:
        return False
    for i in range(s[G_SP]):
        kind = s[STACK + i * TASK_SIZE]
        if kind == TK_DEAL or kind == TK_DRAFT_PASS or kind == TK_EVENT_DRAW:
            return False
    return True


@kernel
def _resample_rulers(s, observer, rng, pool, slot_know):
    """Rulers: the undrawn deck, the Rulers in other seats' dealt and kept places that
    ``observer`` never held, and the discarded Rulers it never held, shuffled together and
    put back (every place keeps its knowledge bits).  A Ruler the observer held stays where
    it is (spec 9: unpicked Rulers are seen by each player who held them, in the draft by
    everyone they passed through); the one place that knowledge leaves open is handled by
    ``determinize``."""
    n = n_players(s)
    ob = 1 << observer
    k = 0
    for i in range(s[G_RUL_PTR], s[G_RUL_END]):
        pool[k] = s[RUL_DECK + i]
        k += 1
    for p in range(n):
        if p != observer:
            for i in range(5):
                r = s[_ruler_slot(p, i)]
                if r >= 0 and (s[RUL_KNOW + r] & ob) == 0:
                    pool[k] = r
                    k += 1
    for r in range(N_RULERS):
        if s[RUL_LOC + r] == LOC_DISCARD and (s[RUL_KNOW + r] & ob) == 0:
            pool[k] = r
            k += 1
    for i in range(k):
        slot_know[i] = s[RUL_KNOW + pool[i]]
    shuffle_range(pool, 0, k, rng, 0)
    j = 0
    for i in range(s[G_RUL_PTR], s[G_RUL_END]):
        s[RUL_DECK + i] = pool[j]
        s[RUL_LOC + pool[j]] = LOC_DECK
        s[RUL_KNOW + pool[j]] = slot_know[j]
        j += 1
    for p in range(n):
        if p != observer:
            for i in range(5):
                f = _ruler_slot(p, i)
                r = s[f]
                if r >= 0 and (s[RUL_KNOW + r] & ob) == 0:
                    s[f] = pool[j]
                    s[RUL_LOC + pool[j]] = LOC_DEALT
                    s[RUL_KNOW + pool[j]] = slot_know[j]
                    j += 1
    while j < k:
        s[RUL_LOC + pool[j]] = LOC_DISCARD
        s[RUL_KNOW + pool[j]] = slot_know[j]
        j += 1


@kernel
def determinize(s, observer, rng):
    """Resample what ``observer`` cannot see (spec 9): other seats' Dynasty and Vote hands
    together with the decks and other seats' face-down discards (every count kept), the
    Rulers other seats hold or discarded that the observer never held, deck orders, other
    seats' pending secret choices, the Coin values drawn so far, and the chance stream."""
    n = n_players(s)
    pool = s[SC_POOL : SC_POOL + N_DYN]
    slot_know = s[SC_POOL + N_DYN : SC_POOL + 2 * N_DYN]
    _resample(
        s,
        observer,
        rng,
        pool,
        slot_know,
        DYN_DECK,
        G_DYN_PTR,
        G_DYN_END,
        F_HAND,
        F_NDYN,
        DYN_LOC,
        DYN_KNOW,
        N_DYN,
        True,
    )
    _resample(
        s,
        observer,
        rng,
        pool,
        slot_know,
        VOTE_DECK,
        G_VOTE_PTR,
        G_VOTE_END,
        F_VHAND,
        F_NVOTE,
        VOTE_LOC,
        VOTE_KNOW,
        N_VOTES,
        False,
    )
    _resample_rulers(s, observer, rng, pool, slot_know)
    if draft_passes_done(s) and n > 2:
        # Ruler Draft after the second pass: of the two Rulers the observer passed at the
        # first pass, its receiver X kept one (X's second pick, secret) and passed the other
        # to the next seat Y; the observer cannot tell which (with 2 players Y is the
        # observer, who then knows).  The two places hold them either way, equally likely.
        d = 1 if s[G_GEN] % 2 == 1 else n - 1
        x = (observer + d) % n
        y = (x + d) % n
        if y != observer:
            fa = pb(x) + F_DEALT + 1
            fb = pb(y) + F_DEALT + 2
            ra = s[fa]
            rb = s[fb]
            ob = 1 << observer
            if (
                ra >= 0
                and rb >= 0
                and (s[RUL_KNOW + ra] & ob) != 0
                and (s[RUL_KNOW + rb] & ob) != 0
            ):
                if rng_below(rng, 0, 2) == 1:
                    ka = s[RUL_KNOW + ra]
                    s[fa] = rb
                    s[fb] = ra
                    s[RUL_KNOW + ra] = s[RUL_KNOW + rb]
                    s[RUL_KNOW + rb] = ka
    for p in range(n):
        if p != observer:
            nd = 0
            for i in range(3):
                if s[pb(p) + F_DEALT + i] >= 0:
                    nd += 1
            if s[pb(p) + F_CHOICE] >= 0:
                s[pb(p) + F_CHOICE] = rng_below(rng, 0, nd)
            if s[pb(p) + F_DPICK] >= 0:
                s[pb(p) + F_DPICK] = rng_below(rng, 0, nd)
    # Event deck order
    shuffle_range(s, EVT_DECK + s[G_EVT_PTR], EVT_DECK + s[G_EVT_END], rng, 0)
    # pending Aye/Nay picks, and (2 players) bids made before the bid reveal: uniform over
    # the legal choices (a bid halfway through its two digits keeps a multiple of 16)
    if in_simultaneous_pick(s):
        for p in range(n):
            if p != observer and s[pb(p) + F_PICK] >= 0:
                s[pb(p) + F_PICK] = rng_below(rng, 0, 2)
            if p != observer and s[pb(p) + F_BID] >= 0 and s[G_BID_WINNER] < 0:
                di = s[pb(p) + F_DI]
                o = top(s)
                if s[G_SP] > 0 and s[o] == TK_BID and s[o + 1] == p and s[o + 2] == 1:
                    s[pb(p) + F_BID] = N_NUM * rng_below(rng, 0, min(di // N_NUM, N_NUM - 1) + 1)
                else:
                    s[pb(p) + F_BID] = rng_below(rng, 0, min(di, N_NUM * N_NUM - 1) + 1)
    # Coin values drawn at their awards (D47): nobody has seen any (7.3), so all of them are
    # drawn again, jointly and without replacement from the full bag
    if s[O_COIN_DRAW] == CD_AWARD and s[G_OVER] == 0:
        s[G_BAG0] = dconst(s, K_BAG0)
        s[G_BAG1] = dconst(s, K_BAG1)
        s[G_BAG2] = dconst(s, K_BAG2)
        for p in range(n_colours(s)):
            v = 0
            for _ in range(s[pb(p) + F_COINS]):
                r = rng_below(rng, 0, s[G_BAG0] + s[G_BAG1] + s[G_BAG2])
                if r < s[G_BAG0]:
                    s[G_BAG0] -= 1
                elif r < s[G_BAG0] + s[G_BAG1]:
                    s[G_BAG1] -= 1
                    v += 1
                else:
                    s[G_BAG2] -= 1
                    v += 2
            s[pb(p) + F_COIN_VALUE] = v
    # future chance (dice, Xun's later rolls, reshuffles) is unknown to everyone: a new chance
    # stream, and no replay of logged outcomes still ahead
    rng_seed(s, H_RNG_LO, np.int64(rng_next(rng, 0) >> np.uint64(1)))
    s[G_LOG_LEN] = s[G_LOG_PTR]


@nb.njit(cache=True)
def masked_state(s, player):
    """The state with what ``player`` cannot see masked (-1: for every seat): what
    :func:`info_key` hashes and the observation tensors (observe.py) show."""
    c = s[:LOG].copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    for i in range(DYN_LOC, STACK):
        if i < VOTE_TYPE or i >= VOTE_LOC:
            c[i] = 0
    n = n_players(s)
    pick = in_simultaneous_pick(s)
    for p in range(n):
        if p == player:
            continue
        b = pb(p)
        for i in range(HAND_MAX):
            c[b + F_HAND + i] = 0
        for i in range(VHAND_MAX):
            c[b + F_VHAND + i] = 0
        for i in range(3):
            c[b + F_DEALT + i] = 0
        c[b + F_KEPT] = 0
        c[b + F_KEPT + 1] = 0
        c[b + F_CHOICE] = 0 if s[b + F_CHOICE] < 0 else 1
        c[b + F_DPICK] = 0 if s[b + F_DPICK] < 0 else 1
        if pick:
            c[b + F_PICK] = 0 if s[b + F_PICK] < 0 else 1
            if s[G_BID_WINNER] < 0:  # 2 players: bids are secret until the bid reveal
                c[b + F_BID] = 0 if s[b + F_BID] < 0 else 1
    # the log pointers count chance draws, which determinize does not replay
    c[G_LOG_LEN] = 0
    c[G_LOG_PTR] = 0
    c[G_LOG_OVERFLOW] = 0
    # Coin values and what is left in the bag: nobody sees them before the reveal (7.3)
    if s[G_OVER] == 0:
        c[G_BAG0] = 0
        c[G_BAG1] = 0
        c[G_BAG2] = 0
        for p in range(NCOL):
            c[pb(p) + F_COIN_VALUE] = 0
    return c


@nb.njit(cache=True)
def info_key(s, player):
    """A 64-bit key of what ``player`` knows: the state up to the chance log, with the RNG,
    deck orders, card locations and the knowledge bits (DYN_KNOW ...) masked, other seats'
    hands, dealt Rulers and pending secret choices masked (their counts stay), and every Coin
    value and the bag's contents masked (Coin counts stay).  Everything
    ``determinize`` changes for ``player`` is masked, so its states share the key."""
    return hash_words(masked_state(s, player), player)


# ============================================================================ features, evaluation

FEATURE_NAMES = (
    (
        "score",
        "coins",
        "coin_value",
        "tokens",
        "pts_majority",
        "pts_structures",
        "pts_coin_conversion",
        "pts_ruler_ability",
        "votes_called",
        "votes_passed",
        "cards_played",
        "placements",
    )
    + tuple(f"ruler_gen{g + 1}" for g in range(MAX_GENS))
    + tuple(f"pts_province_{q + 1}" for q in range(N_PROV))
    + tuple(f"ruler_{r + 1}" for r in range(N_RULERS))
    + (
        "game_votes_called",
        "game_votes_passed",
        "game_events_drawn",
        "game_passes",
        "seat_first_final_gen",
    )
    # 2 players (0 otherwise): the Eternal Emperor's final score and tokens, whether it won
    # (then every seat's win share is 0), the seat's Dynasty Influence at the end, DI spent
    # (bids and Alliances) and bids won, and the number of bids in the game
    + ("ee_score", "ee_tokens", "ee_won", "di_final", "di_spent", "bids_won", "game_bids")
)
N_FEATURES = len(FEATURE_NAMES)


@kernel
def features(s, out):
    """Per-seat balance features (docs/games/eternal_dynasty.md)."""
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        out[p, 0] = final_score(s, p)
        out[p, 1] = s[b + F_COINS]
        out[p, 2] = s[b + F_COIN_VALUE]
        out[p, 3] = tokens_total(s, p)
        out[p, 4] = s[b + F_PTS_MAJORITY]
        out[p, 5] = s[b + F_PTS_STRUCT]
        out[p, 6] = s[b + F_PTS_COINCONV]
        out[p, 7] = s[b + F_PTS_RULER]
        out[p, 8] = s[b + F_VOTES_CALLED]
        out[p, 9] = s[b + F_VOTES_PASSED]
        out[p, 10] = s[b + F_CARDS_PLAYED]
        out[p, 11] = s[b + F_PLACED]
        k = 12
        for g in range(MAX_GENS):
            out[p, k + g] = s[b + F_RULER_HIST + g] + 1
        k += MAX_GENS
        for q in range(N_PROV):
            out[p, k + q] = s[b + F_PTS_PROV + q]
        k += N_PROV
        for r in range(N_RULERS):
            out[p, k + r] = 0
        for g in range(MAX_GENS):
            r = s[b + F_RULER_HIST + g]
            if r >= 0:
                out[p, k + r] += 1
        k += N_RULERS
        out[p, k] = s[G_VOTES_CALLED]
        out[p, k + 1] = s[G_VOTES_PASSED]
        out[p, k + 2] = s[G_EVENTS_DRAWN]
        out[p, k + 3] = s[G_PASSES]
        out[p, k + 4] = 1 if s[G_FINAL_FIRST] == p else 0
        k += 5
        two = n == 2
        out[p, k] = final_score(s, EE) if two else 0
        out[p, k + 1] = tokens_total(s, EE) if two else 0
        out[p, k + 2] = 1 if ee_wins(s) else 0
        out[p, k + 3] = s[b + F_DI]
        out[p, k + 4] = s[b + F_DI_SPENT]
        out[p, k + 5] = s[b + F_BIDS_WON]
        out[p, k + 6] = s[G_BIDS]


@nb.njit(cache=True)
def provisional(s, out):
    """Points so far, Coins at their mean value 1, and the board scored as if the
    Generation ended now (the heuristic's and MCTS's estimate); every colour, the EE included."""
    work = np.zeros((4, MAXP + 1), np.int32)
    provisional_into(s, out, work[0], work[1], work[2], work[3])


@kernel
def provisional_into(s, out, pts, spts, coin, st):
    """:func:`provisional` with its four work arrays (MAXP + 1 ints each) given by the caller."""
    n = n_colours(s)
    for p in range(MAXP + 1):
        pts[p] = 0
        spts[p] = 0
        coin[p] = 0
    if s[G_PHASE] == PH_TURNS or s[G_PHASE] == PH_AFTER_KEEP:
        for q in range(N_PROV):
            if s[QUAR + q] == 0:
                score_province(s, q, pts, spts, coin, st)
    for p in range(n):
        out[p] = s[pb(p) + F_SCORE] + s[pb(p) + F_COINS] + pts[p] + spts[p] + coin[p]
        if s[G_OVER] == 1:
            out[p] = final_score(s, p)


@nb.njit(cache=True)
def evaluate(s, out):
    """Leaf value in [0, 1]: 1 for the provisional leader, scaled by the gap to the others
    (the Eternal Emperor counts as a rival: a seat behind it is valued below 1)."""
    n = n_players(s)
    if s[G_OVER] == 1:
        sc = np.zeros(n)
        returns(s, sc, out)
        return
    v = np.zeros(MAXP + 1, np.float64)
    provisional(s, v)
    lo = v[0]
    hi = v[0]
    for p in range(n_colours(s)):
        lo = min(lo, v[p])
        hi = max(hi, v[p])
    for p in range(n):
        out[p] = 0.5 if hi == lo else (v[p] - lo) / (hi - lo)
