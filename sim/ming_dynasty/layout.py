"""Ming Dynasty: constants and the layout of the flat state array.

Everything here is a plain module-level int, so numba folds it into the kernels.
Rule values that come from the components (border graph, card mix, set and member
points ...) are NOT here: they are loaded from ``data/`` and copied into the state
(``S_*`` slots), so a replaced data file needs no recompile.

State layout (int32; fixed offsets, room for MAXP = 4 seats and the neutral entity)::

    [0, 8)      core header (sim.core): RNG, n_players, current seat, ply, seed
    OPT         option codes, in the order of ``options.OPTIONS`` (N_OPT slots)
    ADJ         18 x 18 border symbols (SYM_*; -1 = not adjacent), from data/board.csv
    S_*         component values from data/components.json
    G_*         round-level scalars (round, start player, phase, cursors, deck pointers ...)
    OPEN        18 districts x 5 entities: members in each district's open area
    MONK        18: seat owning the monastery (-1 empty)
    CITY        18 sections x 5 entities: members in each district's city section
    SPACE       6 province spaces x 4 seats
    DISPLAY     6 display slots: symbol (-1 empty)
    DECK        DECK_ROOM supply slots: card kinds (movement symbols, and dragons under
                ``stay_dragon = discard_pile``); the supply is DECK[G_DECK_PTR : G_DECK_N]
    TILE_SUPPLY 6 tiles left per colour
    PRINCE      4 districts (-1 = not placed)
    BOXED       5 members removed from the game per entity (index 4 = neutral)
    LOG         MAX_DRAWS symbols drawn in order (public); replays from chance outcomes
                script the first G_SCRIPT_N of them
    PL          MAXP player blocks of PS ints each, fields F_*
"""

MAXP = 4
NEUTRAL = 4
N_ENT = 5
N_PROV = 6
DPP = 3  # districts per province
N_DIST = 18
N_SYM = 3  # movement symbols
SYM_H, SYM_B, SYM_P = 0, 1, 2
CARD_D = 3  # dragon slot in a hand (hand = counts of H, B, P, D)
N_CARD_KINDS = 4
MAX_DECK = 54  # room for the movement deck (the data file may hold fewer cards)
MAX_DRAGONS = 30  # most dragon cards the data file may give
DECK_ROOM = MAX_DECK + MAX_DRAGONS  # under stay_dragon = discard_pile dragons join the deck (D15)
MAX_DRAWS = 256
SECTION_CAP = 3
HAND_LIMIT = 5
ROUNDS = 6
MAX_RETURN = 6  # most members one player can have in one city (2 per section x 3)

# Phases (the decision kind of the seat to move follows from the phase).
(
    PH_PRINCE,
    PH_NEUTRAL,
    PH_PLACE,
    PH_CARDS,
    PH_TURN,
    PH_WALK,
    PH_DEPLOY,
    PH_COMMIT,
    PH_RETURN,
    PH_NRETURN,
    PH_CHOOSE,
    PH_OVER,
) = range(12)

# Action space.
A_DIST = 0  # 0..17: PRINCE_PLACE(d), NEUTRAL_PLACE(d), RETURN_FROM(d)
A_SPACE = 18  # 18..23: PLACE(s) in phase 1, TAKE_DISPLAY(s) in phase 2
A_DRAGON = 24  # 24..29: TAKE_DRAGON(s)
A_STEP = 30  # 30..47: one MOVE step to district d paying the border's symbol
A_STEPD = 48  # 48..65: one MOVE step to district d paying a dragon
A_STAY = 66  # 66..69: STAY discarding H, B, P or D
A_PASS = 70
A_DEPLOY = 71  # 71..77: DEPLOY(n_open, m) in the order of DEPLOY_OPEN / DEPLOY_MONK
A_COMMIT = 78  # 78..84: COMMIT(k), k = 0..6
A_START = 85  # 85..88: CHOOSE_START(seat)
# 89..112: TAKE_DRAGON paying seat q's member from space s: A_DRAGON_OF + s * MAXP + q
A_DRAGON_OF = 89
#                   (option dragon_payment = any_member, D33; the taker's own member stays A_DRAGON)
A_COMMIT_SEC = 113  # 113..139: COMMIT of r_j members from each section j (option return_choice =
#                   in_commitment, D3): A_COMMIT_SEC + r_0 + 3 r_1 + 9 r_2, r_j = 0..2
COMMIT_SEC_BASE = 3  # a player has at most 2 members in one section (4.1 moves at most 2)
N_COMMIT_SEC = 27
NUM_ACTIONS = 140
N_DEPLOY = 7
# DEPLOY(i): open members DEPLOY_OPEN[i], monastery DEPLOY_MONK[i]
# i:        0  1  2  3  4  5  6
# open:     0  1  2  3  0  1  2
# monk:     0  0  0  0  1  1  1

# ---------------------------------------------------------------- option slots
# The options array given to new_state holds N_OPTION_CODES option codes (options.OPTIONS,
# which checks its length against it), then the component data.  The state keeps them in
# N_OPT slots, one more than the codes: the last slot is spare (always 0), so that one more
# option would not move the offsets after it.  Changing either count changes the state
# layout.
N_OPTION_CODES = 7
N_OPT = 8
assert N_OPTION_CODES <= N_OPT
OPT = 8
O_START = OPT + 0  # 0 random, 1 seat0 (D32)
O_BONUS_TIE = OPT + 1  # 0 own_best_section, 1 fullest_section (D19)
O_NEUTRAL_POOL = OPT + 2  # 0 rules_total (36), 1 strict_31 (D26)
O_NEUTRAL_KEEP = OPT + 3  # 0 after_returns, 1 before_returns, 2 tie_on_tiebreak (D23)
O_RETURN_CHOICE = OPT + 4  # 0 after_reveal, 1 in_commitment (D3)
O_STAY_DRAGON = OPT + 5  # 0 dragon_supply, 1 discard_pile (D15)
O_DRAGON_PAY = OPT + 6  # 0 own_member, 1 any_member (D33)

# ---------------------------------------------------------------- data layout (after option codes)
D_ADJ = 0  # 18 x 18 border symbols
D_CARDS = D_ADJ + N_DIST * N_DIST  # 3 card counts per symbol
D_DRAGONS = D_CARDS + N_SYM
D_SET6 = D_DRAGONS + 1  # 3 values: after rounds 2, 4, 6
D_MEMBER = D_SET6 + 3  # 3 values: after rounds 2, 4, 6
D_BONUS = D_MEMBER + 3
D_MONK = D_BONUS + 1
D_SET5 = D_MONK + 1
D_TILE_PT = D_SET5 + 1
D_TILES = D_TILE_PT + 1  # tiles per colour
D_MEMBERS = D_TILES + 1  # playable members per colour (30)
D_PLACE = D_MEMBERS + 1  # members placed per round (5)
D_DEPLOY_MAX = D_PLACE + 1  # members per deployment (3)
D_NEUTRAL_POOL = D_DEPLOY_MAX + 1  # neutral pool under the rules' total (36)
D_NEUTRAL_STRICT = D_NEUTRAL_POOL + 1  # neutral pool with the real pieces (31)
D_NEUTRAL_MAX = D_NEUTRAL_STRICT + 1  # neutral members per district cap (3)
D_NEUTRAL_EACH = D_NEUTRAL_MAX + 1  # neutral members each player places per placement round (3)
D_SIZE = D_NEUTRAL_EACH + 1

# ---------------------------------------------------------------- state offsets
ADJ = OPT + N_OPT
S_CARDS = ADJ + N_DIST * N_DIST
S_DRAGONS = S_CARDS + N_SYM
S_SET6 = S_DRAGONS + 1
S_MEMBER = S_SET6 + 3
S_BONUS = S_MEMBER + 3
S_MONK = S_BONUS + 1
S_SET5 = S_MONK + 1
S_TILE_PT = S_SET5 + 1
S_TILES = S_TILE_PT + 1
S_MEMBERS = S_TILES + 1
S_PLACE = S_MEMBERS + 1
S_DEPLOY_MAX = S_PLACE + 1
S_NEUTRAL_POOL = S_DEPLOY_MAX + 1
S_NEUTRAL_STRICT = S_NEUTRAL_POOL + 1
S_NEUTRAL_MAX = S_NEUTRAL_STRICT + 1
S_NEUTRAL_EACH = S_NEUTRAL_MAX + 1

G = S_NEUTRAL_EACH + 1
G_ROUND = G + 0  # 1..6
G_START = G + 1  # start player of the round
G_FIRST_START = G + 2  # start player of round 1 (balance feature, replays)
G_PHASE = G + 3
G_SUB = G + 4  # cursor inside the phase (placements made, seat offset ...)
G_PROV = G + 5  # phase 4: province being scored
G_NSOLE = G + 6  # phase 4, 2p: the neutral holds the sole city majority (D23)
G_NPRE = G + 7  # phase 4, 2p: largest player city count before the returns
G_DECK_PTR = G + 8
G_DECK_N = G + 9
G_DISCARD = G + 10  # 3 counts per symbol
G_DRAGON_SUPPLY = G + 13
G_NEUTRAL_POOL = G + 14
G_LOG_N = G + 15
G_SCRIPT_N = G + 16
G_CHOOSER = G + 17  # 4p: seat choosing the next start player
G_NLEFT = G + 18  # phase 4, 2p: neutral members still to return (start player chooses)
G_WALK_STEPS = G + 19
G_RESHUFFLES = G + 20
G_NEUTRAL_SKIPPED = G + 21  # strict pool: neutral placements skipped
G_NEUTRAL_PLACED = G + 22  # neutral placements made this placement round
G_DISCARD_D = G + 23  # dragons on the discard pile (only under stay_dragon = discard_pile, D15)
G_SIZE = 24

OPEN = G + G_SIZE
MONK = OPEN + N_DIST * N_ENT
CITY = MONK + N_DIST
SPACE = CITY + N_DIST * N_ENT
DISPLAY = SPACE + N_PROV * MAXP
DECK = DISPLAY + N_PROV
TILE_SUPPLY = DECK + DECK_ROOM
PRINCE = TILE_SUPPLY + N_PROV
BOXED = PRINCE + MAXP
LOG = BOXED + N_ENT

# Player block fields.
F_SUPPLY = 0  # personal supply (30 at the start; the score marker is not in it)
F_HAND = 1  # 4 counts: H, B, P, D
F_TILES = 5  # 6 tile counts per colour
F_SCORE = 11
F_PASSED = 12  # phase 3
F_COMMIT = 13  # phase 4: k (hidden until all committed)
F_COMMITTED = 14
F_RET_LEFT = 15  # phase 4: members still to send back (RETURN_FROM decisions)
F_VP_SET6 = 16
F_VP_CITY = 17
F_VP_BONUS = 18
F_VP_MONK = 19
F_VP_SET5 = 20
F_VP_TILES = 21
F_DRAGONS_BOUGHT = 22
F_RETURNED = 23  # members sent back from cities over the game
F_KEPT = 24  # members kept (boxed) in cities over the game
F_BONUS_TIE_WON = 25  # city bonuses won on the section tie-break or split
F_OUSTS = 26  # other seats' monks ousted
F_DEPLOYED = 27
F_PRINCE_START = 28  # district of the prince placed at setup
# phase 4 under return_choice = in_commitment: r_0 + 3 r_1 + 9 r_2 (hidden like F_COMMIT)
F_COMMIT_SEC = 29
PS = 30

PL = LOG + MAX_DRAWS
STATE_SIZE = PL + MAXP * PS
