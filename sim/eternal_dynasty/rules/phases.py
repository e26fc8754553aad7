"""The parts of a Generation (spec 6.1): ``next_phase`` pushes the next part when the
task stack is empty; dealing, the Ruler Draft, revealing Rulers, turns and the cleanup.
"""

from sim.core import kernel
from sim.eternal_dynasty.layout import (
    AB_START_CATCHUP_GAIN,
    AB_START_CONVERT,
    AB_START_MOVE,
    EV_NONE,
    F_BM,
    F_BP,
    F_CALLED,
    F_CHOICE,
    F_DEALT,
    F_DI,
    F_DPICK,
    F_HOME,
    F_KEEP,
    F_KEPT,
    F_NDYN,
    F_NVOTE,
    F_RULER,
    F_RULER_HIST,
    G_BAN,
    G_FINAL_FIRST,
    G_FIRST,
    G_GEN,
    G_NGEN,
    G_NROUNDS,
    G_PHASE,
    G_ROUND,
    G_RUL_END,
    G_RUL_PTR,
    G_TURN_IDX,
    G_TURNS,
    K_DEALT_DYN,
    K_DEALT_RULERS,
    K_DI_BONUS,
    K_DI_CARD,
    LEAD,
    LOC_CHOSEN,
    LOC_DEALT,
    LOC_DISCARD,
    LOC_OUT,
    MARK,
    MAXP,
    N_PROV,
    N_RULERS,
    N_VOTE_TYPES,
    NCOL,
    O_DRAFT,
    O_EVENTS,
    OR_DEAL,
    OR_DRAFT,
    OR_NEXT,
    PH_AFTER_CHOICE,
    PH_AFTER_KEEP,
    PH_GEN_START,
    PH_TURNS,
    R_BM,
    R_BP,
    R_HOME,
    R_KEEP,
    RUL_DECK,
    RUL_KNOW,
    RUL_LOC,
    SC_ORDER,
    SC_PASSED,
)
from sim.eternal_dynasty.rules.decks import discard_card, draw_card, draw_dynasty, remove_from_hand
from sim.eternal_dynasty.rules.helpers import ab_arg, ability, dconst, n_players, pb, ruler_field
from sim.eternal_dynasty.rules.scoring import end_game, score_generation
from sim.eternal_dynasty.rules.tasks import (
    TK_ACTION,
    TK_ARC,
    TK_DEAL,
    TK_DISCARD,
    TK_DONG,
    TK_DRAFT,
    TK_DRAFT_PASS,
    TK_EVENT_DRAW,
    TK_FLIP,
    TK_FREE,
    TK_INIT_PLACE,
    TK_MOVE_FROM,
    TK_RULER,
    TK_VOTECALL,
    push,
    seat_order,
    touch_all,
)


@kernel
def next_phase(s):
    """Push the next part of the Generation when the task stack is empty (spec 6.1)."""
    n = n_players(s)
    order = s[SC_ORDER + OR_NEXT * (MAXP + 1) : SC_ORDER + (OR_NEXT + 1) * (MAXP + 1)]
    seat_order(s, s[G_FIRST], order)
    ph = s[G_PHASE]
    if ph == PH_GEN_START:
        s[G_GEN] += 1
        if s[G_GEN] > s[G_NGEN]:
            end_game(s)
            return
        push(s, TK_DEAL, 0, 0, 0, 0, 0, 0, 0)
        if s[G_GEN] >= 2 and s[O_EVENTS] != EV_NONE:
            push(s, TK_EVENT_DRAW, 0, 0, 0, 0, 0, 0, 0)
        s[G_PHASE] = PH_AFTER_CHOICE
    elif ph == PH_AFTER_CHOICE:
        reveal_rulers(s)
        for i in range(n - 1, -1, -1):
            push(s, TK_DISCARD, order[i], 0, 0, 0, 0, 0, 0)
        s[G_PHASE] = PH_AFTER_KEEP
    elif ph == PH_AFTER_KEEP:
        for i in range(n - 1, -1, -1):
            push(s, TK_INIT_PLACE, order[i], 0, 0, 0, 0, 0, 0)
        for i in range(n - 1, -1, -1):
            push(s, TK_ARC, order[i], 0, 0, 0, 0, 0, 0)
        s[G_ROUND] = 1
        s[G_TURN_IDX] = -1
        s[G_PHASE] = PH_TURNS
    elif ph == PH_TURNS:
        s[G_TURN_IDX] += 1
        if s[G_TURN_IDX] >= n:
            s[G_TURN_IDX] = 0
            s[G_ROUND] += 1
        if s[G_ROUND] > s[G_NROUNDS]:
            score_generation(s)
            cleanup(s)
            s[G_PHASE] = PH_GEN_START
            return
        s[G_TURNS] += 1
        push_turn(s, order[s[G_TURN_IDX]])


@kernel
def push_turn(s, p):
    """Spec 6.3, p's turn: T1 Vote call (optional), T2 start-of-turn ability (optional: Yan's
    move, Jiang's flip and Dong's gain each offer a skip), T3 free play, T4 action, T5 free play."""
    push(s, TK_FREE, p, 1, 0, 0, 0, 0, 0)
    push(s, TK_ACTION, p, 0, 0, 0, 0, 0, 0)
    push(s, TK_FREE, p, 0, 0, 0, 0, 0, 0)
    ab = ability(s, p)
    if ab == AB_START_MOVE:
        push(s, TK_MOVE_FROM, p, ab_arg(s, p, 0), 1, 0, 0, 0, 0)
    elif ab == AB_START_CONVERT:
        push(s, TK_FLIP, p, 0, 0, 0, 0, 0, 0)
    elif ab == AB_START_CATCHUP_GAIN:
        push(s, TK_DONG, p, 0, 0, 0, 0, 0, 0)
    if s[pb(p) + F_CALLED] == 0 and s[pb(p) + F_NVOTE] > 0:
        push(s, TK_VOTECALL, p, 0, 0, 0, 0, 0, 0)


@kernel
def deal(s):
    """G2: 3 Rulers then 6 Dynasty cards each, one at a time clockwise from the first player."""
    n = n_players(s)
    order = s[SC_ORDER + OR_DEAL * (MAXP + 1) : SC_ORDER + (OR_DEAL + 1) * (MAXP + 1)]
    seat_order(s, s[G_FIRST], order)
    for k in range(dconst(s, K_DEALT_RULERS)):
        for i in range(n):
            p = order[i]
            r = draw_card(s, RUL_DECK, RUL_LOC, G_RUL_PTR, G_RUL_END, N_RULERS, RUL_KNOW)
            s[pb(p) + F_DEALT + k] = r
            if r >= 0:
                s[RUL_LOC + r] = LOC_DEALT
                s[RUL_KNOW + r] = 1 << p
    for _ in range(dconst(s, K_DEALT_DYN)):
        for i in range(n):
            draw_dynasty(s, order[i])
    if s[O_DRAFT] == 1:
        push(s, TK_DRAFT_PASS, 0, 1, 0, 0, 0, 0, 0)
        for i in range(n - 1, -1, -1):
            push(s, TK_DRAFT, order[i], 1, 0, 0, 0, 0, 0)
    else:
        for i in range(n - 1, -1, -1):
            push(s, TK_RULER, order[i], 0, 0, 0, 0, 0, 0)


@kernel
def draft_pass(s, stage):
    """G3: every player keeps the picked Ruler and passes the rest, to the left (seat + 1) in
    odd Generations and to the right in even ones; after the second pick the pool for G4 is
    {first pick, second pick, the Ruler received}."""
    n = n_players(s)
    d = 1 if s[G_GEN] % 2 == 1 else n - 1
    passed = s[SC_PASSED : SC_PASSED + MAXP * 3]
    for i in range(MAXP * 3):
        passed[i] = -1
    for p in range(n):
        b = pb(p)
        k = 0
        for j in range(3):
            r = s[b + F_DEALT + j]
            if r < 0:
                continue
            if j == s[b + F_DPICK]:
                s[b + F_KEPT + stage - 1] = r
            else:
                passed[((p + d) % n) * 3 + k] = r
                s[RUL_KNOW + r] |= 1 << ((p + d) % n)  # spec 9: seen by everyone it passes through
                k += 1
        s[b + F_DPICK] = -1
    for p in range(n):
        b = pb(p)
        for j in range(3):
            s[b + F_DEALT + j] = passed[p * 3 + j]
    order = s[SC_ORDER + OR_DRAFT * (MAXP + 1) : SC_ORDER + (OR_DRAFT + 1) * (MAXP + 1)]
    seat_order(s, s[G_FIRST], order)
    if stage == 1:
        push(s, TK_DRAFT_PASS, 0, 2, 0, 0, 0, 0, 0)
        for i in range(n - 1, -1, -1):
            push(s, TK_DRAFT, order[i], 2, 0, 0, 0, 0, 0)
        return
    for p in range(n):
        b = pb(p)
        got = s[b + F_DEALT]
        s[b + F_DEALT] = s[b + F_KEPT]
        s[b + F_DEALT + 1] = s[b + F_KEPT + 1]
        s[b + F_DEALT + 2] = got
        s[b + F_KEPT] = -1
        s[b + F_KEPT + 1] = -1
    for i in range(n - 1, -1, -1):
        push(s, TK_RULER, order[i], 0, 0, 0, 0, 0, 0)


@kernel
def reveal_rulers(s):
    """G5/G6: chosen Rulers revealed, unpicked ones discarded, bonus pools filled."""
    n = n_players(s)
    for p in range(n):
        b = pb(p)
        r = s[b + F_DEALT + s[b + F_CHOICE]]
        s[b + F_RULER] = r
        s[RUL_LOC + r] = LOC_CHOSEN
        s[b + F_HOME] = ruler_field(s, r, R_HOME)
        s[b + F_BM] = ruler_field(s, r, R_BM)
        s[b + F_BP] = ruler_field(s, r, R_BP)
        s[b + F_KEEP] = ruler_field(s, r, R_KEEP)
        s[b + F_RULER_HIST + s[G_GEN] - 1] = r
        for k in range(3):
            o = s[b + F_DEALT + k]
            if o >= 0 and o != r:
                s[RUL_LOC + o] = LOC_DISCARD
            s[b + F_DEALT + k] = -1
        s[b + F_CHOICE] = -1


@kernel
def cleanup(s):
    """G11."""
    n = n_players(s)
    if n == 2:
        # step 1, 2 players: Dynasty Influence income, the unspent bonus (M + P) plus 2 per
        # Dynasty card still in hand, set-aside copies included (spec 8, D32)
        for p in range(n):
            b = pb(p)
            s[b + F_DI] += (
                dconst(s, K_DI_BONUS) * (s[b + F_BM] + s[b + F_BP])
                + dconst(s, K_DI_CARD) * s[b + F_NDYN]
            )
    for i in range(NCOL * N_PROV * 2):
        s[LEAD + i] = 0
    touch_all(s)
    for p in range(n):
        b = pb(p)
        while s[b + F_NDYN] > 0:
            discard_card(s, remove_from_hand(s, p, s[b + F_NDYN] - 1), 1 << p)
        if s[b + F_RULER] >= 0:
            s[RUL_LOC + s[b + F_RULER]] = LOC_OUT
        s[b + F_RULER] = -1
        s[b + F_HOME] = -1
        s[b + F_BM] = 0
        s[b + F_BP] = 0
        s[b + F_CALLED] = 0
    for q in range(N_PROV):
        s[MARK + q] = 0
    for v in range(N_VOTE_TYPES):
        s[G_BAN + v] = 0
    s[G_FINAL_FIRST] = s[G_FIRST]
    s[G_FIRST] = (s[G_FIRST] + 1) % n
