"""Trying a choice on the work copy of the state: the copy made and restored between
tries (``lookahead_copy``, ``restore``), a choice applied and its effect completed with a
fixed default (``play_try``, ``default_choice``), and the value of a try (``best_gap``: own
provisional score minus the best other colour's, the Eternal Emperor included).
"""

from sim.core import H_CURRENT, kernel
from sim.eternal_dynasty.layout import (
    A_NUM,
    A_PROV,
    A_SKIP,
    A_TYPE,
    ADJB,
    DATA,
    DATA_SIZE,
    DYN_LOC,
    F_BM,
    F_BP,
    G_LOG_LEN,
    G_LOG_PTR,
    G_SP,
    LEAD,
    LOG,
    N_NUM,
    N_PROV,
    PL,
    PS,
    QUAR,
    SC_DIRTY,
    SNAP_BOARD,
    STACK,
    STRUCT,
    TASK_SIZE,
    TOK,
    VOTE_LOC,
    VOTE_TYPE,
)
from sim.eternal_dynasty.rules import (
    TK_ACTION,
    TK_AYENAY,
    TK_BID,
    TK_DISCARD,
    TK_DONG,
    TK_DRAFT,
    TK_EE_VOTE,
    TK_EXTRA,
    TK_FREE,
    TK_GAIN,
    TK_RULER,
    TK_TARGET,
    TK_VOTECALL,
    apply,
    legal_mask,
    n_colours,
    pb,
    target_candidates,
    top,
)


@kernel(inline=True)
def best_gap(s, p, v):
    best = -1e9
    for o in range(n_colours(s)):  # the Eternal Emperor included
        if o != p and v[o] > best:
            best = v[o]
    return v[p] - best


@kernel(inline=True)
def play_try(c, p, a, m2):
    """Try ``a`` for ``p`` in the work copy ``c``: clear its ``SC_DIRTY`` (the provinces the
    try changes, for :func:`value_of_try`), apply ``a`` and complete the effect with
    :func:`default_choice` (``m2``: scratch) until another seat moves."""
    c[SC_DIRTY] = 0
    apply(c, a)
    steps = 0
    while c[H_CURRENT] == p and steps < 12 and completes_effect(c[top(c)]):
        apply(c, default_choice(c, m2))
        steps += 1


@kernel(inline=True)
def completes_effect(kind):
    return (
        kind != TK_ACTION
        and kind != TK_VOTECALL
        and kind != TK_FREE
        and kind != TK_RULER
        and kind != TK_DRAFT
        and kind != TK_DISCARD
        and kind != TK_AYENAY
        and kind != TK_EXTRA
        and kind != TK_BID
        and kind != TK_EE_VOTE
    )


# Words a lookahead never needs restored: the option codes and component data, the
# province adjacency (ADJ and ADJB), quarantine and the card types (set at setup only), SNAP
# (written by the scoring, read by no kernel), the chance log (appended past its length;
# entries below it are never overwritten) and the task stack above the current top (pushes
# write whole tasks).
@kernel
def restore(c, s):
    """Make the work copy ``c`` (made by :func:`lookahead_copy`) equal to ``s`` again in every
    word a kernel can read after ``apply`` changed it.  The token, Leader and player blocks of
    the colours not in play stay as they are: no kernel writes them."""
    n = n_colours(s)
    for i in range(DATA):
        c[i] = s[i]
    for i in range(DATA + DATA_SIZE, TOK + n * N_PROV * 2):  # game scalars, bans, tokens
        c[i] = s[i]
    for i in range(LEAD, LEAD + n * N_PROV * 2):  # leaders
        c[i] = s[i]
    for i in range(STRUCT, QUAR):  # structures, marks
        c[i] = s[i]
    for i in range(DYN_LOC, VOTE_TYPE):  # Dynasty and Ruler locations and decks
        c[i] = s[i]
    for i in range(VOTE_LOC, STACK + s[G_SP] * TASK_SIZE):  # the other decks, knowledge, the stack
        c[i] = s[i]
    for i in range(PL, PL + n * PS):  # players
        c[i] = s[i]


@kernel
def lookahead_copy(c, s):
    """Copy into ``c`` what the kernels read of ``s``: everything but SNAP and the chance
    log, except its entries still to be replayed (a state made from a list of outcomes), and
    the adjacency bit sets (ADJB, set at setup only)."""
    for i in range(SNAP_BOARD):
        c[i] = s[i]
    for i in range(ADJB, ADJB + N_PROV):
        c[i] = s[i]
    for i in range(LOG + s[G_LOG_PTR], LOG + s[G_LOG_LEN]):  # entries still to be replayed
        c[i] = s[i]


@kernel
def default_choice(c, m2):
    """The largest legal action of the decision in ``c`` (Dong's skip left out): how the rest
    of an effect is completed.  A bonus amount is read off the pool (the largest of
    :func:`legal_mask`'s ``A_NUM + 0..min(pool, N_NUM - 1)``; both types when a type is
    asked); any other decision takes ``legal_mask``."""
    o = top(c)
    kind = c[o]
    if kind == TK_GAIN:
        stage = c[o + 6] >> 4
        if stage == 0 or stage == 2:
            return A_TYPE + 1
        b = pb(c[o + 1])
        k = min(c[b + F_BM] if stage == 3 else c[b + F_BP], N_NUM - 1)
        return A_NUM + k if k >= 0 else -1
    if (
        kind == TK_TARGET
    ):  # legal_mask's A_PROV + q for each candidate q: the largest without filling the mask
        cands = target_candidates(c, o)
        for q in range(N_PROV - 1, -1, -1):
            if (cands >> q) & 1:
                return A_PROV + q
        return -1
    legal_mask(c, m2)
    if kind == TK_DONG:
        m2[A_SKIP] = False  # Dong's gain is taken (plan item 5)
    for b in range(m2.shape[0] - 1, -1, -1):
        if m2[b]:
            return b
    return -1
