"""Middle Kingdom (Thomas Lehmann, 2008) for 2-5 players and the advanced 3-player variant.

Rules: ``docs/games/middle_kingdom.md`` (decisions) over the spec
``shared/rules/middle_kingdom.md``; kernels in ``rules/`` (one module per phase), state
layout in ``layout.py``, the heuristic in ``heuristic.py``, component data in
``data/components.json``.
"""

from pathlib import Path

from sim.board import Board
from sim.components import components_of
from sim.core import GameSpec, kernels_from
from sim.invariants import invariants_from
from sim.middle_kingdom import board, heuristic, invariants, layout, observe, rules, scenario, view
from sim.middle_kingdom.options import OPTIONS, component_data, load_components, player_constraints

KERNELS = kernels_from(rules, heuristic, observe)

SPEC = GameSpec(
    name="middle_kingdom",
    title="Middle Kingdom",
    min_players=2,
    max_players=5,
    num_actions=layout.NUM_ACTIONS,
    max_decisions=2000,
    kernels=KERNELS,
    options=OPTIONS,
    feature_names=rules.FEATURE_NAMES,
    round_word=layout.G_ROUND,  # score trace: a point at the end of every round
    action_name=view.action_name,
    decision_kind=view.decision_kind,
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
    report_groups=(
        (
            "Goal card held at the end",
            tuple(
                f"goal_{g}" for g in ("palace", "harvest", "market", "heir", "emperor", "dragon")
            ),
        ),
        ("Philosopher owned", ("philosopher",)),
    ),
)
