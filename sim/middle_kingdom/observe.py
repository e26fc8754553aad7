"""Middle Kingdom's observation tensor (contract: sim.observe): the masked state.

The seat's information-state tensor is the observer one-hot followed by the state words
that ``rules.info_key`` hashes, masked as it masks them (RNG and seed words, the order of
the undrawn deck, and during the blind commit the other seats' face-down cards); the
player blocks come last.  With ``player = -1`` every seat's commit is masked: the public
tensor.  Layout table: docs/games/middle_kingdom.md.
"""

import numba as nb

from sim.core import hash_words
from sim.middle_kingdom import layout as L
from sim.middle_kingdom.layout import MAXP, PL, PS
from sim.middle_kingdom.rules import masked_state
from sim.observe import HEADER_REGIONS, Observation, masked_fields, regions_between

REGIONS = list(HEADER_REGIONS) + regions_between(
    L,
    (
        "OPT",
        "CARD_TYPE",
        "CARD_VP",
        "GOAL_VP",
        "PEASANT_VP",
        "S_PENALTY",
        "G",
        "GOAL_OWNER",
        "ROW",
        "DECK",
        "LOC",
        "HOST",
        "ORD_ENT",
        "ORD_GKIND",
        "ORD_GEND",
        "ORD_HOST",
        "SCR_ENT",
        "SCR_KEY",
    ),
    PL,
    {
        "OPT": "rule option codes",
        "CARD_TYPE": "card types",
        "CARD_VP": "printed VP per card",
        "GOAL_VP": "goal VP",
        "PEASANT_VP": "VP by Peasants kept",
        "S_PENALTY": "scalars (penalty, token VP ...)",
        "G": "round-level scalars G_*",
        "GOAL_OWNER": "goal owners (-1 nobody)",
        "ROW": "row items",
        "DECK": "drawn cards in draw order (undrawn: 0)",
        "LOC": "card locations",
        "HOST": "stack per owned card",
        "ORD_ENT": "resolution order: entries",
        "ORD_GKIND": "resolution order: group kinds",
        "ORD_GEND": "resolution order: group ends",
        "ORD_HOST": "identical slots: stacks drawn onto",
        "SCR_ENT": "scratch (build_order)",
        "SCR_KEY": "scratch (build_order)",
    },
)
FIELDS, INDEX, SIZE = masked_fields(L, REGIONS, MAXP, PS, PL)


masked = masked_state  # the one masking, shared with rules.info_key


@nb.njit(cache=True)
def key(s, player):
    """``rules.info_key`` recomputed from :func:`masked` (tests check they agree)."""
    return hash_words(masked(s, player), player)


@nb.njit(cache=True)
def observe(s, player, out):
    c = masked(s, player)
    out[:] = 0.0
    if player >= 0:
        out[player] = 1.0
    for i in range(INDEX.shape[0]):
        out[MAXP + i] = c[INDEX[i]]


OBSERVATION = Observation(size=SIZE, observe=observe, fields=FIELDS)
