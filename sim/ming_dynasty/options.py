"""Ming Dynasty rule options (spec section 5) and component data loading.

The order of ``OPTIONS`` is the order of the option codes in the state (layout.O_*).
Each option's doc names the spec decision it flips; defaults are the spec's.

Data files (``data/``): ``board.csv`` is the border graph (one border per line), and
``components.json`` the card mix and point values.  Both are validated on load; an error
names the file and the line (board) or the field (components).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path

import numpy as np

from sim.core import Option
from sim.ming_dynasty import layout as L

DATA_DIR = Path(__file__).with_name("data")
BOARD_FILE = DATA_DIR / "board.csv"
COMPONENTS_FILE = DATA_DIR / "components.json"
SYMBOLS = ("HORSE", "BOAT", "PALANQUIN")

OPTIONS = (
    Option(
        "start_player",
        "random",
        "D32: the first start player is drawn at random, or is always seat 0",
        ("random", "seat0"),
    ),
    Option(
        "city_bonus_tiebreak",
        "own_best_section",
        "D19: a tie for the city bonus is broken by each tied entity's best section, or by "
        "the fullest section(s)",
        ("own_best_section", "fullest_section"),
    ),
    Option(
        "neutral_pool",
        "rules_total",
        "D26 (2p): the neutral pool holds the 36 members the rules place, or the 31 real "
        "pieces (boxed neutral members recycled, uncovered placements skipped)",
        ("rules_total", "strict_31"),
    ),
    Option(
        "neutral_keep",
        "after_returns",
        "D23 (2p): a sole-majority neutral keeps one more than the largest player count "
        "after (or before) the players' returns, or as many as that count when it then wins "
        "the tie on the section tie-break (D19)",
        ("after_returns", "before_returns", "tie_on_tiebreak"),
    ),
    Option(
        "return_choice",
        "after_reveal",
        "D3: which sections the returned city members come from is chosen after the reveal, "
        "clockwise from the start player, or folded into the secret commitment",
        ("after_reveal", "in_commitment"),
    ),
    Option(
        "stay_dragon",
        "dragon_supply",
        "D15: a dragon discarded by STAY goes back to the dragon supply, or onto the discard "
        "pile (and is reshuffled into the movement deck with it)",
        ("dragon_supply", "discard_pile"),
    ),
    Option(
        "dragon_payment",
        "own_member",
        "D33: a dragon card is paid with one of the taker's own members from a province "
        "space, or with any player's member from any province space",
        ("own_member", "any_member"),
    ),
)
assert len(OPTIONS) == L.N_OPTION_CODES


class DataError(ValueError):
    """A data file that does not describe a valid Ming Dynasty board or component set."""


def load_board(path: Path = BOARD_FILE, text: str | None = None) -> np.ndarray:
    """Parse and validate the border list; return the 18 x 18 symbol matrix (-1 = no border).

    Lines starting with ``#`` and blank lines are comments.  Errors name the line.
    """
    text = Path(path).read_text() if text is None else text
    adj = np.full((L.N_DIST, L.N_DIST), -1, np.int32)
    header = None
    expect_id = 0
    for lineno, raw in enumerate(io.StringIO(text), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        row = next(csv.reader([line]))
        if header is None:
            header = [h.strip() for h in row]
            if header != ["border_id", "district_a", "district_b", "symbol", "kind"]:
                raise DataError(
                    f"{path}: line {lineno}: header must be "
                    f"border_id,district_a,district_b,symbol,kind, got {line!r}"
                )
            continue
        if len(row) != 5:
            raise DataError(f"{path}: line {lineno}: expected 5 fields, found {len(row)}: {line!r}")
        try:
            bid, a, b = (int(x) for x in row[:3])
        except ValueError:
            raise DataError(
                f"{path}: line {lineno}: border_id, district_a and district_b must be "
                f"integers: {line!r}"
            ) from None
        sym, kind = row[3].strip().upper(), row[4].strip().lower()
        if bid != expect_id:
            raise DataError(
                f"{path}: line {lineno}: border_id {bid}, expected {expect_id} (ids count up "
                "from 0)"
            )
        expect_id += 1
        for name, d in (("district_a", a), ("district_b", b)):
            if not 0 <= d < L.N_DIST:
                raise DataError(
                    f"{path}: line {lineno}: {name} {d} is not a district 0..{L.N_DIST - 1}"
                )
        if a == b:
            raise DataError(
                f"{path}: line {lineno}: a border joins two different districts, got {a} twice"
            )
        if sym not in SYMBOLS:
            raise DataError(
                f"{path}: line {lineno}: symbol {row[3]!r} is not one of {', '.join(SYMBOLS)}"
            )
        same = a // L.DPP == b // L.DPP
        if kind not in ("intra", "inter") or (kind == "intra") != same:
            raise DataError(
                f"{path}: line {lineno}: kind {row[4]!r} should be {'intra' if same else 'inter'} "
                f"(districts {a} and {b} are in provinces {a // L.DPP} and {b // L.DPP})"
            )
        if adj[a, b] >= 0:
            raise DataError(f"{path}: line {lineno}: districts {a} and {b} already share a border")
        adj[a, b] = adj[b, a] = SYMBOLS.index(sym)
    if header is None:
        raise DataError(f"{path}: no header line and no borders")
    # connected: every district reachable from district 0
    seen, todo = {0}, [0]
    while todo:
        x = todo.pop()
        for y in np.flatnonzero(adj[x] >= 0):
            if int(y) not in seen:
                seen.add(int(y))
                todo.append(int(y))
    if len(seen) != L.N_DIST:
        missing = sorted(set(range(L.N_DIST)) - seen)
        raise DataError(
            f"{path}: the board is not connected: districts {missing} cannot be reached from "
            "district 0"
        )
    return adj


def load_components(path: Path = COMPONENTS_FILE) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise DataError(f"{path}: line {e.lineno}: {e.msg}") from None


def _value(comp: dict, key: str, path, low: int, high: int) -> int:
    try:
        v = comp[key]["value"]
    except (KeyError, TypeError):
        raise DataError(f"{path}: missing field {key}.value") from None
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        raise DataError(f"{path}: field {key}.value must be an integer {low}..{high}, got {v!r}")
    return v


def _values(comp: dict, key: str, path, count: int) -> list[int]:
    try:
        v = comp[key]["values"]
    except (KeyError, TypeError):
        raise DataError(f"{path}: missing field {key}.values") from None
    if (
        not isinstance(v, list)
        or len(v) != count
        or not all(isinstance(x, int) and x >= 0 for x in v)
    ):
        raise DataError(
            f"{path}: field {key}.values must be {count} non-negative integers, got {v!r}"
        )
    return v


def component_data(
    comp: dict | None = None,
    board: np.ndarray | None = None,
    path: Path = COMPONENTS_FILE,
    board_path: Path = BOARD_FILE,
) -> np.ndarray:
    """Validate the data files and pack them in the layout of layout.D_*."""
    comp = comp if comp is not None else load_components(path)
    adj = board if board is not None else load_board(board_path)
    cards = comp.get("movement_cards")
    if not isinstance(cards, dict):
        raise DataError(f"{path}: missing field movement_cards")
    counts = []
    for sym in SYMBOLS:
        c = cards.get(sym)
        if not isinstance(c, int) or c < 0:
            raise DataError(
                f"{path}: field movement_cards.{sym} must be a non-negative integer, got {c!r}"
            )
        counts.append(c)
    if not 6 + 20 <= sum(counts) <= L.MAX_DECK:
        raise DataError(
            f"{path}: movement_cards: {sum(counts)} cards; need 26..{L.MAX_DECK} (6 on "
            "display and 20 in hands)"
        )
    used = {int(adj[a, b]) for a in range(L.N_DIST) for b in range(L.N_DIST) if adj[a, b] >= 0}
    for sym in used:
        if counts[sym] == 0:
            raise DataError(
                f"{path}: movement_cards.{SYMBOLS[sym]} is 0 but the board has "
                f"{SYMBOLS[sym]} borders"
            )
    ret = _values(
        comp,
        "return_card_values",
        path,
        len(comp.get("return_card_values", {}).get("values", [])) or 1,
    )
    sums = {sum(c) for k in range(1, len(ret) + 1) for c in itertools.combinations(ret, k)}
    if not set(range(L.MAX_RETURN + 1)) <= sums:
        raise DataError(
            f"{path}: return_card_values {ret}: laying one or more cards must make every "
            f"total 0..{L.MAX_RETURN}"
        )
    packed = (
        adj.ravel().tolist()
        + counts
        + [_value(comp, "dragon_cards", path, 4, L.MAX_DRAGONS)]
        + _values(comp, "set6_points", path, 3)
        + _values(comp, "member_points", path, 3)
        + [
            _value(comp, "city_bonus", path, 0, 99),
            _value(comp, "monastery_points", path, 0, 99),
            _value(comp, "final_set5_points", path, 0, 99),
            _value(comp, "final_tile_points", path, 0, 99),
            _value(comp, "tiles_per_colour", path, 1, 99),
            _value(comp, "playable_members", path, 30, 30),
            _value(comp, "place_per_round", path, 5, 5),
            _value(comp, "deploy_max", path, 1, 3),
            _value(comp, "neutral_pool", path, 18, 99),
            _value(comp, "neutral_pool_strict", path, 18, 99),
            _value(comp, "neutral_max_per_district", path, 1, 9),
            _value(comp, "neutral_place_each", path, 0, 9),
        ]
    )
    arr = np.array(packed, np.int32)
    assert arr.shape[0] == L.D_SIZE
    return arr
