"""Goofspiel, the calibration game: OpenSpiel's rules and parameters on our engine contract.

It is the simultaneous bidding of Middle Kingdom in its simplest form, and a game both this
harness and OpenSpiel play, so agents and engine speed can be compared side by side
(``experiments/bench/openspiel.py``).  Rules and state layout: :mod:`sim.goofspiel.rules`.
"""

from sim.board import Board
from sim.core import GameSpec, Option, kernels_from
from sim.goofspiel import board, invariants, observe, view
from sim.goofspiel import rules as R
from sim.invariants import invariants_from

OPTIONS = (
    Option("num_cards", 13, "bid cards per seat and point cards (N)", low=1, high=R.MAX_CARDS),
    Option(
        "points_order",
        "random",
        "order the point cards are turned up",
        choices=("random", "descending", "ascending"),
    ),
    Option(
        "returns_type",
        "win_loss",
        "what the scores are (OpenSpiel's returns)",
        choices=("win_loss", "point_difference", "total_points"),
    ),
)

SPEC = GameSpec(
    name="goofspiel",
    title="Goofspiel",
    min_players=2,
    max_players=R.MAX_PLAYERS,
    num_actions=R.NUM_ACTIONS,
    max_decisions=R.MAX_CARDS * R.MAX_PLAYERS,
    kernels=kernels_from(R, observe),
    options=OPTIONS,
    feature_names=R.FEATURE_NAMES,
    round_word=R.TURN,  # score trace: a point at the end of every trick
    action_name=view.action_name,
    render=view.render,
    chance_outcomes=view.chance_outcomes,
    state_from_chance=view.state_from_chance,
    chance_problem=invariants.chance_problem,
    observation=observe.OBSERVATION,
    invariants=invariants_from(invariants),
    board=Board(board.draw, board.provisional),
)
