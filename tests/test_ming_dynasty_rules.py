"""Ming Dynasty rule tests: every test scenario of the spec (MD-01 .. MD-29).

Seats: Y/A/X = 0, G/B/Y(2p) = 1, B/C = 2, R/D = 3; the neutral is entity 4.  Province
``p`` = 3 has districts a, b, c = 9, 10, 11 unless stated.
"""

import numpy as np
import pytest

from sim.core import H_CURRENT
from sim.ming_dynasty import SPEC
from sim.ming_dynasty import layout as L
from sim.ming_dynasty.rules import (
    advance,
    district_to_city,
    final_tiles,
    finish_province,
    gain_tile,
    legal_mask,
    pb,
    returns,
    score_monasteries,
)
from sim.ming_dynasty.scenario import act, legal_names, position, score_from

NEUTRAL = L.NEUTRAL
P = 3
a, b, c = 9, 10, 11


def opn(s, d, e):
    return int(s[L.OPEN + d * L.N_ENT + e])


def cty(s, d, e):
    return int(s[L.CITY + d * L.N_ENT + e])


def tiles(s, p):
    return [int(x) for x in s[pb(p) + L.F_TILES : pb(p) + L.F_TILES + 6]]


def score(s, p):
    return int(s[pb(p) + L.F_SCORE])


def hand(s, p):
    return [int(x) for x in s[pb(p) + L.F_HAND : pb(p) + L.F_HAND + 4]]


def majority(players, counts, monk=None):
    s = position(players, round=2, open={a: counts}, monk=monk or {})
    district_to_city(s, a)
    return s


# ------------------------------------------------------------------ 4.1 majorities


def test_md01_majority_example():
    s = majority(4, {0: 3, 1: 2, 2: 1})
    assert [cty(s, a, e) for e in range(4)] == [2, 1, 0, 0]
    assert [opn(s, a, e) for e in range(4)] == [1, 1, 1, 0]
    assert tiles(s, 0)[P] == 2 and tiles(s, 1)[P] == 1 and tiles(s, 2)[P] == 0


def test_md02_three_way_tie():
    s = majority(4, {0: 2, 1: 2, 2: 2, 3: 1})
    assert [cty(s, a, e) for e in range(4)] == [1, 1, 1, 0]
    assert [tiles(s, p)[P] for p in range(4)] == [1, 1, 1, 0]


def test_md03_two_way_tie_leaves_a_house_empty():
    s = majority(4, {0: 2, 2: 2, 1: 1})
    assert [cty(s, a, e) for e in range(4)] == [1, 0, 1, 0]


def test_md04_lone_leader_with_one():
    s = majority(4, {0: 1})
    assert cty(s, a, 0) == 1 and opn(s, a, 0) == 0


def test_md05_tie_for_second():
    s = majority(4, {0: 3, 1: 2, 2: 2})
    assert [cty(s, a, e) for e in range(4)] == [2, 0, 0, 0]


def test_md06_four_way_tie():
    s = majority(4, {0: 2, 1: 2, 2: 2, 3: 2})
    assert [cty(s, a, e) for e in range(4)] == [0, 0, 0, 0]
    assert all(tiles(s, p)[P] == 0 for p in range(4))


def test_md07_monastery_member_does_not_count():
    s = majority(4, {0: 2, 1: 3}, monk={a: 0})
    assert cty(s, a, 1) == 2 and cty(s, a, 0) == 1 and s[L.MONK + a] == 0


def test_md08_three_player_full_tie():
    s = majority(3, {0: 1, 1: 1, 2: 1})
    assert [cty(s, a, e) for e in range(3)] == [1, 1, 1]
    assert [opn(s, a, e) for e in range(3)] == [0, 0, 0]


# ------------------------------------------------------------------ phase 3: deployment


def deploying(seat, district, space, monk=None, players=4, princes=None, hand_cards="HBP"):
    prov = district // 3
    pr = {q: 17 - q for q in range(players) if q != seat}
    pr.update(princes or {})
    pr[seat] = district
    s = position(
        players,
        round=1,
        start=seat,
        spaces={prov: space},
        monk=monk or {},
        princes=pr,
        hands={seat: hand_cards},
        phase=L.PH_TURN,
    )
    return s


def test_md09_deploy_with_monastery():
    s = deploying(0, a, {0: 2})
    act(s, 0, "stay discarding Horse")
    act(s, 0, "deploy 1 open + monastery")
    assert opn(s, a, 0) == 1 and s[L.MONK + a] == 0 and s[L.SPACE + P * L.MAXP + 0] == 0


def test_md10_oust_and_own_monastery_blocks():
    s = deploying(1, a, {0: 2, 1: 2}, monk={a: 0})
    act(s, 1, "stay discarding Horse")
    act(s, 1, "deploy 0 open + monastery")
    assert s[L.MONK + a] == 1 and opn(s, a, 0) == 1
    # G (seat 1) now owns the monastery: only DEPLOY(0,0) there
    s[L.PRINCE + 2] = 16
    s[L.G_PHASE] = L.PH_DEPLOY
    s[H_CURRENT] = 1
    assert legal_names(s) == ["deploy 0 open"]
    s[H_CURRENT] = 0  # Y may deploy into a again (ousted member is in the open area)
    s[L.PRINCE + 0] = a
    assert "deploy 0 open + monastery" in legal_names(s)


def test_md11_own_monastery_blocks_all_deployment():
    s = deploying(0, a, {0: 3}, monk={a: 0})
    act(s, 0, "stay discarding Boat")
    assert legal_names(s) == ["deploy 0 open"]


# ------------------------------------------------------------------ phase 3: movement


def walk_ends(s):
    """{destination: set of spends (H, B, P, D counts)} over every legal walk."""
    seat = int(s[H_CURRENT])
    start = hand(s, seat)
    out = {}
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)

    def rec(t):
        legal_mask(t, mask)
        acts = list(np.flatnonzero(mask))
        if t[L.G_PHASE] == L.PH_WALK and any(L.A_DEPLOY <= x < L.A_DEPLOY + 7 for x in acts):
            spend = tuple(x - y for x, y in zip(start, hand(t, seat)))
            out.setdefault(int(t[L.PRINCE + seat]), set()).add(spend)
        for x in acts:
            if L.A_STEP <= x < L.A_STAY:
                u = t.copy()
                from sim.ming_dynasty.rules import apply

                apply(u, np.int64(x))
                rec(u)

    rec(s)
    return out


@pytest.mark.parametrize(
    "cards,dests",
    [
        ("HB", {1, 2, 4, 5, 9}),
        ("H", {1}),
        ("HD", {0, 1, 2, 4, 5, 9}),
    ],
)
def test_md12_movement_destinations(cards, dests):
    s = position(
        4, round=1, start=0, princes={0: 0, 1: 3, 2: 17, 3: 16}, hands={0: cards}, phase=L.PH_TURN
    )
    ends = walk_ends(s)
    assert set(ends) == dests
    if cards == "HD":
        assert ends[1] == {(0, 0, 0, 1), (1, 0, 0, 0), (1, 0, 0, 1)}


def test_md13_stay_with_dragon():
    s = deploying(0, 7, {0: 3}, hand_cards="PD", princes={1: 0, 2: 1, 3: 2})
    dragons = int(s[L.G_DRAGON_SUPPLY])
    act(s, 0, "stay discarding Dragon")
    act(s, 0, "deploy 3 open")
    assert s[L.G_DRAGON_SUPPLY] == dragons + 1 and hand(s, 0) == [0, 0, 1, 0]
    assert opn(s, 7, 0) == 3 and s[L.SPACE + 2 * L.MAXP] == 0 and s[L.PRINCE] == 7


# ------------------------------------------------------------------ phase 2


def test_md14_card_choice_restriction():
    s = position(
        4,
        round=1,
        start=0,
        spaces={2: {0: 2}, 0: {1: 1, 2: 1, 3: 1}},
        hands={0: "HBP", 1: "HHHHH", 2: "BBBBB", 3: "PPPPP"},
        phase=L.PH_CARDS,
    )
    assert s[H_CURRENT] == 0
    assert legal_names(s) == [
        f"take {('Horse', 'Boat', 'Palanquin')[s[L.DISPLAY + 2]]} from display 2",
        "take dragon paying a member from space 2",
    ]
    t = s.copy()
    dragons = int(t[L.G_DRAGON_SUPPLY])
    act(t, 0, "take dragon paying a member from space 2")
    assert t[L.SPACE + 2 * L.MAXP] == 1 and t[L.BOXED] == s[L.BOXED] + 1
    assert t[L.G_DRAGON_SUPPLY] == dragons - 1 and sum(hand(t, 0)) == 4
    u = s.copy()
    sym = int(u[L.DISPLAY + 2])
    act(u, 0, legal_names(u)[0])
    assert (
        u[L.SPACE + 2 * L.MAXP] == 2
        and hand(u, 0)[sym] == hand(s, 0)[sym] + 1
        and u[L.DISPLAY + 2] >= 0
    )
    assert u[L.G_LOG_N] == s[L.G_LOG_N] + 1  # refilled at once from the supply


# ------------------------------------------------------------------ sets and final tiles


@pytest.mark.parametrize("rnd,points", [(2, 28), (4, 24), (6, 20)])
def test_md15_six_colour_set(rnd, points):
    s = position(3, round=rnd, tiles={0: [1, 1, 1, 1, 1, 0]})
    gain_tile(s, 0, 5)
    assert tiles(s, 0) == [0] * 6 and score(s, 0) == points
    assert list(s[L.TILE_SUPPLY : L.TILE_SUPPLY + 6]) == [18] * 6


def test_md15_two_sets_in_one_move():
    s = position(3, round=2, tiles={0: [2, 2, 2, 2, 2, 0]}, open={15: {0: 3}})
    district_to_city(s, 15)
    assert cty(s, 15, 0) == 2 and tiles(s, 0) == [0] * 6 and score(s, 0) == 56


def test_md16_final_tiles():
    s = position(2, round=6, tiles={0: [3, 2, 2, 1, 0, 4], 1: [2, 0, 0, 3, 1, 1]})
    final_tiles(s, 0)
    final_tiles(s, 1)
    assert score(s, 0) == 17 and score(s, 1) == 7


def test_md16_five_colour_sets_are_returned_and_leave_the_tiles_that_remain():
    """4.4: "form as many sets of 5 different colours as possible, each worth 10 points, then
    score 1 point per remaining tile"; the seed: the player "可以歸還一套5種不同顏色的省份牌片"
    (may return a set of 5 different colours).  The set's tiles leave the player's tiles for
    the supply; the remaining tiles stay."""
    s = position(2, round=6, tiles={0: [3, 2, 2, 1, 0, 4], 1: [2, 0, 0, 3, 1, 1]})
    supply = [int(x) for x in s[L.TILE_SUPPLY : L.TILE_SUPPLY + 6]]
    final_tiles(s, 0)
    final_tiles(s, 1)
    assert tiles(s, 0) == [2, 1, 1, 0, 0, 3]  # one set (colours 0-3 and 5) returned, 7 tiles left
    assert tiles(s, 1) == [2, 0, 0, 3, 1, 1]  # four colours: no set, every tile remains
    assert [int(x) for x in s[L.TILE_SUPPLY : L.TILE_SUPPLY + 6]] == [
        v + d for v, d in zip(supply, [1, 1, 1, 1, 0, 1])
    ]
    s = position(3, round=6, tiles={0: [3, 3, 2, 2, 2, 0]})
    final_tiles(s, 0)
    assert tiles(s, 0) == [1, 1, 0, 0, 0, 0] and score(s, 0) == 22  # two sets, two tiles left


# ------------------------------------------------------------------ 4.2 returns and the city


def test_md17_returns_and_city_points():
    s = position(
        3, round=2, start=0, open={a: {0: 3, 2: 1}, b: {0: 2, 1: 2}, c: {1: 4, 2: 2, 0: 1}}
    )
    boxed = [int(s[L.BOXED + p]) for p in range(3)]
    s = score_from(s)
    assert s[L.G_PROV] == P and s[L.G_PHASE] == L.PH_COMMIT
    assert [tiles(s, p)[P] for p in range(3)] == [3, 3, 2]
    assert [cty(s, a, 0), cty(s, b, 0), cty(s, b, 1), cty(s, c, 1), cty(s, a, 2), cty(s, c, 2)] == [
        2,
        1,
        1,
        2,
        1,
        1,
    ]
    act(s, 0, "return 1")
    assert legal_names(s) == ["return 0", "return 1", "return 2", "return 3"]  # B: 3 members
    act(s, 1, "return 0")
    act(s, 2, "return 2")
    act(s, 0, f"member back to district {b}")  # A chooses section b; C returns both automatically
    assert [score(s, p) for p in range(3)] == [8, 16, 0]
    assert [
        opn(s, a, 0),
        opn(s, a, 2),
        opn(s, b, 0),
        opn(s, b, 1),
        opn(s, c, 1),
        opn(s, c, 2),
        opn(s, c, 0),
    ] == [1, 1, 2, 1, 2, 2, 1]
    assert [int(s[L.BOXED + p]) - boxed[p] for p in range(3)] == [2, 3, 0]
    assert all(cty(s, d, e) == 0 for d in (a, b, c) for e in range(5))


def bonus_position(rnd, rem, options=None):
    city = {}
    for e, secs in rem.items():
        for j, v in enumerate(secs):
            city.setdefault(9 + j, {})[e] = v
    s = position(
        len([e for e in rem if e != NEUTRAL]) if NEUTRAL not in rem else 2,
        round=rnd,
        city=city,
        options=options,
    )
    finish_province(s, P)
    return s


def test_md18_bonus_tie_broken_by_section():
    s = bonus_position(4, {0: (2, 1, 0), 1: (1, 1, 1)})
    assert score(s, 0) == 13 and score(s, 1) == 9
    s = bonus_position(4, {0: (2, 1, 0), 1: (1, 1, 1)}, {"city_bonus_tiebreak": "fullest_section"})
    assert score(s, 0) == 13 and score(s, 1) == 9
    s = bonus_position(4, {0: (0, 1, 2), 1: (1, 2, 0)})
    assert score(s, 0) == 11 and score(s, 1) == 11
    s = bonus_position(4, {0: (0, 1, 2), 1: (1, 2, 0)}, {"city_bonus_tiebreak": "fullest_section"})
    assert score(s, 0) == 9 and score(s, 1) == 13


def test_md19_bonus_split():
    s = bonus_position(2, {0: (1, 1, 0), 1: (0, 1, 1)})
    assert score(s, 0) == 10 and score(s, 1) == 10
    s = bonus_position(4, {0: (1, 0, 0), 1: (0, 1, 0), 2: (0, 0, 1)})
    assert [score(s, p) for p in range(3)] == [4, 4, 4]


def test_md20_round_six_bonus_only():
    s = bonus_position(6, {0: (2, 0, 0), 1: (0, 1, 0)})
    assert score(s, 0) == 4 and score(s, 1) == 0


def test_md21_everybody_returns_all():
    s = position(3, round=2, start=1, open={a: {0: 3, 1: 1}, b: {2: 2}})
    boxed = [int(s[L.BOXED + p]) for p in range(3)]
    s = score_from(s)
    act(s, 1, "return 1")
    act(s, 2, "return 2")
    act(s, 0, "return 2")
    assert [score(s, p) for p in range(3)] == [0, 0, 0]
    assert [int(s[L.BOXED + p]) for p in range(3)] == boxed
    assert opn(s, a, 0) == 3 and opn(s, a, 1) == 1 and opn(s, b, 2) == 2


def test_md22_monasteries_score_and_stay():
    s = position(3, round=2, monk={0: 0, 5: 0, 7: 1})
    score_monasteries(s)
    assert score(s, 0) == 8 and score(s, 1) == 4 and s[L.MONK + 0] == 0
    score_monasteries(s)
    assert score(s, 0) == 16


# ------------------------------------------------------------------ phase 5


def end_of_round(rnd, scores, monk=None, start=0):
    s = position(
        4,
        round=rnd,
        start=start,
        scores=scores,
        monk=monk or {},
        phase=L.PH_TURN,
        princes={0: 0, 1: 3, 2: 6, 3: 9},
    )
    for p in range(4):
        s[pb(p) + L.F_PASSED] = 1 if p != s[H_CURRENT] else 0
    return s


def test_md23_four_player_start_choice():
    s = end_of_round(4, {0: 30, 1: 20, 2: 25, 3: 40})
    # round 4 is a scoring round: nobody is in a city, so scoring adds nothing
    act(s, int(s[H_CURRENT]), "pass")
    assert s[L.G_PHASE] == L.PH_CHOOSE and s[H_CURRENT] == 2
    act(s, 2, "start player seat 2")
    assert s[L.G_ROUND] == 5 and s[L.G_START] == 2
    s = end_of_round(5, {0: 30, 1: 20, 2: 25, 3: 40})
    act(s, int(s[H_CURRENT]), "pass")
    assert s[L.G_PHASE] == L.PH_CHOOSE and s[H_CURRENT] == 1
    # tie variant: the round-4 scoring adds the monasteries (B 2 x 4, C 1 x 4):
    # A 20, B 25, C 25, D 40
    s = end_of_round(4, {0: 20, 1: 17, 2: 21, 3: 40}, monk={0: 1, 1: 1, 2: 2})
    act(s, int(s[H_CURRENT]), "pass")
    assert [score(s, p) for p in range(4)] == [20, 25, 25, 40]
    assert s[H_CURRENT] == 1


@pytest.mark.parametrize("n", [2, 3])
def test_md23_start_passes_left_with_fewer_players(n):
    s = position(n, round=4, start=1, phase=L.PH_TURN, princes={p: 3 * p for p in range(n)})
    for p in range(n):
        s[pb(p) + L.F_PASSED] = 1 if p != s[H_CURRENT] else 0
    act(s, int(s[H_CURRENT]), "pass")
    if n == 2:
        assert s[L.G_PHASE] == L.PH_NEUTRAL  # 2p: neutral placements open rounds 3 and 5
    assert s[L.G_ROUND] == 5 and s[L.G_START] == (2 % n)


@pytest.mark.parametrize("start_player", ["random", "seat0"])
def test_d32_first_start_player_drawn_at_random_or_seat_0(start_player):
    """D32 ("大家選擇一個起始遊戲者": everybody chooses a start player): drawn at random by
    default, or always seat 0 for seat-balanced experiments.  The start player places the
    first prince."""
    from sim.ming_dynasty.rules import new_state

    starts = set()
    for seed in range(12):
        s = new_state(
            np.int64(seed), np.int64(4), SPEC.encode_options({"start_player": start_player})
        )
        assert s[L.G_PHASE] == L.PH_PRINCE and s[H_CURRENT] == s[L.G_START] == s[L.G_FIRST_START]
        starts.add(int(s[L.G_START]))
    assert starts == ({0} if start_player == "seat0" else {0, 1, 2, 3})


# ------------------------------------------------------------------ 2 players: the neutral


def neutral_city(city, options=None):
    s = position(2, round=2, start=0, open=city, options=options)
    return score_from(s)


def test_md24_neutral_sole_majority_variant_a():
    s = neutral_city({a: {NEUTRAL: 3}, b: {NEUTRAL: 2, 1: 1}, c: {0: 2, NEUTRAL: 1}})
    assert s[L.G_PROV] == P and s[L.G_NSOLE] == 1
    assert [cty(s, d, NEUTRAL) for d in (a, b, c)] == [2, 2, 1]
    assert tiles(s, 0)[P] == 2 and tiles(s, 1)[P] == 1
    act(s, 0, "return 0")
    act(s, 1, "return 1")
    assert s[L.G_PHASE] == L.PH_NRETURN and s[H_CURRENT] == 0
    act(s, 0, f"neutral member back to district {b}")
    act(s, 0, f"neutral member back to district {b}")
    assert score(s, 0) == 8 and score(s, 1) == 0
    assert s[L.BOXED + NEUTRAL] == 3 and opn(s, b, NEUTRAL) == 2


def test_md24_neutral_sole_majority_variant_b():
    s = neutral_city({a: {NEUTRAL: 3}, b: {NEUTRAL: 2, 1: 1}, c: {0: 2, NEUTRAL: 1}})
    act(s, 0, "return 1")
    act(s, 1, "return 1")
    act(s, 0, f"member back to district {c}") if s[L.G_PHASE] == L.PH_RETURN else None
    for _ in range(3):
        act(s, 0, legal_names(s)[0])
    assert score(s, 0) == 4 and score(s, 1) == 0 and s[L.BOXED + NEUTRAL] == 2


def test_md24_alternative_reading_keeps_three():
    s = neutral_city(
        {a: {NEUTRAL: 3}, b: {NEUTRAL: 2, 1: 1}, c: {0: 2, NEUTRAL: 1}},
        {"neutral_keep": "before_returns"},
    )
    act(s, 0, "return 1")
    act(s, 1, "return 1")
    while s[L.G_PROV] == P and s[L.G_PHASE] in (L.PH_RETURN, L.PH_NRETURN):
        act(s, 0, legal_names(s)[0])
    assert s[L.BOXED + NEUTRAL] == 3


def tie_position(options=None):
    """Province 3 after 4.1: the neutral holds (2, 2, 2) city members, X (1, 1, 0), Y none;
    X keeps both.  The neutral is the sole majority (6 > 2) and H = 2 after the returns."""
    s = neutral_city({a: {NEUTRAL: 3, 0: 1}, b: {NEUTRAL: 3, 0: 1}, c: {NEUTRAL: 2}}, options)
    assert s[L.G_NSOLE] == 1
    assert [cty(s, d, NEUTRAL) for d in (a, b, c)] == [2, 2, 2] and [
        cty(s, d, 0) for d in (a, b, c)
    ] == [1, 1, 0]
    act(s, 0, "return 0")
    assert s[L.G_PHASE] == L.PH_NRETURN and s[H_CURRENT] == 0
    return s


def test_d23_default_keeps_one_more_than_the_best_player():
    s = tie_position()
    assert s[L.G_NLEFT] == 3  # keeps H + 1 = 3
    for d in (a, a, b):
        act(s, 0, f"neutral member back to district {d}")
    assert s[L.G_PROV] != P and s[L.BOXED + NEUTRAL] == 3 and score(s, 0) == 8


def test_d23_tie_on_tiebreak_keeps_a_tie_it_wins_on_the_sections():
    """neutral_keep = tie_on_tiebreak: 2 neutral members in one section tie X's 2 and win the
    tie-break (largest section 2 against 1), so the neutral keeps only 2; the start player
    picks the 4 returning members, but only so that the 2 kept still win the tie-break."""
    s = tie_position({"neutral_keep": "tie_on_tiebreak"})
    assert s[L.G_NLEFT] == 4
    act(s, 0, f"neutral member back to district {a}")  # (1, 2, 2): every section still open
    assert legal_names(s) == [f"neutral member back to district {d}" for d in (a, b, c)]
    act(
        s, 0, f"neutral member back to district {b}"
    )  # (1, 1, 2): only section c can hold the kept 2
    assert legal_names(s) == [f"neutral member back to district {d}" for d in (a, b)]
    act(
        s, 0, f"neutral member back to district {a}"
    )  # (0, 1, 2): b is the only choice, taken unasked
    assert s[L.G_PROV] != P
    assert s[L.BOXED + NEUTRAL] == 2 and [opn(s, d, NEUTRAL) for d in (a, b, c)] == [3, 3, 0]
    assert score(s, 0) == 8 and score(s, 1) == 0  # X's 2 members; the neutral takes the bonus


def test_d23_tie_on_tiebreak_keeps_one_more_when_the_tie_break_is_lost():
    """MD-24 variant A under tie_on_tiebreak: X's 2 remaining members sit in one section, so 2
    neutral members could at best tie the tie-break too; the neutral keeps 3 as by default."""
    s = neutral_city(
        {a: {NEUTRAL: 3}, b: {NEUTRAL: 2, 1: 1}, c: {0: 2, NEUTRAL: 1}},
        {"neutral_keep": "tie_on_tiebreak"},
    )
    act(s, 0, "return 0")
    act(s, 1, "return 1")
    assert s[L.G_PHASE] == L.PH_NRETURN and s[L.G_NLEFT] == 2
    act(s, 0, f"neutral member back to district {b}")
    act(s, 0, f"neutral member back to district {b}")
    assert score(s, 0) == 8 and s[L.BOXED + NEUTRAL] == 3


def test_md25_neutral_not_sole():
    s = neutral_city({a: {NEUTRAL: 3}, c: {0: 2}})
    assert s[L.G_NSOLE] == 0
    act(s, 0, "return 0")
    assert score(s, 0) == 12 and opn(s, a, NEUTRAL) == 3 and s[L.BOXED + NEUTRAL] == 0


def test_md26_neutral_placement_cap():
    s = position(2, round=3, start=0, open={d: {NEUTRAL: 1} for d in range(18)}, phase=L.PH_NEUTRAL)
    assert s[H_CURRENT] == 0
    act(s, 0, "neutral member to district 4")
    act(s, 1, "neutral member to district 4")
    assert opn(s, 4, NEUTRAL) == 3
    assert "neutral member to district 4" not in legal_names(s) and len(legal_names(s)) == 17


# ---------------------------------------------------------------- phase 3 flow, end, neutral supply


def test_md27_phase3_flow():
    s = position(
        3, round=1, start=0, phase=L.PH_TURN, hands={1: "H", 2: "HB"}, princes={0: 0, 1: 6, 2: 12}
    )
    assert s[H_CURRENT] == 0 and legal_names(s) == ["pass"]
    act(s, 0, "pass")
    assert s[H_CURRENT] == 1
    act(s, 1, "stay discarding Horse")
    act(s, 1, "deploy 0 open")
    assert s[H_CURRENT] == 2
    act(s, 2, "stay discarding Boat")
    act(s, 2, "deploy 0 open")
    assert s[H_CURRENT] == 1 and legal_names(s) == ["pass"]
    act(s, 1, "pass")
    assert s[H_CURRENT] == 2
    act(s, 2, "pass")
    assert s[L.G_ROUND] == 2 and s[L.G_PHASE] == L.PH_PLACE and hand(s, 2) == [1, 0, 0, 0]


def test_md28_end_tie_break_by_monasteries():
    s = position(2, round=6, scores={0: 87, 1: 87}, monk={0: 0, 1: 0, 2: 0, 3: 1, 4: 1})
    s[L.G_PHASE] = L.PH_OVER
    sc, w = np.zeros(2), np.zeros(2)
    returns(s, sc, w)
    assert w.tolist() == [1.0, 0.0]
    s[L.MONK + 5] = 1
    returns(s, sc, w)
    assert w.tolist() == [0.5, 0.5]


def neutral_counts_by_round(options):
    from sim.core import new_rng, random_legal
    from sim.ming_dynasty.rules import apply, new_state

    s = new_state(np.int64(5), np.int64(2), SPEC.encode_options(options))
    rng = new_rng(1)
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    placed = {}
    while s[L.G_PHASE] != L.PH_OVER:
        if s[L.G_PHASE] == L.PH_NEUTRAL:
            r = int(s[L.G_ROUND])
            placed[r] = placed.get(r, 0) + 1
        legal_mask(s, mask)
        apply(s, np.int64(random_legal(mask, rng, 0)))
    return placed, s


def test_md29_neutral_supply_default_places_every_member():
    placed, s = neutral_counts_by_round({})
    assert placed == {1: 6, 3: 6, 5: 6}
    assert s[L.G_NEUTRAL_SKIPPED] == 0


def test_md29_strict_pool_skips_uncovered_placements():
    s = position(
        2,
        round=5,
        start=0,
        phase=L.PH_NEUTRAL,
        neutral_pool=4,
        options={"neutral_pool": "strict_31"},
    )
    for seat in (0, 1, 0, 1):
        act(
            s, seat, "neutral member to district 0" if seat == 0 else "neutral member to district 1"
        )
    assert s[L.G_PHASE] == L.PH_PLACE and s[L.G_NEUTRAL_SKIPPED] == 2 and s[L.G_NEUTRAL_POOL] == 0
    # at setup the strict pool leaves 7 after the 24 placements
    from sim.ming_dynasty.rules import new_state

    t = new_state(np.int64(3), np.int64(2), SPEC.encode_options({"neutral_pool": "strict_31"}))
    assert t[L.G_NEUTRAL_POOL] == 31  # D24: the neutral comes after the princes
    act(t, int(t[H_CURRENT]), "prince to district 0")
    act(t, int(t[H_CURRENT]), "prince to district 5")
    assert t[L.G_NEUTRAL_POOL] == 31 - 18 and t[L.G_PHASE] == L.PH_NEUTRAL


# ------------------------------------------------------------------ data files


def test_board_file_matches_the_spec_and_broken_files_name_the_line():
    from sim.ming_dynasty.options import BOARD_FILE, DataError, load_board

    adj = load_board()
    assert (adj >= 0).sum() == 2 * 33 and (adj == adj.T).all()
    assert [int(((adj == k).sum()) // 2) for k in range(3)] == [11, 11, 11]
    assert {int(y) for y in np.flatnonzero(adj[5] >= 0)} == {1, 3, 4, 9, 12}
    lines = BOARD_FILE.read_text().splitlines()
    i = next(k for k, x in enumerate(lines) if x.startswith("7,3,4,"))
    for bad, msg in [
        ("7,3,4,CAMEL,intra", "symbol 'CAMEL'"),
        ("7,3,4,BOAT,inter", "kind 'inter' should be intra"),
        ("7,3,19,BOAT,inter", "district_b 19"),
        ("7,3,4,BOAT", "expected 5 fields"),
        ("7,0,1,BOAT,intra", "already share a border"),
    ]:
        text = "\n".join(lines[:i] + [bad] + lines[i + 1 :])
        with pytest.raises(DataError, match=rf"line {i + 1}: .*{msg}"):
            load_board(text=text)


def test_component_file_is_validated():
    from sim.ming_dynasty.options import DataError, component_data, load_components

    comp = load_components()
    assert component_data(comp).shape[0] == L.D_SIZE
    with pytest.raises(DataError, match="movement_cards.BOAT"):
        component_data({**comp, "movement_cards": {"HORSE": 27, "BOAT": 0, "PALANQUIN": 27}})
    with pytest.raises(DataError, match="return_card_values"):
        component_data({**comp, "return_card_values": {"values": [1, 2, 3]}})
    with pytest.raises(DataError, match="set6_points.values"):
        component_data({**comp, "set6_points": {"values": [28, 24]}})


def test_d8_exhausted_colour_gives_no_tile_and_tiles_go_clockwise_from_the_start_player():
    # 17 tiles of colour 3 are held by seat 2: one left; seats 0 and 1 both enter the city
    s = position(3, round=2, start=1, tiles={2: [0, 0, 0, 17, 0, 0]}, open={a: {0: 2, 1: 2}})
    district_to_city(s, a)
    assert cty(s, a, 0) == 1 and cty(s, a, 1) == 1
    assert tiles(s, 1)[P] == 1 and tiles(s, 0)[P] == 0 and s[L.TILE_SUPPLY + P] == 0


# ----------------------------------------------------------- alternative rulings offered as options


def md17_position(options=None):
    return score_from(
        position(
            3,
            round=2,
            start=0,
            open={a: {0: 3, 2: 1}, b: {0: 2, 1: 2}, c: {1: 4, 2: 2, 0: 1}},
            options=options,
        )
    )


def test_d3_in_commitment_sections_are_committed_secretly_and_no_choice_follows_the_reveal():
    """D3 alternative (``return_choice = in_commitment``): MD-17 with the sections folded into
    the commitment.  The default asks A's section after the reveal ("member back to district
    10"); here A commits "1 to district 10" with the count, and the reveal returns everything
    with no further decision: the same end position as MD-17."""
    default = md17_position()
    act(default, 0, "return 1")
    act(default, 1, "return 0")
    act(default, 2, "return 2")
    assert default[L.G_PHASE] == L.PH_RETURN and legal_names(default) == [
        f"member back to district {a}",
        f"member back to district {b}",
    ]
    s = md17_position({"return_choice": "in_commitment"})
    assert s[L.G_PROV] == P and s[H_CURRENT] == 0
    # A holds 2 in section a and 1 in section b: 3 x 2 section choices instead of the counts 0..3
    assert legal_names(s) == [
        "return none",
        f"return 1 to district {a}",
        f"return 2 to district {a}",
        f"return 1 to district {b}",
        f"return 1 to district {a}, 1 to district {b}",
        f"return 2 to district {a}, 1 to district {b}",
    ]
    act(s, 0, f"return 1 to district {b}")
    act(s, 1, "return none")
    act(s, 2, f"return 1 to district {a}, 1 to district {c}")
    assert s[L.G_PROV] > P or s[L.G_PHASE] not in (L.PH_COMMIT, L.PH_RETURN)  # province 3 is done
    assert [score(s, p) for p in range(3)] == [8, 16, 0]
    assert [
        opn(s, a, 0),
        opn(s, a, 2),
        opn(s, b, 0),
        opn(s, b, 1),
        opn(s, c, 1),
        opn(s, c, 2),
        opn(s, c, 0),
    ] == [1, 1, 2, 1, 2, 2, 1]
    # committing section a instead sends A's member back there
    t = md17_position({"return_choice": "in_commitment"})
    act(t, 0, f"return 1 to district {a}")
    act(t, 1, "return none")
    act(t, 2, f"return 1 to district {a}, 1 to district {c}")
    assert [opn(t, a, 0), opn(t, b, 0)] == [2, 1] and score(t, 0) == 8


def test_d3_in_commitment_hides_the_sections():
    """The committed sections are as secret as the count: seat 1's key is the same whichever
    sections seat 0 committed, determinize resamples them within seat 0's holdings, and
    rewind_secrets takes them back."""
    from sim.core import new_rng

    k = SPEC.kernels
    s = md17_position({"return_choice": "in_commitment"})
    keys = set()
    for name in (
        "return none",
        f"return 1 to district {a}",
        f"return 1 to district {b}",
        f"return 2 to district {a}",
    ):
        t = s.copy()
        act(t, 0, name)
        keys.add(k.info_key(t, 1))
        assert k.info_key(t, 0) != k.info_key(s, 0)
        seen = set()
        for seed in range(30):
            u = t.copy()
            k.determinize(u, 1, new_rng(seed))
            assert k.info_key(u, 1) == k.info_key(t, 1)
            code = int(u[pb(0) + L.F_COMMIT_SEC])
            assert code % 3 <= 2 and code // 3 % 3 <= 1 and code // 9 == 0  # within A's (2, 1, 0)
            assert u[pb(0) + L.F_COMMIT] == code % 3 + code // 3 % 3
            seen.add(code)
        assert len(seen) == 6
        k.rewind_secrets(t, 1)
        assert np.array_equal(t, s)
    assert len(keys) == 1


def test_d15_discard_pile_sends_a_stayed_dragon_into_the_movement_deck():
    """D15 alternative (``stay_dragon = discard_pile``): MD-13's dragon goes to the discard
    pile, not back to the dragon supply; at the next reshuffle it joins the movement deck,
    can be turned up on the display and taken from there.  A dragon spent on a step still
    returns to the dragon supply."""
    from sim.ming_dynasty.rules import refill

    s = deploying(0, 7, {0: 3}, hand_cards="PD", princes={1: 0, 2: 1, 3: 2})
    t = s.copy()
    dragons = int(s[L.G_DRAGON_SUPPLY])
    s[L.O_STAY_DRAGON] = 1  # the option's code, as SPEC.encode_options sets it
    act(s, 0, "stay discarding Dragon")
    assert s[L.G_DRAGON_SUPPLY] == dragons and s[L.G_DISCARD_D] == 1 and hand(s, 0) == [0, 0, 1, 0]
    act(t, 0, "stay discarding Dragon")  # default: back to the dragon supply (MD-13)
    assert t[L.G_DRAGON_SUPPLY] == dragons + 1 and t[L.G_DISCARD_D] == 0
    # the supply runs out with only the dragon on the discard pile: the refill turns it up
    s[L.G_DECK_PTR] = s[L.G_DECK_N]
    s[L.G_DISCARD : L.G_DISCARD + 3] = 0
    refill(s, 2)
    assert s[L.DISPLAY + 2] == L.CARD_D and s[L.G_DISCARD_D] == 0 and s[L.G_RESHUFFLES] == 1
    u = position(
        3,
        round=1,
        start=0,
        spaces={2: {0: 1}},
        hands={0: "HB", 1: "HHHHH", 2: "BBBBB"},
        phase=L.PH_CARDS,
        options={"stay_dragon": "discard_pile"},
    )
    u[L.DISPLAY + 2] = L.CARD_D
    assert "take Dragon from display 2" in legal_names(u)
    act(u, 0, "take Dragon from display 2")
    assert hand(u, 0) == [1, 1, 0, 1]
    # a step paid with that dragon returns it to the dragon supply
    w = position(
        3,
        round=1,
        start=0,
        princes={0: 0, 1: 17, 2: 16},
        hands={0: "D"},
        phase=L.PH_TURN,
        options={"stay_dragon": "discard_pile"},
    )
    before = int(w[L.G_DRAGON_SUPPLY])
    act(w, 0, "step to 1 by Dragon")
    assert w[L.G_DRAGON_SUPPLY] == before + 1 and w[L.G_DISCARD_D] == 0


def test_d33_any_member_pays_a_dragon_with_another_players_member():
    """D33 alternative (``dragon_payment = any_member``): MD-14's player may also pay the
    dragon with a member of another seat from any province space; that member is boxed."""
    kw = {
        "round": 1,
        "start": 0,
        "spaces": {2: {0: 2}, 0: {1: 1, 2: 1, 3: 1}},
        "hands": {0: "HBP", 1: "HHHHH", 2: "BBBBB", 3: "PPPPP"},
        "phase": L.PH_CARDS,
    }
    s = position(4, **kw, options={"dragon_payment": "any_member"})
    display = f"take {('Horse', 'Boat', 'Palanquin')[s[L.DISPLAY + 2]]} from display 2"
    assert legal_names(s) == [
        display,
        "take dragon paying a member from space 2",
        "take dragon paying a member of seat 1 from space 0",
        "take dragon paying a member of seat 2 from space 0",
        "take dragon paying a member of seat 3 from space 0",
    ]
    assert legal_names(position(4, **kw)) == [
        display,
        "take dragon paying a member from space 2",
    ]  # MD-14
    boxed = [int(s[L.BOXED + p]) for p in range(4)]
    act(s, 0, "take dragon paying a member of seat 3 from space 0")
    assert s[L.SPACE + 0 * L.MAXP + 3] == 0 and s[L.SPACE + 2 * L.MAXP + 0] == 2
    assert [int(s[L.BOXED + p]) - boxed[p] for p in range(4)] == [0, 0, 0, 1]
    assert hand(s, 0) == [1, 1, 1, 1] and s[pb(0) + L.F_DRAGONS_BOUGHT] == 1


def test_d33_any_member_a_seat_left_without_members_and_dragons_takes_no_card():
    """Under ``any_member`` rivals can take all of a seat's members off the spaces; if the
    dragon supply is empty too, that seat can take no card and phase 2 passes it by."""
    s = position(
        3,
        round=1,
        start=0,
        spaces={0: {1: 1}},
        hands={0: "HHH", 1: "HHHH", 2: "HHHHH"},
        phase=L.PH_CARDS,
        options={"dragon_payment": "any_member"},
    )
    assert s[H_CURRENT] == 0  # seat 0 may still buy a dragon with seat 1's member
    assert legal_names(s) == ["take dragon paying a member of seat 1 from space 0"]
    s[L.G_DRAGON_SUPPLY] = 0
    advance(s)
    assert s[H_CURRENT] == 1
    act(s, 1, legal_names(s)[0])
    assert s[L.G_PHASE] == L.PH_TURN and sum(hand(s, 0)) == 3 and sum(hand(s, 1)) == 5
