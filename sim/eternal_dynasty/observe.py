"""Eternal Dynasty's observation tensor (contract: sim.observe): the masked state.

The seat's information-state tensor is the observer one-hot followed by the state words
before the chance log that ``rules.info_key`` hashes, masked as it masks them (RNG, deck
orders, card locations and knowledge bits; other seats' hands, dealt Rulers and pending
secret choices, whose counts stay; Coin values and the bag until the game is over); the
regions that are always masked are left out; the player blocks (six colours: the
2-player Eternal Emperor has one) come last.  With ``player = -1`` every seat's private
part is masked: the public tensor.  Layout table: docs/games/eternal_dynasty.md.
"""

import numba as nb

from sim.core import hash_words
from sim.eternal_dynasty import layout as L
from sim.eternal_dynasty.layout import DYN_LOC, LOG, MAXP, NCOL, PL, PS, VOTE_LOC
from sim.eternal_dynasty.rules import masked_state
from sim.observe import HEADER_REGIONS, Observation, masked_fields, regions_between

REGIONS = (
    list(HEADER_REGIONS)
    + regions_between(
        L,
        (
            "OPT",
            "DATA",
            "G_PHASE",
            "G_BAN",
            "TOK",
            "LEAD",
            "STRUCT",
            "MARK",
            "QUAR",
            "ADJ",
            "DYN_TYPE",
        ),
        DYN_LOC,
        {
            "OPT": "rule option codes",
            "DATA": "component data D_*",
            "G_PHASE": "game-level scalars G_* (bag and log pointers masked)",
            "G_BAN": "vote bans in force",
            "TOK": "tokens [colour][province][type]",
            "LEAD": "leaders [colour][province][kind]",
            "STRUCT": "structures [province][kind]",
            "MARK": "event marks",
            "QUAR": "quarantined provinces",
            "ADJ": "adjacency in play",
            "DYN_TYPE": "Dynasty card types",
        },
    )
    + regions_between(L, ("VOTE_TYPE",), VOTE_LOC, {"VOTE_TYPE": "Vote card types"})
    + regions_between(L, ("STACK",), PL, {"STACK": "task stack"})
    + regions_between(
        L,
        ("SNAP_BOARD", "SNAP_RULERS"),
        LOG,
        {"SNAP_BOARD": "board at the last scoring", "SNAP_RULERS": "Rulers at the last scoring"},
    )
)
FIELDS, INDEX, SIZE = masked_fields(L, REGIONS, MAXP, PS, PL, nblocks=NCOL)


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
