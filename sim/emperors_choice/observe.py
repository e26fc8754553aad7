"""Emperor's Choice's observation tensor (contract: sim.observe): the masked state.

The seat's information-state tensor is the observer one-hot, the state words that
``rules.info_key`` hashes masked as it masks them (RNG and seed words; unknown cards in
other hands shown as in the deck; other seats' Tribute cards and those under Policy cards
as totals; the Tribute deck; the chance log), then the player blocks, then the number of
unknown cards in each hand (public, R-C7).  With ``player = -1`` every hand is masked:
the public tensor.  Layout table: docs/games/emperors_choice.md.
"""

import numba as nb
import numpy as np

from sim.core import FNV_OFFSET, fnv_words, hash64
from sim.emperors_choice import layout as L
from sim.emperors_choice.layout import LOG, MAXP, PL, PS, SCRATCH
from sim.emperors_choice.rules import masked_state
from sim.observe import HEADER_REGIONS, Field, Observation, masked_fields, regions_between

REGIONS = (
    list(HEADER_REGIONS)
    + regions_between(
        L,
        (
            "OPT",
            "DAT",
            "G",
            "LOC",
            "KNOWN",
            "RECRUIT",
            "BAG",
            "REMOVED",
            "SETS",
            "POLICY",
            "UNDER",
            "TRIB_DECK",
            "TREASURE",
            "TR_USED",
            "SCORED_BY_SIDE",
            "STACK",
        ),
        LOG,
        {
            "OPT": "rule option codes",
            "DAT": "component data D_*",
            "G": "round-level scalars G_*",
            "LOC": "card locations (unknown cards in other hands: LOC_DECK)",
            "KNOWN": "card identity public",
            "RECRUIT": "Recruitment display",
            "BAG": "tiles in the bag",
            "REMOVED": "tiles out of the game",
            "SETS": "Tile display",
            "POLICY": "Policy cards (side, disc)",
            "UNDER": "Tribute cards under each Policy card (total in the first word)",
            "TRIB_DECK": "Tribute deck (masked: 0)",
            "TREASURE": "Treasure owners",
            "TR_USED": "Treasures used",
            "SCORED_BY_SIDE": "policy scorings per card side",
            "STACK": "effect work stack",
        },
    )
    + regions_between(
        L,
        ("REVEALING", "BID_FX"),
        PL,
        {
            "REVEALING": "cards revealed for the scoring under way",
            "BID_FX": "bid-time effects still to run",
        },
    )
)
FIELDS, INDEX, SIZE = masked_fields(
    L,
    REGIONS,
    MAXP,
    PS,
    PL,
    extra=(Field("hidden_cards", 0, MAXP, "per seat: cards in hand the observer cannot identify"),),
)
HIDDEN = SIZE - MAXP


masked = masked_state  # the one masking, shared with rules.info_key


@nb.njit(cache=True)
def key(s, player):
    """``rules.info_key`` recomputed from :func:`masked` (tests check they agree)."""
    hidden = np.zeros(MAXP, np.int64)
    c = masked(s, player, hidden)
    return hash64(np.int64(fnv_words(hidden, fnv_words(c[:SCRATCH], FNV_OFFSET))), player)


@nb.njit(cache=True)
def observe(s, player, out):
    hidden = np.zeros(MAXP, np.int64)
    c = masked(s, player, hidden)
    out[:] = 0.0
    if player >= 0:
        out[player] = 1.0
    for i in range(INDEX.shape[0]):
        out[MAXP + i] = c[INDEX[i]]
    for q in range(MAXP):
        out[HIDDEN + q] = hidden[q]


OBSERVATION = Observation(size=SIZE, observe=observe, fields=FIELDS)
