"""Ming Dynasty's board for the replay viewer: the six provinces with their districts
(open members, monastery, city, princes), the borders of ``data/board.csv`` coloured by
symbol, the provinces' placement spaces, the card display and each seat's hand, supply
and tiles.  The province boxes are a schematic placement, not the printed map."""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

import numpy as np

from sim.board import Canvas, hidden_in, seat_colour
from sim.core import H_CURRENT, H_NPLAYERS
from sim.ming_dynasty import layout as L
from sim.ming_dynasty.rules import pb
from sim.ming_dynasty.view import ENTITY, SYM_NAME

DATA = Path(__file__).parent / "data"

SYM_COLOUR = {"HORSE": "#a0522d", "BOAT": "#1f77b4", "PALANQUIN": "#8e44ad"}
PROV_FILL = ("#fde2e2", "#e2f0fd", "#e5fde2", "#fdf6e2", "#efe2fd", "#e2fdf8")
NEUTRAL_COLOUR = "#555"


@lru_cache(maxsize=1)
def _borders() -> list[tuple[int, int, str]]:
    rows = (DATA / "board.csv").read_text().splitlines()
    body = [r for r in rows if r and not r.startswith("#")]
    return [(int(r["district_a"]), int(r["district_b"]), r["symbol"]) for r in csv.DictReader(body)]


def provisional(s: np.ndarray) -> list[float]:
    """Score now plus tiles and expected monk points (the engine's provisional_scores)."""
    from sim.ming_dynasty.rules import provisional_scores

    out = np.zeros(int(s[H_NPLAYERS]))
    provisional_scores(s, out)
    return out.tolist()


def _ent_colour(e: int) -> str:
    return NEUTRAL_COLOUR if e == L.NEUTRAL else seat_colour(e)


def _district_xy(d: int) -> tuple[float, float]:
    prov, j = divmod(d, L.DPP)
    px, py = 20 + (prov % 3) * 210, 40 + (prov // 3) * 200
    return px + (40, 150, 95)[j], py + (60, 60, 140)[j]


def draw(s: np.ndarray, hidden: np.ndarray | None = None) -> str:
    n = int(s[H_NPLAYERS])
    ents = list(range(n)) + ([L.NEUTRAL] if n == 2 else [])
    width, height = 660, 470 + n * 40
    c = Canvas(width, height)
    c.text(
        10,
        18,
        f"round {int(s[L.G_ROUND])}   start player {ENTITY[int(s[L.G_START])]}   "
        f"supply {int(s[L.G_DECK_N] - s[L.G_DECK_PTR])} cards   "
        f"dragons {int(s[L.G_DRAGON_SUPPLY])}",
        bold=True,
    )
    for prov in range(L.N_PROV):
        px, py = 20 + (prov % 3) * 210, 40 + (prov // 3) * 200
        c.rect(px, py, 200, 190, fill=PROV_FILL[prov], stroke="#999")
        c.text(px + 6, py + 14, f"province {prov}", size=10, bold=True)
        space = [
            (e, int(s[L.SPACE + prov * L.MAXP + e]))
            for e in ents
            if s[L.SPACE + prov * L.MAXP + e] > 0
        ]
        c.text(
            px + 6,
            py + 186,
            "space: " + (" ".join(f"{ENTITY[e]}{k}" for e, k in space) or "-"),
            size=9,
        )
    for a, b, sym in _borders():
        (x1, y1), (x2, y2) = _district_xy(a), _district_xy(b)
        c.line(
            x1,
            y1,
            x2,
            y2,
            stroke=SYM_COLOUR.get(sym, "#999"),
            sw=2,
            dash=None if a // 3 == b // 3 else "5,3",
        )
    for d in range(L.N_DIST):
        x, y = _district_xy(d)
        c.circle(x, y, 30, fill="#fff", stroke="#666")
        c.text(x, y - 18, f"d{d}", size=9, anchor="middle", bold=True)
        members = [
            (e, int(s[L.OPEN + d * L.N_ENT + e])) for e in ents if s[L.OPEN + d * L.N_ENT + e] > 0
        ]
        for i, (e, k) in enumerate(members):
            c.text(
                x - 22 + 15 * i, y - 3, f"{ENTITY[e]}{k}", size=10, fill=_ent_colour(e), bold=True
            )
        city = [
            (e, int(s[L.CITY + d * L.N_ENT + e])) for e in ents if s[L.CITY + d * L.N_ENT + e] > 0
        ]
        if city:
            c.text(
                x,
                y + 10,
                "city " + " ".join(f"{ENTITY[e]}{k}" for e, k in city),
                size=8,
                anchor="middle",
            )
        monk = int(s[L.MONK + d])
        if monk >= 0:
            c.rect(
                x - 8,
                y + 14,
                16,
                10,
                fill=_ent_colour(monk),
                stroke="#333",
                rx=1,
                title="monastery",
            )
        princes = [p for p in range(n) if s[L.PRINCE + p] == d]
        for i, p in enumerate(princes):
            c.circle(x + 22 - 8 * i, y - 20, 6, fill=seat_colour(p), stroke="#000")
    y = 460
    c.text(
        10,
        y - 24,
        "display: "
        + ", ".join(
            f"{i}:{SYM_NAME[int(s[L.DISPLAY + i])] if s[L.DISPLAY + i] >= 0 else '-'}"
            for i in range(L.N_PROV)
        ),
        size=10,
    )
    c.text(330, 32, "borders (dashed: between provinces):", size=9)
    for i, (k, col) in enumerate(SYM_COLOUR.items()):
        c.text(500 + 52 * i, 32, k.title(), size=9, fill=col, bold=True)
    for p in range(n):
        b = pb(p)
        col = seat_colour(p)
        if hidden_in(hidden, b + L.F_HAND, b + L.F_HAND + L.N_CARD_KINDS):
            hand = f"{int(sum(int(s[b + L.F_HAND + k]) for k in range(4)))} cards ?"
        else:
            hand = (
                " ".join(
                    f"{SYM_NAME[k]} {int(s[b + L.F_HAND + k])}"
                    for k in range(4)
                    if s[b + L.F_HAND + k]
                )
                or "-"
            )
        tiles = [int(x) for x in s[b + L.F_TILES : b + L.F_TILES + 6]]
        mark = "  (to move)" if p == s[H_CURRENT] else ""
        c.text(
            10,
            y,
            f"{ENTITY[p]} = seat {p}{mark}: score {int(s[b + L.F_SCORE])}, "
            f"supply {int(s[b + L.F_SUPPLY])}, "
            f"hand [{hand}], tiles by province {tiles}",
            fill=col,
            size=11,
            bold=p == s[H_CURRENT],
        )
        y += 20
    return c.svg()
