"""Emperor's Choice's board for the replay viewer: the Policy cards (side, disc, Tributes
under them), the tile display sets, the recruitment display, the Barbarian track, and
each seat's palace (its level on the 12-level track), resources, hand and tableau.
Card, policy and treasure names come from ``data/components.json`` (through view.py)."""

from __future__ import annotations

import numpy as np

from sim.board import Canvas, is_hidden, seat_colour
from sim.core import H_CURRENT, H_NPLAYERS
from sim.emperors_choice import layout as L
from sim.emperors_choice.rules import pb
from sim.emperors_choice.view import CARD_NAMES, TREASURE_NAMES, policy_name

TILE_FILL = {
    "castle": "#c9b18f",
    "canal": "#9cc9f0",
    "wall": "#bbbbbb",
    "tower": "#d9a0a0",
    "confucianist": "#f5e08a",
    "legalist": "#b0d9a0",
    "book": "#e0c0f0",
}
PHASES = ("setup", "auction", "management", "decree", "over")


def provisional(s: np.ndarray) -> list[float]:
    """Each seat's score if final scoring happened now (the engine's provisional_scores)."""
    from sim.emperors_choice.rules import provisional_scores

    out = np.zeros(int(s[H_NPLAYERS]))
    provisional_scores(s, out)
    return out.tolist()


def _tile_label(t: int) -> str:
    name = L.TILE_NAMES[t]
    return (
        name.replace("carriage_", "car")
        .replace("precious_", "")
        .replace("imperial_", "")
        .replace("royal_", "")
        .replace("gold_nugget", "nugget")
        .replace("barbarian_", "barb")
        .replace("confucianist", "conf.")
        .replace("legalist", "legal.")
    )


def _holder(seat: int) -> str:
    return f"seat {seat}" if seat >= 0 else "open"


def draw(s: np.ndarray, hidden: np.ndarray | None = None) -> str:
    n = int(s[H_NPLAYERS])
    width, height = 700, 250 + n * 104
    c = Canvas(width, height)
    c.text(
        10,
        18,
        f"round {int(s[L.G_ROUND])}, {PHASES[int(s[L.G_PHASE])]}   "
        f"start seat {int(s[L.G_START])}   "
        f"cube supply {int(s[L.G_SUPPLY])}   highest bid {int(s[L.G_HIGH])}",
        bold=True,
    )
    # Barbarian track
    barb = int(s[L.G_BARB])
    c.text(10, 38, "Barbarians", size=10)
    for i in range(L.BARB_MAX + 1):
        c.rect(
            80 + i * 18, 28, 16, 14, fill="#d62728" if i == barb else "#fff", stroke="#aaa", rx=1
        )
        if i % 4 == 0:
            c.text(
                88 + i * 18,
                39,
                str(i),
                size=8,
                anchor="middle",
                fill="#fff" if i == barb else "#555",
            )
    # Policy cards
    c.text(10, 62, "Policy cards", size=10, bold=True)
    for k in range(L.N_POLICY):
        x = 10 + k * 97
        flipped = bool(s[L.POLICY + 2 * k])
        disc = int(s[L.POLICY + 2 * k + 1])
        under = sum(int(s[L.UNDER + k * L.N_TRIB + t]) for t in range(L.N_TRIB))
        c.rect(x, 68, 93, 50, fill="#f7efe0" if not flipped else "#e6eef7", stroke="#8a6d3b")
        c.text(
            x + 46, 84, f"{k + 1} ({'B' if flipped else 'A'})", size=9, anchor="middle", fill="#555"
        )
        c.text(x + 46, 98, policy_name(s, k), size=9, anchor="middle", bold=True)
        c.text(
            x + 46,
            112,
            (f"disc {disc}" if disc else "") + (f"  {under} tribute" if under else ""),
            size=8,
            anchor="middle",
        )
    # Tile display sets
    c.text(10, 140, "tile display sets", size=10, bold=True)
    x = 110
    for i in range(L.MAX_SETS):
        tiles = [
            (t, int(s[L.SETS + i * L.N_TILE + t]))
            for t in range(L.N_TILE)
            if s[L.SETS + i * L.N_TILE + t]
        ]
        if not tiles:
            continue
        w = 14 + 50 * len(tiles)
        c.rect(x, 128, w, 30, fill="#fff", stroke="#999")
        c.text(x + 3, 125, f"set {i + 1}", size=8, fill="#555")
        for j, (t, k) in enumerate(tiles):
            name = L.TILE_NAMES[t]
            c.rect(
                x + 6 + 50 * j, 132, 46, 22, fill=TILE_FILL.get(name, "#eee"), stroke="#777", rx=2
            )
            c.text(
                x + 29 + 50 * j,
                147,
                f"{_tile_label(t)}" + (f" x{k}" if k > 1 else ""),
                size=8,
                anchor="middle",
            )
        x += w + 8
    recruit = [CARD_NAMES[int(v)] for v in s[L.RECRUIT : L.RECRUIT + L.MAX_RECRUIT] if v >= 0]
    c.text(10, 180, "recruitment: " + (", ".join(recruit) or "-"), size=10)
    c.text(
        10,
        198,
        "treasures: "
        + ", ".join(
            f"{TREASURE_NAMES[i]} ({_holder(int(s[L.TREASURE + i]))})" for i in range(L.N_TREASURE)
        ),
        size=10,
    )
    y = 224
    for p in range(n):
        b = pb(p)
        col = seat_colour(p)
        c.rect(6, y - 14, width - 12, 96, fill="#fff", stroke=col, sw=2 if p == s[H_CURRENT] else 1)
        c.text(
            14,
            y + 2,
            f"seat {p}" + ("  (to move)" if p == s[H_CURRENT] else ""),
            fill=col,
            bold=True,
        )
        c.text(
            110,
            y + 2,
            f"VP {int(s[b + L.F_VP])}   Trust {int(s[b + L.F_TRUST])}   "
            f"Gold {int(s[b + L.F_GOLD])}   cubes {int(s[b + L.F_CUBES])} "
            f"(+{int(s[b + L.F_BID_CUBES])} bid)   turn tile {int(s[b + L.F_TILE])}",
            size=10,
        )
        lv = int(s[b + L.F_PALACE])
        c.text(14, y + 22, "palace", size=9)
        for i in range(L.N_LEVELS + 1):
            c.rect(
                54 + i * 14, y + 12, 12, 12, fill=col if i <= lv else "#f4f4f4", stroke="#aaa", rx=1
            )
        c.text(54 + (L.N_LEVELS + 1) * 14 + 4, y + 22, f"level {lv}", size=9)
        hand, secret = [], 0
        for card in range(len(CARD_NAMES)):
            if s[L.LOC + card] != L.LOC_HAND + p:
                continue
            if is_hidden(hidden, L.LOC + card):
                secret += 1
            else:
                hand.append(CARD_NAMES[card])
        shown = [
            CARD_NAMES[card] for card in range(len(CARD_NAMES)) if s[L.LOC + card] == L.LOC_BID + p
        ]
        c.text(
            14,
            y + 42,
            "hand: "
            + (", ".join(hand) if hand else ("" if secret else "-"))
            + (f"{', ' if hand else ''}{secret} hidden card(s) ?" if secret else ""),
            size=10,
        )
        if shown:
            c.text(14, y + 56, "bid: " + ", ".join(shown), size=10)
        tab = [(t, int(s[b + L.F_TAB + t])) for t in range(L.N_TILE) if s[b + L.F_TAB + t]]
        for j, (t, k) in enumerate(tab):
            name = L.TILE_NAMES[t]
            c.rect(
                330 + 52 * (j % 7),
                y + 12 + 18 * (j // 7),
                48,
                16,
                fill=TILE_FILL.get(name, "#eee"),
                stroke="#777",
                rx=2,
            )
            c.text(
                354 + 52 * (j % 7),
                y + 24 + 18 * (j // 7),
                f"{_tile_label(t)} x{k}",
                size=8,
                anchor="middle",
            )
        trib = sum(int(s[b + L.F_TRIB + t]) for t in range(L.N_TRIB))
        tribs = (
            f"{trib} (values ?)"
            if is_hidden(hidden, *(b + L.F_TRIB + t for t in range(L.N_TRIB)))
            else str(trib)
        )
        c.text(14, y + 74, f"tributes {tribs}   score {int(s[b + L.F_SCORE])}", size=10)
        y += 104
    return c.svg()
