"""Middle Kingdom (Thomas Lehmann, 2008) for 2-5 players and the advanced 3-player variant.

Rules: ``docs/games/middle_kingdom.md`` (decisions) over the spec
``shared/rules/middle_kingdom.md``; kernels in ``rules.py``, state layout in ``layout.py``,
the heuristic in ``heuristic.py``, component data in ``data/components.json``.
"""

from sim.core import GameSpec, Kernels, header_current_player
from sim.middle_kingdom import layout, view
from sim.middle_kingdom.heuristic import heuristic
from sim.middle_kingdom.options import OPTIONS, component_data, player_constraints
from sim.middle_kingdom.rules import (
    FEATURE_NAMES, apply, determinize, evaluate, features, info_key, is_terminal, legal_mask, new_state, returns,
    rewind_secrets,
)

KERNELS = Kernels(
    new_state=new_state,
    current_player=header_current_player,
    legal_mask=legal_mask,
    apply=apply,
    is_terminal=is_terminal,
    returns=returns,
    determinize=determinize,
    heuristic=heuristic,
    evaluate=evaluate,
    features=features,
    info_key=info_key,
    rewind_secrets=rewind_secrets,
)

SPEC = GameSpec(
    name="middle_kingdom",
    title="Middle Kingdom",
    min_players=2,
    max_players=5,
    num_actions=layout.NUM_ACTIONS,
    max_decisions=2000,
    kernels=KERNELS,
    options=OPTIONS,
    feature_names=FEATURE_NAMES,
    action_name=view.action_name,
    render=view.render,
    chance_outcomes=view.chance_outcomes,
    state_from_chance=view.state_from_chance,
    player_constraints=player_constraints,
    data=component_data(),
    report_groups=(
        ("Goal card held at the end", tuple(f"goal_{g}" for g in ("palace", "harvest", "market", "heir", "emperor", "dragon"))),
        ("Philosopher owned", ("philosopher",)),
    ),
)
