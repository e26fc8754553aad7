"""Goofspiel against OpenSpiel's: the same games give the same returns, move for move, and
random play gives the same outcome distribution.

A small fixed-seed version of ``experiments/bench/openspiel.py`` (which runs 100,000 games
per engine).  With 4,000 games per engine, a real rules difference of a few percentage
points in a win rate or of one point in a mean point difference shows as |z| well above 4;
sampling error alone gives |z| > 4 with probability about 6e-5 per figure.
"""

import numpy as np
import pyspiel  # open-spiel is a dev dependency (pip install -e '.[dev]')
import pytest

from experiments.bench.openspiel import (
    compare,
    openspiel_random_points,
    our_random_points,
    outcome_summary,
)

GAMES = 4000
Z_LIMIT = 4.0
CHI2_P_FLOOR = 1e-4


@pytest.mark.parametrize("players", [2, 3])
def test_random_play_gives_the_same_outcomes_in_both_engines(players):
    ours = outcome_summary(our_random_points(players, GAMES, seed=7)[0])
    theirs = outcome_summary(openspiel_random_points(players, GAMES, seed=7)[0])
    result = compare(ours, theirs)
    for label, (a, b, z) in result["z"].items():
        assert abs(z) < Z_LIMIT, f"{label}: ours {a:.4f}, OpenSpiel {b:.4f}, z = {z:.2f}"
    assert result["chi2_p"] > CHI2_P_FLOOR


def test_the_comparison_detects_a_rules_difference():
    """The same check against a deliberately different game (11 cards instead of 13 in
    OpenSpiel) must fail: the parity test has teeth."""
    ours = outcome_summary(our_random_points(2, GAMES, seed=7)[0])
    game = pyspiel.load_game(
        "goofspiel", {"num_cards": 11, "players": 2, "returns_type": "total_points"}
    )
    bots = [pyspiel.make_uniform_random_bot(p, 8 + p) for p in range(2)]
    pts = np.array([pyspiel.evaluate_bots(game.new_initial_state(), bots, i) for i in range(GAMES)])
    result = compare(ours, outcome_summary(pts))
    assert (
        result["chi2_p"] < CHI2_P_FLOOR or max(abs(z) for _, _, z in result["z"].values()) > Z_LIMIT
    )


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("points_order", ["random", "descending", "ascending"])
@pytest.mark.parametrize("returns_type", ["win_loss", "point_difference", "total_points"])
def test_the_same_game_gives_the_same_returns_in_both_engines(players, points_order, returns_type):
    """Play random games in our engine, replay each one move for move in OpenSpiel (its
    point cards at the chance nodes, the bids of each round as one joint action) and
    compare the returns exactly."""
    from sim import Game

    options = {"num_cards": 6, "points_order": points_order, "returns_type": returns_type}
    game = pyspiel.load_game("goofspiel", {**options, "players": players})
    rng = np.random.default_rng(players)
    for seed in range(40):
        ours = Game("goofspiel", players=players, seed=seed, options=options)
        ours.play_random(rng)
        cards = iter(v - 1 for v in ours.chance_outcomes())
        bids = [d["action"] for d in ours.history]
        state = game.new_initial_state()
        i = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(next(cards))
            else:
                state.apply_actions(bids[i : i + players])
                i += players
        assert i == len(bids)
        assert state.returns() == pytest.approx(ours.scores), (seed, ours.render())
