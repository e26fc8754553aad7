"""Per-seat features (``FEATURE_NAMES``, one named column index ``FEAT_*`` each),
provisional scores and the leaf evaluation for search.
"""

import numba as nb
import numpy as np

from sim.core import kernel
from sim.middle_kingdom.layout import (
    F_DRAGON_GOT,
    F_EFF,
    F_HARVEST_SWAPS,
    F_PENALTY,
    F_PICK_RANK_SUM,
    F_PICKS,
    F_SCORE,
    F_TIES,
    F_TOKENS,
    F_VP_CARDS,
    F_VP_GOALS,
    F_VP_PEASANTS,
    F_VP_PHIL,
    F_VP_TOKENS,
    G_IDENT_DRAWS,
    G_ROUND,
    G_TOKEN_OVER,
    GOAL_OWNER,
    LOC,
    LOC_OWNED,
    N_GOALS,
    N_TYPES,
    S_PHIL,
)
from sim.middle_kingdom.rules.helpers import dyn_count, n_players, pb
from sim.middle_kingdom.rules.scoring import score_game

FEATURE_NAMES = (
    "goal_palace",
    "goal_harvest",
    "goal_market",
    "goal_heir",
    "goal_emperor",
    "goal_dragon",
    "officials",
    "peasants",
    "merchants",
    "nobles",
    "generals",
    "philosopher",
    "tokens",
    "dynasty_cards",
    "vp_goals",
    "vp_cards",
    "vp_tokens",
    "vp_missing_types",
    "vp_peasants",
    "vp_philosopher",
    "ties",
    "harvest_swaps",
    "dragon_summons",
    "mean_pick_position",
    "rounds",
    "identical_draws",
    "tokens_over_supply",
)
N_FEATURES = len(FEATURE_NAMES)

# The column of each feature in ``features``' output: the index of its name above (a group
# of columns: its first, e.g. FEAT_GOAL + g for goal g, FEAT_TYPE + t for card type t).
FEAT_GOAL = FEATURE_NAMES.index("goal_palace")  # N_GOALS columns, in the order of goal ids
FEAT_TYPE = FEATURE_NAMES.index("officials")  # N_TYPES columns, in the order of card types
FEAT_PHILOSOPHER = FEATURE_NAMES.index("philosopher")
FEAT_TOKENS = FEATURE_NAMES.index("tokens")
FEAT_DYNASTY_CARDS = FEATURE_NAMES.index("dynasty_cards")
FEAT_VP_GOALS = FEATURE_NAMES.index("vp_goals")
FEAT_VP_CARDS = FEATURE_NAMES.index("vp_cards")
FEAT_VP_TOKENS = FEATURE_NAMES.index("vp_tokens")
FEAT_VP_MISSING_TYPES = FEATURE_NAMES.index("vp_missing_types")
FEAT_VP_PEASANTS = FEATURE_NAMES.index("vp_peasants")
FEAT_VP_PHILOSOPHER = FEATURE_NAMES.index("vp_philosopher")
FEAT_TIES = FEATURE_NAMES.index("ties")
FEAT_HARVEST_SWAPS = FEATURE_NAMES.index("harvest_swaps")
FEAT_DRAGON_SUMMONS = FEATURE_NAMES.index("dragon_summons")
FEAT_MEAN_PICK_POSITION = FEATURE_NAMES.index("mean_pick_position")
FEAT_ROUNDS = FEATURE_NAMES.index("rounds")
FEAT_IDENTICAL_DRAWS = FEATURE_NAMES.index("identical_draws")
FEAT_TOKENS_OVER_SUPPLY = FEATURE_NAMES.index("tokens_over_supply")


@kernel
def features(s, out):
    """Per-seat balance features at the end of a game (``out[n, N_FEATURES]``).

    Goals are those held after the end-game Heir award; card counts are effective counts;
    the last three columns are per game (same value on every seat).
    """
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        for g in range(N_GOALS):
            out[p, FEAT_GOAL + g] = 1.0 if s[GOAL_OWNER + g] == p else 0.0
        for t in range(N_TYPES):
            out[p, FEAT_TYPE + t] = s[b + F_EFF + t]
        out[p, FEAT_PHILOSOPHER] = 1.0 if s[LOC + s[S_PHIL]] == LOC_OWNED + p else 0.0
        out[p, FEAT_TOKENS] = s[b + F_TOKENS]
        out[p, FEAT_DYNASTY_CARDS] = dyn_count(s, p)
        out[p, FEAT_VP_GOALS] = s[b + F_VP_GOALS]
        out[p, FEAT_VP_CARDS] = s[b + F_VP_CARDS]
        out[p, FEAT_VP_TOKENS] = s[b + F_VP_TOKENS]
        out[p, FEAT_VP_MISSING_TYPES] = -s[b + F_PENALTY]
        out[p, FEAT_VP_PEASANTS] = s[b + F_VP_PEASANTS]
        out[p, FEAT_VP_PHILOSOPHER] = s[b + F_VP_PHIL]
        out[p, FEAT_TIES] = s[b + F_TIES]
        out[p, FEAT_HARVEST_SWAPS] = s[b + F_HARVEST_SWAPS]
        out[p, FEAT_DRAGON_SUMMONS] = s[b + F_DRAGON_GOT]
        picks = s[b + F_PICKS]
        out[p, FEAT_MEAN_PICK_POSITION] = s[b + F_PICK_RANK_SUM] / picks if picks > 0 else 0.0
        out[p, FEAT_ROUNDS] = s[G_ROUND]
        out[p, FEAT_IDENTICAL_DRAWS] = s[G_IDENT_DRAWS]
        out[p, FEAT_TOKENS_OVER_SUPPLY] = s[G_TOKEN_OVER]


@nb.njit(cache=True)
def provisional_scores(s, out):
    """Each seat's score if the game ended now (S1-S5 on a copy)."""
    c = s.copy()
    score_game(c)
    for p in range(n_players(s)):
        out[p] = c[pb(p) + F_SCORE]


@nb.njit(cache=True)
def evaluate(s, out):
    """Leaf value in [0, 1] per seat: a logistic of the provisional lead over the best rival."""
    n = n_players(s)
    sc = np.zeros(n)
    provisional_scores(s, sc)
    for p in range(n):
        best = -1e9
        for q in range(n):
            if q != p and sc[q] > best:
                best = sc[q]
        out[p] = 1.0 / (1.0 + np.exp(-(sc[p] - best) / 6.0))
