"""Eternal Dynasty: constants and the layout of the flat state array.

Every name here is a plain module-level int, so numba folds it into the kernels.

State layout (int32; fixed offsets, room for NCOL = 6 colours: MAXP = 5 seats, and in
the 2-player game the Eternal Emperor as colour EE = 2, right after the two seats, so
every loop over the colours in play is ``range(n_colours)`` and the EE comes after both
players in every clockwise order, spec 8)::

    [0, 8)      core header (sim.core)
    OPT         option codes (N_OPT), then the packed component data (DATA_SIZE, see D_*)
    G_*         game-level scalars: phase, Generation, round, first player, bans, deck
                pointers, coin bag, vote in progress, counters for the features
    TOK         tokens  [colour][province][type]           (M = 0, P = 1)
    LEAD        leaders [colour][province][kind]            (GENERAL = 0, MAGISTRATE = 1)
    STRUCT      structures [province][kind]                 (FORTRESS = 0, PALACE = 1)
    MARK        event marks per province (bit set of SACRED, OMEN, PLAGUE)
    QUAR        1 for a quarantined province
    ADJ         the adjacency matrix in play (option and quarantine applied)
    DYN_TYPE / DYN_LOC / DYN_DECK   89 Dynasty card instances: type, location, deck order
    RUL_LOC / RUL_DECK              36 Rulers
    VOTE_TYPE / VOTE_LOC / VOTE_DECK  30 Vote cards
    EVT_LOC / EVT_DECK              20 Event cards
    DYN_KNOW / RUL_KNOW / VOTE_KNOW  per card, the bit set of seats that know where it lies
                (a face-down discard: its discarder; a played or called card: everyone; a
                Ruler: every seat that held it; 0 once it is shuffled back into its deck)
    STACK       the task stack (STACK_MAX tasks of TASK_SIZE ints, see rules/tasks.py)
    PL          player blocks of PS ints, fields F_*
    LOG         every chance outcome in order (replays from chance outcomes alone)
    SCR         work space of the rules' kernels (not part of the game)
    ADJB        ADJ as one bit set per province (derived, not part of the game)
    HC          the heuristic's board table of the board it last scored (not part of the game)
"""

N_PROV = 18
M, P = 0, 1
MAXP = 5
EE = 2  # colour of the Eternal Emperor in the 2-player game (colour index n_players)
NCOL = 6
N_RULERS = 36
N_DYN = 89
N_DYN_TYPES = 16
N_VOTES = 30
N_VOTE_TYPES = 14
N_EVENTS = 20
HAND_MAX = 16
VHAND_MAX = 8
MAX_GENS = 5

# --- codes used in the packed data -------------------------------------------------
# types of a gain or removal
T_M, T_P, T_ANY, T_CHOICE = 0, 1, 2, 3
# target words (spec 3.1)
TG_LEGAL, TG_HAS_OWN_TYPE, TG_SELF_REP, TG_REP, TG_REP_BORDER, TG_REP_COASTAL, TG_HOME, TG_ANY = (
    range(8)
)
# Dynasty card types
CT_LEADER, CT_STRUCTURE, CT_EXPANSION, CT_DIPLOMACY, CT_INTRIGUE = range(5)
# Dynasty effect kinds
(
    DK_LEADER,
    DK_STRUCTURE,
    DK_GAIN_SPLIT,
    DK_GAIN,
    DK_MOVE,
    DK_ALLIANCE,
    DK_CONVERT,
    DK_REMOVE_OTHER,
    DK_REMOVE_LEADER,
    DK_EACH_OTHER_REMOVES,
) = range(10)
# Vote effect kinds
(
    VK_BAN,
    VK_EACH_GAIN,
    VK_EACH_REMOVE_OWN,
    VK_REMOVE_ALL_LEADERS,
    VK_EACH_DRAW,
    VK_EACH_MOVE,
    VK_TOP_TAX,
) = range(7)
# Event effect kinds
(
    EK_ROLL_EACH_REMOVE,
    EK_COIN_MAJORITY,
    EK_MARK,
    EK_ROLL_HALVE,
    EK_ROLL_EACH_GAIN,
    EK_TOP_TAX,
    EK_SET_HALVE,
    EK_SET_REMOVE,
    EK_ROLL_WIPE,
    EK_REMOVE_ALL_STRUCTURES,
    EK_COIN_CONTROL,
    EK_FAMINE,
) = range(12)
MINOR, MAJOR = 0, 1
SET_ALL, SET_BORDER, SET_COASTAL = 0, 1, 2
MK_SACRED, MK_OMEN, MK_PLAGUE = 1, 2, 4
# Ruler ability kinds
(
    AB_ARC_TAKE_SETASIDE,
    AB_FREE_PLAY,
    AB_EXTRA_IN_PROVINCE,
    AB_REACH_SET,
    AB_EXTRA_CATCHUP,
    AB_HOME_TAX,
    AB_ARC_ROLL_GAIN,
    AB_PROTECT,
    AB_EXTRA_NEW_PROVINCE,
    AB_EXTRA_IN_SET,
    AB_START_MOVE,
    AB_START_CONVERT,
    AB_VOTE_WEIGHT,
    AB_ARC_DRAW_DYNASTY,
    AB_ARC_REMOVE_OTHERS,
    AB_ARC_GAIN_SPLIT,
    AB_LEADER_STRENGTH,
    AB_WIN_TIES,
    AB_SCORE_PER_REP,
    AB_ARC_DRAW_VOTE,
    AB_START_CATCHUP_GAIN,
    AB_PLACE_RANGE,
) = range(22)
# PROTECT bits
PR_M, PR_P, PR_LEADERS, PR_INTRIGUE_ONLY, PR_HOME_ONLY = 1, 2, 4, 8, 16
GENERAL, MAGISTRATE = 0, 1
FORTRESS, PALACE = 0, 1

# --- packed data (appended to the option codes) -------------------------------------
RF = 10  # ruler fields: home, bonus M, bonus P, keep, ability kind, a0..a4
R_HOME, R_BM, R_BP, R_KEEP, R_AB, R_A0 = 0, 1, 2, 3, 4, 5
DF = 10  # dynasty type fields: count, set aside, card type, effect kind, a0..a5
C_COUNT, C_SETASIDE, C_CTYPE, C_KIND, C_A0 = 0, 1, 2, 3, 4
VF = 8  # vote type fields: count, kind, a0..a5
V_COUNT, V_KIND, V_A0 = 0, 1, 2
EF = 8  # event fields: class, kind, a0..a4, province bit set
E_CLASS, E_KIND, E_A0, E_SET = 0, 1, 2, 7
NCONST = 32
(
    K_DEALT_RULERS,
    K_DEALT_DYN,
    K_INIT_M,
    K_INIT_P,
    K_FIRST,
    K_SECOND,
    K_TIE2,
    K_FORTRESS,
    K_PALACE,
    K_COIN,
    K_BAG0,
    K_BAG1,
    K_BAG2,
    K_SUP_MAG,
    K_SUP_GEN,
    K_SUP_PAL,
    K_SUP_FORT,
    K_CAP,
    K_LEADER_STR,
    K_DIE_SIDES,
) = range(20)
# 2 players (the data file's ``two_player``): starting Dynasty Influence, the Alliance cost of
# naming the EE, DI per unplayed card and per unspent bonus, the EE's vote weight, then the
# EE setup tiers as (provinces, Influence each) pairs, N_EE_TIERS of them
K_DI_START, K_ALLY_COST, K_DI_CARD, K_DI_BONUS, K_EE_VOTE, K_EE_TIERS = range(20, 26)
N_EE_TIERS = 3
NCONFIG = 6
CF = 6  # config fields: players, length code, generations, rounds, vote cards, quarantined
D_ADJ = 0
D_ADJQ = D_ADJ + N_PROV * N_PROV
D_BORDER = D_ADJQ + N_PROV * N_PROV
D_COASTAL = D_BORDER + N_PROV
D_RULER = D_COASTAL + N_PROV
D_DYN = D_RULER + N_RULERS * RF
D_VOTE = D_DYN + N_DYN_TYPES * DF
D_EVENT = D_VOTE + N_VOTE_TYPES * VF
D_CONST = D_EVENT + N_EVENTS * EF
D_CONFIG = D_CONST + NCONST
DATA_SIZE = D_CONFIG + NCONFIG * CF

# --- options -------------------------------------------------------------------------
N_OPT = 7
OPT = 8
O_EVENTS, O_COINS, O_DRAFT, O_LENGTH, O_ADJACENCY, O_LIMITS, O_COIN_DRAW = range(OPT, OPT + N_OPT)
EV_FULL, EV_MINOR, EV_NONE = 0, 1, 2
# O_COIN_DRAW: a Coin's value is drawn when it is awarded (D47) / at the reveal
CD_AWARD, CD_REVEAL = 0, 1
DATA = OPT + N_OPT

# --- game scalars --------------------------------------------------------------------
_g = DATA + DATA_SIZE
(
    G_PHASE,
    G_GEN,
    G_ROUND,
    G_TURN_IDX,
    G_FIRST,
    G_NGEN,
    G_NROUNDS,
    G_NVOTES,
    G_SP,
    G_DYN_PTR,
    G_DYN_END,
    G_RUL_PTR,
    G_RUL_END,
    G_VOTE_PTR,
    G_VOTE_END,
    G_EVT_PTR,
    G_EVT_END,
    G_BAG0,
    G_BAG1,
    G_BAG2,
    G_VOTE_CARD,
    G_VOTE_CALLER,
    G_VOTE_STAGE,
    G_AYES,
    G_NAYS,
    G_LOG_LEN,
    G_LOG_PTR,
    G_LOG_OVERFLOW,
    G_FINAL_FIRST,
    G_EVENTS_DRAWN,
    G_VOTES_CALLED,
    G_VOTES_PASSED,
    G_OVER,
    G_PASSES,
    G_EVT_LAST0,
    G_EVT_LAST1,
    G_TURNS,
    G_BID_WINNER,
    G_EE_DEC,
    G_EE_START,
    G_BIDS,
) = range(_g, _g + 41)
# 2 players: G_BID_WINNER the winner of the current Vote's bid (-1 before the bid reveal);
# G_EE_DEC the seat that makes the Eternal Emperor's choices in the effect being resolved
# (the card player, the bid winner, or the first player on events); G_EE_START the EE's
# Starting Province; G_BIDS the number of bids held
G_BAN = _g + 41  # N_VOTE_TYPES flags: a passed BAN vote of that type is in force
TOK = G_BAN + N_VOTE_TYPES
LEAD = TOK + NCOL * N_PROV * 2
STRUCT = LEAD + NCOL * N_PROV * 2
MARK = STRUCT + N_PROV * 2
QUAR = MARK + N_PROV
ADJ = QUAR + N_PROV
DYN_TYPE = ADJ + N_PROV * N_PROV
DYN_LOC = DYN_TYPE + N_DYN
DYN_DECK = DYN_LOC + N_DYN
RUL_LOC = DYN_DECK + N_DYN
RUL_DECK = RUL_LOC + N_RULERS
VOTE_TYPE = RUL_DECK + N_RULERS
VOTE_LOC = VOTE_TYPE + N_VOTES
VOTE_DECK = VOTE_LOC + N_VOTES
EVT_LOC = VOTE_DECK + N_VOTES
EVT_DECK = EVT_LOC + N_EVENTS
DYN_KNOW = EVT_DECK + N_EVENTS
RUL_KNOW = DYN_KNOW + N_DYN
VOTE_KNOW = RUL_KNOW + N_RULERS
KNOW_ALL = (1 << MAXP) - 1  # a public card: every seat knows it
TASK_SIZE = 8
STACK_MAX = 64
STACK = VOTE_KNOW + N_VOTES
PL = STACK + STACK_MAX * TASK_SIZE

# player block fields
(
    F_RULER,
    F_HOME,
    F_BM,
    F_BP,
    F_KEEP,
    F_SCORE,
    F_COINS,
    F_COIN_VALUE,
    F_CALLED,
    F_PICK,
    F_NDYN,
    F_NVOTE,
    F_CHOICE,
    F_PTS_MAJORITY,
    F_PTS_STRUCT,
    F_PTS_COINCONV,
    F_PTS_RULER,
    F_VOTES_CALLED,
    F_VOTES_PASSED,
    F_CARDS_PLAYED,
    F_PLACED,
    F_TOKENS_LOST,
    F_DI,
    F_BID,
    F_DI_SPENT,
    F_BIDS_WON,
) = range(26)
# 2 players: F_DI Dynasty Influence (public), F_BID this Vote's bid (-1 none; secret until
# the bid reveal), F_DI_SPENT and F_BIDS_WON counters for the features
F_DEALT = 26  # 3 dealt Rulers (ids, -1 empty)
F_HAND = F_DEALT + 3  # HAND_MAX Dynasty card instances
F_VHAND = F_HAND + HAND_MAX  # VHAND_MAX Vote card instances
F_RULER_HIST = F_VHAND + VHAND_MAX  # Ruler chosen in each Generation (-1 none)
F_PTS_PROV = F_RULER_HIST + MAX_GENS  # points per province
F_GEN_PTS = F_PTS_PROV + N_PROV  # points scored at each Generation's scoring (Coins apart)
# Coin awards at each Generation's scoring (converted ones included)
F_GEN_COINS = F_GEN_PTS + MAX_GENS
F_KEPT = F_GEN_COINS + MAX_GENS  # Ruler Draft: the Rulers kept at the first and second pick
F_DPICK = F_KEPT + 2  # Ruler Draft: the slot picked in the current draft step (secret), -1 none
PS = F_DPICK + 1
# SNAP: the board as it stood at the last scoring (TOK..ADJ) and each colour's Ruler, for
# independent recounts of the scoring (tests) without replaying the Generation.
SNAP_BOARD = PL + NCOL * PS
SNAP_RULERS = SNAP_BOARD + (NCOL * N_PROV * 2 * 2 + N_PROV * 2 + N_PROV * 2)
LOG = SNAP_RULERS + NCOL
LOG_MAX = 2048
# SCR: work space of the rules' kernels, so that a decision's kernels create no arrays (and
# run without reference counting, sim.core.kernel).  Each kernel has its own words and writes
# them before reading them; they are not part of the game (info_key hashes the state up to
# LOG, replays and the view ignore them).
SCR = LOG + LOG_MAX
SC_ORDER = SCR  # seat orders (MAXP + 1 words each), one per kernel: OR_*
OR_NEXT, OR_DEAL, OR_DRAFT, OR_VOTE, OR_EVENT, OR_CALL, OR_APPLY = range(7)
SC_PASSED = SC_ORDER + 7 * (MAXP + 1)  # draft_pass: the Rulers passed to each seat (MAXP x 3)
# score_generation: 5 rows of MAXP + 1 (before, coins before, pts, spts, coin)
SC_SCORE = SC_PASSED + MAXP * 3
SC_STRENGTH = SC_SCORE + 5 * (MAXP + 1)  # score_generation: rank_type's strengths
SC_TOPS = SC_STRENGTH + MAXP + 1  # resolve_vote / resolve_event: the players with the most tokens
SC_ROLLED = SC_TOPS + MAXP + 1  # resolve_event: distinct provinces rolled (4)
SC_COUNTS = SC_ROLLED + 4  # resolve_event: per-colour counts
SC_CARD = SC_COUNTS + MAXP + 1  # play_card: the card's effect arguments (6)
SC_POOL = SC_CARD + 6  # determinize: card pool and its knowledge (N_DYN each)
# SC_DIRTY: bit q set by every kernel that changes province q's tokens, Leaders, Structures
# or marks (rules.tasks.touch; all bits: many provinces).  Only ever set: a reader clears it first
# (the heuristic in its work copy before a try, for the provinces the try may have changed).
SC_DIRTY = SC_POOL + 2 * N_DYN
SCR_SIZE = SC_DIRTY + 1 - SCR
# ADJB: the adjacency in play as one bit set per province (bit r of ADJB + q: ADJ[q][r] is 1),
# written by rules.set_adjacency_bits whenever ADJ is; derived data for the rules' kernels,
# not part of the game (after LOG, like SCR).
ADJB = SCR + SCR_SIZE
# HC: the heuristic's board table (heuristic.cached_board_table) for the board it last
# scored, kept with that board and its Rulers, so that a decision re-scores only the
# provinces changed since; not part of the game (after ADJB: no kernel of the rules reads
# it, info_key, the observations, replays and the view ignore it; a new state has none).
HC = ADJB + N_PROV
HC_VALID = HC  # 1: the rows below are those of the board at HC_BOARD and the Rulers at HC_RULERS
HC_RULERS = HC + 1  # F_RULER and F_HOME of each colour (2 x NCOL)
BOARD_WORDS = QUAR + N_PROV - TOK  # tokens, Leaders, Structures, marks, quarantine
HC_BOARD = HC_RULERS + 2 * NCOL  # s[TOK:TOK + BOARD_WORDS] as last scored
HC_TABLE = HC_BOARD + BOARD_WORDS  # the board table's rows (N_PROV x (MAXP + 1))
HC_ROWS = 5  # heuristic.RK_ROWS
HC_RANKS = HC_TABLE + N_PROV * (MAXP + 1)  # its rankings (N_PROV x HC_ROWS x (MAXP + 1))
STATE_SIZE = HC_RANKS + N_PROV * HC_ROWS * (MAXP + 1)

# Card locations
LOC_DECK, LOC_DISCARD, LOC_HAND, LOC_SETASIDE, LOC_OUT, LOC_DEALT, LOC_CHOSEN = range(7)

# Phases between tasks (rules.phases.next_phase)
PH_GEN_START, PH_AFTER_CHOICE, PH_AFTER_KEEP, PH_TURNS, PH_OVER = range(5)

# --- actions -------------------------------------------------------------------------
A_PQ = 0  # (province q, type t): q * 2 + t   (placement, own-token picks, Leader picks)
A_PROV = A_PQ + N_PROV * 2  # province q
A_TYPE = A_PROV + N_PROV  # type M / P
A_CARD = A_TYPE + 2  # Dynasty hand slot
A_PLAYER = A_CARD + HAND_MAX  # a colour (seat, or EE)
A_NUM = A_PLAYER + NCOL  # a number 0..15 (Ruler slot, bonus amount, Vote hand slot, move amount)
N_NUM = 16
A_AYE = A_NUM + N_NUM
A_NAY = A_AYE + 1
A_SKIP = A_NAY + 1  # no Vote call / pass / stop spending / skip an optional step
NUM_ACTIONS = A_SKIP + 1
