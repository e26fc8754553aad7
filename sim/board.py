"""Board drawings of the replay viewer: the SVG canvas every game's drawing uses, and the
:class:`Board` a game declares on its spec (``GameSpec.board``).

A game's ``sim/<game>/board.py`` reads its state (through its layout and view modules) and
its data files, and provides ``draw(state, hidden) -> svg`` and ``provisional(state) ->
scores``.  ``draw`` builds its board with a :class:`Canvas`; ``hidden`` is None (the full
state) or a bool mask of the state words the viewing seat cannot see (see
experiments/view/viewer.py), which the drawing shows as ``?``.  No kernel may import a
``board.py``: the compile cache leaves those files out of the sources it hashes
(sim/compile_cache.py), so a drawing change does not recompile the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import NamedTuple

import numpy as np


class Board(NamedTuple):
    """A game's board drawing, as the viewer calls it."""

    draw: Callable[[np.ndarray, np.ndarray | None], str]  # (state, hidden words or None) -> SVG
    provisional: Callable[[np.ndarray], list[float]]  # state -> each seat's score so far


SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")


def seat_colour(p: int) -> str:
    return SEAT_COLOURS[p % len(SEAT_COLOURS)] if p >= 0 else "#888"


def is_hidden(hidden: np.ndarray | None, *words: int) -> bool:
    """True if any of the state ``words`` is hidden from the viewer."""
    return hidden is not None and any(bool(hidden[w]) for w in words)


def hidden_in(hidden: np.ndarray | None, lo: int, hi: int) -> bool:
    return hidden is not None and bool(hidden[lo:hi].any())


class Canvas:
    def __init__(self, width: int, height: int, font: int = 11):
        self.w, self.h, self.font = width, height, font
        self.parts: list[str] = []

    def rect(self, x, y, w, h, fill="#fff", stroke="#555", rx=3, sw=1, title: str | None = None):
        t = f"<title>{escape(title)}</title>" if title else ""
        self.parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{sw}">{t}</rect>'
        )

    def circle(self, x, y, r, fill="#fff", stroke="#555", sw=1):
        self.parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="{sw}"/>'
        )

    def line(self, x1, y1, x2, y2, stroke="#999", sw=1, dash: str | None = None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
            f'stroke-width="{sw}"{d}/>'
        )

    def text(self, x, y, s, size: int | None = None, fill="#222", anchor="start", bold=False):
        b = ' font-weight="bold"' if bold else ""
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size or self.font}" fill="{fill}" '
            f'text-anchor="{anchor}"{b}>{escape(str(s))}</text>'
        )

    def card(
        self,
        x,
        y,
        label,
        w=34,
        h=46,
        fill="#fffbe6",
        stroke="#555",
        sub: str | None = None,
        size=10,
    ):
        """A card: a rounded rectangle with a label (and a second line)."""
        self.rect(x, y, w, h, fill=fill, stroke=stroke)
        self.text(x + w / 2, y + h / 2 + (0 if sub else 4), label, size=size, anchor="middle")
        if sub:
            self.text(x + w / 2, y + h / 2 + 13, sub, size=size - 1, anchor="middle", fill="#555")

    def svg(self) -> str:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
            f'viewBox="0 0 {self.w} {self.h}" font-family="sans-serif">'
            + "".join(self.parts)
            + "</svg>"
        )
