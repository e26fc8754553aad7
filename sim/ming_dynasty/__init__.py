"""Ming Dynasty (Robert F. Watson, 2007) for 2-4 players, with the 2-player neutral colour.

Rules: ``docs/games/ming_dynasty.md`` (decisions) over the spec
``shared/rules/ming_dynasty.md``; kernels in ``rules/`` (one module per phase), state layout
in ``layout.py``, the heuristic in ``heuristic.py``, component data in ``data/``
(``board.csv``: the border graph; ``components.json``: the card mix and point values).
"""

from pathlib import Path

from sim.board import Board
from sim.components import components_of
from sim.core import GameSpec, kernels_from
from sim.invariants import invariants_from
from sim.ming_dynasty import board, heuristic, invariants, layout, observe, rules, scenario, view
from sim.ming_dynasty.options import OPTIONS, component_data, load_components

KERNELS = kernels_from(rules, heuristic, observe)

SPEC = GameSpec(
    name="ming_dynasty",
    title="Ming Dynasty",
    min_players=2,
    max_players=4,
    num_actions=layout.NUM_ACTIONS,
    max_decisions=1500,
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
        ("Start player of round 1", ("first_start",)),
        ("Points scored by source", ("vp_sets", "vp_bonus", "vp_monastery", "vp_final_sets")),
        ("Dragon cards bought", ("dragons_bought",)),
    ),
)
