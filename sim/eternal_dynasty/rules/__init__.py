"""Eternal Dynasty kernels: the Generation as a state machine over a task stack.

Every step of the game is a *task* on a stack in the state (``STACK``; TASK_SIZE ints:
kind, colour, then six arguments).  ``advance`` runs automatic tasks until the task on top
is a decision; that task's colour is the seat to move and ``legal_mask`` / ``apply`` read
it.  An effect (a Dynasty card, a Vote, an Event, a Ruler ability) is interpreted by
pushing the tasks it needs: "X, then Y" pushes Y first.  When the stack is empty,
``next_phase`` pushes the next part of the Generation (spec 6.1).

This package is the one place other code imports the rules from; its modules, in the
order they build on each other: ``helpers``, ``decks`` (chance and decks), ``tasks`` (the
task stack), ``scoring`` (Coins and scoring), ``playability``, ``phases``, ``votes_events``
(resolving Votes and Events), ``machine`` (``advance``), ``setup``, ``kernels``
(``legal_mask``, ``apply``, ``returns``), ``hidden`` (``determinize``, ``info_key``),
``evaluation`` (features, ``evaluate``).

Section numbers refer to the spec ``shared/rules/eternal_dynasty.md``; decisions D* are
listed in ``docs/games/eternal_dynasty.md``.
"""

from sim.eternal_dynasty.rules.decks import (
    add_to_hand,
    is_setaside_copy,
    remove_from_hand,
    remove_vote,
)
from sim.eternal_dynasty.rules.evaluation import (
    FEATURE_NAMES,
    N_FEATURES,
    evaluate,
    features,
    provisional,
    provisional_into,
)
from sim.eternal_dynasty.rules.helpers import (
    colour_order,
    dconst,
    dyn_field,
    leader_strength,
    legal_set,
    li,
    n_colours,
    pb,
    ruler_field,
    set_adjacency_bits,
    ti,
    tokens_total,
    vote_field,
)
from sim.eternal_dynasty.rules.hidden import (
    determinize,
    info_key,
    masked_state,
)
from sim.eternal_dynasty.rules.kernels import (
    apply,
    ee_wins,
    is_terminal,
    legal_mask,
    returns,
)
from sim.eternal_dynasty.rules.machine import (
    advance,
    target_candidates,
)
from sim.eternal_dynasty.rules.phases import (
    cleanup,
    push_turn,
)
from sim.eternal_dynasty.rules.playability import (
    banned,
)
from sim.eternal_dynasty.rules.scoring import (
    end_game,
    rank_strengths,
    score_generation,
    score_province,
)
from sim.eternal_dynasty.rules.setup import (
    new_state,
    state_from_log,
)
from sim.eternal_dynasty.rules.tasks import (
    TG_MASK,
    TK_ACTION,
    TK_ARC,
    TK_ASSASSIN_AT,
    TK_AYENAY,
    TK_BID,
    TK_DISCARD,
    TK_DONG,
    TK_DRAFT,
    TK_EE_VOTE,
    TK_EXTRA,
    TK_FREE,
    TK_GAIN,
    TK_INIT_PLACE,
    TK_REMOVE_OWN,
    TK_RULER,
    TK_TAKE_OTHERS,
    TK_TARGET,
    TK_VOTECALL,
    TK_XUN,
    add_tokens,
    capped_tokens,
    push,
    top,
    touch,
)
from sim.eternal_dynasty.rules.votes_events import (
    coin_majority,
    resolve_event,
)

__all__ = [
    "FEATURE_NAMES",
    "N_FEATURES",
    "TG_MASK",
    "TK_ACTION",
    "TK_ARC",
    "TK_ASSASSIN_AT",
    "TK_AYENAY",
    "TK_BID",
    "TK_DISCARD",
    "TK_DONG",
    "TK_DRAFT",
    "TK_EE_VOTE",
    "TK_EXTRA",
    "TK_FREE",
    "TK_GAIN",
    "TK_INIT_PLACE",
    "TK_REMOVE_OWN",
    "TK_RULER",
    "TK_TAKE_OTHERS",
    "TK_TARGET",
    "TK_VOTECALL",
    "TK_XUN",
    "add_to_hand",
    "add_tokens",
    "advance",
    "apply",
    "banned",
    "capped_tokens",
    "cleanup",
    "coin_majority",
    "colour_order",
    "dconst",
    "determinize",
    "dyn_field",
    "ee_wins",
    "end_game",
    "evaluate",
    "features",
    "info_key",
    "is_setaside_copy",
    "is_terminal",
    "leader_strength",
    "legal_mask",
    "legal_set",
    "li",
    "masked_state",
    "n_colours",
    "new_state",
    "pb",
    "provisional",
    "provisional_into",
    "push",
    "push_turn",
    "rank_strengths",
    "remove_from_hand",
    "remove_vote",
    "resolve_event",
    "returns",
    "ruler_field",
    "score_generation",
    "score_province",
    "set_adjacency_bits",
    "state_from_log",
    "target_candidates",
    "ti",
    "tokens_total",
    "top",
    "touch",
    "vote_field",
]
