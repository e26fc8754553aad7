"""Emperor's Choice (Hisashi Hayashi, 2017) for 3-5 players.

Rules: ``docs/games/emperors_choice.md`` (decisions) over the spec
``shared/rules/emperors_choice.md``; kernels in ``rules/`` (one module per phase), state
layout in ``layout.py``, the heuristic in ``heuristic.py``, component data in
``data/components.json``.
"""

from pathlib import Path

from sim.board import Board
from sim.components import components_of
from sim.core import GameSpec, kernels_from
from sim.emperors_choice import board, heuristic, invariants, layout, observe, rules, scenario, view
from sim.emperors_choice.options import OPTIONS, component_data, load_components
from sim.invariants import invariants_from

KERNELS = kernels_from(rules, heuristic, observe)

SPEC = GameSpec(
    name="emperors_choice",
    title="Emperor's Choice",
    min_players=3,
    max_players=5,
    num_actions=layout.NUM_ACTIONS,
    max_decisions=3000,
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
    components=components_of(Path(__file__).parent / "data", load_components, component_data),
    report_groups=(
        ("Round-1 start player", ("first_start_player",)),
        ("Starting Bonus tile", tuple(f"starting_bonus_sb{i}" for i in range(1, 6))),
        ("Starting Carriage type", tuple(f"start_carriage_{i}" for i in range(1, 6))),
        ("Turn Order tile 1 taken (rounds)", ("turn_tile_1",)),
        ("Withdrawal tile taken", tuple(f"withdrawal_w{i}" for i in range(1, 7))),
        (
            "VP from a policy",
            (
                "vp_policy_border_defence",
                "vp_policy_expedition",
                "vp_policy_book_preservation",
                "vp_policy_meritocracy",
                "vp_policy_centralization",
            ),
        ),
    ),
)
