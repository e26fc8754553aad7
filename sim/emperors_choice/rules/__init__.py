"""Emperor's Choice rules as numba kernels (spec: shared/rules/emperors_choice.md).

The game is a state machine (``advance``).  Effects are *atoms* on a work stack
(``STACK``): gaining gold, cubes, Trust, a palace level, a tile, a card ...  ``advance``
pops and runs atoms until one needs a decision (a palace side, which tile to keep ...),
and when the stack is empty it runs the phase machine (auction turns, management steps,
decrees, the setup phase, final scoring) until a seat must decide.  ``apply`` performs
one decision and calls ``advance``.  Section markers (R-C2, D-A1 ...) refer to the spec.

Decks are unordered: a draw picks uniformly among the cards (tiles, Tribute cards) left,
with the game's RNG, and logs the outcome (``LOG``/``LOGK``).  A state built with
``G_FORCED_N`` > 0 replays logged outcomes instead of drawing (engine-independent replays).

This package is the one place other code imports the rules from; its modules, in the
order they build on each other: ``helpers``, ``chance``, ``tracks``, ``policies``,
``stack`` (the effect atoms), ``final`` (final scoring), ``round`` (auction, management,
decree, setup phase), ``machine`` (``advance``, ``legal_mask``, ``apply``), ``setup``,
``results`` (``returns``), ``hidden`` (``determinize``, ``info_key``), ``evaluation``
(features, ``evaluate``).
"""

from sim.emperors_choice.rules.evaluation import (
    FEATURE_NAMES,
    N_FEATURES,
    evaluate,
    features,
    provisional_scores,
)
from sim.emperors_choice.rules.final import (
    end_card_vp,
)
from sim.emperors_choice.rules.helpers import (
    castles_eff,
    cd,
    count_loc,
    move_card,
    ncards,
    pb,
    power,
    push,
    sync_card_sets,
    wall_len,
)
from sim.emperors_choice.rules.hidden import (
    determinize,
    info_key,
    masked_state,
)
from sim.emperors_choice.rules.machine import (
    advance,
    apply,
    is_terminal,
    legal_mask,
    raise_cost,
)
from sim.emperors_choice.rules.policies import (
    flip_policy,
    score_policy,
    score_side,
)
from sim.emperors_choice.rules.results import (
    returns,
)
from sim.emperors_choice.rules.round import (
    declared_now,
    decree_select,
    pending_total,
    setup_phase,
)
from sim.emperors_choice.rules.setup import (
    new_state,
    new_state_forced,
)
from sim.emperors_choice.rules.stack import (
    get_tile,
)
from sim.emperors_choice.rules.tracks import (
    trust_gain,
    trust_loss,
)

__all__ = [
    "FEATURE_NAMES",
    "N_FEATURES",
    "advance",
    "apply",
    "castles_eff",
    "cd",
    "count_loc",
    "declared_now",
    "decree_select",
    "determinize",
    "end_card_vp",
    "evaluate",
    "features",
    "flip_policy",
    "get_tile",
    "info_key",
    "is_terminal",
    "legal_mask",
    "masked_state",
    "move_card",
    "ncards",
    "new_state",
    "new_state_forced",
    "pb",
    "pending_total",
    "power",
    "provisional_scores",
    "push",
    "raise_cost",
    "returns",
    "score_policy",
    "score_side",
    "setup_phase",
    "sync_card_sets",
    "trust_gain",
    "trust_loss",
    "wall_len",
]
