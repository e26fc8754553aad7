"""Middle Kingdom rules as numba kernels (spec: shared/rules/middle_kingdom.md, v1.1).

The round is a state machine (``advance``): automatic steps run until a seat must decide,
then ``G_DECISION`` names the kind of decision and ``H_CURRENT`` the seat.  ``apply``
performs one decision and calls ``advance`` again.  Section markers (P1.1, P2.3, S4 ...)
refer to the spec.

Simultaneous bids (P1.1) are taken one seat at a time in seat order; a committed card
leaves the hand at once, so the *current* hand of an earlier committer reveals their
bid.  Agents must read ``F_HAND_START`` for other seats during PH_COMMIT (the heuristic
does), and ``determinize`` resamples those hidden commits for a searcher.

This package is the one place other code imports the rules from; its modules, in the
order they build on each other: ``helpers``, ``gains`` (gains and goals), ``bids``
(phase 1), ``order`` (phase 2), ``scoring`` (phases 3-4 and the final scoring),
``machine`` (``advance``), ``setup``, ``kernels`` (``legal_mask``, ``apply``, ``returns``),
``hidden`` (``determinize``, ``info_key``, ``rewind_secrets``), ``evaluation`` (features,
``evaluate``).
"""

from sim.middle_kingdom.rules.bids import (
    begin_round,
    commit_slot_stack,
    palace_late_stack,
)
from sim.middle_kingdom.rules.evaluation import (
    FEATURE_NAMES,
    N_FEATURES,
    evaluate,
    features,
    provisional_scores,
)
from sim.middle_kingdom.rules.gains import (
    place_card,
    take_dragon,
)
from sim.middle_kingdom.rules.helpers import (
    n_players,
    pb,
)
from sim.middle_kingdom.rules.hidden import (
    determinize,
    info_key,
    masked_state,
    rewind_secrets,
)
from sim.middle_kingdom.rules.kernels import (
    apply,
    is_terminal,
    legal_mask,
    returns,
)
from sim.middle_kingdom.rules.machine import (
    advance,
)
from sim.middle_kingdom.rules.order import (
    build_order,
)
from sim.middle_kingdom.rules.scoring import (
    score_game,
    summon,
)
from sim.middle_kingdom.rules.setup import (
    new_state,
    state_from_deck,
)

__all__ = [
    "FEATURE_NAMES",
    "N_FEATURES",
    "advance",
    "apply",
    "begin_round",
    "build_order",
    "commit_slot_stack",
    "determinize",
    "evaluate",
    "features",
    "info_key",
    "is_terminal",
    "legal_mask",
    "masked_state",
    "n_players",
    "new_state",
    "palace_late_stack",
    "pb",
    "place_card",
    "provisional_scores",
    "returns",
    "rewind_secrets",
    "score_game",
    "state_from_deck",
    "summon",
    "take_dragon",
]
