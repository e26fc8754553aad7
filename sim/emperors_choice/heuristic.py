"""The Emperor's Choice heuristic: a short plan that reads only public information.

Plan (docs/games/emperors_choice.md, "Heuristic"):

* Auction: do not fight for turn order.  The start player opens with one cube (or its
  weakest card) and everybody passes at their first chance, which keeps every Character
  card and soldier and gives the early passers the best Withdrawal tiles.  When a tie at
  the lost rank offers a choice, the cube group goes (cheaper than a card).
* Every effect choice (Withdrawal tile, palace side, '/' option, tile to keep, tile set)
  takes the largest value by a fixed price list: 1 Gold = 1 VP, a cube 0.7, a Trust
  point 0.6, a palace level its end-VP step plus 1, a bag tile 1.5, a Character card 1.5.
* Policy choices (decree, Royal Seal) score each disc-free card on a copy of the state
  and take the one with the largest own gain minus the best rival's gain (VP plus half
  the Trust), which uses only public information except the Tributes under cards, which
  the copy hands out unseen as well.  The Score+Tribute decree tile is preferred.
* Decree part order (R-D2, ``decree_choice``): the +3 VP after the scoring (never worse:
  a VP loss in the scoring stops at 0); the Tribute drawn before the scoring while the
  deck has cards (after it from an empty deck, when it is 3 VP); Score+Flip flips first
  when a disc-free card's other side scores better than every face-up side, then scores
  that card, and otherwise never flips.
* Bid-time effects (D-A4, ``bid_order_choice``): of the two extreme orders (every +1 Trust
  card first, or every Eunuch first) the one with the better own gain minus the best
  rival's gain (VP plus half the Trust, as for policies), the Trust cards first on a tie:
  that covers the Eunuch's loss at low Trust, and the Eunuch goes first when the Trust
  cards would overflow 30 and that costs the bidder more than its rivals.
* Immediate tiles (D-M2, ``immediate_choice``): the Royal Seal last, the others in tile
  order (Jade, Messenger, Nugget): they only add, and the Seal's policy choice is then
  judged on the state they leave.
* Management: use every Treasure; raise the palace by the number of levels whose end-VP
  gain plus side values exceeds their price; recruit a card with an end-game effect or
  Lineage when the Gold is there; never hire.
* Jade takes an unclaimed Treasure first, otherwise one from the VP leader.
* Reveals under ``reveal_mode = optional_subset``: reveal every card that counts (for
  Meritocracy the two largest Powers), which is what the compulsory rule does: a revealed
  card never lowers the VP of the scoring, and the policy choice above assumes it.
"""

import numba as nb
import numpy as np

from sim.core import H_CURRENT, H_NPLAYERS, argmax_masked, kernel
from sim.emperors_choice.layout import (
    A_CARD,
    A_CONFIRM,
    A_CUBE,
    A_END,
    A_FLIP,
    A_IMM,
    A_OPT,
    A_PASS,
    A_RAISE,
    A_RECRUIT,
    A_SCORE,
    A_SET,
    A_TREASURE,
    A_WD,
    AT_BONUS_CAV,
    AT_CHARACTER,
    AT_GOLD,
    AT_PALACE_UP,
    AT_QIN_DRAW2,
    AT_QIN_TILE,
    AT_SOLDIERS,
    AT_TRUST,
    AT_VP,
    BE_TRUST_PLUS_1,
    CD_BID,
    CD_COST,
    CD_DEFENCE,
    CD_END,
    CD_END_K,
    CD_LINEAGE,
    CD_POWER,
    D_EFF,
    D_PAL_VP,
    DAT,
    DC_FLIP,
    DC_SCORED,
    DC_TRIBUTE,
    DK_BID,
    DK_DECREE1,
    DK_DECREE_TILE,
    DK_IMM,
    DK_JADE,
    DK_KEEP,
    DK_LOSE,
    DK_OPTION,
    DK_ORDER,
    DK_RESUPPLY,
    DK_REVEAL,
    DK_SEAL,
    DK_SET,
    DK_SIDE,
    DK_TREASURE,
    DK_WITHDRAW,
    EE_FLAT,
    EFF_PAL,
    EFF_SIZE,
    EFF_WD,
    F_PALACE,
    F_TRUST,
    F_VP,
    G_DC_FLAGS,
    G_DECISION,
    G_KEEP0,
    G_KEEP1,
    G_PEND_EFF,
    JADE,
    MAX_ATOMS,
    MAX_RECRUIT,
    N_LEVELS,
    N_POLICY,
    N_TILE,
    N_TREASURE,
    N_TRIB,
    N_WD,
    NUM_ACTIONS,
    O_REVEAL,
    RECRUIT,
    SEAL,
    SETS,
    TREASURE,
    TRIB_DECK,
)
from sim.emperors_choice.rules import (
    apply,
    cd,
    flip_policy,
    legal_mask,
    ncards,
    pb,
    power,
    raise_cost,
    score_policy,
)

TILE_VALUE = np.array(
    [2.0, 1.0, 1.5, 1.5, 1.2, 1.2, 1.2, 1.2, 1.2, 2.0, 2.0, 2.0, 3.0, 2.4, 3.0, 3.0, 0.0, 0.0]
)


@kernel
def atom_value(s, p, kind, k):
    if kind == AT_GOLD or kind == AT_VP:
        return 1.0 * k
    if kind == AT_SOLDIERS:
        return 0.7 * k
    if kind == AT_TRUST:
        return 0.6 * k
    if kind == AT_PALACE_UP:
        lv = s[pb(p) + F_PALACE]
        top = min(N_LEVELS, lv + k)
        return s[DAT + D_PAL_VP + top] - s[DAT + D_PAL_VP + lv] + 1.0 * (top - lv)
    if kind == AT_BONUS_CAV:
        return 1.0
    if kind == AT_QIN_TILE or kind == AT_CHARACTER:
        return 1.5
    if kind == AT_QIN_DRAW2:
        return 2.0
    return 0.0


@kernel
def option_value(s, p, e, o):
    base = DAT + D_EFF + e * EFF_SIZE + 1 + o * MAX_ATOMS * 2
    v = 0.0
    for a in range(MAX_ATOMS):
        v += atom_value(s, p, s[base + 2 * a], s[base + 2 * a + 1])
    return v


@kernel
def effect_value(s, p, e):
    best = -1e9
    for o in range(s[DAT + D_EFF + e * EFF_SIZE]):
        best = max(best, option_value(s, p, e, o))
    return best


@nb.njit(cache=True)
def relative_gain(s, c, p):
    """Own gain minus the best rival's gain from ``s`` to ``c`` (VP plus half the Trust)."""
    best = -1e9
    mine = 0.0
    for q in range(s[H_NPLAYERS]):
        g = (c[pb(q) + F_VP] - s[pb(q) + F_VP]) + 0.5 * (c[pb(q) + F_TRUST] - s[pb(q) + F_TRUST])
        if q == p:
            mine = g
        elif g > best:
            best = g
    return mine - best


@nb.njit(cache=True)
def policy_gain(s, p, card):
    """Own gain minus the best rival's gain if ``card`` were scored now (on a copy)."""
    c = s.copy()
    c[O_REVEAL] = 0  # judged as if every seat revealed everything (what the heuristic does)
    score_policy(c, card, p)
    return relative_gain(s, c, p)


@nb.njit(cache=True)
def bid_order_choice(s, p, mask):
    """D-A4: the next bid-time effect.  Each offered card is played out on a copy followed
    by every other card of its kind (the two extreme orders: all +1 Trust cards first, or
    all Eunuchs first); the better ``relative_gain`` wins, the +1 Trust card on a tie."""
    m = np.zeros(NUM_ACTIONS, np.bool_)
    best = -1e9
    pick = -1
    for a in range(A_CARD, A_CARD + ncards(s)):
        if not mask[a]:
            continue
        kind = cd(s, a - A_CARD, CD_BID)
        c = s.copy()
        apply(c, a)
        # asked again only while two kinds wait, so this kind is still offered
        while c[G_DECISION] == DK_ORDER and c[H_CURRENT] == p:
            legal_mask(c, m)
            for x in range(A_CARD, A_CARD + ncards(c)):
                if m[x] and cd(c, x - A_CARD, CD_BID) == kind:
                    apply(c, x)
                    break
        g = relative_gain(s, c, p)
        if g > best + 1e-9 or (g > best - 1e-9 and kind == BE_TRUST_PLUS_1):
            best = g
            pick = a
    return pick


@nb.njit(cache=True)
def immediate_choice(s, mask):
    """D-M2: the Royal Seal last; before it the other kinds in tile order."""
    for t in range(JADE, SEAL + 1):
        if mask[A_IMM + t - JADE] and t != SEAL:
            return A_IMM + t - JADE
    return A_IMM + SEAL - JADE


@nb.njit(cache=True)
def decree_choice(s, p, mask):
    """The next part of a Decree tile (R-D2), from public information.

    * The +3 VP is never taken before the scoring: it then comes automatically after it,
      which is never worse for the player (a VP loss during the scoring stops at 0, so
      VP held before it can only be lost) and changes nothing for anybody else.
    * The Tribute (Score + Tribute) is drawn before the scoring while the Tribute deck has
      cards: the card is the player's before the scoring's draws (Frugality, Book
      Preservation, the reset at the 6th disc) can empty the deck.  From an empty deck the
      draw is 3 VP and waits until after the scoring, like the +3 VP.
    * The flip (Score + Flip) comes first when the other side of a disc-free card scores
      better (own gain minus the best rival's, as ``policy_gain``) than every face-up side
      (the seed's example: flip Book Burning to Preservation, then score it); after the
      scoring there is no flip.
    * Otherwise: score the card with the best ``policy_gain``.
    """
    f = s[G_DC_FLAGS]
    if f & DC_SCORED:
        return A_END
    if not f & DC_TRIBUTE:
        left = 0
        for t in range(N_TRIB):
            left += s[TRIB_DECK + t]
        if left > 0:
            return A_OPT + 1
    best = -1e9
    pick = -1
    for c in range(N_POLICY):
        if mask[A_SCORE + c]:
            g = policy_gain(s, p, c)
            if g > best:
                best = g
                pick = A_SCORE + c
    if not f & DC_FLIP:
        for c in range(N_POLICY):
            if mask[A_SCORE + c]:
                t = s.copy()
                flip_policy(t, c)
                g = policy_gain(t, p, c)
                if g > best:
                    best = g
                    pick = A_FLIP + c
    return pick


@nb.njit(cache=True)
def heuristic(s, rng):
    n = s[H_NPLAYERS]
    p = s[H_CURRENT]
    b = pb(p)
    mask = np.zeros(NUM_ACTIONS, np.bool_)
    legal_mask(s, mask)
    vals = np.full(NUM_ACTIONS, -1e9)
    kind = s[G_DECISION]
    if kind == DK_BID:
        if mask[A_PASS]:
            return A_PASS
        if mask[A_CONFIRM]:
            return A_CONFIRM
        if mask[A_CUBE]:
            return A_CUBE
        best = 1e9
        pick = -1
        for c in range(ncards(s)):
            if mask[A_CARD + c] and cd(s, c, CD_POWER) < best:
                best = cd(s, c, CD_POWER)
                pick = A_CARD + c
        return pick
    elif kind == DK_LOSE:
        if mask[A_CUBE]:
            return A_CUBE
    elif kind == DK_WITHDRAW:
        for i in range(N_WD):
            if mask[A_WD + i]:
                vals[A_WD + i] = effect_value(s, p, EFF_WD + i)
    elif kind == DK_SIDE:
        lv = s[b + F_PALACE]
        for x in range(2):
            vals[A_OPT + x] = effect_value(s, p, EFF_PAL + 2 * (lv - 1) + x)
    elif kind == DK_OPTION:
        for o in range(4):
            if mask[A_OPT + o]:
                vals[A_OPT + o] = option_value(s, p, s[G_PEND_EFF], o)
    elif kind == DK_KEEP:
        vals[A_OPT] = TILE_VALUE[s[G_KEEP0]]
        vals[A_OPT + 1] = TILE_VALUE[s[G_KEEP1]]
    elif kind == DK_SET:
        for i in range(n):
            if mask[A_SET + i]:
                v = 0.0
                for t in range(N_TILE):
                    v += TILE_VALUE[t] * s[SETS + i * N_TILE + t]
                vals[A_SET + i] = v
    elif kind == DK_JADE:
        for i in range(N_TREASURE):
            if mask[A_TREASURE + i]:
                o = s[TREASURE + i]
                vals[A_TREASURE + i] = 1000.0 if o < 0 else s[pb(o) + F_VP]
    elif kind == DK_DECREE1:
        return decree_choice(s, p, mask)
    elif kind == DK_ORDER:
        return bid_order_choice(s, p, mask)
    elif kind == DK_IMM:
        return immediate_choice(s, mask)
    elif kind == DK_SEAL:
        any_score = False
        for c in range(N_POLICY):
            if mask[A_SCORE + c]:
                vals[A_SCORE + c] = policy_gain(s, p, c)
                any_score = True
        if not any_score and mask[A_END]:
            return A_END
    elif kind == DK_TREASURE:
        return A_OPT + 1
    elif kind == DK_REVEAL:
        vals[A_END] = 0.0
        for c in range(ncards(s)):
            if mask[A_CARD + c]:
                vals[A_CARD + c] = 1.0 + power(s, c, p) + cd(s, c, CD_DEFENCE)
    elif kind == DK_DECREE_TILE:
        if mask[A_OPT + 1]:
            return A_OPT + 1
    elif kind == DK_RESUPPLY:
        vals[A_END] = 0.0
        lv = s[b + F_PALACE]
        for k in range(1, 4):
            if mask[A_RAISE + k - 1]:
                g = s[DAT + D_PAL_VP + lv + k] - s[DAT + D_PAL_VP + lv] + 1.0 * k - raise_cost(s, k)
                vals[A_RAISE + k - 1] = g + 0.01 * k
        for i in range(MAX_RECRUIT):
            if mask[A_RECRUIT + i]:
                c = s[RECRUIT + i]
                v = -1.0
                if cd(s, c, CD_END) == EE_FLAT:
                    v = cd(s, c, CD_END_K) - cd(s, c, CD_COST)
                elif cd(s, c, CD_LINEAGE) > 0:
                    v = 0.5
                vals[A_RECRUIT + i] = v
    return (
        argmax_masked(vals, mask, rng, 0)
        if vals.max() > -1e9
        else argmax_masked(np.zeros(NUM_ACTIONS), mask, rng, 0)
    )
