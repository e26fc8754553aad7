"""Observation tensors: what one seat may know, as a fixed-shape array a learner can read.

Every game package has a module ``observe`` that exports ``OBSERVATION``, an
:class:`Observation`, and its ``GameSpec.observation`` points to it.  The contract:

``observe(state, player, out: float32[size]) -> None`` (a numba kernel) fills ``out`` with
the *information-state* tensor of seat ``player``: everything that seat may know and
nothing more; with ``player = NO_PLAYER`` (-1) it fills the *public* tensor, the same
layout with every seat's private part masked (and no observer).  The size is fixed for
the game, whatever the player count (room for the largest count; unused seats are 0).

Two states that ``player`` cannot tell apart (equal ``info_key``) give equal tensors, and
states with different keys give different tensors (tests/test_observations.py checks both
over random states and their determinizations).

For the four seed games the tensor is the game's *masked state*: the state words that the
game's ``info_key`` hashes, after the same masking (rules.info_key), as float32, after a
one-hot of the observer seat.  So it is exactly as informative as ``info_key`` (the test
recomputes the key from the masked words), with the state layout of ``layout.py`` as its
documentation; the fields are integer codes (card ids, bit sets, counts), not one-hot
encodings.  Goofspiel has a hand-made one-hot layout.  Each game's layout table is in
docs/games/<game>.md ("Observation tensor").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sim.core import NO_PLAYER


@dataclass(frozen=True)
class Field:
    """One named slice of an observation tensor."""

    name: str
    offset: int
    length: int
    doc: str = ""


@dataclass(frozen=True)
class Observation:
    """A game's observation tensors (see the module docstring)."""

    size: int
    observe: Callable  # numba kernel observe(state, player, out float32[size])
    fields: tuple[Field, ...]
    # Optional readable form; defaults to the nonzero fields of the tensor (which determine it).
    text: Callable[[np.ndarray, int], str] | None = None

    def tensor(self, state: np.ndarray, player: int = NO_PLAYER) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        self.observe(state, np.int64(player), out)
        return out

    def public(self, state: np.ndarray) -> np.ndarray:
        return self.tensor(state, NO_PLAYER)

    def string(self, state: np.ndarray, player: int = NO_PLAYER) -> str:
        """A text form for people; it determines the tensor, so it is a valid information-state
        string (equal strings exactly for equal tensors)."""
        if self.text is not None:
            return self.text(state, player)
        return fields_text(self.fields, self.tensor(state, player))


def fields_text(fields: tuple[Field, ...], t: np.ndarray) -> str:
    lines = []
    for f in fields:
        v = t[f.offset : f.offset + f.length]
        if np.any(v):
            vals = (
                " ".join(f"{x:g}" for x in v)
                if f.length <= 64
                else " ".join(f"{i}:{x:g}" for i, x in enumerate(v) if x)
            )
            lines.append(f"{f.name}: {vals}")
    return "\n".join(lines)


def layout_table(obs: Observation) -> str:
    """The Markdown table of an observation layout (for docs/games/<game>.md)."""
    rows = ["| offset | length | field | meaning |", "| ---: | ---: | --- | --- |"]
    seat0 = [f for f in obs.fields if f.name.startswith("seat0.")]
    seat1 = [f for f in obs.fields if f.name.startswith("seat1.")]
    stride = seat1[0].offset - seat0[0].offset if seat0 and seat1 else 0
    nseats = len(
        {f.name.split(".")[0] for f in obs.fields if f.name.startswith("seat") and "." in f.name}
    )
    for f in obs.fields:
        if f.name.startswith("seat") and "." in f.name and not f.name.startswith("seat0."):
            continue
        if f.name.startswith("seat0."):
            name = "seat{s}." + f.name.split(".", 1)[1]
            rows.append(
                f"| {f.offset} + {stride}s | {f.length} | `{name}` | seat s = 0..{nseats - 1}: "
                f"`layout.{f.name.split('.', 1)[1]}` |"
            )
            continue
        rows.append(f"| {f.offset} | {f.length} | `{f.name}` | {f.doc} |")
    return "\n".join(rows)


def masked_fields(
    layout,
    regions,
    maxp: int,
    ps: int,
    pl: int,
    extra: tuple[Field, ...] = (),
    nblocks: int | None = None,
):
    """Fields and the state index vector of a masked-state tensor.

    ``regions``: (name, start, length, doc) slices of the state outside the player blocks,
    in tensor order; the player blocks (``maxp`` blocks of ``ps`` words at ``pl``) come
    last (``nblocks``, default ``maxp``), one field per ``F_*`` constant of ``layout`` and
    seat.  ``extra`` fields follow the state words.  Returns (fields, index, size).
    """
    fields = [Field("observer", 0, maxp, "one-hot of the observing seat (all 0: public tensor)")]
    index: list[int] = []
    off = maxp
    for name, start, length, doc in regions:
        if length <= 0:
            continue
        fields.append(Field(name, off, length, doc))
        index.extend(range(start, start + length))
        off += length
    fnames = sorted(
        (
            (v, k)
            for k, v in vars(layout).items()
            if k.startswith("F_") and isinstance(v, int) and 0 <= v < ps
        ),
        key=lambda x: (x[0], x[1]),
    )
    starts = []
    for v, k in fnames:
        if starts and starts[-1][0] == v:
            continue  # aliases: keep the first name
        starts.append((v, k))
    for seat in range(maxp if nblocks is None else nblocks):
        for i, (v, k) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else ps
            fields.append(Field(f"seat{seat}.{k}", off + v, end - v, f"seat {seat}: layout.{k}"))
        index.extend(range(pl + seat * ps, pl + (seat + 1) * ps))
        off += ps
    for f in extra:
        fields.append(Field(f.name, off, f.length, f.doc))
        off += f.length
    return tuple(fields), np.array(index, np.int64), off


HEADER_REGIONS = (
    ("header.n_players", 2, 1, "number of seats"),
    ("header.current", 3, 1, "seat to move (-1 once the game is over)"),
    ("header.ply", 4, 1, "decisions so far"),
)


def regions_between(layout, names, end: int, docs: dict | None = None):
    """Consecutive state regions that start at the layout constants ``names`` (in order):
    each runs to the next one's start, the last to ``end``."""
    docs = docs or {}
    starts = [getattr(layout, n) for n in names] + [end]
    return [
        (n, starts[i], starts[i + 1] - starts[i], docs.get(n, f"layout.{n}"))
        for i, n in enumerate(names)
    ]
