"""Per-seat features (``FEATURE_NAMES``, one named column index ``FEAT_*`` each),
provisional scores and the leaf evaluation for search.
"""

import numba as nb
import numpy as np

from sim.core import kernel
from sim.eternal_dynasty.layout import (
    EE,
    F_BIDS_WON,
    F_CARDS_PLAYED,
    F_COIN_VALUE,
    F_COINS,
    F_DI,
    F_DI_SPENT,
    F_PLACED,
    F_PTS_COINCONV,
    F_PTS_MAJORITY,
    F_PTS_PROV,
    F_PTS_RULER,
    F_PTS_STRUCT,
    F_RULER_HIST,
    F_SCORE,
    F_VOTES_CALLED,
    F_VOTES_PASSED,
    G_BIDS,
    G_EVENTS_DRAWN,
    G_FINAL_FIRST,
    G_OVER,
    G_PASSES,
    G_PHASE,
    G_VOTES_CALLED,
    G_VOTES_PASSED,
    MAX_GENS,
    MAXP,
    N_PROV,
    N_RULERS,
    PH_AFTER_KEEP,
    PH_TURNS,
    QUAR,
)
from sim.eternal_dynasty.rules.helpers import n_colours, n_players, pb, tokens_total
from sim.eternal_dynasty.rules.kernels import ee_wins, returns
from sim.eternal_dynasty.rules.scoring import final_score, score_province

FEATURE_NAMES = (
    (
        "score",
        "coins",
        "coin_value",
        "tokens",
        "pts_majority",
        "pts_structures",
        "pts_coin_conversion",
        "pts_ruler_ability",
        "votes_called",
        "votes_passed",
        "cards_played",
        "placements",
    )
    + tuple(f"ruler_gen{g + 1}" for g in range(MAX_GENS))
    + tuple(f"pts_province_{q + 1}" for q in range(N_PROV))
    + tuple(f"ruler_{r + 1}" for r in range(N_RULERS))
    + (
        "game_votes_called",
        "game_votes_passed",
        "game_events_drawn",
        "game_passes",
        "seat_first_final_gen",
    )
    # 2 players (0 otherwise): the Eternal Emperor's final score and tokens, whether it won
    # (then every seat's win share is 0), the seat's Dynasty Influence at the end, DI spent
    # (bids and Alliances) and bids won, and the number of bids in the game
    + ("ee_score", "ee_tokens", "ee_won", "di_final", "di_spent", "bids_won", "game_bids")
)
N_FEATURES = len(FEATURE_NAMES)

# The column of each feature in ``features``' output: the index of its name above (a group
# of columns: its first, e.g. FEAT_RULER_GEN + g for Generation g + 1).
FEAT_SCORE = FEATURE_NAMES.index("score")
FEAT_COINS = FEATURE_NAMES.index("coins")
FEAT_COIN_VALUE = FEATURE_NAMES.index("coin_value")
FEAT_TOKENS = FEATURE_NAMES.index("tokens")
FEAT_PTS_MAJORITY = FEATURE_NAMES.index("pts_majority")
FEAT_PTS_STRUCTURES = FEATURE_NAMES.index("pts_structures")
FEAT_PTS_COIN_CONVERSION = FEATURE_NAMES.index("pts_coin_conversion")
FEAT_PTS_RULER_ABILITY = FEATURE_NAMES.index("pts_ruler_ability")
FEAT_VOTES_CALLED = FEATURE_NAMES.index("votes_called")
FEAT_VOTES_PASSED = FEATURE_NAMES.index("votes_passed")
FEAT_CARDS_PLAYED = FEATURE_NAMES.index("cards_played")
FEAT_PLACEMENTS = FEATURE_NAMES.index("placements")
FEAT_RULER_GEN = FEATURE_NAMES.index("ruler_gen1")  # MAX_GENS columns
FEAT_PTS_PROVINCE = FEATURE_NAMES.index("pts_province_1")  # N_PROV columns
FEAT_RULER = FEATURE_NAMES.index("ruler_1")  # N_RULERS columns
FEAT_GAME_VOTES_CALLED = FEATURE_NAMES.index("game_votes_called")
FEAT_GAME_VOTES_PASSED = FEATURE_NAMES.index("game_votes_passed")
FEAT_GAME_EVENTS_DRAWN = FEATURE_NAMES.index("game_events_drawn")
FEAT_GAME_PASSES = FEATURE_NAMES.index("game_passes")
FEAT_SEAT_FIRST_FINAL_GEN = FEATURE_NAMES.index("seat_first_final_gen")
FEAT_EE_SCORE = FEATURE_NAMES.index("ee_score")
FEAT_EE_TOKENS = FEATURE_NAMES.index("ee_tokens")
FEAT_EE_WON = FEATURE_NAMES.index("ee_won")
FEAT_DI_FINAL = FEATURE_NAMES.index("di_final")
FEAT_DI_SPENT = FEATURE_NAMES.index("di_spent")
FEAT_BIDS_WON = FEATURE_NAMES.index("bids_won")
FEAT_GAME_BIDS = FEATURE_NAMES.index("game_bids")


@kernel
def features(s, out):
    """Per-seat balance features (docs/games/eternal_dynasty.md)."""
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        out[p, FEAT_SCORE] = final_score(s, p)
        out[p, FEAT_COINS] = s[b + F_COINS]
        out[p, FEAT_COIN_VALUE] = s[b + F_COIN_VALUE]
        out[p, FEAT_TOKENS] = tokens_total(s, p)
        out[p, FEAT_PTS_MAJORITY] = s[b + F_PTS_MAJORITY]
        out[p, FEAT_PTS_STRUCTURES] = s[b + F_PTS_STRUCT]
        out[p, FEAT_PTS_COIN_CONVERSION] = s[b + F_PTS_COINCONV]
        out[p, FEAT_PTS_RULER_ABILITY] = s[b + F_PTS_RULER]
        out[p, FEAT_VOTES_CALLED] = s[b + F_VOTES_CALLED]
        out[p, FEAT_VOTES_PASSED] = s[b + F_VOTES_PASSED]
        out[p, FEAT_CARDS_PLAYED] = s[b + F_CARDS_PLAYED]
        out[p, FEAT_PLACEMENTS] = s[b + F_PLACED]
        for g in range(MAX_GENS):
            out[p, FEAT_RULER_GEN + g] = s[b + F_RULER_HIST + g] + 1
        for q in range(N_PROV):
            out[p, FEAT_PTS_PROVINCE + q] = s[b + F_PTS_PROV + q]
        for r in range(N_RULERS):
            out[p, FEAT_RULER + r] = 0
        for g in range(MAX_GENS):
            r = s[b + F_RULER_HIST + g]
            if r >= 0:
                out[p, FEAT_RULER + r] += 1
        out[p, FEAT_GAME_VOTES_CALLED] = s[G_VOTES_CALLED]
        out[p, FEAT_GAME_VOTES_PASSED] = s[G_VOTES_PASSED]
        out[p, FEAT_GAME_EVENTS_DRAWN] = s[G_EVENTS_DRAWN]
        out[p, FEAT_GAME_PASSES] = s[G_PASSES]
        out[p, FEAT_SEAT_FIRST_FINAL_GEN] = 1 if s[G_FINAL_FIRST] == p else 0
        two = n == 2
        out[p, FEAT_EE_SCORE] = final_score(s, EE) if two else 0
        out[p, FEAT_EE_TOKENS] = tokens_total(s, EE) if two else 0
        out[p, FEAT_EE_WON] = 1 if ee_wins(s) else 0
        out[p, FEAT_DI_FINAL] = s[b + F_DI]
        out[p, FEAT_DI_SPENT] = s[b + F_DI_SPENT]
        out[p, FEAT_BIDS_WON] = s[b + F_BIDS_WON]
        out[p, FEAT_GAME_BIDS] = s[G_BIDS]


@nb.njit(cache=True)
def provisional(s, out):
    """Points so far, Coins at their mean value 1, and the board scored as if the
    Generation ended now (the heuristic's and MCTS's estimate); every colour, the EE included."""
    work = np.zeros((4, MAXP + 1), np.int32)
    provisional_into(s, out, work[0], work[1], work[2], work[3])


@kernel
def provisional_into(s, out, pts, spts, coin, st):
    """:func:`provisional` with its four work arrays (MAXP + 1 ints each) given by the caller."""
    n = n_colours(s)
    for p in range(MAXP + 1):
        pts[p] = 0
        spts[p] = 0
        coin[p] = 0
    if s[G_PHASE] == PH_TURNS or s[G_PHASE] == PH_AFTER_KEEP:
        for q in range(N_PROV):
            if s[QUAR + q] == 0:
                score_province(s, q, pts, spts, coin, st)
    for p in range(n):
        out[p] = s[pb(p) + F_SCORE] + s[pb(p) + F_COINS] + pts[p] + spts[p] + coin[p]
        if s[G_OVER] == 1:
            out[p] = final_score(s, p)


@nb.njit(cache=True)
def evaluate(s, out):
    """Leaf value in [0, 1]: 1 for the provisional leader, scaled by the gap to the others
    (the Eternal Emperor counts as a rival: a seat behind it is valued below 1)."""
    n = n_players(s)
    if s[G_OVER] == 1:
        sc = np.zeros(n)
        returns(s, sc, out)
        return
    v = np.zeros(MAXP + 1, np.float64)
    provisional(s, v)
    lo = v[0]
    hi = v[0]
    for p in range(n_colours(s)):
        lo = min(lo, v[p])
        hi = max(hi, v[p])
    for p in range(n):
        out[p] = 0.5 if hi == lo else (v[p] - lo) / (hi - lo)
