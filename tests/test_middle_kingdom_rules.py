"""Middle Kingdom: every worked example of the rulebook and the spec's test scenarios (T1-T19)."""

import numpy as np
import pytest

from sim.core import IllegalActionError
from sim.middle_kingdom import layout as L
from sim.middle_kingdom.rules import pb, score_game, summon, take_dragon
from tests.mk_helpers import (
    act,
    bids,
    carried,
    decision,
    discard,
    eff,
    field,
    goal_owner,
    hand,
    legal_names,
    phase,
    position,
    row_names,
)

FULL = set(range(8))
ZEV, STEVE, MICHAEL, HOLGER, PAUL = range(5)


# ------------------------------------------------------- T1: 5p bid resolution (rulebook example 1)
def t1_position(michael_hand=(0, 2, 4), options=None):
    disc = [v for v in range(8) if v not in michael_hand]
    return position(
        5,
        row=["Official", "Merchant", "Noble(3)", "Peasant"],
        goals={"Emperor": STEVE, "Harvest": MICHAEL, "Palace": PAUL},
        tableaux={STEVE: ["General"] * 2, MICHAEL: ["Peasant"] * 2, PAUL: ["Official"] * 2},
        hands={MICHAEL: michael_hand},
        discards={MICHAEL: disc},
        options=options,
    )


def test_t1_five_player_bids_7_7_6_5_4_3():
    g = t1_position()
    bids(g, (ZEV, 7), (STEVE, 6), (MICHAEL, 0), (HOLGER, 7))  # Paul (Palace) is skipped
    act(g, PAUL, "late bid 3")
    act(g, MICHAEL, "swap 0 for 4")
    # Zev and Holger tie at 7; Steve 6.5 picks first, then Michael 4, then Paul 3
    act(g, STEVE, "take Noble(3)")
    act(g, MICHAEL, "take Merchant")
    act(g, PAUL, "take Official")
    assert eff(g, PAUL, L.OFFICIAL) == 3 and goal_owner(g, "Palace") == PAUL
    # round over: the Peasant went to the discard (no Heir), no summon with 3 goals held
    assert int(g.state[L.G_ROUND]) == 2 and int(g.state[L.G_DRAGON]) == L.DR_DISPLAY
    assert hand(g, MICHAEL) == FULL and discard(g, MICHAEL) == set()
    assert hand(g, STEVE) == FULL - {6} and discard(g, STEVE) == {6}
    assert discard(g, PAUL) == {3}
    for seat in (ZEV, HOLGER):
        assert hand(g, seat) == set(range(7)) and carried(g, seat) == [7]
    discarded = [c for c in range(L.N_DYN) if int(g.state[L.LOC + c]) == L.LOC_DISCARD]
    assert len(discarded) == 1


def test_t1b_harvest_keeps_zero_and_abstains():
    g = t1_position()
    bids(g, (ZEV, 7), (STEVE, 6), (MICHAEL, 0), (HOLGER, 7))
    act(g, PAUL, "late bid 3")
    act(g, MICHAEL, "keep 0")
    act(g, STEVE, "take Noble(3)")
    act(g, PAUL, "take Official")
    discarded = [c for c in range(L.N_DYN) if int(g.state[L.LOC + c]) == L.LOC_DISCARD]
    assert len(discarded) == 2
    assert hand(g, MICHAEL) == FULL


@pytest.mark.parametrize(
    "michael_hand,after_lay,before_lay",
    [
        ((0, 2, 4), True, True),
        ((0, 2, 4, 5), True, False),
        ((0, 2, 4, 5, 6), False, False),
    ],
)
def test_t1c_harvest_hand_count_readings(michael_hand, after_lay, before_lay):
    for option, expect in (("after_lay", after_lay), ("before_lay", before_lay)):
        g = t1_position(michael_hand, {"harvest_count": option})
        bids(g, (ZEV, 7), (STEVE, 6), (MICHAEL, 0), (HOLGER, 7))
        act(g, PAUL, "late bid 3")
        assert (decision(g) == L.DK_HARVEST) == expect, (option, michael_hand)


# ------------------------------------------------------------ T2: 4p selection (rulebook example 2)
def test_t2_four_player_selection():
    g = position(4, row=["Official", "Peasant", "General"])
    bids(g, (0, 7), (1, 6), (2, 3), (3, 1))
    for seat in (0, 1, 2):
        assert g.current_player == seat
        act(g, seat, "take")
    assert (
        discard(g, 3) == {1}
        and field(g, 3, L.F_PHYS, L.OFFICIAL) + field(g, 3, L.F_PHYS, L.PEASANT) == 0
    )
    assert sum(int(g.state[L.LOC + c]) == L.LOC_DISCARD for c in range(L.N_DYN)) == 0


# ------------------------------------------------------- T3: tie stacks over two rounds (example 3)
HOLG, ZEV3, PAUL3, STEVE3, MICH3 = range(5)


def t3_round_a():
    g = position(
        5,
        row=["Official", "Peasant", "Merchant", "General"],
        deck_top=["Peasant", "Merchant", "Official", "General"],
    )
    bids(g, (HOLG, 6), (ZEV3, 6), (PAUL3, 4), (STEVE3, 4), (MICH3, 3))
    act(g, MICH3, "take Official")
    return g


def test_t3_round_a_two_ties():
    g = t3_round_a()
    assert carried(g, HOLG) == [6] and carried(g, ZEV3) == [6]
    assert carried(g, PAUL3) == [4] and carried(g, STEVE3) == [4]
    assert discard(g, MICH3) == {3}
    assert sum(int(g.state[L.LOC + c]) == L.LOC_DISCARD for c in range(L.N_DYN)) == 3
    for seat in range(5):
        assert 0 in hand(g, seat) and len(hand(g, seat)) == 7


def test_t3a_rulebook_error_paul_cannot_bid_4_twice():
    g = t3_round_a()
    act(g, HOLG, "bid 3")
    act(g, ZEV3, "bid 0")
    assert "bid 4" not in legal_names(g)
    with pytest.raises(IllegalActionError, match="bid 4"):
        g.apply("bid 4")


def test_t3b_corrected_round_b_order():
    g = t3_round_a()
    bids(g, (HOLG, 3), (ZEV3, 0), (PAUL3, 5), (STEVE3, 1), (MICH3, 6))
    order = []
    while int(g.state[L.G_ROUND]) == 2:
        order.append(g.current_player)
        act(g, g.current_player, "take")
    assert order == [PAUL3, HOLG, ZEV3, MICH3]  # Steve's [4,1] finds the row empty
    assert discard(g, STEVE3) == {4, 1}
    assert all(carried(g, s) == [] for s in range(5))
    assert hand(g, ZEV3) == FULL  # Zev played a 0: recalls {6, 0}
    assert discard(g, PAUL3) == {4, 5} and discard(g, HOLG) == {6, 3}


# ----------------------------------------------------- T4: Dragon exchange restrictions (example 4)
def exchange_options(players, tableau, row, goals=None, deck_top=()):
    g = position(
        players, row=row, tableaux={0: tableau}, dragon=0, goals=goals or {}, deck_top=deck_top
    )
    for seat in range(players):
        act(g, seat, f"bid {seat + 1}")
    assert g.current_player == 0 and decision(g) == L.DK_EXCHANGE
    return g, legal_names(g)


def test_t4a_rulebook_exchange():
    _, names = exchange_options(
        4,
        ["Merchant"] * 2 + ["Noble(2)"] * 2 + ["General"],
        ["Noble(3)", "General", "Peasant"],
        goals={"Market": 0, "Heir": 0},
    )
    assert names == ["exchange Dragon for General [row 1]", "exchange Dragon for Peasant [row 2]"]


def test_t4b_only_forbidden_types_left():
    _, names = exchange_options(
        4, ["Noble(3)"] * 3 + ["Peasant"], [40, 49, "Philosopher"], goals={"Heir": 0}
    )
    assert names == ["exchange Dragon for Noble(2) [row 0]", "exchange Dragon for Noble(4) [row 1]"]


def test_t4c_empty_tableau_never_the_philosopher():
    _, names = exchange_options(3, [], ["Philosopher", "Peasant"])
    assert names == ["exchange Dragon for Peasant [row 1]"]


def test_t4d_market_and_exchange():
    g, names = exchange_options(
        4,
        ["Merchant"] * 2 + ["General", "Noble(2)"],
        ["Merchant", "General", "Peasant"],
        goals={"Market": 0},
    )
    assert names == ["exchange Dragon for General [row 1]", "exchange Dragon for Peasant [row 2]"]
    act(g, 0, "exchange Dragon for General")
    assert eff(g, 0, L.GENERAL) == 2 and goal_owner(g, "Emperor") == 0
    assert row_names(g)[1] == "Dragon" and int(g.state[L.G_DRAGON]) == L.DR_IN_ROW


def test_t4d_variant_market_merchant_onto_generals():
    g, names = exchange_options(
        4,
        ["Merchant"] * 2 + ["General", "Noble(2)"],
        ["Merchant", "Merchant", "Philosopher"],
        goals={"Market": 0},
    )
    assert names == ["exchange Dragon for Merchant [row 0]", "exchange Dragon for Merchant [row 1]"]
    act(g, 0, "exchange Dragon for Merchant [row 0]")
    assert decision(g) == L.DK_HOST and "Merchant onto Nobles" in legal_names(g)
    assert "Merchant onto Officials" not in legal_names(g)
    act(g, 0, "Merchant onto Generals")
    assert eff(g, 0, L.GENERAL) == 3 and eff(g, 0, L.MERCHANT) == 2


def test_t4e_picker_takes_the_dragon_for_a_token():
    g, _ = exchange_options(4, ["Peasant"], ["Official", "General", "Merchant"])
    act(g, 0, "exchange Dragon for Official")
    # seat 3 bid 4 and picks first
    act(g, 3, "take Dragon")
    assert field(g, 3, L.F_TOKENS) == 1 and int(g.state[L.G_DRAGON]) == L.DR_SET_ASIDE


# ------------------------------------------------------------------ T5: Zev's 28 (example 5)
def test_t5_zev_scores_28():
    zev = [0, 1, 2, 9] + ["Peasant"] * 4 + [48, 40, 41] + ["General"]
    g = position(
        5,
        tableaux={
            ZEV: zev,
            STEVE: ["Peasant"],
            MICHAEL: ["Peasant"] * 2,
            HOLGER: ["Peasant"] * 2 + ["General"] * 4,
            PAUL: ["Peasant"] * 3,
        },
        goals={"Palace": ZEV, "Harvest": ZEV, "Emperor": HOLGER},
        tokens={ZEV: 3},
    )
    s = g.state
    score_game(s)
    assert goal_owner(g, "Heir") == HOLGER
    parts = [
        field(g, ZEV, f)
        for f in (
            L.F_VP_GOALS,
            L.F_VP_CARDS,
            L.F_VP_TOKENS,
            L.F_PENALTY,
            L.F_VP_PEASANTS,
            L.F_VP_PHIL,
        )
    ]
    assert parts == [4, 10, 6, 3, 8, 3]  # 4+1+(4+2+2)+1+6 = 20; -3 = 17; +8 = 25; +3 = 28
    assert field(g, ZEV, L.F_SCORE) == 28


# ---------------------------------------------------------- T6: identical stacks draw from the deck
def t6_position(
    options=None,
    deck_top=("Merchant", 45),
    deck_size=None,
    row=("Official", "Peasant", "General"),
    **kw,
):
    return position(
        4,
        row=list(row),
        deck_top=list(deck_top),
        lead=2,
        stacks={1: [6], 3: [6]},
        hands={1: FULL - {6}, 3: FULL - {6}},
        options=options,
        deck_size=deck_size,
        **kw,
    )


def test_t6_identical_stacks_draw_in_lead_seat_order():
    g = t6_position()
    left = 62 - int(g.state[L.G_DECK_PTR])
    bids(g, (0, 5), (1, 2), (2, 7), (3, 2))
    # the identical slot (8, stack, 2, 6) resolves first: seat 3 then seat 1 draw
    assert eff(g, 3, L.MERCHANT) == 1 and field(g, 1, L.F_PHYS, L.NOBLE) == 1
    assert int(g.state[L.LOC + 45]) == L.LOC_OWNED + 1
    assert 62 - int(g.state[L.G_DECK_PTR]) == left - 2
    assert discard(g, 1) == {6, 2} and discard(g, 3) == {6, 2}
    assert g.current_player == 2
    act(g, 2, "take")
    act(g, 0, "take")
    assert int(g.state[L.G_IDENT_DRAWS]) == 2


@pytest.mark.parametrize("short,expect_seat3", [("each_while_cards", 1), ("all_or_none", 0)])
def test_t6_short_deck(short, expect_seat3):
    g = t6_position({"ident_short_deck": short}, deck_top=("Merchant",), deck_size=1)
    bids(g, (0, 5), (1, 2), (2, 7), (3, 2))
    assert (
        eff(g, 3, L.MERCHANT) == expect_seat3
        and field(g, 1, L.F_PHYS, L.NOBLE) + eff(g, 1, L.MERCHANT) == 0
    )
    assert discard(g, 1) == {6, 2} and discard(g, 3) == {6, 2}


@pytest.mark.parametrize("short", ["each_while_cards", "all_or_none"])
def test_t6_deck_of_exactly_as_many_cards_as_members_serves_them_all(short):
    """D33 all_or_none: "if the deck holds fewer cards than there are members, nobody in the
    slot draws" is judged once, at the start of the slot, not against the shrinking deck."""
    g = t6_position({"ident_short_deck": short}, deck_size=2)
    assert 62 - int(g.state[L.G_DECK_PTR]) == 2
    bids(g, (0, 5), (1, 2), (2, 7), (3, 2))
    assert eff(g, 3, L.MERCHANT) == 1 and int(g.state[L.LOC + 45]) == L.LOC_OWNED + 1  # both drew
    assert 62 - int(g.state[L.G_DECK_PTR]) == 0 and int(g.state[L.G_IDENT_DRAWS]) == 2
    assert discard(g, 1) == {6, 2} and discard(g, 3) == {6, 2}


@pytest.mark.parametrize("timing,market_holder", [("after_slot", 1), ("per_member", 3)])
def test_t6b_goal_timing(timing, market_holder):
    g = t6_position(
        {"ident_goal_timing": timing},
        deck_top=("Merchant", "Merchant"),
        tableaux={1: ["Merchant"] * 2, 3: ["Merchant"] * 2},
        goals={"Market": 1},
    )
    bids(g, (0, 5), (1, 2), (2, 7), (3, 2))
    assert eff(g, 1, L.MERCHANT) == 3 and eff(g, 3, L.MERCHANT) == 3
    assert goal_owner(g, "Market") == market_holder


def test_t6c_laying_order_beats_lead_seat():
    g = position(
        4,
        row=["Official", "Merchant", "Noble(2)"],
        deck_top=["Peasant", "General"],
        lead=0,
        stacks={0: [5], 2: [5]},
        hands={0: FULL - {5}, 2: FULL - {5}},
        tableaux={0: ["Official"] * 2},
        goals={"Palace": 0},
    )
    bids(g, (1, 7), (2, 2), (3, 1))
    act(g, 0, "late bid 2")
    assert eff(g, 2, L.PEASANT) == 1 and eff(g, 0, L.GENERAL) == 1  # seat 2 drew first
    assert g.current_player == 1
    act(g, 1, "take")
    act(g, 3, "take")
    assert sum(int(g.state[L.LOC + c]) == L.LOC_DISCARD for c in range(L.N_DYN)) == 1


# ------------------------------------------------------------------ T7: taking and passing goals
def test_t7_goal_passing():
    g = position(
        3,
        row=["Merchant", "Official"],
        deck_top=["Merchant", "Noble(2)"],
        tableaux={0: ["Merchant"] * 2, 1: ["Merchant"], 2: ["Noble(3)"]},
        goals={"Market": 0},
    )
    bids(g, (0, 0), (1, 7), (2, 0))
    act(g, 1, "take Merchant")
    assert goal_owner(g, "Market") == 0  # 2 vs 2: no pass
    bids(g, (0, 0), (1, 6), (2, 5))
    act(g, 1, "take Merchant")
    assert goal_owner(g, "Market") == 1  # 3 > 2
    act(g, 2, "take Noble(2)")
    assert goal_owner(g, "Heir") == 2  # C must take the unowned Heir at 2 Nobles


# ------------------------------------------------------------------ T8: Market placement
def test_t8_market_merchant_on_generals_takes_the_emperor():
    g = position(
        4,
        row=["Merchant", "Peasant", "Official"],
        tableaux={0: ["Merchant"] * 2 + ["General"], 1: ["General"] * 2},
        goals={"Market": 0, "Emperor": 1},
    )
    dyn = sum(field(g, 0, L.F_PHYS, t) + field(g, 0, L.F_DBL, t) for t in range(5))
    bids(g, (0, 7), (1, 1), (2, 2), (3, 3))
    act(g, 0, "take Merchant")
    assert legal_names(g) == [
        "Merchant onto Generals",
        "Merchant onto Merchants",
    ]  # not the empty Nobles
    act(g, 0, "Merchant onto Generals")
    assert eff(g, 0, L.GENERAL) == 3 and goal_owner(g, "Emperor") == 0
    assert eff(g, 0, L.MERCHANT) == 2
    assert sum(field(g, 0, L.F_PHYS, t) + field(g, 0, L.F_DBL, t) for t in range(5)) == dyn + 1
    score_game(g.state)
    # printed VP: 1 physical General only (the Market Merchant has none)
    assert field(g, 0, L.F_VP_CARDS) == 1


def test_t8_without_the_market_no_choice_and_variant():
    g = position(
        4,
        row=["Merchant", "Peasant", "Official"],
        tableaux={0: ["Merchant"] * 2, 3: ["Merchant"] * 2},
        goals={"Market": 0},
    )
    bids(g, (0, 1), (1, 2), (2, 3), (3, 7))
    act(g, 3, "take Merchant")
    assert decision(g) != L.DK_HOST  # D did not hold the Market: no placement choice
    assert eff(g, 3, L.MERCHANT) == 3 and goal_owner(g, "Market") == 3


# ------------------------------------------------------------------ T9: Dragon summoning tie-breaks
def t9_state(last_c, last_d, goals=None):
    goals = goals or {"Palace": 0, "Market": 0, "Harvest": 1, "Emperor": 2, "Heir": 3}
    g = position(
        4,
        tableaux={
            0: ["Official"] * 2 + ["Merchant"] * 2,
            1: ["Peasant"] * 6,
            2: ["General"] * 5,
            3: ["Noble(2)"] * 4 + ["Official"],
        },
        goals=goals,
        dragon="set_aside",
        last_dragon={2: last_c, 3: last_d},
        round=10,
    )
    summon(g.state)
    return g


@pytest.mark.parametrize("last_c,last_d,expect", [(7, 9, 3), (7, -1, 2), (-1, -1, -1)])
def test_t9_summon_tie_breaks(last_c, last_d, expect):
    g = t9_state(last_c, last_d)
    assert goal_owner(g, "Dragon") == expect
    if expect >= 0:
        assert field(g, expect, L.F_LAST_DRAGON) == 10 and int(g.state[L.G_DRAGON]) == L.DR_HELD


def test_t9d_three_goals_no_summon():
    g = t9_state(7, 9, goals={"Palace": 0, "Harvest": 1, "Emperor": 2})
    assert goal_owner(g, "Dragon") == -1


def test_t9e_player_without_goals():
    g = position(
        5,
        tableaux={
            0: ["Official"] * 2 + ["Merchant"] * 2,
            1: ["Peasant"] * 2,
            2: ["General"] * 2,
            3: ["Noble(2)"] * 2,
            4: ["Peasant"] * 9,
        },
        goals={"Palace": 0, "Market": 0, "Harvest": 1, "Emperor": 2, "Heir": 3},
        dragon="display",
    )
    summon(g.state)
    assert goal_owner(g, "Dragon") == 4


ROW_PICK = {"dragon_held_includes_row_pick": "true"}


def test_d13_row_pick_then_summon_in_one_round_the_summoned_seat_held_it_later():
    """D13 with dragon_held_includes_row_pick = true: "the one who held it most recently" is
    decided by the order of events.  Round 5: A (seat 0) takes the Dragon from the row in
    phase 2, B (seat 1) is summoned it in phase 3.  Round 6: A and B tie on goals and cards,
    and B, who held it later, gets it (it used to read as a tie and was set aside)."""
    g = position(
        3,
        row=["Peasant", "General"],
        deck_top=["Official", "General"],
        round=5,
        dragon=1,
        last_dragon={1: 4},
        options=ROW_PICK,
        tableaux={
            0: ["Official", "Noble(2)", "General"],
            1: ["General"],
            2: ["Official"] * 2 + ["Peasant"] * 2 + ["Merchant"] * 2 + ["Noble(3)"] * 2,
        },
        goals={"Palace": 2, "Harvest": 2, "Market": 2, "Heir": 2},
    )
    bids(g, (0, 7), (1, 0))
    act(g, 2, "late bid 5")
    act(g, 1, "exchange Dragon for Peasant")
    act(g, 0, "take Dragon")
    act(g, 2, "take General")
    # phase 3 of round 5: A and B hold no goal; B has fewer cards (2 against 3)
    assert int(g.state[L.G_ROUND]) == 6 and goal_owner(g, "Dragon") == 1
    assert field(g, 0, L.F_LAST_DRAGON) == 5 and field(g, 1, L.F_LAST_DRAGON) == 5
    bids(g, (0, 0), (1, 0))
    act(g, 2, "late bid 6")
    act(g, 1, "exchange Dragon for Official")
    act(g, 2, "take General")
    act(g, 2, "pass")  # the Heir leaves the Dragon in the row: it is set aside
    assert [sum(field(g, p, L.F_PHYS, t) for t in range(5)) for p in (0, 1)] == [3, 3]
    assert goal_owner(g, "Dragon") == 1 and field(g, 1, L.F_LAST_DRAGON) == 6


@pytest.mark.parametrize("row_pick,expect", [("false", 1), ("true", 0)])
def test_d13_a_take_from_the_row_counts_as_holding_only_under_the_option(row_pick, expect):
    """A (seat 0) took the Dragon from the row in round 5, B (seat 1) was last summoned it in
    round 3; in round 6 they tie on goals and cards."""
    g = position(
        3,
        tableaux={
            0: ["Official"],
            1: ["Noble(2)"],
            2: ["Official"] * 2 + ["Peasant"] * 2 + ["Merchant"] * 2 + ["Noble(3)"] * 2,
        },
        goals={"Palace": 2, "Harvest": 2, "Market": 2, "Heir": 2},
        dragon="set_aside",
        last_dragon={1: 3},
        round=5,
        options={"dragon_held_includes_row_pick": row_pick},
    )
    take_dragon(g.state, 0)
    g.state[L.G_ROUND] = 6
    summon(g.state)
    assert goal_owner(g, "Dragon") == expect


# ------------------------------------------------------------------ T10: Heir re-award
@pytest.mark.parametrize(
    "generals,holder,expect", [((3, 3, 1), 2, -1), ((4, 3, 0), 2, 0), ((0, 0, 0), 1, -1)]
)
def test_t10_heir_re_award(generals, holder, expect):
    g = position(
        3, tableaux={p: ["General"] * n for p, n in enumerate(generals)}, goals={"Heir": holder}
    )
    score_game(g.state)
    assert goal_owner(g, "Heir") == expect


# ----------------------------------------------------------------- T11: peasant race and type check
@pytest.mark.parametrize(
    "counts,vp,penalised",
    [((0, 3, 6), (0, 8, 20), (True, False, False)), ((2, 5, 7), (0, 8, 20), (False, False, False))],
)
def test_t11_peasants(counts, vp, penalised):
    g = position(3, tableaux={p: ["Peasant"] * n for p, n in enumerate(counts)})
    score_game(g.state)
    for p in range(3):
        assert field(g, p, L.F_VP_PEASANTS) == vp[p]
        # every seat misses the 4 other types; seat A also misses Peasants when it has none
        assert field(g, p, L.F_PENALTY) == 3 * (4 + (1 if penalised[p] else 0))


def test_t11_market_double_on_peasants():
    g = position(
        3, tableaux={0: ["Peasant", ("Merchant", "Peasants")], 1: ["Peasant"], 2: ["Peasant"] * 4}
    )
    assert eff(g, 0, L.PEASANT) == 3
    score_game(g.state)
    assert field(g, 0, L.F_VP_PEASANTS) == 5  # m = 1, keeps 2


# ------------------------------------------------------------------ T12: lone zeros never tie
@pytest.mark.parametrize("emperor", [False, True])
def test_t12_lone_zeros(emperor):
    kw = {"tableaux": {0: ["General"] * 2}, "goals": {"Emperor": 0}} if emperor else {}
    g = position(3, row=["Official", "Peasant"], **kw)
    bids(g, (0, 0), (1, 0), (2, 5))
    assert g.current_player == 2  # only C picks: A and B abstain, no tie, no stacks
    act(g, 2, "take")
    assert carried(g, 0) == [] and carried(g, 1) == []
    assert sum(int(g.state[L.LOC + c]) == L.LOC_DISCARD for c in range(L.N_DYN)) == 1
    assert hand(g, 0) == FULL and hand(g, 1) == FULL and hand(g, 2) == FULL - {5}


# --------------------------------------------------------- T13: Harvest and Palace held by one seat
def test_t13_palace_and_harvest():
    g = position(
        4,
        row=["Official", "Peasant", "General"],
        tableaux={0: ["Official"] * 2 + ["Peasant"] * 2},
        goals={"Palace": 0, "Harvest": 0},
        hands={0: [0, 3, 6, 7]},
        discards={0: [1, 2, 4, 5]},
    )
    bids(g, (1, 5), (2, 5), (3, 2))
    act(g, 0, "late bid 0")
    act(g, 0, "swap 0 for 6")
    assert g.current_player == 0
    act(g, 0, "take")
    assert g.current_player == 3
    act(g, 3, "take")
    assert carried(g, 1) == [5] and carried(g, 2) == [5]
    assert hand(g, 0) == FULL and discard(g, 0) == set()


# --------------------------------------------------------------- T14: two-player Palace and Emperor
@pytest.mark.parametrize("named", [6, 3])
def test_t14_two_player_palace_and_emperor(named):
    g = position(
        2,
        row=["Official", "Peasant", "Merchant"],
        tableaux={0: ["General"] * 2, 1: ["Official"] * 2},
        goals={"Emperor": 0, "Palace": 1},
    )
    act(g, 0, "bid 6")
    act(g, 0, "bid 3")
    act(g, 1, "bid 6")
    act(g, 1, "late bid 2")
    act(g, 0, f"+0.5 on bid {named}")
    order = []
    while int(g.state[L.G_ROUND]) == 1:
        order.append(g.current_player)
        act(g, g.current_player, "take")
    if named == 6:
        assert order == [0, 1, 0]  # 6.5, 6, 3; P2's 2 finds the row empty
        assert discard(g, 1) == {6, 2}
    else:
        assert order == [0, 1]  # 3.5, 2: the 6s tie
        assert carried(g, 0) == [6] and carried(g, 1) == [6]
        assert sum(int(g.state[L.LOC + c]) == L.LOC_DISCARD for c in range(L.N_DYN)) == 1


AT_COMMIT = {"emp_designation_2p": "at_commit"}


def test_d5_at_commit_the_emperor_names_its_bid_with_the_commit():
    """D5 alternative: the +0.5 is named secretly as part of the commit, before the rival bids."""
    g = position(
        2,
        row=["Official", "Peasant", "Merchant"],
        options=AT_COMMIT,
        tableaux={0: ["General"] * 2, 1: ["Official"] * 2},
        goals={"Emperor": 0, "Palace": 1},
    )
    act(g, 0, "bid 6")
    act(g, 0, "bid 3")
    assert g.current_player == 0 and legal_names(g) == ["+0.5 on bid 3", "+0.5 on bid 6"]
    act(g, 0, "+0.5 on bid 3")
    assert g.current_player == 1 and phase(g) == L.PH_COMMIT
    act(g, 1, "bid 6")
    act(g, 1, "late bid 2")  # no Emperor step after the reveal: the naming is already made
    order = []
    while int(g.state[L.G_ROUND]) == 1:
        order.append(g.current_player)
        act(g, g.current_player, "take")
    assert order == [0, 1]  # 3.5, 2: the 6s tie, as in T14 with the 3 named
    assert carried(g, 0) == [6] and carried(g, 1) == [6]


def test_d5_at_commit_naming_is_secret_and_search_can_undo_it():
    from sim.core import new_rng
    from sim.middle_kingdom.rules import determinize, info_key, rewind_secrets

    games = []
    for named in (6, 3):
        g = position(
            2, row=["Official", "Peasant", "Merchant"], options=AT_COMMIT, goals={"Emperor": 0}
        )
        bids(g, (0, 6), (0, 3))
        act(g, 0, f"+0.5 on bid {named}")
        games.append(g)
    a, b = games
    assert field(a, 0, L.F_EMP_SLOT) == 0 and field(b, 0, L.F_EMP_SLOT) == 1
    assert info_key(a.state, 1) == info_key(b.state, 1)  # seat 1 sees only that a commit was made
    assert info_key(a.state, 0) != info_key(b.state, 0)
    slots = set()
    for k in range(40):
        s = a.state.copy()
        determinize(s, 1, new_rng(k))
        assert info_key(s, 1) == info_key(a.state, 1)
        slots.add(int(s[pb(0) + L.F_EMP_SLOT]))
    assert slots == {0, 1}  # the naming is resampled with the hidden cards
    ply = int(a.state[4])
    rewind_secrets(a.state, 1)
    assert a.current_player == 0 and hand(a, 0) == FULL and field(a, 0, L.F_EMP_SLOT) == -1
    assert int(a.state[4]) == ply - 3  # two cards and the naming


def test_d5_at_commit_a_lone_zero_still_asks_and_a_hand_of_zero_names_unasked():
    g = position(
        2, row=["Official", "Peasant", "Merchant"], options=AT_COMMIT, goals={"Emperor": 0}
    )
    bids(g, (0, 0), (0, 5))
    assert legal_names(g) == ["+0.5 on bid 5"]  # asked anyway: the decision count hides the lone 0
    act(g, 0, "+0.5 on bid 5")
    assert field(g, 0, L.F_EMP_SLOT) == 1
    # a hand of {0} with a carried stack: one card, one entry, named without a decision
    g = position(
        2,
        row=["Official", "Peasant", "Merchant"],
        options=AT_COMMIT,
        goals={"Emperor": 0},
        hands={0: [0]},
        discards={0: [1, 2, 3, 4, 6, 7]},
        stacks={0: [5]},
    )
    assert g.current_player == 1 and field(g, 0, L.F_EMP_SLOT) == 0


def palace_emperor(options=AT_COMMIT, harvest=False, **kw):
    tableau = ["Official"] * 2 + ["General"] * 2 + (["Peasant"] * 2 if harvest else [])
    goals = {"Emperor": 0, "Palace": 0} | ({"Harvest": 0} if harvest else {})
    return position(
        2,
        row=["Official", "Peasant", "Merchant"],
        options=options,
        tableaux={0: tableau},
        goals=goals,
        **kw,
    )


def picks_of_round(g):
    order = []
    r = int(g.state[L.G_ROUND])
    while int(g.state[L.G_ROUND]) == r:
        order.append(g.current_player)
        act(g, g.current_player, "take")
    return order


@pytest.mark.parametrize("named,ties", [("bid 4", 6), ("the late bid", 4)])
def test_d5_at_commit_palace_and_emperor_name_either_of_their_two_bids_with_the_commit(named, ties):
    """D5 at_commit ("named secretly with the commit, revealed in P1.2") when one seat holds
    the Palace and the Emperor: the commit is the first bid, and "which of the player's two
    bids receives the 0.5 bonus" may name the late one, before any bid is seen.  One naming,
    at the commit; no Emperor step after the reveal."""
    g = palace_emperor()
    act(g, 0, "bid 4")
    assert g.current_player == 0 and legal_names(g) == ["+0.5 on bid 4", "+0.5 on the late bid"]
    act(g, 0, f"+0.5 on {named}")
    bids(g, (1, 6), (1, 4))
    act(g, 0, "late bid 6")
    assert decision(g) == L.DK_PICK  # no Emperor step after the reveal
    # bid 4 named: 4.5 and 6 against 6 and 4, the 6s tie;
    # the late bid named: 6.5 and 4 against 6 and 4
    assert picks_of_round(g) == [0, 1]
    assert carried(g, 0) == [ties] and carried(g, 1) == [ties]
    post = palace_emperor(options=None)
    act(post, 0, "bid 4")
    bids(post, (1, 6), (1, 4))
    act(post, 0, "late bid 6")
    assert decision(post) == L.DK_EMPEROR  # the default names after the late bid


def test_d5_at_commit_palace_and_emperor_committing_a_lone_zero_name_the_late_bid_at_the_commit():
    g = palace_emperor()
    act(g, 0, "bid 0")
    assert g.current_player == 0 and legal_names(g) == [
        "+0.5 on the late bid"
    ]  # asked: hides the lone 0
    act(g, 0, "+0.5 on the late bid")
    bids(g, (1, 6), (1, 5))
    act(g, 0, "late bid 6")
    assert decision(g) == L.DK_PICK and field(g, 0, L.F_EMP_SLOT) == 1
    assert picks_of_round(g) == [0, 1, 1]  # 6.5, then seat 1's 6 and 5; the 0 abstains


def test_d5_at_commit_a_harvest_swap_keeps_the_naming_and_asks_nothing():
    # Palace, Emperor and Harvest: a lone 0 committed, the late bid named, the 0 swapped
    g = palace_emperor(harvest=True, hands={0: [0, 1, 3, 5, 6]}, discards={0: [2, 4, 7]})
    act(g, 0, "bid 0")
    act(g, 0, "+0.5 on the late bid")
    bids(g, (1, 6), (1, 5))
    act(g, 0, "late bid 5")
    act(g, 0, "swap 0 for 3")  # {1, 3, 6} left after both bids: the swap is allowed
    assert decision(g) == L.DK_PICK  # not asked again: 5.5 and 3 against 6 and 5
    assert picks_of_round(g) == [1, 0, 1]  # 6, 5.5, 5; seat 0's 3 finds the row empty
    # the Emperor and the Harvest without the Palace: the naming made with the commit stands
    g = position(
        2,
        row=["Official", "Peasant", "Merchant"],
        options=AT_COMMIT,
        tableaux={0: ["General"] * 2 + ["Peasant"] * 2},
        goals={"Emperor": 0, "Harvest": 0},
        hands={0: [0, 1, 3, 5, 6]},
        discards={0: [2, 4, 7]},
    )
    bids(g, (0, 0), (0, 5))
    act(g, 0, "+0.5 on bid 5")
    bids(g, (1, 6), (1, 5))
    act(g, 0, "swap 0 for 3")
    assert decision(g) == L.DK_PICK
    assert picks_of_round(g) == [1, 0, 1]


def test_d5_at_commit_palace_and_emperor_naming_is_secret_and_search_can_undo_it():
    from sim.core import new_rng
    from sim.middle_kingdom.rules import determinize, info_key, rewind_secrets

    games = []
    for card, named in ((0, "the late bid"), (4, "bid 4"), (4, "the late bid")):
        g = palace_emperor()
        act(g, 0, f"bid {card}")
        act(g, 0, f"+0.5 on {named}")
        games.append(g)
    # seat 1 cannot tell a lone 0 from a 4, nor which bid was named
    assert len({info_key(g.state, 1) for g in games}) == 1
    assert len({info_key(g.state, 0) for g in games}) == 3
    seen = set()
    for k in range(60):
        s = games[1].state.copy()
        determinize(s, 1, new_rng(k))
        card, slot = int(s[pb(0) + L.F_SLOT_CARD]), int(s[pb(0) + L.F_EMP_SLOT])
        assert slot == 1 if card == 0 else slot in (0, 1)  # a lone 0 cannot carry it
        seen.add((card == 0, slot))
    assert seen == {(True, 1), (False, 0), (False, 1)}
    a = games[0]
    ply = int(a.state[4])
    rewind_secrets(a.state, 1)
    assert a.current_player == 0 and hand(a, 0) == FULL and field(a, 0, L.F_EMP_SLOT) == -1
    assert int(a.state[4]) == ply - 2  # the card and the naming


# ------------------------------------------------------------------ T15: two-player zero with a tie
def test_t15_zero_with_a_tie():
    g = position(
        2,
        row=["Official", "Peasant", "Merchant"],
        hands={0: [0, 5, 7]},
        discards={0: [1, 2, 3, 4, 6]},
    )
    bids(g, (0, 0), (0, 5), (1, 5), (1, 2))
    assert g.current_player == 1
    act(g, 1, "take")
    assert carried(g, 0) == [5] and carried(g, 1) == [5]
    assert hand(g, 0) == {0, 1, 2, 3, 4, 6, 7}


# ------------------------------------------------------------- T16: a stack against several singles
def test_t16_stack_beats_singles():
    g = position(
        5,
        row=["Official", "Peasant", "Merchant", "General"],
        stacks={0: [4], 3: [4]},
        hands={0: FULL - {4}, 3: FULL - {4}},
    )
    bids(g, (0, 2), (1, 6), (2, 6), (3, 1), (4, 3))
    order = []
    while int(g.state[L.G_ROUND]) == 1:
        order.append(g.current_player)
        act(g, g.current_player, "take")
    assert order == [0, 3, 4]
    assert carried(g, 1) == [6] and carried(g, 2) == [6]
    assert sum(int(g.state[L.LOC + c]) == L.LOC_DISCARD for c in range(L.N_DYN)) == 1


# ------------------------------------------------------------- T17: the Dragon's cycle in one round
def t17_position():
    return position(
        4,
        row=["Peasant", "Noble(2)", "General"],
        dragon=3,
        tableaux={
            0: ["Official"] * 2 + ["Merchant"] * 2,
            1: ["Peasant"] * 2,
            2: ["General"] * 2,
            3: ["Noble(3)", "General"],
        },
        goals={"Palace": 0, "Market": 0, "Harvest": 1, "Emperor": 2},
        round=5,
    )


def test_t17_dragon_cycle():
    g = t17_position()
    bids(g, (1, 1), (2, 2), (3, 3))
    act(g, 0, "late bid 7")  # seat 0 holds the Palace
    assert legal_names(g) == ["exchange Dragon for Peasant [row 0]"]
    act(g, 3, "exchange Dragon for Peasant")
    assert eff(g, 3, L.PEASANT) == 1 and goal_owner(g, "Harvest") == 1
    act(g, 0, "take Dragon")
    assert field(g, 0, L.F_TOKENS) == 1
    act(g, 3, "take General")  # 2 vs 2: the Emperor stays
    act(g, 2, "take Noble(2)")
    assert goal_owner(g, "Emperor") == 2
    assert goal_owner(g, "Dragon") == 3 and field(g, 3, L.F_LAST_DRAGON) == 5


def test_t17_dragon_left_in_row_is_summoned_again():
    g = t17_position()
    bids(g, (1, 0), (2, 0), (3, 0))
    act(g, 0, "late bid 7")
    act(g, 3, "exchange Dragon for Peasant")
    act(g, 0, "take Noble(2)")
    assert goal_owner(g, "Dragon") == 3 and int(g.state[L.G_DRAGON]) == L.DR_HELD


# ------------------------------------------------------------------ T18: game length
@pytest.mark.parametrize(
    "players,variant,rounds",
    [
        (2, "standard", 20),
        (3, "standard", 31),
        (3, "advanced", 12),
        (4, "standard", 20),
        (5, "standard", 15),
    ],
)
def test_t18_game_length(players, variant, rounds):
    from sim import Game

    k = {2: 3, 3: 2, 4: 3, 5: 4}[players] if variant == "standard" else 5
    seen_plain = 0
    for seed in range(40):
        g = Game("middle_kingdom", players, seed, {"variant": variant})
        g.play_random(np.random.default_rng(seed))
        f = g.features()
        r, draws = int(f["rounds"][0]), int(f["identical_draws"][0])
        assert 0 <= 62 - k * r - draws < k
        if draws == 0:
            seen_plain += 1
            assert r == rounds
    assert seen_plain > 0


# ------------------------------------------------------------------ T19: token supply
@pytest.mark.parametrize("limit,tokens", [("none", 19), ("18", 18)])
def test_t19_token_supply(limit, tokens):
    g = position(3, options={"token_limit": limit})
    for _ in range(19):
        take_dragon(g.state, 0)
    assert field(g, 0, L.F_TOKENS) == tokens
    assert int(g.state[L.G_TOKEN_OVER]) == 1


# ------------------------------------------------------------ every rule option against its default
# (the options tested above: harvest_count T1c, ident_goal_timing T6b, ident_short_deck T6,
# dragon_held_includes_row_pick D13, token_limit T19, emp_designation_2p D5)
@pytest.mark.parametrize("variant", ["standard", "advanced"])
def test_variant_advanced_three_players_bid_twice_for_a_row_of_five(variant):
    row = ["Official", "Peasant", "Merchant", "Noble(2)", "General"]
    g = position(3, row=row if variant == "advanced" else row[:2], options={"variant": variant})
    act(g, 0, "bid 7")
    if variant == "standard":
        assert g.current_player == 1  # one bid each, a row of 2
        bids(g, (1, 5), (2, 3))
        assert picks_of_round(g) == [0, 1]
    else:
        act(g, 0, "bid 6")  # two non-cumulative bids each, a row of 5
        bids(g, (1, 5), (1, 4), (2, 3), (2, 2))
        assert picks_of_round(g) == [0, 0, 1, 1, 2]  # seat 2's 2 finds the row empty
        assert discard(g, 2) == {3, 2}


@pytest.mark.parametrize("lead_seat,first", [("rotating", 3), ("fixed_seat0", 0)])
def test_lead_seat_rotates_each_round_or_stays_with_seat_0(lead_seat, first):
    """Seats 0 and 3 tie in round 1 and lay identical stacks in round 2: the lead seat (0 in
    round 1) orders their draws, and has moved on to seat 1 by then unless fixed."""
    g = position(
        4,
        row=["Official", "Peasant", "General"],
        lead=0,
        options={"lead_seat": lead_seat},
        deck_top=["Official", "Peasant", "Noble(2)", "Merchant", 45],
    )
    bids(g, (0, 6), (1, 7), (2, 5), (3, 6))
    act(g, 1, "take")
    act(g, 2, "take")
    assert carried(g, 0) == [6] and carried(g, 3) == [6]
    bids(g, (0, 2), (1, 1), (2, 3), (3, 2))  # [6, 2] twice: one identical slot, drawn first
    assert int(g.state[L.LOC + 45]) == L.LOC_OWNED + (3 - first)  # the second drawer gets Noble#45
    assert eff(g, first, L.MERCHANT) == 1


@pytest.mark.parametrize("timing,market_after", [("in_order", 3), ("after_picks", 2)])
def test_ident_draw_timing_after_picks_lets_the_picks_come_first(timing, market_after):
    """T6 with seat 2 holding the Market: drawn in order, seat 3's Merchant takes the Market
    before seat 2 picks a Merchant, which then has no placement choice; drawn after the
    picks, seat 2 still holds the Market when it picks (and keeps it at 3 against 3)."""
    g = t6_position(
        {"ident_draw_timing": timing},
        deck_top=("Merchant", 45),
        row=("Merchant", "Peasant", "General"),
        tableaux={2: ["Merchant"] * 2 + ["General"], 3: ["Merchant"] * 2},
        goals={"Market": 2},
    )
    bids(g, (0, 5), (1, 2), (2, 7), (3, 2))
    act(g, 2, "take Merchant")
    assert (decision(g) == L.DK_HOST) == (timing == "after_picks")
    if timing == "after_picks":
        act(g, 2, "Merchant onto Merchants")
    act(g, 0, "take")
    assert goal_owner(g, "Market") == market_after and eff(g, 3, L.MERCHANT) == 3


@pytest.mark.parametrize("count,expect", [("physical", 0), ("effective", 1)])
def test_dragon_tiebreak_counts_physical_or_effective_cards(count, expect):
    """Seat 0 owns 2 cards, one a Market Merchant on its Nobles (3 effective); seat 1 owns 3
    cards and held the Dragon in round 4."""
    g = position(
        3,
        tableaux={
            0: ["Noble(2)", ("Merchant", "Nobles")],
            1: ["Official", "Peasant", "General"],
            2: ["Official"] * 2 + ["Peasant"] * 2 + ["Merchant"] * 2 + ["Noble(3)"] * 4,
        },
        goals={"Palace": 2, "Harvest": 2, "Market": 2, "Heir": 2},
        dragon="set_aside",
        last_dragon={1: 4},
        round=6,
        options={"dragon_tiebreak_dyn_count": count},
    )
    summon(g.state)
    assert goal_owner(g, "Dragon") == expect


@pytest.mark.parametrize("is_merchant,penalty", [("false", 3), ("true", 0)])
def test_market_dbl_is_merchant_counts_a_merchant_on_another_stack_as_a_merchant_too(
    is_merchant, penalty
):
    g = position(
        3,
        tableaux={0: ["Official", "Peasant", "Noble(2)", "General", ("Merchant", "Generals")]},
        options={"market_dbl_is_merchant": is_merchant},
    )
    assert eff(g, 0, L.GENERAL) == 3 and eff(g, 0, L.MERCHANT) == (
        1 if is_merchant == "true" else 0
    )
    score_game(g.state)
    assert field(g, 0, L.F_PENALTY) == penalty  # missing Merchants, or none


@pytest.mark.parametrize("gain", ["any_gain", "pick_only"])
def test_market_on_any_gain_or_picks_only(gain):
    """T4d variant: the Dragon exchanged for a Merchant by the Market holder."""
    g = position(
        4,
        row=["Merchant", "Merchant", "Philosopher"],
        dragon=0,
        goals={"Market": 0},
        tableaux={0: ["Merchant"] * 2 + ["General", "Noble(2)"]},
        options={"market_on_any_gain": gain},
    )
    bids(g, (0, 1), (1, 2), (2, 3), (3, 4))
    act(g, 0, "exchange Dragon for Merchant [row 0]")
    if gain == "any_gain":
        act(g, 0, "Merchant onto Generals")
        assert eff(g, 0, L.GENERAL) == 3 and eff(g, 0, L.MERCHANT) == 2
    else:
        assert decision(g) != L.DK_HOST and eff(g, 0, L.MERCHANT) == 3 and eff(g, 0, L.GENERAL) == 1


@pytest.mark.parametrize("optional", ["true", "false"])
def test_heir_optional_or_mandatory(optional):
    g = position(
        4,
        row=["Official", "Peasant", "General"],
        tableaux={0: ["Noble(2)"] * 2},
        goals={"Heir": 0},
        options={"heir_optional": optional},
    )
    bids(g, (0, 0), (1, 7), (2, 0), (3, 0))
    act(g, 1, "take Official")
    assert decision(g) == L.DK_HEIR and g.current_player == 0
    assert ("pass" in legal_names(g)) == (optional == "true")


@pytest.mark.parametrize("may", ["true", "false"])
def test_heir_may_take_the_dragon_or_not(may):
    g = position(
        4,
        row=["Peasant", "Official", "General"],
        dragon=3,
        tableaux={0: ["Noble(2)"] * 2, 3: ["Merchant"]},
        goals={"Heir": 0},
        options={"heir_may_take_dragon": may},
    )
    bids(g, (0, 0), (1, 7), (2, 0), (3, 0))
    act(g, 3, "exchange Dragon for Peasant")
    act(g, 1, "take Official")
    assert row_names(g) == ["Dragon", "General"] and decision(g) == L.DK_HEIR
    assert ("Heir takes Dragon [row 0]" in legal_names(g)) == (may == "true")


@pytest.mark.parametrize("table,vp", [("default_4_4_4", 5), ("alt_a_6_4_2", 4), ("alt_b_3_6_3", 6)])
def test_noble_vp_table(table, vp):
    g = position(3, tableaux={0: [43, 45]}, options={"noble_vp_table": table})
    score_game(g.state)
    assert field(g, 0, L.F_VP_CARDS) == vp  # Nobles #43 and #45


# ------------------------------------------------------------------ hidden information for search
def test_hidden_commits_info_key_determinize_and_rewind():
    from sim.core import new_rng
    from sim.middle_kingdom.rules import determinize, info_key, rewind_secrets

    a = position(4, row=["Official", "Peasant", "General"])
    b = position(4, row=["Official", "Peasant", "General"])
    bids(a, (0, 7), (1, 2))
    bids(b, (0, 3), (1, 5))
    # seat 2 cannot tell the two apart; seats 0 and 1 can
    assert info_key(a.state, 2) == info_key(b.state, 2)
    assert info_key(a.state, 0) != info_key(b.state, 0)
    s = a.state.copy()
    determinize(s, 2, new_rng(3))
    assert info_key(s, 2) == info_key(a.state, 2)
    assert hand(a, 0) == FULL - {7}
    ply = int(a.state[4])
    rewind_secrets(a.state, 2)
    assert a.current_player == 0 and hand(a, 0) == FULL and hand(a, 1) == FULL
    assert int(a.state[4]) == ply - 2
    bids(a, (0, 1), (1, 1), (2, 6), (3, 5))
    assert carried(a, 0) == [1] and carried(a, 1) == [1]


# ------------------------------------------------------------------ component data file
def test_component_data_is_validated(tmp_path):
    import json

    from sim.middle_kingdom.options import DATA_FILE, DataError, component_data, load_components

    comp = load_components()
    assert [c["provenance"] for c in comp["dynasty_cards"]].count("reconstructed") == 12
    bad = tmp_path / "components.json"
    bad.write_text(DATA_FILE.read_text().replace('"type": "noble"', '"type": "nobel"', 1))
    with pytest.raises(DataError, match="dynasty card #40: type 'nobel'"):
        component_data(path=bad)
    bad.write_text(DATA_FILE.read_text()[:-3])
    with pytest.raises(DataError, match=r"components.json: line \d+"):
        component_data(path=bad)
    short = dict(comp, dynasty_cards=comp["dynasty_cards"][:61])
    with pytest.raises(DataError, match="expected 62 dynasty cards, found 61"):
        component_data(short, path=bad)
    del comp["peasant_table"]
    with pytest.raises(DataError, match="missing or malformed field 'peasant_table'"):
        component_data(comp, path=bad)
    json.dumps(comp)
