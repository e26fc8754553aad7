"""The results table: one row per (game, seat).  Its one definition fills it and writes it.

:class:`ResultsTable` lists the columns of a run (the fixed ones below, then one ``opt_<name>``
column per game option and one ``f_<name>`` column per game feature) each with its Arrow
type, its meaning and how it is computed from the arrays a chunk of games produces.  The
same object gives the Parquet schema and builds the tables written, so the two cannot drift.
docs/results-format.md describes the columns for readers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

FORMAT = "dynasty-lab-results"
VERSION = 1
OPTION_PREFIX = "opt_"
FEATURE_PREFIX = "f_"
# Columns that are measurements (agent time), not results: they differ between two runs of the
# same games, so comparisons of results leave them out.
MEASURED_COLUMNS = ("agent_ms",)

# A chunk's arrays, as the runner hands them over (g games, n seats, F features):
#   game_index, deal, rotation, seed, agent_seed : int64[g]
#   seat_agent : int64[g, n]   scores, wins : float64[g, n]
#   feats : float64[g, n, F]   lengths : int64[g]
#   decisions, agent_ns : int64[g, n]  (the seat's decisions and its agent's time over them)
#   lead_changes, decided_at, trace_points : int64[g]  (the score trace, agents/trace.py)
Chunk = dict[str, np.ndarray]


@dataclass(frozen=True)
class Column:
    name: str
    type: pa.DataType
    doc: str
    fill: Callable[[Chunk], pa.Array | np.ndarray]


def _per_game(key: str, dtype) -> Callable[[Chunk], np.ndarray]:
    return lambda c: np.repeat(c[key].astype(dtype), c["scores"].shape[1])


def _per_seat(key: str, dtype) -> Callable[[Chunk], np.ndarray]:
    return lambda c: c[key].astype(dtype).reshape(-1)


def ranks(scores: np.ndarray, wins: np.ndarray) -> np.ndarray:
    """Competition rank per seat: 1 + seats with a better (score, win share); winners are 1."""
    s, w = scores[:, :, None], wins[:, :, None]
    so, wo = scores[:, None, :], wins[:, None, :]
    better = (so > s) | ((so == s) & (wo > w))
    return 1 + better.sum(axis=2)


def _dictionary(values: list[str], codes: np.ndarray) -> pa.Array:
    return pa.DictionaryArray.from_arrays(
        pa.array(codes, pa.int16()), pa.array(values, pa.string())
    )


STRING = pa.dictionary(pa.int16(), pa.string())


class ResultsTable:
    """Columns of the results of one run (a game, its options, player count and agents)."""

    def __init__(
        self,
        spec,
        players: int,
        options: dict,
        agent_labels: list[str],
        components: dict | None = None,
    ):
        self.spec = spec
        self.players = players
        self.agent_labels = list(agent_labels)
        cols = [
            Column(
                "game_index",
                pa.int64(),
                "index of the game in the run (0 .. games-1)",
                _per_game("game_index", np.int64),
            ),
            Column(
                "deal",
                pa.int64(),
                "index of the deal; the rotations of one deal share its seed",
                _per_game("deal", np.int64),
            ),
            Column(
                "rotation",
                pa.int16(),
                "which rotation of the lineup was seated (0 with fixed seats)",
                _per_game("rotation", np.int16),
            ),
            Column(
                "seed",
                pa.int64(),
                "the game's seed: game_seed(master seed, deal)",
                _per_game("seed", np.int64),
            ),
            Column(
                "agent_seed",
                pa.int64(),
                "seed of the agents' RNGs in this game",
                _per_game("agent_seed", np.int64),
            ),
            Column(
                "players",
                pa.int8(),
                "number of seats",
                lambda c: np.full(c["scores"].size, players, np.int8),
            ),
            Column(
                "seat",
                pa.int8(),
                "seat, 0 = first player",
                lambda c: np.tile(np.arange(players, dtype=np.int8), len(c["scores"])),
            ),
            Column(
                "agent",
                STRING,
                "label of the agent in this seat (e.g. random, heuristic, mcts:1000)",
                lambda c: _dictionary(self.agent_labels, c["seat_agent"].reshape(-1)),
            ),
            Column(
                "score", pa.float64(), "final score of the seat", _per_seat("scores", np.float64)
            ),
            Column(
                "rank",
                pa.int8(),
                "1 + number of seats with a higher (score, win share); winners are 1",
                lambda c: ranks(c["scores"], c["wins"]).astype(np.int8).reshape(-1),
            ),
            Column(
                "win",
                pa.float64(),
                "win share: 1/k for each of k tied winners, else 0",
                _per_seat("wins", np.float64),
            ),
            Column(
                "length",
                pa.int32(),
                "decisions taken in the whole game",
                _per_game("lengths", np.int32),
            ),
            Column(
                "decisions",
                pa.int32(),
                "decisions the seat took in the game",
                _per_seat("decisions", np.int32),
            ),
            Column(
                "agent_ms",
                pa.float64(),
                "time the seat's agent took over its decisions in the game, ms",
                lambda c: (c["agent_ns"].astype(np.float64) / 1e6).reshape(-1),
            ),
            Column(
                "lead_changes",
                pa.int16(),
                "score trace: times the sole provisional leader changed, from the "
                "first round's end to the final result",
                _per_game("lead_changes", np.int16),
            ),
            Column(
                "decided_at",
                pa.int16(),
                "score trace: the first point (1 = end of the first round) from which "
                "the eventual sole winner led alone to the end; trace_points if only "
                "the final scoring made it the leader, -1 without a sole winner",
                _per_game("decided_at", np.int16),
            ),
            Column(
                "trace_points",
                pa.int16(),
                "score trace: its points, the round ends played and the final result",
                _per_game("trace_points", np.int16),
            ),
        ]
        for opt in spec.options:
            value = options[opt.name]
            if opt.choices is not None:
                fill = (lambda v: lambda c: _dictionary([v], np.zeros(c["scores"].size, np.int16)))(
                    str(value)
                )
                cols.append(
                    Column(OPTION_PREFIX + opt.name, STRING, f"rule option: {opt.doc}", fill)
                )
            else:
                fill = (lambda v: lambda c: np.full(c["scores"].size, v, np.int32))(int(value))
                cols.append(
                    Column(OPTION_PREFIX + opt.name, pa.int32(), f"rule option: {opt.doc}", fill)
                )
        for path, value in (
            components or {}
        ).items():  # changed component values (sim/components.py)
            fill = (lambda v: lambda c: np.full(c["scores"].size, v, np.int32))(int(value))
            cols.append(
                Column(
                    "c_" + path,
                    pa.int32(),
                    f"component value {path} (changed from the data file)",
                    fill,
                )
            )
        for j, feat in enumerate(spec.feature_names):
            fill = (lambda k: lambda c: c["feats"][:, :, k].reshape(-1).astype(np.float64))(j)
            cols.append(
                Column(
                    FEATURE_PREFIX + feat,
                    pa.float64(),
                    f"game feature {feat!r} of the seat at the end",
                    fill,
                )
            )
        self.columns: tuple[Column, ...] = tuple(cols)
        self.schema = pa.schema([pa.field(c.name, c.type, nullable=False) for c in cols])

    @property
    def feature_columns(self) -> list[str]:
        return [FEATURE_PREFIX + f for f in self.spec.feature_names]

    def fill(self, chunk: Chunk) -> pa.Table:
        """The rows of one chunk of games, in (game_index, seat) order."""
        arrays = []
        for c in self.columns:
            v = c.fill(chunk)
            arrays.append(v if isinstance(v, pa.Array) else pa.array(v, c.type))
        return pa.Table.from_arrays(arrays, schema=self.schema)
