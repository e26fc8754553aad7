"""Goofspiel for people and replays: action names, a text rendering, chance outcomes.

Chance outcomes are the point cards turned up so far, by value (1..N), in order; they are
recorded only for ``points_order = "random"`` (the fixed orders have no chance).  A state
rebuilt from them puts the unseen point cards after the recorded ones in ascending order;
a replay only ever relies on the cards it recorded.
"""

from __future__ import annotations

import numpy as np

from sim.core import H_CURRENT, H_NPLAYERS, NO_PLAYER
from sim.goofspiel import rules as R


def action_name(state: np.ndarray, action: int) -> str:
    """``"bid 5"`` for card id 4 (the card of value 5)."""
    return f"bid {int(action) + 1}"


def _hand(state: np.ndarray, p: int) -> list[int]:
    hand = int(state[R.HANDS + p])
    return [c + 1 for c in range(int(state[R.NUM_CARDS])) if (hand >> c) & 1]


def render(state: np.ndarray) -> str:
    n = int(state[H_NPLAYERS])
    turn = int(state[R.TURN])
    lines = []
    prize = int(state[R.PRIZE])
    lines.append(
        f"round {min(turn + 1, int(state[R.NUM_CARDS]))}/{int(state[R.NUM_CARDS])}, "
        + (f"point card {prize + 1}" if prize != R.NO_CARD else "game over")
    )
    for p in range(n):
        pending = int(state[R.PENDING + p])
        mark = (
            " (to bid)"
            if int(state[H_CURRENT]) == p
            else (" (has bid)" if pending != R.NO_CARD else "")
        )
        hand = " ".join(map(str, _hand(state, p)))
        lines.append(f"P{p}: {int(state[R.POINTS + p])} points, hand {hand}{mark}")
    for t in range(turn):
        bids = " ".join(str(int(state[R.BIDS + t * R.MAX_PLAYERS + p]) + 1) for p in range(n))
        w = int(state[R.WINNER + t])
        who = f"P{w}" if w != NO_PLAYER else "discarded"
        lines.append(
            f"  round {t + 1}: point card {int(state[R.DECK + t]) + 1}, bids {bids} -> {who}"
        )
    return "\n".join(lines)


def _revealed(state: np.ndarray) -> int:
    nc = int(state[R.NUM_CARDS])
    return nc if int(state[H_CURRENT]) == NO_PLAYER else int(state[R.TURN]) + 1


def chance_outcomes(state: np.ndarray) -> list:
    if int(state[R.ORDER]) != R.ORDER_RANDOM:
        return []
    return [int(state[R.DECK + i]) + 1 for i in range(_revealed(state))]


def state_from_chance(n_players: int, options: np.ndarray, outcomes: list) -> np.ndarray:
    options = np.asarray(options, np.int32)
    state = R.new_state(np.int64(0), np.int64(n_players), options)
    nc = int(options[R.OPT_NUM_CARDS])
    if int(options[R.OPT_POINTS_ORDER]) != R.ORDER_RANDOM:
        if outcomes:
            raise ValueError("goofspiel with a fixed points order has no chance outcomes")
        return state
    values = [int(v) for v in outcomes]
    if len(set(values)) != len(values) or any(not 1 <= v <= nc for v in values) or not values:
        raise ValueError(
            f"goofspiel chance outcomes must be distinct point cards 1..{nc}, got {outcomes!r}"
        )
    seen = [v - 1 for v in values]
    order = seen + [c for c in range(nc) if c not in seen]
    R.set_point_order(state, np.array(order, np.int32))
    return state
