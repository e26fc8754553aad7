"""The task stack: task kinds (``TK_*``) and their flags, pushing and popping tasks,
seat orders, the checks taken when an effect begins (``precheck``), tokens added and
removed (``add_tokens``, ``capped_tokens``, ``remove_n``) and the marks of changed
provinces (``touch``, read by the heuristic).

A task is TASK_SIZE ints on ``STACK``: kind, colour, then six arguments.
"""

from sim.core import kernel
from sim.eternal_dynasty.layout import (
    AB_EXTRA_CATCHUP,
    AB_EXTRA_NEW_PROVINCE,
    G_SP,
    K_CAP,
    N_PROV,
    O_LIMITS,
    SC_DIRTY,
    STACK,
    STACK_MAX,
    T_M,
    T_P,
    TASK_SIZE,
    M,
    P,
)
from sim.eternal_dynasty.rules.helpers import (
    ab_arg,
    ability,
    dconst,
    gain_ok,
    n_colours,
    n_players,
    represented,
    strength,
    ti,
    tokens_total,
)

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


@kernel
def push_typed_gain(s, g, q, typ, nn, flags):
    if typ == T_M:
        push_gain(s, g, q, nn, 0, 0, flags)
    elif typ == T_P:
        push_gain(s, g, q, 0, nn, 0, flags)
    else:
        push_gain(s, g, q, 0, 0, nn, flags)


@kernel
def remove_n(s, v, q, t, k):
    r = min(k, s[ti(v, q, t)])
    s[ti(v, q, t)] -= r
    touch(s, q)
    return r
