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

from sim.core import FNV_OFFSET, H_NPLAYERS, fnv_words, hash64
from sim.emperors_choice import layout as L
from sim.emperors_choice.layout import (G_FORCED_N, G_LOG_N, KNOWN, LOC, LOC_DECK, LOC_HAND, LOG, MAXP, N_POLICY,
                                        N_TRIB, PL, PS, REVEALING, SCRATCH, TRIB_DECK, UNDER, F_TRIB)
from sim.emperors_choice.rules import ncards, pb
from sim.observe import HEADER_REGIONS, Field, Observation, masked_fields, regions_between

REGIONS = list(HEADER_REGIONS) + regions_between(L, (
    "OPT", "DAT", "G", "LOC", "KNOWN", "RECRUIT", "BAG", "REMOVED", "SETS", "POLICY", "UNDER", "TRIB_DECK",
    "TREASURE", "TR_USED", "SCORED_BY_SIDE", "STACK"), LOG, {
    "OPT": "rule option codes", "DAT": "component data D_*", "G": "round-level scalars G_*",
    "LOC": "card locations (unknown cards in other hands: LOC_DECK)", "KNOWN": "card identity public",
    "RECRUIT": "Recruitment display", "BAG": "tiles in the bag", "REMOVED": "tiles out of the game",
    "SETS": "Tile display", "POLICY": "Policy cards (side, disc)",
    "UNDER": "Tribute cards under each Policy card (total in the first word)",
    "TRIB_DECK": "Tribute deck (masked: 0)", "TREASURE": "Treasure owners", "TR_USED": "Treasures used",
    "SCORED_BY_SIDE": "policy scorings per card side", "STACK": "effect work stack"}) + regions_between(
    L, ("REVEALING", "BID_FX"), PL, {"REVEALING": "cards revealed for the scoring under way",
                                     "BID_FX": "bid-time effects still to run"})
FIELDS, INDEX, SIZE = masked_fields(L, REGIONS, MAXP, PS, PL, extra=(
    Field("hidden_cards", 0, MAXP, "per seat: cards in hand the observer cannot identify"),))
HIDDEN = SIZE - MAXP


@nb.njit(cache=True)
def masked(s, player, hidden):
    """The state as ``rules.info_key`` masks it for ``player`` (-1: for nobody); the
    unknown cards per hand go to ``hidden``."""
    c = s.copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    n = s[H_NPLAYERS]
    hidden[:] = 0
    for card in range(ncards(s)):
        loc = s[LOC + card]
        if loc >= LOC_HAND and loc < LOC_HAND + MAXP and loc != LOC_HAND + player and s[KNOWN + card] == 0:
            hidden[loc - LOC_HAND] += 1
            c[LOC + card] = LOC_DECK
    for q in range(n):
        if q != player:
            tot = 0
            for t in range(N_TRIB):
                tot += s[pb(q) + F_TRIB + t]
                c[pb(q) + F_TRIB + t] = 0
            c[pb(q) + F_TRIB] = tot
    for card in range(N_POLICY):
        tot = 0
        for t in range(N_TRIB):
            tot += s[UNDER + card * N_TRIB + t]
            c[UNDER + card * N_TRIB + t] = 0
        c[UNDER + card * N_TRIB] = tot
    for t in range(N_TRIB):
        c[TRIB_DECK + t] = 0
    for i in range(LOG, REVEALING):
        c[i] = 0
    c[G_LOG_N] = 0
    c[G_FORCED_N] = 0
    return c


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
