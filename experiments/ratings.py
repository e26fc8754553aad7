"""Ratings of a tournament's agents with intervals, the pairwise win matrix, time per decision.

**Model.**  Each game's ranks are broken into pairwise comparisons between the seats of
different agents (every pair of seats: the better rank wins, a shared rank is half a win each;
"full rank breaking"), and a Bradley-Terry model, P(i beats j) = p_i / (p_i + p_j), is fitted
to the counts.  For 2 players this is Bradley-Terry itself; for 3-5 players full rank breaking
gives a consistent estimate of the Plackett-Luce strengths of the ranks (Azari Soufiani, Chen,
Parkes and Xia, "Computing parametric ranking models via rank-breaking", ICML 2014) and, unlike
Plackett-Luce's own likelihood, takes tied ranks as they come.  The fit is choix's
``ilsr_pairwise_dense`` (Maystre and Grossglauser 2015) on the count matrix; every pair of
agents that met also gets one virtual tie (half a win each way), a weak prior that keeps the
rating of an agent that never lost finite.  Ratings are on an Elo-like scale,
``400 log10(p_i)`` (a 400-point gap: 10 to 1 odds), centred on the pool's mean or anchored on
one agent (0).

**Intervals.**  95% percentile intervals from a bootstrap over deals: deals are drawn with
replacement (every lineup and rotation of a drawn deal comes with it, since they share its
cards), the counts summed, and the model fitted again; the bootstrap fits use a vectorised
minorisation-maximisation fit (Hunter 2004, :func:`mm_fit`) that the tests check against
choix.  The same bootstrap gives intervals of rating differences (:meth:`Ratings.difference`).

The per-deal counts are one DuckDB query over the lineups' Parquet parts
(:class:`experiments.analysis.Results` with every lineup folder attached), so only
``deals x agents x agents`` numbers reach Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from experiments.analysis import CONFIDENCE, Results, wilson

ELO = 400.0 / math.log(10.0)  # natural-log strength -> Elo points
PRIOR_TIE = 0.5  # virtual wins each way between two agents that met
BOOTSTRAP = 1000
MM_TOL = 1e-10
MM_MAX_ITER = 10_000


# --------------------------------------------------------------------------- fitting


def _with_prior(wins: np.ndarray) -> np.ndarray:
    w = np.asarray(wins, np.float64)
    met = (w + np.swapaxes(w, -1, -2)) > 0
    return w + PRIOR_TIE * met


def bt_fit(wins: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-strengths (mean 0) from ``wins[i, j]`` = wins of i over j (fractional),
    with the virtual tie prior; choix's ILSR."""
    import choix

    w = _with_prior(wins)
    return np.asarray(choix.ilsr_pairwise_dense(w, alpha=0.0, tol=1e-12, max_iter=10_000), np.float64)


def mm_fit(wins: np.ndarray, tol: float = MM_TOL, max_iter: int = MM_MAX_ITER) -> np.ndarray:
    """The same fit by Hunter's MM iteration, vectorised over leading axes (``wins[..., K, K]``):
    ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``.  Returns log-strengths with mean 0 per fit."""
    w = _with_prior(wins)
    n = w + np.swapaxes(w, -1, -2)
    total = w.sum(axis=-1)
    p = np.ones(w.shape[:-1])
    for _ in range(max_iter):
        denom = (n / (p[..., :, None] + p[..., None, :])).sum(axis=-1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1.0), p)
        new = new / np.exp(np.log(new).mean(axis=-1, keepdims=True))
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    theta = np.log(p)
    return theta - theta.mean(axis=-1, keepdims=True)


# --------------------------------------------------------------------------- data


def per_deal_counts(res: Results, view: str, agents: Sequence[str], where: str | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(deals, wins[d, i, j], comparisons[d, i, j]) of the pairwise comparisons in ``view``
    (rows of one game and seat, with a ``lineup`` column), per deal."""
    cond = f"AND a.{where} " if where else ""
    t = res.sql(
        f"SELECT a.deal AS deal, a.agent AS i, b.agent AS j, "
        f"sum(CASE WHEN a.rank < b.rank THEN 1.0 WHEN a.rank = b.rank THEN 0.5 ELSE 0.0 END) AS w, "
        f"count(*) AS n FROM {view} a JOIN {view} b ON a.lineup = b.lineup AND a.game_index = b.game_index "
        f"AND a.seat <> b.seat AND a.agent <> b.agent {cond}GROUP BY ALL")
    index = {a: k for k, a in enumerate(agents)}
    deals = np.unique(t["deal"].to_numpy()) if len(t) else np.zeros(0, np.int64)
    d_index = {d: k for k, d in enumerate(deals)}
    k = len(agents)
    wins = np.zeros((len(deals), k, k))
    comps = np.zeros((len(deals), k, k))
    for d, i, j, w, n in zip(t["deal"], t["i"].astype(str), t["j"].astype(str), t["w"], t["n"]):
        if i in index and j in index:
            wins[d_index[d], index[i], index[j]] += w
            comps[d_index[d], index[i], index[j]] += n
    return deals, wins, comps


@dataclass
class Ratings:
    """Ratings of ``agents`` (Elo-like scale), their bootstrap samples and intervals."""

    agents: list[str]
    rating: np.ndarray  # [K]
    samples: np.ndarray  # [B, K]
    low: np.ndarray
    high: np.ndarray
    deals: int
    wins: np.ndarray  # [K, K] summed over deals
    comparisons: np.ndarray  # [K, K]
    anchor: str | None = None
    confidence: float = CONFIDENCE

    def difference(self, a: str, b: str) -> tuple[float, float, float]:
        """Rating of ``a`` minus that of ``b``, and the bootstrap interval of the difference."""
        i, j = self.agents.index(a), self.agents.index(b)
        d = self.samples[:, i] - self.samples[:, j]
        q = (1 - self.confidence) / 2
        return float(self.rating[i] - self.rating[j]), float(np.quantile(d, q)), float(np.quantile(d, 1 - q))

    def table(self) -> pd.DataFrame:
        return pd.DataFrame({"agent": self.agents, "rating": self.rating, "ci_low": self.low, "ci_high": self.high})

    def win_matrix(self) -> pd.DataFrame:
        """Long table of every ordered pair: comparisons n, wins of the row agent, rate, Wilson interval."""
        rows = []
        for i, a in enumerate(self.agents):
            for j, b in enumerate(self.agents):
                n = int(round(self.comparisons[i, j]))
                if i == j or n == 0:
                    continue
                w = float(self.wins[i, j])
                lo, hi = wilson(w, n)
                rows.append({"agent": a, "opponent": b, "n": n, "wins": w, "win_rate": w / n, "ci_low": lo,
                             "ci_high": hi})
        return pd.DataFrame(rows, columns=["agent", "opponent", "n", "wins", "win_rate", "ci_low", "ci_high"])


def fit_ratings(wins_by_deal: np.ndarray, comps_by_deal: np.ndarray, agents: Sequence[str], *,
                bootstrap: int = BOOTSTRAP, seed: int = 0, anchor: str | None = None,
                confidence: float = CONFIDENCE) -> Ratings:
    """Ratings from per-deal pairwise counts ``[D, K, K]``, bootstrapped over the ``D`` deals."""
    agents = list(agents)
    D = wins_by_deal.shape[0]
    if D == 0:
        raise ValueError("no comparisons between different agents: nothing to rate")
    w = wins_by_deal.sum(axis=0)
    theta = bt_fit(w)
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, len(agents)))
    batch = max(1, 2_000_000 // max(1, D * len(agents) ** 2))
    flat = wins_by_deal.reshape(D, -1)
    for start in range(0, bootstrap, batch):
        b = min(batch, bootstrap - start)
        counts = rng.multinomial(D, np.full(D, 1.0 / D), size=b).astype(np.float64)  # deals drawn, per resample
        wb = (counts @ flat).reshape(b, len(agents), len(agents))
        samples[start:start + b] = mm_fit(wb)
    rating, samples = theta * ELO, samples * ELO
    if anchor is not None:
        a = agents.index(anchor)
        rating = rating - rating[a]
        samples = samples - samples[:, [a]]
    q = (1 - confidence) / 2
    low, high = np.quantile(samples, q, axis=0), np.quantile(samples, 1 - q, axis=0)
    return Ratings(agents, rating, samples, low, high, D, w, comps_by_deal.sum(axis=0), anchor, confidence)


# --------------------------------------------------------------------------- a tournament's results


class TournamentResults(Results):
    """The results of every lineup of a tournament as one view ``games`` (with a ``lineup`` column),
    plus ``results`` (the first lineup's, from :class:`Results`)."""

    def __init__(self, folders: Sequence[str | Path], **kw):
        folders = [Path(f) for f in folders]
        super().__init__(folders[0], **kw)
        parts = []
        for k, f in enumerate(folders):
            if not any((f / "data").glob("game=*/part-*.parquet")):
                continue  # a lineup not played yet
            self.attach(f"lineup_{k}", f)
            parts.append(f"SELECT {k} AS lineup, * FROM {_q(f'lineup_{k}')}")
        self.con.execute("CREATE OR REPLACE VIEW games AS " + " UNION ALL BY NAME ".join(parts))
        self.game_columns = [r[0] for r in self.con.execute("DESCRIBE games").fetchall()]

    def agent_time(self, where: str | None = None) -> pd.DataFrame:
        """Per agent: decisions, total agent time and mean ms per decision (NaN where not measured)."""
        w = f"WHERE {where}" if where else ""
        if "agent_ms" not in self.game_columns:
            t = self.sql(f"SELECT agent, count(*) AS rows FROM games {w} GROUP BY agent")
            t["decisions"], t["agent_ms"], t["ms_per_decision"] = 0, math.nan, math.nan
            return t
        t = self.sql(f"SELECT agent, count(*) AS rows, sum(decisions) AS decisions, sum(agent_ms) AS agent_ms, "
                     f"count(agent_ms) AS timed FROM games {w} GROUP BY agent")
        t["ms_per_decision"] = [a / d if (d and timed) else math.nan
                                for a, d, timed in zip(t["agent_ms"], t["decisions"], t["timed"])]
        return t

    def agent_rates(self, where: str | None = None) -> pd.DataFrame:
        """Per agent: seats played (n), win shares, win rate and Wilson interval, mean rank."""
        w = f"WHERE {where}" if where else ""
        t = self.sql(f"SELECT agent, count(*) AS n, sum(win) AS wins, avg(rank) AS mean_rank FROM games {w} "
                     "GROUP BY agent")
        t["win_rate"] = t["wins"] / t["n"]
        ci = [wilson(a, int(b)) for a, b in zip(t["wins"], t["n"])]
        t["ci_low"], t["ci_high"] = [c[0] for c in ci], [c[1] for c in ci]
        return t

    def ratings(self, agents: Sequence[str], players: int | None = None, **kw) -> Ratings:
        where = f"players = {int(players)}" if players is not None else None
        _, wins, comps = per_deal_counts(self, "games", agents, where)
        return fit_ratings(wins, comps, agents, **kw)


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
