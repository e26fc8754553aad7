"""Middle Kingdom's board for the replay viewer: the row, the Dragon, the goal cards with
their holders, and each seat's tableau (type stacks), tokens, bid cards and laid bids.
Goal names and VP come from ``data/components.json``; card types and VP from the state
(which the game loads from the same file)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from sim.board import Canvas, is_hidden, seat_colour
from sim.core import H_CURRENT, H_NPLAYERS
from sim.middle_kingdom import layout as L
from sim.middle_kingdom.rules import pb
from sim.middle_kingdom.view import STACK_LABEL, card_name

DATA = Path(__file__).parent / "data"

TYPE_FILL = (
    "#f3e3a1",
    "#cfe8b8",
    "#b8d8f0",
    "#e4c4ec",
    "#f4b9b0",
)  # Official, Peasant, Merchant, Noble, General


@lru_cache(maxsize=1)
def _goals() -> list[dict]:
    return json.loads((DATA / "components.json").read_text())["goal_cards"]


def provisional(s: np.ndarray) -> list[float]:
    """Each seat's score if the game ended now (the engine's S1-S5 on a copy)."""
    from sim.middle_kingdom.rules import provisional_scores

    out = np.zeros(int(s[H_NPLAYERS]))
    provisional_scores(s, out)
    return out.tolist()


def _fill(s, c: int) -> str:
    if c == L.ROW_DRAGON:
        return "#ffcc66"
    if c == s[L.S_PHIL]:
        return "#dddddd"
    return TYPE_FILL[int(s[L.CARD_TYPE + c])]


def draw(s: np.ndarray, hidden: np.ndarray | None = None) -> str:
    n = int(s[H_NPLAYERS])
    width, height = 640, 190 + n * 96
    c = Canvas(width, height)
    c.text(
        10,
        18,
        f"round {int(s[L.G_ROUND])}   deck {L.N_DYN - int(s[L.G_DECK_PTR])} cards   "
        f"lead seat {int(s[L.G_LEAD])}",
        bold=True,
    )
    c.text(10, 40, "row")
    for i in range(int(s[L.G_K])):
        card = int(s[L.ROW + i])
        x = 50 + i * 64
        if card >= 0:
            c.card(
                x,
                26,
                card_name(s, card).replace("Philosopher", "Philos."),
                w=60,
                h=44,
                fill=_fill(s, card),
                size=10,
                sub=f"slot {i}",
            )
        else:
            c.rect(x, 26, 60, 44, fill="none", stroke="#bbb")
    dragon = ("on display", "held", "in the row", "set aside")[int(s[L.G_DRAGON])]
    c.text(390, 40, f"Dragon: {dragon}")
    c.text(10, 96, "goal cards", bold=False)
    for g, goal in enumerate(_goals()):
        owner = int(s[L.GOAL_OWNER + g])
        x = 80 + g * 92
        c.rect(
            x,
            80,
            88,
            34,
            fill="#fff" if owner < 0 else seat_colour(owner) + "33",
            stroke=seat_colour(owner),
        )
        c.text(
            x + 44, 94, goal["name"].replace("Celestial ", ""), size=10, anchor="middle", bold=True
        )
        c.text(
            x + 44,
            108,
            f"{goal['vp']} VP, " + (f"seat {owner}" if owner >= 0 else "nobody"),
            size=9,
            anchor="middle",
        )
    in_commit = s[L.G_PHASE] == L.PH_COMMIT
    y = 140
    for p in range(n):
        b = pb(p)
        col = seat_colour(p)
        c.rect(6, y - 14, width - 12, 88, fill="#fff", stroke=col, sw=2 if p == s[H_CURRENT] else 1)
        c.text(
            14,
            y + 2,
            f"seat {p}" + ("  (to move)" if p == s[H_CURRENT] else ""),
            fill=col,
            bold=True,
        )
        c.text(14, y + 18, f"tokens {int(s[b + L.F_TOKENS])}", size=10)
        if s[L.G_PHASE] == L.PH_OVER:
            c.text(14, y + 34, f"score {int(s[b + L.F_SCORE])}", size=11, bold=True)
        for t in range(L.N_TYPES):
            x = 110 + t * 76
            eff, dbl = int(s[b + L.F_EFF + t]), int(s[b + L.F_DBL + t])
            c.rect(x, y - 8, 70, 40, fill=TYPE_FILL[t] if eff else "#f6f6f6", stroke="#999")
            c.text(x + 35, y + 6, STACK_LABEL[t], size=9, anchor="middle")
            c.text(
                x + 35,
                y + 24,
                str(eff) + (f" (+{dbl}M)" if dbl else ""),
                size=13,
                anchor="middle",
                bold=True,
            )
        hand = int(s[b + L.F_HAND_START] if in_commit else s[b + L.F_HAND])
        disc = int(s[b + L.F_DISC])
        c.text(110, y + 48, "bid cards", size=9)
        for v in range(L.N_BID):
            x = 160 + v * 22
            if (hand >> v) & 1:
                c.card(x, y + 38, str(v), w=18, h=22, size=10, stroke=col)
            elif (disc >> v) & 1:
                c.card(x, y + 38, str(v), w=18, h=22, size=10, fill="#ddd", stroke="#aaa")
        laid = [j for j in range(2) if s[b + L.F_SLOT_CARD + j] >= 0]
        if laid:
            txt = ", ".join(
                "?"
                if is_hidden(hidden, b + L.F_SLOT_CARD + j)
                else str(int(s[b + L.F_SLOT_CARD + j]))
                for j in laid
            )
            c.text(350, y + 54, f"laid this round: {txt}", size=10)
        carry = [int(s[b + L.F_CARRY + i]) for i in range(2) if s[b + L.F_CARRY + i] >= 0]
        if carry:
            c.text(500, y + 54, f"tie stacks {carry}", size=10)
        y += 96
    return c.svg()
