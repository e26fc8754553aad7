"""Ming Dynasty rules as numba kernels (spec: shared/rules/ming_dynasty.md).

The round is a state machine (``advance``): automatic steps run until a seat must decide,
then ``G_PHASE`` names the kind of decision and ``H_CURRENT`` the seat.  ``apply``
performs one decision and calls ``advance`` again.  Section markers (3.2, 4.1, D23 ...)
refer to the spec.

The secret, simultaneous return commitment (4.2 step 1) is taken one participant at a
time, clockwise from the start player; a commitment is stored in ``F_COMMIT`` (and, under
the option ``return_choice = in_commitment``, the sections in ``F_COMMIT_SEC``) and is
visible to nobody else: ``info_key`` masks it, ``determinize`` resamples it and
``rewind_secrets`` takes it back.  Agents must not read other seats' ``F_COMMIT``
while the phase is PH_COMMIT (the heuristic does not).

A MOVE is played step by step (D12): ``A_STEP``/``A_STEPD`` cross one border paying the
border's symbol or a dragon; only steps from which a legal end is still reachable are
offered; the walk ends with the DEPLOY decision, legal wherever no other prince stands.
"""

import numba as nb
import numpy as np

from sim.core import (
    kernel,
    H_CURRENT,
    H_NPLAYERS,
    H_PLY,
    H_RNG_LO,
    NO_PLAYER,
    clear_mask,
    hash_words,
    init_header,
    rng_below,
    shuffle_range,
)
from sim.ming_dynasty.layout import (
    A_COMMIT,
    A_COMMIT_SEC,
    A_DEPLOY,
    A_DIST,
    A_DRAGON,
    A_DRAGON_OF,
    A_PASS,
    A_SPACE,
    A_START,
    A_STAY,
    A_STEP,
    A_STEPD,
    ADJ,
    BOXED,
    CARD_D,
    CITY,
    COMMIT_SEC_BASE,
    D_ADJ,
    D_SIZE,
    DECK,
    DISPLAY,
    DPP,
    F_BONUS_TIE_WON,
    F_COMMIT,
    F_COMMIT_SEC,
    F_COMMITTED,
    F_DEPLOYED,
    F_PRINCE_START,
    F_DRAGONS_BOUGHT,
    F_HAND,
    F_KEPT,
    F_OUSTS,
    F_PASSED,
    F_RET_LEFT,
    F_RETURNED,
    F_SCORE,
    F_SUPPLY,
    F_TILES,
    F_VP_BONUS,
    F_VP_CITY,
    F_VP_MONK,
    F_VP_SET5,
    F_VP_SET6,
    F_VP_TILES,
    G_CHOOSER,
    G_DECK_N,
    G_DECK_PTR,
    G_DISCARD,
    G_DISCARD_D,
    G_DRAGON_SUPPLY,
    G_FIRST_START,
    G_LOG_N,
    G_NEUTRAL_PLACED,
    G_NEUTRAL_POOL,
    G_NEUTRAL_SKIPPED,
    G_NLEFT,
    G_NPRE,
    G_NSOLE,
    G_PHASE,
    G_PROV,
    G_RESHUFFLES,
    G_ROUND,
    G_SCRIPT_N,
    G_START,
    G_SUB,
    G_WALK_STEPS,
    HAND_LIMIT,
    LOG,
    MAX_DECK,
    MAX_DRAWS,
    MAXP,
    MONK,
    N_CARD_KINDS,
    N_COMMIT_SEC,
    N_DEPLOY,
    N_DIST,
    N_ENT,
    N_OPTION_CODES,
    N_PROV,
    N_SYM,
    NEUTRAL,
    NUM_ACTIONS,
    O_BONUS_TIE,
    O_DRAGON_PAY,
    O_NEUTRAL_KEEP,
    O_NEUTRAL_POOL,
    O_RETURN_CHOICE,
    O_STAY_DRAGON,
    O_START,
    OPEN,
    OPT,
    PH_CARDS,
    PH_CHOOSE,
    PH_COMMIT,
    PH_DEPLOY,
    PH_NEUTRAL,
    PH_NRETURN,
    PH_OVER,
    PH_PLACE,
    PH_PRINCE,
    PH_RETURN,
    PH_TURN,
    PH_WALK,
    PL,
    PRINCE,
    PS,
    ROUNDS,
    S_BONUS,
    S_CARDS,
    S_DEPLOY_MAX,
    S_DRAGONS,
    S_MEMBER,
    S_MEMBERS,
    S_MONK,
    S_NEUTRAL_EACH,
    S_NEUTRAL_MAX,
    S_NEUTRAL_POOL,
    S_NEUTRAL_STRICT,
    S_PLACE,
    S_SET5,
    S_SET6,
    S_TILE_PT,
    S_TILES,
    SECTION_CAP,
    SPACE,
    STATE_SIZE,
    TILE_SUPPLY,
)

DEPLOY_OPEN = np.array([0, 1, 2, 3, 0, 1, 2], np.int64)
DEPLOY_MONK = np.array([0, 0, 0, 0, 1, 1, 1], np.int64)


# ============================================================================ small helpers


@kernel(inline=True)
def pb(p):
    """Offset of seat ``p``'s player block."""
    return PL + p * PS


@kernel(inline=True)
def n_players(s):
    return s[H_NPLAYERS]


@kernel(inline=True)
def n_entities(s):
    """Seats, plus the neutral colour in the 2-player game (entity id NEUTRAL)."""
    return N_ENT if s[H_NPLAYERS] == 2 else s[H_NPLAYERS]


@kernel(inline=True)
def is_entity(s, e):
    return e < s[H_NPLAYERS] or (e == NEUTRAL and s[H_NPLAYERS] == 2)


@kernel(inline=True)
def adj(s, a, b):
    return s[ADJ + a * N_DIST + b]


@kernel
def hand_size(s, p):
    b = pb(p)
    return s[b + F_HAND] + s[b + F_HAND + 1] + s[b + F_HAND + 2] + s[b + F_HAND + 3]


@kernel
def prince_at(s, d, exclude):
    """True if a prince of a seat other than ``exclude`` stands in district ``d``."""
    for q in range(n_players(s)):
        if q != exclude and s[PRINCE + q] == d:
            return True
    return False


@kernel
def city_count(s, prov, e):
    c = 0
    for j in range(DPP):
        c += s[CITY + (prov * DPP + j) * N_ENT + e]
    return c


@kernel
def monks_of(s, p):
    c = 0
    for d in range(N_DIST):
        if s[MONK + d] == p:
            c += 1
    return c


# ============================================================================ cards


@kernel
def draw_card(s):
    """Top card of the supply (reshuffling the discards when it is empty, D10); -1 if none.

    A replay built from chance outcomes scripts the symbols drawn (LOG[:G_SCRIPT_N]): the
    scripted symbol is taken out of the supply wherever it lies.
    """
    if s[G_DECK_PTR] >= s[G_DECK_N]:
        k = 0
        for sym in range(N_SYM):
            for _ in range(s[G_DISCARD + sym]):
                s[DECK + k] = sym
                k += 1
            s[G_DISCARD + sym] = 0
        for _ in range(s[G_DISCARD_D]):  # stay_dragon = discard_pile (D15): dragons join the deck
            s[DECK + k] = CARD_D
            k += 1
        s[G_DISCARD_D] = 0
        if k == 0:
            return -1
        shuffle_range(s, DECK, DECK + k, s, H_RNG_LO)
        s[G_DECK_PTR] = 0
        s[G_DECK_N] = k
        s[G_RESHUFFLES] += 1
    i = s[G_DECK_PTR]
    if s[G_LOG_N] < s[G_SCRIPT_N]:
        want = s[LOG + s[G_LOG_N]]
        for j in range(i, s[G_DECK_N]):
            if s[DECK + j] == want:
                s[DECK + j] = s[DECK + i]
                s[DECK + i] = want
                break
    c = s[DECK + i]
    s[G_DECK_PTR] = i + 1
    if s[G_LOG_N] < MAX_DRAWS:
        s[LOG + s[G_LOG_N]] = c
        s[G_LOG_N] += 1
    return c


@kernel
def refill(s, slot):
    s[DISPLAY + slot] = draw_card(s)


@kernel
def spend_card(s, p, kind):
    """A card leaves the hand: movement cards to the discard pile, dragons to their supply (D15)."""
    s[pb(p) + F_HAND + kind] -= 1
    if kind == CARD_D:
        s[G_DRAGON_SUPPLY] += 1
    else:
        s[G_DISCARD + kind] += 1


@kernel
def stay_discard(s, p, kind):
    """STAY's card: as ``spend_card``, except that under ``stay_dragon = discard_pile`` a dragon
    goes onto the discard pile as the STAY paragraph says (D15 alternative), and is reshuffled
    into the movement deck with the other discards."""
    if kind == CARD_D and s[O_STAY_DRAGON] == 1:
        s[pb(p) + F_HAND + kind] -= 1
        s[G_DISCARD_D] += 1
    else:
        spend_card(s, p, kind)


@kernel
def commit_sec_legal(s, prov, p, code):
    """Under ``return_choice = in_commitment`` (D3 alternative): does ``code`` (r_0 + 3 r_1 +
    9 r_2) return at most the members ``p`` has in each section of province ``prov``?"""
    for j in range(DPP):
        r = code % COMMIT_SEC_BASE
        code //= COMMIT_SEC_BASE
        if r > s[CITY + (prov * DPP + j) * N_ENT + p]:
            return False
    return True


@kernel
def commit_sec_total(code):
    k = 0
    for j in range(DPP):
        k += code % COMMIT_SEC_BASE
        code //= COMMIT_SEC_BASE
    return k


# ============================================================================ movement


@kernel
def can_finish(s, p, d, h0, h1, h2, h3):
    """Can seat ``p``'s walk, now in ``d`` with hand (h0..h3), end legally (here or later)?"""
    if not prince_at(s, d, p):
        return True
    if h0 + h1 + h2 + h3 == 0:
        return False
    return _walk_on(s, p, d, h0, h1, h2, h3)


@kernel
def _walk_on(s, p, x, h0, h1, h2, h3):
    """Depth-first search over (district, hand) from ``x`` (held by another prince): can a
    step, paying a card of the hand, reach a district free of other princes, possibly
    through districts held by other princes?  Recursion depth is at most the hand size.
    (The walk goes on only through districts held by the at most 3 other princes.)"""
    more = h0 + h1 + h2 + h3 > 1
    for y in range(N_DIST):
        sym = adj(s, x, y)
        if sym < 0:
            continue
        for w in range(2):
            pay = np.int64(sym) if w == 0 else np.int64(CARD_D)
            hp = h0 if pay == 0 else (h1 if pay == 1 else (h2 if pay == 2 else h3))
            if hp == 0:
                continue
            if not prince_at(s, y, p):
                return True
            if more and _walk_on(
                s, p, y, h0 - (pay == 0), h1 - (pay == 1), h2 - (pay == 2), h3 - (pay == 3)
            ):
                return True
    return False


@kernel
def step_legal(s, p, y, pay):
    """A step of seat ``p``'s prince into ``y`` paying ``pay`` (symbol or CARD_D)."""
    x = s[PRINCE + p]
    sym = adj(s, x, y)
    if sym < 0:
        return False
    if pay != CARD_D and pay != sym:
        return False
    b = pb(p)
    if s[b + F_HAND + pay] == 0:
        return False
    h0 = np.int64(s[b + F_HAND]) - (pay == 0)
    h1 = np.int64(s[b + F_HAND + 1]) - (pay == 1)
    h2 = np.int64(s[b + F_HAND + 2]) - (pay == 2)
    h3 = np.int64(s[b + F_HAND + 3]) - (pay == 3)
    return can_finish(s, p, y, h0, h1, h2, h3)


@kernel
def deploy_legal(s, p, i):
    x = s[PRINCE + p]
    if s[MONK + x] == p:
        return i == 0  # own monk blocks deployment (only DEPLOY(0,0))
    prov = x // DPP
    have = s[SPACE + prov * MAXP + p]
    cap = s[S_DEPLOY_MAX]
    if have < cap:
        cap = have
    return DEPLOY_OPEN[i] + DEPLOY_MONK[i] <= cap


# ============================================================================ scoring


@kernel
def gain_tile(s, p, colour):
    """4.1: one tile of ``colour`` (none if exhausted, D8), then the immediate 6-colour set rule."""
    if s[TILE_SUPPLY + colour] == 0:
        return
    s[TILE_SUPPLY + colour] -= 1
    b = pb(p)
    s[b + F_TILES + colour] += 1
    while True:
        for c in range(N_PROV):
            if s[b + F_TILES + c] == 0:
                return
        for c in range(N_PROV):
            s[b + F_TILES + c] -= 1
            s[TILE_SUPPLY + c] += 1
        v = s[S_SET6 + s[G_ROUND] // 2 - 1]
        s[b + F_SCORE] += v
        s[b + F_VP_SET6] += v


@kernel
def district_to_city(s, d):
    """4.1 for one district: majorities move members from the open area to the city section."""
    ne = n_entities(s)
    moved = 0  # members moved per entity e (0..2): bits 2e, 2e + 1
    m1 = 0
    for e in range(ne):
        if is_entity(s, e) and s[OPEN + d * N_ENT + e] > m1:
            m1 = s[OPEN + d * N_ENT + e]
    if m1 == 0:
        return
    t1 = 0
    lead = -1
    for e in range(ne):
        if is_entity(s, e) and s[OPEN + d * N_ENT + e] == m1:
            t1 += 1
            lead = e
    if t1 == 1:
        moved |= (2 if m1 >= 2 else 1) << (2 * lead)
        m2 = 0
        for e in range(ne):
            if e != lead and is_entity(s, e) and s[OPEN + d * N_ENT + e] > m2:
                m2 = s[OPEN + d * N_ENT + e]
        if m2 > 0:
            t2 = 0
            sec = -1
            for e in range(ne):
                if e != lead and is_entity(s, e) and s[OPEN + d * N_ENT + e] == m2:
                    t2 += 1
                    sec = e
            if t2 == 1:
                moved |= 1 << (2 * sec)
    elif t1 <= 3:
        for e in range(ne):
            if is_entity(s, e) and s[OPEN + d * N_ENT + e] == m1:
                moved |= 1 << (2 * e)
    n = n_players(s)
    for e in range(ne):
        me = (moved >> (2 * e)) & 3
        if me > 0:
            s[OPEN + d * N_ENT + e] -= me
            s[CITY + d * N_ENT + e] += me
    # tiles: players moving members, clockwise from the start player, one tile at a time (D8)
    colour = d // DPP
    for i in range(n):
        p = (s[G_START] + i) % n
        for _ in range((moved >> (2 * p)) & 3):
            gain_tile(s, p, colour)


@kernel
def send_back(s, e, d):
    """One city member of entity ``e`` in section ``d`` returns to the open area of ``d``."""
    s[CITY + d * N_ENT + e] -= 1
    s[OPEN + d * N_ENT + e] += 1


@kernel
def sections_with(s, prov, e):
    k = 0
    for j in range(DPP):
        if s[CITY + (prov * DPP + j) * N_ENT + e] > 0:
            k += 1
    return k


@kernel
def auto_return(s, prov, e, k):
    """Send ``k`` members of ``e`` back when no choice exists (all, or all in one section)."""
    for j in range(DPP):
        d = prov * DPP + j
        while k > 0 and s[CITY + d * N_ENT + e] > 0:
            send_back(s, e, d)
            k -= 1


@kernel
def neutral_wins_with(s, prov, v0, v1, v2):
    """True if the neutral, keeping ``v0, v1, v2`` members in the three city sections of
    ``prov``, would win the city bonus alone against the players' city members now: more
    members than every player, or as many as the most and a larger key under the D19
    tie-break in force (its best section, or its count in the fullest section(s))."""
    t = v0 + v1 + v2
    if t == 0:
        return False
    n = n_players(s)
    base = CITY + prov * DPP * N_ENT
    f0, f1, f2 = v0, v1, v2  # section totals, for FULLEST_SECTION
    for p in range(n):
        f0 += s[base + p]
        f1 += s[base + N_ENT + p]
        f2 += s[base + 2 * N_ENT + p]
    fm = max(f0, max(f1, f2))
    fullest = s[O_BONUS_TIE] == 1
    kn = 0
    for j in range(DPP):
        fj = f0 if j == 0 else (f1 if j == 1 else f2)
        vj = v0 if j == 0 else (v1 if j == 1 else v2)
        if (not fullest or fj == fm) and vj > kn:
            kn = vj
    for p in range(n):
        c = city_count(s, prov, p)
        if c > t:
            return False
        if c == t:
            kp = 0
            for j in range(DPP):
                fj = f0 if j == 0 else (f1 if j == 1 else f2)
                v = s[base + j * N_ENT + p]
                if (not fullest or fj == fm) and v > kp:
                    kp = v
            if kp >= kn:
                return False
    return True


@kernel
def neutral_can_keep(s, prov, keep, skip):
    """Some ``keep`` of the neutral's city members in ``prov`` (one fewer in section ``skip``,
    -1 for none) win the city bonus alone (D23, ``neutral_keep = tie_on_tiebreak``)."""
    base = CITY + prov * DPP * N_ENT + NEUTRAL
    c0 = s[base] - (1 if skip == 0 else 0)
    c1 = s[base + N_ENT] - (1 if skip == 1 else 0)
    c2 = s[base + 2 * N_ENT] - (1 if skip == 2 else 0)
    for v0 in range(c0 + 1):
        for v1 in range(c1 + 1):
            v2 = keep - v0 - v1
            if 0 <= v2 <= c2 and neutral_wins_with(s, prov, v0, v1, v2):
                return True
    return False


@kernel
def neutral_return_open(s, prov, j):
    """May the start player send one of the neutral's city members back from section ``j``?
    Always, unless the neutral keeps only a tie (``tie_on_tiebreak``): then the members left
    must still be able to win it on the tie-break."""
    if s[CITY + (prov * DPP + j) * N_ENT + NEUTRAL] == 0:
        return False
    if s[O_NEUTRAL_KEEP] != 2:
        return True
    keep = city_count(s, prov, NEUTRAL) - s[G_NLEFT]
    h = 0
    for p in range(n_players(s)):
        h = max(h, city_count(s, prov, p))
    if h < keep:
        return True
    return neutral_can_keep(s, prov, keep, j)  # it keeps as many as the best player: a tie


@kernel(inline=True)
def _bonus_key(s, prov, e, fullest, mt, t0, t1, t2):
    """D19 tie-break key of entity ``e``: its most members in one section (of the fullest
    section(s) with ``fullest``; section totals t0..t2, their maximum mt)."""
    key = 0
    for j in range(DPP):
        tj = t0 if j == 0 else (t1 if j == 1 else t2)
        if not fullest or tj == mt:
            v = s[CITY + (prov * DPP + j) * N_ENT + e]
            if v > key:
                key = v
    return key


@kernel
def city_bonus(s, prov):
    """4.2 step 6: the bonus by remaining members; tie-break by sections (D19); split."""
    ne = n_entities(s)
    best = 0
    for e in range(ne):
        if is_entity(s, e):
            c = city_count(s, prov, e)
            if c > best:
                best = c
    if best == 0:
        return
    tied = 0  # bit e: entity e shares the lead
    nt = 0
    for e in range(ne):
        if is_entity(s, e) and city_count(s, prov, e) == best:
            tied |= 1 << e
            nt += 1
    by_tie = nt > 1
    if nt > 1:
        fullest = (
            s[O_BONUS_TIE] != 0
        )  # FULLEST_SECTION: sections holding the most members of all entities together
        t0 = 0
        t1 = 0
        t2 = 0
        if fullest:
            for e in range(ne):
                if is_entity(s, e):
                    t0 += s[CITY + (prov * DPP) * N_ENT + e]
                    t1 += s[CITY + (prov * DPP + 1) * N_ENT + e]
                    t2 += s[CITY + (prov * DPP + 2) * N_ENT + e]
        mt = max(t0, max(t1, t2))
        kb = -1
        for e in range(ne):
            if (tied >> e) & 1:
                k = _bonus_key(s, prov, e, fullest, mt, t0, t1, t2)
                if k > kb:
                    kb = k
        nt = 0
        for e in range(ne):
            if (tied >> e) & 1:
                if _bonus_key(s, prov, e, fullest, mt, t0, t1, t2) != kb:
                    tied &= ~(1 << e)
                else:
                    nt += 1
    share = s[S_BONUS] // nt
    for e in range(n_players(s)):
        if (tied >> e) & 1:
            b = pb(e)
            s[b + F_SCORE] += share
            s[b + F_VP_BONUS] += share
            if by_tie:
                s[b + F_BONUS_TIE_WON] += 1


@kernel
def finish_province(s, prov):
    """4.2 steps 5-7 after all returns: member points, bonus, the city cleared into the box."""
    n = n_players(s)
    r = s[G_ROUND]
    per = s[S_MEMBER + r // 2 - 1]
    for p in range(n):
        c = city_count(s, prov, p)
        b = pb(p)
        s[b + F_SCORE] += c * per
        s[b + F_VP_CITY] += c * per
        s[b + F_KEPT] += c
    city_bonus(s, prov)
    for j in range(DPP):
        d = prov * DPP + j
        for e in range(N_ENT):
            c = s[CITY + d * N_ENT + e]
            if c > 0:
                if e == NEUTRAL and s[O_NEUTRAL_POOL] == 1:
                    s[G_NEUTRAL_POOL] += c
                else:
                    s[BOXED + e] += c
                s[CITY + d * N_ENT + e] = 0


@kernel
def final_tiles(s, p):
    """4.4: as many 5-colour sets as possible (10 each), then 1 per leftover tile.

    Greedy: each set takes one tile from the five fullest colours, i.e. from every colour
    but one of the emptiest; the sets stop when the second emptiest colour is empty.
    Which emptiest colour is spared does not matter: the multiset of counts that follows
    is the same.  (At the end of round 6 no seat holds all six colours, so the colour
    spared is the one the seat lacks, and the tiles a set takes are determined.)  The
    sets' tiles are returned to the supply ("歸還", the seed's 4.4); the leftover tiles stay
    with the seat."""
    b = pb(p)
    t0 = np.int64(s[b + F_TILES])
    t1 = np.int64(s[b + F_TILES + 1])
    t2 = np.int64(s[b + F_TILES + 2])
    t3 = np.int64(s[b + F_TILES + 3])
    t4 = np.int64(s[b + F_TILES + 4])
    t5 = np.int64(s[b + F_TILES + 5])
    sets = 0
    while True:
        # the emptiest colour i and the second smallest count
        i = 0
        lo = t0
        for c in range(1, N_PROV):
            tc = t1 if c == 1 else (t2 if c == 2 else (t3 if c == 3 else (t4 if c == 4 else t5)))
            if tc < lo:
                lo = tc
                i = c
        lo2 = np.int64(1 << 30)
        for c in range(N_PROV):
            tc = (
                t0
                if c == 0
                else (
                    t1 if c == 1 else (t2 if c == 2 else (t3 if c == 3 else (t4 if c == 4 else t5)))
                )
            )
            if c != i and tc < lo2:
                lo2 = tc
        if lo2 == 0:
            break
        t0 -= i != 0
        t1 -= i != 1
        t2 -= i != 2
        t3 -= i != 3
        t4 -= i != 4
        t5 -= i != 5
        sets += 1
    left = t0 + t1 + t2 + t3 + t4 + t5
    for c in range(N_PROV):
        tc = (
            t0
            if c == 0
            else (t1 if c == 1 else (t2 if c == 2 else (t3 if c == 3 else (t4 if c == 4 else t5))))
        )
        s[TILE_SUPPLY + c] += s[b + F_TILES + c] - tc
        s[b + F_TILES + c] = tc
    s[b + F_VP_SET5] += sets * s[S_SET5]
    s[b + F_VP_TILES] += left * s[S_TILE_PT]
    s[b + F_SCORE] += sets * s[S_SET5] + left * s[S_TILE_PT]


@kernel
def score_monasteries(s):
    for d in range(N_DIST):
        p = s[MONK + d]
        if p >= 0:
            s[pb(p) + F_SCORE] += s[S_MONK]
            s[pb(p) + F_VP_MONK] += s[S_MONK]


# ============================================================================ setup


@kernel
def _install_data(s, options):
    for i in range(N_OPTION_CODES):
        s[OPT + i] = options[i]
    base = N_OPTION_CODES
    for i in range(D_SIZE):
        s[ADJ + i] = options[base + D_ADJ + i]


@kernel
def setup(s, n, options, start, script, n_script):
    """Setup (spec 2.1) with a given first start player; ``script`` fixes the first draws."""
    _install_data(s, options)
    if s[O_START] == 1:
        start = 0
    k = 0
    for sym in range(N_SYM):
        for _ in range(s[S_CARDS + sym]):
            s[DECK + k] = sym
            k += 1
    shuffle_range(s, DECK, DECK + k, s, H_RNG_LO)
    s[G_DECK_PTR] = 0
    s[G_DECK_N] = k
    for i in range(n_script):
        s[LOG + i] = script[i]
    s[G_SCRIPT_N] = n_script
    s[G_LOG_N] = 0
    for slot in range(N_PROV):
        refill(s, slot)
    s[G_DRAGON_SUPPLY] = s[S_DRAGONS] - n
    for c in range(N_PROV):
        s[TILE_SUPPLY + c] = s[S_TILES]
    for d in range(N_DIST):
        s[MONK + d] = -1
    for p in range(MAXP):
        s[PRINCE + p] = -1
    for p in range(n):
        b = pb(p)
        s[b + F_SUPPLY] = s[S_MEMBERS]
        s[b + F_HAND + CARD_D] = 1
    s[G_NEUTRAL_POOL] = s[S_NEUTRAL_STRICT] if s[O_NEUTRAL_POOL] == 1 else s[S_NEUTRAL_POOL]
    s[G_ROUND] = 1
    s[G_START] = start
    s[G_FIRST_START] = start
    s[G_PHASE] = PH_PRINCE
    s[G_SUB] = 0
    s[G_CHOOSER] = -1
    advance(s)


@nb.njit(cache=True)
def new_state(seed, n, options):
    """A new game: shuffle the supply with the state's RNG, draw the start player, set up."""
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, seed, n)
    start = rng_below(s, H_RNG_LO, n)
    setup(s, n, options, start, np.zeros(1, np.int32), 0)
    return s


@nb.njit(cache=True)
def state_from_script(n, options, start, script):
    """A new game whose first start player and drawn symbols are given (replays)."""
    s = np.zeros(STATE_SIZE, np.int32)
    init_header(s, 0, n)
    setup(s, n, options, start, script, script.shape[0])
    return s


# ============================================================================ the round


@kernel
def begin_round(s):
    r = s[G_ROUND]
    if n_players(s) == 2 and (r == 3 or r == 5):
        s[G_PHASE] = PH_NEUTRAL
    else:
        s[G_PHASE] = PH_PLACE
    s[G_SUB] = 0
    s[G_NEUTRAL_PLACED] = 0


@kernel
def begin_scoring(s):
    s[G_PROV] = 0
    start_province(s)


@kernel
def start_province(s):
    """4.1 for the province G_PROV, then the commitment step (or straight on)."""
    prov = s[G_PROV]
    n = n_players(s)
    for j in range(DPP):
        district_to_city(s, prov * DPP + j)
    for p in range(n):
        b = pb(p)
        s[b + F_COMMIT] = 0
        s[b + F_COMMIT_SEC] = 0
        s[b + F_COMMITTED] = 0
        s[b + F_RET_LEFT] = 0
    if n == 2:
        mx = 0
        for p in range(n):
            c = city_count(s, prov, p)
            if c > mx:
                mx = c
        s[G_NPRE] = mx
        s[G_NSOLE] = 1 if city_count(s, prov, NEUTRAL) > mx else 0
    s[G_PHASE] = PH_COMMIT
    s[G_SUB] = 0


@kernel
def next_province(s):
    s[G_PROV] += 1
    if s[G_PROV] < N_PROV:
        start_province(s)
        return
    score_monasteries(s)
    if s[G_ROUND] == ROUNDS:
        for p in range(n_players(s)):
            final_tiles(s, p)
        s[G_PHASE] = PH_OVER
        return
    end_round(s)


@kernel
def start_chooser(s, position):
    """D22: the seat at ``position`` of the ascending score ranking; ties by monks, then clockwise."""
    n = n_players(s)
    value = 0  # the score at ``position`` of the ascending order: fewer below, more up to it
    for p in range(n):
        v = s[pb(p) + F_SCORE]
        below = 0
        upto = 0
        for q in range(n):
            if s[pb(q) + F_SCORE] < v:
                below += 1
            if s[pb(q) + F_SCORE] <= v:
                upto += 1
        if below <= position < upto:
            value = v
    best = -1
    who = -1
    for i in range(n):
        p = (s[G_START] + 1 + i) % n
        if s[pb(p) + F_SCORE] == value:
            m = monks_of(s, p)
            if m > best:
                best = m
                who = p
    return who


@kernel
def end_round(s):
    """Phase 5: the start player passes left, or (4p after rounds 4 and 5) is chosen."""
    r = s[G_ROUND]
    n = n_players(s)
    if n == 4 and (r == 4 or r == 5):
        s[G_CHOOSER] = start_chooser(s, 1 if r == 4 else 0)
        s[G_PHASE] = PH_CHOOSE
        return
    s[G_START] = (s[G_START] + 1) % n
    s[G_ROUND] = r + 1
    begin_round(s)


@kernel
def neutral_place_legal(s, d):
    return s[OPEN + d * N_ENT + NEUTRAL] < s[S_NEUTRAL_MAX]


@kernel
def can_take_card(s, p):
    """Phase 2: has seat ``p`` a legal card to take?  Always, by default (3.2: five members
    placed every round, and only p's own dragon purchases remove them).  Under
    ``dragon_payment = any_member`` rivals' purchases can take all of p's members off the
    spaces; with the dragon supply also empty p then cannot take a card, and his phase 2
    ends below 5 cards (the phase ends when nobody below 5 can take one)."""
    dragons = s[G_DRAGON_SUPPLY] > 0
    for sp in range(N_PROV):
        if s[SPACE + sp * MAXP + p] >= 1 and (dragons or s[DISPLAY + sp] >= 0):
            return True
        if dragons and s[O_DRAGON_PAY] == 1:
            for q in range(n_players(s)):
                if s[SPACE + sp * MAXP + q] >= 1:
                    return True
    return False


@kernel
def _set(s, p):
    s[H_CURRENT] = p


@kernel
def advance(s):
    """Run automatic steps until a seat must decide (sets H_CURRENT) or the game is over."""
    n = n_players(s)
    while True:
        ph = s[G_PHASE]
        st = s[G_START]
        if ph == PH_PRINCE:
            if s[G_SUB] < n:
                _set(s, (st + s[G_SUB]) % n)
                return
            if n == 2:
                for d in range(N_DIST):  # 2.4 step 1 (D24: after the princes)
                    if s[G_NEUTRAL_POOL] > 0:
                        s[OPEN + d * N_ENT + NEUTRAL] += 1
                        s[G_NEUTRAL_POOL] -= 1
                s[G_PHASE] = PH_NEUTRAL
                s[G_SUB] = 0
                s[G_NEUTRAL_PLACED] = 0
            else:
                begin_round(s)
        elif ph == PH_NEUTRAL:
            total = 2 * s[S_NEUTRAL_EACH]
            if s[G_SUB] < total:
                if s[G_NEUTRAL_POOL] == 0:  # strict pool (D26): uncovered placements are skipped
                    s[G_NEUTRAL_SKIPPED] += total - s[G_SUB]
                    s[G_SUB] = total
                    continue
                _set(s, (st + s[G_SUB]) % 2)
                return
            s[G_PHASE] = PH_PLACE
            s[G_SUB] = 0
        elif ph == PH_PLACE:
            if s[G_SUB] < s[S_PLACE] * n:
                _set(s, (st + s[G_SUB]) % n)
                return
            s[G_PHASE] = PH_CARDS
            s[G_SUB] = 0
        elif ph == PH_CARDS:
            found = False
            for i in range(n):
                p = (st + s[G_SUB] + i) % n
                if hand_size(s, p) < HAND_LIMIT and can_take_card(s, p):
                    s[G_SUB] = (s[G_SUB] + i) % n
                    _set(s, p)
                    found = True
                    break
            if found:
                return
            s[G_PHASE] = PH_TURN
            s[G_SUB] = 0
            for p in range(n):
                s[pb(p) + F_PASSED] = 0
        elif ph == PH_TURN:
            found = False
            for i in range(n):
                p = (st + s[G_SUB] + i) % n
                if s[pb(p) + F_PASSED] == 0:
                    s[G_SUB] = (s[G_SUB] + i) % n
                    _set(s, p)
                    found = True
                    break
            if found:
                return
            if s[G_ROUND] % 2 == 0:
                begin_scoring(s)
            else:
                end_round(s)
        elif ph == PH_COMMIT:
            prov = s[G_PROV]
            found = False
            for i in range(n):
                p = (st + i) % n
                if city_count(s, prov, p) > 0 and s[pb(p) + F_COMMITTED] == 0:
                    _set(s, p)
                    found = True
                    break
            if found:
                return
            # reveal; returns in clockwise order from the start player
            for p in range(n):
                s[pb(p) + F_RET_LEFT] = s[pb(p) + F_COMMIT]
            if s[O_RETURN_CHOICE] == 1:  # D3 alternative: the sections were committed too
                for i in range(n):
                    p = (st + i) % n
                    code = s[pb(p) + F_COMMIT_SEC]
                    for j in range(DPP):
                        for _ in range(code % COMMIT_SEC_BASE):
                            send_back(s, p, prov * DPP + j)
                        code //= COMMIT_SEC_BASE
                    s[pb(p) + F_RETURNED] += s[pb(p) + F_COMMIT]
                    s[pb(p) + F_RET_LEFT] = 0
            s[G_PHASE] = PH_RETURN
        elif ph == PH_RETURN:
            prov = s[G_PROV]
            found = False
            for i in range(n):
                p = (st + i) % n
                k = s[pb(p) + F_RET_LEFT]
                if k == 0:
                    continue
                if k == city_count(s, prov, p) or sections_with(s, prov, p) == 1:
                    auto_return(s, prov, p, k)
                    s[pb(p) + F_RET_LEFT] = 0
                    s[pb(p) + F_RETURNED] += k
                    continue
                _set(s, p)
                found = True
                break
            if found:
                return
            if n == 2:
                nn = city_count(s, prov, NEUTRAL)
                if s[G_NSOLE] == 0:
                    auto_return(s, prov, NEUTRAL, nn)
                    s[G_NLEFT] = 0
                else:
                    h = s[G_NPRE]
                    if s[O_NEUTRAL_KEEP] != 1:  # after_returns, tie_on_tiebreak
                        h = 0
                        for p in range(n):
                            c = city_count(s, prov, p)
                            if c > h:
                                h = c
                    keep = h + 1
                    if s[O_NEUTRAL_KEEP] == 2 and neutral_can_keep(s, prov, h, -1):
                        keep = h  # a tie the neutral wins on the section tie-break
                    s[G_NLEFT] = nn - keep
                s[G_PHASE] = PH_NRETURN
            else:
                finish_province(s, prov)
                next_province(s)
        elif ph == PH_NRETURN:
            prov = s[G_PROV]
            k = s[G_NLEFT]
            if k > 0:
                if k == city_count(s, prov, NEUTRAL) or sections_with(s, prov, NEUTRAL) == 1:
                    auto_return(s, prov, NEUTRAL, k)
                    s[G_NLEFT] = 0
                else:
                    n_open = 0
                    last = -1
                    for j in range(DPP):
                        if neutral_return_open(s, prov, j):
                            n_open += 1
                            last = j
                    if n_open > 1:
                        _set(s, st)
                        return
                    send_back(s, NEUTRAL, prov * DPP + last)  # a single open section: not asked
                    s[G_NLEFT] -= 1
                    continue
            finish_province(s, prov)
            next_province(s)
        elif ph == PH_CHOOSE:
            _set(s, s[G_CHOOSER])
            return
        elif ph == PH_OVER:
            _set(s, NO_PLAYER)
            return
        else:
            _set(s, s[H_CURRENT])  # PH_WALK / PH_DEPLOY: the mover decides again
            return


# ============================================================================ contract kernels


@kernel
def current_player(s):
    return np.int64(s[H_CURRENT])


@kernel
def is_terminal(s):
    return s[G_PHASE] == PH_OVER


@kernel
def legal_mask(s, out):
    """Fill ``out[NUM_ACTIONS]``; return the number of legal actions."""
    clear_mask(out, NUM_ACTIONS)
    ph = s[G_PHASE]
    if ph == PH_OVER:
        return 0
    p = s[H_CURRENT]
    b = pb(p)
    count = 0
    if ph == PH_PRINCE:
        for d in range(N_DIST):
            if not prince_at(s, d, -1):
                out[A_DIST + d] = True
                count += 1
    elif ph == PH_NEUTRAL:
        for d in range(N_DIST):
            if neutral_place_legal(s, d):
                out[A_DIST + d] = True
                count += 1
    elif ph == PH_PLACE:
        for sp in range(N_PROV):
            out[A_SPACE + sp] = True
        count = N_PROV
    elif ph == PH_CARDS:
        for sp in range(N_PROV):
            if s[SPACE + sp * MAXP + p] >= 1:
                if s[DISPLAY + sp] >= 0:
                    out[A_SPACE + sp] = True
                    count += 1
                if s[G_DRAGON_SUPPLY] > 0:
                    out[A_DRAGON + sp] = True
                    count += 1
            if s[O_DRAGON_PAY] == 1 and s[G_DRAGON_SUPPLY] > 0:  # D33 alternative: any member
                for q in range(n_players(s)):
                    if q != p and s[SPACE + sp * MAXP + q] >= 1:
                        out[A_DRAGON_OF + sp * MAXP + q] = True
                        count += 1
    elif ph == PH_TURN or ph == PH_WALK:
        x = s[PRINCE + p]
        for y in range(N_DIST):
            sym = adj(s, x, y)
            if sym < 0:
                continue
            if step_legal(s, p, y, sym):
                out[A_STEP + y] = True
                count += 1
            if step_legal(s, p, y, CARD_D):
                out[A_STEPD + y] = True
                count += 1
        if ph == PH_TURN:
            for c in range(N_CARD_KINDS):
                if s[b + F_HAND + c] > 0:
                    out[A_STAY + c] = True
                    count += 1
            out[A_PASS] = True
            count += 1
        elif not prince_at(s, x, p):
            for i in range(N_DEPLOY):
                if deploy_legal(s, p, i):
                    out[A_DEPLOY + i] = True
                    count += 1
    elif ph == PH_DEPLOY:
        for i in range(N_DEPLOY):
            if deploy_legal(s, p, i):
                out[A_DEPLOY + i] = True
                count += 1
    elif ph == PH_COMMIT:
        if s[O_RETURN_CHOICE] == 1:
            for code in range(N_COMMIT_SEC):
                if commit_sec_legal(s, s[G_PROV], p, code):
                    out[A_COMMIT_SEC + code] = True
                    count += 1
        else:
            c = city_count(s, s[G_PROV], p)
            for k in range(c + 1):
                out[A_COMMIT + k] = True
                count += 1
    elif ph == PH_RETURN:
        prov = s[G_PROV]
        for j in range(DPP):
            d = prov * DPP + j
            if s[CITY + d * N_ENT + p] > 0:
                out[A_DIST + d] = True
                count += 1
    elif ph == PH_NRETURN:
        prov = s[G_PROV]
        for j in range(DPP):
            if neutral_return_open(s, prov, j):
                out[A_DIST + prov * DPP + j] = True
                count += 1
    elif ph == PH_CHOOSE:
        for q in range(n_players(s)):
            out[A_START + q] = True
            count += 1
    return count


@kernel
def apply(s, a):
    """Perform decision ``a`` of the seat to move (assumed legal), then advance."""
    ph = s[G_PHASE]
    p = s[H_CURRENT]
    b = pb(p)
    n = n_players(s)
    s[H_PLY] += 1
    if ph == PH_PRINCE:
        d = a - A_DIST
        s[PRINCE + p] = d
        s[b + F_PRINCE_START] = d
        s[TILE_SUPPLY + d // DPP] -= 1
        s[b + F_TILES + d // DPP] += 1
        s[G_SUB] += 1
    elif ph == PH_NEUTRAL:
        d = a - A_DIST
        s[OPEN + d * N_ENT + NEUTRAL] += 1
        s[G_NEUTRAL_POOL] -= 1
        s[G_NEUTRAL_PLACED] += 1
        s[G_SUB] += 1
    elif ph == PH_PLACE:
        sp = a - A_SPACE
        s[SPACE + sp * MAXP + p] += 1
        s[b + F_SUPPLY] -= 1
        s[G_SUB] += 1
    elif ph == PH_CARDS:
        if a < A_DRAGON:
            sp = a - A_SPACE
            s[b + F_HAND + s[DISPLAY + sp]] += 1
            refill(s, sp)
        else:
            if a >= A_DRAGON_OF:  # D33 alternative: paid with seat q's member
                sp = (a - A_DRAGON_OF) // MAXP
                q = (a - A_DRAGON_OF) % MAXP
            else:
                sp = a - A_DRAGON
                q = p
            s[b + F_HAND + CARD_D] += 1
            s[G_DRAGON_SUPPLY] -= 1
            s[SPACE + sp * MAXP + q] -= 1
            s[BOXED + q] += 1
            s[b + F_DRAGONS_BOUGHT] += 1
        s[G_SUB] = (s[G_SUB] + 1) % n
    elif ph == PH_TURN or ph == PH_WALK or ph == PH_DEPLOY:
        if a == A_PASS:
            s[b + F_PASSED] = 1
            s[G_SUB] = (s[G_SUB] + 1) % n
        elif A_STAY <= a < A_STAY + N_CARD_KINDS:
            stay_discard(s, p, a - A_STAY)
            s[G_PHASE] = PH_DEPLOY
        elif A_STEP <= a < A_STAY:
            y = a - A_STEP if a < A_STEPD else a - A_STEPD
            pay = adj(s, s[PRINCE + p], y) if a < A_STEPD else CARD_D
            spend_card(s, p, pay)
            s[PRINCE + p] = y
            s[G_WALK_STEPS] = s[G_WALK_STEPS] + 1 if ph == PH_WALK else 1
            s[G_PHASE] = PH_WALK
        else:  # DEPLOY
            i = a - A_DEPLOY
            x = s[PRINCE + p]
            prov = x // DPP
            no = DEPLOY_OPEN[i]
            m = DEPLOY_MONK[i]
            s[SPACE + prov * MAXP + p] -= no + m
            s[OPEN + x * N_ENT + p] += no
            s[b + F_DEPLOYED] += no + m
            if m == 1:
                old = s[MONK + x]
                if old >= 0:
                    s[OPEN + x * N_ENT + old] += 1
                    s[b + F_OUSTS] += 1
                s[MONK + x] = p
            s[G_PHASE] = PH_TURN
            s[G_SUB] = (s[G_SUB] + 1) % n
    elif ph == PH_COMMIT:
        if a >= A_COMMIT_SEC:
            s[b + F_COMMIT_SEC] = a - A_COMMIT_SEC
            s[b + F_COMMIT] = commit_sec_total(a - A_COMMIT_SEC)
        else:
            s[b + F_COMMIT] = a - A_COMMIT
        s[b + F_COMMITTED] = 1
    elif ph == PH_RETURN:
        send_back(s, p, a - A_DIST)
        s[b + F_RET_LEFT] -= 1
        s[b + F_RETURNED] += 1
    elif ph == PH_NRETURN:
        send_back(s, NEUTRAL, a - A_DIST)
        s[G_NLEFT] -= 1
    elif ph == PH_CHOOSE:
        s[G_START] = a - A_START
        s[G_CHOOSER] = -1
        s[G_ROUND] += 1
        begin_round(s)
    advance(s)


@kernel
def tiebreak(s, p):
    """D28: members in monasteries at the end."""
    return monks_of(s, p)


@kernel
def returns(s, scores, wins):
    """Final scores; win shares (1/k) by score, then monastery members (D28)."""
    n = n_players(s)
    best = -1
    for p in range(n):
        scores[p] = s[pb(p) + F_SCORE]
        key = s[pb(p) + F_SCORE] * 64 + tiebreak(s, p)
        if key > best:
            best = key
    k = 0
    for p in range(n):
        if s[pb(p) + F_SCORE] * 64 + tiebreak(s, p) == best:
            k += 1
    for p in range(n):
        wins[p] = 1.0 / k if s[pb(p) + F_SCORE] * 64 + tiebreak(s, p) == best else 0.0


# ============================================================================ search support


@kernel
def determinize(s, observer, rng):
    """Resample what ``observer`` cannot see: the supply order and other seats' pending commits."""
    s[G_SCRIPT_N] = s[G_LOG_N]  # a scripted replay's future draws are not known either
    shuffle_range(s, DECK + s[G_DECK_PTR], DECK + s[G_DECK_N], rng, 0)
    if s[G_PHASE] != PH_COMMIT:
        return
    prov = s[G_PROV]
    for q in range(n_players(s)):
        if q != observer and s[pb(q) + F_COMMITTED] == 1:
            if s[O_RETURN_CHOICE] == 1:  # uniform over the legal section vectors
                code = 0
                w = 1
                k = 0
                for j in range(DPP):
                    r = rng_below(
                        rng, 0, min(s[CITY + (prov * DPP + j) * N_ENT + q], COMMIT_SEC_BASE - 1) + 1
                    )
                    code += r * w
                    w *= COMMIT_SEC_BASE
                    k += r
                s[pb(q) + F_COMMIT_SEC] = code
                s[pb(q) + F_COMMIT] = k
            else:
                s[pb(q) + F_COMMIT] = rng_below(rng, 0, city_count(s, prov, q) + 1)


@nb.njit(cache=True)
def masked_state(s, player):
    """The state with what ``player`` cannot see masked (-1: for every seat): what
    :func:`info_key` hashes and the observation tensors (observe.py) show."""
    c = s.copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    c[G_SCRIPT_N] = 0
    for i in range(c[G_LOG_N], MAX_DRAWS):
        c[LOG + i] = 0
    cnt = np.zeros(N_CARD_KINDS, np.int64)
    for i in range(s[G_DECK_PTR], s[G_DECK_N]):
        cnt[s[DECK + i]] += 1
    k = s[G_DECK_PTR]
    for sym in range(N_CARD_KINDS):
        for _ in range(cnt[sym]):
            c[DECK + k] = sym
            k += 1
    if s[G_PHASE] == PH_COMMIT:
        for q in range(n_players(s)):
            if q != player:
                c[pb(q) + F_COMMIT] = 0
                c[pb(q) + F_COMMIT_SEC] = 0
    return c


@nb.njit(cache=True)
def info_key(s, player):
    """A 64-bit key of what ``player`` knows (sim.core contract).

    Hashes the state with the hidden parts masked: the RNG and seed words, the order of the
    undrawn supply (its composition is public), the future of a scripted replay, and,
    during the commitment step, the other seats' commitments, with their sections under
    ``return_choice = in_commitment`` (only *that* they committed is public).
    """
    return hash_words(masked_state(s, player), player)


@kernel
def rewind_secrets(s, observer):
    """Take back the commitments other seats made earlier in this province's commitment step
    (contract: see sim.core); they choose again, the observer's own stays; the ply counter
    drops by the decisions taken back."""
    if s[G_PHASE] != PH_COMMIT:
        return
    undone = 0
    for q in range(n_players(s)):
        if q != observer and s[pb(q) + F_COMMITTED] == 1:
            s[pb(q) + F_COMMITTED] = 0
            s[pb(q) + F_COMMIT] = 0
            s[pb(q) + F_COMMIT_SEC] = 0
            undone += 1
    s[H_PLY] -= undone
    advance(s)


# ============================================================================ features, evaluation

FEATURE_NAMES = (
    "score",
    "vp_sets",
    "vp_city",
    "vp_bonus",
    "vp_monastery",
    "vp_final_sets",
    "vp_leftover_tiles",
    "first_start",
    "supply_left",
    "members_boxed",
    "dragons_bought",
    "monks_at_end",
    "members_returned",
    "members_kept",
    "bonus_by_tiebreak",
    "ousts",
    "members_deployed",
    "members_on_spaces",
    "prince_start_province",
    "reshuffles",
)
N_FEATURES = len(FEATURE_NAMES)


@kernel
def features(s, out):
    """Per-seat balance features at the end of a game (``out[n, N_FEATURES]``)."""
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        out[p, 0] = s[b + F_SCORE]
        out[p, 1] = s[b + F_VP_SET6]
        out[p, 2] = s[b + F_VP_CITY]
        out[p, 3] = s[b + F_VP_BONUS]
        out[p, 4] = s[b + F_VP_MONK]
        out[p, 5] = s[b + F_VP_SET5]
        out[p, 6] = s[b + F_VP_TILES]
        out[p, 7] = 1.0 if s[G_FIRST_START] == p else 0.0
        out[p, 8] = s[b + F_SUPPLY]
        out[p, 9] = s[BOXED + p]
        out[p, 10] = s[b + F_DRAGONS_BOUGHT]
        out[p, 11] = monks_of(s, p)
        out[p, 12] = s[b + F_RETURNED]
        out[p, 13] = s[b + F_KEPT]
        out[p, 14] = s[b + F_BONUS_TIE_WON]
        out[p, 15] = s[b + F_OUSTS]
        out[p, 16] = s[b + F_DEPLOYED]
        sp = 0
        for v in range(N_PROV):
            sp += s[SPACE + v * MAXP + p]
        out[p, 17] = sp
        out[p, 18] = s[b + F_PRINCE_START] // DPP
        out[p, 19] = s[G_RESHUFFLES]


MONK_SURVIVAL = 0.5  # evaluate: chance a monk is still in place at a later scoring (not ousted)
EVAL_SCALE = 10.0  # evaluate: points of lead that make a logistic step of e


@kernel
def scorings_left(s):
    """Scorings still to come (this round's included while its phase 4 has not started)."""
    r = s[G_ROUND]
    left = (ROUNDS - r) // 2
    if r % 2 == 0 and s[G_PHASE] < PH_COMMIT:
        left += 1
    return left


@kernel
def provisional_scores(s, out):
    """Score now, plus (before the game is over) the tiles held at their end value (4.4: one
    point each, a lower bound) and the monks' expected points at the scorings still to
    come; at the end, the final score."""
    for p in range(n_players(s)):
        b = pb(p)
        t = 0
        for c in range(N_PROV):
            t += s[b + F_TILES + c]
        out[p] = s[b + F_SCORE]
        if s[G_PHASE] != PH_OVER:  # at the end the tiles left are scored already (4.4)
            out[p] += (
                t * s[S_TILE_PT] + s[S_MONK] * monks_of(s, p) * scorings_left(s) * MONK_SURVIVAL
            )


@kernel
def evaluate(s, out):
    """Leaf value in [0, 1] per seat: a logistic of the provisional lead over the best rival."""
    n = n_players(s)
    provisional_scores(s, out)
    # the best rival of p is the largest score, or the second largest (which equals the
    # largest when two seats share it) for the seat holding the largest
    top = -1e9
    arg = -1
    for q in range(n):
        if out[q] > top:
            top = out[q]
            arg = q
    second = -1e9
    for q in range(n):
        if q != arg and out[q] > second:
            second = out[q]
    for p in range(n):
        best = second if p == arg else top
        out[p] = 1.0 / (1.0 + np.exp(-(out[p] - best) / EVAL_SCALE))
