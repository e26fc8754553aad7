"""A game's component data (card values, boards ...), and the values a study may change in it.

A game declares its data on its spec as :class:`Components` (``GameSpec.components``): how
its data files load as one JSON-like dict, how that dict packs into the int32 array
appended after the rule option codes in the array given to ``new_state`` (sim/core.py), the
ranges a study may change values within, and the files themselves.  Kernels read the data
as data, never as compiled-in globals, so a run with other component values needs no
recompilation: :func:`encode` packs the changed dict and the runner hands the array to the
workers.

Which values may change, and within which bounds, a game declares in
``sim/<game>/data/ranges.toml`` (read by :func:`components_of`)::

    [[value]]
    path = "goal_cards[*].vp"     # a path into components.json; [*] = every element
    low = 0
    high = 12
    doc = "VP of each goal card"

A path given in a config (``components = { "goal_cards[2].vp" = 6 }``) must match a declared
pattern (``[3]`` matches ``[*]``, ``.default_4_4_4`` matches ``.*``); a path that holds a
wildcard sets every element it reaches.  Values are integers within the declared bounds;
anything else is refused with one line naming the path.

Where a value comes from, the data files say in ``provenance`` fields (``printed``: stated in
the rulebook; ``reconstructed``: not public, proposed by the game's rules spec; ``decision``: a
ruling of the spec): :func:`provenance` reads them, so reports can mark the values they name
that were never printed.
"""

from __future__ import annotations

import copy
import hashlib
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

RANGES_FILE = "ranges.toml"
_TOKEN = re.compile(r"\.?([A-Za-z_0-9]+|\*)|\[(\*|\d+)\]")


class ComponentError(ValueError):
    """A component path or value a game does not allow."""


@dataclass(frozen=True)
class ValueRange:
    """A value a study may change: a data path (``[*]`` for every element) and its bounds."""

    path: str
    low: int
    high: int
    doc: str = ""


@dataclass(frozen=True)
class Components:
    """A game's component data, as its spec declares it (``GameSpec.components``).

    ``load()`` gives the data files as one JSON-like dict (provenance fields included);
    ``pack(dict)`` checks such a dict as a whole (raising ``ValueError`` naming the bad
    value) and packs it into the int32 array appended after the option codes; ``ranges``
    are the values a study may change; ``files`` are the data files.  :attr:`digest` hashes
    the packed data (a run records it, so results of two data sets are never mixed).
    """

    load: Callable[[], dict]
    pack: Callable[[dict], np.ndarray]
    ranges: tuple[ValueRange, ...] = ()
    files: tuple[Path, ...] = field(default=())

    @cached_property
    def base(self) -> dict:
        """The data as the files hold it (loaded once; never modified: :func:`apply` copies)."""
        return self.load()

    @cached_property
    def packed(self) -> np.ndarray:
        """The packed array of the data as the files hold it (``GameSpec.data``)."""
        return np.asarray(self.pack(self.base), np.int32)

    @cached_property
    def digest(self) -> str:
        """A SHA-256 of :attr:`packed` as little-endian int32 (16 hex digits): the data exactly as
        the kernels receive it, so an edit to a provenance note or to the files' layout keeps
        the digest, and any value the games see changes it."""
        return hashlib.sha256(self.packed.astype("<i4").tobytes()).hexdigest()[:16]


def read_ranges(path: Path) -> tuple[ValueRange, ...]:
    """The ranges declared in a ``ranges.toml`` (none if the file does not exist)."""
    if not path.is_file():
        return ()
    data = tomllib.loads(path.read_text())
    out = []
    for i, v in enumerate(data.get("value", [])):
        parse_path(v["path"])
        if not (isinstance(v["low"], int) and isinstance(v["high"], int) and v["low"] <= v["high"]):
            raise ComponentError(f"{path}: value[{i}]: low and high must be integers, low <= high")
        out.append(ValueRange(v["path"], v["low"], v["high"], v.get("doc", "")))
    return tuple(out)


def components_of(
    data_dir: Path, load: Callable[[], dict], pack: Callable[[dict], np.ndarray]
) -> Components:
    """The :class:`Components` of a game whose data files are in ``data_dir``: its ranges from
    ``data_dir/ranges.toml``, every file of the folder hashed into the digest."""
    data_dir = Path(data_dir)
    files = tuple(sorted(f for f in data_dir.iterdir() if f.is_file() and f.name != RANGES_FILE))
    return Components(load, pack, read_ranges(data_dir / RANGES_FILE), files)


def parse_path(path: str) -> list[str | int]:
    """``"a.b[3].c"`` -> ``["a", "b", 3, "c"]`` (``"*"`` for ``[*]``); ComponentError if
    malformed."""
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


def declared_ranges(spec) -> tuple[ValueRange, ...]:
    """The values the game of ``spec`` lets studies change (empty if it has no component data)."""
    return spec.components.ranges if spec.components is not None else ()


def range_of(spec, path: str) -> ValueRange:
    """The declared range of ``path`` (ComponentError naming the declared paths if none matches)."""
    steps = parse_path(path)
    decl = declared_ranges(spec)
    for r in decl:
        if _matches(parse_path(r.path), steps):
            return r
    known = ", ".join(r.path for r in decl) or "none: the game declares no component ranges"
    raise ComponentError(
        f"{spec.name}: {path!r} is not a component value this game lets a study change "
        f"(declared: {known})"
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


def check_value(spec, path: str, value: Any) -> int:
    """``value`` as an int if ``path`` may take it (ComponentError otherwise)."""
    game = spec.name
    r = range_of(spec, path)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ComponentError(f"{game}: {path!r}: expected an integer, got {value!r}")
    if not r.low <= value <= r.high:
        raise ComponentError(
            f"{game}: {path!r}: {value} is outside its declared range {r.low}..{r.high}"
        )
    return int(value)


def validate(spec, components: Mapping[str, Any]) -> dict[str, int]:
    """Checked overrides ``{path: int}`` (in the given order); ComponentError names the bad path."""
    game = spec.name
    if components and spec.components is None:
        raise ComponentError(f"{game}: this game has no component data to change")
    out = {}
    for path, value in components.items():
        out[path] = check_value(spec, path, value)
        for container, key in _targets(spec.components.base, parse_path(path), path):
            if isinstance(container[key], (dict, list, bool)):
                raise ComponentError(f"{game}: {path!r} names a table or list, not a number")
    if out:
        component_array(spec, out)  # the game's own loader checks the changed file as a whole
    return out


def apply(spec, components: Mapping[str, int]) -> dict:
    """A copy of the game's component data with the overrides written in."""
    comp = copy.deepcopy(spec.components.base)
    for path, value in components.items():
        for container, key in _targets(comp, parse_path(path), path):
            container[key] = int(value)
    return comp


def component_array(spec, components: Mapping[str, int]) -> np.ndarray:
    """The packed data array (``GameSpec.data``) of the game with the overrides."""
    try:
        return np.asarray(spec.components.pack(apply(spec, components)), np.int32)
    except ValueError as e:  # the game's DataError: a value its loader refuses
        raise ComponentError(f"{spec.name}: the changed component data is refused: {e}") from None


def encode(spec, options: Mapping[str, Any], components: Mapping[str, int] | None) -> np.ndarray:
    """``spec.encode_options(options)`` with the component data replaced by the overridden one."""
    arr = spec.encode_options(dict(options))
    if not components:
        return arr
    return np.concatenate([arr[: len(spec.options)], component_array(spec, components)])


# The words the data files' ``provenance`` notes use for each kind ("SEED": the seed rulebook).
_KIND_WORDS = {
    "printed": "printed",
    "seed": "printed",
    "reconstructed": "reconstructed",
    "decision": "decision",
}
RECONSTRUCTED_NOTE = (
    "reconstructed: the data files' value at that path is not public; the game's rules spec "
    "proposed it (printed: stated in the rulebook; decision: a ruling of the spec).  The data, "
    "with each value's provenance, is in {folder}"
)


def _kind_of(note: str, key: str) -> str | None:
    """The kind a ``provenance`` note gives the field ``key`` of its table: the note is one kind
    (``"reconstructed (spec 1.4 ...)"``) or clauses per field (``"power+cost SEED / count
    RECONSTRUCTED"``; ``rest``, or a clause that opens with its kind, covers the fields not
    named)."""
    general = None
    for clause in note.split(" / "):
        words = clause.split()
        kinds = [_KIND_WORDS[w.lower()] for w in words if w.lower() in _KIND_WORDS]
        if not kinds:
            continue
        names = words[0].split("+")
        if str(key) in names:
            return kinds[0]
        if words[0].lower() in _KIND_WORDS or "rest" in names:
            general = general or kinds[0]
    return general


def _kinds(node: Any, steps: list, note: str | None, key: Any) -> list[str | None]:
    """The kind of every value ``steps`` reaches in ``node`` (None: no note says)."""
    here = isinstance(node, dict) and isinstance(node.get("provenance"), str)
    if here:
        note = node["provenance"]
    if not steps:
        return [_kind_of(note, key) if note else None]
    head = steps[0]
    if head == "*":
        keys = (
            range(len(node))
            if isinstance(node, list)
            else [k for k in node if not k.startswith("_") and k != "provenance"]
        )
    else:
        keys = [head]
    out = []
    for k in keys:
        try:
            child = node[k]
        except (KeyError, IndexError, TypeError):
            continue
        out += _kinds(child, steps[1:], note, k if here else key)
    return out


def provenance(spec, path: str) -> str:
    """Where the data file's values at ``path`` come from: ``"printed"``, ``"reconstructed"``
    or ``"decision"`` (the kinds joined by `` + `` when the values reached differ; ``""`` where
    no note says).  A value's note is the ``provenance`` field of the nearest table around it."""
    if spec.components is None:
        return ""
    found = _kinds(spec.components.base, parse_path(path), None, None)
    return " + ".join(dict.fromkeys(k for k in found if k))


def data_folder(spec) -> str:
    """The folder of the game's data files, relative to the project when inside it."""
    if spec.components is None or not spec.components.files:
        return f"sim/{spec.name}/data/"
    folder = Path(spec.components.files[0]).resolve().parent
    try:
        return f"{folder.relative_to(Path(__file__).resolve().parents[1])}/"
    except ValueError:
        return f"{folder}/"


def file_values(spec, path: str) -> list:
    """The data file's values at ``path`` (every element a wildcard reaches)."""
    return [c[k] for c, k in _targets(spec.components.base, parse_path(path), path)]


def mark(spec, path: str) -> str:
    """``" (reconstructed)"`` where a data file's value ``path`` reaches is reconstructed, else
    ``""``: the mark a report puts after a value it names."""
    return " (reconstructed)" if "reconstructed" in provenance(spec, path) else ""


def reconstructed_note(spec) -> str:
    """What the mark of :func:`mark` means, and where the data lives."""
    return RECONSTRUCTED_NOTE.format(folder=data_folder(spec))
