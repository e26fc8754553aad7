"""Phase 1, the bids (P1): the start of a round (``begin_round``), laying bid cards into
a seat's entries, the decisions of the commit, the Palace late bid, the Harvest swap and
the Emperor's +0.5.
"""

from sim.core import bit_count, kernel
from sim.middle_kingdom.layout import (
    DK_BID,
    DK_EMPEROR,
    DK_NONE,
    DK_SLOT,
    EMPEROR,
    F_CARRY,
    F_EMP_SLOT,
    F_HAND,
    F_HAND_START,
    F_PAL_FIRST,
    F_SLOT_BOTTOM,
    F_SLOT_CARD,
    F_SLOT_STACK,
    F_SLOT_STEP,
    F_ZERO,
    G_PHASE,
    G_SUB,
    G_TWO_BID,
    GOAL_OWNER,
    NO_CARD,
    O_EMP_AT_COMMIT,
    O_HARVEST_COUNT,
    PALACE,
    PH_COMMIT,
    S_HARVEST_LIMIT,
    STEP_COMMIT,
)
from sim.middle_kingdom.rules.helpers import is_abstention, n_carry, n_players, pb


@kernel
def begin_round(s):
    """P1.0: record the public hands, clear the round's entries."""
    for p in range(n_players(s)):
        b = pb(p)
        s[b + F_HAND_START] = s[b + F_HAND]
        for j in range(2):
            s[b + F_SLOT_CARD + j] = NO_CARD
            s[b + F_SLOT_STACK + j] = -1
            s[b + F_SLOT_BOTTOM + j] = NO_CARD
            s[b + F_SLOT_STEP + j] = STEP_COMMIT
        s[b + F_EMP_SLOT] = -1
        s[b + F_ZERO] = 0
        s[b + F_PAL_FIRST] = -2
    s[G_PHASE] = PH_COMMIT
    s[G_SUB] = 0


@kernel(inline=True)
def lay(s, p, j, card, stack, step):
    b = pb(p)
    s[b + F_HAND] &= ~(1 << card)
    s[b + F_SLOT_CARD + j] = card
    s[b + F_SLOT_STACK + j] = stack
    s[b + F_SLOT_STEP + j] = step
    if card == 0:
        s[b + F_ZERO] = 1


@kernel(inline=True)
def commit_slot_stack(s, p, j):
    """Which carried stack the commit in slot ``j`` goes on (-1: a single)."""
    b = pb(p)
    if s[G_TWO_BID] == 0:
        return 0 if s[b + F_CARRY] != NO_CARD else -1
    if s[GOAL_OWNER + PALACE] == p and s[b + F_HAND_START] != 1:
        return s[b + F_PAL_FIRST]  # 5.3: announced in public
    return j if j < n_carry(s, p) else -1


@kernel(inline=True)
def palace_late_stack(s, p):
    """The slot left for the Palace holder's late card (D25, 5.3)."""
    b = pb(p)
    nc = n_carry(s, p)
    if s[G_TWO_BID] == 0:
        return 0 if nc > 0 else -1
    first = s[b + F_PAL_FIRST]
    if nc == 0:
        return -1
    if nc == 1:
        return -1 if first == 0 else 0
    return 1 - first


@kernel(inline=True)
def commit_decision(s, p):
    """DK_* that seat ``p`` owes in P1.1 now, or DK_NONE once its commit is complete.

    Forced commits (a hand of {0} with at most one stack, 5.1-5.2) are laid here.  With
    ``emp_designation_2p = at_commit`` (D5) the Emperor's holder names its +0.5 bid as the
    last part of its commit, once a round (:func:`emperor_names_at_commit`).
    """
    kind = _commit_cards(s, p)
    if kind == DK_NONE and emperor_names_at_commit(s, p) and s[pb(p) + F_EMP_SLOT] < 0:
        b = pb(p)
        if s[b + F_HAND_START] != 1:
            return DK_EMPEROR
        if emperor_entries(s, p) == 1:  # a hand of {0}: the 0, if it lies on a stack
            s[b + F_EMP_SLOT] = 0
    return kind


@kernel(inline=True)
def emperor_names_at_commit(s, p):
    """D5 ``emp_designation_2p = at_commit``: seat ``p`` holds the Emperor at 2p / advanced 3p
    and names its +0.5 bid secretly with its commit ("named secretly with the commit,
    revealed in P1.2"), once a round, never after the reveal.

    With two bids this round (a hand other than {0}) the naming is a decision, asked even
    when one bid alone qualifies, so that the number of decisions does not reveal a lone 0:
    among the committed cards that are not a lone 0, and, for the Palace holder, whose
    commit is its first bid, also "the late bid" it lays after the reveal (A_EMP_LATE; the
    rules' "which of the player's two bids").  The naming follows its entry: a Harvest swap
    of that entry's 0 keeps it, and a named late bid that is a lone 0 gets nothing (D1).
    With a hand of {0} the 0 is named unasked when it lies on a stack.
    """
    return s[O_EMP_AT_COMMIT] == 1 and s[G_TWO_BID] == 1 and s[GOAL_OWNER + EMPEROR] == p


@kernel(inline=True)
def emperor_late_named(s, p):
    """The Palace holder's late bid may be named at the commit (see emperor_names_at_commit)."""
    return s[GOAL_OWNER + PALACE] == p and s[pb(p) + F_HAND_START] != 1


@kernel(inline=True)
def _commit_cards(s, p):
    """The card-laying part of :func:`commit_decision`."""
    b = pb(p)
    palace = s[GOAL_OWNER + PALACE] == p
    if s[G_TWO_BID] == 0:
        if palace or s[b + F_SLOT_CARD] != NO_CARD:
            return DK_NONE
        return DK_BID
    only_zero = s[b + F_HAND_START] == 1
    nc = n_carry(s, p)
    if only_zero:
        if s[b + F_SLOT_CARD] != NO_CARD:
            return DK_NONE
        if nc == 2:
            return DK_SLOT
        lay(s, p, 0, 0, 0 if nc == 1 else -1, STEP_COMMIT)
        return DK_NONE
    if palace:
        if s[b + F_SLOT_CARD] != NO_CARD:
            return DK_NONE
        if nc >= 1 and s[b + F_PAL_FIRST] == -2:
            return DK_SLOT
        if nc == 0:
            s[b + F_PAL_FIRST] = -1
        return DK_BID
    if s[b + F_SLOT_CARD] == NO_CARD or s[b + F_SLOT_CARD + 1] == NO_CARD:
        return DK_BID
    return DK_NONE


@kernel(inline=True)
def harvest_eligible(s, h):
    """P1.4 / D3 / 5.4: the holder laid a 0 and the hand count allows a swap."""
    b = pb(h)
    has_zero = False
    for j in range(2):
        if s[b + F_SLOT_CARD + j] == 0:
            has_zero = True
    if not has_zero:
        return False
    left = bit_count(s[b + F_HAND])
    if left < 1:
        return False
    if s[O_HARVEST_COUNT] == 1:
        return bit_count(s[b + F_HAND_START]) <= s[S_HARVEST_LIMIT]
    return left <= s[S_HARVEST_LIMIT]


@kernel(inline=True)
def emperor_entries(s, e):
    """Bitmask over slots of the Emperor holder's non-abstention entries."""
    b = pb(e)
    m = 0
    for j in range(2):
        if s[b + F_SLOT_CARD + j] != NO_CARD and not is_abstention(s, e, j):
            m |= 1 << j
    return m
