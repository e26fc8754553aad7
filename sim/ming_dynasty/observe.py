"""Ming Dynasty's observation tensor (contract: sim.observe): the masked state.

The seat's information-state tensor is the observer one-hot followed by the state words
that ``rules.info_key`` hashes, masked as it masks them (RNG and seed words, the order of
the undrawn supply (sorted: its composition is public), the future of a scripted replay,
and during the commitment step the other seats' commitments); the player blocks come last.
With ``player = -1`` every commitment is masked: the public tensor.  Layout table:
docs/games/ming_dynasty.md.
"""

import numba as nb

from sim.core import hash_words
from sim.ming_dynasty import layout as L
from sim.ming_dynasty.layout import MAXP, PL, PS
from sim.ming_dynasty.rules import masked_state
from sim.observe import HEADER_REGIONS, Observation, masked_fields, regions_between

REGIONS = list(HEADER_REGIONS) + regions_between(
    L,
    (
        "OPT",
        "ADJ",
        "S_CARDS",
        "G",
        "OPEN",
        "MONK",
        "CITY",
        "SPACE",
        "DISPLAY",
        "DECK",
        "TILE_SUPPLY",
        "PRINCE",
        "BOXED",
        "LOG",
    ),
    PL,
    {
        "OPT": "rule option codes",
        "ADJ": "district adjacency",
        "S_CARDS": "component scalars S_*",
        "G": "round-level scalars G_*",
        "OPEN": "members on open spaces [district][entity]",
        "MONK": "monks per district",
        "CITY": "city members [district][entity]",
        "SPACE": "space occupants",
        "DISPLAY": "card display per province",
        "DECK": "supply: drawn cards in order, the rest sorted by kind",
        "TILE_SUPPLY": "tiles left per province colour",
        "PRINCE": "prince positions",
        "BOXED": "members boxed",
        "LOG": "chance outcomes so far (the rest 0)",
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
