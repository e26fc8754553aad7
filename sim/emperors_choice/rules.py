"""Emperor's Choice rules as numba kernels (spec: shared/rules/emperors_choice.md).

The game is a state machine (``advance``).  Effects are *atoms* on a work stack
(``STACK``): gaining gold, cubes, Trust, a palace level, a tile, a card ...  ``advance``
pops and runs atoms until one needs a decision (a palace side, which tile to keep ...),
and when the stack is empty it runs the phase machine (auction turns, management steps,
decrees, the setup phase, final scoring) until a seat must decide.  ``apply`` performs
one decision and calls ``advance``.  Section markers (R-C2, D-A1 ...) refer to the spec.

Decks are unordered: a draw picks uniformly among the cards (tiles, Tribute cards) left,
with the game's RNG, and logs the outcome (``LOG``/``LOGK``).  A state built with
``G_FORCED_N`` > 0 replays logged outcomes instead of drawing (engine-independent replays).
"""

import numba as nb
import numpy as np

from sim.core import (
    kernel,
    FNV_OFFSET,
    H_CURRENT,
    H_NPLAYERS,
    H_PLY,
    H_RNG_LO,
    NO_PLAYER,
    clear_mask,
    fnv_words,
    hash64,
    init_header,
    nth_bit,
    rng_below,
    rng_next,
    rng_seed,
)
from sim.core import bit_count as card_count, lowest_bit as lowest_card
from sim.emperors_choice.layout import *  # noqa: F401,F403


# ============================================================================ small helpers


@kernel(inline=True)
def pb(p):
    return PL + p * PS


@kernel(inline=True)
def cd(s, c, f):
    return s[DAT + D_CARDS + c * CD_SIZE + f]


@kernel(inline=True)
def ncards(s):
    return s[DAT + D_NCARDS]


@kernel
def cubes(s, p):
    return s[pb(p) + F_CUBES] + s[pb(p) + F_BID_CUBES]


@kernel
def power(s, c, p):
    """Power of card ``c`` held by ``p`` (Field Marshal: cubes + 2, evaluated now)."""
    if cd(s, c, CD_RULE) == PR_SOLDIERS_PLUS_2:
        return cubes(s, p) + FM_BONUS
    return cd(s, c, CD_POWER)


@kernel
def wall_len(towers, walls):
    """Great Wall length from the counts (spec 1.2): 2 min(T, W) + (1 if T != W)."""
    m = min(towers, walls)
    return 2 * m + (1 if towers != walls else 0)


@kernel
def player_wall(s, p):
    b = pb(p)
    return wall_len(s[b + F_TAB + TOWER], s[b + F_TAB + WALL])


@kernel
def extravagance_up(s):
    return s[POLICY + 2 * EXTRAV_CARD] == 0


@kernel
def castles_eff(s, p):
    b = pb(p)
    c = s[b + F_TAB + CASTLE]
    if extravagance_up(s):
        c += s[b + F_TAB + CANAL]
    return c


@kernel
def pidx(s):
    return s[H_NPLAYERS] - 3


@kernel
def pool(s):
    return s[DAT + D_POOL + pidx(s)]


# ---------------------------------------------------------------- card sets (CARDS_AT)
# Each location's cards as one 64-bit set, kept with LOC by move_card: a kernel visits the
# cards of a hand or a bid in card-id order (the order of a scan of LOC) with
#     m = cards_at(s, loc)
#     while m != 0:
#         c = lowest_card(m)
#         m &= m - 1
# and counts them with one instruction (card_count: sim.core's bit_count; lowest_card: its
# lowest_bit), instead of scanning every card's location.


@kernel(inline=True)
def cards_at(s, loc):
    """The set of cards at location ``loc`` (bit c: card c)."""
    i = CARDS_AT + 2 * loc
    return (np.int64(s[i + 1]) << 32) | (np.int64(s[i]) & 0xFFFFFFFF)


@kernel
def move_card(s, c, loc):
    """Put card ``c`` at location ``loc`` (LOC and the two locations' sets in CARDS_AT)."""
    w = CARDS_AT + (c >> 5)
    bit = np.int64(1) << (c & 31)
    s[w + 2 * s[LOC + c]] &= ~bit
    s[w + 2 * loc] |= bit
    s[LOC + c] = loc


@kernel
def sync_card_sets(s):
    """Rebuild every location's set (CARDS_AT) from LOC: after LOC was written directly."""
    for i in range(2 * N_LOC):
        s[CARDS_AT + i] = 0
    for c in range(ncards(s)):
        s[CARDS_AT + 2 * s[LOC + c] + (c >> 5)] |= np.int64(1) << (c & 31)


@kernel
def count_loc(s, loc):
    return card_count(cards_at(s, loc))


@kernel(per_type=True)
def set_decision(s, kind, p):
    s[G_DECISION] = kind
    s[H_CURRENT] = p


@kernel(inline=True)
def turn_order_code(s):
    """The seats in Turn Order packed into one int (seat ``i`` in Turn Order: ``seat_at(code,
    i)``, 4 bits each): ascending Turn Order tile, or seat order from the start player before
    every seat holds a tile.  A snapshot: later changes to the tiles do not alter it."""
    n = s[H_NPLAYERS]
    have = True
    for p in range(n):
        if s[pb(p) + F_TILE] == 0:
            have = False
    code = np.int64(0)
    if have:
        for p in range(n):
            sh = 4 * (s[pb(p) + F_TILE] - 1)
            code = (code & ~(np.int64(15) << sh)) | (np.int64(p) << sh)
    else:
        for i in range(n):
            code |= np.int64((s[G_START] + i) % n) << (4 * i)
    return code


@kernel(inline=True)
def seat_at(code, i):
    return (code >> (4 * i)) & 15


@kernel
def holder_of_tile(s, t):
    for p in range(s[H_NPLAYERS]):
        if s[pb(p) + F_TILE] == t:
            return p
    return -1


# ============================================================================ chance


@kernel
def log_outcome(s, kind, v):
    i = s[G_LOG_N]
    if i >= LOG_CAP:
        raise ValueError("emperors_choice: chance log full")
    s[LOG + i] = v
    s[LOGK + i] = kind
    s[G_LOG_N] = i + 1


@kernel
def forced(s):
    return s[G_LOG_N] < s[G_FORCED_N]


@kernel(per_type=True)
def choose(s, kind, n):
    """A uniform integer in [0, n) logged as a chance outcome (or the logged one when replaying)."""
    if forced(s):
        v = s[LOG + s[G_LOG_N]]
        s[LOGK + s[G_LOG_N]] = kind
        s[G_LOG_N] += 1
        return v
    v = rng_below(s, H_RNG_LO, n)
    log_outcome(s, kind, v)
    return v


@kernel(inline=True)
def pick_weighted(s, kind, off, k):
    """Draw one item from the counts ``s[off:off+k]`` (returns its index, -1 if empty); logged."""
    total = 0
    for i in range(k):
        total += s[off + i]
    if total == 0:
        return -1
    if forced(s):
        t = s[LOG + s[G_LOG_N]]
        s[LOGK + s[G_LOG_N]] = kind
        s[G_LOG_N] += 1
    else:
        r = rng_below(s, H_RNG_LO, total)
        t = 0  # the items whose counts, with those before them, end at or before r (no branch on r)
        run = 0
        for i in range(k):
            run += s[off + i]
            t += np.int64(run <= r)
        log_outcome(s, kind, t)
    s[off + t] -= 1
    return t


@kernel
def draw_card(s):
    """Draw a Character card from the deck; an empty deck takes the discard pile back (R-C3)."""
    deck = cards_at(s, LOC_DECK)
    if deck == 0:
        deck = cards_at(s, LOC_DISCARD)
        m = deck
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            move_card(s, c, LOC_DECK)
            s[KNOWN + c] = 0
    n_deck = card_count(deck)
    if n_deck == 0:
        return -1
    if forced(s):
        c = s[LOG + s[G_LOG_N]]
        s[LOGK + s[G_LOG_N]] = CH_CARD
        s[G_LOG_N] += 1
        return c
    c = nth_bit(deck, rng_below(s, H_RNG_LO, n_deck))  # the r-th card of the deck in card-id order
    log_outcome(s, CH_CARD, c)
    return c


@kernel
def draw_qin_tile(s):
    """A bag tile for a player; Barbarians raise the strength, leave the game and are replaced."""
    while True:
        t = pick_weighted(s, CH_TILE, BAG, N_TILE)
        if t < 0:
            return -1
        if t == BARB1 or t == BARB2:
            s[G_BARB] = min(BARB_MAX, s[G_BARB] + s[DAT + D_BARB + t - BARB1])
            s[REMOVED + t] += 1
            continue
        return t


# ============================================================================ tracks


@kernel(per_type=True)
def gain_vp(s, p, k, field):
    s[pb(p) + F_VP] += k
    s[pb(p) + field] += k


@kernel
def lose_vp(s, p, k):
    """R-C6: VP never below 0; only the VP actually lost is recorded."""
    b = pb(p)
    x = min(k, s[b + F_VP])
    s[b + F_VP] -= x
    s[b + F_VP_LOST] += x


@kernel
def trust_loss(s, p, k):
    b = pb(p)
    if k > s[b + F_TRUST]:
        short = k - s[b + F_TRUST]
        s[b + F_TRUST] = 0
        lose_vp(s, p, TRUST_SHORT_VP * short)
    else:
        s[b + F_TRUST] -= k


@kernel
def overflow(s):
    s[G_OVERFLOWS] += 1
    order = turn_order_code(s)
    for i in range(s[H_NPLAYERS]):
        trust_loss(s, seat_at(order, i), OVERFLOW_LOSS)


@kernel(per_type=True)
def trust_gain(s, p, k):
    """R-C4: above 30 the gainer stops at 30, then everyone loses 10 (option: keep the excess)."""
    b = pb(p)
    if s[O_TRUST_OVERFLOW] == 0:
        if s[b + F_TRUST] + k > TRUST_MAX:
            s[b + F_TRUST] = TRUST_MAX
            overflow(s)
        else:
            s[b + F_TRUST] += k
    else:
        s[b + F_TRUST] += k
        while s[b + F_TRUST] > TRUST_MAX:
            overflow(s)


@kernel(per_type=True)
def take_cubes(s, q, k):
    """Take up to ``k`` cubes from ``q`` (hand first, then bid cubes); returns how many."""
    b = pb(q)
    x = min(k, s[b + F_CUBES])
    s[b + F_CUBES] -= x
    if s[b + F_PEND_CUBES] > s[b + F_CUBES]:
        s[b + F_PEND_CUBES] = s[b + F_CUBES]
    y = min(k - x, s[b + F_BID_CUBES])
    s[b + F_BID_CUBES] -= y
    if y > 0 or (x > 0 and s[G_PHASE] == PH_AUCTION):
        s[G_RECOUNT] = 1
    s[G_SUPPLY] += x + y
    return x + y


@kernel
def exhaustion_event(s):
    """R-C2: every player returns 2 cubes; 3 VP per cube a player cannot return."""
    s[G_EXHAUST] += 1
    order = turn_order_code(s)
    for i in range(s[H_NPLAYERS]):
        q = seat_at(order, i)
        got = take_cubes(s, q, EXHAUST_CUBES)
        if got < EXHAUST_CUBES:
            lose_vp(s, q, EXHAUST_SHORT_VP * (EXHAUST_CUBES - got))


@kernel
def gain_soldiers(s, p, k):
    while s[G_SUPPLY] < k:
        before = s[G_SUPPLY]
        exhaustion_event(s)
        if s[G_SUPPLY] == before:
            break
    x = min(k, s[G_SUPPLY])
    s[G_SUPPLY] -= x
    s[pb(p) + F_CUBES] += x


@kernel
def pay_cubes(s, p, k):
    """A policy's cube payment: what the player has (option: 3 VP per missing cube)."""
    got = take_cubes(s, p, k)
    if got < k and s[O_SOLDIER_PAY] == 1:
        lose_vp(s, p, EXHAUST_SHORT_VP * (k - got))


@kernel
def draw_tribute(s, p):
    """R-C5: a private Tribute draw; an empty deck gives 3 VP instead."""
    t = pick_weighted(s, CH_TRIBUTE, TRIB_DECK, N_TRIB)
    if t < 0:
        gain_vp(s, p, EMPTY_TRIBUTE_VP, F_VP_OTHER)
    else:
        s[pb(p) + F_TRIB + t] += 1


# ============================================================================ work stack


@kernel(per_type=True)
def push(s, kind, val, p):
    i = s[G_STACK_N]
    if i >= STACK_CAP:
        raise ValueError("emperors_choice: effect stack full")
    s[STACK + 3 * i] = kind
    s[STACK + 3 * i + 1] = val
    s[STACK + 3 * i + 2] = p
    s[G_STACK_N] = i + 1


@kernel
def push_option(s, e, o, p):
    """Push the atoms of option ``o`` of effect ``e`` so that they run left to right."""
    base = DAT + D_EFF + e * EFF_SIZE + 1 + o * MAX_ATOMS * 2
    for a in range(MAX_ATOMS - 1, -1, -1):
        kind = s[base + 2 * a]
        if kind != 0:
            push(s, kind, s[base + 2 * a + 1], p)


@kernel
def get_tile(s, p, t):
    b = pb(p)
    if JADE <= t <= SEAL:
        if s[O_IMM_TIMING] == 1 or s[b + F_STEP2] == 1:
            push(s, AT_IMM, t, p)  # R-C8: after own step 2, at once
        else:
            s[b + F_PENDING + t] += 1
    else:
        s[b + F_TAB + t] += 1


@kernel
def jade_targets(s, p):
    m = 0
    for i in range(N_TREASURE):
        if s[TREASURE + i] != p:
            m |= 1 << i
    return m


@kernel
def bid_effect(s, c, p):
    """R-A3: the bid-time effect of card ``c`` shown by ``p``."""
    be = cd(s, c, CD_BID)
    if be == BE_TRUST_PLUS_1:
        trust_gain(s, p, 1)
    elif be == BE_EUNUCH:
        trust_loss(s, p, 2)
        draw_tribute(s, p)


@kernel
def bid_fx_kinds(s, p):
    """How many kinds of bid-time effect are still waiting (``BID_FX``: only cards of the
    bid bidder ``p`` just confirmed, which stay in ``p``'s display while they wait)."""
    m = 0
    k = 0
    cards = cards_at(s, LOC_BID + p)
    while cards != 0:
        c = lowest_card(cards)
        cards &= cards - 1
        if s[BID_FX + c] == 1:
            bit = 1 << cd(s, c, CD_BID)
            if not m & bit:
                m |= bit
                k += 1
    return k


@kernel
def starting_bonus_draw(s, i):
    """Setup step 11: the ``i``-th player from the start player draws a Starting Bonus tile
    (uniform among those not drawn yet) and resolves it before the next player draws."""
    n = s[H_NPLAYERS]
    q = (s[G_START] + i) % n
    used = 0
    for x in range(n):
        if s[pb(x) + F_BONUS_TILE] > 0:
            used |= 1 << (s[pb(x) + F_BONUS_TILE] - 1)
    r = choose(s, CH_BONUS, N_SB - i)
    t = -1
    for j in range(N_SB):
        if not (used >> j) & 1:
            if r == 0:
                t = j
                break
            r -= 1
    s[pb(q) + F_BONUS_TILE] = t + 1
    if i + 1 < n:
        push(s, AT_SB_DRAW, i + 1, (q + 1) % n)
    push(s, AT_EFFECT, EFF_SB + t, q)


@kernel
def run_atom(s, kind, val, p):
    """Run one atom; a decision it needs is left in G_DECISION."""
    b = pb(p)
    if kind == AT_GOLD:
        s[b + F_GOLD] += val
    elif kind == AT_SOLDIERS:
        gain_soldiers(s, p, val)
    elif kind == AT_TRUST:
        trust_gain(s, p, val)
    elif kind == AT_VP:
        gain_vp(s, p, val, F_VP_OTHER)
    elif kind == AT_PALACE_UP:
        for _ in range(val):
            push(s, AT_LEVEL, 0, p)
    elif kind == AT_LEVEL:
        if s[b + F_PALACE] < N_LEVELS:  # levels beyond the top are lost
            s[b + F_PALACE] += 1
            set_decision(s, DK_SIDE, p)
    elif kind == AT_BONUS_CAV:
        m = cards_at(s, LOC_BOX)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            if cd(s, c, CD_KIND) == CK_BONUS:
                move_card(s, c, LOC_HAND + p)
                s[KNOWN + c] = 1
                break
    elif kind == AT_QIN_TILE:
        t = draw_qin_tile(s)
        if t >= 0:
            get_tile(s, p, t)
    elif kind == AT_QIN_DRAW2:
        t1 = draw_qin_tile(s)
        t2 = draw_qin_tile(s) if t1 >= 0 else -1
        if t1 >= 0 and t2 < 0:
            get_tile(s, p, t1)
        elif t1 >= 0:
            if t1 == t2:
                s[BAG + t2] += 1
                get_tile(s, p, t1)
            else:
                s[G_KEEP0] = t1
                s[G_KEEP1] = t2
                set_decision(s, DK_KEEP, p)
    elif kind == AT_CHARACTER:
        c = draw_card(s)
        if c >= 0:
            move_card(s, c, LOC_HAND + p)
            s[KNOWN + c] = 0
    elif kind == AT_EFFECT:
        if s[DAT + D_EFF + val * EFF_SIZE] > 1:
            s[G_PEND_EFF] = val
            set_decision(s, DK_OPTION, p)
        else:
            push_option(s, val, 0, p)
    elif kind == AT_TRUST_LOSS:
        trust_loss(s, p, val)
    elif kind == AT_TRIBUTE:
        draw_tribute(s, p)
    elif kind == AT_REVEAL:
        s[G_REVEAL_ITEM] = val
        if any_reveal(s, p, s[DAT + D_POLICY + val]):
            set_decision(s, DK_REVEAL, p)
        else:
            score_revealed(s, p, val)
    elif kind == AT_IMM:
        s[REMOVED + val] += 1
        if val == MESSENGER:
            trust_gain(s, p, MESSENGER_TRUST)
        elif val == NUGGET:
            s[b + F_GOLD] += NUGGET_GOLD
        elif val == JADE:
            m = jade_targets(s, p)
            if m != 0:
                set_decision(s, DK_JADE, p)
        elif val == SEAL:
            s[G_SEAL_USES] += 1
            set_decision(s, DK_SEAL, p)
    elif kind == AT_BID_EFFECTS:
        bid_effect(s, val, p)
    elif kind == AT_BID_NEXT:
        # D-A4: two kinds of effect still waiting -> the bidder picks the next card; one
        # kind left -> the rest in card-id order (the order among equal effects changes nothing)
        if bid_fx_kinds(s, p) >= 2:
            set_decision(s, DK_ORDER, p)
        else:
            m = cards_at(s, LOC_BID + p)
            while m != 0:
                c = lowest_card(m)
                m &= m - 1
                if s[BID_FX + c] == 1:
                    s[BID_FX + c] = 0
                    bid_effect(s, c, p)
    elif kind == AT_SB_DRAW:
        starting_bonus_draw(s, val)


# ============================================================================ policies


@kernel
def reveal(s, p, what):
    """Compulsory public reveals (D#36): defence (0), lineage (1) cards become known."""
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if (what == 0 and cd(s, c, CD_DEFENCE) > 0) or (what == 1 and cd(s, c, CD_LINEAGE) > 0):
            s[KNOWN + c] = 1


@kernel
def reveal_qualifies(s, p, c, sid):
    """optional_subset: may card ``c`` of ``p`` still be revealed for a scoring of ``sid``?"""
    if s[LOC + c] != LOC_HAND + p or s[REVEALING + c] == 1:
        return False
    if sid == SC_BORDER or sid == SC_EXPED:
        return cd(s, c, CD_DEFENCE) > 0
    if sid == SC_LINEAGE:
        return cd(s, c, CD_LINEAGE) > 0
    shown = 0  # SC_MERIT: the two cards whose Powers count
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        x = lowest_card(m)
        m &= m - 1
        shown += s[REVEALING + x] == 1
    return shown < 2


@kernel
def any_reveal(s, p, sid):
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if reveal_qualifies(s, p, c, sid):
            return True
    return False


@kernel
def score_revealed(s, p, item):
    """optional_subset (D#36 alternative): score policy side ``item`` (card * 2 + side) for
    ``p`` counting only the cards ``p`` revealed (``REVEALING``), then clear the flags."""
    sid = s[DAT + D_POLICY + item]
    field = F_VP_POLICY + item
    d = 0
    k = 0
    tot = 0
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if s[REVEALING + c] == 1:
            d += cd(s, c, CD_DEFENCE)
            if cd(s, c, CD_LINEAGE) > 0:
                k += 1
            tot += power(s, c, p)
            s[REVEALING + c] = 0
    if sid == SC_BORDER:
        lw = player_wall(s, p)
        if BORDER_WALL_MULT * lw + d >= s[G_BARB]:
            gain_vp(s, p, s[G_BARB] + DEFENCE_WIN_BONUS, field)
            pay_cubes(s, p, BORDER_WIN_PAY)
        else:
            gain_vp(s, p, lw // 2, field)
            pay_cubes(s, p, BORDER_LOSS_PAY)
    elif sid == SC_EXPED:
        d += player_wall(s, p) + cubes(s, p)
        if d >= s[G_BARB]:
            gain_vp(s, p, s[G_BARB] + DEFENCE_WIN_BONUS, field)
            pay_cubes(s, p, EXPED_WIN_PAY)
        else:
            gain_vp(s, p, d // 2, field)
            pay_cubes(s, p, EXPED_LOSS_PAY)
    elif sid == SC_MERIT:
        gain_vp(s, p, tot, field)
    elif sid == SC_LINEAGE:
        gain_vp(s, p, LINEAGE_VP * k, field)


@kernel
def hand_defence(s, p):
    d = 0
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        d += cd(s, c, CD_DEFENCE)
    return d


@kernel
def remove_tiles(s, p, t, k):
    x = min(k, s[pb(p) + F_TAB + t])
    s[pb(p) + F_TAB + t] -= x
    s[REMOVED + t] += x
    return x


@kernel
def score_side(s, card, side, chooser, final):
    """Score one policy side for every player in Turn Order (spec 1.10, D#55)."""
    sid = s[DAT + D_POLICY + 2 * card + side]
    field = F_VP_POLICY + 2 * card + side
    n = s[H_NPLAYERS]
    order = turn_order_code(s)
    if sid == SC_FRUGAL:
        if not final:
            draw_tribute(s, chooser)
        return
    if (
        s[O_REVEAL] == 1
        and not final
        and (sid == SC_BORDER or sid == SC_EXPED or sid == SC_MERIT or sid == SC_LINEAGE)
    ):
        # optional_subset: each player in Turn Order picks the cards to reveal (DK_REVEAL),
        # then scores with those only; pushed last-first so that they run in Turn Order.
        # (At the final scoring nothing is left to hide and revealing never costs VP, so the
        # reveal stays compulsory there.)
        for i in range(n - 1, -1, -1):
            push(s, AT_REVEAL, 2 * card + side, seat_at(order, i))
        return
    if sid == SC_CENTRAL:
        for i in range(n):
            p = seat_at(order, i)
            gain_vp(s, p, cubes(s, p), field)
        m = 0
        for p in range(n):
            m = max(m, cubes(s, p))
        if m > 0:
            for i in range(n):
                p = seat_at(order, i)
                if cubes(s, p) == m:
                    pay_cubes(s, p, min(CENTRAL_PAY, m))
                    s[pb(p) + F_GOLD] += CENTRAL_GOLD
        return
    for i in range(n):
        p = seat_at(order, i)
        b = pb(p)
        if sid == SC_DECENTRAL:
            gain_vp(s, p, DECENTRAL_VP * castles_eff(s, p), field)
        elif sid == SC_LEGAL or sid == SC_CONF:
            t = LEGAL if sid == SC_LEGAL else CONF
            k = s[b + F_TAB + t]
            gain_vp(s, p, s[DAT + D_TIER + min(k, 3)], field)
            if k > 0:
                trust_gain(s, p, k)
                remove_tiles(s, p, t, 1)
        elif sid == SC_EXTRAV:
            gain_vp(
                s,
                p,
                EXTRAV_CANAL_VP * s[b + F_TAB + CANAL] + EXTRAV_WALL_VP * player_wall(s, p),
                field,
            )
        elif sid == SC_BORDER:
            reveal(s, p, 0)
            lw = player_wall(s, p)
            if BORDER_WALL_MULT * lw + hand_defence(s, p) >= s[G_BARB]:
                gain_vp(s, p, s[G_BARB] + DEFENCE_WIN_BONUS, field)
                pay_cubes(s, p, BORDER_WIN_PAY)
            else:
                gain_vp(s, p, lw // 2, field)
                pay_cubes(s, p, BORDER_LOSS_PAY)
        elif sid == SC_EXPED:
            reveal(s, p, 0)
            d = player_wall(s, p) + cubes(s, p) + hand_defence(s, p)
            if d >= s[G_BARB]:
                gain_vp(s, p, s[G_BARB] + DEFENCE_WIN_BONUS, field)
                pay_cubes(s, p, EXPED_WIN_PAY)
            else:
                gain_vp(s, p, d // 2, field)
                pay_cubes(s, p, EXPED_LOSS_PAY)
        elif sid == SC_MERIT:
            b1, c1, b2, c2 = -1, -1, -1, -1
            m = cards_at(s, LOC_HAND + p)
            while m != 0:
                c = lowest_card(m)
                m &= m - 1
                v = power(s, c, p)
                if v > b1:
                    b2, c2 = b1, c1
                    b1, c1 = v, c
                elif v > b2:
                    b2, c2 = v, c
            tot = 0
            if c1 >= 0:
                tot += b1
                s[KNOWN + c1] = 1
            if c2 >= 0:
                tot += b2
                s[KNOWN + c2] = 1
            gain_vp(s, p, tot, field)
        elif sid == SC_LINEAGE:
            reveal(s, p, 1)
            k = 0
            m = cards_at(s, LOC_HAND + p)
            while m != 0:
                c = lowest_card(m)
                m &= m - 1
                k += cd(s, c, CD_LINEAGE) > 0
            gain_vp(s, p, LINEAGE_VP * k, field)
        elif sid == SC_BURN:
            if s[b + F_TAB + BOOK] == 0:
                gain_vp(s, p, BURNING_VP, field)
        elif sid == SC_PRESERVE:
            gain_vp(s, p, PRESERVE_VP * s[b + F_TAB + BOOK], field)
        elif sid == SC_TOUR or sid == SC_PARADE:
            tot = 0
            kinds = 0
            bonus = 0
            for j in range(5):
                k = s[b + F_TAB + CAR1 + j]
                tot += k
                if k > 0:
                    kinds += 1
                if sid == SC_PARADE and k >= 2:
                    bonus += s[DAT + D_PARADE + min(k, 5)]
            if sid == SC_TOUR:
                bonus = s[DAT + D_TOUR + min(kinds, 5)]
            gain_vp(s, p, tot + bonus, field)
    if sid == SC_BURN or sid == SC_PRESERVE:
        for i in range(n):
            p = seat_at(order, i)
            lost = remove_tiles(s, p, BOOK, s[pb(p) + F_TAB + BOOK])
            if sid == SC_PRESERVE and lost > 0:
                draw_tribute(s, p)


@kernel
def score_policy(s, card, chooser):
    """R-D3: take the Tributes under the card, score it for all, place a disc, reset at 6."""
    for t in range(N_TRIB):
        s[pb(chooser) + F_TRIB + t] += s[UNDER + card * N_TRIB + t]
        s[UNDER + card * N_TRIB + t] = 0
    side = s[POLICY + 2 * card]
    score_side(s, card, side, chooser, False)
    s[SCORED_BY_SIDE + 2 * card + side] += 1
    s[G_POLICIES_SCORED] += 1
    s[POLICY + 2 * card + 1] = 1
    s[G_DISCS] += 1
    if s[G_DISCS] == MAX_DISCS:
        free = -1
        for c in range(N_POLICY):
            if s[POLICY + 2 * c + 1] == 0:
                free = c
        t = pick_weighted(s, CH_TRIBUTE, TRIB_DECK, N_TRIB)
        if t >= 0 and free >= 0:
            s[UNDER + free * N_TRIB + t] += 1
        for c in range(N_POLICY):
            s[POLICY + 2 * c + 1] = 0
        s[G_DISCS] = 0


@kernel
def flip_policy(s, card):
    s[POLICY + 2 * card] = 1 - s[POLICY + 2 * card]


# ============================================================================ setup


@kernel
def fill_display(s):
    """R-S1: tiles one at a time, set by set; Barbarians raise the strength and are replaced."""
    n = s[H_NPLAYERS]
    for i in range(MAX_SETS):
        for t in range(N_TILE):
            s[SETS + i * N_TILE + t] = 0
    s[G_SETS_TAKEN] = 0
    for i in range(n):
        size = s[DAT + D_SETS + pidx(s) * MAX_SETS + i]
        for _ in range(size):
            t = draw_qin_tile(s)
            if t >= 0:
                s[SETS + i * N_TILE + t] += 1


@kernel
def fill_recruit(s):
    for i in range(MAX_RECRUIT):
        c = s[RECRUIT + i]
        if c >= 0:
            move_card(s, c, LOC_DISCARD)
            s[RECRUIT + i] = -1
    for i in range(s[DAT + D_RECRUIT + pidx(s)]):
        c = draw_card(s)
        if c < 0:
            break
        move_card(s, c, LOC_DISPLAY)
        s[KNOWN + c] = 1
        s[RECRUIT + i] = c


@nb.njit(cache=True)
def new_state_forced(seed, n, options, log, nlog):
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, seed, n)
    for i in range(
        N_OPT + D_SIZE
    ):  # a loop, not a slice assignment: its copy runs as one block move
        s[OPT + i] = options[i]
    for i in range(nlog):
        s[LOG + i] = log[i]
    s[G_FORCED_N] = nb.int32(nlog)
    s[G_ROUND] = 1
    s[G_BARB] = BARB_START
    for c in range(MAX_RECRUIT):
        s[RECRUIT + c] = -1
    for t in range(N_TILE):
        s[BAG + t] = s[DAT + D_BAG + t]
    for t in range(N_TRIB):
        s[TRIB_DECK + t] = s[DAT + D_TRIB_N + t]
    for i in range(N_TREASURE):
        s[TREASURE + i] = -1
    s[G_SUPPLY] = pool(s)
    for c in range(ncards(s)):
        s[LOC + c] = LOC_DECK if cd(s, c, CD_KIND) == CK_DECK else LOC_BOX
    sync_card_sets(s)
    # 4: players; S-Carriages dealt to seats 0..n-1 (D#58)
    cars = np.zeros(5, np.int32)
    for j in range(5):
        cars[j] = 1
    for p in range(n):
        b = pb(p)
        s[b + F_VP] = s[DAT + D_START]
        s[b + F_TRUST] = s[DAT + D_START + 1]
        s[b + F_PALACE] = s[DAT + D_START + 2]
        s[b + F_GOLD] = s[DAT + D_START + 3]
        s[b + F_TAB + CASTLE] = s[DAT + D_START + 5]
        take_k = s[DAT + D_START + 4]
        s[b + F_CUBES] = take_k
        s[G_SUPPLY] -= take_k
        j = -1  # uniform among the S-Carriages left
        left = 0
        for q in range(5):
            left += cars[q]
        r = choose(s, CH_CARRIAGE, left)
        for q in range(5):
            if cars[q] == 1:
                if r == 0:
                    j = q
                    break
                r -= 1
        cars[j] = 0
        s[b + F_TAB + CAR1 + j] += 1
        s[b + F_START_CAR] = j + 1
        got2, got3 = False, False
        m = cards_at(s, LOC_BOX)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            k = cd(s, c, CD_KIND)
            if (k == CK_START2 and not got2) or (k == CK_START3 and not got3):
                move_card(s, c, LOC_HAND + p)
                s[KNOWN + c] = 1
                if k == CK_START2:
                    got2 = True
                else:
                    got3 = True
    # 5: policy row
    for c in range(N_POLICY):
        s[POLICY + 2 * c] = choose(s, CH_SIDES, 2) if s[O_POLICY_START] == 1 else 0
    # 8: recruitment display; 9: tile display
    fill_recruit(s)
    fill_display(s)
    # 10: start player; 11: Starting Bonus tiles in order from the start player
    s[G_START] = choose(s, CH_START, n)
    s[G_FIRST_START] = s[G_START]
    s[G_DECREE_UP] = 3
    s[G_WD_UP] = (1 << N_WD) - 1
    s[G_PHASE] = PH_SETUP
    if s[O_BONUS_MODE] == 0:
        push(s, AT_SB_DRAW, 0, s[G_START])  # draw one, resolve it, then the next player
    advance(s)
    return s


@nb.njit(cache=True)
def new_state(seed, n, options):
    return new_state_forced(seed, n, options, np.zeros(0, np.int32), 0)


# ============================================================================ auction


@kernel
def declared_now(s, p):
    tot = s[pb(p) + F_BID_CUBES]
    m = cards_at(s, LOC_BID + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        tot += power(s, c, p)
    return tot


@kernel
def cmax_now(s):
    if s[O_CMAX_SCOPE] == 0:
        return s[G_CMAX]
    m = 0
    for p in range(s[H_NPLAYERS]):
        if s[pb(p) + F_PASSED] == 0:
            m = max(m, count_loc(s, LOC_BID + p))
    return m


@kernel
def pending_total(s, p):
    """Bid total if the items being added were confirmed now."""
    b = pb(p)
    tot = s[b + F_BID_CUBES] + s[b + F_PEND_CUBES]
    m = cards_at(s, LOC_BID + p) | cards_at(s, LOC_PEND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        tot += power(s, c, p)
    return tot


@kernel
def begin_auction(s):
    n = s[H_NPLAYERS]
    s[G_PHASE] = PH_AUCTION
    s[G_CMAX] = 0
    s[G_HIGH] = 0
    s[G_ACTIVE] = n
    s[G_FIRST] = 1
    s[G_RECOUNT] = 0
    s[G_LAST] = (s[G_START] + n - 1) % n
    for p in range(n):
        b = pb(p)
        s[b + F_PASSED] = 0
        s[b + F_DECLARED] = 0
        s[b + F_TILE] = 0
        s[b + F_STEP2] = 0


@kernel
def auction_turn(s):
    n = s[H_NPLAYERS]
    if s[G_ACTIVE] == 0:
        begin_management(s)
        return
    p = (s[G_LAST] + 1) % n
    while s[pb(p) + F_PASSED] == 1:
        p = (p + 1) % n
    s[G_LAST] = p
    if s[O_CUBE_LOSS] == 0:
        if s[G_RECOUNT] == 1:  # R-A8: recount every active bid as the next turn begins
            s[G_RECOUNT] = 0
            high = 0
            for q in range(n):
                if s[pb(q) + F_PASSED] == 0:
                    s[pb(q) + F_DECLARED] = declared_now(s, q)
                    high = max(high, s[pb(q) + F_DECLARED])
            s[G_HIGH] = high
    else:
        s[pb(p) + F_DECLARED] = declared_now(s, p)
    if s[G_ACTIVE] == 1:
        do_pass(s, p)
        return
    if s[G_FIRST] == 1 and p == s[G_START]:
        if count_loc(s, LOC_HAND + p) == 0 and s[pb(p) + F_CUBES] == 0:
            s[G_FIRST] = 0
            do_pass(s, p)
            return
    set_decision(s, DK_BID, p)


@kernel(inline=True)
def power_below(s, p, loc, upper):
    """The largest Power (for seat p) below ``upper`` among the cards at ``loc``, and how
    many of them have it; (-1, 0) if none."""
    v = -1
    cnt = 0
    m = cards_at(s, loc)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        x = power(s, c, p)
        if x < upper:
            if x > v:
                v = x
                cnt = 1
            elif x == v:
                cnt += 1
    return v, cnt


@kernel
def lost_rank_value(s, p, m):
    """Power of the item at rank m among p's displayed items (-1 if fewer than m items):
    the m-th largest Power counting equal ones, found by walking the distinct values down."""
    cubes_v = s[pb(p) + F_BID_CUBES]
    upper = np.int64(1) << 62
    left = m
    while True:
        v, cnt = power_below(s, p, LOC_BID + p, upper)  # the cube group counts as one item more
        if cubes_v > 0 and cubes_v < upper:
            if cubes_v > v:
                v = cubes_v
                cnt = 1
            elif cubes_v == v:
                cnt += 1
        if cnt == 0:
            return -1
        if cnt >= left:
            return v
        left -= cnt
        upper = v


@kernel
def lose_options(s, p, v):
    """Distinct items of power v (distinct card names, and the cube group): count, first card."""
    names = 0
    first = -1
    k = 0
    m = cards_at(s, LOC_BID + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if power(s, c, p) == v:
            bit = 1 << cd(s, c, CD_NAME)
            if not names & bit:
                names |= bit
                k += 1
                if first < 0:
                    first = c
    if s[pb(p) + F_BID_CUBES] == v and v > 0:
        k += 1
    return k, first


@kernel
def do_pass(s, p):
    """R-A5: Turn Order tile m, lose the item at rank m, the rest back to hand, a Withdrawal tile."""
    m = s[G_ACTIVE]
    b = pb(p)
    s[b + F_TILE] = m
    s[b + F_TURNS_TILE + s[G_ROUND] - 1] = m
    v = lost_rank_value(s, p, m)
    if v >= 0:
        k, first = lose_options(s, p, v)
        if k > 1:
            s[G_LOSE_V] = v
            set_decision(s, DK_LOSE, p)
            return
        if first >= 0:
            move_card(s, first, LOC_DISCARD)
        else:
            s[G_SUPPLY] += s[b + F_BID_CUBES]
            s[b + F_BID_CUBES] = 0
        s[b + F_LOST_ITEMS] += 1
    finish_pass(s, p)


@kernel
def finish_pass(s, p):
    b = pb(p)
    m = cards_at(s, LOC_BID + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        move_card(s, c, LOC_HAND + p)
    s[b + F_CUBES] += s[b + F_BID_CUBES]
    s[b + F_BID_CUBES] = 0
    s[b + F_DECLARED] = 0
    s[b + F_PASSED] = 1
    s[G_ACTIVE] -= 1
    set_decision(s, DK_WITHDRAW, p)


@kernel
def confirm_bid(s, p):
    """Move the items added to the display; bid-time effects once each (R-A3), in the
    bidder's order when they differ (D-A4: ``AT_BID_NEXT``)."""
    b = pb(p)
    push(s, AT_BID_NEXT, 0, p)
    m = cards_at(s, LOC_PEND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        if cd(s, c, CD_BID) != BE_NONE:
            s[BID_FX + c] = 1
        move_card(s, c, LOC_BID + p)
        s[KNOWN + c] = 1
    s[b + F_BID_CUBES] += s[b + F_PEND_CUBES]
    s[b + F_CUBES] -= s[b + F_PEND_CUBES]
    s[b + F_PEND_CUBES] = 0
    tot = declared_now(s, p)
    s[b + F_DECLARED] = tot
    s[G_HIGH] = tot
    s[G_CMAX] = max(s[G_CMAX], count_loc(s, LOC_BID + p))
    s[G_FIRST] = 0


# ============================================================================ management


@kernel
def begin_management(s):
    s[G_PHASE] = PH_MGMT
    s[G_MG_IDX] = 0
    s[G_MG_STEP] = 0
    s[G_HIGH] = 0


@kernel(inline=True)
def management_step(s):
    n = s[H_NPLAYERS]
    if s[G_MG_IDX] >= n:
        begin_decree(s)
        return
    p = holder_of_tile(s, s[G_MG_IDX] + 1)
    b = pb(p)
    st = s[G_MG_STEP]
    if st == 0:
        set_decision(s, DK_SET, p)
    elif st == 1:
        kinds = 0
        last = -1
        for t in range(JADE, SEAL + 1):
            if s[b + F_PENDING + t] > 0:
                kinds += 1
                last = t
        if kinds == 0:
            s[b + F_STEP2] = 1
            s[G_MG_STEP] = 2
        elif kinds == 1:
            s[b + F_PENDING + last] -= 1
            push(s, AT_IMM, last, p)
        else:
            set_decision(s, DK_IMM, p)
    elif st == 2:
        s[b + F_GOLD] += castles_eff(s, p)
        s[G_MG_STEP] = 3
        s[G_TR_IDX] = 0
    elif st == 3:
        while s[G_TR_IDX] < N_TREASURE:
            i = s[G_TR_IDX]
            if s[TREASURE + i] == p and not (s[O_TREASURE_ONCE] == 1 and s[TR_USED + i] == 1):
                set_decision(s, DK_TREASURE, p)
                return
            s[G_TR_IDX] = i + 1
        s[G_MG_STEP] = 4
        s[G_RS_USED] = 0
    elif st == 4:
        set_decision(s, DK_RESUPPLY, p)
    else:
        s[G_MG_IDX] += 1
        s[G_MG_STEP] = 0


# ============================================================================ decree


@kernel
def decree_select(s):
    best = -1
    bp = -1
    for t in range(1, s[H_NPLAYERS] + 1):
        p = holder_of_tile(s, t)
        if s[pb(p) + F_TRUST] > best:
            best = s[pb(p) + F_TRUST]
            bp = p
    return bp


@kernel
def begin_decree(s):
    s[G_PHASE] = PH_DECREE
    s[G_DC_STEP] = 0


@kernel
def start_decree_tile(s, p, t):
    """R-D2: begin Decree tile ``t`` (0 Score + Flip, 1 Score + Tribute); its parts follow
    in the order the player picks (``decree_part``)."""
    s[G_DC_TILE] = t
    s[G_DECREE_UP] &= ~(1 << t)
    s[G_DC_FLAGS] = DC_TRIBUTE if t == 0 else DC_FLIP  # the part the tile lacks counts as done


@kernel
def decree_part(s):
    """R-D2 / D#47: the next part of the Decree tile being carried out, in the player's order.

    Before the scoring the player picks any part left (``DK_DECREE1``): the +3 VP, the
    Tribute draw (Score + Tribute), a flip (Score + Flip) or the scoring itself.  Once the
    scoring and everything it started (reveals under ``optional_subset``) is over, the +3 VP
    and the Tribute draw left happen at once: both only add (VP, a card or the empty deck's
    3 VP) and nothing can take VP away before the tile ends, so their order among themselves
    and against a later flip changes nothing; the flip left is asked (a card, or none).
    Returns True when the tile is done.
    """
    p = s[G_DC_P]
    f = s[G_DC_FLAGS]
    if f & DC_SCORED:
        if not f & DC_VP:
            gain_vp(s, p, DECREE_VP, F_VP_DECREE)
            f |= DC_VP
        if not f & DC_TRIBUTE:
            draw_tribute(s, p)
            f |= DC_TRIBUTE
        s[G_DC_FLAGS] = f
        if f == DC_ALL:
            return True
    set_decision(s, DK_DECREE1, p)
    return False


@kernel
def decree_step(s):
    st = s[G_DC_STEP]
    cost = s[DAT + D_DECREE_COST + s[G_ROUND] - 1]
    if st == 0:
        p = decree_select(s)
        s[G_DC_P] = p
        s[pb(p) + F_DECREES] += 1
        s[G_DC_STEP] = 1
        set_decision(s, DK_DECREE_TILE, p)
    elif st == 1 or st == 4:  # a tile under way (step 1: chosen by DK_DECREE_TILE)
        if decree_part(s):
            s[G_DC_STEP] = st + 1
    elif st == 2 or st == 5:
        trust_loss(s, s[G_DC_P], cost)
        s[G_DC_STEP] = st + 1
    elif st == 3:
        p = decree_select(s)
        s[G_DC_P] = p
        s[pb(p) + F_DECREES] += 1
        s[G_DC_STEP] = 4
        start_decree_tile(s, p, 0 if s[G_DECREE_UP] & 1 else 1)
    elif st == 6:
        if s[G_ROUND] == MAX_ROUNDS:
            final_scoring(s)
        else:
            setup_phase(s)


@kernel
def setup_phase(s):
    n = s[H_NPLAYERS]
    fill_display(s)
    s[G_START] = holder_of_tile(s, n)
    s[G_WD_UP] = (1 << N_WD) - 1
    s[G_DECREE_UP] = 3
    fill_recruit(s)
    for i in range(N_TREASURE):
        s[TR_USED + i] = 0
    s[G_ROUND] += 1
    begin_auction(s)


# ============================================================================ final scoring


@kernel
def end_card_vp(s, p):
    v = 0
    m = cards_at(s, LOC_HAND + p)
    while m != 0:
        c = lowest_card(m)
        m &= m - 1
        e = cd(s, c, CD_END)
        k = cd(s, c, CD_END_K)
        if e == EE_FLAT:
            v += k
        elif e == EE_PER_CASTLE:
            v += k * castles_eff(s, p)
        elif e == EE_PER_PHILO:
            v += k * (s[pb(p) + F_TAB + LEGAL] + s[pb(p) + F_TAB + CONF])
    return v


@kernel
def final_scoring(s):
    """Spec section 4, steps 1-7, then the tie-break keys."""
    n = s[H_NPLAYERS]
    s[G_IN_FINAL] = 1
    for c in range(N_POLICY):
        s[POLICY + 2 * c + 1] = 0
    s[G_DISCS] = 0
    for c in range(N_POLICY):
        score_side(s, c, s[POLICY + 2 * c], -1, True)
    for p in range(n):
        b = pb(p)
        gain_vp(s, p, s[b + F_TRUST] // 2, F_VP_TRUST)
        gain_vp(s, p, s[DAT + D_PAL_VP + s[b + F_PALACE]], F_VP_PALACE)
        gain_vp(s, p, s[b + F_GOLD], F_VP_GOLD)
        gain_vp(s, p, end_card_vp(s, p), F_VP_CHARS)
        tv = 0
        for i in range(N_TREASURE):
            if s[TREASURE + i] == p:
                tv += s[DAT + D_TREASURE_VP + i]
        gain_vp(s, p, tv, F_VP_TREASURE)
        tr = 0
        for t in range(N_TRIB):
            tr += s[b + F_TRIB + t] * s[DAT + D_TRIB_VP + t]
        gain_vp(s, p, tr, F_VP_TRIBUTE)
        s[b + F_SCORE] = s[b + F_VP]
        s[b + F_TB_CARDS] = count_loc(s, LOC_HAND + p)
        top = 0
        m = cards_at(s, LOC_HAND + p)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            top = max(top, power(s, c, p))
        s[b + F_TB_POWER] = top
    s[G_PHASE] = PH_OVER
    s[G_DECISION] = DK_NONE
    s[H_CURRENT] = NO_PLAYER


# ============================================================================ the machine


@kernel(inline=True)
def advance(s):
    while True:
        if s[G_DECISION] != DK_NONE or s[G_PHASE] == PH_OVER:
            return
        if s[G_STACK_N] > 0:
            i = s[G_STACK_N] - 1
            s[G_STACK_N] = i
            run_atom(s, s[STACK + 3 * i], s[STACK + 3 * i + 1], s[STACK + 3 * i + 2])
            continue
        ph = s[G_PHASE]
        if ph == PH_SETUP:
            begin_auction(s)
        elif ph == PH_AUCTION:
            auction_turn(s)
        elif ph == PH_MGMT:
            management_step(s)
        elif ph == PH_DECREE:
            decree_step(s)


@kernel
def is_terminal(s):
    return s[H_CURRENT] == NO_PLAYER


@kernel
def raise_cost(s, k):
    return s[DAT + D_RAISE_COST + k - 1]


@kernel
def legal_mask(s, out):
    clear_mask(out, NUM_ACTIONS)
    if s[H_CURRENT] == NO_PLAYER:
        return 0
    p = s[H_CURRENT]
    b = pb(p)
    kind = s[G_DECISION]
    count = 0
    if kind == DK_BID:
        first = s[G_FIRST] == 1 and p == s[G_START]
        if not first:
            out[A_PASS] = True
            count += 1
        # one pass over the cards: the hand (offered unless the display is full), the
        # displayed and pending cards (their number, and the bid total pending_total gives)
        pend_set = cards_at(s, LOC_PEND + p)
        m = cards_at(s, LOC_BID + p) | pend_set
        shown = card_count(m)
        tot = s[b + F_BID_CUBES] + s[b + F_PEND_CUBES]
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            tot += power(s, c, p)
        if shown + 1 <= cmax_now(s) + 1:
            m = cards_at(s, LOC_HAND + p)
            count += card_count(m)
            while m != 0:
                out[A_CARD + lowest_card(m)] = True
                m &= m - 1
        if s[b + F_CUBES] - s[b + F_PEND_CUBES] > 0:
            out[A_CUBE] = True
            count += 1
        adding = s[b + F_PEND_CUBES] > 0 or pend_set != 0
        if adding and tot > s[G_HIGH]:
            out[A_CONFIRM] = True
            count += 1
    elif kind == DK_LOSE:
        v = s[G_LOSE_V]
        names = 0
        m = cards_at(s, LOC_BID + p)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            if power(s, c, p) == v:
                bit = 1 << cd(s, c, CD_NAME)
                if not names & bit:
                    names |= bit
                    out[A_CARD + c] = True
                    count += 1
        if s[b + F_BID_CUBES] == v:
            out[A_CUBE] = True
            count += 1
    elif kind == DK_WITHDRAW:
        for i in range(N_WD):
            if (s[G_WD_UP] >> i) & 1:
                out[A_WD + i] = True
                count += 1
    elif kind == DK_SIDE or kind == DK_KEEP:
        out[A_OPT] = True
        out[A_OPT + 1] = True
        count = 2
    elif kind == DK_ORDER:
        # D-A4: the card whose effect runs next; cards with the same effect are one choice
        # (the lowest card id stands for them)
        seen = 0
        for c in range(ncards(s)):
            if s[BID_FX + c] == 1:
                bit = 1 << cd(s, c, CD_BID)
                if not seen & bit:
                    seen |= bit
                    out[A_CARD + c] = True
                    count += 1
    elif kind == DK_OPTION:
        for o in range(s[DAT + D_EFF + s[G_PEND_EFF] * EFF_SIZE]):
            out[A_OPT + o] = True
            count += 1
    elif kind == DK_TREASURE:
        out[A_OPT] = True
        out[A_OPT + 1] = True
        count = 2
    elif kind == DK_SET:
        for i in range(s[H_NPLAYERS]):
            if not (s[G_SETS_TAKEN] >> i) & 1:
                out[A_SET + i] = True
                count += 1
    elif kind == DK_IMM:
        for t in range(JADE, SEAL + 1):
            if s[b + F_PENDING + t] > 0:
                out[A_IMM + t - JADE] = True
                count += 1
    elif kind == DK_JADE:
        m = jade_targets(s, p)
        for i in range(N_TREASURE):
            if (m >> i) & 1:
                out[A_TREASURE + i] = True
                count += 1
    elif kind == DK_SEAL or kind == DK_DECREE1:
        # DK_DECREE1 (R-D2): before the scoring any part left -- score, +3 VP (A_OPT), draw
        # the Tribute (A_OPT + 1), flip; after it only the flip left, or no flip (A_END)
        flags = s[G_DC_FLAGS] if kind == DK_DECREE1 else 0
        if not flags & DC_SCORED:
            for c in range(N_POLICY):
                if s[POLICY + 2 * c + 1] == 0:
                    out[A_SCORE + c] = True
                    count += 1
        if not flags & DC_FLIP:
            for c in range(N_POLICY):
                out[A_FLIP + c] = True
                count += 1
        if kind == DK_DECREE1:
            if flags & DC_SCORED:
                out[A_END] = True
                count += 1
            else:
                if not flags & DC_VP:
                    out[A_OPT] = True
                    count += 1
                if not flags & DC_TRIBUTE:
                    out[A_OPT + 1] = True
                    count += 1
    elif kind == DK_RESUPPLY:
        out[A_END] = True
        count = 1
        used = s[G_RS_USED]
        gold = s[b + F_GOLD]
        if not used & 1:
            for i in range(MAX_RECRUIT):
                c = s[RECRUIT + i]
                if c >= 0 and cd(s, c, CD_COST) <= gold:
                    out[A_RECRUIT + i] = True
                    count += 1
        if not used & 2:
            for k in range(1, min(gold, pool(s)) + 1):
                out[A_HIRE + k - 1] = True
                count += 1
        if not used & 4:
            for k in range(1, 4):
                if raise_cost(s, k) <= gold and s[b + F_PALACE] + k <= N_LEVELS:
                    out[A_RAISE + k - 1] = True
                    count += 1
    elif kind == DK_DECREE_TILE:
        for t in range(2):
            if (s[G_DECREE_UP] >> t) & 1:
                out[A_OPT + t] = True
                count += 1
    elif kind == DK_REVEAL:
        out[A_END] = True
        count = 1
        sid = s[DAT + D_POLICY + s[G_REVEAL_ITEM]]
        m = cards_at(s, LOC_HAND + p)
        while m != 0:
            c = lowest_card(m)
            m &= m - 1
            if reveal_qualifies(s, p, c, sid):
                out[A_CARD + c] = True
                count += 1
    return count


@kernel
def apply(s, a):
    p = s[H_CURRENT]
    b = pb(p)
    kind = s[G_DECISION]
    s[G_DECISION] = DK_NONE
    s[H_PLY] += 1
    if kind == DK_BID:
        if a == A_PASS:
            m = cards_at(s, LOC_PEND + p)
            while m != 0:
                c = lowest_card(m)
                m &= m - 1
                move_card(s, c, LOC_HAND + p)
            s[b + F_PEND_CUBES] = 0
            do_pass(s, p)
        elif a == A_CUBE:
            s[b + F_PEND_CUBES] += 1
            set_decision(s, DK_BID, p)
        elif a == A_CONFIRM:
            confirm_bid(s, p)
        else:
            move_card(s, a - A_CARD, LOC_PEND + p)
            set_decision(s, DK_BID, p)
    elif kind == DK_ORDER:
        c = a - A_CARD
        s[BID_FX + c] = 0
        push(s, AT_BID_NEXT, 0, p)  # then the next one (asked again while two kinds wait)
        push(s, AT_BID_EFFECTS, c, p)
    elif kind == DK_LOSE:
        if a == A_CUBE:
            s[G_SUPPLY] += s[b + F_BID_CUBES]
            s[b + F_BID_CUBES] = 0
        else:
            move_card(s, a - A_CARD, LOC_DISCARD)
        s[b + F_LOST_ITEMS] += 1
        finish_pass(s, p)
    elif kind == DK_WITHDRAW:
        i = a - A_WD
        s[G_WD_UP] &= ~(1 << i)
        s[b + F_WD_COUNT + i] += 1
        push(s, AT_EFFECT, EFF_WD + i, p)
    elif kind == DK_SIDE:
        lv = s[b + F_PALACE]
        push(s, AT_EFFECT, EFF_PAL + 2 * (lv - 1) + (a - A_OPT), p)
    elif kind == DK_KEEP:
        keep = s[G_KEEP0] if a == A_OPT else s[G_KEEP1]
        back = s[G_KEEP1] if a == A_OPT else s[G_KEEP0]
        s[BAG + back] += 1
        get_tile(s, p, keep)
    elif kind == DK_OPTION:
        push_option(s, s[G_PEND_EFF], a - A_OPT, p)
    elif kind == DK_SET:
        # R-C8 / D-M2: the set's immediate tiles are resolved in step 2, which follows at once,
        # in the player's order; so under always_instant too (nothing happens in between)
        i = a - A_SET
        s[G_SETS_TAKEN] |= 1 << i
        for t in range(N_TILE):
            k = s[SETS + i * N_TILE + t]
            s[SETS + i * N_TILE + t] = 0
            if JADE <= t <= SEAL:
                s[b + F_PENDING + t] += k
            else:
                s[b + F_TAB + t] += k
        s[G_MG_STEP] = 1
    elif kind == DK_IMM:
        t = a - A_IMM + JADE
        s[b + F_PENDING + t] -= 1
        push(s, AT_IMM, t, p)
    elif kind == DK_JADE:
        i = a - A_TREASURE
        s[TREASURE + i] = p
    elif kind == DK_SEAL:
        if a >= A_FLIP:
            flip_policy(s, a - A_FLIP)
        else:
            score_policy(s, a - A_SCORE, p)
    elif kind == DK_TREASURE:
        i = s[G_TR_IDX]
        if a == A_OPT + 1:
            s[TR_USED + i] = 1
            late = 1 if s[G_ROUND] >= 5 else 0
            push(s, AT_EFFECT, EFF_TR + 2 * i + late, p)
        s[G_TR_IDX] = i + 1
    elif kind == DK_RESUPPLY:
        if a == A_END:
            s[G_MG_STEP] = 5
        elif a >= A_RAISE:
            k = a - A_RAISE + 1
            s[G_RS_USED] |= 4
            s[b + F_GOLD] -= raise_cost(s, k)
            for _ in range(k):
                push(s, AT_LEVEL, 1, p)
        elif a >= A_HIRE:
            k = a - A_HIRE + 1
            s[G_RS_USED] |= 2
            s[b + F_GOLD] -= k
            s[b + F_HIRED] += k
            gain_soldiers(s, p, k)
        else:
            i = a - A_RECRUIT
            c = s[RECRUIT + i]
            s[G_RS_USED] |= 1
            s[b + F_GOLD] -= cd(s, c, CD_COST)
            s[RECRUIT + i] = -1
            move_card(s, c, LOC_HAND + p)
            s[KNOWN + c] = 1
            s[b + F_RECRUITS] += 1
    elif kind == DK_DECREE_TILE:
        start_decree_tile(s, p, a - A_OPT)
    elif kind == DK_REVEAL:
        if a == A_END:
            score_revealed(s, p, s[G_REVEAL_ITEM])
        else:
            s[REVEALING + a - A_CARD] = 1
            s[KNOWN + a - A_CARD] = 1  # shown to everybody
            set_decision(s, DK_REVEAL, p)
    elif kind == DK_DECREE1:
        # one part of the Decree tile; decree_step asks for the next once the stack is empty
        if a == A_END:
            s[G_DC_FLAGS] |= DC_FLIP  # no flip
        elif a == A_OPT:
            gain_vp(s, p, DECREE_VP, F_VP_DECREE)
            s[G_DC_FLAGS] |= DC_VP
        elif a == A_OPT + 1:
            draw_tribute(s, p)
            s[G_DC_FLAGS] |= DC_TRIBUTE
        elif a >= A_FLIP:
            flip_policy(s, a - A_FLIP)
            s[G_DC_FLAGS] |= DC_FLIP
        else:
            score_policy(s, a - A_SCORE, p)
            s[G_DC_FLAGS] |= DC_SCORED
    advance(s)


# ============================================================================ results


@kernel(inline=True)
def next_power_down(s, p, v, left):
    """Step through seat p's hand Powers from the highest, equal ones repeated: from the
    current value ``v`` with ``left`` more copies of it still to come, the next value and
    its copies left after it (v = -1: no more cards)."""
    if left > 0:
        return v, left - 1
    nv, cnt = power_below(s, p, LOC_HAND + p, v)
    return nv, max(cnt - 1, 0)


@kernel
def better(s, p, q):
    """1 if seat p ranks above q at the end, -1 below (spec 4: VP, cards in hand, highest
    Power (top card, or all Powers sorted by option), lower Turn Order tile)."""
    bp, bq = pb(p), pb(q)
    for f in (F_SCORE, F_TB_CARDS):
        if s[bp + f] != s[bq + f]:
            return 1 if s[bp + f] > s[bq + f] else -1
    if s[O_TIEBREAK] == 0:
        if s[bp + F_TB_POWER] != s[bq + F_TB_POWER]:
            return 1 if s[bp + F_TB_POWER] > s[bq + F_TB_POWER] else -1
    else:
        # the two hands' Powers sorted high to low, compared up to the shorter hand
        va, la = np.int64(1) << 62, 0
        vb, lb = np.int64(1) << 62, 0
        while True:
            va, la = next_power_down(s, p, va, la)
            vb, lb = next_power_down(s, q, vb, lb)
            if va < 0 or vb < 0:
                break
            if va != vb:
                return 1 if va > vb else -1
    if s[bp + F_TILE] != s[bq + F_TILE]:
        return 1 if s[bp + F_TILE] < s[bq + F_TILE] else -1
    return 0


@kernel
def returns(s, scores, wins):
    n = s[H_NPLAYERS]
    k = 0
    for p in range(n):
        scores[p] = s[pb(p) + F_SCORE]
        top = True
        for q in range(n):
            if q != p and better(s, q, p) > 0:
                top = False
        wins[p] = 1.0 if top else 0.0
        if top:
            k += 1
    for p in range(n):
        wins[p] /= k


# ============================================================================ search support


@nb.njit(cache=True)
def masked_state(s, player, hidden):
    """The state with what ``player`` cannot see masked (-1: for every seat), and the number of
    unknown cards in each hand in ``hidden``: what :func:`info_key` hashes and the observation
    tensors (observe.py) show."""
    c = s.copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    n = s[H_NPLAYERS]
    hidden[:] = 0
    for card in range(ncards(s)):
        loc = s[LOC + card]
        if (
            loc >= LOC_HAND
            and loc < LOC_HAND + MAXP
            and loc != LOC_HAND + player
            and s[KNOWN + card] == 0
        ):
            hidden[loc - LOC_HAND] += 1
            c[LOC + card] = LOC_DECK
    c[CARDS_AT:] = 0  # the card sets: derived from LOC, neither hashed nor shown
    for q in range(n):
        if q != player:
            tot = 0
            for t in range(N_TRIB):
                tot += s[pb(q) + F_TRIB + t]
                c[pb(q) + F_TRIB + t] = 0
            c[pb(q) + F_TRIB] = tot
    for card in range(N_POLICY):
        tot = 0
        for t in range(N_TRIB):
            tot += s[UNDER + card * N_TRIB + t]
            c[UNDER + card * N_TRIB + t] = 0
        c[UNDER + card * N_TRIB] = tot
    for t in range(N_TRIB):
        c[TRIB_DECK + t] = 0
    for i in range(LOG, REVEALING):  # the chance log (REVEALING, BID_FX are public)
        c[i] = 0
    c[G_LOG_N] = 0
    c[G_FORCED_N] = 0
    return c


@nb.njit(cache=True)
def info_key(s, player):
    """A 64-bit key of what ``player`` knows (sim.core contract).

    Masked: the RNG and seed words, the chance log, which unknown cards lie in the deck or
    in other hands (only how many each hand holds is public: R-C7), the values of other
    players' Tribute cards and of those under Policy cards (only counts), and the Tribute
    deck's composition.
    """
    hidden = np.zeros(MAXP, np.int64)
    c = masked_state(s, player, hidden)
    return hash64(np.int64(fnv_words(hidden, fnv_words(c[:SCRATCH], FNV_OFFSET))), player)


@kernel
def determinize(s, observer, rng):
    """Resample exactly what ``observer`` cannot see (R-C7).

    Unknown cards (the deck and other players' blind-drawn cards) are dealt again from the
    cards the observer cannot place, keeping each hand's size; other players' Tribute cards
    and those under Policy cards are dealt again from the Tribute cards the observer cannot
    place, keeping the counts; future chance draws get a fresh RNG stream.
    """
    n = s[H_NPLAYERS]
    # the unknown cards' ids in SCRATCH; their locations are shuffled in place in LOC
    k = 0
    for c in range(ncards(s)):
        loc = s[LOC + c]
        if loc == LOC_DECK or (
            loc >= LOC_HAND
            and loc < LOC_HAND + MAXP
            and loc != LOC_HAND + observer
            and s[KNOWN + c] == 0
        ):
            s[SCRATCH + k] = c
            k += 1
    for i in range(k - 1, 0, -1):
        j = rng_below(rng, 0, i + 1)
        ci = LOC + s[SCRATCH + i]
        cj = LOC + s[SCRATCH + j]
        t = s[ci]
        s[ci] = s[cj]
        s[cj] = t
    for i in range(k):
        s[SCRATCH + i] = 0
    sync_card_sets(s)
    # Tribute cards: pool of the deck, other hands and the cards under policies (counted
    # in TRIB_DECK, which ends up holding what the holders below do not get)
    for t in range(N_TRIB):
        for q in range(n):
            if q != observer:
                s[TRIB_DECK + t] += s[pb(q) + F_TRIB + t]
        for card in range(N_POLICY):
            s[TRIB_DECK + t] += s[UNDER + card * N_TRIB + t]
    # holders: other players, policy cards; the rest is the deck
    for h in range(n + N_POLICY):
        if h < n:
            if h == observer:
                continue
            off = pb(h) + F_TRIB
        else:
            off = UNDER + (h - n) * N_TRIB
        need = 0
        for t in range(N_TRIB):
            need += s[off + t]
            s[off + t] = 0
        for _ in range(need):
            tot = 0
            for t in range(N_TRIB):
                tot += s[TRIB_DECK + t]
            r = rng_below(rng, 0, tot)
            for t in range(N_TRIB):
                if r < s[TRIB_DECK + t]:
                    s[TRIB_DECK + t] -= 1
                    s[off + t] += 1
                    break
                r -= s[TRIB_DECK + t]
    rng_seed(s, H_RNG_LO, np.int64(rng_next(rng, 0) >> np.uint64(1)))
    s[G_FORCED_N] = 0


FEATURE_NAMES = (
    ("vp_decree",)
    + tuple(
        f"vp_policy_{x}"
        for x in (
            "centralization",
            "decentralization",
            "legalism",
            "confucianism",
            "extravagance",
            "frugality",
            "border_defence",
            "expedition",
            "meritocracy",
            "blood_lineage",
            "book_burning",
            "book_preservation",
            "emperors_tour",
            "emperors_parade",
        )
    )
    + (
        "vp_trust",
        "vp_palace",
        "vp_gold",
        "vp_characters",
        "vp_treasures",
        "vp_tributes",
        "vp_other",
        "vp_lost",
    )
    + tuple(f"turn_tile_{t}" for t in range(1, 6))
    + tuple(f"withdrawal_w{i}" for i in range(1, 7))
    + tuple(f"starting_bonus_sb{i}" for i in range(1, 6))
    + tuple(f"start_carriage_{i}" for i in range(1, 6))
    + (
        "first_start_player",
        "decrees",
        "palace_level",
        "wall_length",
        "recruits",
        "hired",
        "items_lost",
        "score",
        "policies_scored",
        "barbarian",
        "exhaustion_events",
        "trust_overflows",
        "seal_uses",
    )
)
N_FEATURES = len(FEATURE_NAMES)


@kernel
def features(s, out):
    """Per-seat balance features at the end of a game (``out[n, N_FEATURES]``); the last five are per game."""
    n = s[H_NPLAYERS]
    for p in range(n):
        b = pb(p)
        j = 0
        out[p, j] = s[b + F_VP_DECREE]
        j += 1
        for i in range(2 * N_POLICY):
            out[p, j] = s[b + F_VP_POLICY + i]
            j += 1
        for f in (
            F_VP_TRUST,
            F_VP_PALACE,
            F_VP_GOLD,
            F_VP_CHARS,
            F_VP_TREASURE,
            F_VP_TRIBUTE,
            F_VP_OTHER,
        ):
            out[p, j] = s[b + f]
            j += 1
        out[p, j] = -s[b + F_VP_LOST]
        j += 1
        for t in range(1, 6):
            k = 0
            for r in range(MAX_ROUNDS):
                if s[b + F_TURNS_TILE + r] == t:
                    k += 1
            out[p, j] = k
            j += 1
        for i in range(N_WD):
            out[p, j] = s[b + F_WD_COUNT + i]
            j += 1
        for i in range(5):
            out[p, j] = 1.0 if s[b + F_BONUS_TILE] == i + 1 else 0.0
            out[p, j + 5] = 1.0 if s[b + F_START_CAR] == i + 1 else 0.0
            j += 1
        j += 5
        out[p, j] = 1.0 if s[G_FIRST_START] == p else 0.0
        j += 1
        out[p, j] = s[b + F_DECREES]
        out[p, j + 1] = s[b + F_PALACE]
        out[p, j + 2] = player_wall(s, p)
        out[p, j + 3] = s[b + F_RECRUITS]
        out[p, j + 4] = s[b + F_HIRED]
        out[p, j + 5] = s[b + F_LOST_ITEMS]
        out[p, j + 6] = s[b + F_SCORE]
        out[p, j + 7] = s[G_POLICIES_SCORED]
        out[p, j + 8] = s[G_BARB]
        out[p, j + 9] = s[G_EXHAUST]
        out[p, j + 10] = s[G_OVERFLOWS]
        out[p, j + 11] = s[G_SEAL_USES]


@nb.njit(cache=True)
def provisional_scores(s, out):
    """Each seat's score if final scoring happened now (on a copy, no chance draws kept)."""
    c = s.copy()
    c[G_STACK_N] = 0
    final_scoring(c)
    for p in range(s[H_NPLAYERS]):
        out[p] = c[pb(p) + F_SCORE]


@nb.njit(cache=True)
def evaluate(s, out):
    """Leaf value in [0, 1]: a logistic of the provisional lead over the best rival."""
    n = s[H_NPLAYERS]
    sc = np.zeros(n)
    provisional_scores(s, sc)
    for p in range(n):
        best = -1e9
        for q in range(n):
            if q != p and sc[q] > best:
                best = sc[q]
        out[p] = 1.0 / (1.0 + np.exp(-(sc[p] - best) / 10.0))
