"""Middle Kingdom's observation tensor (contract: sim.observe): the masked state.

The seat's information-state tensor is the observer one-hot followed by the state words
that ``rules.info_key`` hashes, masked as it masks them (RNG and seed words, the order of
the undrawn deck, and during the blind commit the other seats' face-down cards); the
player blocks come last.  With ``player = -1`` every seat's commit is masked: the public
tensor.  Layout table: docs/games/middle_kingdom.md.
"""

import numba as nb
import numpy as np

from sim.core import hash_words
from sim.middle_kingdom import layout as L
from sim.middle_kingdom.layout import (DECK, F_EMP_SLOT, F_HAND, F_HAND_START, F_SLOT_CARD,
                                       F_SLOT_STACK, F_SLOT_STEP, F_ZERO, G_DECK_PTR, G_PHASE, MAXP, N_DYN,
                                       NO_CARD, PH_COMMIT, PL, PS, STEP_COMMIT)
from sim.middle_kingdom.rules import COMMITTED, n_players, pb
from sim.observe import HEADER_REGIONS, Observation, masked_fields, regions_between

REGIONS = list(HEADER_REGIONS) + regions_between(L, (
    "OPT", "CARD_TYPE", "CARD_VP", "GOAL_VP", "PEASANT_VP", "S_PENALTY", "G", "GOAL_OWNER", "ROW", "DECK",
    "LOC", "HOST", "ORD_ENT", "ORD_GKIND", "ORD_GEND", "ORD_HOST", "SCR_ENT", "SCR_KEY"), PL, {
    "OPT": "rule option codes", "CARD_TYPE": "card types", "CARD_VP": "printed VP per card",
    "GOAL_VP": "goal VP", "PEASANT_VP": "VP by Peasants kept", "S_PENALTY": "scalars (penalty, token VP ...)",
    "G": "round-level scalars G_*", "GOAL_OWNER": "goal owners (-1 nobody)", "ROW": "row items",
    "DECK": "drawn cards in draw order (undrawn: 0)", "LOC": "card locations", "HOST": "stack per owned card",
    "ORD_ENT": "resolution order: entries", "ORD_GKIND": "resolution order: group kinds",
    "ORD_GEND": "resolution order: group ends", "ORD_HOST": "identical slots: stacks drawn onto",
    "SCR_ENT": "scratch (build_order)", "SCR_KEY": "scratch (build_order)"})
FIELDS, INDEX, SIZE = masked_fields(L, REGIONS, MAXP, PS, PL)


@nb.njit(cache=True)
def masked(s, player):
    """The state as ``rules.info_key`` masks it for ``player`` (-1: for nobody)."""
    c = s.copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    for i in range(DECK + s[G_DECK_PTR], DECK + N_DYN):
        c[i] = 0
    if s[G_PHASE] == PH_COMMIT:
        for q in range(n_players(s)):
            if q == player:
                continue
            b = pb(q)
            c[b + F_HAND] = s[b + F_HAND_START]
            c[b + F_ZERO] = 0
            c[b + F_EMP_SLOT] = 0 if s[b + F_EMP_SLOT] >= 0 else -1
            for j in range(2):
                if s[b + F_SLOT_CARD + j] != NO_CARD and s[b + F_SLOT_STEP + j] == STEP_COMMIT:
                    c[b + F_SLOT_CARD + j] = COMMITTED
                    if s[b + F_HAND_START] == 1:
                        c[b + F_SLOT_STACK + j] = 0
    return c


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
