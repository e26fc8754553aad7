"""Eternal Dynasty rule tests: every scenario of the spec's section 11 that the engine
covers (T1-T18, T20-T29, T31, T32; T19 and T30 are 2-player rules, not implemented yet),
plus the data file's validation errors."""

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
    CARD_KIND, give_card, position, q0, run_task, score, tokens, turn,
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
    s = position(3, board={(0, "Hunan"): (5, 4), (1, "Hunan"): (2, 3), (2, "Hunan"): (1, 0)},
                 structures={"Hunan": ("FORTRESS", "PALACE")})
    pts, coins = score(s, "Hunan")
    assert pts == [10, 2, 0] and coins == [1, 0, 0]


def test_T2_T5_two_way_tie_for_first_gives_one_each_and_no_second_nor_fortress():
    s = position(3, board={(0, "Hunan"): (3, 0), (1, "Hunan"): (3, 0), (2, "Hunan"): (2, 0)})
    assert score(s, "Hunan") == ([1, 1, 0], [0, 0, 0])
    s = position(3, board={(0, "Hunan"): (3, 0), (1, "Hunan"): (3, 0), (2, "Hunan"): (2, 0)}, structures={"Hunan": "FORTRESS"})
    assert score(s, "Hunan") == ([1, 1, 0], [0, 0, 0])


def test_T3_three_way_tie_scores_nothing():
    s = position(4, board={(0, "Hunan"): (3, 0), (1, "Hunan"): (3, 0), (2, "Hunan"): (3, 0), (3, "Hunan"): (1, 0)})
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
    s = position(3, rulers=["Yue the Loyal"], board={(0, "Hunan"): (1, 0), (1, "Hunan"): (3, 0)},
                 leaders={(0, "Hunan"): "GENERAL"})
    assert score(s, "Hunan")[0] == [2, 1, 0]  # 1 + 3 = 4 beats 3
    s = position(3, board={(0, "Hunan"): (1, 0), (1, "Hunan"): (3, 0)}, leaders={(0, "Hunan"): "GENERAL"})
    assert score(s, "Hunan")[0] == [1, 1, 0]  # 1 + 2 = 3 ties 3


def test_T20_coins_off_turns_the_coin_into_a_point():
    s = position(3, options={"coins": "off"}, board={(0, "Hunan"): (4, 4)})
    R.score_generation(s)
    assert s[R.pb(0) + L.F_SCORE] == 5 and s[R.pb(0) + L.F_COINS] == 0
    s = position(3, board={(0, "Hunan"): (4, 4)})
    R.score_generation(s)
    assert s[R.pb(0) + L.F_SCORE] == 4 and s[R.pb(0) + L.F_COINS] == 1


def test_T27_cao_wins_ties_for_first_near_home():
    s = position(3, rulers=["Cao the Ambitious"], board={(0, "Hubei"): (3, 0), (1, "Hubei"): (3, 0), (2, "Hubei"): (2, 0)})
    assert score(s, "Hubei")[0] == [2, 1, 0]
    s = position(3, rulers=["Cao the Ambitious"], board={(0, "Henan"): (3, 0), (1, "Henan"): (3, 0)})
    assert score(s, "Henan")[0] == [2, 1, 0]  # Henan borders Hubei
    s = position(3, rulers=["Cao the Ambitious"], board={(0, "Yunnan"): (3, 0), (1, "Yunnan"): (3, 0)})
    assert score(s, "Yunnan")[0] == [1, 1, 0]  # too far from Hubei


def test_liang_scores_one_point_per_three_represented_provinces():
    board = {(0, q): (1, 0) for q in ("Hunan", "Hubei", "Henan", "Anhui", "Jiangxi", "Fujian", "Yunnan")}
    board.update({(1, q): (2, 0) for q in ("Hunan", "Hubei", "Henan", "Anhui", "Jiangxi", "Fujian", "Yunnan")})
    s = position(3, rulers=["Liang the Tax Collector"], board=board)
    R.score_generation(s)
    assert s[R.pb(0) + L.F_SCORE] == 7 // 3 + 7  # second place in each of 7 provinces


def test_T8_event_coin_majority_two_way_tie_gets_second_reward():
    s = position(3, board={(0, "Gansu"): (6, 0), (1, "Sichuan"): (6, 0), (2, "Yunnan"): (3, 0)})
    counts = np.array([6, 6, 3, 0, 0, 0], np.int64)
    R.coin_majority(s, counts, np.int64(2), np.int64(1))
    assert [int(s[R.pb(p) + L.F_COINS]) for p in range(3)] == [1, 1, 0]


def test_T17_final_tie_breaks_by_coins_then_tokens_then_order():
    s = position(3, board={(0, "Hunan"): (1, 0), (1, "Hubei"): (1, 0), (2, "Henan"): (1, 0)}, first=1)
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
    s = position(4, votes=[["CENSUS", "CENSUS"], ["CONSCRIPTION", "CONSCRIPTION"], ["DEMOBILIZATION"], ["AMNESTY"]],
                 board={(p, "Hunan"): (1, 1) for p in range(4)})
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
    for i in range(n):
        p = int(s[H_CURRENT])
        K.apply(s, L.A_AYE if p in ayes else L.A_NAY)
    while top_kind(s) == R.TK_EXTRA:
        K.apply(s, L.A_SKIP)


def test_T10_consolidation_of_power_ban_lasts_until_a_failed_repeat():
    s = position(3, votes=[["CONSOLIDATION_OF_POWER"], ["CONSOLIDATION_OF_POWER"], []],
                 hands=[["GENERAL"], ["GENERAL"], []], board={(p, "Hunan"): (1, 1) for p in range(3)})
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
    s = position(3, rulers=["Chen the Orator"], votes=[[], ["CENSUS"], []], board={(p, "Hunan"): (1, 1) for p in range(3)})
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
    s = position(3, rulers=["Grand Educator Ing-Hwa"], votes=[["CENSUS"], [], []],
                 board={(0, "Guangdong"): (1, 1), (1, "Hunan"): (1, 1), (2, "Hunan"): (1, 1)})
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
    s = position(3, rulers=["Wu-Gui the Paranoid", "Lady Zhen the Chancellor"], board={(0, "Hubei"): (1, 0)})
    run_task(s, R.TK_INIT_PLACE, 1)
    assert top_kind(s) == R.TK_INIT_PLACE and legal(s) == {L.A_TYPE, L.A_TYPE + 1}
    K.apply(s, L.A_TYPE + 1)  # drop a Political
    assert tokens(s, 1, "Hubei") == (2, 1)


def test_T14_li_betrayal_checks_before_resolving():
    s = position(3, rulers=["Li of the Sun"], hands=[["BETRAYAL"]],
                 board={(0, "Hunan"): (2, 0), (2, "Hunan"): (3, 0)})
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


def test_T16_three_player_quarantine_from_rolls_4_4_9():
    opts = SPEC.encode_options({})
    s = R.state_from_log(np.int64(3), opts, np.array([3, 3, 8], np.int64))
    assert [q + 1 for q in range(L.N_PROV) if s[L.QUAR + q]] == [4, 9]
    out = [r + 1 for r in range(L.N_RULERS) if s[L.RUL_LOC + r] == L.LOC_OUT]
    names = {r["id"]: r["name"] for r in load_components()["rulers"]}
    assert sorted(names[r] for r in out) == sorted(["Feng the Beloved", "Tang the Usurper", "Mei of the Moon", "Lin the Diplomat"])
    assert sum(1 for r in range(L.N_RULERS) if s[L.RUL_LOC + r] != L.LOC_OUT) == 32


def test_T18_T31_xun_offers_the_rolled_number_and_its_neighbours_wrapping():
    s = position(3, rulers=["Xun, Twice-Blessed"])
    s[L.G_LOG_LEN] = s[L.G_LOG_PTR] + 2
    s[L.LOG + s[L.G_LOG_PTR]] = 0  # a roll of 1 (Yunnan)
    s[L.LOG + s[L.G_LOG_PTR] + 1] = 19  # 20: re-rolled by a fresh draw
    run_task(s, R.TK_ARC, 0)
    assert top_kind(s) == R.TK_TARGET
    # the second roll's task lies underneath; the first roll is decided first? No: tasks are pushed
    # in roll order, so the last roll is on top.  Both offer a number and its neighbours.
    offers = []
    while top_kind(s) == R.TK_TARGET and s[H_CURRENT] == 0:
        offers.append(legal(s))
        K.apply(s, min(legal(s)))
        K.apply(s, L.A_TYPE + 0)
        K.apply(s, L.A_NUM + 0)
    assert {prov(18), prov(1), prov(2)} in offers and len(offers) == 2


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


def test_T21_fu_the_rat_free_intrigue_then_places():
    s = position(3, rulers=["Fu the Rat"], hands=[["SABOTAGE", "SABOTAGE"]],
                 board={(0, "Guangxi"): (1, 0), (1, "Guangxi"): (4, 0)})
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
    s = position(3, rulers=["Wen the Scholar", "Zhao the Iron Wall"], hands=[["SABOTAGE"]],
                 board={(0, "Hunan"): (1, 0), (1, "Hunan"): (3, 0)})
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
    s = position(3, hands=[["LEVY", "DECREE", "SABOTAGE", "FORTRESS"]], marks={"Hunan": L.MK_PLAGUE},
                 board={(0, "Hunan"): (2, 2), (1, "Hunan"): (2, 0)})
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
    s = position(3, hands=[["UPRISING"]], board={(0, "Hunan"): (1, 0), (1, "Hunan"): (2, 1), (2, "Hunan"): (0, 1)})
    turn(s, 0)
    K.apply(s, L.A_CARD + 0)
    K.apply(s, prov("Hunan"))
    assert s[H_CURRENT] == 1
    K.apply(s, pq("Hunan", 1))
    assert s[H_CURRENT] == 2 and legal(s) == {pq("Hunan", 1)}
    K.apply(s, pq("Hunan", 1))
    assert tokens(s, 1, "Hunan") == (2, 0) and tokens(s, 2, "Hunan") == (0, 0)


# ---------------------------------------------------------------- game structure


@pytest.mark.parametrize("n,options,turns", [
    (3, {}, 27), (4, {}, 28), (5, {}, 30), (3, {"length": "long3"}, 28), (5, {"length": "short5"}, 24),
])
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
    assert len(chosen) == 20 and len(set(dealt)) == 15 and -1 not in dealt and not chosen & set(dealt)


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
    for opt, check in (({"events": "none"}, lambda d: d == []),
                       ({"events": "minor_only"}, lambda d: all(comp[e]["class"] == "MINOR" for e in d))):
        g = Game("eternal_dynasty", 4, seed=1, options=opt)
        g.play_random(np.random.default_rng(1))
        s = g.state
        drawn = [e for e in range(L.N_EVENTS) if s[L.EVT_LOC + e] == L.LOC_DISCARD]
        assert check(drawn) and (opt["events"] == "none") == (s[L.G_EVENTS_DRAWN] == 0)


def test_two_players_and_wrong_lengths_are_refused_clearly():
    from sim.core import OptionError
    with pytest.raises(OptionError, match="2 players is not allowed"):
        Game("eternal_dynasty", 2)
    with pytest.raises(OptionError, match="long3.*3 players"):
        Game("eternal_dynasty", 4, options={"length": "long3"})


# ---------------------------------------------------------------- data file


def test_data_file_errors_name_the_entry():
    comp = load_components()
    bad = copy.deepcopy(comp)
    bad["rulers"][6]["home"] = 40
    with pytest.raises(DataError, match=r"rulers\[6\] \(Grand Educator Ing-Hwa\).home: province id 40"):
        component_data(bad)
    bad = copy.deepcopy(comp)
    bad["dynasty_cards"][4]["count"] = 10
    with pytest.raises(DataError, match="counts add up to 90, expected 89"):
        component_data(bad)
    bad = copy.deepcopy(comp)
    bad["vote_cards"][3]["effect"]["kind"] = "EXPLODE"
    with pytest.raises(DataError, match=r"vote_cards\[3\] \(CONSCRIPTION\).effect.kind: 'EXPLODE' is not one of"):
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
    opts = np.concatenate([SPEC.encode_options({})[:L.N_OPT], data]).astype(np.int32)
    s = K.new_state(np.int64(1), np.int64(3), opts)
    s2 = position(3, board={(0, "Hunan"): (3, 0)})
    s2[L.DATA:L.DATA + L.DATA_SIZE] = s[L.DATA:L.DATA + L.DATA_SIZE]
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
    R.add_tokens(s, np.int64(0), np.int64(q0("Jiangxi")), np.int64(1), np.int64(1), np.int64(2), np.int64(2))
    assert tokens(s, 0, "Jiangxi") == (1, 1) and R.tokens_total(s, np.int64(0)) == 100
    s = position(3, options={"enforce_token_limits": "false"}, board={(0, q): (3, 3) for q in range(1, 17)})
    R.add_tokens(s, np.int64(0), np.int64(q0("Jiangxi")), np.int64(1), np.int64(1), np.int64(2), np.int64(2))
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
