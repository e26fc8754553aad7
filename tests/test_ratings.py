"""Ratings against known answers: the MM fit equals choix's, simulated strengths are recovered
within their intervals, equal agents get equal ratings, and the bootstrap intervals cover the
true difference about as often as they say (a small coverage simulation)."""

import math

import numpy as np
import pytest

from experiments.analysis.ratings import ELO, bt_fit, fit_ratings, mm_fit


def simulate(true_elo, deals, per_pair, rng, players=2):
    """Per-deal pairwise counts of games between agents of the given true Elo ratings.

    2 players: every pair plays ``per_pair`` games per deal.  More players: each game seats every
    agent and ranks them by Plackett-Luce (Gumbel noise on the log-strengths); its ranks are
    broken into pairs as the tournament analysis does."""
    k = len(true_elo)
    theta = np.asarray(true_elo) / ELO
    wins = np.zeros((deals, k, k))
    comps = np.zeros((deals, k, k))
    for d in range(deals):
        for _ in range(per_pair):
            if players == 2:
                for i in range(k):
                    for j in range(i + 1, k):
                        x = float(rng.random() < 1 / (1 + math.exp(theta[j] - theta[i])))
                        wins[d, i, j] += x
                        wins[d, j, i] += 1 - x
                        comps[d, i, j] += 1
                        comps[d, j, i] += 1
            else:
                order = np.argsort(-(theta + rng.gumbel(size=k)))
                for a in range(k):
                    for b in range(a + 1, k):
                        wins[d, order[a], order[b]] += 1
                        comps[d, order[a], order[b]] += 1
                        comps[d, order[b], order[a]] += 1
    return wins, comps


def test_mm_fit_equals_choix():
    rng = np.random.default_rng(3)
    for k in (2, 3, 6):
        w = rng.integers(0, 40, (k, k)).astype(float)
        np.fill_diagonal(w, 0)
        w[0, 1] = 0  # agent 0 never beat agent 1: the prior keeps the fit finite
        a, b = bt_fit(w), mm_fit(w)
        assert np.all(np.isfinite(a))
        np.testing.assert_allclose(a, b, atol=1e-7)
    # vectorised over a batch of matrices, each fit alone
    batch = rng.integers(0, 20, (5, 4, 4)).astype(float)
    for m in batch:
        np.fill_diagonal(m, 0)
    np.testing.assert_allclose(mm_fit(batch), np.stack([bt_fit(m) for m in batch]), atol=1e-7)


@pytest.mark.parametrize("players", [2, 4])
def test_known_ratings_are_recovered_within_intervals(players):
    true = np.array([0.0, 100.0, 250.0, 400.0])
    wins, comps = simulate(
        true, deals=150, per_pair=2, rng=np.random.default_rng(11 + players), players=players
    )
    r = fit_ratings(wins, comps, ["a", "b", "c", "d"], anchor="a", bootstrap=400, seed=1)
    assert list(np.argsort(r.rating)) == [0, 1, 2, 3]  # the known order
    for i in range(1, 4):
        assert r.low[i] <= true[i] <= r.high[i], (i, r.table())
    assert r.low[0] == r.high[0] == 0.0  # the anchor


def test_copies_get_equal_ratings():
    """b and c are the same agent under two names: in 20 simulated tournaments their difference's
    95% interval holds 0 in at least 16 (P(fewer) = 0.003 for a 95% interval), and a real gap of
    200 points is found in every one."""
    true = np.array([0.0, 200.0, 200.0])
    rng = np.random.default_rng(5)
    holds = found = 0
    for rep in range(20):
        wins, comps = simulate(true, deals=100, per_pair=1, rng=rng)
        r = fit_ratings(wins, comps, ["a", "b", "c"], bootstrap=300, seed=rep)
        _, lo, hi = r.difference("b", "c")
        holds += lo <= 0 <= hi
        found += r.difference("b", "a")[1] > 0
    assert holds >= 16 and found == 20, (holds, found)


def test_win_matrix_counts_and_wilson():
    wins = np.zeros((1, 2, 2))
    comps = np.zeros((1, 2, 2))
    wins[0, 0, 1], wins[0, 1, 0] = 30, 10
    comps[0, 0, 1] = comps[0, 1, 0] = 40
    r = fit_ratings(wins, comps, ["x", "y"], bootstrap=50)
    m = r.win_matrix().set_index(["agent", "opponent"])
    assert m.loc[("x", "y"), "n"] == 40 and m.loc[("x", "y"), "win_rate"] == 0.75
    from scipy.stats import binomtest

    ci = binomtest(30, 40).proportion_ci(method="wilson")
    assert m.loc[("x", "y"), "ci_low"] == pytest.approx(ci.low) and m.loc[
        ("x", "y"), "ci_high"
    ] == pytest.approx(ci.high)
    # the BT rating gap of a 3:1 record (with the virtual tie: 30.5 : 10.5)
    assert r.difference("x", "y")[0] == pytest.approx(ELO * math.log(30.5 / 10.5), rel=1e-6)


def test_bootstrap_interval_coverage():
    """Over 120 simulated tournaments the 95% interval of a rating difference holds the true one in
    about 95% of them; the bound is 3.5 binomial standard deviations (sd = 0.02 at n = 120)."""
    true = np.array([0.0, 80.0, 160.0])
    rng = np.random.default_rng(2026)
    reps, hits = 120, 0
    for r_ in range(reps):
        wins, comps = simulate(true, deals=60, per_pair=2, rng=rng)
        r = fit_ratings(wins, comps, ["a", "b", "c"], bootstrap=200, seed=r_)
        _, lo, hi = r.difference("c", "a")
        hits += lo <= true[2] - true[0] <= hi
    cover = hits / reps
    sd = math.sqrt(0.95 * 0.05 / reps)
    assert 0.95 - 3.5 * sd <= cover <= 1.0, cover


def test_fixed_ratings_hold_and_rate_a_newcomer():
    """Fixed ratings (a gauntlet's anchors) are kept exactly; one fixed agent gives the free fit
    shifted to its value; a newcomer that met only the fixed agents is rated on their scale,
    within its interval."""
    true = np.array([0.0, 100.0, 250.0, 400.0])
    wins, comps = simulate(true, deals=100, per_pair=2, rng=np.random.default_rng(8))
    agents = ["a", "b", "c", "d"]
    free = fit_ratings(wins, comps, agents, anchor="b", bootstrap=200, seed=4)
    one = fit_ratings(wins, comps, agents, fixed={"b": 75.0}, bootstrap=200, seed=4)
    np.testing.assert_allclose(one.rating, free.rating + 75.0, atol=1e-5)
    np.testing.assert_allclose(one.samples, free.samples + 75.0, atol=1e-5)
    assert one.rating[1] == 75.0 and one.fixed == {"b": 75.0} and one.anchor is None
    with pytest.raises(ValueError, match="no anchor with them"):
        fit_ratings(wins, comps, agents, fixed={"b": 0.0}, anchor="a")

    # a gauntlet: newcomer e (true 180) plays each baseline, the baselines never meet
    rng = np.random.default_rng(9)
    deals, k, e = 150, 5, 4
    wins, comps = np.zeros((deals, k, k)), np.zeros((deals, k, k))
    for d in range(deals):
        for b in range(4):
            for _ in range(2):
                x = float(rng.random() < 1 / (1 + 10 ** ((true[b] - 180.0) / 400)))
                wins[d, e, b] += x
                wins[d, b, e] += 1 - x
                comps[d, e, b] += 1
                comps[d, b, e] += 1
    anchors = dict(zip(agents, true.tolist()))
    r = fit_ratings(wins, comps, [*agents, "e"], fixed=anchors, bootstrap=400, seed=2)
    assert r.rating[:4].tolist() == true.tolist()
    assert (r.low[:4] == true).all() and (r.high[:4] == true).all()
    assert r.low[e] < 180.0 < r.high[e] and r.high[e] - r.low[e] < 200, r.table()
