"""Gating: does a new network beat the best so far (and the heuristic)?  A paired match on shared
deals, played by the runner like any run.

The candidate sits in one seat against ``n - 1`` copies of the opponent, rotated through every
seat on each deal (the deal's seed shared by all rotations and by every match of the
generation).  Its win share per deal is the mean over the rotations; parity is ``1 / n``.  The
interval is a 95% bootstrap over deals (:func:`bootstrap_interval`); the candidate passes when
the whole interval lies above parity.

With more than two players a lone seat can do well against copies of an opponent that is the
stronger player among equals (copies of one policy may get in each other's way), so the gate
also plays the other way round (``both_ways``): the opponent alone against ``n - 1`` copies of
the candidate, on the same deals.  The candidate then passes when the per-deal difference of
the two lone seats' win shares (the candidate's alone minus the opponent's alone; 0 between
equals) has a 95% bootstrap interval above 0.
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


def lone_shares(output: Path, agent: str) -> np.ndarray:
    """``agent``'s mean win share per deal (ordered by deal) in a match's results folder."""
    from experiments.analysis.results import Results

    with Results(output) as res:
        t = res.sql(
            "SELECT deal, avg(win) AS share FROM results WHERE agent = ? "
            "GROUP BY deal ORDER BY deal",
            [agent],
        )
    return t["share"].to_numpy(np.float64)


def both_ways_result(
    candidate_alone: np.ndarray, opponent_alone: np.ndarray, seed: int
) -> dict[str, Any]:
    """The two lone seats' per-deal difference (candidate alone minus opponent alone), its 95%
    bootstrap interval over deals, and whether it lies above 0."""
    if candidate_alone.shape != opponent_alone.shape:
        raise ValueError("the two matches of a gate must cover the same deals")
    diff = candidate_alone - opponent_alone
    lo, hi = bootstrap_interval(diff, seed + 1)
    olo, ohi = bootstrap_interval(opponent_alone, seed + 2)
    return {
        "opponent_alone": float(opponent_alone.mean()),
        "opponent_low": olo,
        "opponent_high": ohi,
        "difference": float(diff.mean()),
        "difference_low": lo,
        "difference_high": hi,
        "passed": bool(lo > 0),
    }


def match_result(output: Path, candidate: str, players: int, seed: int) -> dict[str, Any]:
    """The candidate's mean win share per deal, its interval and whether it clears parity."""
    per_deal = lone_shares(output, candidate)
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
