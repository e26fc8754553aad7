"""Goofspiel rules (OpenSpiel's), by hand-worked games, and its contract kernels."""

import numpy as np
import pytest

from sim import Game, get_game
from sim.core import IllegalActionError, new_rng
from sim.goofspiel import rules as R

SPEC = get_game("goofspiel")
K = SPEC.kernels


def play(game, bids_by_round):
    """Play rounds given as value lists (seat order), e.g. [[3, 3, 1], ...]."""
    for bids in bids_by_round:
        for v in bids:
            game.apply(f"bid {v}")


def test_tie_for_highest_discards_and_last_round_is_automatic():
    g = Game("goofspiel", players=3, options={"num_cards": 3, "points_order": "ascending"})
    play(g, [[3, 3, 1]])  # point card 1: seats 0 and 1 tie on 3 -> discarded
    assert g.features()["points"] == [0, 0, 0]
    play(g, [[1, 2, 3]])  # point card 2 -> seat 2
    # Last round is played automatically: hands {2}, {1}, {2} -> tie on 2 -> discarded.
    assert g.is_over
    assert len(g.history) == 6
    assert g.features()["points"] == [0, 0, 2]
    assert g.scores == [-0.5, -0.5, 1.0]
    assert g.win_shares == [0.0, 0.0, 1.0]


def test_unique_highest_wins_even_when_lower_bids_tie():
    g = Game("goofspiel", players=3, options={"num_cards": 4, "points_order": "descending"})
    play(g, [[4, 1, 1]])  # point card 4 -> seat 0
    assert g.features()["points"] == [4, 0, 0]
    play(g, [[1, 2, 2], [2, 4, 3]])  # point 3: seats 1, 2 tie -> discarded; point 2 -> seat 1
    # last round automatic: hands {3}, {3}, {4}: point card 1 -> seat 2
    assert g.is_over
    assert g.features()["points"] == [4, 2, 1]
    assert g.features()["rounds_won"] == [1, 1, 1]
    assert g.features()["bids_spent_on_wins"] == [4, 4, 4]


@pytest.mark.parametrize(
    "returns_type, expected",
    [
        ("win_loss", [-1.0, 1.0]),
        ("point_difference", [-1.0, 1.0]),
        ("total_points", [2.0, 4.0]),
    ],
)
def test_returns_types(returns_type, expected):
    g = Game(
        "goofspiel",
        players=2,
        options={"num_cards": 3, "points_order": "ascending", "returns_type": returns_type},
    )
    play(g, [[1, 2], [3, 1]])  # 1 -> seat 1; 2 -> seat 0; last: 2 vs 3 -> seat 1 takes 3
    assert g.features()["points"] == [2, 4]
    assert g.scores == expected


def test_all_seats_tied_is_a_draw():
    g = Game("goofspiel", players=2, options={"num_cards": 3, "points_order": "ascending"})
    play(g, [[1, 1], [2, 2]])
    assert g.is_over and g.features()["points"] == [0, 0]
    assert g.scores == [0.0, 0.0]
    assert g.win_shares == [0.5, 0.5]


def test_bids_are_taken_in_seat_order_and_cards_are_spent():
    g = Game("goofspiel", players=2, options={"num_cards": 5})
    assert g.current_player == 0
    g.apply("bid 5")
    assert g.current_player == 1
    assert g.legal_actions() == [0, 1, 2, 3, 4]  # seat 1's hand is untouched
    g.apply("bid 2")
    assert g.current_player == 0
    assert g.legal_actions() == [0, 1, 2, 3]
    with pytest.raises(IllegalActionError, match="bid 5"):
        g.apply(4)


def test_random_order_is_a_permutation_and_a_function_of_the_seed():
    orders = []
    for seed in (1, 1, 2):
        g = Game("goofspiel", players=2, seed=seed)
        g.play_random(np.random.default_rng(0))
        orders.append(g.chance_outcomes())
    assert sorted(orders[0]) == list(range(1, 14))
    assert orders[0] == orders[1] and orders[0] != orders[2]


def test_fixed_orders():
    for order, first in (("descending", 13), ("ascending", 1)):
        g = Game("goofspiel", players=2, options={"points_order": order})
        assert f"point card {first}" in g.render()
        assert g.chance_outcomes() == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_replays_round_trip(players):
    g = Game("goofspiel", players=players, seed=11 + players)
    g.play_random(np.random.default_rng(players))
    rep = g.to_replay()
    assert len(rep["decisions"]) == 12 * players
    for use_seed in (False, True):
        again = Game.from_replay(rep, use_seed=use_seed)
        assert again.scores == g.scores
        assert np.array_equal(
            again.state[R.POINTS : R.POINTS + players], g.state[R.POINTS : R.POINTS + players]
        )


def test_partial_replay_records_only_the_cards_seen():
    g = Game("goofspiel", players=2, seed=3)
    g.apply("bid 1")
    g.apply("bid 2")
    assert len(g.chance_outcomes()) == 2
    again = Game.from_replay(g.to_replay())
    assert again.chance_outcomes() == g.chance_outcomes()


def test_determinize_resamples_pending_bids_and_unseen_point_cards_only():
    g = Game("goofspiel", players=3, seed=9)
    play(g, [[13, 12, 11]])
    g.apply("bid 10")  # seat 0 pending
    g.apply("bid 1")  # seat 1 pending; seat 2 to move
    rng = new_rng(5)
    seen_bids, decks = set(), set()
    for _ in range(200):
        s = g.state.copy()
        K.determinize(s, 2, rng)
        seen_bids.add((int(s[R.PENDING]), int(s[R.PENDING + 1])))
        assert s[R.PENDING + 2] == R.NO_CARD
        for p in range(2):
            assert (s[R.HANDS + p] >> s[R.PENDING + p]) & 1  # a card the seat holds
        assert np.array_equal(
            s[R.DECK : R.DECK + 2], g.state[R.DECK : R.DECK + 2]
        )  # seen cards stay
        assert sorted(s[R.DECK : R.DECK + 13]) == list(range(13))
        decks.add(tuple(s[R.DECK + 2 : R.DECK + 13]))
        s2 = s.copy()
        assert K.info_key(s, 2) == K.info_key(g.state, 2)
        K.determinize(s2, 0, rng)
        assert s2[R.PENDING] == s[R.PENDING]  # the observer's own bid is kept
    assert len({b for b, _ in seen_bids}) == 12 and len(decks) > 150


def test_ascending_order_is_not_reshuffled():
    g = Game("goofspiel", players=2, options={"points_order": "ascending"})
    s = g.state.copy()
    K.determinize(s, 1, new_rng(1))
    assert np.array_equal(s, g.state)


def test_info_key_hides_earlier_secret_bids_and_shows_revealed_ones():
    keys = {}
    for v in range(1, 14):
        g = Game("goofspiel", players=2, seed=4)
        g.apply(f"bid {v}")
        keys[v] = (K.info_key(g.state, 1), K.info_key(g.state, 0))
    assert len({k1 for k1, _ in keys.values()}) == 1  # seat 1 cannot tell seat 0's bid
    assert len({k0 for _, k0 in keys.values()}) == 13  # seat 0 knows its own
    after = set()
    for v in range(1, 14):
        g = Game("goofspiel", players=2, seed=4)
        g.apply(f"bid {v}")
        g.apply("bid 7")
        after.add(K.info_key(g.state, 1))
    assert len(after) == 13  # once revealed, the bids tell the states apart


def test_heuristic_matches_the_point_card_else_the_next_higher_else_the_lowest():
    g = Game("goofspiel", players=2, options={"points_order": "descending", "num_cards": 5})
    rng = new_rng(0)
    assert K.heuristic(g.state, rng) == 4  # point card 5: bid 5
    play(g, [[5, 4]])
    assert K.heuristic(g.state, rng) == 3  # seat 0, point card 4, holds 1-4: bid 4
    g.apply("bid 4")
    assert K.heuristic(g.state, rng) == 4  # seat 1 spent its 4: the next higher card, 5
    s = g.state.copy()
    s[R.HANDS + 1] = 0b00011  # seat 1 holds only 1 and 2
    assert K.heuristic(s, rng) == 0  # nothing at or above 4: the lowest card


def test_evaluate_and_features_shapes():
    g = Game("goofspiel", players=4, seed=2)
    out = np.zeros(4)
    K.evaluate(g.state, out)
    assert np.allclose(out, 0.5)
    g.play_random(np.random.default_rng(1))
    K.evaluate(g.state, out)
    assert np.allclose(out, g.win_shares)
