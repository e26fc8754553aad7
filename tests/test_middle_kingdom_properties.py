"""Middle Kingdom property tests over many random games (all player counts and variants).

Invariants are checked after every decision by an independent numba checker; final
scores are recounted in plain Python from where every card lies (LOC/HOST), not from the
engine's running counters.  Every value of every rule option is played in at least
10,000 random games (the defaults in the first run, the others in ``OPTION_RUNS``).
"""

import numba as nb
import numpy as np
import pytest

from sim import Game, get_game
from sim.core import random_legal, rng_seed
from sim.middle_kingdom import layout as L
from sim.middle_kingdom.rules import apply, is_terminal, legal_mask, new_state, pb

SPEC = get_game("middle_kingdom")
K = SPEC.kernels

# Error codes of the invariant checker (0 = fine).
E_ROW, E_DECK, E_OWNED, E_BIDS, E_GOAL, E_DRAGON, E_TOKENS, E_HAND_ZERO, E_IDENT, E_EMPEROR = range(1, 11)
# What the runs count (stats[i]): identical slots where a member drew nothing (D33), and
# rounds where a seat holding the Palace and the Emperor named its late bid (D5 at_commit).
ST_SHORT_SLOTS, ST_LATE_NAMED = 0, 1


@nb.njit(cache=True)
def check(s, at_round_start):
    n = s[2]
    # every dynasty card in exactly one place, consistent with the row, the deck and stacks
    for i in range(s[L.G_K]):
        c = s[L.ROW + i]
        if c >= 0 and c != L.ROW_DRAGON and s[L.LOC + c] != L.LOC_ROW:
            return E_ROW
    n_row = 0
    for c in range(L.N_DYN):
        if s[L.LOC + c] == L.LOC_ROW:
            n_row += 1
            found = False
            for i in range(s[L.G_K]):
                if s[L.ROW + i] == c:
                    found = True
            if not found:
                return E_ROW
    for i in range(L.N_DYN):
        c = s[L.DECK + i]
        in_deck = s[L.LOC + c] == L.LOC_DECK
        if (i >= s[L.G_DECK_PTR]) != in_deck:
            return E_DECK
    seen = np.zeros(L.N_DYN, np.int64)
    for i in range(L.N_DYN):
        seen[s[L.DECK + i]] += 1
    for c in range(L.N_DYN):
        if seen[c] != 1:
            return E_DECK
    for p in range(n):
        phys = np.zeros(5, np.int64)
        dbl = np.zeros(5, np.int64)
        for c in range(L.N_DYN):
            if s[L.LOC + c] == L.LOC_OWNED + p and s[L.HOST + c] >= 0:
                h = s[L.HOST + c]
                if h == s[L.CARD_TYPE + c]:
                    phys[h] += 1
                else:
                    dbl[h] += 1
        extra = dbl.sum() if s[L.O_MARKET_DBL_MERCHANT] == 1 else 0  # D14 flag
        for t in range(5):
            if phys[t] != s[pb(p) + L.F_PHYS + t] or dbl[t] != s[pb(p) + L.F_DBL + t]:
                if s[L.G_PEND_P] != p:
                    return E_OWNED
            expect = phys[t] + 2 * dbl[t] + (extra if t == L.MERCHANT else 0)
            if s[pb(p) + L.F_EFF + t] != expect and s[L.G_PEND_P] != p:
                return E_OWNED
    # bid cards conserved: hand, discard, carried stacks, this round's entries
    for p in range(n):
        b = pb(p)
        seen_bits = 0
        parts = (s[b + L.F_HAND], s[b + L.F_DISC])
        for x in parts:
            if seen_bits & x:
                return E_BIDS
            seen_bits |= x
        for j in range(2):
            for f in (L.F_CARRY, L.F_SLOT_CARD, L.F_SLOT_BOTTOM):
                v = s[b + f + j]
                if v >= 0:
                    if (seen_bits >> v) & 1:
                        return E_BIDS
                    seen_bits |= 1 << v
        if seen_bits != 255:
            return E_BIDS
        if at_round_start and not (s[b + L.F_HAND_START] & 1):
            return E_HAND_ZERO  # I1
    # I3 at round boundaries: goal owners hold the maximum; unowned iff all below 2
    if at_round_start:
        for t in range(5):
            owner = s[L.GOAL_OWNER + t]
            mx = 0
            for p in range(n):
                if s[pb(p) + L.F_EFF + t] > mx:
                    mx = s[pb(p) + L.F_EFF + t]
            if owner < 0:
                if mx >= 2:
                    return E_GOAL
            elif s[pb(owner) + L.F_EFF + t] != mx or mx < 2:
                return E_GOAL
    held = s[L.G_DRAGON] == L.DR_HELD
    if held != (s[L.GOAL_OWNER + L.DRAGON] >= 0):
        return E_DRAGON
    tok = 0
    for p in range(n):
        tok += s[pb(p) + L.F_TOKENS]
    if tok != s[L.G_TOKENS_OUT]:
        return E_TOKENS
    return 0


@nb.njit(cache=True)
def check_round(s, stats):
    """At the first decision of a round (or the end), check the previous round's identical
    slots, all resolved by now (D33): under each_while_cards the members who drew come first
    and a member drew nothing only from an empty deck; under all_or_none all or none drew,
    and none only when the deck is smaller than the slot."""
    if s[L.G_ORD_POS] != s[L.G_ORD_N]:
        return 0  # this round's order is built already (no commit was asked): not resolved yet
    left = L.N_DYN - s[L.G_DECK_PTR]
    i = 0
    while i < s[L.G_ORD_N]:
        end = s[L.ORD_GEND + i]
        if s[L.ORD_GKIND + i] == L.GK_IDENT:
            drew = 0
            for j in range(i, end):
                if s[L.ORD_HOST + j] >= 0:
                    if drew != j - i:
                        return E_IDENT  # a drawer after a member who drew nothing
                    drew += 1
            if drew < end - i:
                stats[ST_SHORT_SLOTS] += 1
                if s[L.O_IDENT_SHORT] == 1 and (drew > 0 or left >= end - i):
                    return E_IDENT
                if s[L.O_IDENT_SHORT] == 0 and left > 0:
                    return E_IDENT
        i = end
    return 0


@nb.njit(cache=True)
def play_checked(seeds, n, options, finals, stats):
    """Random games; returns (game index, ply, error) of the first broken invariant or -1s.

    Besides ``check`` after every decision: the identical slots of each round
    (``check_round``), and the Emperor's naming at 2p and advanced 3p (D5): at most one
    naming decision a round, asked with the commit under ``at_commit`` and after it under
    ``post_reveal``, and under ``at_commit`` made by the end of the commit whenever the
    Emperor bids two cards."""
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    rng = np.zeros(2, np.int32)
    at_commit = options[L.O_EMP_AT_COMMIT - L.OPT] == 1
    for g in range(seeds.shape[0]):
        s = new_state(seeds[g], n, options)
        rng_seed(rng, 0, seeds[g] + 1)
        ply = 0
        rnd = 0
        asks = 0
        emp = -1  # the Emperor's holder in phase 1 (goals move in phase 2 only)
        while not is_terminal(s):
            start = s[L.G_PHASE] == L.PH_COMMIT  # goals cannot move in phase 1
            e = check(s, start)
            if e != 0:
                return g, ply, e
            if s[L.G_ROUND] != rnd:
                e = check_round(s, stats)
                if e != 0:
                    return g, ply, e
                rnd = s[L.G_ROUND]
                asks = 0
            if s[L.G_PHASE] == L.PH_COMMIT:
                emp = s[L.GOAL_OWNER + L.EMPEROR]
            if s[L.G_DECISION] == L.DK_EMPEROR:
                asks += 1
                if asks > 1 or s[L.G_TWO_BID] == 0 or at_commit != (s[L.G_PHASE] == L.PH_COMMIT):
                    return g, ply, E_EMPEROR
            elif at_commit and s[L.G_TWO_BID] == 1 and emp >= 0 and s[L.G_PHASE] != L.PH_COMMIT:
                b = pb(emp)
                if s[b + L.F_HAND_START] != 1 and s[b + L.F_EMP_SLOT] < 0:
                    return g, ply, E_EMPEROR
            if legal_mask(s, mask) == 0:
                return g, ply, 99
            a = random_legal(mask, rng, 0)
            if a == L.A_EMP_LATE:
                stats[ST_LATE_NAMED] += 1
            apply(s, a)
            ply += 1
            if ply > 2000:
                return g, ply, 98
        e = check(s, False)  # the end-game Heir award may leave I3 behind
        if e != 0:
            return g, ply, e
        e = check_round(s, stats)
        if e != 0:
            return g, ply, e
        finals[g, :] = s
    return -1, -1, 0


def recount(s: np.ndarray) -> tuple[list[int], list[int]]:
    """Independent scoring (spec section 6) from card locations; returns (scores, dyn counts)."""
    n = int(s[2])
    typ = s[L.CARD_TYPE:L.CARD_TYPE + 62]
    vp = s[L.CARD_VP:L.CARD_VP + 62]
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
    assert err == 0, f"{options}: game {g} (seed {seeds[g]}), decision {ply}: invariant {err} broken"
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
    ({"harvest_count": "before_lay", "ident_draw_timing": "after_picks", "ident_goal_timing": "per_member",
      "noble_vp_table": "alt_b_3_6_3"}, ALL_CONFIGS),
    ({"ident_short_deck": "all_or_none", "dragon_held_includes_row_pick": "true",
      "dragon_tiebreak_dyn_count": "effective", "lead_seat": "fixed_seat0"}, ALL_CONFIGS),
    ({"market_dbl_is_merchant": "true", "market_on_any_gain": "pick_only", "heir_optional": "false",
      "heir_may_take_dragon": "false", "token_limit": "18"}, ALL_CONFIGS),
    ({"emp_designation_2p": "at_commit", "noble_vp_table": "alt_a_6_4_2"}, TWO_BIDS),
]


def test_every_rule_option_value_is_played_in_10000_random_games():
    cases = [(o | extra, n, games) for o, configs in OPTION_RUNS for n, extra, games in configs]
    cases += [(o, n, GAMES_PER_CONFIG) for n, o in CONFIGS]
    for opt in SPEC.options:
        for value in opt.choices:
            games = sum(g for o, n, g in cases if o.get(opt.name, opt.default) == value and (
                opt.name != "emp_designation_2p" or n == 2 or o.get("variant") == "advanced"))
            assert games >= 10_000, f"{opt.name} = {value}: {games} games"


@pytest.mark.parametrize("options,configs", OPTION_RUNS, ids=lambda x: "+".join(f"{k}={v}" for k, v in x.items())
                         if isinstance(x, dict) else f"{sum(c[2] for c in x)}-games")
def test_invariants_under_rule_options(options, configs):
    total = np.zeros(2, np.int64)
    for n, extra, games in configs:
        finals, stats = run_checked(n, options | extra, games, 77 + 100_000 * n + 50_000 * len(extra))
        total += stats
        if "noble_vp_table" in options:
            expect = {"alt_a_6_4_2": [2] * 6 + [3] * 4 + [4] * 2, "alt_b_3_6_3": [2] * 3 + [3] * 6 + [4] * 3}
            assert sorted(finals[0, L.CARD_VP + 40:L.CARD_VP + 52].tolist()) == expect[options["noble_vp_table"]]
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
    assert a.history == b.history and a.scores == b.scores and a.chance_outcomes() == b.chance_outcomes()
    assert a.chance_outcomes() != c.chance_outcomes()


def test_kernel_games_are_deterministic_by_seed():
    seeds = np.arange(200, dtype=np.int64)
    f1 = np.zeros((200, L.STATE_SIZE), np.int32)
    f2 = np.zeros((200, L.STATE_SIZE), np.int32)
    opt = SPEC.encode_options({})
    play_checked(seeds, np.int64(5), opt, f1, np.zeros(2, np.int64))
    play_checked(seeds, np.int64(5), opt, f2, np.zeros(2, np.int64))
    assert np.array_equal(f1, f2)
    assert len({tuple(r) for r in f1[:, L.DECK:L.DECK + 62]}) == 200


# Any combination of rule options and player count keeps every invariant (hypothesis picks
# the combinations; each example plays 20 random games checked after every decision).
from hypothesis import given, settings, strategies as st  # noqa: E402

OPTION_CHOICES = {o.name: st.sampled_from(o.choices) for o in SPEC.options if o.name != "variant"}


@settings(max_examples=40, deadline=None, derandomize=True)
@given(n=st.integers(2, 5), advanced=st.booleans(), options=st.fixed_dictionaries(OPTION_CHOICES),
       seed=st.integers(0, 2**40))
def test_invariants_under_any_option_combination(n, advanced, options, seed):
    if advanced and n == 3:
        options = dict(options, variant="advanced")
    seeds = np.arange(20, dtype=np.int64) + seed
    finals = np.zeros((len(seeds), L.STATE_SIZE), np.int32)
    g, ply, err = play_checked(seeds, np.int64(n), SPEC.encode_options(options), finals, np.zeros(2, np.int64))
    assert err == 0, f"{options}: game {g}, decision {ply}: invariant {err} broken"
    scores, wins = np.zeros(n), np.zeros(n)
    for s in finals:
        K.returns(s, scores, wins)
        assert scores.tolist() == recount(s)[0]
