"""Statistics of a study: per-cell rates, paired effects against a baseline, design metrics,
and the intervals of the stopping rule -- all streamed aggregates over the cells' Parquet
(:class:`experiments.analysis.results.Results`, one DuckDB connection with a view per cell).

**The unit is the deal.**  Every cell plays the same deal indices with the same seeds, and the
rotations of one deal (mirrored seats) are correlated, so each statistic is first averaged per
deal (``x_d``), and intervals are t intervals over deals: ``mean(x) +- t * sd(x) / sqrt(D)``.

**Paired effects.**  The effect of cell ``c`` against the baseline ``b`` is the mean of the
per-deal differences ``x_d(c) - x_d(b)`` of the advantage (win rate - 1/players) over the
deals both played (one SQL join on
``deal``); the unpaired interval of the same difference uses ``sqrt(var_c/D_c + var_b/D_b)``.
Their width ratio is reported as measured: below 1 when shared deals make the cells'
outcomes correlated (common random numbers).  Agents are compared the same way inside one
cell: the mirrored rotations of a deal give every agent the same deal from every seat.

**Stopping at a precision** (:func:`key_intervals`).  With ``[stop]``, the study looks at its
key intervals after each batch, at most ``K = ceil(max_games / batch)`` times, a number fixed
before the first game.  Each look uses level ``1 - alpha / K`` (a pre-set, uniform
alpha-spending schedule, i.e. Bonferroni over the planned looks), so by the union bound the
probability that a key interval misses its true value at *any* look, and therefore at the look
where the study stops, is at most ``alpha``: the intervals reported at the stop are valid
whatever the stopping rule.  The price is width: ``z_{alpha/(2K)}`` instead of ``z_{alpha/2}``
(2.81 against 1.96 for K = 10).  The coverage is checked by simulation in
tests/test_study_stats.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from experiments.analysis.results import Results, quote_ident


def t_half_width(var: float, n: int, alpha: float) -> float:
    """Half-width of a two-sided t interval of a mean at level ``1 - alpha``."""
    from scipy.stats import t

    if n < 2 or not np.isfinite(var):
        return math.nan
    return float(t.ppf(1 - alpha / 2, n - 1) * math.sqrt(max(var, 0.0) / n))


def t_p_value(d: int, mean: float, var: float) -> float:
    """Two-sided p-value of the paired t test of mean 0 over ``d`` deals."""
    from scipy.stats import t

    if d < 2 or not np.isfinite(mean):
        return math.nan
    if not var > 0:
        return 1.0 if mean == 0 else 0.0
    return float(2 * t.sf(abs(mean) / math.sqrt(var / d), d - 1))


def adjusted_p_values(p: np.ndarray, method: str = "bh", alpha: float = 0.05) -> np.ndarray:
    """The family's p-values adjusted for their number: Benjamini-Hochberg (``"bh"``,
    ``scipy.stats.false_discovery_control``) or Holm's step-down (``"holm"``, statsmodels'
    ``multipletests`` at ``alpha``); NaN p-values stay NaN and do not count in the family."""
    p = np.asarray(p, float)
    ok = np.isfinite(p)
    adj = np.full(len(p), math.nan)
    if ok.any() and method == "holm":
        from statsmodels.stats.multitest import multipletests

        adj[ok] = multipletests(p[ok], alpha=alpha, method="holm")[1]
    elif ok.any():
        from scipy.stats import false_discovery_control

        adj[ok] = false_discovery_control(p[ok], method="bh")
    return adj


def look_alpha(alpha: float, looks: int) -> float:
    """The level each of ``looks`` pre-set interim analyses spends (uniform alpha spending)."""
    return alpha / max(1, looks)


def sequential_estimate(
    x: np.ndarray, batch: int, max_n: int, precision: float, alpha: float
) -> dict[str, float]:
    """The stopping rule on one stream of per-deal values ``x`` (the study's procedure for one
    key interval): look after every ``batch`` values, stop when the half-width at level
    ``1 - alpha/K`` is at most ``precision`` or at ``max_n``.  Returns the estimate, its interval,
    the number of values used and the look it stopped at."""
    looks = math.ceil(max_n / batch)
    a = look_alpha(alpha, looks)
    for k in range(1, looks + 1):
        n = min(k * batch, max_n, len(x))
        xs = x[:n]
        m, hw = float(xs.mean()), t_half_width(float(xs.var(ddof=1)), n, a)
        if hw <= precision or n >= max_n or n >= len(x):
            return {"mean": m, "low": m - hw, "high": m + hw, "n": n, "look": k, "half_width": hw}
    raise AssertionError("unreachable")


# --------------------------------------------------------------------------- opening the cells


def open_cells(cells: Sequence, baseline: int = 0) -> Results:
    """One :class:`Results` over the baseline cell, with every cell as the view ``cell<i>``."""
    res = Results(cells[baseline].folder)
    for c in cells:
        res.attach(f"cell{c.index}", c.folder)
    return res


def _group_expr(key: str) -> str:
    return {"seat": "CAST(seat AS INTEGER)", "agent": "CAST(agent AS VARCHAR)"}[key]


# A seat's (or agent's) advantage: its win rate minus the fair share 1/players, comparable across
# player counts (effects between cells of different player counts are differences of advantages).
ADVANTAGE = "avg(win) - 1.0 / any_value(players)"


def deal_stats(
    res: Results, view: str, key: str, games: int, extra_where: str = "", advantage: bool = False
) -> pd.DataFrame:
    """Per group of ``key``: D (deals), mean and variance of the per-deal
    win rate (or advantage)."""
    g = _group_expr(key)
    w = f"AND {extra_where}" if extra_where else ""
    x = ADVANTAGE if advantage else "avg(win)"
    return res.sql(
        f"SELECT grp, count(*) AS d, avg(x) AS mean, var_samp(x) AS var FROM ("
        f" SELECT deal, {g} AS grp, {x} AS x FROM {quote_ident(view)}"
        f" WHERE game_index < {int(games)} {w}"
        f" GROUP BY deal, grp) GROUP BY grp ORDER BY grp"
    )


def paired_stats(
    res: Results, view: str, base: str, key: str, games: int, base_games: int
) -> pd.DataFrame:
    """Per group: D (deals in both), mean and variance of the per-deal difference of advantages
    (win rate - 1/players) ``view - base``, one join on ``deal``."""
    g = _group_expr(key)
    return res.sql(
        f"WITH a AS (SELECT deal, {g} AS grp, {ADVANTAGE} AS x FROM {quote_ident(view)} "
        f"WHERE game_index < {int(games)} "
        f"           GROUP BY deal, grp),"
        f" b AS (SELECT deal, {g} AS grp, {ADVANTAGE} AS x FROM {quote_ident(base)} "
        f"WHERE game_index < {int(base_games)} "
        f"           GROUP BY deal, grp)"
        f" SELECT grp, count(*) AS d, avg(a.x - b.x) AS mean, var_samp(a.x - b.x) AS var "
        f" FROM a JOIN b USING (deal, grp) GROUP BY grp ORDER BY grp"
    )


def cell_rates(res: Results, cells: Sequence, key: str, alpha: float) -> pd.DataFrame:
    """Rows (cell, group, deals, games, win rate, interval) for every cell."""
    rows = []
    for c in cells:
        t = deal_stats(res, f"cell{c.index}", key, c.config.games)
        for r in t.itertuples():
            hw = t_half_width(r.var, int(r.d), alpha)
            rows.append(
                {
                    "cell": c.name,
                    "index": c.index,
                    "group": r.grp,
                    "deals": int(r.d),
                    "games": int(c.config.games),
                    "rate": r.mean,
                    "low": r.mean - hw,
                    "high": r.mean + hw,
                    "half_width": hw,
                    "var": r.var,
                }
            )
    return pd.DataFrame(rows)


def effects(res: Results, cells: Sequence, baseline: int, key: str, alpha: float) -> pd.DataFrame:
    """Each cell's paired effect on every group's advantage (win rate - 1/players; the plain win
    rate between cells of one player count) against the baseline cell, with the
    unpaired interval of the same difference and the measured width ratio paired / unpaired."""
    b = cells[baseline]
    bstats = deal_stats(res, f"cell{b.index}", key, b.config.games, advantage=True).set_index("grp")
    rows = []
    for c in cells:
        if c.index == b.index:
            continue
        p = paired_stats(
            res, f"cell{c.index}", f"cell{b.index}", key, c.config.games, b.config.games
        )
        cstats = deal_stats(res, f"cell{c.index}", key, c.config.games, advantage=True).set_index(
            "grp"
        )
        for r in p.itertuples():
            hw = t_half_width(r.var, int(r.d), alpha)
            ca, ba = cstats.loc[r.grp], bstats.loc[r.grp]
            diff = ca["mean"] - ba["mean"]
            se_u = math.sqrt(ca["var"] / ca["d"] + ba["var"] / ba["d"])
            from scipy.stats import norm

            hw_u = float(norm.ppf(1 - alpha / 2) * se_u)
            rows.append(
                {
                    "cell": c.name,
                    "index": c.index,
                    "group": r.grp,
                    "deals": int(r.d),
                    "effect": r.mean,
                    "low": r.mean - hw,
                    "high": r.mean + hw,
                    "half_width": hw,
                    "unpaired_effect": diff,
                    "unpaired_half_width": hw_u,
                    "width_ratio": hw / hw_u if hw_u > 0 else math.nan,
                }
            )
    return pd.DataFrame(rows)


def tier_effects(res: Results, study, cells: Sequence, alpha: float) -> pd.DataFrame:
    """:func:`effects` of every tier against its own baseline cell, one frame (a study without
    tiers: its one set of effects)."""
    parts = [
        effects(res, cs, study.baseline, study.key, alpha)
        for _, cs in study.tier_groups(cells)
        if len(cs) > 1
    ]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def key_intervals(study, cells: Sequence, look: int) -> dict[str, Any]:
    """The widest key interval (every cell's key-group win rates and their paired effects against
    the baseline) at look ``look``, each at the look's level ``1 - alpha / K``."""
    alpha = look_alpha(1 - study.confidence, study.stop.looks if study.stop else 1)
    with open_cells(cells, study.baseline) as res:
        rates = cell_rates(res, cells, study.key, alpha)
        eff = tier_effects(res, study, cells, alpha)
    worst, widest = "", 0.0
    for t, what in ((rates, "rate"), (eff, "effect")):
        for r in t.itertuples() if len(t) else []:
            hw = r.half_width if np.isfinite(r.half_width) else math.inf
            if hw > widest:
                widest, worst = hw, f"{what} of {study.key} {r.group} in {r.cell}"
    return {"alpha": alpha, "max_half_width": widest, "worst": worst}


# --------------------------------------------------------------------------- design metrics


def _mean_ci(d: int, mean: float, var: float, alpha: float) -> dict[str, float]:
    hw = t_half_width(var, d, alpha)
    return {"n": d, "value": mean, "low": mean - hw, "high": mean + hw}


def design_metrics(
    res: Results, view: str, players: int, games: int, alpha: float
) -> dict[str, dict[str, float]]:
    """Game-design metrics of one cell, each ``{n, value, low, high}`` (n = deals; intervals over
    deals):

    - ``seat_gap``: the largest seat gap, win rate of the best minus the worst seat, interval from
      their per-deal paired difference (the two seats are chosen from the data: the interval is of
      that difference, not of the maximum over all pairs);
    - ``seat_chi2_p``: p-value of the chi-square test of equal wins per seat (n = games);
    - ``tie_rate``: games whose win is shared by tied seats;
    - ``no_winner_rate``: games won by no seat (a non-player side, e.g. Eternal Dynasty's Eternal
      Emperor);
    - ``margin``: the winner's margin, best score minus the second best;
    - ``length``: decisions per game;
    - ``lead_changes``: changes of the sole provisional leader per game, over the score trace (the
      round ends and the final result; agents/trace.py; runs with ``score_trace``);
    - ``decided_share``: how late the winner is decided: the share of the trace's steps passed
      before the eventual sole winner leads for good, ``(decided_at - 1) / (trace_points - 1)`` (0:
      it led alone from the first round's end, 1: only the final scoring made it the leader), over
      games with a sole winner;
    - ``skill_gap``: with different agents in the cell, the best agent's win rate minus the worst's
      (per-deal paired over the mirrored rotations).
    """
    from scipy.stats import chisquare

    v, w = quote_ident(view), f"game_index < {int(games)}"
    out: dict[str, dict[str, float]] = {}
    seats = deal_stats(res, view, "seat", games)
    if len(seats) >= 2:
        hi, lo = seats.loc[seats["mean"].idxmax(), "grp"], seats.loc[seats["mean"].idxmin(), "grp"]
        d, m, var = res.con.execute(
            f"SELECT count(*), avg(x), var_samp(x) FROM (SELECT deal, "
            f"avg(win) FILTER (WHERE seat = {int(hi)}) "
            f"- avg(win) FILTER (WHERE seat = {int(lo)}) AS x FROM {v} WHERE {w} GROUP BY deal)"
        ).fetchone()
        out["seat_gap"] = {
            **_mean_ci(int(d), m, var, alpha),
            "best_seat": int(hi),
            "worst_seat": int(lo),
        }
        wins = res.sql(
            f"SELECT seat, sum(win) AS w FROM {v} WHERE {w} GROUP BY seat ORDER BY seat"
        )["w"].to_numpy()
        obs = np.round(wins)
        out["seat_chi2_p"] = {
            "n": int(obs.sum()),
            "value": float(chisquare(obs).pvalue) if obs.sum() else math.nan,
            "low": math.nan,
            "high": math.nan,
        }
    row = res.con.execute(
        f"WITH g AS (SELECT deal, game_index, max(win) AS top, sum(win) AS total, "
        f"any_value(length) AS len, "
        f"           list_sort(list(score), 'DESC') AS s FROM {v} WHERE {w} "
        f"GROUP BY deal, game_index),"
        f" per AS (SELECT deal, "
        f"avg(CASE WHEN top < 1 AND total > 0.5 THEN 1.0 ELSE 0.0 END) AS tie, "
        f"         avg(CASE WHEN total < 0.5 THEN 1.0 ELSE 0.0 END) AS side, avg(len) AS len, "
        f"         avg(CASE WHEN len(s) >= 2 THEN s[1] - s[2] END) AS margin FROM g GROUP BY deal)"
        f" SELECT count(*), avg(tie), var_samp(tie), avg(side), var_samp(side), "
        f"avg(len), var_samp(len), "
        f" avg(margin), var_samp(margin) FROM per"
    ).fetchone()
    d = int(row[0])
    for i, name in enumerate(("tie_rate", "no_winner_rate", "length", "margin")):
        out[name] = _mean_ci(d, row[1 + 2 * i], row[2 + 2 * i], alpha)
    if "trace_points" in {
        r[0] for r in res.con.execute(f"DESCRIBE {v}").fetchall()
    }:  # results written before the score trace lack it
        row = res.con.execute(
            f"WITH g AS (SELECT deal, game_index, any_value(lead_changes) AS lc, "
            f"any_value(decided_at) AS da, "
            f"           any_value(trace_points) AS tp FROM {v} WHERE {w} AND trace_points > 0 "
            f"GROUP BY deal, game_index),"
            f" per AS (SELECT deal, avg(lc) AS lc, "
            f"avg(CASE WHEN da > 0 AND tp > 1 THEN (da - 1.0) / (tp - 1) END) AS ds "
            f"         FROM g GROUP BY deal)"
            f" SELECT count(lc), avg(lc), var_samp(lc), count(ds), avg(ds), var_samp(ds) FROM per"
        ).fetchone()
        if row[0]:  # a run with score_trace = false has none
            out["lead_changes"] = _mean_ci(int(row[0]), row[1], row[2], alpha)
        if row[3]:
            out["decided_share"] = _mean_ci(int(row[3]), row[4], row[5], alpha)
    agents = deal_stats(res, view, "agent", games)
    if len(agents) >= 2:
        hi, lo = (
            agents.loc[agents["mean"].idxmax(), "grp"],
            agents.loc[agents["mean"].idxmin(), "grp"],
        )
        d, m, var = res.con.execute(
            f"SELECT count(*), avg(x), var_samp(x) FROM (SELECT deal, "
            f"avg(win) FILTER (WHERE CAST(agent AS VARCHAR) = ?) "
            f"- avg(win) FILTER (WHERE CAST(agent AS VARCHAR) = ?) AS x FROM {v} WHERE {w} "
            f"GROUP BY deal)",
            [hi, lo],
        ).fetchone()
        out["skill_gap"] = {**_mean_ci(int(d), m, var, alpha), "best_agent": hi, "worst_agent": lo}
    return out


def agent_edge(res: Results, view: str, label: str, games: int, alpha: float) -> dict[str, float]:
    """One agent's edge: its win rate minus the other agents' (their rows pooled), per deal over the
    mirrored rotations, with a t interval over deals (``dynasty tune``'s ``agent_edge``)."""
    v, w = quote_ident(view), f"game_index < {int(games)}"
    d, m, var = res.con.execute(
        f"SELECT count(x), avg(x), var_samp(x) FROM (SELECT deal, "
        f"avg(win) FILTER (WHERE CAST(agent AS VARCHAR) = ?) "
        f"- avg(win) FILTER (WHERE CAST(agent AS VARCHAR) <> ?) AS x FROM {v} WHERE {w} "
        f"GROUP BY deal)",
        [label, label],
    ).fetchone()
    return {**_mean_ci(int(d), m, var, alpha), "agent": label}


METRIC_DOCS = {
    "seat_gap": "largest seat gap (best seat's win rate - worst seat's)",
    "seat_chi2_p": "chi-square p, equal wins per seat",
    "tie_rate": "share of games with tied winners",
    "no_winner_rate": "share of games no seat won",
    "margin": "winner's margin (best score - second best)",
    "length": "decisions per game",
    "lead_changes": "changes of the provisional leader per game",
    "decided_share": "share of the game before the winner "
    "leads for good (0 early, 1 at the final scoring)",
    "skill_gap": "skill gap (best agent's win rate - worst agent's)",
    "agent_edge": "the tuned agent's win rate - the other agents'",
}
