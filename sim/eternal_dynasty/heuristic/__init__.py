"""Eternal Dynasty heuristic: a documented plan over the board, the own hand and its tries.

Plan (docs/games/eternal_dynasty.md, "Heuristic"):

1. **Ruler choice**: the Ruler with the largest bonus pool plus keep count, plus half a
   point for every own token already in its Home Province and the provinces next to it
   (the Home Province is always a legal target, so a Home near the own Influence widens
   the reach).
2. **Keep**: discard the cards of the lowest fixed priority (Structures, Leaders and
   two-token gains first, removals last).
3. **Votes**: call the first Vote card that gives every player a gain or a card (it helps
   the caller no less than anyone) from round 2 on; vote Aye on one's own Vote and on
   those, Nay otherwise; spend no extra Vote cards.
4. **2 players**: bid a quarter of one's Dynasty Influence, rounded up, with every Aye/Nay
   (the bid winner decides the Emperor's vote and choices; a quarter keeps DI for later
   Votes and for naming the Emperor in an Alliance); the bid winner declares the Emperor's
   vote the same as its own pick.
5. **Everything else** (the action, card targets, types, bonus amounts): one-ply greedy.
   Each legal choice is tried on a copy, the rest of the same effect is completed with a
   fixed default (the largest legal action, so bonus is spent in full), and the choice
   that maximises own provisional score minus the best opponent's is taken (ties at
   random).  Provisional score: points so far, Coins at 1 each, and the board scored as
   if the Generation ended now.  Passing scores 0 change, so a useless card is not played.
   The Eternal Emperor counts as an opponent (its win is a loss), and the Emperor's own
   choices (its share of a Vote or an Alliance, its removals) are made the same way by the
   seat deciding for it, to that seat's advantage.  Dong's optional start-of-turn gain is
   always taken (only its type is chosen greedily), also when completing an effect.
6. **Estimates instead of most tries** (the contract's :func:`heuristic`, policy
   ``ESTIMATED``).  The one-province estimate of adding tokens of a colour to a province
   re-scores that province alone (:func:`estimate_at`).  In the main action every card is
   tried, passing is valued as no change, and only the placement with the best estimate
   (its token and its type's whole bonus pool) is tried.  A card's target province and a
   removal of one's own token: the ``SHORTLIST`` best by their estimate are tried, and
   outside the scoring phases (where the provisional score leaves the board out, so tries
   tie) the best estimate is taken.  A bonus amount: the least with the best estimate, so
   what adds nothing stays in the pool for a later gain (and, in 2 players, becomes Dynasty
   Influence at the Generation's end).
   :func:`shortlisted` (the main action's ``SHORTLIST`` best placements tried, everything
   else searched) and :func:`exhaustive` (every legal choice tried) are the earlier
   policies, kept as user kernels.

**What it reads.**  The plan's rules read public information and the own hand, but a try
completes its effect on a copy of the true state: the Coins it awards carry their drawn
values, the dice it rolls come from the state's chance stream, the cards it draws from the
true decks.  So the contract's heuristic sees hidden information in about 0.2% of its
decisions (``dynasty bench heuristic_honesty``).  :func:`honest` is the same plan in a copy
resampled from the mover's information set, as a user kernel.

Other code imports from this package; its modules, in the order they build on each other:
``tries`` (a choice tried on the work copy), ``board`` (the board table and the value of a
try), ``estimates`` (one-province estimates), ``search`` (the one-ply greedy search) and
``policy`` (the plan by decision); ``features``, the contract's ``action_features`` from the
exhaustive search's tries.
"""

from sim.eternal_dynasty.heuristic.board import (
    RK_ROWS,
    board_table,
    board_total,
    cached_board_table,
    cached_ranks,
    changed_provinces,
    leader_strengths,
    same_rulers,
    scored_now,
    value_of_try,
)
from sim.eternal_dynasty.heuristic.estimates import (
    estimate_at,
    estimate_placements,
    placement_bound,
    scores_now,
    shortlist_placements,
)
from sim.eternal_dynasty.heuristic.features import ACTION_FEATURES, action_features
from sim.eternal_dynasty.heuristic.policy import (
    exhaustive,
    heuristic,
    honest,
    plan,
    shortlisted,
)
from sim.eternal_dynasty.heuristic.search import (
    ESTIMATED,
    EXHAUSTIVE,
    SHORTLIST,
    SHORTLISTED,
)
from sim.eternal_dynasty.heuristic.tries import (
    lookahead_copy,
    play_try,
    restore,
)

__all__ = [
    "ACTION_FEATURES",
    "ESTIMATED",
    "EXHAUSTIVE",
    "RK_ROWS",
    "SHORTLIST",
    "SHORTLISTED",
    "action_features",
    "board_table",
    "board_total",
    "cached_board_table",
    "cached_ranks",
    "changed_provinces",
    "estimate_at",
    "estimate_placements",
    "exhaustive",
    "heuristic",
    "honest",
    "leader_strengths",
    "lookahead_copy",
    "placement_bound",
    "plan",
    "play_try",
    "restore",
    "same_rulers",
    "scored_now",
    "scores_now",
    "shortlist_placements",
    "shortlisted",
    "value_of_try",
]
