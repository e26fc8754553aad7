"""Goofspiel with OpenSpiel's rules: the numba kernels of the engine contract.

The rules (``open_spiel/games/goofspiel/goofspiel.cc``, default ``imp_info=false``):

- Each seat holds the bid cards 1..N (``num_cards``); the point cards 1..N form the prize
  deck.  Each round one point card is turned up (``points_order``: uniformly at random
  from those left, or descending N..1, or ascending 1..N).
- Every seat bids one card from hand, simultaneously.  The unique highest bid takes the
  point card (its value in points); if several seats tie for the highest bid the point
  card is discarded, whatever the lower bids.  Bid cards are spent.
- The last round has no choice (one card each) and is played automatically, as in
  OpenSpiel, so a game has ``(N - 1) * players`` decisions (one per seat when N = 1).
- Returns (``returns_type``): ``win_loss`` gives 1/k to each of the k top scorers and
  -1/(n-k) to the others, all 0 if every seat ties; ``point_difference`` gives points minus
  the mean; ``total_points`` gives points.  The ``returns`` kernel writes these as scores;
  the win shares (``wins``) are 1/k for the k top scorers whatever the returns type.

Simultaneous bids are taken one seat at a time in seat order; a bid stays hidden (pending)
until the last seat of the round has bid, then all bids are revealed at once.  Revealed
bids and point cards are public, so the only hidden information is the pending bids of
the round and the order of the point cards not yet turned up.

Card ``c`` (an action id, a bit position, a deck entry) means the card of value ``c + 1``.

State layout (int32, fixed offsets; room for MAX_PLAYERS seats and MAX_CARDS cards)::

    [0, 8)       core header (sim.core): RNG, n_players, seat to move, ply, seed
    NUM_CARDS    option num_cards (N)
    ORDER        option points_order (ORDER_RANDOM / ORDER_DESCENDING / ORDER_ASCENDING)
    RETURNS      option returns_type (RET_WIN_LOSS / RET_POINT_DIFFERENCE / RET_TOTAL_POINTS)
    TURN         rounds resolved so far (N once the game is over)
    PRIZE        the point card up for bidding (= DECK[TURN]), NO_CARD once over
    PUBLIC_HASH  2 words: running 64-bit hash of the public history (prizes turned up,
                 revealed bids); the information keys are built from it
    HANDS        MAX_PLAYERS bit masks: bit c set = card c still held (a pending bid
                 stays in the hand until the reveal)
    PENDING      MAX_PLAYERS pending bids of this round (NO_CARD = not bid yet)
    POINTS       MAX_PLAYERS points won so far
    DECK         MAX_CARDS point cards in the order they are (or will be) turned up;
                 entries after TURN are not yet seen by anyone
    BIDS         MAX_CARDS x MAX_PLAYERS revealed bids, row = round
    WINNER       MAX_CARDS: seat that took each round's point card, NO_PLAYER = discarded
"""

import numba as nb
import numpy as np

from sim.core import (
    H_CURRENT,
    H_NPLAYERS,
    H_PLY,
    H_RNG_LO,
    HEADER_SIZE,
    NO_PLAYER,
    _load,
    _store,
    bit_count,
    hash64,
    init_header,
    kernel,
    lowest_bit,
    rng_below,
    shuffle_range,
)

MAX_PLAYERS = 4
MAX_CARDS = 20
NO_CARD = -1

# Option slots (the order of goofspiel.OPTIONS) and their codes (the order of the choices).
OPT_NUM_CARDS = 0
OPT_POINTS_ORDER = 1
OPT_RETURNS_TYPE = 2
ORDER_RANDOM = 0
ORDER_DESCENDING = 1
ORDER_ASCENDING = 2
RET_WIN_LOSS = 0
RET_POINT_DIFFERENCE = 1
RET_TOTAL_POINTS = 2

NUM_CARDS = HEADER_SIZE
ORDER = NUM_CARDS + 1
RETURNS = ORDER + 1
TURN = RETURNS + 1
PRIZE = TURN + 1
PUBLIC_HASH = PRIZE + 1
HANDS = PUBLIC_HASH + 2
PENDING = HANDS + MAX_PLAYERS
POINTS = PENDING + MAX_PLAYERS
DECK = POINTS + MAX_PLAYERS
BIDS = DECK + MAX_CARDS
WINNER = BIDS + MAX_CARDS * MAX_PLAYERS
STATE_SIZE = WINNER + MAX_CARDS

NUM_ACTIONS = MAX_CARDS
# Per-seat summary features (the ``features`` kernel), in column order, and the column of each.
FEATURE_NAMES = ("points", "rounds_won", "bids_spent_on_wins")
F_POINTS = FEATURE_NAMES.index("points")
F_ROUNDS_WON = FEATURE_NAMES.index("rounds_won")
F_BIDS_ON_WINS = FEATURE_NAMES.index("bids_spent_on_wins")

# Salts that keep the parts of the public-history hash apart.
SALT_PRIZE = 1
SALT_BID = 2
SALT_OWN_PENDING = 3


# --------------------------------------------------------------------------- helpers


@kernel
def _fold(state, value):
    """Fold ``value`` into the public-history hash."""
    _store(state, PUBLIC_HASH, np.uint64(hash64(np.int64(_load(state, PUBLIC_HASH)), value)))


@kernel
def _turn_up(state):
    """Show the point card of round TURN (or none once the game is over)."""
    t = state[TURN]
    if t < state[NUM_CARDS]:
        state[PRIZE] = state[DECK + t]
        _fold(state, SALT_PRIZE * MAX_CARDS + state[PRIZE])
    else:
        state[PRIZE] = NO_CARD


@kernel
def _resolve_round(state):
    """Reveal the pending bids, award (or discard) the point card, spend the bids."""
    n = state[H_NPLAYERS]
    t = state[TURN]
    best = NO_CARD
    count = 0
    winner = NO_PLAYER
    for p in range(n):
        b = state[PENDING + p]
        if b > best:
            best = b
            count = 1
            winner = p
        elif b == best:
            count += 1
    if count == 1:
        state[POINTS + winner] += state[PRIZE] + 1
    else:
        winner = NO_PLAYER
    state[WINNER + t] = winner
    for p in range(n):
        b = state[PENDING + p]
        state[BIDS + t * MAX_PLAYERS + p] = b
        state[HANDS + p] &= ~(1 << b)
        state[PENDING + p] = NO_CARD
        _fold(state, (SALT_BID * MAX_PLAYERS + p) * MAX_CARDS + b)
    state[TURN] = t + 1
    _turn_up(state)


# --------------------------------------------------------------------------- contract


@nb.njit(cache=True)
def new_state(seed, n_players, options):
    """A new game: full hands, the point deck ordered by ``points_order``, seat 0 to bid."""
    state = np.zeros(STATE_SIZE, np.int32)
    init_header(state, seed, n_players)
    nc = options[OPT_NUM_CARDS]
    state[NUM_CARDS] = nc
    state[ORDER] = options[OPT_POINTS_ORDER]
    state[RETURNS] = options[OPT_RETURNS_TYPE]
    for p in range(MAX_PLAYERS):
        state[HANDS + p] = (1 << nc) - 1 if p < n_players else 0
        state[PENDING + p] = NO_CARD
    for i in range(MAX_CARDS):
        state[DECK + i] = NO_CARD
        state[WINNER + i] = NO_PLAYER
    for i in range(MAX_CARDS * MAX_PLAYERS):
        state[BIDS + i] = NO_CARD
    for i in range(nc):
        state[DECK + i] = nc - 1 - i if state[ORDER] == ORDER_DESCENDING else i
    if state[ORDER] == ORDER_RANDOM:
        shuffle_range(state, DECK, DECK + nc, state, H_RNG_LO)
    _turn_up(state)
    state[H_CURRENT] = 0
    return state


@kernel
def set_point_order(state, order):
    """Replace the point deck of a fresh state by ``order`` (card ids; for replays)."""
    for i in range(order.shape[0]):
        state[DECK + i] = order[i]
    _store(state, PUBLIC_HASH, np.uint64(0))
    _turn_up(state)


@kernel
def current_player(state):
    return np.int64(state[H_CURRENT])


@kernel
def is_terminal(state):
    return state[H_CURRENT] == NO_PLAYER


@kernel
def legal_mask(state, out):
    """The cards in the hand of the seat to move (none once the game is over)."""
    out[:] = False
    p = state[H_CURRENT]
    if p == NO_PLAYER:
        return 0
    hand = state[HANDS + p]
    count = 0
    for c in range(state[NUM_CARDS]):
        if (hand >> c) & 1:
            out[c] = True
            count += 1
    return count


@kernel
def apply(state, action):
    """The seat to move bids card ``action``; the last bid of a round reveals them all."""
    p = state[H_CURRENT]
    n = state[H_NPLAYERS]
    state[PENDING + p] = action
    state[H_PLY] += 1
    if p + 1 < n:
        state[H_CURRENT] = p + 1
        return
    _resolve_round(state)
    nc = state[NUM_CARDS]
    if state[TURN] == nc - 1:
        # The last round has no choice: everyone plays their last card (as OpenSpiel does).
        for q in range(n):
            state[PENDING + q] = lowest_bit(state[HANDS + q])
        _resolve_round(state)
    state[H_CURRENT] = NO_PLAYER if state[TURN] >= nc else 0


@kernel
def returns(state, scores, wins):
    """OpenSpiel's returns for ``returns_type`` in ``scores``; win shares in ``wins``."""
    n = state[H_NPLAYERS]
    best = -1
    total = 0
    for p in range(n):
        best = max(best, state[POINTS + p])
        total += state[POINTS + p]
    k = 0
    for p in range(n):
        if state[POINTS + p] == best:
            k += 1
    for p in range(n):
        top = state[POINTS + p] == best
        wins[p] = 1.0 / k if top else 0.0
        kind = state[RETURNS]
        if kind == RET_WIN_LOSS:
            if k == n:
                scores[p] = 0.0
            else:
                scores[p] = 1.0 / k if top else -1.0 / (n - k)
        elif kind == RET_POINT_DIFFERENCE:
            scores[p] = state[POINTS + p] - total / n
        else:
            scores[p] = state[POINTS + p]


@kernel
def determinize(state, observer, rng):
    """Resample what ``observer`` cannot see: other seats' pending bids (uniformly from
    their hands) and, with random points order, the order of the point cards not yet up."""
    n = state[H_NPLAYERS]
    for p in range(n):
        if p == observer or state[PENDING + p] == NO_CARD:
            continue
        hand = state[HANDS + p]
        k = rng_below(rng, 0, bit_count(hand))
        c = 0
        while True:
            if (hand >> c) & 1:
                if k == 0:
                    break
                k -= 1
            c += 1
        state[PENDING + p] = c
    t = state[TURN]
    nc = state[NUM_CARDS]
    if state[ORDER] == ORDER_RANDOM and t + 1 < nc:
        shuffle_range(state, DECK + t + 1, DECK + nc, rng, 0)


@kernel
def rewind_secrets(state, observer):
    """Take back the pending bids of seats other than ``observer`` (they bid before it in
    this round, unseen); the first seat without a bid is to move again."""
    if state[H_CURRENT] == NO_PLAYER:
        return
    n = state[H_NPLAYERS]
    first = n
    for p in range(n):
        if p != observer and state[PENDING + p] != NO_CARD:
            state[PENDING + p] = NO_CARD
            state[H_PLY] -= 1
        if state[PENDING + p] == NO_CARD and first == n:
            first = p
    state[H_CURRENT] = first


@kernel
def info_key(state, player):
    """What ``player`` knows: the public history, whose turn it is and ``player``'s own
    pending bid.  Other seats' pending bids are left out (only that they have bid, which
    the seat to move implies)."""
    own = state[PENDING + player] if state[H_CURRENT] != NO_PLAYER else NO_CARD
    k = hash64(np.int64(_load(state, PUBLIC_HASH)), state[H_CURRENT] * MAX_PLAYERS + player)
    return hash64(k, SALT_OWN_PENDING * MAX_CARDS + own)


@kernel
def heuristic(state, rng):
    """Bid the card equal to the point card if held; otherwise the lowest held card above
    it; otherwise the lowest held card.  Uses only the bidder's own hand and the prize."""
    hand = state[HANDS + state[H_CURRENT]]
    prize = state[PRIZE]
    if (hand >> prize) & 1:
        return np.int64(prize)
    for c in range(prize + 1, state[NUM_CARDS]):
        if (hand >> c) & 1:
            return np.int64(c)
    return np.int64(lowest_bit(hand))


@kernel
def evaluate(state, out):
    """Leaf estimate per seat in [0, 1]: win shares once over; otherwise
    0.5 + 0.5 * (lead over the best other seat) / (points still to win + 1), clipped."""
    n = state[H_NPLAYERS]
    if state[H_CURRENT] == NO_PLAYER:
        best = -1
        for p in range(n):
            best = max(best, state[POINTS + p])
        k = 0
        for p in range(n):
            if state[POINTS + p] == best:
                k += 1
        for p in range(n):
            out[p] = 1.0 / k if state[POINTS + p] == best else 0.0
        return
    remaining = 0
    for i in range(state[TURN], state[NUM_CARDS]):
        remaining += state[DECK + i] + 1
    for p in range(n):
        other = -1
        for q in range(n):
            if q != p:
                other = max(other, state[POINTS + q])
        v = 0.5 + 0.5 * (state[POINTS + p] - other) / (remaining + 1.0)
        out[p] = min(1.0, max(0.0, v))


@kernel
def features(state, out):
    """Per seat: points, rounds won, and the total value of the bids that won them."""
    n = state[H_NPLAYERS]
    for p in range(n):
        out[p, F_POINTS] = state[POINTS + p]
        out[p, F_ROUNDS_WON] = 0.0
        out[p, F_BIDS_ON_WINS] = 0.0
    for t in range(state[TURN]):
        w = state[WINNER + t]
        if w != NO_PLAYER:
            out[w, F_ROUNDS_WON] += 1.0
            out[w, F_BIDS_ON_WINS] += state[BIDS + t * MAX_PLAYERS + w] + 1
