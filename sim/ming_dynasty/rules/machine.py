"""The round as a state machine: ``advance`` runs automatic steps until a seat must
decide (``G_PHASE`` names the kind, ``H_CURRENT`` the seat) or the game ends; the phases of
a round and the province-by-province scoring.
"""

from sim.core import H_CURRENT, NO_PLAYER, kernel
from sim.ming_dynasty.layout import (
    COMMIT_SEC_BASE,
    DISPLAY,
    DPP,
    F_COMMIT,
    F_COMMIT_SEC,
    F_COMMITTED,
    F_PASSED,
    F_RET_LEFT,
    F_RETURNED,
    F_SCORE,
    G_CHOOSER,
    G_DRAGON_SUPPLY,
    G_NEUTRAL_PLACED,
    G_NEUTRAL_POOL,
    G_NEUTRAL_SKIPPED,
    G_NLEFT,
    G_NPRE,
    G_NSOLE,
    G_PHASE,
    G_PROV,
    G_ROUND,
    G_START,
    G_SUB,
    HAND_LIMIT,
    MAXP,
    N_DIST,
    N_ENT,
    N_PROV,
    NEUTRAL,
    O_DRAGON_PAY,
    O_NEUTRAL_KEEP,
    O_RETURN_CHOICE,
    OPEN,
    PH_CARDS,
    PH_CHOOSE,
    PH_COMMIT,
    PH_NEUTRAL,
    PH_NRETURN,
    PH_OVER,
    PH_PLACE,
    PH_PRINCE,
    PH_RETURN,
    PH_TURN,
    ROUNDS,
    S_NEUTRAL_EACH,
    S_NEUTRAL_MAX,
    S_PLACE,
    SPACE,
)
from sim.ming_dynasty.rules.helpers import city_count, hand_size, monks_of, n_players, pb
from sim.ming_dynasty.rules.scoring import (
    auto_return,
    district_to_city,
    final_tiles,
    finish_province,
    neutral_can_keep,
    neutral_return_open,
    score_monasteries,
    sections_with,
    send_back,
)


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
    """D22: the seat at ``position`` of the ascending score ranking; ties by monks, then
    clockwise."""
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
