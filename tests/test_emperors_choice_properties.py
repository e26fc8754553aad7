"""Emperor's Choice property tests over 10,000 random games per player count.

One compiled kernel plays the games and checks, after every decision: soldier cubes,
tiles, Character cards, Tribute cards and Treasures conserved; tracks within their limits
(Trust 0..30, VP >= 0, Gold >= 0, palace 0..12, Barbarians 2..17); the VP ledger (start VP
plus VP by source minus VP lost) equals the VP track.  Final scores are recounted in plain
Python from the final state for a sample of games; the same seed gives the same game.

Every rule option value gets a run of at least 10,000 games: the defaults in the
10,000-games-per-player-count runs, each other value alone (the rest at their defaults)
in a run of 3,334 games at each of 3, 4 and 5 players, and all of them together in a
shorter run.
"""

import numba as nb
import numpy as np
import pytest

from sim.core import random_legal, rng_seed
from sim.emperors_choice import SPEC
from sim.emperors_choice import layout as L
from sim.emperors_choice.options import card_table, load_components
from sim.emperors_choice.rules import apply, is_terminal, legal_mask, new_state, pb

E_CUBES, E_TILES, E_CARDS, E_TRIB, E_TRACK, E_LEDGER, E_TREASURE, E_MASK = range(1, 9)
GAMES = 10_000
SAMPLE = 200


@nb.njit(cache=True)
def check(s):
    n = s[2]
    held = 0
    for p in range(n):
        b = pb(p)
        if s[b + L.F_CUBES] < 0 or s[b + L.F_BID_CUBES] < 0:
            return E_CUBES
        held += s[b + L.F_CUBES] + s[b + L.F_BID_CUBES]
    if s[L.G_SUPPLY] < 0 or held + s[L.G_SUPPLY] != s[L.DAT + L.D_POOL + n - 3]:
        return E_CUBES
    total = 0
    for t in range(L.N_TILE):
        k = s[L.BAG + t] + s[L.REMOVED + t]
        for i in range(L.MAX_SETS):
            k += s[L.SETS + i * L.N_TILE + t]
        for p in range(n):
            k += s[pb(p) + L.F_TAB + t] + s[pb(p) + L.F_PENDING + t]
        if s[L.G_DECISION] == L.DK_KEEP:  # two drawn tiles wait for the keep choice
            k += (s[L.G_KEEP0] == t) + (s[L.G_KEEP1] == t)
        for i in range(s[L.G_STACK_N]):  # immediate tiles queued for resolution
            if s[L.STACK + 3 * i] == L.AT_IMM and s[L.STACK + 3 * i + 1] == t:
                k += 1
        extra = k - s[L.DAT + L.D_BAG + t]
        if t == L.CASTLE and extra != n * s[L.DAT + L.D_START + 5]:
            return E_TILES
        if L.CAR1 <= t < L.CAR1 + 5 and not (0 <= extra <= 1):
            return E_TILES
        if t != L.CASTLE and not (L.CAR1 <= t < L.CAR1 + 5) and extra != 0:
            return E_TILES
        total += k
    if total != np.sum(s[L.DAT + L.D_BAG:L.DAT + L.D_BAG + L.N_TILE]) + n * (s[L.DAT + L.D_START + 5] + 1):
        return E_TILES
    nc = s[L.DAT + L.D_NCARDS]
    for i in range(L.MAX_RECRUIT):
        c = s[L.RECRUIT + i]
        if c >= 0 and s[L.LOC + c] != L.LOC_DISPLAY:
            return E_CARDS
    shown = 0
    for c in range(nc):
        loc = s[L.LOC + c]
        if loc == L.LOC_DISPLAY:
            shown += 1
            found = False
            for i in range(L.MAX_RECRUIT):
                if s[L.RECRUIT + i] == c:
                    found = True
            if not found:
                return E_CARDS
        elif not (loc == L.LOC_BOX or loc == L.LOC_DECK or loc == L.LOC_DISCARD
                  or (L.LOC_HAND <= loc < L.LOC_HAND + n) or (L.LOC_BID <= loc < L.LOC_BID + n)
                  or (L.LOC_PEND <= loc < L.LOC_PEND + n)):
            return E_CARDS
        kind = s[L.DAT + L.D_CARDS + c * L.CD_SIZE + L.CD_KIND]
        if kind != L.CK_DECK and loc == L.LOC_DISPLAY and s[L.G_ROUND] == 1:
            return E_CARDS
        if L.LOC_PEND <= loc < L.LOC_PEND + n and (loc - L.LOC_PEND != s[3] or s[L.G_DECISION] != L.DK_BID):
            return E_CARDS
        # a bid-time effect waits only while its bidder orders them (D-A4), on a displayed card
        if s[L.BID_FX + c] != 0 and (s[L.G_DECISION] != L.DK_ORDER or loc != L.LOC_BID + s[3]):
            return E_CARDS
    tr = 0
    for t in range(L.N_TRIB):
        k = s[L.TRIB_DECK + t]
        for p in range(n):
            k += s[pb(p) + L.F_TRIB + t]
        for c in range(L.N_POLICY):
            k += s[L.UNDER + c * L.N_TRIB + t]
        if k != s[L.DAT + L.D_TRIB_N + t] or s[L.TRIB_DECK + t] < 0:
            return E_TRIB
    for i in range(L.N_TREASURE):
        if not (-1 <= s[L.TREASURE + i] < n):
            return E_TREASURE
    if not (L.BARB_START <= s[L.G_BARB] <= L.BARB_MAX):
        return E_TRACK
    for p in range(n):
        b = pb(p)
        if not (0 <= s[b + L.F_TRUST] <= L.TRUST_MAX) or s[b + L.F_VP] < 0 or s[b + L.F_GOLD] < 0:
            return E_TRACK
        if not (0 <= s[b + L.F_PALACE] <= L.N_LEVELS):
            return E_TRACK
        led = s[L.DAT + L.D_START] + s[b + L.F_VP_DECREE] + s[b + L.F_VP_TRUST] + s[b + L.F_VP_PALACE]
        led += s[b + L.F_VP_GOLD] + s[b + L.F_VP_CHARS] + s[b + L.F_VP_TREASURE] + s[b + L.F_VP_TRIBUTE]
        led += s[b + L.F_VP_OTHER] - s[b + L.F_VP_LOST]
        for i in range(2 * L.N_POLICY):
            led += s[b + L.F_VP_POLICY + i]
        if led != s[b + L.F_VP]:
            return E_LEDGER
    return 0


@nb.njit(cache=True)
def run(n, games, seed0, options, sample):
    errors = np.zeros(games, np.int64)
    decisions = np.zeros(games, np.int64)
    kinds = np.zeros(32, np.int64)  # decisions by kind (DK_*), over all games
    finals = np.zeros((sample, L.STATE_SIZE), np.int32)
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    rng = np.zeros(2, np.int32)
    for g in range(games):
        s = new_state(seed0 + g, n, options)
        rng_seed(rng, 0, seed0 + g)
        e = check(s)
        while e == 0 and not is_terminal(s):
            k = legal_mask(s, mask)
            if k <= 0 or k != np.sum(mask):
                e = E_MASK
                break
            kinds[s[L.G_DECISION]] += 1
            apply(s, random_legal(mask, rng, 0))
            decisions[g] += 1
            e = check(s)
        errors[g] = e
        if g < sample:
            finals[g] = s
    return errors, decisions, finals, kinds


def recount(s):
    """Final-scoring steps 2-7 from the final state alone, in plain Python."""
    comp = load_components()
    cards = card_table(comp)
    n = int(s[2])
    extrav = int(s[L.POLICY + 2 * L.EXTRAV_CARD]) == 0
    out = []
    for p in range(n):
        b = pb(p)
        castles = int(s[b + L.F_TAB + L.CASTLE]) + (int(s[b + L.F_TAB + L.CANAL]) if extrav else 0)
        chars = 0
        for c, row in enumerate(cards):
            if s[L.LOC + c] == L.LOC_HAND + p:
                e = row["end_effect"]
                if e.startswith("vp_flat_"):
                    chars += int(e.rsplit("_", 1)[1])
                elif e.startswith("vp_per_castle_"):
                    chars += int(e.rsplit("_", 1)[1]) * castles
                elif e.startswith("vp_per_legalist_and_confucianist_"):
                    chars += int(e.rsplit("_", 1)[1]) * int(s[b + L.F_TAB + L.LEGAL] + s[b + L.F_TAB + L.CONF])
        palace = comp["palace_levels"][int(s[b + L.F_PALACE])]["end_vp"]
        treasures = sum(r["end_vp"] for i, r in enumerate(comp["treasure_cards"]) if s[L.TREASURE + i] == p)
        tributes = sum(int(s[b + L.F_TRIB + i]) * r["vp"] for i, r in enumerate(comp["tribute_cards"]))
        parts = dict(trust=int(s[b + L.F_TRUST]) // 2, palace=palace, gold=int(s[b + L.F_GOLD]), chars=chars,
                     treasures=treasures, tributes=tributes)
        out.append(parts)
    return out


@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_games_keep_every_invariant(n):
    opts = SPEC.encode_options({})
    errors, decisions, finals, kinds = run(n, GAMES, 1_000_000 * n, opts, SAMPLE)
    bad = np.flatnonzero(errors)
    assert len(bad) == 0, f"{len(bad)} games broke an invariant, first: game {bad[0]} error {errors[bad[0]]}"
    assert decisions.max() <= SPEC.max_decisions
    # the ordering decisions are reached: bid-time effects (D-A4), pending immediate tiles (D-M2)
    assert kinds[L.DK_ORDER] > 0 and kinds[L.DK_IMM] > 0 and kinds[L.DK_REVEAL] == 0
    fields = dict(trust=L.F_VP_TRUST, palace=L.F_VP_PALACE, gold=L.F_VP_GOLD, chars=L.F_VP_CHARS,
                  treasures=L.F_VP_TREASURE, tributes=L.F_VP_TRIBUTE)
    for s in finals:
        assert s[3] == -1
        for p, parts in enumerate(recount(s)):
            b = pb(p)
            for k, f in fields.items():
                assert s[b + f] == parts[k], (k, p)
            assert s[b + L.F_SCORE] == s[b + L.F_VP]


@pytest.mark.parametrize("options", [
    {"policy_start": "random", "cmax_scope": "current_active_displays", "soldier_payment_penalty": "3vp_per_missing",
     "trust_overflow": "uncapped_then_minus10", "auction_cube_loss": "frozen_until_owner_turn",
     "treasure_once_per_round": "true", "immediate_tiles_timing": "always_instant",
     "final_tiebreak_power": "lexicographic_sorted_powers", "starting_bonus_mode": "none",
     "reveal_mode": "optional_subset"},
    {"reveal_mode": "optional_subset"},
])
def test_every_option_flag_keeps_the_invariants(options):
    opts = SPEC.encode_options(options)
    for n in (3, 4, 5):
        errors, _, _, _ = run(n, 1000, 77 * n, opts, 1)
        assert not errors.any()


NON_DEFAULT = [(o.name, v) for o in SPEC.options for v in o.choices if v != o.default]
# a decision that only the value brings to random play, which its run must reach
REACHES = {"immediate_tiles_timing": L.DK_IMM, "reveal_mode": L.DK_REVEAL}


@pytest.mark.parametrize("name,value", NON_DEFAULT)
def test_each_option_value_keeps_the_invariants_in_10000_games(name, value):
    """The value alone (the other options at their defaults): 3,334 random games at each of
    3, 4 and 5 players.  Under ``always_instant`` a taken set's immediate tiles are ordered
    by the player (D-M2) and under ``optional_subset`` players pick their reveals: both
    decisions are reached."""
    opts = SPEC.encode_options({name: value})
    games = 0
    for n in (3, 4, 5):
        errors, decisions, _, kinds = run(n, 3334, 31_000 * n + 7, opts, 1)
        bad = np.flatnonzero(errors)
        assert len(bad) == 0, f"{n}p: {len(bad)} games broke an invariant, first: game {bad[0]} error {errors[bad[0]]}"
        assert decisions.max() <= SPEC.max_decisions
        if name in REACHES:
            assert kinds[REACHES[name]] > 0
        games += len(errors)
    assert games >= 10_000


def test_same_seed_same_game():
    opts = SPEC.encode_options({})
    _, d1, f1, _ = run(4, 20, 5, opts, 20)
    _, d2, f2, _ = run(4, 20, 5, opts, 20)
    assert (d1 == d2).all() and (f1 == f2).all()
    _, d3, _, _ = run(4, 20, 6, opts, 20)
    assert not (d1 == d3).all()
