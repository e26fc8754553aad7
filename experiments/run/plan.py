"""Which game is which: seeds, seat assignments and chunks of a run.

Games are numbered ``0 .. games-1``.  With ``seats = "rotate"`` the config's lineup (agent
per seat) is rotated through the seats: rotation ``r`` puts ``lineup[(p + r) % n]`` in seat
``p``, and only distinct rotations are kept (a lineup ``A B A B`` has two).  Game ``i`` is
rotation ``i % R`` of deal ``i // R``, and every rotation of a deal is played with the deal's
seed, so each agent meets the same luck from every seat (mirrored games).  With
``seats = "fixed"`` there is one rotation, the lineup itself, and deal = game.

Seeds are pure functions of the master seed and an index, so a game's result does not
depend on which worker, chunk or machine plays it::

    seed[i]       = game_seed(master_seed, deal(i))
    agent_seed[i] = game_seed(hash64(master_seed, AGENT_STREAM), i)

(seat ``p``'s agent RNG is then seeded with ``hash64(agent_seed[i], p)`` by the arena).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from sim.core import game_seed, hash64

# Salt separating the agents' seed stream from the deals' ("agent" in ASCII).
AGENT_STREAM = 0x6167656E74


@nb.njit(cache=True)
def _seeds(master, index):
    out = np.empty(index.shape[0], np.int64)
    for i in range(index.shape[0]):
        out[i] = game_seed(master, index[i])
    return out


def rotations_of(lineup: tuple[int, ...], rotate: bool) -> tuple[tuple[int, ...], ...]:
    """The distinct seat assignments (agent index per seat) a run cycles through."""
    n = len(lineup)
    if not rotate:
        return (tuple(lineup),)
    seen: list[tuple[int, ...]] = []
    for r in range(n):
        rot = tuple(lineup[(p + r) % n] for p in range(n))
        if rot not in seen:
            seen.append(rot)
    return tuple(seen)


@dataclass(frozen=True)
class Plan:
    games: int
    players: int
    master_seed: int
    rotations: tuple[tuple[int, ...], ...]

    @classmethod
    def from_config(cls, cfg) -> Plan:
        """The plan of a checked config (whose games fill whole rotations: config.py checks it)."""
        return cls(
            cfg.games, cfg.players, cfg.seed, rotations_of(cfg.lineup, cfg.seats == "rotate")
        )

    @property
    def n_rotations(self) -> int:
        return len(self.rotations)

    def games_of(self, start: int, stop: int) -> dict[str, np.ndarray]:
        """Per-game arrays of games ``start .. stop-1``: index, deal,
        rotation, seeds, seat agents."""
        idx = np.arange(start, stop, dtype=np.int64)
        deal = idx // self.n_rotations
        rot = idx % self.n_rotations
        table = np.asarray(self.rotations, np.int64)
        return {
            "game_index": idx,
            "deal": deal,
            "rotation": rot,
            "seed": _seeds(np.int64(self.master_seed), deal),
            "agent_seed": _seeds(hash64(np.int64(self.master_seed), np.int64(AGENT_STREAM)), idx),
            "seat_agent": table[rot],
        }


def missing_ranges(done: list[tuple[int, int]], total: int) -> list[tuple[int, int]]:
    """The ranges of ``0 .. total-1`` not covered by the (non-overlapping) ``done`` ranges."""
    out = []
    pos = 0
    for a, b in sorted(done):
        if a > pos:
            out.append((pos, min(a, total)))
        pos = max(pos, b)
        if pos >= total:
            break
    if pos < total:
        out.append((pos, total))
    return [(a, b) for a, b in out if b > a]


def chunk_ranges(ranges: list[tuple[int, int]], chunk_size: int) -> list[tuple[int, int]]:
    """Split ranges into chunks of at most ``chunk_size`` games, aligned to multiples of it."""
    out = []
    for a, b in ranges:
        pos = a
        while pos < b:
            end = min(b, (pos // chunk_size + 1) * chunk_size)
            out.append((pos, end))
            pos = end
    return out


def auto_chunk_size(games: int, workers: int) -> int:
    """Enough chunks for progress, load balance and little lost work;
    few enough for low overhead."""
    return int(min(25_000, max(200, -(-games // (8 * max(1, workers))))))
