"""The scoring of rounds 2, 4 and 6 (spec 4.1-4.4): tiles, members moving into the
cities, returns (the neutral's too), city bonuses, the final tiles and monasteries.
"""

import numpy as np

from sim.core import kernel
from sim.ming_dynasty.layout import (
    BOXED,
    CITY,
    DPP,
    F_BONUS_TIE_WON,
    F_KEPT,
    F_SCORE,
    F_TILES,
    F_VP_BONUS,
    F_VP_CITY,
    F_VP_MONK,
    F_VP_SET5,
    F_VP_SET6,
    F_VP_TILES,
    G_NEUTRAL_POOL,
    G_NLEFT,
    G_ROUND,
    G_START,
    MONK,
    N_DIST,
    N_ENT,
    N_PROV,
    NEUTRAL,
    O_BONUS_TIE,
    O_NEUTRAL_KEEP,
    O_NEUTRAL_POOL,
    OPEN,
    S_BONUS,
    S_MEMBER,
    S_MONK,
    S_SET5,
    S_SET6,
    S_TILE_PT,
    TILE_SUPPLY,
)
from sim.ming_dynasty.rules.helpers import city_count, is_entity, n_entities, n_players, pb


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
        # FULLEST_SECTION: sections holding the most members of all entities together
        fullest = s[O_BONUS_TIE] != 0
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
