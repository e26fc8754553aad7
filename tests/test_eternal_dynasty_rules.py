"""Eternal Dynasty rule tests: every scenario of the spec's section 11 that the engine
(T1-T32, T19, T25, T28 and T30 with their 2-player cases), the 2-player Eternal Emperor
rules of spec section 8, plus the data file's validation errors."""

import copy

import numpy as np
import pytest

from sim import Game
from sim.core import H_CURRENT
from sim.eternal_dynasty import SPEC
from sim.eternal_dynasty import layout as L
from sim.eternal_dynasty import rules as R
from sim.eternal_dynasty.options import DataError, component_data, load_components
from sim.eternal_dynasty.scenario import (
    RULER_ID,
    give_card,
    position,
    q0,
    run_task,
    score,
    tokens,
    turn,
)

K = SPEC.kernels
MASK = np.zeros(SPEC.num_actions, np.bool_)


def legal(s):
    K.legal_mask(s, MASK)
    return set(np.flatnonzero(MASK).tolist())


def top_kind(s):
    return int(s[R.top(s)])


def pq(province, t):
    return L.A_PQ + q0(province) * 2 + t


def prov(province):
    return L.A_PROV + q0(province)


# ---------------------------------------------------------------- scoring (7.1)


def test_T1_ten_points_and_a_coin_for_both_firsts_fortress_and_palace():
    s = position(
        3,
        board={(0, "Hunan"): (5, 4), (1, "Hunan"): (2, 3), (2, "Hunan"): (1, 0)},
        structures={"Hunan": ("FORTRESS", "PALACE")},
    )
    pts, coins = score(s, "Hunan")
    assert pts == [10, 2, 0] and coins == [1, 0, 0]


def test_T2_T5_two_way_tie_for_first_gives_one_each_and_no_second_nor_fortress():
    s = position(3, board={(0, "Hunan"): (3, 0), (1, "Hunan"): (3, 0), (2, "Hunan"): (2, 0)})
    assert score(s, "Hunan") == ([1, 1, 0], [0, 0, 0])
    s = position(
        3,
        board={(0, "Hunan"): (3, 0), (1, "Hunan"): (3, 0), (2, "Hunan"): (2, 0)},
        structures={"Hunan": "FORTRESS"},
    )
    assert score(s, "Hunan") == ([1, 1, 0], [0, 0, 0])


def test_T3_three_way_tie_scores_nothing():
    s = position(
        4,
        board={
            (0, "Hunan"): (3, 0),
            (1, "Hunan"): (3, 0),
            (2, "Hunan"): (3, 0),
            (3, "Hunan"): (1, 0),
        },
    )
    assert score(s, "Hunan")[0] == [0, 0, 0, 0]


def test_T4_tie_for_second_scores_nothing():
    s = position(3, board={(0, "Hunan"): (5, 0), (1, "Hunan"): (2, 0), (2, "Hunan"): (2, 0)})
    assert score(s, "Hunan")[0] == [2, 0, 0]


def test_T6_T7_coin_needs_sole_first_in_both_types():
    s = position(3, board={(0, "Hunan"): (4, 3), (1, "Hunan"): (0, 3)})
    assert score(s, "Hunan") == ([3, 1, 0], [0, 0, 0])
    s = position(3, board={(0, "Hunan"): (4, 4), (1, "Hunan"): (1, 2)})
    assert score(s, "Hunan") == ([4, 2, 0], [1, 0, 0])


def test_leaders_add_strength_and_yue_makes_generals_three():
    s = position(
        3,
        rulers=["Yue the Loyal"],
        board={(0, "Hunan"): (1, 0), (1, "Hunan"): (3, 0)},
        leaders={(0, "Hunan"): "GENERAL"},
    )
    assert score(s, "Hunan")[0] == [2, 1, 0]  # 1 + 3 = 4 beats 3
    s = position(
        3, board={(0, "Hunan"): (1, 0), (1, "Hunan"): (3, 0)}, leaders={(0, "Hunan"): "GENERAL"}
    )
    assert score(s, "Hunan")[0] == [1, 1, 0]  # 1 + 2 = 3 ties 3


def test_T20_coins_off_turns_the_coin_into_a_point():
    s = position(3, options={"coins": "off"}, board={(0, "Hunan"): (4, 4)})
    R.score_generation(s)
    assert s[R.pb(0) + L.F_SCORE] == 5 and s[R.pb(0) + L.F_COINS] == 0
    s = position(3, board={(0, "Hunan"): (4, 4)})
    R.score_generation(s)
    assert s[R.pb(0) + L.F_SCORE] == 4 and s[R.pb(0) + L.F_COINS] == 1


def _bag_draws(rolls):
    """Coin values drawn from the bag of the data file by the outcomes ``rolls`` (spec 7.3, in
    plain Python: each outcome indexes the coins left, 0s first, then 1s, then 2s)."""
    bag = {int(k): v for k, v in load_components()["rules_constants"]["coin_bag"].items()}
    out = []
    for r in rolls:
        for v in (0, 1, 2):
            if r < bag[v]:
                bag[v] -= 1
                out.append(v)
                break
            r -= bag[v]
    return out


@pytest.mark.parametrize("coin_draw", ["at_award", "at_reveal"])
def test_D47_coin_values_are_drawn_at_the_award_or_with_the_option_at_the_reveal(coin_draw):
    """D47: "coins at scoring province by province, the control coin before a Sacred Mountain
    coin"; ``coin_draw = at_reveal`` draws them at the final reveal instead, seat by seat (7.3
    allows it), which gives the same outcomes to other seats."""
    s = position(
        3,
        options={"coin_draw": coin_draw},
        marks={"Henan": L.MK_SACRED},
        board={(1, "Yunnan"): (2, 2), (0, "Hunan"): (3, 1), (2, "Henan"): (1, 1)},
    )
    ptr = int(s[L.G_LOG_PTR])
    rolls = [79, 0, 20, 60]
    s[L.G_LOG_LEN] = ptr + len(rolls)
    s[L.LOG + ptr : L.LOG + ptr + len(rolls)] = rolls
    v = _bag_draws(rolls)
    R.score_generation(s)
    assert [int(s[R.pb(p) + L.F_COINS]) for p in range(3)] == [1, 1, 2]
    if coin_draw == "at_award":
        # Yunnan (seat 1), Hunan (seat 0), Henan: control then Sacred Mountain (seat 2)
        assert s[L.G_LOG_PTR] == ptr + 4
        expect = [v[1], v[0], v[2] + v[3]]
        a = s.copy()
        a[R.pb(0) + L.F_COIN_VALUE], a[R.pb(1) + L.F_COIN_VALUE] = (
            a[R.pb(1) + L.F_COIN_VALUE],
            a[R.pb(0) + L.F_COIN_VALUE],
        )
        assert all(K.info_key(a, p) == K.info_key(s, p) for p in range(3))  # nobody sees a value
        values = set()
        for seed in range(30):
            c = s.copy()
            K.determinize(c, np.int64(0), np.array([seed, 2], np.int32))
            got = tuple(int(c[R.pb(p) + L.F_COIN_VALUE]) for p in range(3))
            left = [int(c[L.G_BAG0 + i]) for i in range(3)]
            assert sum(left) == 80 - 4 and left[1] + 2 * left[2] == 80 - sum(got)
            values.add(got)
        assert len(values) > 5  # resampled jointly from the bag
    else:
        assert s[L.G_LOG_PTR] == ptr and all(s[R.pb(p) + L.F_COIN_VALUE] == 0 for p in range(3))
        expect = [v[0], v[1], v[2] + v[3]]  # seat 0, seat 1, seat 2
    R.end_game(s)
    assert [int(s[R.pb(p) + L.F_COIN_VALUE]) for p in range(3)] == expect and s[
        L.G_LOG_PTR
    ] == ptr + 4
    assert expect[0] != expect[1]


def test_T27_cao_wins_ties_for_first_near_home():
    s = position(
        3,
        rulers=["Cao the Ambitious"],
        board={(0, "Hubei"): (3, 0), (1, "Hubei"): (3, 0), (2, "Hubei"): (2, 0)},
    )
    assert score(s, "Hubei")[0] == [2, 1, 0]
    s = position(
        3, rulers=["Cao the Ambitious"], board={(0, "Henan"): (3, 0), (1, "Henan"): (3, 0)}
    )
    assert score(s, "Henan")[0] == [2, 1, 0]  # Henan borders Hubei
    s = position(
        3, rulers=["Cao the Ambitious"], board={(0, "Yunnan"): (3, 0), (1, "Yunnan"): (3, 0)}
    )
    assert score(s, "Yunnan")[0] == [1, 1, 0]  # too far from Hubei


def test_liang_scores_one_point_per_three_represented_provinces():
    board = {
        (0, q): (1, 0) for q in ("Hunan", "Hubei", "Henan", "Anhui", "Jiangxi", "Fujian", "Yunnan")
    }
    board.update(
        {
            (1, q): (2, 0)
            for q in ("Hunan", "Hubei", "Henan", "Anhui", "Jiangxi", "Fujian", "Yunnan")
        }
    )
    s = position(3, rulers=["Liang the Tax Collector"], board=board)
    R.score_generation(s)
    assert s[R.pb(0) + L.F_SCORE] == 7 // 3 + 7  # second place in each of 7 provinces


def test_T8_event_coin_majority_two_way_tie_gets_second_reward():
    s = position(3, board={(0, "Gansu"): (6, 0), (1, "Sichuan"): (6, 0), (2, "Yunnan"): (3, 0)})
    counts = np.array([6, 6, 3, 0, 0, 0], np.int64)
    R.coin_majority(s, counts, np.int64(2), np.int64(1))
    assert [int(s[R.pb(p) + L.F_COINS]) for p in range(3)] == [1, 1, 0]


def test_T17_final_tie_breaks_by_coins_then_tokens_then_order():
    s = position(
        3, board={(0, "Hunan"): (1, 0), (1, "Hubei"): (1, 0), (2, "Henan"): (1, 0)}, first=1
    )
    for p in range(3):
        s[R.pb(p) + L.F_SCORE] = 10
    s[L.G_FINAL_FIRST] = 1
    s[L.G_OVER] = 1
    sc, w = np.zeros(3), np.zeros(3)
    K.returns(s, sc, w)
    assert w.tolist() == [0, 1, 0]  # seat 1 went first in the final Generation
    s[R.ti(2, q0("Henan"), 0)] = 2
    K.returns(s, sc, w)
    assert w.tolist() == [0, 0, 1]  # more tokens on the board
    s[R.pb(0) + L.F_COINS] = 1
    K.returns(s, sc, w)
    assert w.tolist() == [1, 0, 0]  # more Coins (count, not value)


# ---------------------------------------------------------------- votes


def test_T9_extra_votes_make_a_three_three_tie_that_fails():
    s = position(
        4,
        votes=[
            ["CENSUS", "CENSUS"],
            ["CONSCRIPTION", "CONSCRIPTION"],
            ["DEMOBILIZATION"],
            ["AMNESTY"],
        ],
        board={(p, "Hunan"): (1, 1) for p in range(4)},
    )
    turn(s, 0)
    assert top_kind(s) == R.TK_VOTECALL
    K.apply(s, L.A_NUM + 0)  # seat 0 calls Census
    # picks from the caller's left: seats 1, 2, 3, then the caller
    for p, a in ((1, L.A_AYE), (2, L.A_AYE), (3, L.A_NAY), (0, L.A_NAY)):
        assert s[H_CURRENT] == p and top_kind(s) == R.TK_AYENAY
        K.apply(s, a)
    # extras from the caller's left: +1 Nay, 0, +1 Aye, caller 0
    assert s[H_CURRENT] == 1
    K.apply(s, L.A_NUM + L.VHAND_MAX + 0)
    K.apply(s, L.A_SKIP)
    assert s[H_CURRENT] == 2
    K.apply(s, L.A_SKIP)
    assert s[H_CURRENT] == 3
    K.apply(s, L.A_NUM + 0)  # its only Vote card: its turn to spend ends by itself
    assert s[H_CURRENT] == 0 and top_kind(s) == R.TK_EXTRA
    K.apply(s, L.A_SKIP)
    assert (s[L.G_AYES], s[L.G_NAYS]) == (3, 3) and s[L.G_VOTES_PASSED] == 0
    assert top_kind(s) == R.TK_ACTION and s[H_CURRENT] == 0  # the call used no action


def _vote(s, caller, n, ayes):
    for _ in range(n):
        p = int(s[H_CURRENT])
        K.apply(s, L.A_AYE if p in ayes else L.A_NAY)
    while top_kind(s) == R.TK_EXTRA:
        K.apply(s, L.A_SKIP)


def test_T10_consolidation_of_power_ban_lasts_until_a_failed_repeat():
    s = position(
        3,
        votes=[["CONSOLIDATION_OF_POWER"], ["CONSOLIDATION_OF_POWER"], []],
        hands=[["GENERAL"], ["GENERAL"], []],
        board={(p, "Hunan"): (1, 1) for p in range(3)},
    )
    turn(s, 0)
    K.apply(s, L.A_NUM + 0)
    _vote(s, 0, 3, {0, 1, 2})
    assert R.banned(s, L.CT_LEADER)
    assert (L.A_CARD + 0) not in legal(s)  # no Leader while the ban stands
    K.apply(s, L.A_SKIP)
    s[L.G_SP] = 0
    turn(s, 1)
    K.apply(s, L.A_NUM + 0)
    _vote(s, 1, 3, {1})
    assert not R.banned(s, L.CT_LEADER)
    assert (L.A_CARD + 0) in legal(s)  # the failed caller may play a Leader this very turn


def test_chen_counts_two_votes():
    s = position(
        3,
        rulers=["Chen the Orator"],
        votes=[[], ["CENSUS"], []],
        board={(p, "Hunan"): (1, 1) for p in range(3)},
    )
    turn(s, 1)
    K.apply(s, L.A_NUM + 0)
    _vote(s, 1, 3, {1, 2})  # Chen (seat 0) votes Nay: 2 against 2 fails
    assert (s[L.G_AYES], s[L.G_NAYS]) == (2, 2) and s[L.G_VOTES_PASSED] == 0


# ---------------------------------------------------------------- gains and Ruler abilities


def test_T11_ing_hwa_initial_placement_in_guangdong_is_five_tokens():
    s = position(3, rulers=["Grand Educator Ing-Hwa"])
    run_task(s, R.TK_INIT_PLACE, 0)
    assert top_kind(s) == R.TK_GAIN and legal(s) == {L.A_TYPE, L.A_TYPE + 1}  # the extra's type
    K.apply(s, L.A_TYPE + 0)
    assert tokens(s, 0, "Guangdong") == (3, 2)
    assert (s[R.pb(0) + L.F_BM], s[R.pb(0) + L.F_BP]) == (1, 2)  # no bonus at the initial placement


def test_T12_ing_hwa_census_share_and_placement_are_two_gain_events():
    s = position(
        3,
        rulers=["Grand Educator Ing-Hwa"],
        votes=[["CENSUS"], [], []],
        board={(0, "Guangdong"): (1, 1), (1, "Hunan"): (1, 1), (2, "Hunan"): (1, 1)},
    )
    turn(s, 0)
    K.apply(s, L.A_NUM + 0)
    _vote(s, 0, 3, {0, 1, 2})
    while s[H_CURRENT] != 0 or top_kind(s) != R.TK_TARGET:  # seats 1 and 2 take their shares first
        K.apply(s, min(legal(s)))
    K.apply(s, prov("Guangdong"))
    K.apply(s, L.A_TYPE + 1)  # Ing-Hwa's extra: Political
    K.apply(s, L.A_NUM + 0)  # no bonus
    assert top_kind(s) == R.TK_ACTION
    K.apply(s, pq("Guangdong", 0))
    K.apply(s, L.A_TYPE + 0)
    K.apply(s, L.A_NUM + 0)
    assert tokens(s, 0, "Guangdong") == (3, 3)  # 1P + 1 extra, then 1M + 1 extra: 4 tokens


def test_T13_wu_gui_taxes_an_initial_placement_to_three():
    s = position(
        3, rulers=["Wu-Gui the Paranoid", "Lady Zhen the Chancellor"], board={(0, "Hubei"): (1, 0)}
    )
    run_task(s, R.TK_INIT_PLACE, 1)
    assert top_kind(s) == R.TK_INIT_PLACE and legal(s) == {L.A_TYPE, L.A_TYPE + 1}
    K.apply(s, L.A_TYPE + 1)  # drop a Political
    assert tokens(s, 1, "Hubei") == (2, 1)


def test_T14_li_betrayal_checks_before_resolving():
    s = position(
        3,
        rulers=["Li of the Sun"],
        hands=[["BETRAYAL"]],
        board={(0, "Hunan"): (2, 0), (2, "Hunan"): (3, 0)},
    )
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    assert legal(s) == {L.A_PLAYER + 2}
    K.apply(s, L.A_PLAYER + 2)
    K.apply(s, pq("Hunan", 0))
    assert top_kind(s) == R.TK_GAIN
    K.apply(s, L.A_NUM + 0)
    assert tokens(s, 2, "Hunan") == (1, 0) and tokens(s, 0, "Hunan") == (5, 0)


def test_T15_kuo_reaches_every_border_province():
    s = position(3, rulers=["Kuo the Mountain King"], board={(0, "Sichuan"): (1, 0)})
    ls = R.legal_set(s, np.int64(0), True, False)
    assert (ls >> q0("Zhili")) & 1 and not (ls >> q0("Jiangsu")) & 1


def test_zeng_places_two_steps_away_but_cards_stay_adjacent():
    s = position(3, rulers=["Zeng the Far-Marching"], board={(0, "Yunnan"): (1, 0)})
    assert (R.legal_set(s, np.int64(0), True, False) >> q0("Guangdong")) & 1
    assert not (R.legal_set(s, np.int64(0), False, False) >> q0("Guangdong")) & 1


ADJ = {(a - 1, b - 1) for a, b in load_components()["adjacency_edges"]}
ADJ |= {(b, a) for a, b in ADJ}


def within(provinces, steps):
    """Provinces at most ``steps`` borders away from ``provinces`` (modern map, 0-based)."""
    out = {q0(x) for x in provinces}
    for _ in range(steps):
        out |= {b for a, b in ADJ if a in out}
    return out


def placements(s):
    return {(a - L.A_PQ) // 2 for a in legal(s) if a < L.A_PROV}


def test_zeng_reach_starts_from_provinces_where_he_holds_influence():
    """Spec 5.3: "Zeng: provinces within distance 2 of a represented province" (Ruler 36: "up
    to 2 steps from a Province in which you hold Influence"); the Home stays legal but is no
    starting point of the reach unless he holds Influence there."""
    s = position(3, rulers=["Zeng the Far-Marching"])  # Home Hunan, no Influence anywhere
    turn(s, 0)
    assert top_kind(s) == R.TK_ACTION and placements(s) == {q0("Hunan")}
    s = position(3, rulers=["Zeng the Far-Marching"], board={(0, "Yunnan"): (1, 0)})
    turn(s, 0)
    assert placements(s) == within(["Yunnan"], 2) | {q0("Hunan")}
    assert q0("Jiangxi") not in placements(s)  # next to the Home, 3 steps from Yunnan
    s = position(3, rulers=["Zeng the Far-Marching"], board={(0, "Hunan"): (1, 0)})
    turn(s, 0)
    assert placements(s) == within(["Hunan"], 2)  # holding Influence at Home: 2 steps from it


def test_T16_three_player_quarantine_from_rolls_4_4_9():
    opts = SPEC.encode_options({})
    s = R.state_from_log(np.int64(3), opts, np.array([3, 3, 8], np.int64))
    assert [q + 1 for q in range(L.N_PROV) if s[L.QUAR + q]] == [4, 9]
    out = [r + 1 for r in range(L.N_RULERS) if s[L.RUL_LOC + r] == L.LOC_OUT]
    names = {r["id"]: r["name"] for r in load_components()["rulers"]}
    assert sorted(names[r] for r in out) == sorted(
        ["Feng the Beloved", "Tang the Usurper", "Mei of the Moon", "Lin the Diplomat"]
    )
    assert sum(1 for r in range(L.N_RULERS) if s[L.RUL_LOC + r] != L.LOC_OUT) == 32


def test_T18_T31_xun_offers_the_rolled_number_and_its_neighbours_wrapping():
    s = position(3, rulers=["Xun, Twice-Blessed"])
    s[L.G_LOG_LEN] = s[L.G_LOG_PTR] + 2
    s[L.LOG + s[L.G_LOG_PTR]] = 0  # a roll of 1 (Yunnan)
    s[L.LOG + s[L.G_LOG_PTR] + 1] = 19  # 20: re-rolled by a fresh draw
    run_task(s, R.TK_ARC, 0)
    assert top_kind(s) == R.TK_TARGET
    # each roll offers its number and the neighbours, one roll after the other
    offers = []
    while top_kind(s) == R.TK_TARGET and s[H_CURRENT] == 0:
        offers.append(legal(s))
        K.apply(s, min(legal(s)))
        K.apply(s, L.A_TYPE + 0)
        K.apply(s, L.A_NUM + 0)
    assert {prov(18), prov(1), prov(2)} in offers and len(offers) == 2


def _xun_position(rolls):
    s = position(3, rulers=["Xun, Twice-Blessed"])
    ptr = int(s[L.G_LOG_PTR])
    s[L.G_LOG_LEN] = ptr + len(rolls)
    s[L.LOG + ptr : L.LOG + ptr + len(rolls)] = rolls
    return s, ptr


def test_xun_rolls_chooses_and_gains_before_the_second_roll():
    """Ruler 13: "twice: roll the province die ...; choose the rolled number or one next to
    it ...; gain 1 Influence of either type there"; T31: "the second roll is made as usual"."""
    s, ptr = _xun_position([0, 9])  # rolls 1 (Yunnan) then 10 (Fujian)
    run_task(s, R.TK_ARC, 0)
    assert top_kind(s) == R.TK_TARGET and legal(s) == {prov(18), prov(1), prov(2)}  # the first roll
    assert s[L.G_LOG_PTR] == ptr + 1  # the second roll is not made yet
    first = s.copy()
    K.apply(s, prov(1))
    K.apply(s, L.A_TYPE + 1)
    assert s[L.G_LOG_PTR] == ptr + 1 and top_kind(s) == R.TK_GAIN  # the gain's bonus comes first
    K.apply(s, L.A_NUM + 0)
    assert tokens(s, 0, "Yunnan") == (0, 1)
    assert top_kind(s) == R.TK_TARGET and legal(s) == {prov(9), prov(10), prov(11)}
    assert s[L.G_LOG_PTR] == ptr + 2
    # the second roll is unknown at the first choice: a search's worlds roll it afresh
    offers = set()
    for seed in range(30):
        c = first.copy()
        K.determinize(c, np.int64(0), np.array([seed, 5], np.int32))
        assert K.info_key(c, 0) == K.info_key(first, 0)
        K.apply(c, prov(1))
        K.apply(c, L.A_TYPE + 1)
        K.apply(c, L.A_NUM + 0)
        offers.add(frozenset(legal(c)) if top_kind(c) == R.TK_TARGET else frozenset())
    assert len(offers) > 5


def test_T31_a_plague_number_is_unavailable_not_rerolled():
    s = position(3, rulers=["Xun, Twice-Blessed"], marks={4: L.MK_PLAGUE})
    s[L.QUAR + q0(3)] = 1
    s[L.QUAR + q0(5)] = 1
    s[L.G_LOG_LEN] = s[L.G_LOG_PTR] + 2
    s[L.LOG + s[L.G_LOG_PTR]] = 3  # 4: Shaanxi under Plague, neighbours 3 and 5 quarantined
    s[L.LOG + s[L.G_LOG_PTR] + 1] = 9  # 10: Fujian
    run_task(s, R.TK_ARC, 0)
    assert legal(s) == {prov(9), prov(10), prov(11)}
    K.apply(s, prov(10))
    K.apply(s, L.A_TYPE + 0)
    K.apply(s, L.A_NUM + 0)
    assert top_kind(s) != R.TK_TARGET or s[H_CURRENT] != 0  # the first roll gave nothing


def test_T32_bai_first_gain_at_home_then_next_to_it():
    s = position(3, rulers=["Bai the White Crane"])
    run_task(s, R.TK_ARC, 0)
    assert legal(s) == {prov("Yunnan")}
    K.apply(s, prov("Yunnan"))
    K.apply(s, L.A_TYPE + 0)
    K.apply(s, L.A_NUM + 0)
    assert legal(s) == {prov("Sichuan"), prov("Guangxi"), prov("Guizhou")}


def test_dong_start_of_turn_gain_is_optional():
    """Spec 6.3: "T2 Start-of-turn ability (optional) ... Dong: if no player (the EE included)
    has fewer tokens than p, gain 1 of either type at Home"; 6.5: "skip; ... Dong: type"."""
    board = {(0, "Guangxi"): (1, 0), (1, "Hunan"): (1, 1), (2, "Hubei"): (1, 0)}
    s = position(3, rulers=["Dong the Reformer"], board=board)
    turn(s, 0)
    assert top_kind(s) == R.TK_DONG and s[H_CURRENT] == 0
    assert legal(s) == {L.A_SKIP, L.A_TYPE, L.A_TYPE + 1}
    skip = s.copy()
    K.apply(skip, L.A_SKIP)
    assert top_kind(skip) == R.TK_ACTION and tokens(skip, 0, "Guangxi") == (1, 0)
    K.apply(s, L.A_TYPE + 1)  # take it as Political: one gain event, its bonus offered
    assert top_kind(s) == R.TK_GAIN and legal(s) == {L.A_NUM + k for k in range(3)}
    K.apply(s, L.A_NUM + 1)
    assert tokens(s, 0, "Guangxi") == (1, 2) and top_kind(s) == R.TK_ACTION
    # another player with fewer tokens, or a Home under Plague: nothing to offer
    for extra in ({(2, "Hubei"): (0, 0)}, {}):
        marks = {} if extra else {"Guangxi": L.MK_PLAGUE}
        s = position(3, rulers=["Dong the Reformer"], board=board | extra, marks=marks)
        turn(s, 0)
        assert top_kind(s) == R.TK_ACTION and tokens(s, 0, "Guangxi") == (1, 0)


def test_T21_fu_the_rat_free_intrigue_then_places():
    s = position(
        3,
        rulers=["Fu the Rat"],
        hands=[["SABOTAGE", "SABOTAGE"]],
        board={(0, "Guangxi"): (1, 0), (1, "Guangxi"): (4, 0)},
    )
    turn(s, 0)
    assert top_kind(s) == R.TK_FREE and (L.A_CARD + 0) in legal(s)
    K.apply(s, L.A_CARD + 0)
    K.apply(s, L.A_PLAYER + 1)
    K.apply(s, prov("Guangxi"))
    assert tokens(s, 1, "Guangxi") == (2, 0)
    assert top_kind(s) == R.TK_ACTION
    K.apply(s, pq("Guangxi", 0))
    K.apply(s, L.A_NUM + 0)
    assert top_kind(s) != R.TK_FREE or s[H_CURRENT] != 0  # no second free play this turn


def test_T22_feng_plays_the_set_aside_magistrate_and_it_returns():
    s = position(3, rulers=["Feng the Beloved"], board={(0, "Shaanxi"): (1, 1)})
    run_task(s, R.TK_ARC, 0)
    hand = [int(s[R.pb(0) + L.F_HAND + i]) for i in range(s[R.pb(0) + L.F_NDYN])]
    assert len(hand) == 1 and R.is_setaside_copy(s, hand[0])
    c = hand[0]
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    K.apply(s, prov("Shaanxi"))
    assert s[L.DYN_LOC + c] == L.LOC_SETASIDE and s[R.li(0, q0("Shaanxi"), L.MAGISTRATE)] == 1


def test_T24_sabotage_cannot_target_zhao_military():
    s = position(
        3,
        rulers=["Wen the Scholar", "Zhao the Iron Wall"],
        hands=[["SABOTAGE"]],
        board={(0, "Hunan"): (1, 0), (1, "Hunan"): (3, 0)},
    )
    turn(s, 0)
    assert (L.A_CARD + 0) not in legal(s)


def test_T28_tang_removes_others_tokens_at_home():
    s = position(3, rulers=["Tang the Usurper"], board={(1, "Shaanxi"): (2, 2)})
    run_task(s, R.TK_ARC, 0)
    for _ in range(3):
        assert top_kind(s) == R.TK_TAKE_OTHERS
        K.apply(s, min(legal(s)))
    assert sum(tokens(s, 1, "Shaanxi")) == 1
    s = position(3, rulers=["Tang the Usurper"])
    run_task(s, R.TK_ARC, 0)
    assert s[H_CURRENT] == -1 or top_kind(s) != R.TK_TAKE_OTHERS  # nothing on the board: no effect


def test_T29_plague_blocks_gains_but_not_removal():
    s = position(
        3,
        hands=[["LEVY", "DECREE", "SABOTAGE", "FORTRESS"]],
        marks={"Hunan": L.MK_PLAGUE},
        board={(0, "Hunan"): (2, 2), (1, "Hunan"): (2, 0)},
    )
    turn(s, 0)
    lg = legal(s)
    assert pq("Hunan", 0) not in lg and pq("Hunan", 1) not in lg
    assert not {L.A_CARD + 0, L.A_CARD + 1, L.A_CARD + 3} & lg  # Levy, Decree, Fortress: no target
    K.apply(s, L.A_CARD + 2)
    K.apply(s, L.A_PLAYER + 1)
    assert legal(s) == {prov("Hunan")}


def test_alliance_ally_gains_first_and_may_spend_bonus():
    s = position(3, hands=[["ALLIANCE"]], board={(0, "Hunan"): (1, 0), (1, "Yunnan"): (1, 0)})
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    K.apply(s, L.A_PLAYER + 1)
    assert s[H_CURRENT] == 1 and top_kind(s) == R.TK_TARGET


def test_uprising_each_other_player_removes_one_of_their_own():
    s = position(
        3,
        hands=[["UPRISING"]],
        board={(0, "Hunan"): (1, 0), (1, "Hunan"): (2, 1), (2, "Hunan"): (0, 1)},
    )
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    K.apply(s, prov("Hunan"))
    assert s[H_CURRENT] == 1
    K.apply(s, pq("Hunan", 1))
    assert s[H_CURRENT] == 2 and legal(s) == {pq("Hunan", 1)}
    K.apply(s, pq("Hunan", 1))
    assert tokens(s, 1, "Hunan") == (2, 0) and tokens(s, 2, "Hunan") == (0, 0)


# ---------------------------------------------------------------- game structure


@pytest.mark.parametrize(
    "n,options,turns",
    [
        (3, {}, 27),
        (4, {}, 28),
        (5, {}, 30),
        (3, {"length": "long3"}, 28),
        (5, {"length": "short5"}, 24),
        (2, {}, 30),
    ],
)
def test_T25_turns_per_player(n, options, turns):
    g = Game("eternal_dynasty", n, seed=5, options=options)
    g.play_random(np.random.default_rng(2))
    assert g.state[L.G_TURNS] == turns * n


def test_T23_five_players_fifth_generation_deals_fifteen_fresh_rulers():
    s = K.new_state(np.int64(3), np.int64(5), SPEC.encode_options({}))
    rng = np.random.default_rng(0)
    while not (s[L.G_GEN] == 5 and top_kind(s) == R.TK_RULER):
        K.apply(s, int(rng.choice(sorted(legal(s)))))
    chosen = {int(s[R.pb(p) + L.F_RULER_HIST + g]) for p in range(5) for g in range(4)}
    dealt = [int(s[R.pb(p) + L.F_DEALT + k]) for p in range(5) for k in range(3)]
    assert (
        len(chosen) == 20 and len(set(dealt)) == 15 and -1 not in dealt and not chosen & set(dealt)
    )


def test_T26_a_minor_event_brings_a_second_a_major_resolves_alone():
    comp = load_components()["event_cards"]
    for seed in range(30):
        s = K.new_state(np.int64(seed), np.int64(4), SPEC.encode_options({}))
        rng = np.random.default_rng(seed)
        while not (s[L.G_GEN] == 2 and top_kind(s) == R.TK_RULER):
            K.apply(s, int(rng.choice(sorted(legal(s)))))
        drawn = [int(s[L.EVT_DECK + i]) for i in range(int(s[L.G_EVT_PTR]))]
        assert s[L.G_EVENTS_DRAWN] == len(drawn)
        assert len(drawn) == (1 if comp[drawn[0]]["class"] == "MAJOR" else 2)


def test_no_events_variant_never_draws_and_minor_only_never_draws_a_major():
    comp = load_components()["event_cards"]
    for opt, check in (
        ({"events": "none"}, lambda d: d == []),
        ({"events": "minor_only"}, lambda d: all(comp[e]["class"] == "MINOR" for e in d)),
    ):
        g = Game("eternal_dynasty", 4, seed=1, options=opt)
        g.play_random(np.random.default_rng(1))
        s = g.state
        drawn = [e for e in range(L.N_EVENTS) if s[L.EVT_LOC + e] == L.LOC_DISCARD]
        assert check(drawn) and (opt["events"] == "none") == (s[L.G_EVENTS_DRAWN] == 0)


EVENT_KEY = {e["key"]: i for i, e in enumerate(load_components()["event_cards"])}


@pytest.mark.parametrize("events", ["full", "minor_only", "none"])
def test_events_option_decides_what_the_event_phase_draws(events):
    """4.3 / setup step 7: the same Event deck order, Succession Crisis (Major) then Favor of
    the Court and Renown in Arms (Minor), at the start of Generation 2.  ``full``: the Major
    resolves alone and removes every Structure; ``minor_only``: it is not in the deck, the two
    Minor events award Coins; ``none``: no Event phase."""
    s = position(
        4,
        options={"events": events},
        structures={"Hunan": "FORTRESS"},
        board={(0, "Hunan"): (3, 1), (1, "Hubei"): (1, 4), (2, "Henan"): (2, 2)},
    )
    want = [EVENT_KEY[k] for k in ("SUCCESSION_CRISIS", "FAVOR_OF_THE_COURT", "RENOWN_IN_ARMS")]
    lo, hi = int(s[L.G_EVT_PTR]), int(s[L.G_EVT_END])
    deck = [int(e) for e in s[L.EVT_DECK + lo : L.EVT_DECK + hi]]
    deck = [e for e in want if e in deck] + [e for e in deck if e not in want]
    s[L.EVT_DECK + lo : L.EVT_DECK + hi] = deck
    s[L.G_PHASE] = L.PH_GEN_START  # Generation 1 is over: the next one begins
    R.advance(s)
    assert s[L.G_GEN] == 2 and top_kind(s) == R.TK_RULER
    coins = [int(s[R.pb(p) + L.F_COINS]) for p in range(4)]
    fortress = int(s[L.STRUCT + q0("Hunan") * 2 + L.FORTRESS])
    got = (int(s[L.G_EVENTS_DRAWN]), fortress, coins)
    assert (
        got
        == {
            "full": (1, 0, [0, 0, 0, 0]),
            "minor_only": (
                2,
                1,
                [2, 2, 2, 0],
            ),  # most P: seat 1, then seat 2; most M: seat 0, then seat 2
            "none": (0, 1, [0, 0, 0, 0]),
        }[events]
    )


@pytest.mark.parametrize("draft", ["false", "true"])
def test_ruler_draft_option_changes_the_rulers_to_choose_from(draft):
    """G3 (Ruler Draft): every seat keeps its first Ruler at both picks and then chooses the
    third of its pool.  Without the draft that is the third Ruler it was dealt; with it (left
    in Generation 1), the third Ruler dealt to the seat two places to its right."""
    s = K.new_state(np.int64(8), np.int64(4), SPEC.encode_options({"ruler_draft": draft}))
    dealt = {p: [int(s[R.pb(p) + L.F_DEALT + k]) for k in range(3)] for p in range(4)}
    while top_kind(s) == R.TK_DRAFT:
        K.apply(s, L.A_NUM + 0)
    while top_kind(s) == R.TK_RULER:
        K.apply(s, L.A_NUM + 2)
    chosen = [int(s[R.pb(p) + L.F_RULER]) for p in range(4)]
    if draft == "false":
        assert chosen == [dealt[p][2] for p in range(4)]
    else:
        assert chosen == [dealt[(p - 2) % 4][2] for p in range(4)]


@pytest.mark.parametrize("adjacency", ["modern", "qing"])
def test_adjacency_option_moves_the_huai_border(adjacency):
    """D3: ``qing`` takes the Shandong-Anhui border out and puts Jiangsu-Henan in, so LEGAL
    changes for a player next to either."""
    s = position(
        3, options={"adjacency": adjacency}, board={(0, "Jiangsu"): (1, 0), (1, "Shandong"): (1, 0)}
    )
    henan = bool(R.legal_set(s, np.int64(0), True, False) >> q0("Henan") & 1)
    anhui = bool(R.legal_set(s, np.int64(1), True, False) >> q0("Anhui") & 1)
    assert (henan, anhui) == {"modern": (False, True), "qing": (True, False)}[adjacency]


def test_wrong_player_counts_and_lengths_are_refused_clearly():
    from sim.core import OptionError

    with pytest.raises(OptionError, match="1 players is not allowed"):
        Game("eternal_dynasty", 1)
    with pytest.raises(OptionError, match="long3.*3 players"):
        Game("eternal_dynasty", 4, options={"length": "long3"})
    for length in ("long3", "short5"):
        with pytest.raises(OptionError, match=f"'{length}'.*(3|5) players"):
            Game("eternal_dynasty", 2, options={"length": length})


# ---------------------------------------------------------------- data file


def test_data_file_errors_name_the_entry():
    comp = load_components()
    bad = copy.deepcopy(comp)
    bad["rulers"][6]["home"] = 40
    with pytest.raises(
        DataError, match=r"rulers\[6\] \(Grand Educator Ing-Hwa\).home: province id 40"
    ):
        component_data(bad)
    bad = copy.deepcopy(comp)
    bad["dynasty_cards"][4]["count"] = 10
    with pytest.raises(DataError, match="counts add up to 90, expected 89"):
        component_data(bad)
    bad = copy.deepcopy(comp)
    bad["vote_cards"][3]["effect"]["kind"] = "EXPLODE"
    with pytest.raises(
        DataError, match=r"vote_cards\[3\] \(CONSCRIPTION\).effect.kind: 'EXPLODE' is not one of"
    ):
        component_data(bad)
    bad = copy.deepcopy(comp)
    bad["provinces"][0]["adjacent"] = [2]
    with pytest.raises(DataError, match=r"provinces\[0\] \(Yunnan\): 'adjacent' disagrees"):
        component_data(bad)
    bad = copy.deepcopy(comp)
    del bad["rules_constants"]["coin_bag"]
    with pytest.raises(DataError, match="missing or malformed field 'coin_bag'"):
        component_data(bad)


def test_replaced_data_changes_the_game_without_recompiling():
    comp = load_components()
    comp["rules_constants"]["scoring"]["first"] = 5
    data = component_data(comp)
    opts = np.concatenate([SPEC.encode_options({})[: L.N_OPT], data]).astype(np.int32)
    s = K.new_state(np.int64(1), np.int64(3), opts)
    s2 = position(3, board={(0, "Hunan"): (3, 0)})
    s2[L.DATA : L.DATA + L.DATA_SIZE] = s[L.DATA : L.DATA + L.DATA_SIZE]
    assert score(s2, "Hunan")[0] == [5, 0, 0]


def test_D50_the_set_aside_copy_is_played_first():
    s = position(3, board={(0, "Hunan"): (1, 1)}, hands=[["MAGISTRATE"]])
    c_set = give_card(s, 0, "MAGISTRATE", setaside=True)
    normal = int(s[R.pb(0) + L.F_HAND])
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)  # the slot of the normal copy
    K.apply(s, prov("Hunan"))
    assert s[L.DYN_LOC + c_set] == L.LOC_SETASIDE and s[L.DYN_LOC + normal] == L.LOC_HAND


def test_D46_the_cap_keeps_base_tokens_before_bonus():
    s = position(3, board={(0, q): (3, 3) for q in range(1, 17)} | {(0, 17): (1, 1)})  # 98 tokens
    R.add_tokens(
        s, np.int64(0), np.int64(q0("Jiangxi")), np.int64(1), np.int64(1), np.int64(2), np.int64(2)
    )
    assert tokens(s, 0, "Jiangxi") == (1, 1) and R.tokens_total(s, np.int64(0)) == 100
    s = position(
        3, options={"enforce_token_limits": "false"}, board={(0, q): (3, 3) for q in range(1, 17)}
    )
    R.add_tokens(
        s, np.int64(0), np.int64(q0("Jiangxi")), np.int64(1), np.int64(1), np.int64(2), np.int64(2)
    )
    assert tokens(s, 0, "Jiangxi") == (3, 3)


@pytest.mark.parametrize("gen_shift", [0, 1])
def test_ruler_draft_keeps_two_picks_and_the_received_ruler(gen_shift):
    """G3: keep 1 of 3 and pass 2, keep 1 of the 2 received and pass 1; left (seat + 1) in
    odd Generations, right in even ones."""
    s = K.new_state(np.int64(4), np.int64(4), SPEC.encode_options({"ruler_draft": "true"}))
    if gen_shift:  # replay Generation 1 at random up to Generation 2's draft
        rng = np.random.default_rng(0)
        while not (s[L.G_GEN] == 2 and top_kind(s) == R.TK_DRAFT):
            K.apply(s, int(rng.choice(sorted(legal(s)))))
    d = 1 if s[L.G_GEN] % 2 == 1 else 3
    dealt = {p: [int(s[R.pb(p) + L.F_DEALT + k]) for k in range(3)] for p in range(4)}
    first = {}
    while top_kind(s) == R.TK_DRAFT and s[R.top(s) + 2] == 1:
        p = int(s[H_CURRENT])
        first[p] = dealt[p][2]
        K.apply(s, L.A_NUM + 2)  # keep the third
    received = {p: [int(s[R.pb(p) + L.F_DEALT + k]) for k in range(3)] for p in range(4)}
    for p in range(4):
        assert sorted(r for r in received[p] if r >= 0) == sorted(dealt[(p - d) % 4][:2])
    second = {}
    while top_kind(s) == R.TK_DRAFT:
        p = int(s[H_CURRENT])
        second[p] = received[p][0]
        K.apply(s, L.A_NUM + 0)
    assert top_kind(s) == R.TK_RULER
    for p in range(4):
        pool = [int(s[R.pb(p) + L.F_DEALT + k]) for k in range(3)]
        assert pool[:2] == [first[p], second[p]] and pool[2] == received[(p - d) % 4][1]


# ---------------------------------------------------------- 2 players: the Eternal Emperor (spec 8)

EE = L.EE


def di(s, p):
    return int(s[R.pb(p) + L.F_DI])


def bid(s, amount):
    """The seat to move bids ``amount`` (base-16 digits when its DI is 16 or more)."""
    if top_kind(s) == R.TK_BID and s[R.top(s) + 2] == 0:
        K.apply(s, L.A_NUM + amount // L.N_NUM)
    assert top_kind(s) == R.TK_BID
    K.apply(s, L.A_NUM + amount % L.N_NUM)


def test_T19_equal_bids_go_to_the_first_player_who_pays_and_declares_the_emperors_vote():
    s = position(
        2,
        votes=[[], ["CENSUS"]],
        first=0,
        board={(0, "Hunan"): (1, 1), (1, "Hubei"): (1, 1), (EE, "Henan"): (1, 1)},
    )
    turn(s, 1)
    K.apply(s, L.A_NUM + 0)  # seat 1 (B) calls Census; A is seat 0, the first player
    # the non-caller first: Aye/Nay, then the secret bid; then the caller
    assert s[H_CURRENT] == 0 and top_kind(s) == R.TK_AYENAY
    K.apply(s, L.A_NAY)
    assert s[H_CURRENT] == 0 and top_kind(s) == R.TK_BID
    assert legal(s) == {L.A_NUM + k for k in range(11)}  # 0..DI
    bid(s, 3)
    assert s[H_CURRENT] == 1 and top_kind(s) == R.TK_AYENAY
    K.apply(s, L.A_AYE)
    bid(s, 3)
    assert s[L.G_BID_WINNER] == 0 and (di(s, 0), di(s, 1)) == (7, 10)  # A wins and pays 3; B pays 0
    assert s[H_CURRENT] == 0 and top_kind(s) == R.TK_EE_VOTE  # A declares, before the reveal
    assert s[L.G_VOTE_STAGE] == 0
    K.apply(s, L.A_NAY)
    assert (s[L.G_AYES], s[L.G_NAYS]) == (1, 2) and s[L.G_VOTES_PASSED] == 0
    s2 = position(2, votes=[[], ["CENSUS"]], first=1)
    turn(s2, 1)
    K.apply(s2, L.A_NUM + 0)
    for _, pick, amount in ((0, L.A_NAY, 4), (1, L.A_AYE, 3)):
        K.apply(s2, pick)
        bid(s2, amount)
    assert s2[L.G_BID_WINNER] == 0 and (di(s2, 0), di(s2, 1)) == (
        6,
        10,
    )  # the higher bid beats the token


def test_bids_are_hidden_until_the_bid_reveal_and_resampled_by_determinize():
    s = position(2, votes=[["CENSUS"], []], first=0)
    turn(s, 0)
    K.apply(s, L.A_NUM + 0)  # seat 0 calls: seat 1 bids first
    K.apply(s, L.A_AYE)
    a, b = s.copy(), s.copy()
    bid(a, 2)
    bid(b, 9)
    assert K.info_key(a, 0) == K.info_key(b, 0) and K.info_key(a, 1) != K.info_key(b, 1)
    seen = set()
    for seed in range(40):
        c = a.copy()
        K.determinize(c, np.int64(0), np.array([seed, 1], np.int32))
        seen.add(int(c[R.pb(1) + L.F_BID]))
        assert K.info_key(c, 0) == K.info_key(a, 0)
    assert seen <= set(range(11)) and len(seen) > 3
    # after both bids, they are public
    K.apply(a, L.A_AYE)
    bid(a, 0)
    K.apply(b, L.A_AYE)
    bid(b, 0)
    assert K.info_key(a, 0) != K.info_key(b, 0)


def test_a_bid_of_sixteen_or_more_takes_two_digits_and_no_dynasty_influence_means_no_bid():
    s = position(2, votes=[["CENSUS"], []], first=0)
    s[R.pb(1) + L.F_DI] = 37
    s[R.pb(0) + L.F_DI] = 0
    turn(s, 0)
    K.apply(s, L.A_NUM + 0)
    K.apply(s, L.A_NAY)
    assert top_kind(s) == R.TK_BID and legal(s) == {L.A_NUM, L.A_NUM + 1, L.A_NUM + 2}
    K.apply(s, L.A_NUM + 2)
    assert legal(s) == {L.A_NUM + k for k in range(6)}  # 32..37
    K.apply(s, L.A_NUM + 5)
    K.apply(s, L.A_AYE)  # seat 0 has no DI: its bid is 0 without a decision
    assert (
        s[L.G_BID_WINNER] == 1
        and di(s, 1) == 0
        and s[H_CURRENT] == 1
        and top_kind(s) == R.TK_EE_VOTE
    )


def _pass_vote(s, caller, key_ayes=(L.A_AYE, L.A_AYE)):
    for pick in key_ayes:
        K.apply(s, pick)
        bid(s, 0)
    K.apply(s, L.A_AYE)  # the bid winner declares the EE's vote
    while top_kind(s) == R.TK_EXTRA:
        K.apply(s, L.A_SKIP)


def test_T30_imperial_examination_each_player_draws_one_the_emperor_nothing():
    s = position(2, votes=[["IMPERIAL_EXAMINATION"], []], first=0, board={(EE, "Henan"): (3, 3)})
    deck = int(s[L.G_DYN_END] - s[L.G_DYN_PTR])
    turn(s, 0)
    K.apply(s, L.A_NUM + 0)
    _pass_vote(s, 0)
    assert s[L.G_VOTES_PASSED] == 1
    assert [int(s[R.pb(p) + L.F_NDYN]) for p in range(3)] == [1, 1, 0]
    assert int(s[L.G_DYN_END] - s[L.G_DYN_PTR]) == deck - 2


def test_vote_effects_run_non_caller_caller_then_the_emperor_chosen_by_the_bid_winner():
    s = position(
        2,
        votes=[["CENSUS"], []],
        first=1,
        ee_start="Henan",
        board={(0, "Hunan"): (1, 1), (1, "Hubei"): (1, 1), (EE, "Henan"): (1, 1)},
    )
    turn(s, 0)
    K.apply(s, L.A_NUM + 0)  # seat 0 calls; seat 1 holds the token, so it wins 0-0 bids
    _pass_vote(s, 0)
    assert s[L.G_BID_WINNER] == 1
    order = []
    while top_kind(s) == R.TK_TARGET or top_kind(s) == R.TK_GAIN:
        o = R.top(s)
        if top_kind(s) == R.TK_TARGET:
            order.append((int(s[o + 1]), int(s[H_CURRENT])))
        K.apply(s, max(legal(s)))
    assert order == [(1, 1), (0, 0), (EE, 1)]  # (whose share, who decides)
    assert tokens(s, EE, "Henan") == (1, 2)


def test_T28_two_players_tang_removes_up_to_three_emperor_tokens_at_home_in_generation_one():
    s = position(2, rulers=["Tang the Usurper"], board={(EE, "Shaanxi"): (3, 2)})
    run_task(s, R.TK_ARC, 0)
    for _ in range(3):
        assert top_kind(s) == R.TK_TAKE_OTHERS and s[H_CURRENT] == 0
        assert legal(s) == {L.A_NUM + EE * 2, L.A_NUM + EE * 2 + 1}
        K.apply(s, L.A_NUM + EE * 2)
    assert tokens(s, EE, "Shaanxi") == (0, 2)
    # from a real 2-player deal: seat 0 chooses Tang in Generation 1 and takes up to 3 EE tokens
    tang = RULER_ID["Tang the Usurper"] - 1
    for seed in range(400):
        g = K.new_state(np.int64(seed), np.int64(2), SPEC.encode_options({}))
        slots = [k for k in range(3) if g[R.pb(0) + L.F_DEALT + k] == tang]
        if not slots or sum(tokens(g, EE, "Shaanxi")) == 0:
            continue
        before = sum(tokens(g, EE, "Shaanxi"))
        while top_kind(g) in (R.TK_RULER, R.TK_DISCARD):
            K.apply(
                g,
                L.A_NUM + slots[0]
                if top_kind(g) == R.TK_RULER and g[H_CURRENT] == 0
                else min(legal(g)),
            )
        taken = 0
        while g[L.G_TURNS] == 0:  # the ARC abilities and initial placements, up to the first turn
            if top_kind(g) == R.TK_TAKE_OTHERS and g[R.top(g) + 1] == 0:
                ee_bits = {L.A_NUM + EE * 2, L.A_NUM + EE * 2 + 1} & legal(g)
                assert ee_bits
                K.apply(g, min(ee_bits))
                taken += 1
            else:
                K.apply(g, min(legal(g)))
        assert taken == min(3, before) and sum(tokens(g, EE, "Shaanxi")) == before - taken
        break
    else:
        pytest.fail("no seed dealt Tang with Emperor tokens in Shaanxi")


def _replay_ee_setup(outcomes):
    """Spec 8 setup steps 1-4 replayed in plain Python from the chance outcomes."""
    it = iter(outcomes)
    quar = [False] * L.N_PROV

    def roll():
        while True:
            v = next(it)
            if v < L.N_PROV and not quar[v]:
                return v

    while sum(quar) < 2:
        quar[roll()] = True
    tok = np.zeros((L.N_PROV, 2), int)
    tiers = load_components()["two_player"]["ee_setup_tiers_per_type"]
    for t in range(2):
        for k, amount in tiers:
            got = []
            while len(got) < k:
                q = roll()
                if q not in got:
                    got.append(q)
            for q in got:
                tok[q, t] += amount

    def best(val):
        tied = [q for q in range(L.N_PROV) if val[q] == max(val)]
        while len(tied) > 1:
            q = roll()
            if q in tied:
                return q
        return tied[0]

    return quar, tok, best(tok[:, 0]), best(tok[:, 1]), best(tok.sum(axis=1))


def test_emperor_setup_tiers_structures_and_starting_province():
    comp = load_components()
    homes = {r["id"] - 1: r["home"] - 1 for r in comp["rulers"]}
    for seed in range(60):
        s = K.new_state(np.int64(seed), np.int64(2), SPEC.encode_options({}))
        quar = [bool(s[L.QUAR + q]) for q in range(L.N_PROV)]
        tok = np.array([tokens(s, EE, q + 1) for q in range(L.N_PROV)])
        assert sum(quar) == 2 and not tok[np.array(quar)].any()
        assert tok[:, 0].sum() == 21 and tok[:, 1].sum() == 21  # 4x3 + 3x2 + 3x1 per type
        assert (tok[:, 0] > 0).sum() >= 4 and (tok[:, 1] > 0).sum() >= 4
        fort = [q for q in range(L.N_PROV) if s[L.STRUCT + q * 2 + L.FORTRESS]]
        pal = [q for q in range(L.N_PROV) if s[L.STRUCT + q * 2 + L.PALACE]]
        start = int(s[L.G_EE_START])
        assert len(fort) == 1 and tok[fort[0], 0] == tok[:, 0].max()
        assert len(pal) == 1 and tok[pal[0], 1] == tok[:, 1].max()
        assert tok[start].sum() == tok.sum(axis=1).max() and s[R.pb(EE) + L.F_HOME] == start
        assert all(s[L.RUL_LOC + r] == L.LOC_OUT for r in range(L.N_RULERS) if quar[homes[r]])
        assert (di(s, 0), di(s, 1)) == (10, 10)
        assert (
            [int(s[R.pb(p) + L.F_NVOTE]) for p in range(2)] == [5, 5]
            and s[L.G_NGEN] == 5
            and s[L.G_NROUNDS] == 6
        )
        # the same setup, tiers distinct within a tier and ties broken by rolling, in plain Python
        rq, rtok, rf, rp, rs = _replay_ee_setup(Game("eternal_dynasty", 2, seed).chance_outcomes())
        assert rq == quar and np.array_equal(rtok, tok) and (rf, rp, rs) == (fort[0], pal[0], start)


def test_alliance_naming_the_emperor_costs_one_dynasty_influence_and_the_card_player_decides():
    s = position(
        2,
        hands=[["ALLIANCE"]],
        ee_start="Henan",
        board={(0, "Hunan"): (1, 0), (EE, "Henan"): (1, 0)},
    )
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    assert legal(s) == {L.A_PLAYER + 1, L.A_PLAYER + EE}
    K.apply(s, L.A_PLAYER + EE)
    assert di(s, 0) == 9 and s[H_CURRENT] == 0 and s[R.top(s) + 1] == EE
    # LEGAL for the Emperor: its provinces, their neighbours and its Starting Province
    henan = q0("Henan")
    near = {henan} | {q for q in range(L.N_PROV) if s[L.ADJ + henan * L.N_PROV + q]}
    assert legal(s) == {L.A_PROV + q for q in near}
    K.apply(s, prov("Henan"))
    K.apply(s, L.A_TYPE + 1)  # the ally's type, chosen by the card player
    assert tokens(s, EE, "Henan") == (1, 1)
    s = position(2, hands=[["ALLIANCE"]], board={(0, "Hunan"): (1, 0)})
    s[R.pb(0) + L.F_DI] = 0
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    assert legal(s) == {L.A_PLAYER + 1}  # no DI: the Emperor cannot be named


def test_the_emperor_is_another_player_for_targets_and_comes_after_both_in_uprising():
    s = position(
        2,
        hands=[["UPRISING", "SABOTAGE"]],
        board={(0, "Hunan"): (1, 0), (1, "Hunan"): (1, 1), (EE, "Hunan"): (2, 1)},
    )
    turn(s, 0)
    K.apply(s, L.A_CARD + 1)
    assert legal(s) == {L.A_PLAYER + 1, L.A_PLAYER + EE}  # Sabotage may target the Emperor
    s = position(
        2,
        hands=[["UPRISING"]],
        board={(0, "Hunan"): (1, 0), (1, "Hunan"): (1, 1), (EE, "Hunan"): (2, 1)},
    )
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    K.apply(s, prov("Hunan"))
    assert s[H_CURRENT] == 1 and s[R.top(s) + 1] == 1  # seat 1 removes its own first
    K.apply(s, pq("Hunan", 0))
    assert s[H_CURRENT] == 0 and s[R.top(s) + 1] == EE  # then the EE's, chosen by the card player
    K.apply(s, pq("Hunan", 1))
    assert tokens(s, EE, "Hunan") == (2, 0)


def test_great_famine_the_first_player_chooses_for_the_emperor_after_both_players():
    s = position(
        2, first=1, board={(0, "Hunan"): (3, 0), (1, "Hubei"): (2, 2), (EE, "Henan"): (2, 2)}
    )
    s[L.G_SP] = 0
    famine = next(
        i for i, e in enumerate(load_components()["event_cards"]) if e["key"] == "GREAT_FAMINE"
    )
    s[L.G_EE_DEC] = s[L.G_FIRST]
    R.resolve_event(s, np.int64(famine))
    R.advance(s)
    who = []
    while s[H_CURRENT] >= 0 and top_kind(s) == R.TK_REMOVE_OWN:
        who.append((int(s[R.top(s) + 1]), int(s[H_CURRENT])))
        K.apply(s, min(legal(s)))
    assert who == [(1, 1), (0, 0), (EE, 1)]
    assert sum(tokens(s, EE, "Henan")) == 3


def test_dynasty_influence_income_at_cleanup():
    s = position(
        2,
        rulers=["Wen the Scholar", "Han the Horse Lord"],
        hands=[["SCOUTS", "ENVOYS", "BRIBE"], []],
    )
    give_card(s, 1, "GENERAL", setaside=True)  # a set-aside card in hand counts (D32)
    s[R.pb(0) + L.F_BM] = 1
    s[R.pb(0) + L.F_BP] = 0
    s[R.pb(1) + L.F_BM] = 2
    s[R.pb(1) + L.F_BP] = 0
    R.cleanup(s)
    assert (di(s, 0), di(s, 1)) == (10 + 1 + 2 * 3, 10 + 2 + 2 * 1)
    assert [int(s[R.pb(p) + L.F_NDYN]) for p in range(2)] == [0, 0]


def test_emperor_win_gives_both_seats_share_zero_and_a_full_tie_goes_to_the_players():
    s = position(
        2, board={(0, "Hunan"): (1, 0), (1, "Hubei"): (1, 0), (EE, "Henan"): (1, 0)}, first=0
    )
    for p, pts in ((0, 10), (1, 9), (EE, 12)):
        s[R.pb(p) + L.F_SCORE] = pts
    s[L.G_FINAL_FIRST] = 0
    s[L.G_OVER] = 1
    sc, w = np.zeros(2), np.zeros(2)
    K.returns(s, sc, w)
    assert sc.tolist() == [10, 9] and w.tolist() == [0, 0]
    f = np.zeros((2, len(SPEC.feature_names)))
    K.features(s, f)
    names = list(SPEC.feature_names)
    assert f[:, names.index("ee_won")].tolist() == [1, 1] and f[0, names.index("ee_score")] == 12
    s[R.pb(EE) + L.F_SCORE] = 10  # equal score, Coins and tokens: the Emperor counts as after both
    K.returns(s, sc, w)
    assert w.tolist() == [1, 0]
    K.features(s, f)
    assert f[:, names.index("ee_won")].tolist() == [0, 0]
    s[R.ti(EE, q0("Henan"), 0)] = 2  # more tokens: the Emperor wins the tie-break
    K.returns(s, sc, w)
    assert w.tolist() == [0, 0]


def test_two_player_games_sometimes_end_with_the_emperor_winning():
    results = []
    for seed in range(12):
        g = Game("eternal_dynasty", 2, seed=seed)
        g.play_random(np.random.default_rng(seed))
        results.append(sum(g.win_shares))
        assert sum(g.win_shares) in (0.0, 1.0)
        assert "Eternal Emperor" in g.render()
    assert 0.0 in results


# --------------------------------- 5.4 step 1: the pre-check reads the board from before the effect


def _resolve_gain(s, p):
    """Finish seat p's gain event: Military for any type choice, no bonus spent."""
    while s[H_CURRENT] == p and top_kind(s) == R.TK_GAIN:
        lg = legal(s)
        K.apply(s, L.A_TYPE + 0 if L.A_TYPE + 0 in lg else L.A_NUM + 0)


@pytest.mark.parametrize("ally_m,li_after", [(2, (4, 0)), (3, (5, 0))])
def test_alliance_card_players_li_check_ignores_the_allys_share(ally_m, li_after):
    # equal Military before the card: the ally's share (3 > 2) does not make Li's check hold;
    # an ally already stronger before the card does
    s = position(
        3,
        rulers=["Li of the Sun"],
        hands=[["ALLIANCE"]],
        board={(0, "Hunan"): (2, 0), (1, "Hunan"): (ally_m, 0)},
    )
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    K.apply(s, L.A_PLAYER + 1)
    assert s[H_CURRENT] == 1 and top_kind(s) == R.TK_TARGET
    K.apply(s, prov("Hunan"))
    _resolve_gain(s, 1)
    assert tokens(s, 1, "Hunan") == (ally_m + 1, 0)
    assert s[H_CURRENT] == 0 and top_kind(s) == R.TK_TARGET
    K.apply(s, prov("Hunan"))
    _resolve_gain(s, 0)
    assert tokens(s, 0, "Hunan") == li_after


@pytest.mark.parametrize("other_p,mei_after", [(2, (0, 3)), (3, (0, 4))])
def test_vote_later_shares_check_the_board_from_before_the_vote(other_p, mei_after):
    # Census called by Mei (seat 0): seat 1's share comes first and raises it to 3 Political
    # in Hunan; Mei's check still reads the 2 against 2 from before the Vote
    s = position(
        3,
        rulers=["Mei of the Moon"],
        votes=[["CENSUS"], [], []],
        board={(0, "Hunan"): (0, 2), (1, "Hunan"): (0, other_p), (2, "Yunnan"): (1, 1)},
    )
    turn(s, 0)
    K.apply(s, L.A_NUM + 0)
    _vote(s, 0, 3, {0, 1, 2})
    assert s[H_CURRENT] == 1 and top_kind(s) == R.TK_TARGET
    K.apply(s, prov("Hunan"))
    _resolve_gain(s, 1)
    assert s[H_CURRENT] == 2 and top_kind(s) == R.TK_TARGET
    K.apply(s, prov("Yunnan"))
    _resolve_gain(s, 2)
    assert tokens(s, 1, "Hunan") == (0, other_p + 1)
    assert s[H_CURRENT] == 0 and top_kind(s) == R.TK_TARGET
    K.apply(s, prov("Hunan"))
    _resolve_gain(s, 0)
    assert tokens(s, 0, "Hunan") == mei_after


def test_leader_card_li_check_is_taken_before_the_general_is_placed():
    # 2 M against 3 M: the check holds before the card, although Li's own General (+2)
    # makes him the stronger once placed
    s = position(
        3,
        rulers=["Li of the Sun"],
        hands=[["GENERAL"]],
        board={(0, "Hunan"): (2, 0), (1, "Hunan"): (3, 0)},
    )
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    K.apply(s, prov("Hunan"))
    _resolve_gain(s, 0)
    assert tokens(s, 0, "Hunan") == (4, 0) and s[R.li(0, q0("Hunan"), L.GENERAL)] == 1


# ------------------------------------------------ determinize: exactly what the observer cannot see


def _play_random(s, stop, seed):
    rng = np.random.default_rng(seed)
    while not stop(s):
        assert not K.is_terminal(s)
        K.apply(s, int(rng.choice(sorted(legal(s)))))
    return s


def _secret_indices(s, observer):
    """State words determinize may change for ``observer``: card places, deck orders and
    knowledge bits, other seats' hands, Rulers and pending secret choices, and what nobody
    knows: the chance stream (and logged outcomes still ahead), the Coin values and the bag."""
    idx = set(range(L.DYN_LOC, L.VOTE_TYPE)) | set(range(L.VOTE_LOC, L.STACK))
    idx |= {0, 1, L.G_LOG_LEN, L.G_BAG0, L.G_BAG1, L.G_BAG2} | {
        R.pb(p) + L.F_COIN_VALUE for p in range(L.NCOL)
    }
    for p in range(int(s[2])):
        if p == observer:
            continue
        b = R.pb(p)
        idx |= set(range(b + L.F_HAND, b + L.F_HAND + L.HAND_MAX))
        idx |= set(range(b + L.F_VHAND, b + L.F_VHAND + L.VHAND_MAX))
        idx |= set(range(b + L.F_DEALT, b + L.F_DEALT + 3)) | {b + L.F_KEPT, b + L.F_KEPT + 1}
        idx |= {b + L.F_CHOICE, b + L.F_DPICK, b + L.F_PICK, b + L.F_BID}
    return np.array(sorted(idx))


def _family(s, observer, loc, know, size, hand, count, deck, ptr, end, dynasty):
    """(what the observer places: card -> place, face-down discards per seat, unseen cards)."""
    ob = 1 << observer
    n = int(s[2])
    seen, unseen = {}, {int(c) for c in s[deck + s[ptr] : deck + s[end]]}
    for p in range(n):
        for c in s[R.pb(p) + hand : R.pb(p) + hand + s[R.pb(p) + count]]:
            c = int(c)
            if p == observer or (dynasty and R.is_setaside_copy(s, c)):
                seen[c] = ("hand", p)
            else:
                unseen.add(c)
    fd = [0] * n
    for c in range(size):
        if s[loc + c] == L.LOC_DISCARD:
            k = int(s[know + c])
            if k != L.KNOW_ALL:
                fd[k.bit_length() - 1] += 1
            if k & ob:
                seen[c] = ("discard", k)
            else:
                unseen.add(c)
        elif s[loc + c] not in (L.LOC_DECK, L.LOC_HAND):
            seen[c] = ("other", int(s[loc + c]))
    return seen, fd, unseen


def _fd_of(s, p, loc, know, size):
    return frozenset(
        c for c in range(size) if s[loc + c] == L.LOC_DISCARD and s[know + c] == 1 << p
    )


def test_determinize_resamples_other_seats_face_down_discards_and_keeps_what_the_observer_sees():
    s = K.new_state(np.int64(11), np.int64(4), SPEC.encode_options({}))
    _play_random(
        s, lambda s: s[L.G_GEN] >= 3 and s[L.G_PHASE] == L.PH_TURNS and s[L.G_ROUND] >= 2, 5
    )
    dyn = (
        L.DYN_LOC,
        L.DYN_KNOW,
        L.N_DYN,
        L.F_HAND,
        L.F_NDYN,
        L.DYN_DECK,
        L.G_DYN_PTR,
        L.G_DYN_END,
        True,
    )
    vote = (
        L.VOTE_LOC,
        L.VOTE_KNOW,
        L.N_VOTES,
        L.F_VHAND,
        L.F_NVOTE,
        L.VOTE_DECK,
        L.G_VOTE_PTR,
        L.G_VOTE_END,
        False,
    )
    for observer in range(4):
        fixed = np.setdiff1d(np.arange(L.LOG), _secret_indices(s, observer))
        views = [_family(s, observer, *f) for f in (dyn, vote)]
        assert all(views[0][1])  # every seat has face-down discards by now
        others = [p for p in range(4) if p != observer]
        fds = {p: set() for p in others}
        rulers_seen = set()
        for seed in range(25):
            c = s.copy()
            K.determinize(c, np.int64(observer), np.array([seed, 3], np.int32))
            assert np.array_equal(
                c[fixed], s[fixed]
            )  # board, own hands, counts, public discards ...
            assert K.info_key(c, observer) == K.info_key(s, observer)
            for f, v in zip((dyn, vote), views):
                assert (
                    _family(c, observer, *f) == v
                )  # own discards stay, per-seat counts kept, same unseen set
            for p in others:
                fds[p].add(_fd_of(c, p, L.DYN_LOC, L.DYN_KNOW, L.N_DYN))
            rulers_seen.add(
                frozenset(
                    (r, int(c[L.RUL_KNOW + r]))
                    for r in range(L.N_RULERS)  # who discarded which
                    if c[L.RUL_LOC + r] == L.LOC_DISCARD and not c[L.RUL_KNOW + r] >> observer & 1
                )
            )
            own = [r for r in range(L.N_RULERS) if s[L.RUL_KNOW + r] >> observer & 1]
            assert all(
                c[L.RUL_LOC + r] == s[L.RUL_LOC + r] for r in own
            )  # the Rulers it held stay put
        assert all(
            len(v) > 5 for v in fds.values()
        )  # other seats' face-down discards are resampled
        assert len(rulers_seen) > 5  # and so are the Rulers other seats discarded unseen


@pytest.mark.parametrize("n", [2, 3])
def test_determinize_keeps_what_the_observer_knows_of_the_rulers_it_passed_in_the_draft(n):
    s = K.new_state(np.int64(4), np.int64(n), SPEC.encode_options({"ruler_draft": "true"}))
    assert top_kind(s) == R.TK_DRAFT and s[L.G_GEN] == 1  # odd Generation: pass to seat + 1
    dealt0 = [int(r) for r in s[R.pb(0) + L.F_DEALT : R.pb(0) + L.F_DEALT + 3]]
    x, y = 1 % n, 2 % n

    def dets(s, k=40):
        out = []
        for seed in range(k):
            c = s.copy()
            K.determinize(c, np.int64(0), np.array([seed, 9], np.int32))
            assert K.info_key(c, 0) == K.info_key(s, 0)
            assert np.array_equal(c[R.pb(0) : R.pb(0) + L.PS], s[R.pb(0) : R.pb(0) + L.PS])
            out.append(c)
        return out

    while top_kind(s) == R.TK_DRAFT and s[L.G_SP] and s[R.top(s) + 2] == 1:
        K.apply(s, L.A_NUM + 0)  # everyone keeps their first Ruler and passes the other two
    passed1 = set(dealt0[1:])
    for c in dets(s):  # seat x holds exactly the two the observer passed
        assert {int(r) for r in c[R.pb(x) + L.F_DEALT : R.pb(x) + L.F_DEALT + 2]} == passed1
    passed2 = int(s[R.pb(0) + L.F_DEALT + 1])  # the observer keeps slot 0 and passes slot 1
    while top_kind(s) == R.TK_DRAFT:
        K.apply(s, L.A_NUM + 0)
    assert top_kind(s) == R.TK_RULER
    held = (
        set(dealt0) | {passed2} | {int(r) for r in s[R.pb(0) + L.F_DEALT : R.pb(0) + L.F_DEALT + 3]}
    )
    arrangements, unknown = set(), set()
    for c in dets(s):
        assert c[R.pb(x) + L.F_DEALT + 2] == passed2  # the Ruler it passed at the second pass
        a = int(c[R.pb(x) + L.F_DEALT + 1])
        b = int(c[R.pb(y) + L.F_DEALT + 2])
        if n == 2:  # it got back the one x did not keep: x's second pick is known
            assert (a, b) == (int(s[R.pb(x) + L.F_DEALT + 1]), int(s[R.pb(y) + L.F_DEALT + 2]))
        else:  # x kept one of the two, the next seat holds the other: either way
            assert {a, b} == passed1
        arrangements.add((a, b))
        u = int(c[R.pb(x) + L.F_DEALT])  # x's first pick: never seen by the observer
        assert u not in held
        unknown.add(u)
    assert len(arrangements) == (1 if n == 2 else 2)
    assert len(unknown) > 5
