"""Component values: change numbers in a game's data files (card VP, set values ...) for one run.

A game's component data (``sim/<game>/data/components.json``) reaches its kernels as data,
appended after the rule option codes in the array given to ``new_state`` (sim/core.py,
``GameSpec.data``), so a run with other component values needs no recompilation: the
runner packs the changed file with the game's own ``component_data(comp)`` (in
``sim/<game>/options.py``) and hands the array to the workers.

Which values may change, and within which bounds, each game declares in
``sim/<game>/data/ranges.toml``::

    [[value]]
    path = "goal_cards[*].vp"     # a path into components.json; [*] = every element
    low = 0
    high = 12
    doc = "VP of each goal card"

A path given in a config (``components = { "goal_cards[2].vp" = 6 }``) must match a declared
pattern (``[3]`` matches ``[*]``, ``.default_4_4_4`` matches ``.*``); a path that holds a
wildcard sets every element it reaches.  Values are integers within the declared bounds; anything else is refused with
one line naming the path.
"""

from __future__ import annotations

import copy
import importlib
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import numpy as np

RANGES_FILE = "ranges.toml"
COLUMN_PREFIX = "c_"
_TOKEN = re.compile(r"\.?([A-Za-z_0-9]+|\*)|\[(\*|\d+)\]")


class ComponentError(ValueError):
    """A component path or value a game does not allow."""


@dataclass(frozen=True)
class ValueRange:
    path: str
    low: int
    high: int
    doc: str = ""


def parse_path(path: str) -> list[str | int]:
    """``"a.b[3].c"`` -> ``["a", "b", 3, "c"]`` (``"*"`` for ``[*]``); ComponentError if malformed."""
    if not isinstance(path, str) or not path:
        raise ComponentError(f"expected a path such as 'goal_cards[0].vp', got {path!r}")
    out: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if not m or (pos == 0 and path.startswith(".")):
            raise ComponentError(f"{path!r} is not a data path (expected e.g. 'goal_cards[0].vp')")
        if m.group(1) is not None:
            out.append(m.group(1))
        else:
            out.append("*" if m.group(2) == "*" else int(m.group(2)))
        pos = m.end()
    return out


def _matches(pattern: list, path: list) -> bool:
    return len(pattern) == len(path) and all(p == q or p == "*" for p, q in zip(pattern, path))


def game_module(game: str):
    """The game's ``options`` module with ``load_components`` and ``component_data``, or None."""
    try:
        mod = importlib.import_module(f"sim.{game}.options")
    except ModuleNotFoundError:
        return None
    return mod if hasattr(mod, "load_components") and hasattr(mod, "component_data") else None


@lru_cache(maxsize=None)
def declared_ranges(game: str) -> tuple[ValueRange, ...]:
    """The values ``game`` lets studies change (``sim/<game>/data/ranges.toml``), empty if none."""
    f = Path(__file__).resolve().parents[1] / "sim" / game / "data" / RANGES_FILE
    if not f.is_file():
        return ()
    data = tomllib.loads(f.read_text())
    out = []
    for i, v in enumerate(data.get("value", [])):
        parse_path(v["path"])
        if not (isinstance(v["low"], int) and isinstance(v["high"], int) and v["low"] <= v["high"]):
            raise ComponentError(f"{f}: value[{i}]: low and high must be integers, low <= high")
        out.append(ValueRange(v["path"], v["low"], v["high"], v.get("doc", "")))
    return tuple(out)


@lru_cache(maxsize=None)
def _base_components(game: str) -> dict:
    return game_module(game).load_components()


def range_of(game: str, path: str) -> ValueRange:
    """The declared range of ``path`` (ComponentError naming the declared paths if none matches)."""
    steps = parse_path(path)
    decl = declared_ranges(game)
    for r in decl:
        if _matches(parse_path(r.path), steps):
            return r
    known = ", ".join(r.path for r in decl) or "none: the game declares no component ranges"
    raise ComponentError(
        f"{game}: {path!r} is not a component value this game lets a study change (declared: {known})"
    )


def _targets(node: Any, steps: list, path: str, where: str = "") -> list[tuple[Any, Any]]:
    """(container, key) pairs the path reaches in ``node``."""
    if not steps:
        return []
    head, rest = steps[0], steps[1:]
    if head == "*":
        if not isinstance(node, (list, dict)):
            raise ComponentError(f"{path!r}: {where or 'the data'} is not a list or table")
        keys = (
            list(range(len(node)))
            if isinstance(node, list)
            else [k for k in node if not k.startswith("_")]
        )
    elif isinstance(head, int):
        if not isinstance(node, list) or head >= len(node):
            n = len(node) if isinstance(node, list) else 0
            raise ComponentError(
                f"{path!r}: {where or 'the data'} has no element [{head}] (it has {n})"
            )
        keys = [head]
    else:
        if not isinstance(node, dict) or head not in node:
            raise ComponentError(f"{path!r}: {where or 'the data'} has no field {head!r}")
        keys = [head]
    out = []
    for k in keys:
        sub = f"{where}[{k}]" if isinstance(k, int) else (f"{where}.{k}" if where else k)
        if rest:
            out += _targets(node[k], rest, path, sub)
        else:
            out.append((node, k))
    return out


def check_value(game: str, path: str, value: Any) -> int:
    """``value`` as an int if ``path`` may take it (ComponentError otherwise)."""
    r = range_of(game, path)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ComponentError(f"{game}: {path!r}: expected an integer, got {value!r}")
    if not r.low <= value <= r.high:
        raise ComponentError(
            f"{game}: {path!r}: {value} is outside its declared range {r.low}..{r.high}"
        )
    return int(value)


def validate(game: str, components: Mapping[str, Any]) -> dict[str, int]:
    """Checked overrides ``{path: int}`` (in the given order); ComponentError names the bad path."""
    if components and game_module(game) is None:
        raise ComponentError(f"{game}: this game has no component data to change")
    out = {}
    for path, value in components.items():
        out[path] = check_value(game, path, value)
        for container, key in _targets(_base_components(game), parse_path(path), path):
            if isinstance(container[key], (dict, list)) or isinstance(container[key], bool):
                raise ComponentError(f"{game}: {path!r} names a table or list, not a number")
    if out:
        component_array(game, out)  # the game's own loader checks the changed file as a whole
    return out


def apply(game: str, components: Mapping[str, int]) -> dict:
    """A copy of the game's component data with the overrides written in."""
    comp = copy.deepcopy(_base_components(game))
    for path, value in components.items():
        for container, key in _targets(comp, parse_path(path), path):
            container[key] = int(value)
    return comp


def component_array(game: str, components: Mapping[str, int]) -> np.ndarray:
    """The packed data array (``GameSpec.data``) of the game with the overrides."""
    mod = game_module(game)
    try:
        return np.asarray(mod.component_data(apply(game, components)), np.int32)
    except ValueError as e:  # the game's DataError: a value its loader refuses
        raise ComponentError(f"{game}: the changed component data is refused: {e}") from None


def encode(spec, options: Mapping[str, Any], components: Mapping[str, int] | None) -> np.ndarray:
    """``spec.encode_options(options)`` with the component data replaced by the overridden one."""
    arr = spec.encode_options(dict(options))
    if not components:
        return arr
    return np.concatenate([arr[: len(spec.options)], component_array(spec.name, components)])


def column_name(path: str) -> str:
    """Results column of a changed component value: ``c_`` + the path."""
    return COLUMN_PREFIX + path
