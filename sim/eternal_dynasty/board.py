"""Eternal Dynasty's map for the replay viewer: the 18 provinces of ``data/components.json``
joined by the adjacency the game loaded (the Qing variant's when in force), each with
every colour's Military/Political tokens, Generals and Magistrates, Fortress and Palace,
marks and quarantine; and each seat's Ruler, cards, votes, score and Coins.  The province
positions are a schematic placement (roughly geographic), not the printed map."""

from __future__ import annotations

import numpy as np

from sim.board import Canvas, hidden_in, is_hidden, seat_colour
from sim.core import H_CURRENT, H_NPLAYERS
from sim.eternal_dynasty import layout as L
from sim.eternal_dynasty import rules as R
from sim.eternal_dynasty.view import CARD, PROVINCE, RULER

# schematic centres by province id - 1 (x east, y south)
POS = (
    (70, 400),
    (130, 230),
    (90, 95),
    (205, 140),
    (300, 90),
    (420, 60),
    (500, 135),
    (570, 215),
    (575, 305),
    (535, 385),
    (390, 425),
    (245, 425),
    (170, 340),
    (310, 335),
    (305, 245),
    (365, 170),
    (455, 225),
    (445, 315),
)
EE_COLOUR = "#444"


def provisional(s: np.ndarray) -> list[float]:
    """Points so far, Coins at their mean value and the board scored now (the engine's estimate)."""
    out = np.zeros(L.MAXP + 1)
    R.provisional(s, out)
    return out[: int(s[H_NPLAYERS])].tolist()


def _colour(s, p: int) -> str:
    return EE_COLOUR if int(s[H_NPLAYERS]) == 2 and p == L.EE else seat_colour(p)


def draw(s: np.ndarray, hidden: np.ndarray | None = None) -> str:
    n = int(s[H_NPLAYERS])
    cols = n + 1 if n == 2 else n
    width, height = 660, 480 + n * 22 + (22 if n == 2 else 0)
    c = Canvas(width, height)
    c.text(
        10,
        18,
        f"Generation {int(s[L.G_GEN])}/{int(s[L.G_NGEN])}, "
        f"round {int(s[L.G_ROUND])}/{int(s[L.G_NROUNDS])}, "
        f"first player {int(s[L.G_FIRST])}",
        bold=True,
    )
    for q in range(L.N_PROV):
        for r in range(q + 1, L.N_PROV):
            if s[L.ADJ + q * L.N_PROV + r]:
                (x1, y1), (x2, y2) = POS[q], POS[r]
                c.line(x1, y1, x2, y2, stroke="#ccc", sw=2)
    for q in range(L.N_PROV):
        x, y = POS[q]
        quarantined = bool(s[L.QUAR + q])
        c.circle(x, y, 38, fill="#eee" if quarantined else "#fffdf5", stroke="#8a6d3b", sw=1.5)
        c.text(x, y - 24, f"{q + 1} {PROVINCE[q]}", size=9, anchor="middle", bold=True)
        if quarantined:
            c.text(x, y + 4, "quarantined", size=9, anchor="middle", fill="#777")
            continue
        row = 0
        for p in range(cols):
            m, pp = int(s[R.ti(p, q, 0)]), int(s[R.ti(p, q, 1)])
            lead = ("G" if s[R.li(p, q, 0)] else "") + ("Mg" if s[R.li(p, q, 1)] else "")
            if m or pp or lead:
                c.text(
                    x,
                    y - 10 + 11 * row,
                    f"M{m} P{pp}" + (f" {lead}" if lead else ""),
                    size=9,
                    anchor="middle",
                    fill=_colour(s, p),
                    bold=True,
                )
                row += 1
        extra = []
        if s[L.STRUCT + q * 2]:
            extra.append("Fort")
        if s[L.STRUCT + q * 2 + 1]:
            extra.append("Palace")
        mk = int(s[L.MARK + q])
        extra += [name for bit, name in ((1, "Sacred"), (2, "Omen"), (4, "Plague")) if mk & bit]
        if extra:
            c.text(x, y + 30, " ".join(extra), size=8, anchor="middle", fill="#8a3b3b")
    y = 490
    for p in range(n):
        b = R.pb(p)
        r = int(s[b + L.F_RULER])
        nd = int(s[b + L.F_NDYN])
        if hidden_in(hidden, b + L.F_HAND, b + L.F_HAND + L.HAND_MAX) or any(
            is_hidden(hidden, L.DYN_TYPE + int(s[b + L.F_HAND + i])) for i in range(nd)
        ):
            hand = f"{nd} cards ?"
        else:
            hand = (
                ", ".join(CARD[int(s[L.DYN_TYPE + int(s[b + L.F_HAND + i])])] for i in range(nd))
                or "-"
            )
        coins = "?" if is_hidden(hidden, b + L.F_COIN_VALUE) else str(int(s[b + L.F_COINS]))
        mark = " (to move)" if p == s[H_CURRENT] else ""
        c.text(
            10,
            y,
            f"seat {p}{mark}: ruler {RULER[r] if r >= 0 else '-'}, "
            f"score {int(s[b + L.F_SCORE])}, coins {coins}, "
            f"{int(s[b + L.F_NVOTE])} votes, hand [{hand}]"[:150],
            size=10,
            fill=seat_colour(p),
            bold=p == s[H_CURRENT],
        )
        y += 22
    if n == 2:
        b = R.pb(L.EE)
        c.text(
            10,
            y,
            f"Eternal Emperor: tokens {int(R.tokens_total(s, L.EE))}, "
            f"score {int(s[b + L.F_SCORE])}, "
            f"coins {int(s[b + L.F_COINS])}",
            size=10,
            fill=EE_COLOUR,
        )
    return c.svg()
