"""Per-seat features (``FEATURE_NAMES``, one named column index ``FEAT_*`` each),
provisional scores and the leaf evaluation for search.
"""

import numba as nb
import numpy as np

from sim.core import H_NPLAYERS, kernel
from sim.emperors_choice.layout import (
    F_BONUS_TILE,
    F_DECREES,
    F_HIRED,
    F_LOST_ITEMS,
    F_PALACE,
    F_RECRUITS,
    F_SCORE,
    F_START_CAR,
    F_TURNS_TILE,
    F_VP_CHARS,
    F_VP_DECREE,
    F_VP_GOLD,
    F_VP_LOST,
    F_VP_OTHER,
    F_VP_PALACE,
    F_VP_POLICY,
    F_VP_TREASURE,
    F_VP_TRIBUTE,
    F_VP_TRUST,
    F_WD_COUNT,
    G_BARB,
    G_EXHAUST,
    G_FIRST_START,
    G_OVERFLOWS,
    G_POLICIES_SCORED,
    G_SEAL_USES,
    G_STACK_N,
    MAX_ROUNDS,
    N_POLICY,
    N_WD,
)
from sim.emperors_choice.rules.final import final_scoring
from sim.emperors_choice.rules.helpers import pb, player_wall

FEATURE_NAMES = (
    ("vp_decree",)
    + tuple(
        f"vp_policy_{x}"
        for x in (
            "centralization",
            "decentralization",
            "legalism",
            "confucianism",
            "extravagance",
            "frugality",
            "border_defence",
            "expedition",
            "meritocracy",
            "blood_lineage",
            "book_burning",
            "book_preservation",
            "emperors_tour",
            "emperors_parade",
        )
    )
    + (
        "vp_trust",
        "vp_palace",
        "vp_gold",
        "vp_characters",
        "vp_treasures",
        "vp_tributes",
        "vp_other",
        "vp_lost",
    )
    + tuple(f"turn_tile_{t}" for t in range(1, 6))
    + tuple(f"withdrawal_w{i}" for i in range(1, 7))
    + tuple(f"starting_bonus_sb{i}" for i in range(1, 6))
    + tuple(f"start_carriage_{i}" for i in range(1, 6))
    + (
        "first_start_player",
        "decrees",
        "palace_level",
        "wall_length",
        "recruits",
        "hired",
        "items_lost",
        "score",
        "policies_scored",
        "barbarian",
        "exhaustion_events",
        "trust_overflows",
        "seal_uses",
    )
)
N_FEATURES = len(FEATURE_NAMES)

# The column of each feature in ``features``' output: the index of its name above (a group
# of columns: its first, e.g. FEAT_WITHDRAWAL + i for Withdrawal tile W(i + 1)).
FEAT_VP_DECREE = FEATURE_NAMES.index("vp_decree")
FEAT_VP_POLICY = FEATURE_NAMES.index("vp_policy_centralization")  # 2 * N_POLICY columns
FEAT_VP_TRUST = FEATURE_NAMES.index("vp_trust")
FEAT_VP_PALACE = FEATURE_NAMES.index("vp_palace")
FEAT_VP_GOLD = FEATURE_NAMES.index("vp_gold")
FEAT_VP_CHARACTERS = FEATURE_NAMES.index("vp_characters")
FEAT_VP_TREASURES = FEATURE_NAMES.index("vp_treasures")
FEAT_VP_TRIBUTES = FEATURE_NAMES.index("vp_tributes")
FEAT_VP_OTHER = FEATURE_NAMES.index("vp_other")
FEAT_VP_LOST = FEATURE_NAMES.index("vp_lost")
FEAT_TURN_TILE = FEATURE_NAMES.index("turn_tile_1")  # 5 columns
FEAT_WITHDRAWAL = FEATURE_NAMES.index("withdrawal_w1")  # N_WD columns
FEAT_STARTING_BONUS = FEATURE_NAMES.index("starting_bonus_sb1")  # 5 columns
FEAT_START_CARRIAGE = FEATURE_NAMES.index("start_carriage_1")  # 5 columns
FEAT_FIRST_START_PLAYER = FEATURE_NAMES.index("first_start_player")
FEAT_DECREES = FEATURE_NAMES.index("decrees")
FEAT_PALACE_LEVEL = FEATURE_NAMES.index("palace_level")
FEAT_WALL_LENGTH = FEATURE_NAMES.index("wall_length")
FEAT_RECRUITS = FEATURE_NAMES.index("recruits")
FEAT_HIRED = FEATURE_NAMES.index("hired")
FEAT_ITEMS_LOST = FEATURE_NAMES.index("items_lost")
FEAT_SCORE = FEATURE_NAMES.index("score")
FEAT_POLICIES_SCORED = FEATURE_NAMES.index("policies_scored")
FEAT_BARBARIAN = FEATURE_NAMES.index("barbarian")
FEAT_EXHAUSTION_EVENTS = FEATURE_NAMES.index("exhaustion_events")
FEAT_TRUST_OVERFLOWS = FEATURE_NAMES.index("trust_overflows")
FEAT_SEAL_USES = FEATURE_NAMES.index("seal_uses")


@kernel
def features(s, out):
    """Per-seat balance features at the end of a game (``out[n, N_FEATURES]``); the last five
    are per game."""
    n = s[H_NPLAYERS]
    for p in range(n):
        b = pb(p)
        out[p, FEAT_VP_DECREE] = s[b + F_VP_DECREE]
        for i in range(2 * N_POLICY):
            out[p, FEAT_VP_POLICY + i] = s[b + F_VP_POLICY + i]
        out[p, FEAT_VP_TRUST] = s[b + F_VP_TRUST]
        out[p, FEAT_VP_PALACE] = s[b + F_VP_PALACE]
        out[p, FEAT_VP_GOLD] = s[b + F_VP_GOLD]
        out[p, FEAT_VP_CHARACTERS] = s[b + F_VP_CHARS]
        out[p, FEAT_VP_TREASURES] = s[b + F_VP_TREASURE]
        out[p, FEAT_VP_TRIBUTES] = s[b + F_VP_TRIBUTE]
        out[p, FEAT_VP_OTHER] = s[b + F_VP_OTHER]
        out[p, FEAT_VP_LOST] = -s[b + F_VP_LOST]
        for t in range(1, 6):
            k = 0
            for r in range(MAX_ROUNDS):
                if s[b + F_TURNS_TILE + r] == t:
                    k += 1
            out[p, FEAT_TURN_TILE + t - 1] = k
        for i in range(N_WD):
            out[p, FEAT_WITHDRAWAL + i] = s[b + F_WD_COUNT + i]
        for i in range(5):
            out[p, FEAT_STARTING_BONUS + i] = 1.0 if s[b + F_BONUS_TILE] == i + 1 else 0.0
            out[p, FEAT_START_CARRIAGE + i] = 1.0 if s[b + F_START_CAR] == i + 1 else 0.0
        out[p, FEAT_FIRST_START_PLAYER] = 1.0 if s[G_FIRST_START] == p else 0.0
        out[p, FEAT_DECREES] = s[b + F_DECREES]
        out[p, FEAT_PALACE_LEVEL] = s[b + F_PALACE]
        out[p, FEAT_WALL_LENGTH] = player_wall(s, p)
        out[p, FEAT_RECRUITS] = s[b + F_RECRUITS]
        out[p, FEAT_HIRED] = s[b + F_HIRED]
        out[p, FEAT_ITEMS_LOST] = s[b + F_LOST_ITEMS]
        out[p, FEAT_SCORE] = s[b + F_SCORE]
        out[p, FEAT_POLICIES_SCORED] = s[G_POLICIES_SCORED]
        out[p, FEAT_BARBARIAN] = s[G_BARB]
        out[p, FEAT_EXHAUSTION_EVENTS] = s[G_EXHAUST]
        out[p, FEAT_TRUST_OVERFLOWS] = s[G_OVERFLOWS]
        out[p, FEAT_SEAL_USES] = s[G_SEAL_USES]


@nb.njit(cache=True)
def provisional_scores(s, out):
    """Each seat's score if final scoring happened now (on a copy, no chance draws kept)."""
    c = s.copy()
    c[G_STACK_N] = 0
    final_scoring(c)
    for p in range(s[H_NPLAYERS]):
        out[p] = c[pb(p) + F_SCORE]


@nb.njit(cache=True)
def evaluate(s, out):
    """Leaf value in [0, 1]: a logistic of the provisional lead over the best rival."""
    n = s[H_NPLAYERS]
    sc = np.zeros(n)
    provisional_scores(s, sc)
    for p in range(n):
        best = -1e9
        for q in range(n):
            if q != p and sc[q] > best:
                best = sc[q]
        out[p] = 1.0 / (1.0 + np.exp(-(sc[p] - best) / 10.0))
