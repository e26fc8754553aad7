"""Build Emperor's Choice positions the way the rulebook describes them, for rule tests.

``position(n)`` starts a game without Starting Bonus tiles (so nothing is pending) and
returns its state at the first auction decision; the helpers then set what a scenario
names (hands, displays, tiles, tracks, the seat to move) without touching anything else.
A test that writes card locations (``LOC``) itself calls ``rules.sync_card_sets`` after.
"""

import numpy as np

from sim.core import H_CURRENT
from sim.emperors_choice import layout as L
from sim.emperors_choice.options import OPTIONS, card_table, component_data, load_components
from sim.emperors_choice.rules import new_state, pb, sync_card_sets

_CARDS = card_table(load_components())


def position(n: int, seed: int = 0, options: dict | None = None) -> np.ndarray:
    opts = {"starting_bonus_mode": "none", **(options or {})}
    codes = np.array([o.encode(opts.get(o.name, o.default)) for o in OPTIONS], np.int32)
    return new_state(np.int64(seed), np.int64(n), np.concatenate([codes, component_data()]))


def free_card(s: np.ndarray, name: str, power: int | None = None) -> int:
    """A card of that name (and printed Power) not held by anyone."""
    for c, row in enumerate(_CARDS):
        base = row["name"].replace(" (starting)", "").replace(" (bonus)", "")
        if (
            base == name
            and (power is None or row["power"] == power)
            and s[L.LOC + c] in (L.LOC_DECK, L.LOC_BOX, L.LOC_DISCARD, L.LOC_DISPLAY)
        ):
            for i in range(L.MAX_RECRUIT):  # taken out of the Recruitment display
                if s[L.RECRUIT + i] == c:
                    s[L.RECRUIT + i] = -1
            return c
    raise LookupError(f"no free card {name} {power}")


def clear_cards(s: np.ndarray, p: int) -> None:
    """Put every card ``p`` holds or shows back in the box."""
    for c in range(len(_CARDS)):
        if s[L.LOC + c] in (L.LOC_HAND + p, L.LOC_BID + p, L.LOC_PEND + p):
            s[L.LOC + c] = L.LOC_BOX
    sync_card_sets(s)


def give(s: np.ndarray, p: int, name: str, power: int | None = None, where: str = "hand") -> int:
    c = free_card(s, name, power)
    s[L.LOC + c] = {"hand": L.LOC_HAND, "shown": L.LOC_BID}[where] + p
    s[L.KNOWN + c] = 1
    sync_card_sets(s)
    return c


def set_player(s: np.ndarray, p: int, **fields) -> None:
    """Set player fields by name: vp, trust, gold, cubes, bid_cubes, palace, tile, declared,
    passed."""
    names = {
        "vp": L.F_VP,
        "trust": L.F_TRUST,
        "gold": L.F_GOLD,
        "cubes": L.F_CUBES,
        "bid_cubes": L.F_BID_CUBES,
        "palace": L.F_PALACE,
        "tile": L.F_TILE,
        "declared": L.F_DECLARED,
        "passed": L.F_PASSED,
    }
    for k, v in fields.items():
        s[pb(p) + names[k]] = v


def set_tiles(s: np.ndarray, p: int, **counts) -> None:
    """Tableau counts by tile name (castle, tower, wall, book, legalist, carriage_1 ...)."""
    for k, v in counts.items():
        s[pb(p) + L.F_TAB + L.TILE_NAMES.index(k)] = v


def to_move(s: np.ndarray, p: int, kind: int) -> None:
    s[L.G_DECISION] = kind
    s[H_CURRENT] = p


def balance_supply(s: np.ndarray) -> None:
    """Supply = the pool minus every cube held, so that cubes are conserved."""
    n = int(s[2])
    held = sum(int(s[pb(p) + L.F_CUBES] + s[pb(p) + L.F_BID_CUBES]) for p in range(n))
    s[L.G_SUPPLY] = int(s[L.DAT + L.D_POOL + n - 3]) - held
