"""Per-seat features (``FEATURE_NAMES``, one named column index ``FEAT_*`` each),
provisional scores and the leaf evaluation for search.
"""

import numpy as np

from sim.core import kernel
from sim.ming_dynasty.layout import (
    BOXED,
    DPP,
    F_BONUS_TIE_WON,
    F_DEPLOYED,
    F_DRAGONS_BOUGHT,
    F_KEPT,
    F_OUSTS,
    F_PRINCE_START,
    F_RETURNED,
    F_SCORE,
    F_SUPPLY,
    F_TILES,
    F_VP_BONUS,
    F_VP_CITY,
    F_VP_MONK,
    F_VP_SET5,
    F_VP_SET6,
    F_VP_TILES,
    G_FIRST_START,
    G_PHASE,
    G_RESHUFFLES,
    G_ROUND,
    MAXP,
    N_PROV,
    PH_COMMIT,
    PH_OVER,
    ROUNDS,
    S_MONK,
    S_TILE_PT,
    SPACE,
)
from sim.ming_dynasty.rules.helpers import monks_of, n_players, pb

FEATURE_NAMES = (
    "score",
    "vp_sets",
    "vp_city",
    "vp_bonus",
    "vp_monastery",
    "vp_final_sets",
    "vp_leftover_tiles",
    "first_start",
    "supply_left",
    "members_boxed",
    "dragons_bought",
    "monks_at_end",
    "members_returned",
    "members_kept",
    "bonus_by_tiebreak",
    "ousts",
    "members_deployed",
    "members_on_spaces",
    "prince_start_province",
    "reshuffles",
)
N_FEATURES = len(FEATURE_NAMES)

# The column of each feature in ``features``' output: the index of its name above.
FEAT_SCORE = FEATURE_NAMES.index("score")
FEAT_VP_SETS = FEATURE_NAMES.index("vp_sets")
FEAT_VP_CITY = FEATURE_NAMES.index("vp_city")
FEAT_VP_BONUS = FEATURE_NAMES.index("vp_bonus")
FEAT_VP_MONASTERY = FEATURE_NAMES.index("vp_monastery")
FEAT_VP_FINAL_SETS = FEATURE_NAMES.index("vp_final_sets")
FEAT_VP_LEFTOVER_TILES = FEATURE_NAMES.index("vp_leftover_tiles")
FEAT_FIRST_START = FEATURE_NAMES.index("first_start")
FEAT_SUPPLY_LEFT = FEATURE_NAMES.index("supply_left")
FEAT_MEMBERS_BOXED = FEATURE_NAMES.index("members_boxed")
FEAT_DRAGONS_BOUGHT = FEATURE_NAMES.index("dragons_bought")
FEAT_MONKS_AT_END = FEATURE_NAMES.index("monks_at_end")
FEAT_MEMBERS_RETURNED = FEATURE_NAMES.index("members_returned")
FEAT_MEMBERS_KEPT = FEATURE_NAMES.index("members_kept")
FEAT_BONUS_BY_TIEBREAK = FEATURE_NAMES.index("bonus_by_tiebreak")
FEAT_OUSTS = FEATURE_NAMES.index("ousts")
FEAT_MEMBERS_DEPLOYED = FEATURE_NAMES.index("members_deployed")
FEAT_MEMBERS_ON_SPACES = FEATURE_NAMES.index("members_on_spaces")
FEAT_PRINCE_START_PROVINCE = FEATURE_NAMES.index("prince_start_province")
FEAT_RESHUFFLES = FEATURE_NAMES.index("reshuffles")


@kernel
def features(s, out):
    """Per-seat balance features at the end of a game (``out[n, N_FEATURES]``)."""
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        out[p, FEAT_SCORE] = s[b + F_SCORE]
        out[p, FEAT_VP_SETS] = s[b + F_VP_SET6]
        out[p, FEAT_VP_CITY] = s[b + F_VP_CITY]
        out[p, FEAT_VP_BONUS] = s[b + F_VP_BONUS]
        out[p, FEAT_VP_MONASTERY] = s[b + F_VP_MONK]
        out[p, FEAT_VP_FINAL_SETS] = s[b + F_VP_SET5]
        out[p, FEAT_VP_LEFTOVER_TILES] = s[b + F_VP_TILES]
        out[p, FEAT_FIRST_START] = 1.0 if s[G_FIRST_START] == p else 0.0
        out[p, FEAT_SUPPLY_LEFT] = s[b + F_SUPPLY]
        out[p, FEAT_MEMBERS_BOXED] = s[BOXED + p]
        out[p, FEAT_DRAGONS_BOUGHT] = s[b + F_DRAGONS_BOUGHT]
        out[p, FEAT_MONKS_AT_END] = monks_of(s, p)
        out[p, FEAT_MEMBERS_RETURNED] = s[b + F_RETURNED]
        out[p, FEAT_MEMBERS_KEPT] = s[b + F_KEPT]
        out[p, FEAT_BONUS_BY_TIEBREAK] = s[b + F_BONUS_TIE_WON]
        out[p, FEAT_OUSTS] = s[b + F_OUSTS]
        out[p, FEAT_MEMBERS_DEPLOYED] = s[b + F_DEPLOYED]
        sp = 0
        for v in range(N_PROV):
            sp += s[SPACE + v * MAXP + p]
        out[p, FEAT_MEMBERS_ON_SPACES] = sp
        out[p, FEAT_PRINCE_START_PROVINCE] = s[b + F_PRINCE_START] // DPP
        out[p, FEAT_RESHUFFLES] = s[G_RESHUFFLES]


MONK_SURVIVAL = 0.5  # evaluate: chance a monk is still in place at a later scoring (not ousted)
EVAL_SCALE = 10.0  # evaluate: points of lead that make a logistic step of e


@kernel
def scorings_left(s):
    """Scorings still to come (this round's included while its phase 4 has not started)."""
    r = s[G_ROUND]
    left = (ROUNDS - r) // 2
    if r % 2 == 0 and s[G_PHASE] < PH_COMMIT:
        left += 1
    return left


@kernel
def provisional_scores(s, out):
    """Score now, plus (before the game is over) the tiles held at their end value (4.4: one
    point each, a lower bound) and the monks' expected points at the scorings still to
    come; at the end, the final score."""
    for p in range(n_players(s)):
        b = pb(p)
        t = 0
        for c in range(N_PROV):
            t += s[b + F_TILES + c]
        out[p] = s[b + F_SCORE]
        if s[G_PHASE] != PH_OVER:  # at the end the tiles left are scored already (4.4)
            out[p] += (
                t * s[S_TILE_PT] + s[S_MONK] * monks_of(s, p) * scorings_left(s) * MONK_SURVIVAL
            )


@kernel
def evaluate(s, out):
    """Leaf value in [0, 1] per seat: a logistic of the provisional lead over the best rival."""
    n = n_players(s)
    provisional_scores(s, out)
    # the best rival of p is the largest score, or the second largest (which equals the
    # largest when two seats share it) for the seat holding the largest
    top = -1e9
    arg = -1
    for q in range(n):
        if out[q] > top:
            top = out[q]
            arg = q
    second = -1e9
    for q in range(n):
        if q != arg and out[q] > second:
            second = out[q]
    for p in range(n):
        best = second if p == arg else top
        out[p] = 1.0 / (1.0 + np.exp(-(out[p] - best) / EVAL_SCALE))
