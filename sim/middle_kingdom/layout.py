"""Middle Kingdom: constants and the layout of the flat state array.

Everything here is a plain module-level int, so numba folds it into the kernels.

State layout (int32; fixed offsets, room for MAXP = 5 seats and KMAX = 5 row slots)::

    [0, 8)        core header (sim.core): RNG, n_players, current seat, ply, seed
    OPT           option codes, in the order of ``options.OPTIONS`` (N_OPT slots)
    CARD_TYPE     62 card types (from the data file)
    CARD_VP       62 printed VP per card (the chosen Noble table applied)
    GOAL_VP       6 end-game VP of the goal cards
    PEASANT_VP    6 entries: VP for 0..5+ Peasants kept
    SCALARS       missing-type penalty, token VP, token supply, goal threshold,
                  Harvest hand limit, Dragon summon threshold, Philosopher id
    G_*           round-level scalars (round, lead seat, phase, decision kind ...)
    GOAL_OWNER    6 owners (-1 = nobody); GOAL_OWNER + DRAGON is the Dragon's holder
    ROW           KMAX row items (-1 empty, 0..61 dynasty card, ROW_DRAGON = the Dragon)
    DECK          62 card ids, the deck in draw order; G_DECK_PTR = cards drawn so far
    LOC           62 locations: LOC_DECK, LOC_ROW, LOC_DISCARD, or LOC_OWNED + seat
    HOST          62 stack types: the type stack a owned card lies on (a Market Merchant
                  on another stack has HOST != its type)
    ORD_*         the round's resolution order (MAX_ENTRIES entries), see rules.build_order
    PL            MAXP player blocks of PS ints each, fields F_*
"""

MAXP = 5
KMAX = 5
N_DYN = 62
N_TYPES = 5
N_GOALS = 6
N_BID = 8  # bid values 0..7
ALL_BIDS = (1 << N_BID) - 1
MAX_ENTRIES = 2 * MAXP
NO_CARD = -1

# Dynasty card types; goal ids line up with them (GOAL_OF[type] == type).
OFFICIAL, PEASANT, MERCHANT, NOBLE, GENERAL = 0, 1, 2, 3, 4
PALACE, HARVEST, MARKET, HEIR, EMPEROR, DRAGON = 0, 1, 2, 3, 4, 5
ROW_DRAGON = 62

# Dragon card whereabouts.
DR_DISPLAY, DR_HELD, DR_IN_ROW, DR_SET_ASIDE = 0, 1, 2, 3

# Card locations.
LOC_DECK, LOC_ROW, LOC_DISCARD, LOC_OWNED = 0, 1, 2, 3

# Phases of the round state machine (rules.advance).
PH_COMMIT, PH_PALACE, PH_HARVEST, PH_EMPEROR, PH_DRAGON, PH_RESOLVE, PH_HEIR, PH_OVER = range(8)

# Decision kinds: what the seat to move is choosing (drives legal_mask).
DK_NONE = 0
DK_BID = 1  # a bid card from hand (commit or Palace late bid)
DK_SLOT = 2  # which stack / single a card goes to (2p Palace announcement; hand {0} with 2 stacks)
DK_HARVEST = 3  # keep the 0 (PASS) or swap it for a hand card
DK_EMPEROR = 4  # which own entry gets +0.5 (named by its top card, or A_EMP_LATE)
DK_EXCHANGE = 5  # Dragon exchange: a legal row card
DK_PICK = 6  # a row item
DK_HOST = 7  # Market: the stack a Merchant goes on
DK_HEIR = 8  # Heir: PASS or a row item

# Action space (23 actions).
A_BID = 0  # 0..7: bid card value v (also: Harvest swap target, Emperor's entry by top card)
A_ROW = 8  # 8..12: row slot i
A_PASS = 13
A_HOST = 14  # 14..18: host stack type t
A_SLOT_STACK0 = 19
A_SLOT_STACK1 = 20
A_SLOT_SINGLE = 21
A_EMP_LATE = 22  # D5 at_commit: the Palace holder's Emperor names its late bid
NUM_ACTIONS = 23

# Entry groups of the resolution order.
GK_PICK, GK_IDENT, GK_TIE = 0, 1, 2

# When an entry's top card was laid (D6): commit, Palace late bid, Harvest replacement.
STEP_COMMIT, STEP_PALACE, STEP_HARVEST = 0, 1, 2

# ---------------------------------------------------------------- option slots
# The options array given to new_state holds N_OPTION_CODES option codes (options.OPTIONS,
# which checks its length against this), then the component data.  The state keeps them
# in N_OPT slots, one more than the codes: the last slot is spare (always 0), so that one
# more option would not move the offsets after it.  Changing either count changes the
# state layout.
N_OPTION_CODES = 15
N_OPT = 16
assert N_OPTION_CODES <= N_OPT
OPT = 8
O_VARIANT = OPT + 0  # 0 standard, 1 advanced (3p only)
O_HARVEST_COUNT = OPT + 1  # 0 after_lay, 1 before_lay
O_LEAD_SEAT = OPT + 2  # 0 rotating, 1 fixed_seat0
O_IDENT_DRAW = OPT + 3  # 0 in_order, 1 after_picks
O_IDENT_GOAL = OPT + 4  # 0 after_slot, 1 per_member
O_IDENT_SHORT = OPT + 5  # 0 each_while_cards, 1 all_or_none
O_DRAGON_ROW_PICK = OPT + 6  # 0 false, 1 true
O_DRAGON_TIEBREAK = OPT + 7  # 0 physical, 1 effective
O_MARKET_DBL_MERCHANT = OPT + 8  # 0 false, 1 true
O_MARKET_ANY_GAIN = OPT + 9  # 0 any_gain, 1 pick_only
O_HEIR_OPTIONAL = OPT + 10  # 0 true, 1 false
O_HEIR_DRAGON = OPT + 11  # 0 true, 1 false
O_TOKEN_LIMIT = OPT + 12  # 0 none, 1 eighteen
O_NOBLE_TABLE = OPT + 13  # 0 default_4_4_4, 1 alt_a_6_4_2, 2 alt_b_3_6_3
O_EMP_AT_COMMIT = OPT + 14  # D5 emp_designation_2p: 0 post_reveal, 1 at_commit
N_NOBLE_TABLES = 3

# ---------------------------------------------------------------- data layout (after option codes)
D_TYPE = 0
D_VP = D_TYPE + N_DYN  # N_NOBLE_TABLES x 62 card VPs
D_GOAL_VP = D_VP + N_NOBLE_TABLES * N_DYN
D_PEASANT = D_GOAL_VP + N_GOALS
D_PENALTY = D_PEASANT + 6
D_TOKEN_VP = D_PENALTY + 1
D_TOKEN_SUPPLY = D_TOKEN_VP + 1
D_THRESHOLD = D_TOKEN_SUPPLY + 1
D_HARVEST_LIMIT = D_THRESHOLD + 1
D_SUMMON_MIN = D_HARVEST_LIMIT + 1
D_PHIL = D_SUMMON_MIN + 1
D_SIZE = D_PHIL + 1

# ---------------------------------------------------------------- state offsets
CARD_TYPE = OPT + N_OPT
CARD_VP = CARD_TYPE + N_DYN
GOAL_VP = CARD_VP + N_DYN
PEASANT_VP = GOAL_VP + N_GOALS
S_PENALTY = PEASANT_VP + 6
S_TOKEN_VP = S_PENALTY + 1
S_TOKEN_SUPPLY = S_TOKEN_VP + 1
S_THRESHOLD = S_TOKEN_SUPPLY + 1
S_HARVEST_LIMIT = S_THRESHOLD + 1
S_SUMMON_MIN = S_HARVEST_LIMIT + 1
S_PHIL = S_SUMMON_MIN + 1

G = S_PHIL + 1
G_ROUND = G + 0  # 1-based
G_LEAD = G + 1  # lead seat (orders identical-stack draws, D6)
G_PHASE = G + 2
G_DECISION = G + 3  # DK_* of the seat to move
G_K = G + 4  # cards revealed per round
G_TWO_BID = G + 5  # 1 under the two-player rules (2p and advanced 3p)
G_DECK_PTR = G + 6
G_DRAGON = G + 7  # DR_*
G_ORD_N = G + 8
G_ORD_POS = G + 9
G_SUB = G + 10  # progress inside the current step (committer index, identical-slot stage ...)
G_PEND_P = G + 11  # pending Market choice: seat, card, whether its goal check is deferred
G_PEND_CARD = G + 12
G_PEND_DEFER = G + 13
G_PEND_MEMBER = G + 14  # identical-slot member index awaiting the host choice (-1 none)
G_TOKENS_OUT = G + 15  # tokens handed out in total
G_TOKEN_OVER = G + 16  # takes beyond the physical supply
G_IDENT_DRAWS = G + 17  # deck draws from identical stacks
G_TIES = G + 18  # tied entries
G_SUMMONS = G + 19
G_SCORED = G + 20
G_SIZE = 21

GOAL_OWNER = G + G_SIZE
ROW = GOAL_OWNER + N_GOALS
DECK = ROW + KMAX
LOC = DECK + N_DYN
HOST = LOC + N_DYN
ORD_ENT = HOST + N_DYN  # entry = seat * 2 + slot
ORD_GKIND = ORD_ENT + MAX_ENTRIES
ORD_GEND = ORD_GKIND + MAX_ENTRIES  # index one past the end of the entry's group
ORD_HOST = ORD_GEND + MAX_ENTRIES  # identical slots: the stack type each member's draw went on

# Player block fields.
F_HAND = 0  # bitmask of bid values in hand
F_HAND_START = 1  # hand at the start of the round (public)
F_DISC = 2  # bitmask of the face-up bid discard
F_CARRY = 3  # 2 carried tie stacks: card value or NO_CARD (index 0 filled first)
F_SLOT_CARD = 5  # 2 entries of this round: the card laid (NO_CARD = none)
F_SLOT_STACK = 7  # the carried stack it went on (-1 = single)
F_SLOT_BOTTOM = 9  # the stack's earlier card once the entry is built (NO_CARD = single)
F_SLOT_STEP = 11  # STEP_* when the top card was laid
F_EMP_SLOT = 13  # entry with the Emperor's +0.5 (-1 none)
F_ZERO = 14  # laid a 0 this round
F_PAL_FIRST = 15  # 2p Palace: stack index announced for the first card (-1 single, -2 not yet)
F_PHYS = 16  # 5 physical cards per type stack
F_DBL = 21  # 5 Market Merchants lying on each (non-Merchant) stack
F_EFF = 26  # 5 effective counts
F_TOKENS = 31
F_LAST_DRAGON = 32  # last round this seat received the Dragon by summoning (-1 never);
#                    under dragon_held_includes_row_pick also by taking it from the row
F_DRAGON_GOT = 33  # summons received
F_SCORE = 34  # final score and its parts (set when the game ends)
F_VP_GOALS = 35
F_VP_CARDS = 36
F_VP_TOKENS = 37
F_PENALTY = 38
F_VP_PEASANTS = 39
F_VP_PHIL = 40
F_DYN_COUNT = 41  # physical dynasty cards owned
F_TIES = 42  # times this seat's entry tied
F_HARVEST_SWAPS = 43
F_PICK_RANK_SUM = 44  # sum of pick positions (for balance studies)
F_PICKS = 45  # cards taken by PICK slots
# 1: that last holding was a summon (phase 3); 0: a take from the row (phase 2)
F_LAST_DRAGON_SUMMONED = 46
PS = 47

SCR_ENT = ORD_HOST + MAX_ENTRIES  # scratch for build_order: entries and their keys
SCR_KEY = SCR_ENT + MAX_ENTRIES
PL = SCR_KEY + MAX_ENTRIES
STATE_SIZE = PL + MAXP * PS
