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
import numpy as np

from sim.core import hash_words
from sim.eternal_dynasty import layout as L
from sim.eternal_dynasty.layout import (DYN_LOC, F_BID, F_CHOICE, F_COIN_VALUE, F_DEALT, F_DPICK, F_HAND,
                                        F_KEPT, F_PICK, F_VHAND, G_BAG0, G_BAG1, G_BAG2, G_BID_WINNER,
                                        G_LOG_LEN, G_LOG_OVERFLOW, G_LOG_PTR, G_OVER, HAND_MAX, LOG, MAXP, NCOL,
                                        PL, PS, STACK, VHAND_MAX, VOTE_LOC, VOTE_TYPE)
from sim.eternal_dynasty.rules import in_simultaneous_pick, n_players, pb
from sim.observe import HEADER_REGIONS, Observation, masked_fields, regions_between

REGIONS = (list(HEADER_REGIONS)
           + regions_between(L, ("OPT", "DATA", "G_PHASE", "G_BAN", "TOK", "LEAD", "STRUCT", "MARK", "QUAR",
                                 "ADJ", "DYN_TYPE"), DYN_LOC, {
                                     "OPT": "rule option codes", "DATA": "component data D_*",
                                     "G_PHASE": "game-level scalars G_* (bag and log pointers masked)",
                                     "G_BAN": "vote bans in force", "TOK": "tokens [colour][province][type]",
                                     "LEAD": "leaders [colour][province][kind]",
                                     "STRUCT": "structures [province][kind]", "MARK": "event marks",
                                     "QUAR": "quarantined provinces", "ADJ": "adjacency in play",
                                     "DYN_TYPE": "Dynasty card types"})
           + regions_between(L, ("VOTE_TYPE",), VOTE_LOC, {"VOTE_TYPE": "Vote card types"})
           + regions_between(L, ("STACK",), PL, {"STACK": "task stack"})
           + regions_between(L, ("SNAP_BOARD", "SNAP_RULERS"), LOG, {
               "SNAP_BOARD": "board at the last scoring", "SNAP_RULERS": "Rulers at the last scoring"}))
FIELDS, INDEX, SIZE = masked_fields(L, REGIONS, MAXP, PS, PL, nblocks=NCOL)


@nb.njit(cache=True)
def masked(s, player):
    """The state before the log as ``rules.info_key`` masks it for ``player`` (-1: for nobody)."""
    c = s[:LOG].copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    for i in range(DYN_LOC, STACK):
        if i < VOTE_TYPE or i >= VOTE_LOC:
            c[i] = 0
    n = n_players(s)
    pick = in_simultaneous_pick(s)
    for p in range(n):
        if p == player:
            continue
        b = pb(p)
        for i in range(HAND_MAX):
            c[b + F_HAND + i] = 0
        for i in range(VHAND_MAX):
            c[b + F_VHAND + i] = 0
        for i in range(3):
            c[b + F_DEALT + i] = 0
        c[b + F_KEPT] = 0
        c[b + F_KEPT + 1] = 0
        c[b + F_CHOICE] = 0 if s[b + F_CHOICE] < 0 else 1
        c[b + F_DPICK] = 0 if s[b + F_DPICK] < 0 else 1
        if pick:
            c[b + F_PICK] = 0 if s[b + F_PICK] < 0 else 1
            if s[G_BID_WINNER] < 0:
                c[b + F_BID] = 0 if s[b + F_BID] < 0 else 1
    c[G_LOG_LEN] = 0
    c[G_LOG_PTR] = 0
    c[G_LOG_OVERFLOW] = 0
    if s[G_OVER] == 0:
        c[G_BAG0] = 0
        c[G_BAG1] = 0
        c[G_BAG2] = 0
        for p in range(NCOL):
            c[pb(p) + F_COIN_VALUE] = 0
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
