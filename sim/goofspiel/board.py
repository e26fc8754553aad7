"""Goofspiel's board for the replay viewer: the point card, each seat's hand and points,
and every round's bids (plain cards with their values)."""

from __future__ import annotations

import numpy as np

from sim.board import Canvas, is_hidden, seat_colour
from sim.core import H_CURRENT, H_NPLAYERS, NO_PLAYER
from sim.goofspiel import rules as R


def provisional(s: np.ndarray) -> list[float]:
    """Points won so far per seat."""
    return [float(s[R.POINTS + p]) for p in range(int(s[H_NPLAYERS]))]


def draw(s: np.ndarray, hidden: np.ndarray | None = None) -> str:
    n, nc = int(s[H_NPLAYERS]), int(s[R.NUM_CARDS])
    turn = int(s[R.TURN])
    cw, ch, gap = 26, 36, 3
    width = max(140 + nc * (cw + gap), 420)
    height = 90 + n * 52 + 20 + min(turn, nc) * 16 + 20
    c = Canvas(width, height)
    prize = int(s[R.PRIZE])
    c.text(10, 20, "point card", bold=True)
    if prize != R.NO_CARD:
        c.card(10, 28, str(prize + 1), w=40, h=54, fill="#e8f0ff", size=16)
    else:
        c.text(10, 50, "game over")
    c.text(70, 44, f"round {min(turn + 1, nc)} of {nc}")
    y = 100
    for p in range(n):
        col = seat_colour(p)
        mark = " (to bid)" if int(s[H_CURRENT]) == p else ""
        c.text(10, y, f"seat {p}: {int(s[R.POINTS + p])} points{mark}", fill=col, bold=True)
        hand = int(s[R.HANDS + p])
        pending = int(s[R.PENDING + p])
        x = 130
        hid = is_hidden(hidden, R.PENDING + p)
        for v in range(nc):
            if (hand >> v) & 1:  # a pending bid stays in the hand until the reveal
                laid = v == pending and not hid
                c.card(
                    x,
                    y - 24,
                    str(v + 1),
                    w=cw,
                    h=ch,
                    fill="#ffd6d6" if laid else "#fffbe6",
                    stroke=col,
                    size=10,
                )
            x += cw + gap
        if pending != R.NO_CARD:
            c.text(
                width - 10,
                y - 28,
                "bid laid" + (" (hidden)" if hid else f": {pending + 1}"),
                anchor="end",
                size=10,
                fill=col,
            )
        y += 52
    c.text(10, y, "rounds played (point card: bids by seat -> winner)", bold=True)
    y += 16
    for t in range(min(turn, nc)):
        bids = ", ".join(str(int(s[R.BIDS + t * R.MAX_PLAYERS + p]) + 1) for p in range(n))
        w = int(s[R.WINNER + t])
        c.text(
            10,
            y,
            f"{t + 1}. card {int(s[R.DECK + t]) + 1}: bids {bids} -> "
            + (f"seat {w}" if w != NO_PLAYER else "discarded (tie)"),
            size=10,
            fill=seat_colour(w) if w != NO_PLAYER else "#555",
        )
        y += 16
    return c.svg()
