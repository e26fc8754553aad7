"""Emperor's Choice rule tests: every worked example and test scenario of the spec (T01-T23).

Positions are built with ``sim.emperors_choice.scenario``; seat 0 = Wang Ben, 1 = Li Xin,
2 = Meng Tian where the spec names them.
"""

import numpy as np
import pytest

from sim.core import H_CURRENT
from sim.emperors_choice import SPEC
from sim.emperors_choice import layout as L
from sim.emperors_choice import rules as R
from sim.emperors_choice.scenario import (
    balance_supply,
    clear_cards,
    give,
    position,
    set_player,
    set_tiles,
    to_move,
)

WANG, LI, MENG = 0, 1, 2


def mask(s):
    m = np.zeros(L.NUM_ACTIONS, np.bool_)
    R.legal_mask(s, m)
    return m


def vp(s, p):
    return int(s[R.pb(p) + L.F_VP])


def trust(s, p):
    return int(s[R.pb(p) + L.F_TRUST])


def cubes(s, p):
    return int(s[R.pb(p) + L.F_CUBES] + s[R.pb(p) + L.F_BID_CUBES])


def tribs(s, p):
    return int(s[R.pb(p) + L.F_TRIB : R.pb(p) + L.F_TRIB + L.N_TRIB].sum())


def tiles_in_order(s, n):
    for p in range(n):
        set_player(s, p, tile=p + 1)


def card_at(s, side_card):
    return int(s[L.POLICY + 2 * side_card])


def set_policy(s, card, scoring_name):
    """Put the side with that scoring id face up on ``card`` (0-based)."""
    for side in range(2):
        if s[L.DAT + L.D_POLICY + 2 * card + side] == L.SCORING_IDS.index(scoring_name):
            s[L.POLICY + 2 * card] = side
            return side
    raise AssertionError(scoring_name)


# ---------------------------------------------------------------- auction


def t01_position():
    s = position(3)
    for p in range(3):
        clear_cards(s, p)
    set_player(s, WANG, passed=1, cubes=4)
    give(s, LI, "Cavalry", 3, "shown")
    set_player(s, LI, bid_cubes=2, cubes=2, declared=5)
    cav2 = give(s, LI, "Cavalry", 2)
    so3 = give(s, LI, "Supply Officer", 3)
    prince = give(s, LI, "Prince", 2)
    give(s, MENG, "Supply Officer", 3, "shown")
    give(s, MENG, "Cavalry", 3, "shown")
    set_player(s, MENG, declared=6, cubes=4)
    s[L.G_CMAX], s[L.G_HIGH], s[L.G_FIRST], s[L.G_ACTIVE] = 2, 6, 0, 2
    balance_supply(s)
    to_move(s, LI, L.DK_BID)
    return s, cav2, so3, prince


def test_t01_card_limit_and_rising_total():
    s, cav2, so3, prince = t01_position()
    a = s.copy()
    R.apply(a, L.A_CARD + cav2)
    R.apply(a, L.A_CUBE)
    assert mask(a)[L.A_CONFIRM]
    R.apply(a, L.A_CONFIRM)
    assert (
        a[R.pb(LI) + L.F_DECLARED] == 8 and a[L.G_HIGH] == 8 and R.count_loc(a, L.LOC_BID + LI) == 2
    )
    b = s.copy()
    R.apply(b, L.A_CARD + cav2)
    R.apply(b, L.A_CARD + so3)
    assert R.pending_total(b, LI) == 10 and mask(b)[L.A_CONFIRM]
    assert not mask(b)[L.A_CARD + prince]  # a 4th card would exceed cmax + 1 = 3
    c = s.copy()
    R.apply(c, L.A_CUBE)
    assert not mask(c)[L.A_CONFIRM]  # 6 is not more than 6


def t02_position(n_active=3):
    s = position(3)
    for p in range(3):
        clear_cards(s, p)
    gen = give(s, LI, "General", 9, "shown")
    off = give(s, LI, "Military Officer", 4, "shown")
    cav = give(s, LI, "Cavalry", 3, "shown")
    set_player(s, LI, bid_cubes=4, cubes=0)
    s[L.G_ACTIVE], s[L.G_CMAX], s[L.G_HIGH], s[L.G_FIRST] = n_active, 3, 20, 0
    balance_supply(s)
    to_move(s, LI, L.DK_BID)
    return s, gen, off, cav


def test_t02_pass_loses_the_item_at_rank_m_with_a_choice_on_ties():
    s, gen, off, cav = t02_position()
    R.apply(s, L.A_PASS)
    assert s[L.G_DECISION] == L.DK_LOSE and s[R.pb(LI) + L.F_TILE] == 3
    m = mask(s)
    assert set(np.flatnonzero(m)) == {L.A_CARD + off, L.A_CUBE}
    a = s.copy()
    R.apply(a, L.A_CARD + off)
    assert (
        a[L.LOC + off] == L.LOC_DISCARD
        and a[L.LOC + gen] == L.LOC_HAND + LI
        and a[L.LOC + cav] == L.LOC_HAND + LI
    )
    assert a[R.pb(LI) + L.F_CUBES] == 4 and a[L.G_DECISION] == L.DK_WITHDRAW
    b = s.copy()
    supply = int(b[L.G_SUPPLY])
    R.apply(b, L.A_CUBE)
    assert b[R.pb(LI) + L.F_CUBES] == 0 and b[L.G_SUPPLY] == supply + 4
    assert all(b[L.LOC + c] == L.LOC_HAND + LI for c in (gen, off, cav))


def test_t03_too_few_items_nothing_lost():
    s = position(4)
    p = int(s[H_CURRENT])
    clear_cards(s, p)
    c1 = give(s, p, "Cavalry", 2, "shown")
    set_player(s, p, bid_cubes=1, cubes=3)
    s[L.G_FIRST] = 0
    R.apply(s, L.A_PASS)
    assert (
        s[R.pb(p) + L.F_TILE] == 4
        and s[L.LOC + c1] == L.LOC_HAND + p
        and s[R.pb(p) + L.F_CUBES] == 4
    )
    assert s[L.G_DECISION] == L.DK_WITHDRAW


def test_t14_start_players_first_bid():
    s = position(3)
    p = int(s[L.G_START])
    assert s[H_CURRENT] == p and s[L.G_DECISION] == L.DK_BID
    m = mask(s)
    assert not m[L.A_PASS]
    hand = [c for c in range(int(s[L.DAT])) if s[L.LOC + c] == L.LOC_HAND + p]
    a = s.copy()
    R.apply(a, L.A_CARD + hand[0])
    assert not any(mask(a)[L.A_CARD + c] for c in hand[1:])  # 2 cards > cmax + 1 = 1
    b = s.copy()
    R.apply(b, L.A_CUBE)
    assert mask(b)[L.A_CONFIRM]
    R.apply(b, L.A_CONFIRM)
    assert b[R.pb(p) + L.F_DECLARED] == 1
    c = s.copy()
    cav3 = [x for x in hand if R.cd(c, x, L.CD_POWER) == 3][0]
    R.apply(c, L.A_CARD + cav3)
    for _ in range(4):
        R.apply(c, L.A_CUBE)
    R.apply(c, L.A_CONFIRM)
    assert c[R.pb(p) + L.F_DECLARED] == 7 and c[L.G_CMAX] == 1


def test_t15_field_marshal_power_follows_cubes():
    for tile, lost in ((1, "General"), (2, "Field Marshal"), (3, "cubes")):
        s = position(3)
        clear_cards(s, LI)
        fm = give(s, LI, "Field Marshal", None, "shown")
        gen = give(s, LI, "General", 8, "shown")
        set_player(s, LI, bid_cubes=3, cubes=2)
        assert R.declared_now(s, LI) == 7 + 8 + 3
        s[L.G_ACTIVE], s[L.G_FIRST], s[L.G_CMAX] = tile, 0, 2
        balance_supply(s)
        to_move(s, LI, L.DK_BID)
        R.apply(s, L.A_PASS)
        assert s[L.G_DECISION] == L.DK_WITHDRAW
        if lost == "General":
            assert s[L.LOC + gen] == L.LOC_DISCARD
        elif lost == "Field Marshal":
            assert s[L.LOC + fm] == L.LOC_DISCARD
        else:
            assert cubes(s, LI) == 2 and R.power(s, fm, LI) == 4


def test_t16_eunuch_when_bid_once():
    s = position(3)
    p = int(s[L.G_START])
    clear_cards(s, p)
    eu = give(s, p, "Eunuch")
    set_player(s, p, trust=1, vp=10)
    R.apply(s, L.A_CARD + eu)
    R.apply(s, L.A_CONFIRM)
    assert trust(s, p) == 0 and vp(s, p) == 8 and tribs(s, p) == 1
    # later bids by the same player do not trigger it again
    while s[H_CURRENT] != p:
        R.apply(s, L.A_PASS if mask(s)[L.A_PASS] else int(np.flatnonzero(mask(s))[0]))
        if s[L.G_DECISION] == L.DK_WITHDRAW:
            R.apply(s, int(np.flatnonzero(mask(s))[0]))
    if s[L.G_DECISION] == L.DK_BID and mask(s)[L.A_CUBE]:
        for _ in range(int(s[R.pb(p) + L.F_CUBES])):
            R.apply(s, L.A_CUBE)
        if mask(s)[L.A_CONFIRM]:
            R.apply(s, L.A_CONFIRM)
    assert tribs(s, p) == 1


def test_d_a4_eunuch_with_a_trust_card_asks_for_the_order():
    s = position(3)
    p = int(s[L.G_START])
    clear_cards(s, p)
    eu = give(s, p, "Eunuch")
    con = give(s, p, "Concubine")
    s[L.G_CMAX] = 1
    set_player(s, p, trust=1, vp=10)
    a = s.copy()
    R.apply(a, L.A_CARD + eu)
    R.apply(a, L.A_CARD + con)
    R.apply(a, L.A_CONFIRM)
    assert a[L.G_DECISION] == L.DK_ORDER
    assert list(np.flatnonzero(mask(a))) == sorted([L.A_CARD + eu, L.A_CARD + con])
    b = a.copy()
    R.apply(a, L.A_CARD + con)  # Trust card first: 1 + 1 = 2, then -2 -> 0, no VP lost
    assert trust(a, p) == 0 and vp(a, p) == 10
    R.apply(b, L.A_CARD + eu)  # Eunuch first: 1 - 2 -> 0 (-2 VP), then +1
    assert trust(b, p) == 1 and vp(b, p) == 8
    for x in (a, b):  # one Tribute, the cards on display, the next seat to bid
        assert (
            tribs(x, p) == 1 and x[L.LOC + eu] == L.LOC_BID + p and x[L.LOC + con] == L.LOC_BID + p
        )
        assert (
            x[L.G_DECISION] == L.DK_BID
            and x[H_CURRENT] != p
            and not x[L.BID_FX : L.BID_FX + L.MAXC].any()
        )


def bid_effect_orders(s, p):
    """Every way the bidder can order the bid-time effects waiting (D-A4): the names of the
    choices made, and the bidder's Trust, VP and Tribute cards at the end."""
    out = []

    def walk(st, path):
        if st[L.G_DECISION] == L.DK_ORDER and st[H_CURRENT] == p:
            for a in np.flatnonzero(mask(st)):
                nxt = st.copy()
                name = SPEC.action_name(st, int(a))
                R.apply(nxt, int(a))
                walk(nxt, path + (name,))
        else:
            out.append((path, trust(st, p), vp(st, p), tribs(st, p)))

    walk(s, ())
    return out


def three_bid_time_cards(trust):
    """The start player, at ``trust`` Trust and 10 VP (the others at 12 Trust), bids an
    Empress, a Concubine and an Eunuch together (``cmax`` 2); returned at the order decision."""
    s = position(3)
    p = int(s[L.G_START])
    clear_cards(s, p)
    cards = give(s, p, "Empress"), give(s, p, "Concubine"), give(s, p, "Eunuch")
    s[L.G_CMAX] = 2
    for q in range(3):
        set_player(s, q, trust=12, vp=10)
    set_player(s, p, trust=trust)
    for c in cards:
        R.apply(s, L.A_CARD + c)
    R.apply(s, L.A_CONFIRM)
    assert s[L.G_DECISION] == L.DK_ORDER and s[H_CURRENT] == p
    return s, p, cards


def test_d_a4_empress_concubine_and_eunuch_in_one_bid_every_order_is_offered():
    """R-A3 / D-A4, item 52 of the spec's decisions ("when one bid adds both an Eunuch and an
    Empress or Concubine, p orders their effects"): with three bid-time cards every order of
    their effects is offered, one effect at a time.  At Trust 0 and 10 VP: both +1 Trust first
    (Trust 2, then -2) -> (0, 10); the Eunuch first (-2 uncovered: -4 VP, then +2) -> (2, 6);
    one +1 Trust, the Eunuch (-2 from 1: -2 VP), the other +1 -> (1, 8).  The Empress and the
    Concubine have the same effect, so they are one choice (the Empress stands for both)."""
    from sim.emperors_choice.view import CARD_NAMES

    s, p, (emp, con, eu) = three_bid_time_cards(trust=0)
    assert s[L.G_HIGH] == 5 + 3 + 4 and all(s[L.LOC + c] == L.LOC_BID + p for c in (emp, con, eu))
    orders = bid_effect_orders(s, p)
    assert {(t, v) for _, t, v, _ in orders} == {(0, 10), (2, 6), (1, 8)}
    assert all(k == 1 for *_, k in orders)  # the Eunuch's Tribute in every order
    name = {c: f"resolve {CARD_NAMES[c]} [#{c}] now" for c in (emp, con, eu)}
    assert sorted((path, t, v) for path, t, v, _ in orders) == sorted(
        [
            ((name[emp], name[con]), 0, 10),  # Empress, Concubine, then the Eunuch
            ((name[emp], name[eu]), 1, 8),  # Empress, Eunuch, then the Concubine
            ((name[eu],), 2, 6),  # the Eunuch, then both
        ]
    )


def test_t23_bid_recount_after_cubes_are_lost():
    for option, legal in (("recompute_next_turn", True), ("frozen_until_owner_turn", False)):
        s = position(4, options={"auction_cube_loss": option})
        A, B, C, D = 0, 1, 2, 3
        for p in range(4):
            clear_cards(s, p)
        give(s, A, "Cavalry", 3, "shown")
        cav2 = give(s, A, "Cavalry", 2)
        set_player(s, A, bid_cubes=1, cubes=3, declared=4)
        give(s, B, "Supply Officer", 3, "shown")
        give(s, B, "Cavalry", 3, "shown")
        set_player(s, B, bid_cubes=2, cubes=0, declared=8)
        set_player(s, C, passed=1, cubes=2, tile=4)
        set_player(s, D, cubes=19)
        s[L.G_SUPPLY] = 1
        s[L.G_ACTIVE], s[L.G_HIGH], s[L.G_CMAX], s[L.G_FIRST], s[L.G_START] = 3, 8, 2, 0, 0
        to_move(s, D, L.DK_BID)
        s[L.G_LAST] = D
        R.apply(s, L.A_PASS)
        assert s[R.pb(D) + L.F_TILE] == 3
        R.apply(s, L.A_WD + 1)  # W2: soldiers:3
        assert [cubes(s, p) for p in range(4)] == [2, 0, 0, 20] and s[L.G_SUPPLY] == 6
        assert s[H_CURRENT] == A and s[L.G_DECISION] == L.DK_BID
        assert s[L.G_HIGH] == (6 if legal else 8)
        R.apply(s, L.A_CARD + cav2)
        R.apply(s, L.A_CUBE)
        assert bool(mask(s)[L.A_CONFIRM]) == legal


# ---------------------------------------------------------------- management and decree


def test_t04_management_resupply():
    s = position(3)
    set_player(s, LI, tile=1)
    set_player(s, WANG, tile=2)
    set_player(s, MENG, tile=3)
    s[L.G_PHASE], s[L.G_MG_IDX], s[L.G_MG_STEP], s[L.G_RS_USED] = L.PH_MGMT, 0, 4, 0
    gen = give(s, LI, "General", 8)
    s[L.LOC + gen] = L.LOC_DISPLAY
    R.sync_card_sets(s)
    s[L.RECRUIT] = gen
    set_player(s, LI, gold=4, palace=0)
    to_move(s, LI, L.DK_RESUPPLY)
    R.apply(s, L.A_RECRUIT)
    assert s[R.pb(LI) + L.F_GOLD] == 1 and s[L.LOC + gen] == L.LOC_HAND + LI
    R.apply(s, L.A_RAISE)
    assert (
        s[R.pb(LI) + L.F_GOLD] == 0
        and s[R.pb(LI) + L.F_PALACE] == 1
        and s[L.G_DECISION] == L.DK_SIDE
    )
    R.apply(s, L.A_OPT)  # level 1 side A: gold:1
    assert s[R.pb(LI) + L.F_GOLD] == 1 and s[L.G_DECISION] == L.DK_RESUPPLY
    m = mask(s)
    assert m[L.A_HIRE] and not m[L.A_RAISE] and not m[L.A_RECRUIT]


def test_t05_decree_selection_tie_break():
    s = position(3)
    tiles_in_order(s, 3)
    set_player(s, LI, trust=7, tile=1)
    set_player(s, MENG, trust=10, tile=2)
    set_player(s, WANG, trust=10, tile=3)
    assert R.decree_select(s) == MENG
    R.trust_loss(s, MENG, 3)
    assert R.decree_select(s) == WANG


def test_t06_book_preservation_via_score_and_flip():
    s = position(3)
    set_player(s, LI, tile=1, trust=5)
    set_player(s, MENG, tile=2, trust=12)
    set_player(s, WANG, tile=3, trust=10)
    set_policy(s, 5, "no_books_6vp_then_burn")
    set_tiles(s, LI, book=1)
    set_tiles(s, MENG, book=2)
    set_tiles(s, WANG, book=0)
    s[L.G_ROUND] = 2
    s[L.G_PHASE], s[L.G_DC_STEP] = L.PH_DECREE, 0
    s[L.G_DECISION] = L.DK_NONE
    R.advance(s)
    assert s[H_CURRENT] == MENG and s[L.G_DECISION] == L.DK_DECREE_TILE
    before = [vp(s, p) for p in range(3)]
    R.apply(s, L.A_OPT)  # Score + Flip
    R.apply(s, L.A_FLIP + 5)
    R.apply(s, L.A_SCORE + 5)
    after = [vp(s, p) for p in range(3)]
    assert after[MENG] - before[MENG] == 13 and after[LI] - before[LI] == 5
    # the second decree (Wang Ben, Trust 10 > 8) has begun: its +3 VP waits for his order (R-D2)
    assert s[H_CURRENT] == WANG and s[L.G_DECISION] == L.DK_DECREE1 and after[WANG] == before[WANG]
    assert (
        sum(int(s[R.pb(p) + L.F_TAB + L.BOOK]) for p in range(3)) == 0
        and s[L.REMOVED + L.BOOK] == 3
    )
    assert tribs(s, LI) == 1 and tribs(s, MENG) == 1 and tribs(s, WANG) == 0
    assert card_at(s, 5) == 1 and s[L.POLICY + 2 * 5 + 1] == 1
    assert trust(s, MENG) == 12 - 4  # round 2 costs 4


def decree_position(tile, options=None):
    """Round 2 decree: Meng Tian (Trust 12) carries out Decree tile ``tile`` (0 Score + Flip,
    1 Score + Tribute); Wang Ben (10) does the other one next; Li Xin has Trust 5."""
    s = position(3, options=options)
    set_player(s, LI, tile=1, trust=5)
    set_player(s, MENG, tile=2, trust=12)
    set_player(s, WANG, tile=3, trust=10)
    s[L.G_ROUND] = 2
    s[L.G_PHASE], s[L.G_DC_STEP] = L.PH_DECREE, 0
    s[L.G_DECISION] = L.DK_NONE
    R.advance(s)
    assert s[H_CURRENT] == MENG and s[L.G_DECISION] == L.DK_DECREE_TILE
    R.apply(s, L.A_OPT + tile)
    assert s[H_CURRENT] == MENG and s[L.G_DECISION] == L.DK_DECREE1
    return s


def names(s):
    return [SPEC.action_name(s, a) for a in np.flatnonzero(mask(s))]


def test_decree_parts_are_done_in_the_order_the_player_picks():
    """R-D2 / D#47: before the scoring every part left is offered (+3 VP, Tribute draw, flip,
    score); once scored, the +3 VP and the Tribute left come at once and only the flip (or
    none) is asked."""
    s = decree_position(0)
    start = names(s)
    assert start[0] == "decree +3 VP now" and "decree Tribute draw now" not in start
    assert (
        sum(n.startswith("score ") for n in start) == 7
        and sum(n.startswith("flip ") for n in start) == 7
    )
    assert "no flip" not in start  # declining the flip waits until after the scoring
    v = vp(s, MENG)
    R.apply(s, L.A_FLIP + 2)
    assert names(s)[0] == "decree +3 VP now" and not any(n.startswith("flip ") for n in names(s))
    R.apply(s, L.A_SCORE + 0)  # the +3 VP comes after the scoring; the tile is done
    assert (
        s[R.pb(MENG) + L.F_VP_DECREE] == 3
        and s[H_CURRENT] == WANG
        and s[L.G_DECISION] == L.DK_DECREE1
    )
    # Wang Ben, Score + Tribute: +3 VP, Tribute draw, score -- no flip
    w = names(s)
    assert w[:2] == ["decree +3 VP now", "decree Tribute draw now"] and not any(
        n.startswith("flip ") for n in w
    )
    assert not any(n.startswith("score 1 ") for n in w)  # card 1 carries the disc placed just now
    R.apply(s, L.A_OPT)
    assert s[R.pb(WANG) + L.F_VP_DECREE] == 3 and names(s)[0] == "decree Tribute draw now"
    t = tribs(s, WANG)
    R.apply(s, L.A_SCORE + 1)  # the Tribute left is drawn after the scoring: the round ends
    assert tribs(s, WANG) == t + 1 and s[L.G_ROUND] == 3 and s[L.G_PHASE] == L.PH_AUCTION
    assert vp(s, MENG) >= v + 3


def test_decree_score_then_no_flip_or_a_late_flip():
    s = decree_position(0)
    R.apply(s, L.A_SCORE + 4)
    assert vp(s, MENG) >= 3 and s[R.pb(MENG) + L.F_VP_DECREE] == 3  # +3 VP already given
    assert s[H_CURRENT] == MENG and s[L.G_DECISION] == L.DK_DECREE1
    after = names(s)
    assert (
        after[0] == "no flip" and len(after) == 8 and all(n.startswith("flip ") for n in after[1:])
    )
    side = card_at(s, 6)
    R.apply(s, L.A_FLIP + 6)  # a flip after the scoring: the card's disc and side change stays
    assert card_at(s, 6) == 1 - side and s[H_CURRENT] == WANG
    s = decree_position(0)
    R.apply(s, L.A_SCORE + 4)
    R.apply(s, L.A_END)
    assert s[H_CURRENT] == WANG and s[L.G_DECISION] == L.DK_DECREE1


@pytest.mark.parametrize("vp_first,final_vp", [(True, 0), (False, 3)])
def test_decree_vp_after_a_scoring_that_costs_vp_at_the_floor(vp_first, final_vp):
    """R-D2 with the VP floor (R-C6): Meng Tian at 0 VP with no cubes scores Border Defence
    and loses to the Barbarians (no Wall: 0 VP), paying 1 cube he lacks = -3 VP under
    ``soldier_payment_penalty = 3vp_per_missing``.  +3 VP first: 3 -> 0.  Scoring first:
    the loss stops at 0, then +3 -> 3.  The Trust cost (4 of 12) costs no VP."""
    s = decree_position(0, {"soldier_payment_penalty": "3vp_per_missing"})
    set_policy(s, 3, "border_defence")
    s[L.G_BARB] = 10
    clear_cards(s, MENG)
    set_tiles(s, MENG, tower=0, wall=0)
    set_player(s, MENG, vp=0, cubes=0)
    balance_supply(s)
    if vp_first:
        R.apply(s, L.A_OPT)
        assert vp(s, MENG) == 3
    R.apply(s, L.A_SCORE + 3)
    R.apply(s, L.A_END)  # no flip
    assert s[H_CURRENT] == WANG and trust(s, MENG) == 8
    assert vp(s, MENG) == final_vp and s[R.pb(MENG) + L.F_VP_DECREE] == 3
    assert s[R.pb(MENG) + L.F_VP_LOST] == 3 - final_vp


@pytest.mark.parametrize("tribute_first", [True, False])
def test_decree_tribute_before_or_after_the_scoring_with_one_tribute_left(tribute_first):
    """R-D2 with R-C5: one Tribute card is left in the deck.  Meng Tian (no books) carries
    out Score + Tribute and scores Book Preservation, for which Li Xin (1 book) draws a
    Tribute.  Drawn first, the card is Meng Tian's and Li Xin gets the empty deck's 3 VP;
    scored first, Li Xin takes the card and Meng Tian gets the 3 VP."""
    s = decree_position(1)
    set_policy(s, 5, "books_5vp_then_burn_tribute")
    set_tiles(s, LI, book=1)
    set_tiles(s, MENG, book=0)
    set_tiles(s, WANG, book=0)
    s[L.TRIB_DECK : L.TRIB_DECK + L.N_TRIB] = 0
    s[L.TRIB_DECK + 2] = 1  # a 4-VP Tribute
    for p in range(3):
        set_player(s, p, vp=10)
    if tribute_first:
        R.apply(s, L.A_OPT + 1)
        assert tribs(s, MENG) == 1
        # private: Li Xin's key does not tell which card it was, Meng Tian's does
        t = s.copy()
        t[R.pb(MENG) + L.F_TRIB + 2] -= 1
        t[R.pb(MENG) + L.F_TRIB + 0] += 1
        assert R.info_key(t, LI) == R.info_key(s, LI) and R.info_key(t, MENG) != R.info_key(s, MENG)
    R.apply(s, L.A_SCORE + 5)
    assert s[H_CURRENT] == WANG  # the tile is done: +3 VP and (if left) the Tribute came after
    if tribute_first:
        assert (tribs(s, MENG), tribs(s, LI)) == (1, 0) and s[R.pb(MENG) + L.F_TRIB + 2] == 1
        assert (vp(s, MENG), vp(s, LI)) == (13, 10 + 5 + 3)
    else:
        assert (tribs(s, MENG), tribs(s, LI)) == (0, 1) and s[R.pb(LI) + L.F_TRIB + 2] == 1
        assert (vp(s, MENG), vp(s, LI)) == (16, 15)


def test_decree_reveals_resolve_before_the_next_part_under_optional_subset():
    """D#36 ``optional_subset`` with R-D2: the scoring's reveals are asked right after the
    scoring; the +3 VP left and the flip question follow them."""
    s = decree_position(0, {"reveal_mode": "optional_subset"})
    set_policy(s, 4, "lineage_3vp")
    for p in range(3):
        clear_cards(s, p)
        set_player(s, p, vp=10)
    prince = give(s, MENG, "Prince")
    R.apply(s, L.A_SCORE + 4)
    assert s[L.G_DECISION] == L.DK_REVEAL and s[H_CURRENT] == MENG and vp(s, MENG) == 10
    R.apply(s, L.A_CARD + prince)
    R.apply(s, L.A_END)
    assert s[L.G_DECISION] == L.DK_DECREE1 and s[H_CURRENT] == MENG and vp(s, MENG) == 16
    assert names(s)[0] == "no flip"


def test_t07_legalism_tiers():
    s = position(4)
    tiles_in_order(s, 4)
    set_policy(s, 1, "legalist_tiers")
    for p, k in enumerate((4, 1, 2, 0)):
        set_tiles(s, p, legalist=k)
        set_player(s, p, trust=5, vp=10)
    R.score_side(s, 1, card_at(s, 1), 0, False)
    assert [vp(s, p) for p in range(4)] == [19, 12, 15, 10]
    assert [trust(s, p) for p in range(4)] == [9, 6, 7, 5]
    assert [int(s[R.pb(p) + L.F_TAB + L.LEGAL]) for p in range(4)] == [3, 0, 1, 0]


def test_t08_border_defence_win():
    s = position(3)
    tiles_in_order(s, 3)
    s[L.G_BARB] = 12
    set_tiles(s, LI, tower=3, wall=2)
    cmd = give(s, LI, "Military Commander")
    s[L.KNOWN + cmd] = 0
    set_player(s, LI, cubes=4, vp=10)
    set_policy(s, 3, "border_defence")
    R.score_side(s, 3, card_at(s, 3), 0, False)
    assert (
        vp(s, LI) == 24
        and cubes(s, LI) == 2
        and s[L.LOC + cmd] == L.LOC_HAND + LI
        and s[L.KNOWN + cmd] == 1
    )


@pytest.mark.parametrize("strength", [10, 12])
def test_t09_expedition_loss(strength):
    s = position(3)
    tiles_in_order(s, 3)
    clear_cards(s, MENG)
    s[L.G_BARB] = strength
    set_tiles(s, MENG, tower=1, wall=2)
    set_player(s, MENG, cubes=4, vp=10)
    set_policy(s, 3, "expedition")
    R.score_side(s, 3, card_at(s, 3), 0, False)
    assert vp(s, MENG) == 13 and cubes(s, MENG) == 3


@pytest.mark.parametrize("sid,gain", [("carriages_distinct", 11), ("carriages_same", 10)])
def test_t10_t11_tour_and_parade(sid, gain):
    s = position(3)
    tiles_in_order(s, 3)
    set_tiles(s, LI, carriage_1=2, carriage_2=2, carriage_3=0, carriage_4=1, carriage_5=1)
    set_player(s, LI, vp=10)
    set_policy(s, 6, sid)
    R.score_side(s, 6, card_at(s, 6), 0, False)
    assert vp(s, LI) == 10 + gain


def test_t12_book_burning():
    s = position(3)
    tiles_in_order(s, 3)
    for p, k in enumerate((0, 1, 3)):
        set_tiles(s, p, book=k)
        set_player(s, p, vp=10)
    set_policy(s, 5, "no_books_6vp_then_burn")
    R.score_side(s, 5, card_at(s, 5), 0, False)
    assert [vp(s, p) for p in range(3)] == [16, 10, 10]
    assert all(s[R.pb(p) + L.F_TAB + L.BOOK] == 0 for p in range(3)) and all(
        tribs(s, p) == 0 for p in range(3)
    )


def test_t13_great_wall_length():
    cases = {(0, 0): 0, (1, 0): 1, (4, 1): 3, (3, 2): 5, (2, 2): 4, (1, 2): 3, (18, 18): 36}
    for (t, w), want in cases.items():
        assert R.wall_len(t, w) == want


def test_t17_trust_overflow():
    s = position(3)
    tiles_in_order(s, 3)
    for p, (t, v) in enumerate(((29, 10), (8, 10), (5, 7))):
        set_player(s, p, trust=t, vp=v)
    a = s.copy()
    R.trust_gain(a, 0, 4)
    assert [trust(a, p) for p in range(3)] == [20, 0, 0] and [vp(a, p) for p in range(3)] == [
        10,
        6,
        0,
    ]
    b = s.copy()
    set_player(b, 0, trust=26)
    R.trust_gain(b, 0, 4)
    assert trust(b, 0) == 30 and trust(b, 1) == 8
    c = position(3, options={"trust_overflow": "uncapped_then_minus10"})
    tiles_in_order(c, 3)
    for p, (t, v) in enumerate(((29, 10), (8, 10), (5, 7))):
        set_player(c, p, trust=t, vp=v)
    R.trust_gain(c, 0, 4)
    assert [trust(c, p) for p in range(3)] == [23, 0, 0]


def test_t18_soldier_exhaustion():
    s = position(3)
    tiles_in_order(s, 3)
    A, B, C = 0, 1, 2
    set_player(s, A, cubes=0, vp=10, gold=3)
    set_player(s, B, cubes=19, vp=10)
    set_player(s, C, cubes=1, vp=10)
    s[L.G_SUPPLY] = 1
    s[L.G_PHASE], s[L.G_MG_IDX], s[L.G_MG_STEP], s[L.G_RS_USED] = L.PH_MGMT, 0, 4, 0
    to_move(s, A, L.DK_RESUPPLY)
    R.apply(s, L.A_HIRE + 2)
    assert [cubes(s, p) for p in range(3)] == [3, 17, 0] and s[L.G_SUPPLY] == 1
    assert [vp(s, p) for p in range(3)] == [4, 10, 7] and s[R.pb(A) + L.F_GOLD] == 0


def test_t19_executed_disc_reset_puts_a_tribute_under_the_last_card():
    s = position(3)
    tiles_in_order(s, 3)
    for c in (0, 2, 3, 4, 5):
        s[L.POLICY + 2 * c + 1] = 1
    s[L.G_DISCS] = 5
    deck = int(s[L.TRIB_DECK : L.TRIB_DECK + L.N_TRIB].sum())
    R.score_policy(s, 1, 0)
    assert s[L.G_DISCS] == 0 and all(s[L.POLICY + 2 * c + 1] == 0 for c in range(7))
    assert s[L.UNDER + 6 * L.N_TRIB : L.UNDER + 7 * L.N_TRIB].sum() == 1
    held = tribs(s, 2)
    R.score_policy(s, 6, 2)
    assert tribs(s, 2) >= held + 1 and s[L.UNDER + 6 * L.N_TRIB : L.UNDER + 7 * L.N_TRIB].sum() == 0
    assert int(s[L.TRIB_DECK : L.TRIB_DECK + L.N_TRIB].sum()) <= deck - 1


def test_t20_centralization():
    s = position(3)
    tiles_in_order(s, 3)
    for p, k in enumerate((4, 4, 1)):
        set_player(s, p, cubes=k, vp=10, gold=0)
    set_policy(s, 0, "soldiers_vp_and_top_pays")
    R.score_side(s, 0, card_at(s, 0), 0, False)
    assert [vp(s, p) for p in range(3)] == [14, 14, 11]
    assert [cubes(s, p) for p in range(3)] == [2, 2, 1] and [
        int(s[R.pb(p) + L.F_GOLD]) for p in range(3)
    ] == [2, 2, 0]
    z = position(3)
    tiles_in_order(z, 3)
    for p in range(3):
        set_player(z, p, cubes=0, vp=10, gold=0)
    R.score_side(z, 0, card_at(z, 0), 0, False)
    assert [vp(z, p) for p in range(3)] == [10, 10, 10] and all(
        z[R.pb(p) + L.F_GOLD] == 0 for p in range(3)
    )


def test_t21_final_scoring_order():
    s = position(3)
    tiles_in_order(s, 3)
    clear_cards(s, 0)
    give(s, 0, "Philosopher")
    set_tiles(s, 0, legalist=4, confucianist=0)
    set_player(s, 0, trust=27, vp=10, gold=0, palace=0)
    set_policy(s, 1, "legalist_tiers")
    for c in range(7):
        if c != 1:  # neutralise the other cards for this player
            s[L.POLICY + 2 * c] = s[L.POLICY + 2 * c]
    R.score_side(s, 1, card_at(s, 1), -1, True)
    assert vp(s, 0) == 19 and trust(s, 0) == 20
    assert s[R.pb(0) + L.F_TRUST] // 2 == 10
    assert R.end_card_vp(s, 0) == 6


def test_t22_barbarian_drawn_at_setup_raises_strength():
    found = False
    for seed in range(40):
        s = position(5, seed=seed)
        removed = int(
            s[L.REMOVED + L.BARB1] * s[L.DAT + L.D_BARB]
            + s[L.REMOVED + L.BARB2] * s[L.DAT + L.D_BARB + 1]
        )
        assert s[L.G_BARB] == 2 + removed
        found |= removed > 0
    assert found


def test_royal_seal_and_jade_in_step_two():
    s = position(3)
    tiles_in_order(s, 3)
    s[L.G_PHASE], s[L.G_MG_IDX], s[L.G_MG_STEP] = L.PH_MGMT, 0, 1
    s[R.pb(0) + L.F_PENDING + L.SEAL] = 1
    s[R.pb(0) + L.F_PENDING + L.JADE] = 1
    s[L.TREASURE + 1] = 2
    s[L.G_DECISION] = L.DK_NONE
    R.advance(s)
    assert s[L.G_DECISION] == L.DK_IMM and s[H_CURRENT] == 0
    R.apply(s, L.A_IMM)  # Jade first
    assert s[L.G_DECISION] == L.DK_JADE and mask(s)[L.A_TREASURE + 1]
    R.apply(s, L.A_TREASURE + 1)
    assert s[L.TREASURE + 1] == 0
    assert s[L.G_DECISION] == L.DK_SEAL
    side = card_at(s, 4)
    R.apply(s, L.A_FLIP + 4)
    assert card_at(s, 4) == 1 - side and s[L.REMOVED + L.SEAL] == 1 and s[L.REMOVED + L.JADE] == 1


def always_instant_seal_and_messenger():
    """Seat 0 at Trust 28 with 3 Legalist tiles and Legalism face up takes a set holding a
    Royal Seal and an Imperial Messenger under ``immediate_tiles_timing = always_instant``
    (returned at the order decision)."""
    s = position(3, options={"immediate_tiles_timing": "always_instant"})
    tiles_in_order(s, 3)
    for p in range(3):
        set_player(s, p, trust=28 if p == 0 else 12, vp=10)
    set_tiles(s, 0, legalist=3)
    set_policy(s, 1, "legalist_tiers")
    s[L.SETS : L.SETS + L.MAX_SETS * L.N_TILE] = 0
    s[L.SETS + L.SEAL] = s[L.SETS + L.MESSENGER] = 1
    s[L.G_PHASE], s[L.G_MG_IDX], s[L.G_MG_STEP] = L.PH_MGMT, 0, 0
    to_move(s, 0, L.DK_SET)
    R.apply(s, L.A_SET + 0)
    assert s[L.G_DECISION] == L.DK_IMM and s[H_CURRENT] == 0
    assert list(np.flatnonzero(mask(s))) == [
        L.A_IMM + L.MESSENGER - L.JADE,
        L.A_IMM + L.SEAL - L.JADE,
    ]
    return s


@pytest.mark.parametrize("first,final_trust", [(L.MESSENGER, 23), (L.SEAL, 24)])
def test_always_instant_the_player_orders_the_immediate_tiles_of_a_taken_set(first, final_trust):
    """D-M2 ("resolve all pending immediate tiles, in an order chosen by the player") under
    ``immediate_tiles_timing = always_instant``: the tiles of a taken set resolve at once, in
    the player's order when two kinds or more are in it (no fixed order).  The order changes
    the outcome: Messenger first overflows at 32 (30, then -10 for all: 20) and Legalism adds
    3 (23); Legalism first overflows at 31 (20) and the Messenger adds 4 (24)."""
    s = always_instant_seal_and_messenger()
    R.apply(s, L.A_IMM + first - L.JADE)
    if first == L.MESSENGER:
        assert trust(s, 0) == 20  # 28 + 4: stops at 30, everyone loses 10
    assert s[L.G_DECISION] == L.DK_SEAL
    R.apply(s, L.A_SCORE + 1)
    assert s[L.G_DECISION] == L.DK_RESUPPLY and s[H_CURRENT] == 0
    assert trust(s, 0) == final_trust and vp(s, 0) == 19 and [trust(s, p) for p in (1, 2)] == [2, 2]
    assert s[L.REMOVED + L.SEAL] == 1 and s[L.REMOVED + L.MESSENGER] == 1
    assert not s[R.pb(0) + L.F_PENDING : R.pb(0) + L.F_PENDING + L.N_TILE].any()


def starting_bonus_options(effects=None, **opts):
    """Option codes and component data, with the Starting Bonus tiles' effects replaced."""
    import copy

    from sim.emperors_choice.options import OPTIONS, component_data, load_components

    comp = copy.deepcopy(load_components())
    for i, e in enumerate(effects or ()):
        comp["starting_bonus_tiles"][i]["effect"] = e
    codes = np.array([o.encode(opts.get(o.name, o.default)) for o in OPTIONS], np.int32)
    return np.concatenate([codes, component_data(comp)])


def test_starting_bonus_tiles_are_drawn_and_resolved_one_player_at_a_time():
    """Setup step 11: "each player in clockwise order from the start player draws one and
    resolves it immediately (a palace_up there resolves the level choice at once)".  When a
    player stops at the palace level of SB4, the players after them have drawn nothing yet."""
    opts = starting_bonus_options()
    seen = 0
    for seed in range(40):
        s = R.new_state(seed, 4, opts)
        while s[L.G_PHASE] == L.PH_SETUP:
            assert s[L.G_DECISION] == L.DK_SIDE
            q = int(s[H_CURRENT])
            i = (q - int(s[L.G_START])) % 4
            drawn = [int(s[L.LOGK + j]) for j in range(int(s[L.G_LOG_N]))].count(L.CH_BONUS)
            assert drawn == i + 1 and s[R.pb(q) + L.F_BONUS_TILE] == 4
            later = [(int(s[L.G_START]) + j) % 4 for j in range(i + 1, 4)]
            assert all(s[R.pb(x) + L.F_BONUS_TILE] == 0 for x in later)
            seen += len(later) > 0
            R.apply(s, L.A_OPT)
        assert sorted(int(s[R.pb(x) + L.F_BONUS_TILE]) for x in range(4)) == sorted(
            {int(s[R.pb(x) + L.F_BONUS_TILE]) for x in range(4)}
        )
    assert seen > 0


def test_starting_bonus_chance_log_follows_the_draw_then_resolve_order():
    """With Starting Bonus tiles that draw chance (a bag tile each), the chance log shows each
    player's tile followed by the bag draw it causes before the next player's tile, and a
    replay from the logged outcomes rebuilds the same state."""
    from sim.emperors_choice.view import chance_outcomes, state_from_chance

    opts = starting_bonus_options(["qin_tile:1"] * L.N_SB)
    for seed in range(5):
        s = R.new_state(seed, 3, opts)
        events = [e["event"] for e in chance_outcomes(s)]
        tail = events[events.index("start_player") + 1 :]
        assert tail.count("starting_bonus") == 3
        for _ in range(3):  # bonus, then the bag tile(s) it drew (Barbarians are replaced)
            k = tail.index("starting_bonus")
            assert k == 0 and tail[1] == "tile"
            tail = tail[1:]
            while tail and tail[0] == "tile":
                tail = tail[1:]
        assert tail == []
        replay = state_from_chance(3, opts, chance_outcomes(s))
        replay[L.G_FORCED_N] = 0
        assert np.array_equal(replay[8:], s[8:])


def test_final_tie_breaks():
    for option, winner in (("top_card_only", 1), ("lexicographic_sorted_powers", 0)):
        s = position(3, options={"final_tiebreak_power": option})
        for p in range(3):
            clear_cards(s, p)
            set_player(s, p, tile=p + 1)
            s[R.pb(p) + L.F_SCORE] = 50
        s[R.pb(2) + L.F_SCORE] = 49
        give(s, 0, "General", 9)
        give(s, 0, "Cavalry", 5)
        give(s, 1, "General", 9)
        give(s, 1, "Supply Officer", 3)
        for p in range(3):
            s[R.pb(p) + L.F_TB_CARDS] = R.count_loc(s, L.LOC_HAND + p)
            s[R.pb(p) + L.F_TB_POWER] = 9
        sc, w = np.zeros(3), np.zeros(3)
        R.returns(s, sc, w)
        # top card equal (9): the lower Turn Order tile (seat 0, tile 1) wins;
        # sorted Powers: 5 > 3 wins too
        assert w[0] == 1.0
        s[R.pb(0) + L.F_TILE], s[R.pb(1) + L.F_TILE] = 2, 1
        R.returns(s, sc, w)
        assert w[winner] == 1.0


def test_component_data_errors_name_the_table_row_and_field():
    import copy

    from sim.emperors_choice.options import DataError, component_data, load_components

    comp = load_components()
    cases = [
        (
            ("withdrawal_tiles", 0, "effect"),
            "gold:3+fireworks:1",
            r"withdrawal_tiles row 1 \(W1\) field 'effect': unknown icon",
        ),
        (
            ("palace_levels", 4, "side_a"),
            "palace_up:1",
            r"palace_levels row 5 field 'side_a': a palace level cannot raise",
        ),
        (
            ("character_cards", 2, "power_rule"),
            "doubled",
            r"Military Commander\): power_rule 'doubled'",
        ),
        (("policy_cards", 3, "scoring_id"), "nothing", r"policy_cards row 4: scoring_id 'nothing'"),
        (
            ("tribute_cards", 0, "count"),
            -1,
            r"tribute_cards row 1: field 'count' must be an integer",
        ),
    ]
    for (table, row, field), value, pattern in cases:
        bad = copy.deepcopy(comp)
        bad[table][row][field] = value
        with pytest.raises(DataError, match=pattern):
            component_data(bad)
    bad = copy.deepcopy(comp)
    del bad["decree_trust_cost"]
    with pytest.raises(DataError, match="missing or malformed field 'decree_trust_cost'"):
        component_data(bad)
    # a '/' choice is accepted and asked as a decision
    ok = copy.deepcopy(comp)
    ok["withdrawal_tiles"][0]["effect"] = "gold:2/trust:2"
    assert component_data(ok)[L.D_EFF + L.EFF_WD * L.EFF_SIZE] == 2


def test_a_slash_effect_is_a_decision():
    from sim.emperors_choice.options import component_data, load_components

    comp = load_components()
    comp["withdrawal_tiles"][0]["effect"] = "gold:2/trust:2+vp:1"
    s = position(3)
    s[L.DAT : L.DAT + L.D_SIZE] = component_data(comp)
    p = int(s[H_CURRENT])
    s[L.G_FIRST] = 0
    s[L.G_ACTIVE] = 3
    R.apply(s, L.A_PASS)
    R.apply(s, L.A_WD)
    assert s[L.G_DECISION] == L.DK_OPTION and s[H_CURRENT] == p
    gold, tr, v = int(s[R.pb(p) + L.F_GOLD]), trust(s, p), vp(s, p)
    R.apply(s, L.A_OPT + 1)
    assert s[R.pb(p) + L.F_GOLD] == gold and trust(s, p) == tr + 2 and vp(s, p) == v + 1


def test_extravagance_makes_canals_castles_while_face_up():
    s = position(3)
    tiles_in_order(s, 3)
    set_tiles(s, 0, castle=2, canal=3, tower=2, wall=1)
    set_policy(s, 2, "canals_2vp_wall_1vp")
    assert R.castles_eff(s, 0) == 5
    set_player(s, 0, vp=10)
    R.score_side(s, 2, card_at(s, 2), 0, False)
    assert vp(s, 0) == 10 + 2 * 3 + 3  # 2 VP a Canal, 1 VP a unit of wall (2 towers + 1 wall = 3)
    set_policy(s, 0, "castles_2vp")
    R.score_side(s, 0, card_at(s, 0), 0, False)
    assert vp(s, 0) == 19 + 2 * 5
    R.flip_policy(s, 2)  # Frugality: Canals are only Canals again
    assert R.castles_eff(s, 0) == 2


def test_palace_top_free_levels_lost_and_paid_raise_only_to_existing_levels():
    s = position(3)
    tiles_in_order(s, 3)
    set_player(s, 0, palace=11, gold=10)
    R.push(s, L.AT_PALACE_UP, 2, 0)
    s[L.G_DECISION] = L.DK_NONE
    R.advance(s)
    assert s[L.G_DECISION] == L.DK_SIDE and s[R.pb(0) + L.F_PALACE] == 12
    R.apply(s, L.A_OPT)  # level 12 side A; the second level does not exist and is lost
    assert s[R.pb(0) + L.F_PALACE] == 12 and s[L.G_STACK_N] == 0
    t = position(3)
    set_player(t, LI, tile=1)
    set_player(t, WANG, tile=2)
    set_player(t, MENG, tile=3)
    t[L.G_PHASE], t[L.G_MG_IDX], t[L.G_MG_STEP], t[L.G_RS_USED] = L.PH_MGMT, 0, 4, 0
    set_player(t, LI, palace=10, gold=10)
    to_move(t, LI, L.DK_RESUPPLY)
    m = mask(t)
    assert m[L.A_RAISE] and m[L.A_RAISE + 1] and not m[L.A_RAISE + 2]


def test_royal_seal_scoring_places_a_disc_without_decree_vp():
    s = position(3)
    tiles_in_order(s, 3)
    s[L.G_PHASE], s[L.G_MG_IDX], s[L.G_MG_STEP] = L.PH_MGMT, 0, 1
    s[R.pb(0) + L.F_PENDING + L.SEAL] = 1
    set_policy(s, 4, "lineage_3vp")
    clear_cards(s, 0)
    give(s, 0, "Prince")
    set_player(s, 0, vp=10)
    s[L.G_DECISION] = L.DK_NONE
    R.advance(s)
    assert s[L.G_DECISION] == L.DK_SEAL
    R.apply(s, L.A_SCORE + 4)
    assert vp(s, 0) == 13 and s[L.POLICY + 2 * 4 + 1] == 1 and s[L.G_DISCS] == 1
    assert (
        s[L.G_DECISION] == L.DK_RESUPPLY and s[H_CURRENT] == 0
    )  # income and Treasures ran, then step 5


def test_setup_phase_next_start_player_and_refills():
    s = position(4)
    tiles_in_order(s, 4)  # seat 3 holds tile 4: it passed first
    s[L.G_WD_UP], s[L.G_DECREE_UP], s[L.G_ROUND] = 0, 0, 2
    old = [int(c) for c in s[L.RECRUIT : L.RECRUIT + L.MAX_RECRUIT] if c >= 0]
    R.setup_phase(s)
    assert s[L.G_START] == 3 and s[L.G_ROUND] == 3 and s[L.G_WD_UP] == 63 and s[L.G_DECREE_UP] == 3
    assert all(s[R.pb(p) + L.F_TILE] == 0 for p in range(4))
    new = [int(c) for c in s[L.RECRUIT : L.RECRUIT + L.MAX_RECRUIT] if c >= 0]
    assert len(new) == 5 and all(s[L.LOC + c] in (L.LOC_DISCARD, L.LOC_DISPLAY) for c in old)
    sizes = [int(s[L.SETS + i * L.N_TILE : L.SETS + (i + 1) * L.N_TILE].sum()) for i in range(4)]
    assert sizes == [4, 3, 3, 2]


@pytest.mark.parametrize("option", ["A", "random"])
def test_policy_start_option(option):
    """1.10, D#7: the Policy row starts with every card on side A, or on sides drawn at random."""
    opts = SPEC.encode_options({"policy_start": option})
    rows = np.array(
        [
            [R.new_state(seed, 4, opts)[L.POLICY + 2 * c] for c in range(L.N_POLICY)]
            for seed in range(20)
        ]
    )
    if option == "A":
        assert (rows == 0).all()
    else:
        assert set(rows.ravel().tolist()) == {0, 1}
        assert ((rows == 1).any(axis=0)).all() and (
            (rows == 0).any(axis=0)
        ).all()  # each card shows both sides
        assert len({tuple(r) for r in rows}) > 10


@pytest.mark.parametrize("option", ["random", "none"])
def test_starting_bonus_mode_option(option):
    """1.8, D#6: every player draws a different Starting Bonus tile at setup and resolves it, or
    nobody gets one and all seats start alike (the game then opens with the first bid)."""
    opts = SPEC.encode_options({"starting_bonus_mode": option})
    for seed in range(5):
        s = R.new_state(seed, 4, opts)
        while s[L.G_PHASE] == L.PH_SETUP:  # SB4's palace level: side A
            R.apply(s, L.A_OPT)
        drawn = [int(s[R.pb(p) + L.F_BONUS_TILE]) for p in range(4)]
        if option == "random":
            assert len(set(drawn)) == 4 and all(1 <= t <= L.N_SB for t in drawn)
        else:
            assert drawn == [0, 0, 0, 0]
            assert s[L.G_PHASE] == L.PH_AUCTION and s[L.G_DECISION] == L.DK_BID
            fields = (L.F_VP, L.F_TRUST, L.F_GOLD, L.F_CUBES)
            assert len({tuple(int(s[R.pb(p) + f]) for f in fields) for p in range(4)}) == 1


@pytest.mark.parametrize(
    "option,instant", [("step2_or_instant_after", False), ("always_instant", True)]
)
def test_immediate_tile_timing_option(option, instant):
    s = position(3, options={"immediate_tiles_timing": option})
    set_player(s, 0, gold=0)
    R.get_tile(s, 0, L.NUGGET)
    s[L.G_DECISION] = L.DK_NONE
    R.advance(s)
    assert s[R.pb(0) + L.F_GOLD] == (3 if instant else 0)
    assert s[R.pb(0) + L.F_PENDING + L.NUGGET] == (0 if instant else 1)


@pytest.mark.parametrize("option,offered", [("false", True), ("true", False)])
def test_stolen_treasure_reuse_option(option, offered):
    s = position(3, options={"treasure_once_per_round": option})
    tiles_in_order(s, 3)
    s[L.TREASURE + 0] = 0
    s[L.TR_USED + 0] = 1  # used this round by its former owner
    s[L.G_PHASE], s[L.G_MG_IDX], s[L.G_MG_STEP] = L.PH_MGMT, 0, 3
    s[L.G_TR_IDX] = 0
    s[L.G_DECISION] = L.DK_NONE
    R.advance(s)
    assert (s[L.G_DECISION] == L.DK_TREASURE) == offered


@pytest.mark.parametrize(
    "option,second_card", [("historical_all_players", True), ("current_active_displays", False)]
)
def test_cmax_scope_option(option, second_card):
    s = position(3, options={"cmax_scope": option})
    p = int(s[L.G_START])
    s[L.G_FIRST], s[L.G_CMAX] = 0, 1  # a passed player once showed one card; no card is shown now
    hand = [c for c in range(int(s[L.DAT])) if s[L.LOC + c] == L.LOC_HAND + p]
    R.apply(s, L.A_CARD + hand[0])
    assert bool(mask(s)[L.A_CARD + hand[1]]) == second_card


@pytest.mark.parametrize("option,lost", [("capped_no_penalty", 0), ("3vp_per_missing", 6)])
def test_soldier_payment_penalty_option(option, lost):
    s = position(3, options={"soldier_payment_penalty": option})
    tiles_in_order(s, 3)
    clear_cards(s, 0)
    s[L.G_BARB] = 2
    set_tiles(s, 0, tower=1, wall=0)  # Defence 2 >= 2: win, pay 2 cubes
    set_player(s, 0, cubes=0, vp=20)
    set_policy(s, 3, "border_defence")
    R.score_side(s, 3, card_at(s, 3), 0, False)
    assert vp(s, 0) == 20 + 4 - lost


def seal_lineage_position(options=None):
    s = position(3, options=options)
    tiles_in_order(s, 3)
    s[L.G_PHASE], s[L.G_MG_IDX], s[L.G_MG_STEP] = L.PH_MGMT, 0, 1
    s[R.pb(0) + L.F_PENDING + L.SEAL] = 1
    set_policy(s, 4, "lineage_3vp")
    for p in range(3):
        clear_cards(s, p)
        set_player(s, p, vp=10)
    prince, concubine = give(s, 0, "Prince"), give(s, 0, "Concubine")
    rival = give(s, 1, "Prince")
    for c in (concubine, rival):
        s[L.KNOWN + c] = 0  # drawn blind: nobody else knows them
    s[L.G_DECISION] = L.DK_NONE
    R.advance(s)
    assert s[L.G_DECISION] == L.DK_SEAL
    R.apply(s, L.A_SCORE + 4)
    return s, prince, concubine, rival


def test_reveal_mode_optional_subset_lets_each_player_choose_the_cards_to_reveal():
    """7#36 alternative (``reveal_mode = optional_subset``): Blood Lineage by Royal Seal.
    Compulsory: seat 0 shows both Lineage cards (+6) and seat 1 its Prince (+3).  Optional:
    in Turn Order each player picks cards to reveal one at a time and scores only those;
    seat 0 shows the Prince (+3) and keeps the Concubine hidden, seat 1 shows nothing (+0);
    seat 2, with no Lineage card, is not asked."""
    s, prince, concubine, rival = seal_lineage_position()
    assert (
        [vp(s, p) for p in range(3)] == [16, 13, 10]
        and s[L.KNOWN + concubine] == 1
        and s[L.KNOWN + rival] == 1
    )
    assert s[L.G_DECISION] == L.DK_RESUPPLY
    s, prince, concubine, rival = seal_lineage_position({"reveal_mode": "optional_subset"})
    assert s[L.G_DECISION] == L.DK_REVEAL and s[H_CURRENT] == 0 and vp(s, 0) == 10

    def names():
        return [SPEC.action_name(s, a) for a in np.flatnonzero(mask(s))]

    from sim.emperors_choice.view import CARD_NAMES

    assert names() == [
        "reveal no more",
        f"reveal {CARD_NAMES[prince]} [#{prince}]",
        f"reveal {CARD_NAMES[concubine]} [#{concubine}]",
    ]
    R.apply(s, L.A_CARD + prince)
    assert names() == ["reveal no more", f"reveal {CARD_NAMES[concubine]} [#{concubine}]"]
    R.apply(s, L.A_END)
    assert vp(s, 0) == 13 and s[L.KNOWN + concubine] == 0  # the hidden card stays unknown
    assert s[L.G_DECISION] == L.DK_REVEAL and s[H_CURRENT] == 1
    R.apply(s, L.A_END)
    assert [vp(s, p) for p in range(3)] == [13, 10, 10] and s[L.KNOWN + rival] == 0
    assert s[L.G_DECISION] == L.DK_RESUPPLY and s[H_CURRENT] == 0
    assert not s[L.REVEALING : L.REVEALING + L.MAXC].any()


def test_reveal_mode_optional_subset_meritocracy_counts_at_most_two_revealed_cards():
    s = position(3, options={"reveal_mode": "optional_subset"})
    tiles_in_order(s, 3)
    for p in range(3):
        clear_cards(s, p)
        set_player(s, p, vp=0)
    cards = [give(s, 0, "Prince"), give(s, 0, "Concubine"), give(s, 0, "Crown Prince")]
    set_policy(s, 4, "top2_power")
    R.score_side(s, 4, card_at(s, 4), 0, False)
    s[L.G_DECISION] = L.DK_NONE
    R.advance(s)
    assert s[L.G_DECISION] == L.DK_REVEAL and s[H_CURRENT] == 0
    R.apply(s, L.A_CARD + cards[0])
    R.apply(s, L.A_CARD + cards[1])
    assert list(np.flatnonzero(mask(s))) == [L.A_END]  # two shown: no third
    R.apply(s, L.A_END)
    powers = [int(R.cd(s, c, L.CD_POWER)) for c in cards[:2]]
    assert vp(s, 0) == sum(powers)
