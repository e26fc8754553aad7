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

**Fixed ratings** (``fit_ratings(..., fixed={agent: rating})``, a gauntlet's anchor table):
the named agents' log-strengths are held at the given values and only the others are fitted,
by the same MM iteration restricted to the free agents (:func:`mm_fit` with ``fixed``; each
update still raises the likelihood, since Hunter's minorizer separates over agents).  The
model is invariant to a common shift, so one fixed agent gives exactly the unconstrained fit
shifted to its value; with several, the free agents are placed on the scale they define.  The
bootstrap holds them fixed too, so a free agent's interval is conditional on the fixed values
(the uncertainty of the tournament that measured them is not carried over).

**Intervals.**  95% percentile intervals from a bootstrap over deals: deals are drawn with
replacement (every lineup and rotation of a drawn deal comes with it, since they share its
cards), the counts summed, and the model fitted again; the bootstrap fits use a vectorised
minorisation-maximisation fit (Hunter 2004, :func:`mm_fit`) that the tests check against
choix.  The same bootstrap gives intervals of rating differences (:meth:`Ratings.difference`).

**alpha-Rank** (optional: OpenSpiel's ``open_spiel.python.egt.alpharank``, the ``alpharank`` or
``dev`` extra; Omidshafiei et al., "alpha-Rank: Multi-Agent Evaluation by Evolution", Scientific
Reports 2019).  The meta-game is the constant-sum matrix of win shares, payoff of i against j =
share of the comparisons between i and j that i won (:func:`payoff_matrix`; 0.5 on the diagonal
and between agents that never met), ranked in its single-population form with OpenSpiel's
population size m = 50 and the alpha of OpenSpiel's sweep (``sweep_pi_vs_alpha``: alpha doubled
from 1e-4 until the stationary distribution stops changing, the large-alpha regime the paper
recommends).  Intervals: the stationary distribution of every bootstrap resample of the win
matrix (the ratings' own resamples, kept in :attr:`Ratings.win_samples`) at that same alpha, and
its percentiles (:func:`alpha_rank`, :meth:`Ratings.alpha_rank`).

The per-deal counts are one DuckDB query over the lineups' Parquet parts
(:class:`experiments.analysis.results.Results` with every lineup folder attached), so only
``deals x agents x agents`` numbers reach Python.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.analysis.results import CONFIDENCE, Results, wilson

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
    return np.asarray(
        choix.ilsr_pairwise_dense(w, alpha=0.0, tol=1e-12, max_iter=10_000), np.float64
    )


def mm_fit(
    wins: np.ndarray,
    tol: float = MM_TOL,
    max_iter: int = MM_MAX_ITER,
    fixed: np.ndarray | None = None,
) -> np.ndarray:
    """The same fit by Hunter's MM iteration, vectorised over leading axes (``wins[..., K, K]``):
    ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``.  Returns log-strengths with mean 0 per fit.

    ``fixed[K]``: log-strengths to hold (NaN: fitted); with any held, only the others are
    updated and the result is not re-centred."""
    w = _with_prior(wins)
    n = w + np.swapaxes(w, -1, -2)
    total = w.sum(axis=-1)
    p = np.ones(w.shape[:-1])
    held = np.zeros(w.shape[-1], bool) if fixed is None else np.isfinite(fixed)
    if held.any():
        p = np.where(held, np.exp(np.where(held, fixed, 0.0)), p)
    for _ in range(max_iter):
        denom = (n / (p[..., :, None] + p[..., None, :])).sum(axis=-1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1.0), p)
        if held.any():
            new = np.where(held, p, new)
        else:
            new = new / np.exp(np.log(new).mean(axis=-1, keepdims=True))
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    theta = np.log(p)
    return theta if held.any() else theta - theta.mean(axis=-1, keepdims=True)


# --------------------------------------------------------------------------- data


def per_deal_counts(
    res: Results, view: str, agents: Sequence[str], where: str | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(deals, wins[d, i, j], comparisons[d, i, j]) of the pairwise comparisons in ``view``
    (rows of one game and seat, with a ``lineup`` column), per deal."""
    # the join reads only the columns it needs: a view over many lineups' results holds every
    # feature column, and a join over all of them outgrows the connection's memory limit
    cond = f"WHERE {where} " if where else ""
    t = res.sql(
        f"WITH g AS (SELECT lineup, game_index, deal, seat, agent, rank FROM {view} {cond}) "
        f"SELECT a.deal AS deal, a.agent AS i, b.agent AS j, "
        f"sum(CASE WHEN a.rank < b.rank THEN 1.0 WHEN a.rank = b.rank THEN 0.5 ELSE 0.0 END) AS w, "
        f"count(*) AS n FROM g a JOIN g b "
        f"ON a.lineup = b.lineup AND a.game_index = b.game_index "
        f"AND a.seat <> b.seat AND a.agent <> b.agent GROUP BY ALL"
    )
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
    win_samples: np.ndarray | None = None  # [B, K, K]: the win matrix of each bootstrap resample
    fixed: dict[str, float] = field(default_factory=dict)  # held ratings (anchors)

    def alpha_rank(self, **kw) -> AlphaRank:
        """alpha-Rank of the pool from its win matrix, intervals from the same bootstrap resamples
        (:func:`alpha_rank`; needs OpenSpiel, see :func:`alpharank_missing`)."""
        return alpha_rank(
            self.wins, self.agents, win_samples=self.win_samples, confidence=self.confidence, **kw
        )

    def difference(self, a: str, b: str) -> tuple[float, float, float]:
        """Rating of ``a`` minus that of ``b``, and the bootstrap interval of the difference."""
        i, j = self.agents.index(a), self.agents.index(b)
        d = self.samples[:, i] - self.samples[:, j]
        q = (1 - self.confidence) / 2
        return (
            float(self.rating[i] - self.rating[j]),
            float(np.quantile(d, q)),
            float(np.quantile(d, 1 - q)),
        )

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"agent": self.agents, "rating": self.rating, "ci_low": self.low, "ci_high": self.high}
        )

    def win_matrix(self) -> pd.DataFrame:
        """Long table of every ordered pair: comparisons n, wins of the row agent,
        rate, Wilson interval."""
        rows = []
        for i, a in enumerate(self.agents):
            for j, b in enumerate(self.agents):
                n = int(round(self.comparisons[i, j]))
                if i == j or n == 0:
                    continue
                w = float(self.wins[i, j])
                lo, hi = wilson(w, n)
                rows.append(
                    {
                        "agent": a,
                        "opponent": b,
                        "n": n,
                        "wins": w,
                        "win_rate": w / n,
                        "ci_low": lo,
                        "ci_high": hi,
                    }
                )
        return pd.DataFrame(
            rows, columns=["agent", "opponent", "n", "wins", "win_rate", "ci_low", "ci_high"]
        )


def fit_ratings(
    wins_by_deal: np.ndarray,
    comps_by_deal: np.ndarray,
    agents: Sequence[str],
    *,
    bootstrap: int = BOOTSTRAP,
    seed: int = 0,
    anchor: str | None = None,
    confidence: float = CONFIDENCE,
    fixed: dict[str, float] | None = None,
) -> Ratings:
    """Ratings from per-deal pairwise counts ``[D, K, K]``, bootstrapped over the ``D`` deals.

    ``fixed``: ratings (Elo-like scale) held at the given values, the others fitted on their
    scale (an anchor table; not with ``anchor``)."""
    agents = list(agents)
    D = wins_by_deal.shape[0]
    if D == 0:
        raise ValueError("no comparisons between different agents: nothing to rate")
    fixed = {a: float(v) for a, v in (fixed or {}).items() if a in agents}
    if fixed and anchor is not None:
        raise ValueError("fixed ratings set the scale: no anchor with them")
    held = np.array([fixed.get(a, np.nan) for a in agents]) / ELO if fixed else None
    w = wins_by_deal.sum(axis=0)
    theta = bt_fit(w) if held is None else mm_fit(w, fixed=held)
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, len(agents)))
    win_samples = np.empty((bootstrap, len(agents), len(agents)))
    batch = max(1, 2_000_000 // max(1, D * len(agents) ** 2))
    flat = wins_by_deal.reshape(D, -1)
    for start in range(0, bootstrap, batch):
        b = min(batch, bootstrap - start)
        counts = rng.multinomial(D, np.full(D, 1.0 / D), size=b).astype(
            np.float64
        )  # deals drawn, per resample
        wb = (counts @ flat).reshape(b, len(agents), len(agents))
        samples[start : start + b] = mm_fit(wb, fixed=held)
        win_samples[start : start + b] = wb
    rating, samples = theta * ELO, samples * ELO
    for i, a in enumerate(agents):  # exactly the given values, not their round trip through exp
        if a in fixed:
            rating[i] = samples[:, i] = fixed[a]
    if anchor is not None:
        a = agents.index(anchor)
        rating = rating - rating[a]
        samples = samples - samples[:, [a]]
    q = (1 - confidence) / 2
    low, high = np.quantile(samples, q, axis=0), np.quantile(samples, 1 - q, axis=0)
    return Ratings(
        agents,
        rating,
        samples,
        low,
        high,
        D,
        w,
        comps_by_deal.sum(axis=0),
        anchor,
        confidence,
        win_samples,
        fixed,
    )


# --------------------------------------------------------------------------- alpha-Rank (optional)

# population size of alpha-Rank's Moran process: OpenSpiel's default, the paper's m
ALPHARANK_M = 50
ALPHARANK_EXTRA = (
    "alpha-Rank needs OpenSpiel and networkx, the `alpharank` "
    "extra (`pip install -e '.[alpharank]'`; also in `dev`)"
)


def _alpharank_module():
    from open_spiel.python.egt import alpharank  # the `alpharank` / `dev` extra; imports networkx

    return alpharank


def alpharank_missing() -> str | None:
    """None if alpha-Rank can be computed here, else one line: what to install, and why not."""
    try:
        _alpharank_module()
    except (ImportError, OSError) as e:
        return f"{ALPHARANK_EXTRA}; here: {e}"
    return None


def payoff_matrix(wins: np.ndarray) -> np.ndarray:
    """The constant-sum meta-game of win matrices ``wins[..., K, K]``: the share of the comparisons
    between i and j that i won, ``wins[i, j] / (wins[i, j] + wins[j, i])``; 0.5 on the diagonal and
    between agents that never met."""
    w = np.asarray(wins, np.float64)
    n = w + np.swapaxes(w, -1, -2)
    return np.where(n > 0, w / np.where(n > 0, n, 1.0), 0.5)


@dataclass
class AlphaRank:
    """alpha-Rank's stationary mass of each agent, at selection intensity ``alpha``, with the
    percentile interval over the bootstrap resamples (``samples`` empty: no interval)."""

    agents: list[str]
    mass: np.ndarray  # [K], sums to 1
    low: np.ndarray
    high: np.ndarray
    alpha: float
    m: int
    samples: np.ndarray  # [B, K]
    # resamples whose chain was numerically reducible at alpha: computed at alpha / 2^k
    lowered: int = 0
    confidence: float = CONFIDENCE

    def table(self) -> pd.DataFrame:
        """Agents by decreasing mass."""
        t = pd.DataFrame(
            {"agent": self.agents, "mass": self.mass, "ci_low": self.low, "ci_high": self.high}
        )
        return t.sort_values("mass", ascending=False, kind="stable").reset_index(drop=True)


def _stationary(ar, payoff: np.ndarray, alpha: float, m: int) -> np.ndarray:
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        # exp() of large alpha: 0 or inf, as meant
        pi = np.real(ar.compute([payoff], m=m, alpha=alpha)[2])
    if not np.all(np.isfinite(pi)):
        raise ValueError(f"alpha-Rank: no stationary distribution at alpha = {alpha:g}")
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def _settle(ar, payoff: np.ndarray, alpha: float, m: int) -> tuple[np.ndarray, float]:
    """The distribution at ``alpha``, or at the first of alpha/2, alpha/4, ... whose Markov chain is
    not numerically reducible (at very large alpha the chance of leaving a state underflows)."""
    for _ in range(60):
        try:
            return _stationary(ar, payoff, alpha, m), alpha
        except (ValueError, np.linalg.LinAlgError):
            alpha /= 2
    raise ValueError("alpha-Rank: no stationary distribution at any alpha tried")


def alpha_rank(
    wins: np.ndarray,
    agents: Sequence[str],
    *,
    win_samples: np.ndarray | None = None,
    alpha: float | None = None,
    m: int = ALPHARANK_M,
    confidence: float = CONFIDENCE,
) -> AlphaRank:
    """alpha-Rank (single population, OpenSpiel) of the meta-game ``payoff_matrix(wins)``.

    ``alpha`` None: OpenSpiel's ``sweep_pi_vs_alpha`` picks it (raised until the distribution stops
    changing).  ``win_samples[B, K, K]`` (the bootstrap resamples of the win matrix): each one's
    stationary distribution at the same alpha gives the percentile interval of every agent's mass.
    Raises ImportError without OpenSpiel (see :func:`alpharank_missing`)."""
    ar = _alpharank_module()
    agents = list(agents)
    payoff = payoff_matrix(wins)
    if alpha is None:
        try:
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                _, alpha = ar.sweep_pi_vs_alpha([payoff], m=m, return_alpha=True)
        except (
            ValueError,
            IndexError,
            np.linalg.LinAlgError,
        ) as e:
            # the sweep failed before it converged
            raise ValueError(f"alpha-Rank: OpenSpiel's sweep over alpha failed ({e})") from None
    mass, alpha = _settle(ar, payoff, float(alpha), m)
    k = len(agents)
    samples = np.empty((0, k))
    lowered = 0
    if win_samples is not None and len(win_samples):
        payoffs = payoff_matrix(win_samples)
        samples = np.empty((len(payoffs), k))
        for b, p in enumerate(payoffs):
            samples[b], used = _settle(ar, p, alpha, m)
            lowered += used < alpha
    if len(samples):
        q = (1 - confidence) / 2
        low, high = np.quantile(samples, q, axis=0), np.quantile(samples, 1 - q, axis=0)
    else:
        low = high = np.full(k, np.nan)
    return AlphaRank(agents, mass, low, high, float(alpha), m, samples, lowered, confidence)


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
        """Per agent: decisions, total agent time and mean ms per decision
        (NaN where not measured)."""
        w = f"WHERE {where}" if where else ""
        if "agent_ms" not in self.game_columns:
            t = self.sql(f"SELECT agent, count(*) AS rows FROM games {w} GROUP BY agent")
            t["decisions"], t["agent_ms"], t["ms_per_decision"] = 0, math.nan, math.nan
            return t
        t = self.sql(
            f"SELECT agent, count(*) AS rows, sum(decisions) AS decisions, "
            f"sum(agent_ms) AS agent_ms, count(agent_ms) AS timed FROM games {w} GROUP BY agent"
        )
        t["ms_per_decision"] = [
            a / d if (d and timed) else math.nan
            for a, d, timed in zip(t["agent_ms"], t["decisions"], t["timed"])
        ]
        return t

    def agent_rates(self, where: str | None = None) -> pd.DataFrame:
        """Per agent: seats played (n), win shares, win rate and Wilson interval, mean rank."""
        w = f"WHERE {where}" if where else ""
        t = self.sql(
            f"SELECT agent, count(*) AS n, sum(win) AS wins, avg(rank) AS mean_rank FROM games {w} "
            "GROUP BY agent"
        )
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
