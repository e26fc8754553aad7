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

# The invariants live in the game's package, shared with ``dynasty fuzz``.
from sim.emperors_choice.invariants import E_MASK
from sim.emperors_choice.invariants import check_state as check
from sim.emperors_choice.options import card_table, load_components
from sim.emperors_choice.rules import apply, is_terminal, legal_mask, new_state, pb

GAMES = 10_000
SAMPLE = 200


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
                    chars += int(e.rsplit("_", 1)[1]) * int(
                        s[b + L.F_TAB + L.LEGAL] + s[b + L.F_TAB + L.CONF]
                    )
        palace = comp["palace_levels"][int(s[b + L.F_PALACE])]["end_vp"]
        treasures = sum(
            r["end_vp"] for i, r in enumerate(comp["treasure_cards"]) if s[L.TREASURE + i] == p
        )
        tributes = sum(
            int(s[b + L.F_TRIB + i]) * r["vp"] for i, r in enumerate(comp["tribute_cards"])
        )
        parts = {
            "trust": int(s[b + L.F_TRUST]) // 2,
            "palace": palace,
            "gold": int(s[b + L.F_GOLD]),
            "chars": chars,
            "treasures": treasures,
            "tributes": tributes,
        }
        out.append(parts)
    return out


@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_games_keep_every_invariant(n):
    opts = SPEC.encode_options({})
    errors, decisions, finals, kinds = run(n, GAMES, 1_000_000 * n, opts, SAMPLE)
    bad = np.flatnonzero(errors)
    assert len(bad) == 0, (
        f"{len(bad)} games broke an invariant, first: game {bad[0]} error {errors[bad[0]]}"
    )
    assert decisions.max() <= SPEC.max_decisions
    # the ordering decisions are reached: bid-time effects (D-A4), pending immediate tiles (D-M2)
    assert kinds[L.DK_ORDER] > 0 and kinds[L.DK_IMM] > 0 and kinds[L.DK_REVEAL] == 0
    fields = {
        "trust": L.F_VP_TRUST,
        "palace": L.F_VP_PALACE,
        "gold": L.F_VP_GOLD,
        "chars": L.F_VP_CHARS,
        "treasures": L.F_VP_TREASURE,
        "tributes": L.F_VP_TRIBUTE,
    }
    for s in finals:
        assert s[3] == -1
        for p, parts in enumerate(recount(s)):
            b = pb(p)
            for k, f in fields.items():
                assert s[b + f] == parts[k], (k, p)
            assert s[b + L.F_SCORE] == s[b + L.F_VP]


@pytest.mark.parametrize(
    "options",
    [
        {
            "policy_start": "random",
            "cmax_scope": "current_active_displays",
            "soldier_payment_penalty": "3vp_per_missing",
            "trust_overflow": "uncapped_then_minus10",
            "auction_cube_loss": "frozen_until_owner_turn",
            "treasure_once_per_round": "true",
            "immediate_tiles_timing": "always_instant",
            "final_tiebreak_power": "lexicographic_sorted_powers",
            "starting_bonus_mode": "none",
            "reveal_mode": "optional_subset",
        },
        {"reveal_mode": "optional_subset"},
    ],
)
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
        assert len(bad) == 0, (
            f"{n}p: {len(bad)} games broke an invariant, "
            f"first: game {bad[0]} error {errors[bad[0]]}"
        )
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
