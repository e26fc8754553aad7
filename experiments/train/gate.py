"""Gating: does a new network beat the best so far (and the heuristic)?  A paired match on shared
deals, played by the runner like any run.

The candidate sits in one seat against ``n - 1`` copies of the opponent, rotated through every
seat on each deal (the deal's seed shared by all rotations and by every match of the
generation).  Its win share per deal is the mean over the rotations; parity is ``1 / n``.  The
interval is a 95% bootstrap over deals (:func:`bootstrap_interval`); the candidate passes when
the whole interval lies above parity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

BOOTSTRAP = 2000
CONFIDENCE = 0.95


def match_config(
    game: str,
    players: int,
    options: dict,
    candidate: str,
    opponent: str,
    deals: int,
    seed: int,
    output: Path,
) -> dict[str, Any]:
    """The run config (a dict for experiments.run.config.from_dict) of a gating match."""
    return {
        "name": output.name,
        "game": game,
        "players": players,
        "options": dict(options),
        "agents": [candidate] + [opponent] * (players - 1),
        "seats": "rotate",
        "games": deals * players,
        "seed": seed,
        "output": str(output),
    }


def bootstrap_interval(per_deal: np.ndarray, seed: int) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean of ``per_deal`` (resampling deals)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(per_deal), (BOOTSTRAP, len(per_deal)))
    means = per_deal[idx].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return float(lo), float(hi)


def match_result(output: Path, candidate: str, players: int, seed: int) -> dict[str, Any]:
    """The candidate's mean win share per deal, its interval and whether it clears parity."""
    from experiments.analysis.results import Results

    with Results(output) as res:
        t = res.sql(
            "SELECT deal, avg(win) AS share FROM results WHERE agent = ? "
            "GROUP BY deal ORDER BY deal",
            [candidate],
        )
    per_deal = t["share"].to_numpy(np.float64)
    lo, hi = bootstrap_interval(per_deal, seed)
    parity = 1.0 / players
    return {
        "deals": len(per_deal),
        "win_share": float(per_deal.mean()),
        "low": lo,
        "high": hi,
        "parity": parity,
        "passed": bool(lo > parity),
    }
