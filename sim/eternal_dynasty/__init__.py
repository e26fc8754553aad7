"""Eternal Dynasty (Zucchini People Games) for 2-5 players (2 players: the Eternal Emperor, spec 8).

Rules: ``docs/games/eternal_dynasty.md`` over the spec ``shared/rules/eternal_dynasty.md``;
kernels in ``rules/`` (one module per phase), state layout in ``layout.py``, the heuristic
in ``heuristic/``, component data in ``data/components.json``.
"""

from pathlib import Path

from sim.board import Board
from sim.components import components_of
from sim.core import GameSpec, kernels_from
from sim.eternal_dynasty import board, heuristic, invariants, layout, observe, rules, scenario, view
from sim.eternal_dynasty.options import OPTIONS, component_data, load_components, player_constraints
from sim.invariants import invariants_from

KERNELS = kernels_from(rules, heuristic, observe)

SPEC = GameSpec(
    name="eternal_dynasty",
    title="Eternal Dynasty",
    min_players=2,
    max_players=5,
    num_actions=layout.NUM_ACTIONS,
    max_decisions=6000,
    kernels=KERNELS,
    options=OPTIONS,
    feature_names=rules.FEATURE_NAMES,
    round_word=layout.G_ROUND,  # score trace: a point at the end of every round
    action_name=view.action_name,
    decision_kind=view.decision_kind,
    action_features=heuristic.ACTION_FEATURES,
    render=view.render,
    chance_outcomes=view.chance_outcomes,
    state_from_chance=view.state_from_chance,
    chance_problem=invariants.chance_problem,
    observation=observe.OBSERVATION,
    invariants=invariants_from(invariants),
    board=Board(board.draw, board.provisional),
    scenario=scenario,
    player_constraints=player_constraints,
    components=components_of(Path(__file__).parent / "data", load_components, component_data),
    can_all_lose=True,  # 2 players: when the Eternal Emperor wins, both seats lose
    report_groups=(
        ("Ruler chosen (any Generation)", tuple(f"ruler_{r + 1}" for r in range(layout.N_RULERS))),
    ),
)
