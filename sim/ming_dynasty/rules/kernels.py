"""The contract's kernels of play (sim.core): ``current_player``, ``is_terminal``,
``legal_mask``, ``apply`` and ``returns``.
"""

import numpy as np

from sim.core import H_CURRENT, H_PLY, clear_mask, kernel
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
    BOXED,
    CARD_D,
    CITY,
    DISPLAY,
    DPP,
    F_COMMIT,
    F_COMMIT_SEC,
    F_COMMITTED,
    F_DEPLOYED,
    F_DRAGONS_BOUGHT,
    F_HAND,
    F_OUSTS,
    F_PASSED,
    F_PRINCE_START,
    F_RET_LEFT,
    F_RETURNED,
    F_SCORE,
    F_SUPPLY,
    F_TILES,
    G_CHOOSER,
    G_DRAGON_SUPPLY,
    G_NEUTRAL_PLACED,
    G_NEUTRAL_POOL,
    G_NLEFT,
    G_PHASE,
    G_PROV,
    G_ROUND,
    G_START,
    G_SUB,
    G_WALK_STEPS,
    MAXP,
    MONK,
    N_CARD_KINDS,
    N_COMMIT_SEC,
    N_DEPLOY,
    N_DIST,
    N_ENT,
    N_PROV,
    NEUTRAL,
    NUM_ACTIONS,
    O_DRAGON_PAY,
    O_RETURN_CHOICE,
    OPEN,
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
    PRINCE,
    SPACE,
    TILE_SUPPLY,
)
from sim.ming_dynasty.rules.cards import (
    commit_sec_legal,
    commit_sec_total,
    refill,
    spend_card,
    stay_discard,
)
from sim.ming_dynasty.rules.helpers import adj, city_count, monks_of, n_players, pb, prince_at
from sim.ming_dynasty.rules.machine import advance, begin_round, neutral_place_legal
from sim.ming_dynasty.rules.movement import DEPLOY_MONK, DEPLOY_OPEN, deploy_legal, step_legal
from sim.ming_dynasty.rules.scoring import neutral_return_open, send_back


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
