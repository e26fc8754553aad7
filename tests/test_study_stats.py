"""Statistics of studies: the stopping rule's coverage under repeated looks, by simulation on a
game with a known answer (2-player Goofspiel with random players: seat 0 wins exactly half, by
symmetry), and the paired interval against a direct computation.  No Ray: the games are
played in-process through the runner's own chunk player.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.run.config import from_dict
from experiments.run.runner import ChunkContext, job_of
from experiments.study.stats import look_alpha, sequential_estimate, t_half_width


@pytest.fixture(scope="module")
def goofspiel_seat0():
    """Seat 0's win shares in 120,000 two-player Goofspiel games between
    random players (truth: 0.5)."""
    cfg = from_dict(
        {
            "game": "goofspiel",
            "players": 2,
            "agents": ["random"],
            "games": 120_000,
            "seed": 99,
            "output": "unused",
            "options": {"num_cards": 4},
        },
        "coverage",
    )
    chunk = ChunkContext(job_of(cfg)).play(0, cfg.games)
    return chunk["wins"][:, 0].astype(np.float64)


def test_look_alpha_spends_alpha_over_the_planned_looks():
    assert look_alpha(0.05, 10) * 10 == pytest.approx(0.05)
    assert t_half_width(0.25, 10_000, 0.05) == pytest.approx(1.96 * 0.005, rel=1e-3)


def test_stopping_at_a_precision_keeps_its_coverage_under_repeated_looks(goofspiel_seat0):
    """600 studies of 200 deals each (100 games per look, 2 looks planned) stop when the interval is
    narrow enough: the share of final intervals that cover 0.5 is at least 95% (minus three binomial
    standard errors of the simulation); the same repeated looks at the unadjusted level with an
    'optional stopping' rule that stops at the first look whose interval excludes 0.5 do not."""
    x = goofspiel_seat0
    truth, alpha, reps, batch, max_n = 0.5, 0.05, 600, 20, 200
    covered, naive_covered, stops = 0, 0, []
    for r in range(reps):
        xs = x[r * max_n : (r + 1) * max_n]
        est = sequential_estimate(xs, batch, max_n, precision=0.09, alpha=alpha)
        covered += est["low"] <= truth <= est["high"]
        stops.append(est["look"])
        # the naive analyst: looks after every batch at level 1 - alpha, stops once 0.5 is excluded
        hit = True
        for k in range(1, max_n // batch + 1):
            s = xs[: k * batch]
            hw = t_half_width(float(s.var(ddof=1)), len(s), alpha)
            if abs(s.mean() - truth) > hw:
                hit = False
                break
        naive_covered += hit
    se = math.sqrt(0.95 * 0.05 / reps)
    assert covered / reps >= 0.95 - 3 * se, covered / reps
    assert len(set(stops)) > 1  # the rule did stop at different looks
    assert naive_covered / reps < 0.95 - 3 * se, (
        naive_covered / reps
    )  # repeated looks without spending fail


def test_stopping_rule_stops_when_precise_or_at_the_cap(goofspiel_seat0):
    x = goofspiel_seat0
    est = sequential_estimate(x, 1000, 100_000, precision=0.01, alpha=0.05)
    before = x[: est["n"] - 1000]
    assert est["half_width"] <= 0.01 and est["n"] < 100_000
    assert (
        t_half_width(float(before.var(ddof=1)), len(before), look_alpha(0.05, 100)) > 0.01
    )  # the first precise look
    assert est["low"] <= 0.5 <= est["high"]
    est = sequential_estimate(x, 1000, 3000, precision=0.001, alpha=0.05)
    assert est["n"] == 3000 and est["look"] == 3 and est["half_width"] > 0.001


def test_design_metrics_match_a_direct_computation(tmp_path):
    """design_metrics' SQL (per-deal means, then t intervals over deals) against pandas over every
    row of a small heuristic-vs-random Goofspiel run with rotated seats (3 rotations per deal)."""
    import pyarrow.parquet as pq
    from scipy.stats import t as student

    from experiments.analysis.results import Results
    from experiments.study.stats import design_metrics

    cfg = from_dict(
        {
            "game": "goofspiel",
            "players": 3,
            "agents": ["heuristic", "random", "random"],
            "games": 900,
            "seed": 5,
            "output": str(tmp_path / "r"),
            "options": {"num_cards": 5},
            "score_trace": True,
        },
        "m",
    )
    ctx = ChunkContext(job_of(cfg))
    folder = tmp_path / "r" / "data" / "game=goofspiel"
    folder.mkdir(parents=True)
    table = ctx.table.fill(ctx.play(0, cfg.games))
    pq.write_table(table, folder / "part-000000000-000000900.parquet")
    df = table.to_pandas()
    with Results(tmp_path / "r") as res:
        m = design_metrics(res, "results", 3, cfg.games, 0.05)

    def check(per_deal, got):
        n = len(per_deal)
        hw = student.ppf(0.975, n - 1) * per_deal.std(ddof=1) / math.sqrt(n)
        assert got["n"] == n == 300
        assert got["value"] == pytest.approx(per_deal.mean()) and got["high"] - got[
            "value"
        ] == pytest.approx(hw)

    agent = (
        df.assign(agent=df["agent"].astype(str)).groupby(["deal", "agent"])["win"].mean().unstack()
    )
    check(agent["heuristic"] - agent["random"], m["skill_gap"])
    assert m["skill_gap"]["best_agent"] == "heuristic" and m["skill_gap"]["value"] > 0.2
    games = df.groupby("game_index").agg(
        deal=("deal", "first"),
        top=("win", "max"),
        total=("win", "sum"),
        length=("length", "first"),
        margin=("score", lambda s: np.sort(s.to_numpy())[-1] - np.sort(s.to_numpy())[-2]),
    )
    games["tie"] = ((games["top"] < 1) & (games["total"] > 0.5)).astype(float)
    check(games.groupby("deal")["tie"].mean(), m["tie_rate"])
    check(games.groupby("deal")["margin"].mean(), m["margin"])
    trace = df[df["seat"] == 0].set_index("game_index")[
        ["deal", "lead_changes", "decided_at", "trace_points"]
    ]
    check(trace.groupby("deal")["lead_changes"].mean(), m["lead_changes"])
    decided = trace[trace["decided_at"] > 0]
    share = (
        ((decided["decided_at"] - 1) / (decided["trace_points"] - 1))
        .groupby(decided["deal"])
        .mean()
    )
    n = len(share)
    assert m["decided_share"]["n"] == n and m["decided_share"]["value"] == pytest.approx(
        share.mean()
    )
    assert m["decided_share"]["high"] - m["decided_share"]["value"] == pytest.approx(
        student.ppf(0.975, n - 1) * share.std(ddof=1) / math.sqrt(n)
    )
    assert 0 < m["decided_share"]["value"] < 1 and m["lead_changes"]["value"] > 0
    seat = df.groupby(["deal", "seat"])["win"].mean().unstack()
    check(seat[m["seat_gap"]["best_seat"]] - seat[m["seat_gap"]["worst_seat"]], m["seat_gap"])
