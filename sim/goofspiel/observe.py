"""Goofspiel's observation tensor (contract: sim.observe): one-hot, fixed shape.

Everything a seat knows in Goofspiel is public except its own pending bid of the round:
the point cards turned up, every revealed bid, and so every hand and score.  The tensor
has room for MAX_PLAYERS seats and MAX_CARDS cards (unused entries stay 0); the layout
table is in docs/games/goofspiel.md.
"""

import numba as nb
import numpy as np

from sim.core import H_CURRENT, H_NPLAYERS, NO_PLAYER
from sim.goofspiel import rules as R
from sim.observe import Field, Observation

P, C = R.MAX_PLAYERS, R.MAX_CARDS

_LAYOUT = (
    ("observer", P, "one-hot of the observing seat (all 0: public tensor)"),
    ("seats", P, "1 for each seat in the game"),
    ("to_move", P, "one-hot of the seat to bid (all 0 once the game is over)"),
    ("has_bid", P, "1 for each seat whose bid of this round is pending (hidden)"),
    ("num_cards", C, "one-hot of the option num_cards (N)"),
    ("points_order", 3, "one-hot of the option points_order (random, descending, ascending)"),
    ("returns_type", 3, "one-hot of the option returns_type"),
    ("prize", C, "one-hot of the point card up for bidding (card c = value c + 1)"),
    ("own_bid", C, "one-hot of the observer's own pending bid (0 for the public tensor)"),
    ("points", P, "points won so far, per seat"),
    ("hands", P * C, "seat x card: 1 if the seat still holds the bid card"),
    ("prizes_won", P * C, "seat x card: 1 if the seat took that point card"),
    ("history_prize", C * C, "round x card: one-hot of each resolved round's point card"),
    ("history_bids", C * P * C, "round x seat x card: one-hot of each revealed bid"),
    (
        "history_winner",
        C * (P + 1),
        "round x (seat, discarded): who took each resolved round's card",
    ),
)
FIELDS = []
_off = 0
for _name, _len, _doc in _LAYOUT:
    FIELDS.append(Field(_name, _off, _len, _doc))
    _off += _len
FIELDS = tuple(FIELDS)
SIZE = _off
_O = {f.name: f.offset for f in FIELDS}
O_OBSERVER, O_SEATS, O_TO_MOVE, O_HAS_BID = (
    _O["observer"],
    _O["seats"],
    _O["to_move"],
    _O["has_bid"],
)
O_NUM_CARDS, O_ORDER, O_RETURNS = _O["num_cards"], _O["points_order"], _O["returns_type"]
O_PRIZE, O_OWN_BID, O_POINTS, O_HANDS = _O["prize"], _O["own_bid"], _O["points"], _O["hands"]
O_WON, O_H_PRIZE, O_H_BIDS, O_H_WINNER = (
    _O["prizes_won"],
    _O["history_prize"],
    _O["history_bids"],
    _O["history_winner"],
)


@nb.njit(cache=True)
def observe(s, player, out):
    """The information-state tensor of ``player`` (the public tensor for NO_PLAYER)."""
    out[:] = 0.0
    n = s[H_NPLAYERS]
    cur = s[H_CURRENT]
    if player >= 0:
        out[O_OBSERVER + player] = 1.0
    for p in range(n):
        out[O_SEATS + p] = 1.0
        out[O_POINTS + p] = s[R.POINTS + p]
        if cur != NO_PLAYER and s[R.PENDING + p] != R.NO_CARD:
            out[O_HAS_BID + p] = 1.0
        hand = s[R.HANDS + p]
        for c in range(s[R.NUM_CARDS]):
            if (hand >> c) & 1:
                out[O_HANDS + p * C + c] = 1.0
    if cur != NO_PLAYER:
        out[O_TO_MOVE + cur] = 1.0
        if player >= 0 and s[R.PENDING + player] != R.NO_CARD:
            out[O_OWN_BID + s[R.PENDING + player]] = 1.0
    out[O_NUM_CARDS + s[R.NUM_CARDS] - 1] = 1.0
    out[O_ORDER + s[R.ORDER]] = 1.0
    out[O_RETURNS + s[R.RETURNS]] = 1.0
    if s[R.PRIZE] != R.NO_CARD:
        out[O_PRIZE + s[R.PRIZE]] = 1.0
    for t in range(s[R.TURN]):
        card = s[R.DECK + t]
        out[O_H_PRIZE + t * C + card] = 1.0
        w = s[R.WINNER + t]
        if w == NO_PLAYER:
            out[O_H_WINNER + t * (P + 1) + P] = 1.0
        else:
            out[O_H_WINNER + t * (P + 1) + w] = 1.0
            out[O_WON + w * C + card] = 1.0
        for p in range(n):
            out[O_H_BIDS + (t * P + p) * C + s[R.BIDS + t * P + p]] = 1.0


def text(state: np.ndarray, player: int) -> str:
    """A readable information state: options, history, hands, and the observer's own bid."""
    n = int(state[H_NPLAYERS])
    cur = int(state[H_CURRENT])
    lines = [
        f"observer {f'P{player}' if player >= 0 else 'public'}; {n} seats, "
        f"N={int(state[R.NUM_CARDS])}, order {int(state[R.ORDER])}, "
        f"returns {int(state[R.RETURNS])}"
    ]
    for t in range(int(state[R.TURN])):
        bids = " ".join(str(int(state[R.BIDS + t * P + p]) + 1) for p in range(n))
        w = int(state[R.WINNER + t])
        lines.append(
            f"round {t + 1}: point card {int(state[R.DECK + t]) + 1}, bids {bids} -> "
            + (f"P{w}" if w != NO_PLAYER else "discarded")
        )
    prize = int(state[R.PRIZE])
    lines.append("game over" if cur == NO_PLAYER else f"point card {prize + 1}; P{cur} to bid")
    for p in range(n):
        hand = int(state[R.HANDS + p])
        cards = " ".join(str(c + 1) for c in range(int(state[R.NUM_CARDS])) if (hand >> c) & 1)
        pend = int(state[R.PENDING + p])
        mark = ""
        if cur != NO_PLAYER and pend != R.NO_CARD:
            mark = f" (bid {pend + 1})" if p == player else " (has bid)"
        lines.append(f"P{p}: {int(state[R.POINTS + p])} points, hand {cards}{mark}")
    return "\n".join(lines)


OBSERVATION = Observation(size=SIZE, observe=observe, fields=FIELDS, text=text)
