"""Build Ming Dynasty positions the way the rulebook describes them (for rule tests).

    >>> s = position(3, round=2, start=0, open={9: {0: 3, 2: 1}, 10: {0: 2, 1: 2}})
    >>> s = score_from(s)   # run phase 4 from here; returns the state at the first decision

Seats are 0..3 and the neutral is entity 4 (``NEUTRAL``).  Unlisted places are empty; a
seat's personal supply is set so that its 30 members are all accounted for (members not
placed anywhere are counted as boxed).  ``act`` plays a decision by its readable name.
"""

from __future__ import annotations

import numpy as np

from sim.core import H_CURRENT
from sim.ming_dynasty import layout as L
from sim.ming_dynasty.rules import (
    advance,
    apply,
    begin_round,
    begin_scoring,
    legal_mask,
    pb,
    state_from_script,
)
from sim.ming_dynasty.view import action_name
from sim.registry import get_game

SYM = {"H": 0, "B": 1, "P": 2, "D": 3}


def position(
    players: int,
    *,
    round: int = 1,
    start: int = 0,
    open=None,
    monk=None,
    city=None,
    spaces=None,
    hands=None,
    tiles=None,
    princes=None,
    scores=None,
    supply=None,
    options=None,
    phase: int = L.PH_PLACE,
    neutral_pool: int | None = None,
) -> np.ndarray:
    """A state of ``players`` seats in the described position (no decision taken yet)."""
    s = state_from_script(
        np.int64(players),
        get_game("ming_dynasty").encode_options(options or {}),
        np.int64(start),
        np.zeros(0, np.int32),
    )
    n = players
    s[L.G_ROUND] = round
    s[L.G_START] = start
    for d in range(L.N_DIST):
        for e in range(L.N_ENT):
            s[L.OPEN + d * L.N_ENT + e] = 0
            s[L.CITY + d * L.N_ENT + e] = 0
        s[L.MONK + d] = -1
    for d, ents in (open or {}).items():
        for e, c in ents.items():
            s[L.OPEN + d * L.N_ENT + e] = c
    for d, ents in (city or {}).items():
        for e, c in ents.items():
            s[L.CITY + d * L.N_ENT + e] = c
    for d, p in (monk or {}).items():
        s[L.MONK + d] = p
    for p in range(n):
        for sp in range(L.N_PROV):
            s[L.SPACE + sp * L.MAXP + p] = 0
    for sp, ents in (spaces or {}).items():
        for p, c in ents.items():
            s[L.SPACE + sp * L.MAXP + p] = c
    for p in range(L.MAXP):
        s[L.PRINCE + p] = -1
    for p, d in (princes or {}).items():
        s[L.PRINCE + p] = d
    tile_supply = [int(s[L.S_TILES])] * L.N_PROV
    for p in range(n):
        b = pb(p)
        for c in range(L.N_PROV):
            s[b + L.F_TILES + c] = 0
        for c in range(4):
            s[b + L.F_HAND + c] = 0
    for p, t in (tiles or {}).items():
        for c in range(L.N_PROV):
            s[pb(p) + L.F_TILES + c] = t[c]
            tile_supply[c] -= t[c]
    for c in range(L.N_PROV):
        s[L.TILE_SUPPLY + c] = tile_supply[c]
    dragons = int(s[L.S_DRAGONS])
    for p, h in (hands or {}).items():
        for ch in h:
            s[pb(p) + L.F_HAND + SYM[ch]] += 1
            if ch == "D":
                dragons -= 1
    s[L.G_DRAGON_SUPPLY] = dragons
    for p, v in (scores or {}).items():
        s[pb(p) + L.F_SCORE] = v
    for p in range(n):
        placed = int(
            sum(s[L.OPEN + d * L.N_ENT + p] + s[L.CITY + d * L.N_ENT + p] for d in range(L.N_DIST))
        )
        placed += int(sum(s[L.SPACE + sp * L.MAXP + p] for sp in range(L.N_PROV)))
        placed += int(sum(1 for d in range(L.N_DIST) if s[L.MONK + d] == p))
        sup = (supply or {}).get(p, 0)
        s[pb(p) + L.F_SUPPLY] = sup
        s[L.BOXED + p] = 30 - placed - sup
    if n == 2:
        nn = int(
            sum(
                s[L.OPEN + d * L.N_ENT + L.NEUTRAL] + s[L.CITY + d * L.N_ENT + L.NEUTRAL]
                for d in range(L.N_DIST)
            )
        )
        s[L.G_NEUTRAL_POOL] = neutral_pool if neutral_pool is not None else max(0, 36 - nn)
        s[L.BOXED + L.NEUTRAL] = 0
    s[L.G_PHASE] = phase
    s[L.G_SUB] = 0
    if phase == L.PH_PLACE:
        begin_round(s)
    advance(s)
    return s


def score_from(s: np.ndarray) -> np.ndarray:
    """Start phase 4 (all provinces) in ``s``; the state stops at the first decision."""
    begin_scoring(s)
    advance(s)
    return s


def legal_names(s: np.ndarray) -> list[str]:
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    legal_mask(s, mask)
    return [action_name(s, a) for a in np.flatnonzero(mask)]


def act(s: np.ndarray, seat: int, name: str) -> None:
    """Seat ``seat`` takes the legal action whose readable name is ``name``."""
    assert s[H_CURRENT] == seat, f"seat {int(s[H_CURRENT])} is to move, not {seat}"
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    legal_mask(s, mask)
    for a in np.flatnonzero(mask):
        if action_name(s, a) == name:
            apply(s, np.int64(a))
            return
    raise AssertionError(f"{name!r} not legal for seat {seat}; legal: {legal_names(s)}")
