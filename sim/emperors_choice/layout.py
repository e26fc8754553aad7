"""Emperor's Choice: constants and the layout of the flat state array.

Plain module-level ints (numba folds them into the kernels).  Component values (cards,
tiles, palace levels, effects, tables) are *data*: they are packed by ``options.py`` from
``data/components.json`` and copied into the state after the option codes (``DAT``).

State layout (int32)::

    [0, 8)      core header (sim.core)
    OPT         N_OPT option codes (options.OPTIONS order)
    DAT         D_SIZE ints of component data (offsets D_*)
    G_*         round-level scalars
    LOC         MAXC card locations (LOC_*); KNOWN: MAXC flags (identity public while held)
    RECRUIT     6 Recruitment display slots (card id or -1)
    BAG         N_TILE tile counts in the bag; REMOVED: tiles out of the game by type
    SETS        MAX_SETS x N_TILE tile counts of the Tile display
    POLICY      7 x (side, disc); UNDER: 7 x N_TRIB Tribute cards under each card
    TRIB_DECK   N_TRIB Tribute cards left per value kind
    TREASURE    3 owners (-1 unclaimed); TR_USED: 3 flags (used this round)
    STACK       work stack of effect atoms (kind, value, seat) run by rules.advance
    LOG/LOGK    chance outcomes in the order they happened (value, kind)
    REVEALING   MAXC flags: cards revealed for the scoring under way
                (reveal_mode = optional_subset)
    BID_FX      MAXC flags: cards of the bid just confirmed whose bid-time effect is still to
                run (D-A4)
    PL          MAXP player blocks of PS ints (F_*)
    SCRATCH     MAXC words of scratch space for kernels that would otherwise allocate; zero
                between calls
    CARDS_AT    N_LOC x 2 words: the cards at each location (LOC_*) as a 64-bit set (bit c:
                card c; low word cards 0-31, high word 32-63), kept with LOC by every move
                (rules.move_card), so that kernels visit the cards of a hand or a bid without
                scanning LOC.  Derived from LOC (rules.sync_card_sets rebuilds it); after
                SCRATCH, outside what rules.info_key hashes and the observation shows
"""

MAXP = 5
MAXC = 64  # character card slots (deck + starting + bonus)
MAX_SETS = 5
N_POLICY = 7
N_TRIB = 4  # Tribute value kinds
N_TREASURE = 3
N_WD = 6  # Withdrawal tiles
N_SB = 5  # Starting Bonus tiles
N_LEVELS = 12  # palace levels above the Start space
MAX_ROUNDS = 6
N_PCOUNT = 3  # player counts 3, 4, 5
MAX_RECRUIT = 6

# Tile types (engine vocabulary; bag counts come from the data file).
CASTLE, CANAL, WALL, TOWER = 0, 1, 2, 3
CAR1 = 4  # CAR1..CAR1+4: carriage types 1..5
CONF, LEGAL, BOOK = 9, 10, 11
JADE, MESSENGER, NUGGET, SEAL = 12, 13, 14, 15
BARB1, BARB2 = 16, 17
N_TILE = 18
N_IMM = 4  # immediate types JADE..SEAL
TILE_NAMES = (
    "castle",
    "canal",
    "wall",
    "tower",
    "carriage_1",
    "carriage_2",
    "carriage_3",
    "carriage_4",
    "carriage_5",
    "confucianist",
    "legalist",
    "book",
    "precious_jade",
    "imperial_messenger",
    "gold_nugget",
    "royal_seal",
    "barbarian_1",
    "barbarian_2",
)

# Printed rule numbers (SEED) used by the kernels.
TRUST_MAX = 30
OVERFLOW_LOSS = 10
TRUST_SHORT_VP = 2  # VP per Trust point a loss cannot cover
EXHAUST_CUBES = 2  # cubes each player returns in an exhaustion event
EXHAUST_SHORT_VP = 3  # VP per cube a player cannot return
EMPTY_TRIBUTE_VP = 3
DECREE_VP = 3
MESSENGER_TRUST = 4
NUGGET_GOLD = 3
BARB_START = 2
BARB_MAX = 17
CENTRAL_PAY = 2
CENTRAL_GOLD = 2
DECENTRAL_VP = 2
EXTRAV_CANAL_VP = 2
EXTRAV_WALL_VP = 1
DEFENCE_WIN_BONUS = 2
BORDER_WALL_MULT = 2
BORDER_WIN_PAY, BORDER_LOSS_PAY = 2, 1
EXPED_WIN_PAY, EXPED_LOSS_PAY = 3, 1
LINEAGE_VP = 3
BURNING_VP = 6
PRESERVE_VP = 5
MAX_DISCS = 6

# Policy scoring ids (the data's scoring_id column maps to these).
SC_CENTRAL, SC_DECENTRAL, SC_LEGAL, SC_CONF, SC_EXTRAV, SC_FRUGAL, SC_BORDER, SC_EXPED = range(8)
SC_MERIT, SC_LINEAGE, SC_BURN, SC_PRESERVE, SC_TOUR, SC_PARADE = range(8, 14)
SCORING_IDS = (
    "soldiers_vp_and_top_pays",
    "castles_2vp",
    "legalist_tiers",
    "confucianist_tiers",
    "canals_2vp_wall_1vp",
    "chooser_draws_tribute",
    "border_defence",
    "expedition",
    "top2_power",
    "lineage_3vp",
    "no_books_6vp_then_burn",
    "books_5vp_then_burn_tribute",
    "carriages_distinct",
    "carriages_same",
)
EXTRAV_CARD = 2  # index of the card whose side A makes Canals count as Castles (found from data)

# Effect atoms (data-facing 1..9, internal 10+).
(
    AT_GOLD,
    AT_SOLDIERS,
    AT_TRUST,
    AT_VP,
    AT_PALACE_UP,
    AT_BONUS_CAV,
    AT_QIN_TILE,
    AT_QIN_DRAW2,
    AT_CHARACTER,
) = range(1, 10)
ATOM_NAMES = (
    "",
    "gold",
    "soldiers",
    "trust",
    "vp",
    "palace_up",
    "bonus_cavalry",
    "qin_tile",
    "qin_draw2keep1",
    "character",
)
AT_EFFECT = 10  # value = effect index (may offer a '/' choice)
AT_LEVEL = 11  # enter the next palace level (value 1 = paid raise, 0 = free)
AT_TRUST_LOSS = 12
AT_TRIBUTE = 13
AT_IMM = 14  # resolve one pending immediate tile of type value
AT_SCORE_CHOICE = 15  # choose a Policy card to score (value: chooser role)
AT_BID_EFFECTS = 16  # value = card whose bid-time effect resolves
AT_NEXT_AUCTION = 17  # marker: the pass procedure finished
# reveal_mode = optional_subset: player p picks the cards to reveal for a scoring (value =
# card * 2 + side)
AT_REVEAL = 18
# D-A4: the next bid-time effect of the bid just confirmed (asked when two kinds wait)
AT_BID_NEXT = 19
# setup step 11: the value-th player from the start player draws a Starting Bonus tile
AT_SB_DRAW = 20

# Effects: index into the effect table (data).
MAX_OPTS = 3
MAX_ATOMS = 3
EFF_SIZE = 1 + MAX_OPTS * MAX_ATOMS * 2
EFF_WD = 0  # 6 withdrawal tiles
EFF_SB = EFF_WD + N_WD  # 5 starting bonus tiles
EFF_PAL = EFF_SB + N_SB  # 12 levels x 2 sides (level l side x: EFF_PAL + 2 * (l - 1) + x)
EFF_TR = EFF_PAL + 2 * N_LEVELS  # 3 treasures x 2 brackets
N_EFF = EFF_TR + 2 * N_TREASURE

# Card power rules, bid effects, end effects.
PR_FIXED, PR_SOLDIERS_PLUS_2 = 0, 1
FM_BONUS = 2
BE_NONE, BE_TRUST_PLUS_1, BE_EUNUCH = 0, 1, 2
EE_NONE, EE_FLAT, EE_PER_CASTLE, EE_PER_PHILO = 0, 1, 2, 3
CK_DECK, CK_START2, CK_START3, CK_BONUS, CK_UNUSED = 0, 1, 2, 3, 4
# card data fields
CD_POWER, CD_RULE, CD_COST, CD_LINEAGE, CD_DEFENCE, CD_BID, CD_END, CD_END_K, CD_KIND, CD_NAME = (
    range(10)
)
CD_SIZE = 10

# ---------------------------------------------------------------- data block (offsets from DAT)
D_NCARDS = 0
D_CARDS = 1
D_BAG = D_CARDS + MAXC * CD_SIZE  # N_TILE counts
D_BARB = D_BAG + N_TILE  # 2 barbarian values
D_EFF = D_BARB + 2  # N_EFF effects
D_PAL_VP = D_EFF + N_EFF * EFF_SIZE  # 13 end VP
D_RAISE_COST = D_PAL_VP + N_LEVELS + 1  # 3: cost of 1/2/3 levels
D_POLICY = D_RAISE_COST + 3  # 7 x 2 scoring ids
D_TOUR = D_POLICY + 2 * N_POLICY  # 6
D_PARADE = D_TOUR + 6  # 6
D_TIER = D_PARADE + 6  # 4
D_TREASURE_VP = D_TIER + 4  # 3
D_TRIB_VP = D_TREASURE_VP + N_TREASURE  # N_TRIB
D_TRIB_N = D_TRIB_VP + N_TRIB  # N_TRIB
D_DECREE_COST = D_TRIB_N + N_TRIB  # 6
D_SETS = D_DECREE_COST + MAX_ROUNDS  # 3 counts x MAX_SETS set sizes
D_RECRUIT = D_SETS + N_PCOUNT * MAX_SETS  # 3
D_POOL = D_RECRUIT + N_PCOUNT  # 3
D_START = D_POOL + N_PCOUNT  # vp, trust, palace, gold, soldiers, castles
D_SIZE = D_START + 6

# ---------------------------------------------------------------- options
OPT = 8
N_OPT = 10
O_POLICY_START = OPT + 0  # 0 A, 1 random
O_BONUS_MODE = OPT + 1  # 0 random, 1 none
O_CMAX_SCOPE = OPT + 2  # 0 historical_all_players, 1 current_active_displays
O_SOLDIER_PAY = OPT + 3  # 0 capped_no_penalty, 1 3vp_per_missing
O_TRUST_OVERFLOW = OPT + 4  # 0 cap30_then_minus10, 1 uncapped_then_minus10
O_CUBE_LOSS = OPT + 5  # 0 recompute_next_turn, 1 frozen_until_owner_turn
O_TREASURE_ONCE = OPT + 6  # 0 false, 1 true
O_IMM_TIMING = OPT + 7  # 0 step2_or_instant_after, 1 always_instant
O_TIEBREAK = OPT + 8  # 0 top_card_only, 1 lexicographic_sorted_powers
O_REVEAL = OPT + 9  # 0 compulsory, 1 optional_subset (D#36)

DAT = OPT + N_OPT

# ---------------------------------------------------------------- phases and decisions
PH_SETUP, PH_AUCTION, PH_MGMT, PH_DECREE, PH_OVER = range(5)
DK_NONE, DK_BID, DK_LOSE, DK_WITHDRAW, DK_SIDE, DK_KEEP, DK_OPTION, DK_ORDER = range(8)
DK_SET, DK_IMM, DK_JADE, DK_SEAL, DK_TREASURE, DK_RESUPPLY, DK_DECREE_TILE, DK_DECREE1, DK_SCORE = (
    range(8, 17)
)
DK_REVEAL = 17  # reveal_mode = optional_subset: reveal one more card (A_CARD + c) or stop (A_END)
# G_DC_FLAGS: the parts of the Decree tile under way already done (R-D2; the part a tile
# lacks -- Score + Flip's Tribute, Score + Tribute's flip -- is set when the tile begins)
DC_SCORED, DC_FLIP, DC_VP, DC_TRIBUTE = 1, 2, 4, 8
DC_ALL = 15

# Actions.
A_PASS, A_CONFIRM, A_CUBE, A_END = 0, 1, 2, 3
A_OPT = 4  # 4..7 generic choice 0..3
A_CARD = 8  # + card id (add to bid / card lost)
A_WD = A_CARD + MAXC  # 6 withdrawal tiles
A_SET = A_WD + N_WD  # 5 tile sets
A_IMM = A_SET + MAX_SETS  # 4 immediate tile types
A_TREASURE = A_IMM + N_IMM  # 3 treasures (Jade target)
A_SCORE = A_TREASURE + N_TREASURE  # 7 policy cards
A_FLIP = A_SCORE + N_POLICY  # 7
A_RECRUIT = A_FLIP + N_POLICY  # 6 display slots
A_HIRE = A_RECRUIT + MAX_RECRUIT  # 35: hire k = 1..35
MAX_HIRE = 7 * MAXP
A_RAISE = A_HIRE + MAX_HIRE  # 3: raise 1..3 levels
NUM_ACTIONS = A_RAISE + 3

# Card locations.
LOC_BOX, LOC_DECK, LOC_DISPLAY, LOC_DISCARD = 0, 1, 2, 3
LOC_HAND = 8  # + seat
LOC_BID = 16  # + seat
LOC_PEND = 24  # + seat
N_LOC = LOC_PEND + MAXP  # location codes 0 .. N_LOC - 1 (CARDS_AT)

# Chance event kinds (LOGK).
CH_CARRIAGE, CH_START, CH_BONUS, CH_TILE, CH_CARD, CH_TRIBUTE, CH_SIDES = range(7)
LOG_CAP = 1024
STACK_CAP = 96

# ---------------------------------------------------------------- globals
G = DAT + D_SIZE
(
    G_ROUND,
    G_PHASE,
    G_DECISION,
    G_START,
    G_BARB,
    G_CMAX,
    G_HIGH,
    G_DISCS,
    G_DECREE_UP,
    G_WD_UP,
    G_SUPPLY,
    G_ACTIVE,
    G_FIRST,
    G_LAST,
    G_RECOUNT,
    G_MG_IDX,
    G_MG_STEP,
    G_RS_USED,
    G_DC_STEP,
    G_DC_P,
    G_DC_TILE,
    G_DC_FLAGS,
    G_KEEP0,
    G_KEEP1,
    G_PEND_EFF,
    G_PEND_P,
    G_LOSE_V,
    G_SB_IDX,
    G_STACK_N,
    G_LOG_N,
    G_FORCED_N,
    G_SEAL_MODE,
    G_TR_IDX,
    G_EXHAUST,
    G_OVERFLOWS,
    G_SEAL_USES,
    G_POLICIES_SCORED,
    G_ORDER_CARD1,
    G_ORDER_CARD2,
    G_IN_FINAL,
    G_SETS_TAKEN,
    G_FIRST_START,
    G_REVEAL_ITEM,
) = range(G, G + 43)
G_SIZE = 43  # G_REVEAL_ITEM: card * 2 + side of the scoring a DK_REVEAL decision is for

LOC = G + G_SIZE
KNOWN = LOC + MAXC
RECRUIT = KNOWN + MAXC
BAG = RECRUIT + MAX_RECRUIT
REMOVED = BAG + N_TILE
SETS = REMOVED + N_TILE
POLICY = SETS + MAX_SETS * N_TILE  # 7 x 2: side (0 A / 1 B), disc
UNDER = POLICY + 2 * N_POLICY
TRIB_DECK = UNDER + N_POLICY * N_TRIB
TREASURE = TRIB_DECK + N_TRIB
TR_USED = TREASURE + N_TREASURE
SCORED_BY_SIDE = TR_USED + N_TREASURE  # 14 counters: policy scorings per card side
STACK = SCORED_BY_SIDE + 2 * N_POLICY
LOG = STACK + 3 * STACK_CAP
LOGK = LOG + LOG_CAP
REVEALING = LOGK + LOG_CAP  # MAXC flags: card shown for the scoring under way (optional_subset)
# MAXC flags: card of the bid just confirmed whose bid-time effect has not run yet (D-A4)
BID_FX = REVEALING + MAXC
PL = BID_FX + MAXC

# Player block fields.
F_VP = 0
F_TRUST = 1
F_GOLD = 2
F_CUBES = 3  # cubes in hand (not bid)
F_BID_CUBES = 4
F_PEND_CUBES = 5  # cubes added to the bid being built (still counted in F_CUBES)
F_DECLARED = 6
F_PASSED = 7
F_TILE = 8  # Turn Order tile (0 = none yet)
F_PALACE = 9
F_STEP2 = 10  # 1 once own Management step 2 has run this round
F_TAB = 11  # N_TILE tableau counts (non-immediate types)
F_PENDING = F_TAB + N_TILE  # N_TILE pending immediate tiles
F_TRIB = F_PENDING + N_TILE  # N_TRIB Tribute cards held per value kind
F_LEVEL_FROM = F_TRIB + N_TRIB  # palace level before the current raise
F_TURNS_TILE = F_LEVEL_FROM + 1  # MAX_ROUNDS: Turn Order tile taken in each round
# VP by source (balance ledger)
F_VP_DECREE = F_TURNS_TILE + MAX_ROUNDS
F_VP_POLICY = F_VP_DECREE + 1  # 14: per card side (card * 2 + side), during play and at the end
F_VP_TRUST = F_VP_POLICY + 2 * N_POLICY
F_VP_PALACE = F_VP_TRUST + 1
F_VP_GOLD = F_VP_PALACE + 1
F_VP_CHARS = F_VP_GOLD + 1
F_VP_TREASURE = F_VP_CHARS + 1
F_VP_TRIBUTE = F_VP_TREASURE + 1
F_VP_OTHER = F_VP_TRIBUTE + 1  # palace sides, treasures used, empty-tribute VP
F_VP_LOST = F_VP_OTHER + 1  # VP actually lost (shortfalls, exhaustion)
F_SCORE = F_VP_LOST + 1
F_TB_CARDS = F_SCORE + 1
F_TB_POWER = F_TB_CARDS + 1
F_DECREES = F_TB_POWER + 1
F_WD_TAKEN = F_DECREES + 1  # bitmask of withdrawal tiles ever taken (count per tile below)
F_WD_COUNT = F_WD_TAKEN + 1  # N_WD
F_RECRUITS = F_WD_COUNT + N_WD
F_HIRED = F_RECRUITS + 1
F_LOST_ITEMS = F_HIRED + 1
F_BONUS_TILE = F_LOST_ITEMS + 1  # Starting Bonus tile drawn (1..5, 0 none)
F_START_CAR = F_BONUS_TILE + 1  # S-Carriage type dealt (1..5)
PS = F_START_CAR + 1

SCRATCH = PL + MAXP * PS  # MAXC words of kernel scratch (rules.determinize), zero between calls
CARDS_AT = SCRATCH + MAXC  # N_LOC x 2 words: card set of each location (low, high word)
STATE_SIZE = CARDS_AT + 2 * N_LOC
