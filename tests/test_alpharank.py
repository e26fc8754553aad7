"""alpha-Rank of a tournament's win matrix (OpenSpiel, optional) against known answers: a
dominant agent takes nearly all the mass, copies of an agent get equal mass, rock-paper-scissors
gets thirds; bootstrap intervals from the ratings' resamples; the report's section and plot, and
the one line it writes instead when OpenSpiel is missing."""

import math

import numpy as np
import pytest

from experiments.analysis import ratings
from experiments.analysis.ratings import alpha_rank, alpharank_missing, fit_ratings, payoff_matrix

pytest.importorskip("open_spiel.python.egt.alpharank", reason=ratings.ALPHARANK_EXTRA)


def bt_wins(strengths, games=100.0):
    """An expected win matrix of a Bradley-Terry pool (log-strengths), ``games`` per pair."""
    s = np.asarray(strengths, float)
    p = 1 / (1 + np.exp(s[None, :] - s[:, None]))
    np.fill_diagonal(p, 0.0)
    return p * games


def cyclic(k_win=10.0, k_lose=0.0):
    """Rock, paper, scissors: each beats the next one round the cycle."""
    w = np.zeros((3, 3))
    for i in range(3):
        w[(i + 1) % 3, i], w[i, (i + 1) % 3] = k_win, k_lose
    return w


def test_payoff_matrix_is_constant_sum():
    rng = np.random.default_rng(0)
    w = rng.integers(0, 20, size=(5, 5)).astype(float)
    np.fill_diagonal(w, 0)
    w[0, 4] = w[4, 0] = 0  # never met
    p = payoff_matrix(w)
    assert np.allclose(p + p.T, 1.0) and np.allclose(np.diag(p), 0.5) and p[0, 4] == 0.5
    assert payoff_matrix(np.stack([w, 2 * w])).shape == (2, 5, 5)  # resamples at once


def test_transitive_ladder_top_takes_nearly_all_mass():
    agents = ["a", "b", "c", "d", "e"]
    a = alpha_rank(bt_wins([0.0, 0.5, 1.0, 1.5, 2.0]), agents)
    assert a.mass[4] > 0.99 and math.isclose(a.mass.sum(), 1.0)
    assert a.table()["agent"].iloc[0] == "e" and a.alpha > 0
    assert np.isnan(a.low).all()  # no resamples: the point value only
    shuffled = [3, 0, 4, 1, 2]  # the agents' order does not matter
    b = alpha_rank(
        bt_wins(np.array([0.0, 0.5, 1.0, 1.5, 2.0])[shuffled]), [agents[i] for i in shuffled]
    )
    assert b.mass[2] > 0.99


@pytest.mark.parametrize(
    "strengths, copies, each",
    [
        ([1.0, 1.0, 0.0, 0.5], (0, 1), 0.5),  # two copies of the best agent share the mass
        ([0.0, 0.0, 1.0], (0, 1), None),  # two copies of a weak agent: equally little
    ],
)
def test_copies_get_equal_mass(strengths, copies, each):
    a = alpha_rank(bt_wins(strengths), [f"x{i}" for i in range(len(strengths))])
    i, j = copies
    assert a.mass[i] == pytest.approx(a.mass[j], abs=1e-6)
    if each is not None:
        assert a.mass[i] == pytest.approx(each, abs=1e-3)


def test_copy_inside_a_cycle_gets_the_same_mass_as_its_original():
    w = np.zeros((4, 4))
    w[:3, :3] = cyclic()
    w[3, :3], w[:3, 3] = w[2, :3], w[:3, 2]  # agent 3: a copy of scissors
    w[2, 3] = w[3, 2] = 5.0  # scissors against its copy: even
    a = alpha_rank(w, ["rock", "paper", "scissors", "scissors-b"])
    assert a.mass[2] == pytest.approx(a.mass[3], abs=1e-6) and math.isclose(a.mass.sum(), 1.0)


@pytest.mark.parametrize("k_win, k_lose", [(10.0, 0.0), (7.0, 3.0)])
def test_rock_paper_scissors_gets_thirds(k_win, k_lose):
    a = alpha_rank(cyclic(k_win, k_lose), ["rock", "paper", "scissors"])
    assert np.allclose(a.mass, 1 / 3, atol=1e-6)
    # with a fourth agent that all three beat, the cycle still shares the mass equally
    w = np.zeros((4, 4))
    w[:3, :3] = cyclic(k_win, k_lose)
    w[:3, 3], w[3, :3] = 8.0, 2.0
    b = alpha_rank(w, ["rock", "paper", "scissors", "weak"])
    assert np.allclose(b.mass[:3], 1 / 3, atol=1e-4) and b.mass[3] < 1e-4


def simulated_counts(elo, deals, rng):
    """Per-deal pairwise counts: every pair plays 2 games per deal
    (Bradley-Terry on Elo ratings)."""
    k = len(elo)
    theta = np.asarray(elo, float) / ratings.ELO
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    wins = np.zeros((deals, k, k))
    for i in range(k):
        for j in range(i + 1, k):
            x = rng.binomial(2, p[i, j], size=deals)
            wins[:, i, j], wins[:, j, i] = x, 2 - x
    comps = np.broadcast_to(2.0 * (1 - np.eye(k)), (deals, k, k)).copy()
    return wins, comps


def test_bootstrap_intervals_from_the_ratings_resamples():
    rng = np.random.default_rng(5)
    agents = ["strong", "mid", "weak", "weaker"]
    wins, comps = simulated_counts([600, 0, -100, -200], 60, rng)
    r = fit_ratings(wins, comps, agents, bootstrap=200, seed=1)
    assert r.win_samples.shape == (200, 4, 4)
    assert np.allclose(r.win_samples.sum(axis=(1, 2)), 2 * 6 * 60)  # every resample holds D deals
    a = r.alpha_rank()
    assert a.samples.shape == (200, 4) and np.allclose(a.samples.sum(axis=1), 1.0)
    assert np.all(a.low <= a.mass + 1e-12) and np.all(a.mass <= a.high + 1e-12)
    assert a.mass[0] > 0.99 and a.low[0] > 0.9  # the dominant agent, in (almost) every resample
    assert a.table()["agent"].iloc[0] == "strong"


def test_report_section_and_plot(tmp_path):
    from experiments.analysis.report import Image, Table
    from experiments.tournament.report import alpharank_blocks

    rng = np.random.default_rng(2)
    agents = ["rock", "paper", "scissors"]
    wins = np.zeros((40, 3, 3))
    for d in range(40):  # a noisy cycle: each beats the next round the cycle 3 times in 4
        w = np.zeros((3, 3))
        for i in range(3):
            x = rng.binomial(4, 0.75)
            w[(i + 1) % 3, i], w[i, (i + 1) % 3] = x, 4 - x
        wins[d] = w
    comps = wins + np.swapaxes(wins, 1, 2)
    r = fit_ratings(wins, comps, agents, bootstrap=100)
    images = []
    blocks = alpharank_blocks(
        r, 2, tmp_path, lambda name, alt: images.append(name) or Image(name, alt)
    )
    assert blocks[0] == (3, "2 players: alpha-Rank")
    table = next(b for b in blocks if isinstance(b, Table))
    assert (
        sorted(row[0] for row in table.rows) == sorted(agents)
        and "100 bootstrap resamples" in table.caption
    )
    assert sum(float(row[1]) for row in table.rows) == pytest.approx(1.0, abs=2e-3)
    assert images == ["alpharank_2p.png"] and (tmp_path / "alpharank_2p.png").stat().st_size > 0


def test_without_openspiel_one_line_and_no_crash(monkeypatch):
    def missing():
        raise ModuleNotFoundError("No module named 'open_spiel'")

    monkeypatch.setattr(ratings, "_alpharank_module", missing)
    line = alpharank_missing()
    assert (
        line.startswith("alpha-Rank needs OpenSpiel")
        and "[alpharank]" in line
        and "open_spiel" in line
    )
    assert "\n" not in line
    with pytest.raises(ImportError):
        alpha_rank(cyclic(), ["r", "p", "s"])
