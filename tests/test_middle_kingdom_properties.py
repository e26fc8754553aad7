"""Middle Kingdom property tests over many random games (all player counts and variants).

Invariants are checked after every decision by an independent numba checker; final
scores are recounted in plain Python from where every card lies (LOC/HOST), not from the
engine's running counters.
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
E_ROW, E_DECK, E_OWNED, E_BIDS, E_GOAL, E_DRAGON, E_TOKENS, E_HAND_ZERO = range(1, 9)


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
def play_checked(seeds, n, options, finals):
    """Random games; returns (game index, ply, error) of the first broken invariant or -1s."""
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    rng = np.zeros(2, np.int32)
    for g in range(seeds.shape[0]):
        s = new_state(seeds[g], n, options)
        rng_seed(rng, 0, seeds[g] + 1)
        ply = 0
        while not is_terminal(s):
            start = s[L.G_PHASE] == L.PH_COMMIT  # goals cannot move in phase 1
            e = check(s, start)
            if e != 0:
                return g, ply, e
            if legal_mask(s, mask) == 0:
                return g, ply, 99
            apply(s, random_legal(mask, rng, 0))
            ply += 1
            if ply > 2000:
                return g, ply, 98
        e = check(s, False)  # the end-game Heir award may leave I3 behind
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
GAMES_PER_CONFIG = 2500  # 12,500 games in all


@pytest.mark.parametrize("n,options", CONFIGS, ids=["2p", "3p", "3p-advanced", "4p", "5p"])
def test_invariants_and_recount_over_random_games(n, options):
    seeds = np.arange(GAMES_PER_CONFIG, dtype=np.int64) + 1000 * n + len(options)
    finals = np.zeros((len(seeds), L.STATE_SIZE), np.int32)
    g, ply, err = play_checked(seeds, np.int64(n), SPEC.encode_options(options), finals)
    assert err == 0, f"game {g} (seed {seeds[g]}), decision {ply}: invariant {err} broken"
    scores = np.zeros(n)
    wins = np.zeros(n)
    for s in finals:
        K.returns(s, scores, wins)
        expect, counts = recount(s)
        assert scores.tolist() == expect
        best = max(zip(expect, counts))
        winners = [p for p in range(n) if (expect[p], counts[p]) == best]
        assert wins.tolist() == [1 / len(winners) if p in winners else 0.0 for p in range(n)]


@pytest.mark.parametrize("options", [
    {"harvest_count": "before_lay", "ident_draw_timing": "after_picks", "ident_goal_timing": "per_member"},
    {"ident_short_deck": "all_or_none", "dragon_held_includes_row_pick": "true", "dragon_tiebreak_dyn_count": "effective"},
    {"market_dbl_is_merchant": "true", "market_on_any_gain": "pick_only", "heir_optional": "false"},
    {"heir_may_take_dragon": "false", "token_limit": "18", "noble_vp_table": "alt_a_6_4_2", "lead_seat": "fixed_seat0",
     "emp_designation_2p": "at_commit"},
])
@pytest.mark.parametrize("n", [2, 4])
def test_invariants_under_rule_options(n, options):
    seeds = np.arange(300, dtype=np.int64) + 77
    finals = np.zeros((len(seeds), L.STATE_SIZE), np.int32)
    g, ply, err = play_checked(seeds, np.int64(n), SPEC.encode_options(options), finals)
    assert err == 0, f"game {g}, decision {ply}: invariant {err} broken"
    if options.get("noble_vp_table") == "alt_a_6_4_2":
        nobles = finals[0, L.CARD_VP + 40:L.CARD_VP + 52]
        assert sorted(nobles.tolist()) == [2] * 6 + [3] * 4 + [4] * 2


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
    play_checked(seeds, np.int64(5), opt, f1)
    play_checked(seeds, np.int64(5), opt, f2)
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
    g, ply, err = play_checked(seeds, np.int64(n), SPEC.encode_options(options), finals)
    assert err == 0, f"{options}: game {g}, decision {ply}: invariant {err} broken"
    scores, wins = np.zeros(n), np.zeros(n)
    for s in finals:
        K.returns(s, scores, wins)
        assert scores.tolist() == recount(s)[0]
