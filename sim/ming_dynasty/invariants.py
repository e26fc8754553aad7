"""Ming Dynasty invariants, checked after every decision (tests/test_ming_dynasty_properties.py,
``dynasty fuzz``; protocol in :mod:`sim.invariants`).

Members, tiles and cards conserved; hands of 5 after phase 2; sections and cities;
princes; scores never fall and equal the sum of their parts.  Every scoring of rounds 2, 4
and 6 is replayed by ``recount``, written from spec 4.1-4.4 and sharing no code with the
engine's scoring: it reads only the position before the scoring and the decisions taken in
it, and must reach the engine's scores and tiles.
"""

import numba as nb
import numpy as np

from sim.ming_dynasty import layout as L
from sim.ming_dynasty.rules import pb

(
    E_MEMBERS,
    E_NEUTRAL,
    E_TILES,
    E_CARDS,
    E_DRAGONS,
    E_HAND,
    E_HAND5,
    E_CITY,
    E_SECTION,
    E_PRINCE,
    E_SCORE,
    E_PARTS,
    E_RECOUNT,
) = range(1, 14)


@nb.njit(cache=True)
def check_state(s, prev_phase, prev_scores):
    n = s[2]
    ph = s[L.G_PHASE]
    for p in range(n):
        b = pb(p)
        tot = s[b + L.F_SUPPLY] + s[L.BOXED + p]
        for sp in range(L.N_PROV):
            tot += s[L.SPACE + sp * L.MAXP + p]
        for d in range(L.N_DIST):
            tot += s[L.OPEN + d * L.N_ENT + p] + s[L.CITY + d * L.N_ENT + p]
            if s[L.MONK + d] == p:
                tot += 1
        if tot + 1 != 31:  # + the score marker
            return E_MEMBERS
        h = 0
        for c in range(4):
            if s[b + L.F_HAND + c] < 0:
                return E_HAND
            h += s[b + L.F_HAND + c]
        if h > 5:
            return E_HAND
        if prev_phase == L.PH_CARDS and ph == L.PH_TURN and h != 5:
            # only under dragon_payment = any_member can a seat be left unable to take a card:
            # rivals took its members off the spaces and the dragon supply is empty
            if s[L.O_DRAGON_PAY] == 0 or s[L.G_DRAGON_SUPPLY] > 0:
                return E_HAND5
            for sp in range(L.N_PROV):
                if s[L.SPACE + sp * L.MAXP + p] > 0:
                    return E_HAND5
        if s[b + L.F_SCORE] < prev_scores[p]:
            return E_SCORE
        prev_scores[p] = s[b + L.F_SCORE]
        parts = (
            s[b + L.F_VP_SET6]
            + s[b + L.F_VP_CITY]
            + s[b + L.F_VP_BONUS]
            + s[b + L.F_VP_MONK]
            + s[b + L.F_VP_SET5]
            + s[b + L.F_VP_TILES]
        )
        if parts != s[b + L.F_SCORE]:
            return E_PARTS
    if n == 2:
        tot = s[L.G_NEUTRAL_POOL] + s[L.BOXED + L.NEUTRAL]
        for d in range(L.N_DIST):
            tot += s[L.OPEN + d * L.N_ENT + L.NEUTRAL] + s[L.CITY + d * L.N_ENT + L.NEUTRAL]
        if tot != (s[L.S_NEUTRAL_STRICT] if s[L.O_NEUTRAL_POOL] == 1 else s[L.S_NEUTRAL_POOL]):
            return E_NEUTRAL
    for c in range(L.N_PROV):
        tot = s[L.TILE_SUPPLY + c]
        for p in range(n):
            tot += s[pb(p) + L.F_TILES + c]
        if tot != s[L.S_TILES]:
            return E_TILES
    for sym in range(3):
        tot = s[L.G_DISCARD + sym]
        for i in range(s[L.G_DECK_PTR], s[L.G_DECK_N]):
            if s[L.DECK + i] == sym:
                tot += 1
        for sp in range(L.N_PROV):
            if s[L.DISPLAY + sp] == sym:
                tot += 1
        for p in range(n):
            tot += s[pb(p) + L.F_HAND + sym]
        if tot != s[L.S_CARDS + sym]:
            return E_CARDS
    tot = (
        s[L.G_DRAGON_SUPPLY] + s[L.G_DISCARD_D]
    )  # discarded dragons: stay_dragon = discard_pile only
    if s[L.G_DISCARD_D] > 0 and s[L.O_STAY_DRAGON] == 0:
        return E_DRAGONS
    for i in range(s[L.G_DECK_PTR], s[L.G_DECK_N]):
        if s[L.DECK + i] == 3:
            tot += 1
    for sp in range(L.N_PROV):
        if s[L.DISPLAY + sp] == 3:
            tot += 1
    for p in range(n):
        tot += s[pb(p) + L.F_HAND + 3]
    if tot != s[L.S_DRAGONS]:
        return E_DRAGONS
    in_scoring = ph == L.PH_COMMIT or ph == L.PH_RETURN or ph == L.PH_NRETURN
    for d in range(L.N_DIST):
        sec = 0
        for e in range(L.N_ENT):
            sec += s[L.CITY + d * L.N_ENT + e]
        if sec > 3:
            return E_SECTION
        if sec > 0 and not in_scoring:
            return E_CITY
    if ph != L.PH_WALK and ph != L.PH_PRINCE:
        for p in range(n):
            for q in range(p):
                if s[L.PRINCE + p] == s[L.PRINCE + q]:
                    return E_PRINCE
    return 0


@nb.njit(cache=True)
def majority_nb(counts, moved):
    """4.1 for one district (spec table): ``moved[e]`` members of each entity go to the city."""
    moved[:] = 0
    m1 = counts.max()
    if m1 == 0:
        return
    t1 = 0
    for e in range(5):
        if counts[e] == m1:
            t1 += 1
    if t1 >= 4:
        return
    if t1 >= 2:
        for e in range(5):
            if counts[e] == m1:
                moved[e] = 1
        return
    lead = np.argmax(counts)
    moved[lead] = min(2, m1)
    m2 = 0
    for e in range(5):
        if e != lead and counts[e] > m2:
            m2 = counts[e]
    if m2 == 0:
        return
    t2 = 0
    sec = -1
    for e in range(5):
        if e != lead and counts[e] == m2:
            t2 += 1
            sec = e
    if t2 == 1:
        moved[sec] = 1


@nb.njit(cache=True)
def neutral_alone_wins(city, v, fullest):
    """4.2 step 6 on ``city`` (sections x entities) with the neutral's sections replaced by
    ``v``: True if the neutral is the bonus's only winner (D19 tie-break included)."""
    c = city.copy()
    c[:, 4] = v
    tot = c.sum(axis=0)
    best = tot.max()
    if best == 0 or tot[4] != best:
        return False
    full = c.sum(axis=1)
    key = np.full(5, -1, np.int64)
    for e in range(5):
        if tot[e] == best:
            for j in range(3):
                if not fullest or full[j] == full.max():
                    key[e] = max(key[e], c[j, e])
    for e in range(4):  # noqa: SIM110 (numba kernel: a plain loop, no generator)
        if key[e] >= key[4]:
            return False
    return True


@nb.njit(cache=True)
def neutral_can_win(city, keep, fullest):
    """Some choice of ``keep`` of the neutral's city members wins the bonus alone."""
    v = np.zeros(3, np.int64)
    for v0 in range(city[0, 4] + 1):
        for v1 in range(city[1, 4] + 1):
            v2 = keep - v0 - v1
            if 0 <= v2 <= city[2, 4]:
                v[0], v[1], v[2] = v0, v1, v2
                if neutral_alone_wins(city, v, fullest):
                    return True
    return False


@nb.njit(cache=True)
def recount(s, dec, nd, out, tiles_out):
    """Replay one whole scoring (4.1-4.3, and 4.4 in round 6) from state ``s`` (before the
    PASS that ended phase 3): ``dec[0]`` is that PASS, ``dec[1:nd]`` the COMMIT / RETURN_FROM
    decisions taken in the scoring in order.  Writes the final scores into ``out`` and each
    seat's tiles after the scoring into ``tiles_out`` (4.4's sets returned); returns
    the number of provinces where a 2-player neutral kept a tie it wins on the section
    tie-break (neutral_keep = tie_on_tiebreak), or -1 if the decisions do not fit the
    position (left over, missing, or a neutral return that gives up the tie-break)."""
    n = s[2]
    ents = np.zeros(5, np.bool_)
    ents[:n] = True
    if n == 2:
        ents[4] = True
    r = s[L.G_ROUND]
    st = s[L.G_START]
    ri = r // 2 - 1
    set6 = s[L.S_SET6 + ri]
    per = s[L.S_MEMBER + ri]
    opn = np.zeros((18, 5), np.int64)
    for d in range(18):
        for e in range(5):
            if ents[e]:
                opn[d, e] = s[L.OPEN + d * 5 + e]
    tiles = np.zeros((4, 6), np.int64)
    score = np.zeros(4, np.int64)
    for p in range(n):
        score[p] = s[pb(p) + L.F_SCORE]
        for c in range(6):
            tiles[p, c] = s[pb(p) + L.F_TILES + c]
    supply = np.zeros(6, np.int64)
    for c in range(6):
        supply[c] = s[L.TILE_SUPPLY + c]
    moved = np.zeros(5, np.int64)
    city = np.zeros((3, 5), np.int64)
    commit = np.zeros(4, np.int64)
    secs = np.zeros((4, 3), np.int64)
    di = 1
    ties = 0
    fullest = s[L.O_BONUS_TIE] == 1
    for prov in range(6):
        city[:, :] = 0
        for j in range(3):
            d = 3 * prov + j
            majority_nb(opn[d], moved)
            for e in range(5):
                opn[d, e] -= moved[e]
                city[j, e] += moved[e]
            for i in range(n):
                p = (st + i) % n
                for _ in range(moved[p]):
                    if supply[prov] > 0:
                        supply[prov] -= 1
                        tiles[p, prov] += 1
                        while tiles[p].min() > 0:
                            tiles[p] -= 1
                            supply += 1
                            score[p] += set6
        pre = 0
        for p in range(n):
            pre = max(pre, city[:, p].sum())
        sole = n == 2 and city[:, 4].sum() > pre
        # commitments, clockwise from the start player
        commit[:] = 0
        secs[:, :] = -1
        for i in range(n):
            p = (st + i) % n
            if city[:, p].sum() > 0:
                if di >= nd:
                    return -1
                a = dec[di]
                di += 1
                if a >= L.A_COMMIT_SEC:
                    code = a - L.A_COMMIT_SEC
                    for j in range(3):
                        secs[p, j] = code % 3
                        code //= 3
                    commit[p] = secs[p].sum()
                else:
                    commit[p] = a - L.A_COMMIT
        # returns, clockwise from the start player
        for i in range(n):
            p = (st + i) % n
            k = commit[p]
            if secs[p, 0] >= 0:
                for j in range(3):
                    city[j, p] -= secs[p, j]
                    opn[3 * prov + j, p] += secs[p, j]
                continue
            while k > 0:
                have = 0
                first = -1
                for j in range(3):
                    if city[j, p] > 0:
                        have += 1
                        if first < 0:
                            first = j
                if k == city[:, p].sum() or have == 1:
                    j = first
                else:
                    if di >= nd:
                        return -1
                    j = dec[di] - L.A_DIST - 3 * prov
                    di += 1
                city[j, p] -= 1
                opn[3 * prov + j, p] += 1
                k -= 1
        if n == 2:
            nn = city[:, 4].sum()
            k = nn
            tie = False
            keep = 0
            if sole:
                h = pre
                if s[L.O_NEUTRAL_KEEP] != 1:  # after_returns, tie_on_tiebreak
                    h = max(city[:, 0].sum(), city[:, 1].sum())
                keep = h + 1
                if s[L.O_NEUTRAL_KEEP] == 2 and neutral_can_win(city, h, fullest):
                    keep = h
                    tie = True
                    ties += 1
                k = nn - keep
            while k > 0:
                have = 0
                first = -1
                for j in range(3):
                    if city[j, 4] > 0:
                        have += 1
                        if first < 0:
                            first = j
                # under a kept tie, a section is open only if the rest can still win it
                ok = np.zeros(3, np.bool_)
                for j in range(3):
                    if city[j, 4] > 0:
                        city[j, 4] -= 1
                        ok[j] = not tie or neutral_can_win(city, keep, fullest)
                        city[j, 4] += 1
                if k == city[:, 4].sum() or have == 1:
                    j = first
                elif ok.sum() == 1:
                    j = np.argmax(ok)  # one open section: no decision is asked
                else:
                    if di >= nd:
                        return -1
                    j = dec[di] - L.A_DIST - 3 * prov
                    di += 1
                    if not ok[j]:
                        return -1
                city[j, 4] -= 1
                opn[3 * prov + j, 4] += 1
                k -= 1
        for p in range(n):
            score[p] += city[:, p].sum() * per
        best = 0
        for e in range(5):
            best = max(best, city[:, e].sum())
        if best > 0:
            tied = np.zeros(5, np.bool_)
            for e in range(5):
                tied[e] = city[:, e].sum() == best
            if tied.sum() > 1:
                key = np.zeros(5, np.int64)
                full = city.sum(axis=1)
                for e in range(5):
                    for j in range(3):
                        if s[L.O_BONUS_TIE] == 0 or full[j] == full.max():
                            key[e] = max(key[e], city[j, e])
                kb = -1
                for e in range(5):
                    if tied[e]:
                        kb = max(kb, key[e])
                for e in range(5):
                    tied[e] = tied[e] and key[e] == kb
            share = s[L.S_BONUS] // tied.sum()
            for p in range(n):
                if tied[p]:
                    score[p] += share
    if di != nd:
        return -1
    for d in range(18):
        if s[L.MONK + d] >= 0:
            score[s[L.MONK + d]] += s[L.S_MONK]
    if r == 6:
        for p in range(n):
            t = tiles[p]  # each set: one tile from each of the 5 largest piles, back to the supply
            sets = 0
            while (t > 0).sum() >= 5:
                order = np.argsort(-t, kind="mergesort")
                for i in range(5):
                    t[order[i]] -= 1
                sets += 1
            score[p] += sets * s[L.S_SET5] + t.sum() * s[L.S_TILE_PT]
    out[:] = score
    tiles_out[:, :] = tiles
    return ties


ERRORS = (
    "",
    "E_MEMBERS",
    "E_NEUTRAL",
    "E_TILES",
    "E_CARDS",
    "E_DRAGONS",
    "E_HAND",
    "E_HAND5",
    "E_CITY",
    "E_SECTION",
    "E_PRINCE",
    "E_SCORE",
    "E_PARTS",
    "E_RECOUNT",
)
# stats[ST_TIES]: provinces where a 2-player neutral kept a tie won on the section tie-break
ST_TIES = 0
STATS_SIZE = 1
# memo: the scoring being played (-1 none), decisions logged in it, the scoring just
# recounted (-1 none; read by the property test), scores last seen, the decisions of the
# scoring, and the state before it
MAX_SCORING_DECISIONS = 64
M_CUR, M_LI, M_DONE = 0, 1, 2
M_PREV = 3
M_DEC = M_PREV + 4
M_SNAP = M_DEC + MAX_SCORING_DECISIONS
MEMO_SIZE = M_SNAP + L.STATE_SIZE


@nb.njit(cache=True)
def _in_scoring(ph):
    return ph == L.PH_COMMIT or ph == L.PH_RETURN or ph == L.PH_NRETURN


@nb.njit(cache=True)  # compiled for CHECK_SIG when first passed or called
def check(s, before, action, mask, memo, stats):
    """After each decision: log the decisions of a scoring from the state before it (the
    PASS that ends phase 3 in rounds 2, 4, 6), recount the scoring when it ends, then
    ``check_state``."""
    prev = memo[M_PREV : M_PREV + 4]
    memo[M_DONE] = -1
    if action < 0:
        memo[M_CUR] = -1
        memo[M_LI] = 0
        prev[:] = 0
        return check_state(s, s[L.G_PHASE], prev)
    ph = before[L.G_PHASE]
    nph = s[L.G_PHASE]
    in_scoring = _in_scoring(nph)
    if (
        ph == L.PH_TURN
        and before[L.G_ROUND] % 2 == 0
        and memo[M_CUR] < 0
        and (
            in_scoring
            or nph == L.PH_PLACE
            or nph == L.PH_NEUTRAL
            or nph == L.PH_CHOOSE
            or nph == L.PH_OVER
        )
    ):
        memo[M_CUR] = before[L.G_ROUND] // 2 - 1
        memo[M_SNAP : M_SNAP + L.STATE_SIZE] = before
        memo[M_DEC] = action
        memo[M_LI] = 1
    elif memo[M_CUR] >= 0 and _in_scoring(ph):
        if memo[M_LI] >= MAX_SCORING_DECISIONS:
            return E_RECOUNT
        memo[M_DEC + memo[M_LI]] = action
        memo[M_LI] += 1
    if memo[M_CUR] >= 0 and not in_scoring:
        n = s[2]
        got = np.zeros(4, np.int64)
        got_tiles = np.zeros((4, 6), np.int64)
        ties = recount(
            memo[M_SNAP : M_SNAP + L.STATE_SIZE],
            memo[M_DEC : M_DEC + MAX_SCORING_DECISIONS],
            memo[M_LI],
            got,
            got_tiles,
        )
        if ties < 0:
            return E_RECOUNT
        stats[ST_TIES] += ties
        for p in range(n):
            if got[p] != s[pb(p) + L.F_SCORE]:
                return E_RECOUNT
            for c in range(6):
                if got_tiles[p, c] != s[pb(p) + L.F_TILES + c]:
                    return E_RECOUNT
        memo[M_DONE] = memo[M_CUR]
        memo[M_CUR] = -1
    return check_state(s, ph, prev)


SYMBOLS = ("Horse", "Boat", "Palanquin", "Dragon")  # sim.ming_dynasty.view.SYM_NAME


def chance_problem(n: int, options: dict, chance: list) -> str | None:
    """What is wrong with a replay's chance outcomes (None if nothing): first the start player
    ``{"event": "start_player", "seat": 0..n-1}``, then at most MAX_DRAWS cards
    ``{"event": "card", "symbol": Horse|Boat|Palanquin|Dragon}``."""
    if len(chance) > L.MAX_DRAWS + 1:
        return f"more than {L.MAX_DRAWS} cards drawn"
    for i, o in enumerate(chance):
        if not isinstance(o, dict):
            return f"[{i}]: expected an object, got {type(o).__name__}"
        ev = o.get("event")
        if ev == "start_player" and i == 0:
            s = o.get("seat")
            if (
                set(o) != {"event", "seat"}
                or not isinstance(s, int)
                or isinstance(s, bool)
                or not 0 <= s < n
            ):
                return f'[{i}]: expected {{"event": "start_player", "seat": 0..{n - 1}}}'
        elif ev == "card" and i > 0:
            if set(o) != {"event", "symbol"} or o["symbol"] not in SYMBOLS:
                return f'[{i}]: expected {{"event": "card", "symbol": {"|".join(SYMBOLS)}}}'
        else:
            return f"[{i}]: expected the start player first, then cards, got event {str(ev)[:40]!r}"
    return None
