"""Middle Kingdom rules as numba kernels (spec: shared/rules/middle_kingdom.md, v1.1).

The round is a state machine (``advance``): automatic steps run until a seat must decide,
then ``G_DECISION`` names the kind of decision and ``H_CURRENT`` the seat.  ``apply``
performs one decision and calls ``advance`` again.  Section markers (P1.1, P2.3, S4 ...)
refer to the spec.

Simultaneous bids (P1.1) are taken one seat at a time in seat order; a committed card
leaves the hand at once, so the *current* hand of an earlier committer reveals their
bid.  Agents must read ``F_HAND_START`` for other seats during PH_COMMIT (the heuristic
does), and ``determinize`` resamples those hidden commits for a searcher.
"""

import numba as nb
import numpy as np

from sim.core import (
    H_CURRENT,
    H_NPLAYERS,
    H_PLY,
    H_RNG_LO,
    NO_PLAYER,
    bit_count,
    hash_words,
    init_header,
    kernel,
    rng_below,
    shuffle_range,
)
from sim.middle_kingdom.layout import *  # noqa: F401,F403  (constants only)
from sim.middle_kingdom.layout import (
    A_BID,
    A_EMP_LATE,
    A_HOST,
    A_PASS,
    A_ROW,
    A_SLOT_SINGLE,
    A_SLOT_STACK0,
    A_SLOT_STACK1,
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
    DK_BID,
    DK_EMPEROR,
    DK_EXCHANGE,
    DK_HARVEST,
    DK_HEIR,
    DK_HOST,
    DK_NONE,
    DK_PICK,
    DK_SLOT,
    DR_DISPLAY,
    DR_HELD,
    DR_IN_ROW,
    DR_SET_ASIDE,
    DRAGON,
    EMPEROR,
    F_CARRY,
    F_DBL,
    F_DISC,
    F_DRAGON_GOT,
    F_DYN_COUNT,
    F_EFF,
    F_EMP_SLOT,
    F_HAND,
    F_HAND_START,
    F_HARVEST_SWAPS,
    F_LAST_DRAGON,
    F_LAST_DRAGON_SUMMONED,
    F_PAL_FIRST,
    F_PENALTY,
    F_PHYS,
    F_PICK_RANK_SUM,
    F_PICKS,
    F_SCORE,
    F_SLOT_BOTTOM,
    F_SLOT_CARD,
    F_SLOT_STACK,
    F_SLOT_STEP,
    F_TIES,
    F_TOKENS,
    F_VP_CARDS,
    F_VP_GOALS,
    F_VP_PEASANTS,
    F_VP_PHIL,
    F_VP_TOKENS,
    F_ZERO,
    G_DECISION,
    G_DECK_PTR,
    G_DRAGON,
    G_IDENT_DRAWS,
    G_K,
    G_LEAD,
    G_ORD_N,
    G_ORD_POS,
    G_PEND_CARD,
    G_PEND_DEFER,
    G_PEND_MEMBER,
    G_PEND_P,
    G_PHASE,
    G_ROUND,
    G_SCORED,
    G_SUB,
    G_SUMMONS,
    G_TIES,
    G_TOKEN_OVER,
    G_TOKENS_OUT,
    G_TWO_BID,
    GENERAL,
    GK_IDENT,
    GK_PICK,
    GK_TIE,
    GOAL_OWNER,
    GOAL_VP,
    HARVEST,
    HEIR,
    HOST,
    KMAX,
    LOC,
    LOC_DECK,
    LOC_DISCARD,
    LOC_OWNED,
    LOC_ROW,
    MARKET,
    MAX_ENTRIES,
    MAXP,
    MERCHANT,
    N_DYN,
    N_GOALS,
    N_NOBLE_TABLES,
    N_OPT,
    N_TYPES,
    NO_CARD,
    NUM_ACTIONS,
    O_DRAGON_ROW_PICK,
    O_DRAGON_TIEBREAK,
    O_HARVEST_COUNT,
    O_HEIR_DRAGON,
    O_HEIR_OPTIONAL,
    O_IDENT_DRAW,
    O_IDENT_GOAL,
    O_IDENT_SHORT,
    O_LEAD_SEAT,
    O_EMP_AT_COMMIT,
    O_MARKET_ANY_GAIN,
    O_MARKET_DBL_MERCHANT,
    O_NOBLE_TABLE,
    O_TOKEN_LIMIT,
    O_VARIANT,
    OFFICIAL,
    OPT,
    ORD_ENT,
    ORD_GEND,
    ORD_GKIND,
    ORD_HOST,
    PALACE,
    PEASANT,
    PEASANT_VP,
    PH_COMMIT,
    PH_DRAGON,
    PH_EMPEROR,
    PH_HARVEST,
    PH_HEIR,
    PH_OVER,
    PH_PALACE,
    PH_RESOLVE,
    PL,
    PS,
    ROW,
    ROW_DRAGON,
    S_HARVEST_LIMIT,
    S_PENALTY,
    S_PHIL,
    S_SUMMON_MIN,
    S_THRESHOLD,
    S_TOKEN_SUPPLY,
    S_TOKEN_VP,
    SCR_ENT,
    SCR_KEY,
    STATE_SIZE,
    STEP_COMMIT,
    STEP_HARVEST,
    STEP_PALACE,
)

N_OPTION_CODES = 15  # option codes before the component data in the options array

# Ways a card is gained (GAIN's ``via``).
VIA_PICK, VIA_EXCHANGE, VIA_DECKDRAW, VIA_HEIR = 0, 1, 2, 3


# ============================================================================ small helpers


@kernel(inline=True)
def pb(p):
    """Offset of seat ``p``'s player block."""
    return PL + p * PS


@kernel(inline=True)
def n_players(s):
    return s[H_NPLAYERS]


@kernel(inline=True)
def n_carry(s, p):
    b = pb(p)
    return (1 if s[b + F_CARRY] != NO_CARD else 0) + (1 if s[b + F_CARRY + 1] != NO_CARD else 0)


@kernel(inline=True)
def is_abstention(s, p, j):
    """A lone 0: a single entry whose only card is 0 (D1)."""
    b = pb(p)
    return s[b + F_SLOT_CARD + j] == 0 and s[b + F_SLOT_STACK + j] < 0


@kernel(inline=True)
def goals_held(s, p):
    c = 0
    for g in range(N_GOALS):
        c += s[GOAL_OWNER + g] == p
    return c


@kernel(inline=True)
def dyn_count(s, p):
    """Physical dynasty cards owned (D13, D22)."""
    b = pb(p)
    c = 0
    for t in range(N_TYPES):
        c += s[b + F_PHYS + t] + s[b + F_DBL + t]
    return c


@kernel(inline=True)
def deck_left(s):
    return N_DYN - s[G_DECK_PTR]


@kernel(inline=True)
def row_count(s):
    c = 0
    for i in range(s[G_K]):
        c += s[ROW + i] >= 0
    return c


# ============================================================================ gains and goals


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
    for h in range(N_TYPES):
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


# ============================================================================ setup


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


@kernel
def reveal(s):
    """P4.1 / setup: reveal K cards into the row."""
    k = s[G_K]
    for i in range(k):
        c = s[DECK + s[G_DECK_PTR]]
        s[G_DECK_PTR] += 1
        s[ROW + i] = c
        s[LOC + c] = LOC_ROW


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


# ============================================================================ phase 1: bids


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


# ============================================================================ phase 2: order


@kernel(inline=True)
def entry_key(s, p, j):
    """P2.1 ordering key: (total*2 incl. Emperor, is_stack, top card, bottom card)."""
    b = pb(p)
    top = s[b + F_SLOT_CARD + j]
    bottom = s[b + F_SLOT_BOTTOM + j]
    is_stack = 1 if bottom != NO_CARD else 0
    total2 = 2 * (top + (bottom if is_stack else 0)) + (1 if s[b + F_EMP_SLOT] == j else 0)
    return ((total2 * 2 + is_stack) * 8 + top) * 9 + (bottom + 1)


@kernel
def build_order(s):
    """P1.6 + P2.1: build entries, discard abstentions, order them, settle ties.

    Entries are sorted in the scratch area (SCR_ENT / SCR_KEY), then written to the
    resolution order ORD_*: PICK singles, IDENT groups (members in drawing order); TIE
    groups become carried stacks at once and do not appear in the order.
    """
    n = n_players(s)
    m = 0
    for p in range(n):
        b = pb(p)
        used0 = False
        used1 = False
        for j in range(2):
            card = s[b + F_SLOT_CARD + j]
            if card == NO_CARD:
                continue
            st = s[b + F_SLOT_STACK + j]
            if st >= 0:
                s[b + F_SLOT_BOTTOM + j] = s[b + F_CARRY + st]
                if st == 0:
                    used0 = True
                else:
                    used1 = True
            elif card == 0:  # abstention: the 0 goes to the discard now (D2)
                s[b + F_DISC] |= 1
                s[b + F_SLOT_CARD + j] = NO_CARD
                continue
            s[SCR_ENT + m] = p * 2 + j
            s[SCR_KEY + m] = entry_key(s, p, j)
            m += 1
        # carried stacks that took a card are now part of an entry; keep the others (D23)
        c0 = NO_CARD if used0 else s[b + F_CARRY]
        c1 = NO_CARD if used1 else s[b + F_CARRY + 1]
        if c0 == NO_CARD:
            c0 = c1
            c1 = NO_CARD
        s[b + F_CARRY] = c0
        s[b + F_CARRY + 1] = c1
    for i in range(1, m):  # insertion sort, descending key
        ke = s[SCR_KEY + i]
        en = s[SCR_ENT + i]
        k = i - 1
        while k >= 0 and s[SCR_KEY + k] < ke:
            s[SCR_KEY + k + 1] = s[SCR_KEY + k]
            s[SCR_ENT + k + 1] = s[SCR_ENT + k]
            k -= 1
        s[SCR_KEY + k + 1] = ke
        s[SCR_ENT + k + 1] = en
    lead = s[G_LEAD]
    # settle ties and order identical members; mark IDENT groups by a negative key
    pos = 0
    while pos < m:
        end = _group_end(s, pos, m)
        if end - pos > 1:
            e0 = s[SCR_ENT + pos]
            if s[pb(e0 // 2) + F_SLOT_BOTTOM + e0 % 2] == NO_CARD:  # TIE: carried stacks [v]
                for i in range(pos, end):
                    p = s[SCR_ENT + i] // 2
                    j = s[SCR_ENT + i] % 2
                    b = pb(p)
                    ci = 0 if s[b + F_CARRY] == NO_CARD else 1
                    s[b + F_CARRY + ci] = s[b + F_SLOT_CARD + j]
                    s[b + F_SLOT_CARD + j] = NO_CARD
                    s[b + F_TIES] += 1
                    s[G_TIES] += 1
                    s[SCR_ENT + i] = -1
            else:  # IDENTICAL: members by laying step, then seat from the lead seat (D6)
                for i in range(pos + 1, end):
                    en = s[SCR_ENT + i]
                    ke = _ident_rank(s, en, lead, n)
                    k = i - 1
                    while k >= pos and _ident_rank(s, s[SCR_ENT + k], lead, n) > ke:
                        s[SCR_ENT + k + 1] = s[SCR_ENT + k]
                        k -= 1
                    s[SCR_ENT + k + 1] = en
        pos = end
    out = 0
    after_picks = s[O_IDENT_DRAW] == 1
    for sweep in range(2 if after_picks else 1):
        pos = 0
        while pos < m:
            end = _group_end(s, pos, m)
            size = end - pos
            if s[SCR_ENT + pos] >= 0:
                ident = size > 1
                if (not after_picks) or (ident == (sweep == 1)):
                    for i in range(pos, end):
                        s[ORD_ENT + out] = s[SCR_ENT + i]
                        s[ORD_GKIND + out] = GK_IDENT if ident else GK_PICK
                        s[ORD_GEND + out] = out - (i - pos) + size
                        s[ORD_HOST + out] = -1
                        out += 1
            pos = end
    s[G_ORD_N] = out
    s[G_ORD_POS] = 0
    s[G_SUB] = 0


@kernel(inline=True)
def _group_end(s, pos, m):
    end = pos + 1
    while end < m and s[SCR_KEY + end] == s[SCR_KEY + pos]:
        end += 1
    return end


@kernel(inline=True)
def _ident_rank(s, en, lead, n):
    p = en // 2
    step = s[pb(p) + F_SLOT_STEP + en % 2]
    return step * MAXP + (p - lead + n) % n


@kernel(inline=True)
def discard_entry(s, p, j):
    """An entry's bid cards go to the face-up discard."""
    b = pb(p)
    card = s[b + F_SLOT_CARD + j]
    if card != NO_CARD:
        s[b + F_DISC] |= 1 << card
    bottom = s[b + F_SLOT_BOTTOM + j]
    if bottom != NO_CARD:
        s[b + F_DISC] |= 1 << bottom
    s[b + F_SLOT_CARD + j] = NO_CARD
    s[b + F_SLOT_BOTTOM + j] = NO_CARD


@kernel(inline=True)
def exchange_mask(s, d):
    """D9: bitmask over row slots of the cards the Dragon holder may exchange for."""
    b = pb(d)
    k = s[G_K]
    mx = 0
    for t in range(N_TYPES):
        if s[b + F_EFF + t] > mx:
            mx = s[b + F_EFF + t]
    allowed = 0
    free = 0
    for i in range(k):
        c = s[ROW + i]
        if c < 0 or c == ROW_DRAGON or c == s[S_PHIL]:
            continue
        allowed |= 1 << i
        if mx == 0 or s[b + F_EFF + s[CARD_TYPE + c]] != mx:
            free |= 1 << i
    return free if free != 0 else allowed


# ============================================================================ phases 3-4, scoring


@kernel
def summon(s):
    """P3.1: give the Dragon to the seat with the fewest goals (D13 tie-breaks)."""
    if s[G_DRAGON] != DR_DISPLAY and s[G_DRAGON] != DR_SET_ASIDE:
        return
    held = 0
    for g in range(DRAGON):
        held += s[GOAL_OWNER + g] >= 0
    if held < s[S_SUMMON_MIN]:
        return
    n = n_players(s)
    cand = 0  # bitmask of seats still in the running
    best = 1 << 30
    for p in range(n):
        v = goals_held(s, p)
        if v < best:
            best = v
            cand = 1 << p
        elif v == best:
            cand |= 1 << p
    if bit_count(cand) > 1:
        best = 1 << 30
        keep = 0
        for p in range(n):
            if (cand >> p) & 1:
                v = _dragon_count(s, p)
                if v < best:
                    best = v
                    keep = 1 << p
                elif v == best:
                    keep |= 1 << p
        cand = keep
    r = -1
    if bit_count(cand) == 1:
        for p in range(n):
            if (cand >> p) & 1:
                r = p
    else:
        best = -1
        ties = 0
        for p in range(n):
            if (cand >> p) & 1:
                last = _dragon_held_at(s, p)
                if last > best:
                    best = last
                    r = p
                    ties = 1
                elif last == best and last >= 0:
                    ties += 1
        if best < 0 or ties != 1:
            r = -1
    if r >= 0:
        s[GOAL_OWNER + DRAGON] = r
        s[G_DRAGON] = DR_HELD
        s[pb(r) + F_LAST_DRAGON] = s[G_ROUND]
        s[pb(r) + F_LAST_DRAGON_SUMMONED] = 1
        s[pb(r) + F_DRAGON_GOT] += 1
        s[G_SUMMONS] += 1


@kernel(inline=True)
def _dragon_held_at(s, p):
    """When seat ``p`` last held the Dragon, in the order of events (D13): twice the round,
    plus 1 for a summon (phase 3) over a take from the row (phase 2, counted under
    ``dragon_held_includes_row_pick`` only); -1 if never."""
    last = s[pb(p) + F_LAST_DRAGON]
    if last < 0:
        return -1
    return 2 * last + s[pb(p) + F_LAST_DRAGON_SUMMONED]


@kernel(inline=True)
def _dragon_count(s, p):
    if s[O_DRAGON_TIEBREAK] == 1:
        b = pb(p)
        c = 0
        for t in range(N_TYPES):
            c += s[b + F_EFF + t]
        return c
    return dyn_count(s, p)


@kernel
def score_game(s):
    """Section 6, S1-S6: the Heir re-award, then each seat's score and its parts."""
    n = n_players(s)
    best = -1
    who = NO_PLAYER
    ties = 0
    for p in range(n):
        g = s[pb(p) + F_EFF + GENERAL]
        if g > best:
            best = g
            who = p
            ties = 1
        elif g == best:
            ties += 1
    s[GOAL_OWNER + HEIR] = who if ties == 1 else NO_PLAYER
    m = 1 << 30
    for p in range(n):
        v = s[pb(p) + F_EFF + PEASANT]
        if v < m:
            m = v
    for p in range(n):
        b = pb(p)
        vg = 0
        for g in range(N_GOALS):
            if s[GOAL_OWNER + g] == p:
                vg += s[GOAL_VP + g]
        vc = 0
        for c in range(N_DYN):
            if s[LOC + c] == LOC_OWNED + p and s[HOST + c] == s[CARD_TYPE + c]:
                vc += s[CARD_VP + c]
        vt = s[b + F_TOKENS] * s[S_TOKEN_VP]
        missing = 0
        for t in range(N_TYPES):
            if s[b + F_EFF + t] == 0:
                missing += 1
        pen = missing * s[S_PENALTY]
        kept = s[b + F_EFF + PEASANT] - m
        vpz = s[PEASANT_VP + (kept if kept < 5 else 5)]
        vph = 0
        if s[LOC + s[S_PHIL]] == LOC_OWNED + p:
            vph = s[b + F_EFF + OFFICIAL] - 1
        s[b + F_VP_GOALS] = vg
        s[b + F_VP_CARDS] = vc
        s[b + F_VP_TOKENS] = vt
        s[b + F_PENALTY] = pen
        s[b + F_VP_PEASANTS] = vpz
        s[b + F_VP_PHIL] = vph
        s[b + F_SCORE] = vg + vc + vt - pen + vpz + vph
        s[b + F_DYN_COUNT] = dyn_count(s, p)
    s[G_SCORED] = 1


@kernel
def end_round(s):
    """P2.5, P3, P4 and E1-E2.  Returns True when the game ended."""
    for i in range(s[G_K]):
        c = s[ROW + i]
        if c == ROW_DRAGON:
            s[G_DRAGON] = DR_SET_ASIDE
        elif c >= 0:
            s[LOC + c] = LOC_DISCARD
        s[ROW + i] = -1
    summon(s)
    if deck_left(s) < s[G_K]:
        score_game(s)
        s[G_PHASE] = PH_OVER
        s[G_DECISION] = DK_NONE
        s[H_CURRENT] = NO_PLAYER
        return True
    reveal(s)
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        if s[b + F_ZERO] == 1:
            s[b + F_HAND] |= s[b + F_DISC]
            s[b + F_DISC] = 0
    if s[O_LEAD_SEAT] == 0:
        s[G_LEAD] = (s[G_LEAD] + 1) % n
    s[G_ROUND] += 1
    begin_round(s)
    return False


# ============================================================================ the state machine


@kernel(inline=True)
def _decide(s, p, kind):
    s[H_CURRENT] = p
    s[G_DECISION] = kind


@kernel  # called, not inlined: inlined into new_state, apply and rewind_secrets it was compiled three times
def advance(s):
    """Run automatic steps until a seat must decide (or the game ends)."""
    n = n_players(s)
    while True:
        if s[G_PEND_P] >= 0:
            _decide(s, s[G_PEND_P], DK_HOST)
            return
        ph = s[G_PHASE]
        if ph == PH_COMMIT:
            while s[G_SUB] < n:
                p = s[G_SUB]
                kind = commit_decision(s, p)
                if kind != DK_NONE:
                    _decide(s, p, kind)
                    return
                s[G_SUB] += 1
            s[G_PHASE] = PH_PALACE
        elif ph == PH_PALACE:
            q = s[GOAL_OWNER + PALACE]
            if q >= 0:
                b = pb(q)
                j = 0 if s[G_TWO_BID] == 0 else 1
                if (
                    s[b + F_SLOT_CARD + j] == NO_CARD
                    and s[b + F_HAND] != 0
                    and (s[G_TWO_BID] == 0 or s[b + F_SLOT_CARD] != NO_CARD)
                ):
                    _decide(s, q, DK_BID)
                    return
            s[G_PHASE] = PH_HARVEST
            s[G_SUB] = 0
        elif ph == PH_HARVEST:
            h = s[GOAL_OWNER + HARVEST]
            if s[G_SUB] == 0 and h >= 0 and harvest_eligible(s, h):
                _decide(s, h, DK_HARVEST)
                return
            s[G_PHASE] = PH_EMPEROR
            s[G_SUB] = 0
        elif ph == PH_EMPEROR:
            e = s[GOAL_OWNER + EMPEROR]
            if e >= 0 and s[pb(e) + F_EMP_SLOT] < 0 and not emperor_names_at_commit(s, e):
                m = emperor_entries(s, e)
                if s[G_TWO_BID] == 1 and m == 3:
                    _decide(s, e, DK_EMPEROR)
                    return
                if m == 1:
                    s[pb(e) + F_EMP_SLOT] = 0
                elif m == 2:
                    s[pb(e) + F_EMP_SLOT] = 1
                elif m == 3:  # standard rules use one slot only; unreachable
                    s[pb(e) + F_EMP_SLOT] = 0
            build_order(s)
            s[G_PHASE] = PH_DRAGON
        elif ph == PH_DRAGON:
            d = s[GOAL_OWNER + DRAGON]
            if s[G_SUB] == 0 and s[G_DRAGON] == DR_HELD and d >= 0:
                if exchange_mask(s, d) != 0:
                    _decide(s, d, DK_EXCHANGE)
                    return
            s[G_PHASE] = PH_RESOLVE
            s[G_SUB] = 0
        elif ph == PH_RESOLVE:
            if s[G_ORD_POS] >= s[G_ORD_N]:
                s[G_PHASE] = PH_HEIR
                s[G_SUB] = 0
                continue
            pos = s[G_ORD_POS]
            en = s[ORD_ENT + pos]
            kind = s[ORD_GKIND + pos]
            if kind == GK_PICK:
                p = en // 2
                if row_count(s) > 0:
                    _decide(s, p, DK_PICK)
                    return
                discard_entry(s, p, en % 2)
                s[G_ORD_POS] = pos + 1
            else:
                if _resolve_identical(s, pos):
                    continue  # a host decision is pending
        elif ph == PH_HEIR:
            h = s[GOAL_OWNER + HEIR]
            if s[G_SUB] == 0 and h >= 0 and _heir_has_choice(s):
                _decide(s, h, DK_HEIR)
                return
            if end_round(s):
                return
        else:
            s[H_CURRENT] = NO_PLAYER
            return


@kernel(inline=True)
def _heir_has_choice(s):
    for i in range(s[G_K]):
        c = s[ROW + i]
        if c >= 0 and (c != ROW_DRAGON or s[O_HEIR_DRAGON] == 0):
            return True
    return False


@kernel
def _resolve_identical(s, pos):
    """P2.3 IDENTICAL slot starting at ``pos``: members draw in order, then stacks are
    discarded, then deferred goal checks in draw order.  ``G_SUB`` counts members done.
    Under ``ident_short_deck = all_or_none`` the deck is measured against the members once,
    when the slot starts (D33); after that every member draws.
    Returns True when a Market host decision is pending."""
    end = s[ORD_GEND + pos]
    size = end - pos
    defer = s[O_IDENT_GOAL] == 0
    if s[G_SUB] == 0 and s[O_IDENT_SHORT] == 1 and deck_left(s) < size:
        s[G_SUB] = size  # D33 all_or_none, judged once at the start of the slot: nobody draws
    while s[G_SUB] < size:
        i = pos + s[G_SUB]
        s[G_SUB] += 1
        p = s[ORD_ENT + i] // 2
        if deck_left(s) > 0:
            c = s[DECK + s[G_DECK_PTR]]
            s[G_DECK_PTR] += 1
            s[G_IDENT_DRAWS] += 1
            if gain(s, p, c, VIA_DECKDRAW, defer, i):
                return True
    for i in range(pos, end):
        en = s[ORD_ENT + i]
        discard_entry(s, en // 2, en % 2)
    if defer:
        for i in range(pos, end):
            h = s[ORD_HOST + i]
            if h >= 0:
                goal_check(s, s[ORD_ENT + i] // 2, h)
    s[G_ORD_POS] = end
    s[G_SUB] = 0
    return False


# ============================================================================ contract kernels


@kernel
def is_terminal(s):
    return s[G_PHASE] == PH_OVER


@kernel
def legal_mask(s, out):
    """Fill ``out[NUM_ACTIONS]``; return the number of legal actions."""
    for i in range(NUM_ACTIONS):  # (a loop: slice assignment costs a view per call)
        out[i] = False
    if s[G_PHASE] == PH_OVER:
        return 0
    p = s[H_CURRENT]
    b = pb(p)
    kind = s[G_DECISION]
    k = s[G_K]
    count = 0
    if kind == DK_BID:
        hand = s[b + F_HAND]
        for v in range(8):  # branch-free: the hand's bits are what a random player's draws vary
            bit = (hand >> v) & 1
            out[A_BID + v] = bit != 0
            count += bit
    elif kind == DK_SLOT:
        nc = n_carry(s, p)
        out[A_SLOT_STACK0] = True
        if nc == 2:
            out[A_SLOT_STACK1] = True
        else:
            out[A_SLOT_SINGLE] = True
        count = 2
    elif kind == DK_HARVEST:
        out[A_PASS] = True
        count = 1
        for v in range(8):
            if (s[b + F_HAND] >> v) & 1:
                out[A_BID + v] = True
                count += 1
    elif kind == DK_EMPEROR:
        for j in range(2):
            if s[b + F_SLOT_CARD + j] != NO_CARD and not is_abstention(s, p, j):
                out[A_BID + s[b + F_SLOT_CARD + j]] = True
                count += 1
        if s[G_PHASE] == PH_COMMIT and emperor_late_named(s, p):
            out[A_EMP_LATE] = True
            count += 1
    elif kind == DK_EXCHANGE:
        em = exchange_mask(s, p)
        for i in range(k):
            if (em >> i) & 1:
                out[A_ROW + i] = True
                count += 1
    elif kind == DK_PICK:
        for i in range(k):
            if s[ROW + i] >= 0:
                out[A_ROW + i] = True
                count += 1
    elif kind == DK_HOST:
        out[A_HOST + MERCHANT] = True
        count = 1
        for h in range(N_TYPES):
            if h != MERCHANT and s[b + F_PHYS + h] + s[b + F_DBL + h] >= 1:
                out[A_HOST + h] = True
                count += 1
    elif kind == DK_HEIR:
        if s[O_HEIR_OPTIONAL] == 0:
            out[A_PASS] = True
            count = 1
        for i in range(k):
            c = s[ROW + i]
            if c >= 0 and (c != ROW_DRAGON or s[O_HEIR_DRAGON] == 0):
                out[A_ROW + i] = True
                count += 1
    return count


@kernel
def apply(s, a):
    """Perform decision ``a`` of the seat to move (assumed legal), then advance."""
    p = s[H_CURRENT]
    b = pb(p)
    kind = s[G_DECISION]
    s[H_PLY] += 1
    if kind == DK_BID:
        v = a - A_BID
        if s[G_PHASE] == PH_COMMIT:
            j = 0 if s[b + F_SLOT_CARD] == NO_CARD else 1
            lay(s, p, j, v, commit_slot_stack(s, p, j), STEP_COMMIT)
        else:  # P1.3 Palace late bid
            j = 0 if s[G_TWO_BID] == 0 else 1
            lay(s, p, j, v, palace_late_stack(s, p), STEP_PALACE)
    elif kind == DK_SLOT:
        st = 0 if a == A_SLOT_STACK0 else (1 if a == A_SLOT_STACK1 else -1)
        if s[b + F_HAND_START] == 1:  # hand {0} with two stacks: the 0 goes on the chosen one
            lay(s, p, 0, 0, st, STEP_COMMIT)
        else:
            s[b + F_PAL_FIRST] = st
    elif kind == DK_HARVEST:
        s[G_SUB] = 1
        if a != A_PASS:
            v = a - A_BID
            for j in range(2):
                if s[b + F_SLOT_CARD + j] == 0:
                    s[b + F_DISC] |= 1
                    s[b + F_HAND] &= ~(1 << v)
                    s[b + F_SLOT_CARD + j] = v
                    s[b + F_SLOT_STEP + j] = STEP_HARVEST
                    break
            s[b + F_HARVEST_SWAPS] += 1
    elif kind == DK_EMPEROR:
        if a == A_EMP_LATE:
            s[b + F_EMP_SLOT] = 1  # the Palace's late card is laid in slot 1
        else:
            s[b + F_EMP_SLOT] = 0 if s[b + F_SLOT_CARD] == a - A_BID else 1
    elif kind == DK_EXCHANGE:
        i = a - A_ROW
        c = s[ROW + i]
        s[ROW + i] = ROW_DRAGON
        s[G_DRAGON] = DR_IN_ROW
        s[GOAL_OWNER + DRAGON] = NO_PLAYER
        s[G_SUB] = 1
        gain(s, p, c, VIA_EXCHANGE, False, -1)
    elif kind == DK_PICK:
        i = a - A_ROW
        c = s[ROW + i]
        s[ROW + i] = -1
        pos = s[G_ORD_POS]
        en = s[ORD_ENT + pos]
        discard_entry(s, p, en % 2)
        s[b + F_PICK_RANK_SUM] += pos + 1
        s[b + F_PICKS] += 1
        s[G_ORD_POS] = pos + 1
        gain(s, p, c, VIA_PICK, False, -1)
    elif kind == DK_HOST:
        h = a - A_HOST
        c = s[G_PEND_CARD]
        member = s[G_PEND_MEMBER]
        place_card(s, p, c, h)
        if member >= 0:
            s[ORD_HOST + member] = h
        if s[G_PEND_DEFER] == 0:
            goal_check(s, p, h)
        s[G_PEND_P] = NO_PLAYER
        s[G_PEND_MEMBER] = -1
    elif kind == DK_HEIR:
        s[G_SUB] = 1
        if a != A_PASS:
            i = a - A_ROW
            c = s[ROW + i]
            s[ROW + i] = -1
            gain(s, p, c, VIA_HEIR, False, -1)
    advance(s)


@kernel
def returns(s, scores, wins):
    """Final scores; win shares (1/k) by score, then physical dynasty cards (S6)."""
    n = n_players(s)
    best = -1
    for p in range(n):
        scores[p] = s[pb(p) + F_SCORE]
        key = s[pb(p) + F_SCORE] * 1024 + s[pb(p) + F_DYN_COUNT]
        if key > best or p == 0:
            best = key
    k = 0
    for p in range(n):
        if s[pb(p) + F_SCORE] * 1024 + s[pb(p) + F_DYN_COUNT] == best:
            k += 1
    for p in range(n):
        wins[p] = 1.0 / k if s[pb(p) + F_SCORE] * 1024 + s[pb(p) + F_DYN_COUNT] == best else 0.0


@kernel
def determinize(s, observer, rng):
    """Resample what ``observer`` cannot see: the deck order and other seats' hidden commits."""
    shuffle_range(s, DECK + s[G_DECK_PTR], DECK + N_DYN, rng, 0)
    if s[G_PHASE] != PH_COMMIT:
        return
    for q in range(n_players(s)):
        if q == observer:
            continue
        b = pb(q)
        for j in range(2):
            card = s[b + F_SLOT_CARD + j]
            if card != NO_CARD and s[b + F_SLOT_STEP + j] == STEP_COMMIT:
                s[b + F_HAND] |= 1 << card
        s[b + F_ZERO] = 0
        for j in range(2):
            if s[b + F_SLOT_CARD + j] != NO_CARD and s[b + F_SLOT_STEP + j] == STEP_COMMIT:
                hand = s[b + F_HAND]
                k = rng_below(rng, 0, bit_count(hand))
                for v in range(8):
                    if (hand >> v) & 1:
                        if k == 0:
                            break
                        k -= 1
                st = s[b + F_SLOT_STACK + j]
                if s[b + F_HAND_START] == 1 and n_carry(s, q) == 2:
                    st = rng_below(rng, 0, 2)  # which stack took the 0 is secret too
                lay(s, q, j, v, st, STEP_COMMIT)
        if s[b + F_EMP_SLOT] >= 0:  # D5 at_commit: the secret naming follows the resampled cards
            m = emperor_entries(s, q)
            if emperor_late_named(s, q):
                m |= 2  # the late bid, always a choice
            s[b + F_EMP_SLOT] = rng_below(rng, 0, 2) if m == 3 else (0 if m == 1 else 1)


# ============================================================================ features, evaluation

FEATURE_NAMES = (
    "goal_palace",
    "goal_harvest",
    "goal_market",
    "goal_heir",
    "goal_emperor",
    "goal_dragon",
    "officials",
    "peasants",
    "merchants",
    "nobles",
    "generals",
    "philosopher",
    "tokens",
    "dynasty_cards",
    "vp_goals",
    "vp_cards",
    "vp_tokens",
    "vp_missing_types",
    "vp_peasants",
    "vp_philosopher",
    "ties",
    "harvest_swaps",
    "dragon_summons",
    "mean_pick_position",
    "rounds",
    "identical_draws",
    "tokens_over_supply",
)
N_FEATURES = len(FEATURE_NAMES)


@kernel
def features(s, out):
    """Per-seat balance features at the end of a game (``out[n, N_FEATURES]``).

    Goals are those held after the end-game Heir award; card counts are effective counts;
    the last three columns are per game (same value on every seat).
    """
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        for g in range(N_GOALS):
            out[p, g] = 1.0 if s[GOAL_OWNER + g] == p else 0.0
        for t in range(N_TYPES):
            out[p, 6 + t] = s[b + F_EFF + t]
        out[p, 11] = 1.0 if s[LOC + s[S_PHIL]] == LOC_OWNED + p else 0.0
        out[p, 12] = s[b + F_TOKENS]
        out[p, 13] = dyn_count(s, p)
        out[p, 14] = s[b + F_VP_GOALS]
        out[p, 15] = s[b + F_VP_CARDS]
        out[p, 16] = s[b + F_VP_TOKENS]
        out[p, 17] = -s[b + F_PENALTY]
        out[p, 18] = s[b + F_VP_PEASANTS]
        out[p, 19] = s[b + F_VP_PHIL]
        out[p, 20] = s[b + F_TIES]
        out[p, 21] = s[b + F_HARVEST_SWAPS]
        out[p, 22] = s[b + F_DRAGON_GOT]
        picks = s[b + F_PICKS]
        out[p, 23] = s[b + F_PICK_RANK_SUM] / picks if picks > 0 else 0.0
        out[p, 24] = s[G_ROUND]
        out[p, 25] = s[G_IDENT_DRAWS]
        out[p, 26] = s[G_TOKEN_OVER]


@nb.njit(cache=True)
def provisional_scores(s, out):
    """Each seat's score if the game ended now (S1-S5 on a copy)."""
    c = s.copy()
    score_game(c)
    for p in range(n_players(s)):
        out[p] = c[pb(p) + F_SCORE]


@nb.njit(cache=True)
def evaluate(s, out):
    """Leaf value in [0, 1] per seat: a logistic of the provisional lead over the best rival."""
    n = n_players(s)
    sc = np.zeros(n)
    provisional_scores(s, sc)
    for p in range(n):
        best = -1e9
        for q in range(n):
            if q != p and sc[q] > best:
                best = sc[q]
        out[p] = 1.0 / (1.0 + np.exp(-(sc[p] - best) / 6.0))


COMMITTED = 99  # info_key: "a card lies face down here", value unknown


@nb.njit(cache=True)
def masked_state(s, player):
    """The state with what ``player`` cannot see masked (-1: for every seat): what
    :func:`info_key` hashes and the observation tensors (observe.py) show."""
    c = s.copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    for i in range(DECK + s[G_DECK_PTR], DECK + N_DYN):
        c[i] = 0
    if s[G_PHASE] == PH_COMMIT:
        for q in range(n_players(s)):
            if q == player:
                continue
            b = pb(q)
            c[b + F_HAND] = s[b + F_HAND_START]
            c[b + F_ZERO] = 0
            c[b + F_EMP_SLOT] = (
                0 if s[b + F_EMP_SLOT] >= 0 else -1
            )  # named (D5 at_commit), not which
            for j in range(2):
                if s[b + F_SLOT_CARD + j] != NO_CARD and s[b + F_SLOT_STEP + j] == STEP_COMMIT:
                    c[b + F_SLOT_CARD + j] = COMMITTED
                    if s[b + F_HAND_START] == 1:
                        c[b + F_SLOT_STACK + j] = 0
    return c


@nb.njit(cache=True)
def info_key(s, player):
    """A 64-bit key of what ``player`` knows (sim.core contract).

    Hashes the state with the hidden parts masked: the RNG and seed words, the order of
    the undrawn deck, and, during the blind commit, the other seats' face-down cards (only
    *that* they committed is public; their hands show as at the start of the round).
    """
    return hash_words(masked_state(s, player), player)


@kernel
def rewind_secrets(s, observer):
    """Take back the blind commits other seats made earlier in this round (contract: see
    sim.core).  Their cards return to hand and they are to choose again; the observer's own
    commit stays; the ply counter drops by the decisions taken back."""
    if s[G_PHASE] != PH_COMMIT:
        return
    undone = 0
    for q in range(n_players(s)):
        if q == observer:
            continue
        b = pb(q)
        laid = 0
        for j in range(2):
            if s[b + F_SLOT_CARD + j] != NO_CARD:
                laid += 1
        if laid == 0:
            continue
        nc = n_carry(s, q)
        if s[G_TWO_BID] == 1 and s[b + F_HAND_START] == 1:
            undone += 1 if nc == 2 else 0  # 5.1: a lone 0 is laid for them unless it picks a stack
        else:
            undone += laid
            if s[G_TWO_BID] == 1 and s[GOAL_OWNER + PALACE] == q and nc >= 1:
                undone += 1  # the Palace's public announcement
        if s[b + F_EMP_SLOT] >= 0:  # D5 at_commit: the naming is taken back with the commit
            if s[b + F_HAND_START] != 1:  # it was asked (a hand of {0} names unasked)
                undone += 1
            s[b + F_EMP_SLOT] = -1
        for j in range(2):
            card = s[b + F_SLOT_CARD + j]
            if card != NO_CARD:
                s[b + F_HAND] |= 1 << card
                s[b + F_SLOT_CARD + j] = NO_CARD
                s[b + F_SLOT_STACK + j] = -1
        s[b + F_ZERO] = 0
        s[b + F_PAL_FIRST] = -2
    s[H_PLY] -= undone
    s[G_SUB] = 0
    advance(s)
