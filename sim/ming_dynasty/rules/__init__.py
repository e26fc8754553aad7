"""Ming Dynasty rules as numba kernels (spec: shared/rules/ming_dynasty.md).

The round is a state machine (``advance``): automatic steps run until a seat must decide,
then ``G_PHASE`` names the kind of decision and ``H_CURRENT`` the seat.  ``apply``
performs one decision and calls ``advance`` again.  Section markers (3.2, 4.1, D23 ...)
refer to the spec.

The secret, simultaneous return commitment (4.2 step 1) is taken one participant at a
time, clockwise from the start player; a commitment is stored in ``F_COMMIT`` (and, under
the option ``return_choice = in_commitment``, the sections in ``F_COMMIT_SEC``) and is
visible to nobody else: ``info_key`` masks it, ``determinize`` resamples it and
``rewind_secrets`` takes it back.  Agents must not read other seats' ``F_COMMIT``
while the phase is PH_COMMIT (the heuristic does not).

A MOVE is played step by step (D12): ``A_STEP``/``A_STEPD`` cross one border paying the
border's symbol or a dragon; only steps from which a legal end is still reachable are
offered; the walk ends with the DEPLOY decision, legal wherever no other prince stands.

This package is the one place other code imports the rules from; its modules, in the
order they build on each other: ``helpers``, ``cards``, ``movement``, ``scoring``,
``machine`` (``advance``), ``setup``, ``kernels`` (the contract's kernels of play),
``hidden`` (``determinize``, ``info_key``, ``rewind_secrets``), ``evaluation`` (features,
``evaluate``).
"""

from sim.ming_dynasty.rules.cards import (
    refill,
)
from sim.ming_dynasty.rules.evaluation import (
    FEATURE_NAMES,
    N_FEATURES,
    evaluate,
    features,
    provisional_scores,
)
from sim.ming_dynasty.rules.helpers import (
    adj,
    city_count,
    is_entity,
    n_entities,
    pb,
    prince_at,
)
from sim.ming_dynasty.rules.hidden import (
    determinize,
    info_key,
    masked_state,
    rewind_secrets,
)
from sim.ming_dynasty.rules.kernels import (
    apply,
    current_player,
    is_terminal,
    legal_mask,
    returns,
)
from sim.ming_dynasty.rules.machine import (
    advance,
    begin_round,
    begin_scoring,
)
from sim.ming_dynasty.rules.movement import (
    DEPLOY_MONK,
    DEPLOY_OPEN,
)
from sim.ming_dynasty.rules.scoring import (
    city_bonus,
    district_to_city,
    final_tiles,
    finish_province,
    gain_tile,
    score_monasteries,
)
from sim.ming_dynasty.rules.setup import (
    new_state,
    state_from_script,
)

__all__ = [
    "DEPLOY_MONK",
    "DEPLOY_OPEN",
    "FEATURE_NAMES",
    "N_FEATURES",
    "adj",
    "advance",
    "apply",
    "begin_round",
    "begin_scoring",
    "city_bonus",
    "city_count",
    "current_player",
    "determinize",
    "district_to_city",
    "evaluate",
    "features",
    "final_tiles",
    "finish_province",
    "gain_tile",
    "info_key",
    "is_entity",
    "is_terminal",
    "legal_mask",
    "masked_state",
    "n_entities",
    "new_state",
    "pb",
    "prince_at",
    "provisional_scores",
    "refill",
    "returns",
    "rewind_secrets",
    "score_monasteries",
    "state_from_script",
]
