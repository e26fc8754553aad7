"""Middle Kingdom property tests over many random games (all player counts and variants).

Invariants are checked after every decision by an independent numba checker; final
scores are recounted in plain Python from where every card lies (LOC/HOST), not from the
engine's running counters.  Every value of every rule option is played in at least
10,000 random games (the defaults in the first run, the others in ``OPTION_RUNS``).
"""

import numba as nb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import Game, get_game
from sim.core import random_legal, rng_seed
from sim.middle_kingdom import layout as L

# The invariants (checked after every decision) live in the game's package, shared with
# ``dynasty fuzz``: sim/middle_kingdom/invariants.py.
from sim.middle_kingdom.invariants import MEMO_SIZE, ST_LATE_NAMED, ST_SHORT_SLOTS, check
from sim.middle_kingdom.rules import apply, is_terminal, legal_mask, new_state, pb

SPEC = get_game("middle_kingdom")
K = SPEC.kernels


@nb.njit(cache=True)
def play_checked(seeds, n, options, finals, stats):
    """Random games; returns (game index, ply, error) of the first broken invariant or -1s.

    ``check`` (sim.middle_kingdom.invariants) runs on the start state and after every
    decision: the state's invariants, each round's identical slots and the Emperor's
    naming at 2p and advanced 3p (D5)."""
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    rng = np.zeros(2, np.int32)
    memo = np.zeros(MEMO_SIZE, np.int64)
    for g in range(seeds.shape[0]):
        s = new_state(seeds[g], n, options)
        rng_seed(rng, 0, seeds[g] + 1)
        ply = 0
        memo[:] = 0
        before = s.copy()
        k = legal_mask(s, mask)
        e = check(s, before, -1, mask, memo, stats)
        if e != 0:
            return g, ply, e
        while not is_terminal(s):
            if k == 0:
                return g, ply, 99
            a = random_legal(mask, rng, 0)
            before[:] = s
            apply(s, a)
            ply += 1
            if ply > 2000:
                return g, ply, 98
            if is_terminal(s):
                mask[:] = False
            else:
                k = legal_mask(s, mask)
            e = check(s, before, a, mask, memo, stats)
            if e != 0:
                return g, ply, e
        finals[g, :] = s
    return -1, -1, 0


def recount(s: np.ndarray) -> tuple[list[int], list[int]]:
    """Independent scoring (spec section 6) from card locations; returns (scores, dyn counts)."""
    n = int(s[2])
    typ = s[L.CARD_TYPE : L.CARD_TYPE + 62]
    vp = s[L.CARD_VP : L.CARD_VP + 62]
    eff = np.zeros((n, 5), int)
    phys_vp = np.zeros(n, int)
    count = np.zeros(n, int)
    for c in range(62):
        loc = int(s[L.LOC + c])
        if loc >= L.LOC_OWNED:
            p = loc - L.LOC_OWNED
            host = int(s[L.HOST + c])
            eff[p, host] += 1 if host == typ[c] else 2
            if s[L.O_MARKET_DBL_MERCHANT] == 1 and host != typ[c]:
                eff[p, L.MERCHANT] += 1
            phys_vp[p] += vp[c]
            count[p] += 1
    gens = eff[:, L.GENERAL]
    heir = int(np.argmax(gens)) if (gens == gens.max()).sum() == 1 else -1
    goal_vp = [4, 0, 3, 5, 0, 2]
    m = eff[:, L.PEASANT].min()
    table = [0, 2, 5, 8, 14, 20]
    phil_owner = int(s[L.LOC + 9]) - L.LOC_OWNED
    scores = []
    for p in range(n):
        sc = phys_vp[p] + 2 * int(s[pb(p) + L.F_TOKENS])
        for gi in range(6):
            owner = heir if gi == L.HEIR else int(s[L.GOAL_OWNER + gi])
            if owner == p:
                sc += goal_vp[gi]
        sc -= 3 * int((eff[p] == 0).sum())
        sc += table[min(eff[p, L.PEASANT] - m, 5)]
        if phil_owner == p:
            sc += eff[p, L.OFFICIAL] - 1
        scores.append(int(sc))
    return scores, count.tolist()


CONFIGS = [(2, {}), (3, {}), (3, {"variant": "advanced"}), (4, {}), (5, {})]
CONFIG_IDS = ["2p", "3p", "3p-advanced", "4p", "5p"]
GAMES_PER_CONFIG = 2500  # 12,500 games in all


def run_checked(n, options, games, first_seed):
    """``games`` random games checked after every decision; their scores and wins recounted."""
    seeds = np.arange(games, dtype=np.int64) + first_seed
    finals = np.zeros((games, L.STATE_SIZE), np.int32)
    stats = np.zeros(2, np.int64)
    g, ply, err = play_checked(seeds, np.int64(n), SPEC.encode_options(options), finals, stats)
    assert err == 0, (
        f"{options}: game {g} (seed {seeds[g]}), decision {ply}: invariant {err} broken"
    )
    scores = np.zeros(n)
    wins = np.zeros(n)
    for s in finals:
        K.returns(s, scores, wins)
        expect, counts = recount(s)
        assert scores.tolist() == expect
        best = max(zip(expect, counts))
        winners = [p for p in range(n) if (expect[p], counts[p]) == best]
        assert wins.tolist() == [1 / len(winners) if p in winners else 0.0 for p in range(n)]
    return finals, stats


@pytest.mark.parametrize("n,options", CONFIGS, ids=CONFIG_IDS)
def test_invariants_and_recount_over_random_games(n, options):
    _, stats = run_checked(n, options, GAMES_PER_CONFIG, 1000 * n + len(options))
    assert stats[ST_LATE_NAMED] == 0


# Every value of every rule option other than its default is played here in at least
# 10,000 random games (2,000 at each of 2, 3, advanced 3, 4 and 5 players; the Emperor's
# naming, which exists only with two bids a round, in 5,000 two-player and 5,000 advanced
# 3-player games); the defaults are the run above.  docs/games/middle_kingdom.md lists the
# coverage.
ALL_CONFIGS = tuple((n, o, 2000) for n, o in CONFIGS)
TWO_BIDS = ((2, {}, 5000), (3, {"variant": "advanced"}, 5000))
OPTION_RUNS = [
    (
        {
            "harvest_count": "before_lay",
            "ident_draw_timing": "after_picks",
            "ident_goal_timing": "per_member",
            "noble_vp_table": "alt_b_3_6_3",
        },
        ALL_CONFIGS,
    ),
    (
        {
            "ident_short_deck": "all_or_none",
            "dragon_held_includes_row_pick": "true",
            "dragon_tiebreak_dyn_count": "effective",
            "lead_seat": "fixed_seat0",
        },
        ALL_CONFIGS,
    ),
    (
        {
            "market_dbl_is_merchant": "true",
            "market_on_any_gain": "pick_only",
            "heir_optional": "false",
            "heir_may_take_dragon": "false",
            "token_limit": "18",
        },
        ALL_CONFIGS,
    ),
    ({"emp_designation_2p": "at_commit", "noble_vp_table": "alt_a_6_4_2"}, TWO_BIDS),
]


def test_every_rule_option_value_is_played_in_10000_random_games():
    cases = [(o | extra, n, games) for o, configs in OPTION_RUNS for n, extra, games in configs]
    cases += [(o, n, GAMES_PER_CONFIG) for n, o in CONFIGS]
    for opt in SPEC.options:
        for value in opt.choices:
            games = sum(
                g
                for o, n, g in cases
                if o.get(opt.name, opt.default) == value
                and (opt.name != "emp_designation_2p" or n == 2 or o.get("variant") == "advanced")
            )
            assert games >= 10_000, f"{opt.name} = {value}: {games} games"


@pytest.mark.parametrize(
    "options,configs",
    OPTION_RUNS,
    ids=lambda x: (
        "+".join(f"{k}={v}" for k, v in x.items())
        if isinstance(x, dict)
        else f"{sum(c[2] for c in x)}-games"
    ),
)
def test_invariants_under_rule_options(options, configs):
    total = np.zeros(2, np.int64)
    for n, extra, games in configs:
        finals, stats = run_checked(
            n, options | extra, games, 77 + 100_000 * n + 50_000 * len(extra)
        )
        total += stats
        if "noble_vp_table" in options:
            expect = {
                "alt_a_6_4_2": [2] * 6 + [3] * 4 + [4] * 2,
                "alt_b_3_6_3": [2] * 3 + [3] * 6 + [4] * 3,
            }
            assert (
                sorted(finals[0, L.CARD_VP + 40 : L.CARD_VP + 52].tolist())
                == expect[options["noble_vp_table"]]
            )
    # the runs reach what the options change: identical slots served by a short deck, and the
    # Palace-and-Emperor seat naming its late bid with the commit
    if options.get("ident_short_deck") == "all_or_none":
        assert total[ST_SHORT_SLOTS] > 0
    assert (total[ST_LATE_NAMED] > 0) == (options.get("emp_designation_2p") == "at_commit")


def test_same_seed_same_game_and_different_seeds_differ():
    a = Game("middle_kingdom", 4, seed=11)
    b = Game("middle_kingdom", 4, seed=11)
    c = Game("middle_kingdom", 4, seed=12)
    for g in (a, b, c):
        g.play_random(np.random.default_rng(5))
    assert (
        a.history == b.history
        and a.scores == b.scores
        and a.chance_outcomes() == b.chance_outcomes()
    )
    assert a.chance_outcomes() != c.chance_outcomes()


def test_kernel_games_are_deterministic_by_seed():
    seeds = np.arange(200, dtype=np.int64)
    f1 = np.zeros((200, L.STATE_SIZE), np.int32)
    f2 = np.zeros((200, L.STATE_SIZE), np.int32)
    opt = SPEC.encode_options({})
    play_checked(seeds, np.int64(5), opt, f1, np.zeros(2, np.int64))
    play_checked(seeds, np.int64(5), opt, f2, np.zeros(2, np.int64))
    assert np.array_equal(f1, f2)
    assert len({tuple(r) for r in f1[:, L.DECK : L.DECK + 62]}) == 200


# Any combination of rule options and player count keeps every invariant (hypothesis picks
# the combinations; each example plays 20 random games checked after every decision).
OPTION_CHOICES = {o.name: st.sampled_from(o.choices) for o in SPEC.options if o.name != "variant"}


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    n=st.integers(2, 5),
    advanced=st.booleans(),
    options=st.fixed_dictionaries(OPTION_CHOICES),
    seed=st.integers(0, 2**40),
)
def test_invariants_under_any_option_combination(n, advanced, options, seed):
    if advanced and n == 3:
        options = dict(options, variant="advanced")
    seeds = np.arange(20, dtype=np.int64) + seed
    finals = np.zeros((len(seeds), L.STATE_SIZE), np.int32)
    g, ply, err = play_checked(
        seeds, np.int64(n), SPEC.encode_options(options), finals, np.zeros(2, np.int64)
    )
    assert err == 0, f"{options}: game {g}, decision {ply}: invariant {err} broken"
    scores, wins = np.zeros(n), np.zeros(n)
    for s in finals:
        K.returns(s, scores, wins)
        assert scores.tolist() == recount(s)[0]
