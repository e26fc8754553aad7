"""The contract's kernels of play (sim.core): ``legal_mask`` and ``apply`` for every
decision task (playing a Dynasty card and calling a Vote among them), ``is_terminal``, and
``returns`` (the Eternal Emperor's win included).
"""

import numpy as np

from sim.core import H_CURRENT, H_PLY, NO_PLAYER, clear_mask, kernel
from sim.eternal_dynasty.layout import (
    A_AYE,
    A_CARD,
    A_NAY,
    A_NUM,
    A_PLAYER,
    A_PQ,
    A_PROV,
    A_SKIP,
    A_TYPE,
    AB_PLACE_RANGE,
    ADJB,
    C_A0,
    C_CTYPE,
    C_KIND,
    DK_ALLIANCE,
    DK_CONVERT,
    DK_EACH_OTHER_REMOVES,
    DK_GAIN,
    DK_GAIN_SPLIT,
    DK_LEADER,
    DK_MOVE,
    DK_REMOVE_LEADER,
    DK_REMOVE_OTHER,
    DK_STRUCTURE,
    DYN_TYPE,
    EE,
    F_BID,
    F_BM,
    F_BP,
    F_CALLED,
    F_CARDS_PLAYED,
    F_CHOICE,
    F_DEALT,
    F_DI,
    F_DI_SPENT,
    F_DPICK,
    F_HAND,
    F_HOME,
    F_NDYN,
    F_NVOTE,
    F_PICK,
    F_PLACED,
    F_VOTES_CALLED,
    G_AYES,
    G_BID_WINNER,
    G_EE_DEC,
    G_NAYS,
    G_PASSES,
    G_SP,
    G_VOTE_CALLER,
    G_VOTE_CARD,
    G_VOTE_STAGE,
    G_VOTES_CALLED,
    K_ALLY_COST,
    KNOW_ALL,
    MAXP,
    N_NUM,
    N_PROV,
    NUM_ACTIONS,
    OR_APPLY,
    OR_CALL,
    SC_CARD,
    SC_ORDER,
    STACK,
    STRUCT,
    T_ANY,
    TASK_SIZE,
    VHAND_MAX,
    M,
    P,
)
from sim.eternal_dynasty.rules.decks import (
    discard_card,
    is_setaside_copy,
    remove_from_hand,
    remove_vote,
)
from sim.eternal_dynasty.rules.helpers import (
    ab_arg,
    ability,
    colour_order,
    dconst,
    dyn_field,
    gain_set,
    is_ee,
    legal_set,
    li,
    n_colours,
    n_players,
    pb,
    represented,
    ti,
)
from sim.eternal_dynasty.rules.machine import (
    advance,
    dong_types,
    guo_options,
    remove_own_options,
    take_others_options,
    target_candidates,
)
from sim.eternal_dynasty.rules.playability import (
    assassin_targets,
    card_playable,
    card_sets,
    convert_targets,
    free_type,
    leader_targets,
    move_sources,
    remove_targets,
    structure_targets,
    uprising_targets,
    victim_ok,
)
from sim.eternal_dynasty.rules.scoring import final_score, tiebreak_key
from sim.eternal_dynasty.rules.tasks import (
    GF_NO_BONUS,
    GF_PRE_TAKEN,
    PU_ALLY,
    PU_ASSASSIN,
    PU_CONVERT,
    PU_REMOVE,
    TG_MASK,
    TK_ACTION,
    TK_ASSASSIN_AT,
    TK_AYENAY,
    TK_BID,
    TK_BID_RESOLVE,
    TK_CONVERT_AT,
    TK_DISCARD,
    TK_DONG,
    TK_DRAFT,
    TK_EE_VOTE,
    TK_EXTRA,
    TK_FLIP,
    TK_FREE,
    TK_GAIN,
    TK_GUO,
    TK_INIT_PLACE,
    TK_LEADER,
    TK_MOVE_FROM,
    TK_MOVE_N,
    TK_MOVE_TO,
    TK_PICK_PLAYER,
    TK_REMOVE_OTHER_AT,
    TK_REMOVE_OWN,
    TK_RULER,
    TK_STRUCT,
    TK_TAKE_OTHERS,
    TK_TARGET,
    TK_UPRISING,
    TK_VOTE_RESOLVE,
    TK_VOTE_REVEAL,
    TK_VOTECALL,
    pop,
    precheck,
    precheck_from,
    precheck_snapshot,
    push,
    push_gain,
    push_typed_gain,
    remove_n,
    seat_order,
    top,
    touch,
)


@kernel
def is_terminal(s):
    return s[H_CURRENT] == NO_PLAYER


@kernel
def _set_bits(out, base, bits, count):
    c = 0
    for i in range(count):
        if (np.int64(bits) >> i) & 1:
            out[base + i] = True
            c += 1
    return c


@kernel
def legal_mask(s, out):
    clear_mask(out, NUM_ACTIONS)
    if s[H_CURRENT] == NO_PLAYER:
        return np.int64(0)
    o = top(s)
    kind = s[o]
    p = s[o + 1]
    b = pb(p)
    c = 0
    if kind == TK_RULER or kind == TK_DRAFT:
        for k in range(3):
            if s[b + F_DEALT + k] >= 0:
                out[A_NUM + k] = True
                c += 1
    elif kind == TK_DISCARD:
        for i in range(s[b + F_NDYN]):
            out[A_CARD + i] = True
            c += 1
    elif kind == TK_VOTECALL:
        out[A_SKIP] = True
        c = 1
        for i in range(s[b + F_NVOTE]):
            out[A_NUM + i] = True
            c += 1
    elif kind == TK_ACTION:
        ls, lsp = card_sets(s, p)
        # the placement reach differs from LEGAL(p) only for Zeng's (reach's ``placement``)
        place = legal_set(s, p, True, False) if ability(s, p) == AB_PLACE_RANGE else ls
        for q in range(N_PROV):
            if (place >> q) & 1:
                out[A_PQ + q * 2] = True
                out[A_PQ + q * 2 + 1] = True
                c += 2
        for i in range(s[b + F_NDYN]):
            if card_playable(s, p, s[b + F_HAND + i], ls, lsp):
                out[A_CARD + i] = True
                c += 1
        out[A_SKIP] = True
        c += 1
    elif kind == TK_FREE:
        ft = free_type(s, p)
        ls, lsp = card_sets(s, p)
        for i in range(s[b + F_NDYN]):
            cc = s[b + F_HAND + i]
            if dyn_field(s, s[DYN_TYPE + cc], C_CTYPE) == ft and card_playable(s, p, cc, ls, lsp):
                out[A_CARD + i] = True
                c += 1
        out[A_SKIP] = True
        c += 1
    elif kind == TK_GAIN:
        stage = s[o + 6] >> 4
        if stage == 0 or stage == 2:
            out[A_TYPE] = True
            out[A_TYPE + 1] = True
            c = 2
        else:
            pool = s[b + F_BM] if stage == 3 else s[b + F_BP]
            for k in range(min(pool, N_NUM - 1) + 1):
                out[A_NUM + k] = True
                c += 1
    elif kind == TK_TARGET:
        c = _set_bits(out, A_PROV, target_candidates(s, o), N_PROV)
    elif kind == TK_INIT_PLACE:
        out[A_TYPE] = True
        out[A_TYPE + 1] = True
        c = 2
    elif kind == TK_AYENAY or kind == TK_EE_VOTE:
        out[A_AYE] = True
        out[A_NAY] = True
        c = 2
    elif kind == TK_BID:
        # a bid 0..DI in base 16: the high digit (only when DI >= 16), then the low digit
        di = s[b + F_DI]
        if s[o + 2] == 0:
            hi = min(di // N_NUM, N_NUM - 1)
        else:
            hi = min(di - s[b + F_BID], N_NUM - 1)
        for k in range(hi + 1):
            out[A_NUM + k] = True
            c += 1
    elif kind == TK_EXTRA:
        out[A_SKIP] = True
        c = 1
        for i in range(s[b + F_NVOTE]):
            out[A_NUM + i] = True
            out[A_NUM + VHAND_MAX + i] = True
            c += 2
    elif kind == TK_PICK_PLAYER:
        lsp = legal_set(s, p, False, True)
        for v in range(n_colours(s)):
            if v != p and victim_ok(s, p, v, s[o + 2], s[o + 3], lsp):
                out[A_PLAYER + v] = True
                c += 1
    elif kind == TK_CONVERT_AT:
        c = _set_bits(out, A_PQ, convert_targets(s, p, s[o + 2]), N_PROV * 2)
    elif kind == TK_REMOVE_OTHER_AT:
        c = _set_bits(
            out,
            A_PROV,
            remove_targets(s, p, s[o + 2], s[o + 4], legal_set(s, p, False, True)),
            N_PROV,
        )
    elif kind == TK_ASSASSIN_AT:
        c = _set_bits(out, A_PQ, assassin_targets(s, p, s[o + 2]), N_PROV * 2)
    elif kind == TK_UPRISING:
        c = _set_bits(out, A_PROV, uprising_targets(s, p), N_PROV)
    elif kind == TK_REMOVE_OWN:
        c = _set_bits(out, A_PQ, remove_own_options(s, o), N_PROV * 2)
    elif kind == TK_TAKE_OTHERS:
        c = _set_bits(out, A_NUM, take_others_options(s, o), N_NUM)
    elif kind == TK_GUO:
        c = _set_bits(out, A_PROV, guo_options(s, p), N_PROV)
    elif kind == TK_LEADER:
        c = _set_bits(
            out, A_PROV, leader_targets(s, p, s[o + 2], legal_set(s, p, False, False)), N_PROV
        )
    elif kind == TK_STRUCT:
        c = _set_bits(out, A_PROV, structure_targets(s, p, s[o + 2], s[o + 3]), N_PROV)
    elif kind == TK_MOVE_FROM:
        c = _set_bits(out, A_PQ, move_sources(s, p, True), N_PROV * 2)
        if s[o + 3] == 1:
            out[A_SKIP] = True
            c += 1
    elif kind == TK_MOVE_TO:
        c = _set_bits(out, A_PROV, s[ADJB + s[o + 2]] & gain_set(s), N_PROV)
    elif kind == TK_MOVE_N:
        k = min(s[o + 5], s[ti(p, s[o + 2], s[o + 3])])
        for j in range(1, k + 1):
            out[A_NUM + j] = True
            c += 1
    elif kind == TK_FLIP:
        for q in range(N_PROV):
            for t in range(2):
                if s[ti(p, q, t)] > 0:
                    out[A_PQ + q * 2 + t] = True
                    c += 1
        out[A_SKIP] = True
        c += 1
    elif kind == TK_DONG:
        # skip, or take the gain with the type of its (first) token
        c = _set_bits(out, A_TYPE, dong_types(s, p), 2)
        out[A_SKIP] = True
        c += 1
    return np.int64(c)


@kernel
def play_card(s, p, slot):
    """Play the Dynasty card in ``slot``: it goes to the discard (set-aside copies back).
    The card player makes the Eternal Emperor's choices in its effect (spec 8)."""
    s[G_EE_DEC] = p
    c = s[pb(p) + F_HAND + slot]
    if not is_setaside_copy(s, c):  # D50: a set-aside copy of the same kind is played first
        for i in range(s[pb(p) + F_NDYN]):
            o = s[pb(p) + F_HAND + i]
            if s[DYN_TYPE + o] == s[DYN_TYPE + c] and is_setaside_copy(s, o):
                slot = i
                break
    c = remove_from_hand(s, p, slot)
    discard_card(s, c, KNOW_ALL)
    s[pb(p) + F_CARDS_PLAYED] += 1
    ct = s[DYN_TYPE + c]
    kind = dyn_field(s, ct, C_KIND)
    a = s[SC_CARD : SC_CARD + 6]
    for i in range(6):
        a[i] = dyn_field(s, ct, C_A0 + i)
    if kind == DK_LEADER:
        push(s, TK_LEADER, p, a[0], a[1], a[2], 0, 0, 0)
    elif kind == DK_STRUCTURE:
        push(s, TK_STRUCT, p, a[0], a[1], a[2], 0, 0, 0)
    elif kind == DK_GAIN_SPLIT:
        push(s, TK_TARGET, p, a[3], a[2], a[1], a[0], 0, 0)
    elif kind == DK_GAIN:
        push(s, TK_TARGET, p, a[2], a[1], a[0], 1, 0, 0)
    elif kind == DK_MOVE:
        push(s, TK_MOVE_FROM, p, a[0], 0, 0, 0, 0, 0)
    elif kind == DK_ALLIANCE:
        push(s, TK_PICK_PLAYER, p, PU_ALLY, ct, 0, 0, 0, 0)
    elif kind == DK_CONVERT:
        push(s, TK_PICK_PLAYER, p, PU_CONVERT, ct, 0, 0, 0, 0)
    elif kind == DK_REMOVE_OTHER:
        push(s, TK_PICK_PLAYER, p, PU_REMOVE, ct, 0, 0, 0, 0)
    elif kind == DK_REMOVE_LEADER:
        push(s, TK_PICK_PLAYER, p, PU_ASSASSIN, ct, 0, 0, 0, 0)
    elif kind == DK_EACH_OTHER_REMOVES:
        push(s, TK_UPRISING, p, a[0], 0, 0, 0, 0, 0)


@kernel
def call_vote(s, p, slot):
    """V1-V5 pushed in order: picks from the caller's left (caller last, D48), reveal, extras,
    result."""
    n = n_players(s)
    c = remove_vote(s, p, slot, KNOW_ALL)
    s[G_VOTE_CARD] = c
    s[G_VOTE_CALLER] = p
    s[G_VOTE_STAGE] = 0
    s[G_AYES] = 0
    s[G_NAYS] = 0
    s[G_VOTES_CALLED] += 1
    s[pb(p) + F_CALLED] = 1
    s[pb(p) + F_VOTES_CALLED] += 1
    for v in range(n_colours(s)):
        s[pb(v) + F_PICK] = -1
        s[pb(v) + F_BID] = -1
    s[G_BID_WINNER] = -1
    order = s[SC_ORDER + OR_CALL * (MAXP + 1) : SC_ORDER + (OR_CALL + 1) * (MAXP + 1)]
    seat_order(s, p + 1, order)
    push(s, TK_VOTE_RESOLVE, p, 0, 0, 0, 0, 0, 0)
    for i in range(n - 1, -1, -1):
        push(s, TK_EXTRA, order[i], 0, 0, 0, 0, 0, 0)  # 2 players: the non-caller, then the caller
    push(s, TK_VOTE_REVEAL, p, 0, 0, 0, 0, 0, 0)
    if n == 2:
        # spec 8: each player's Aye/Nay comes with a secret bid; after both, the bid reveal
        # (TK_BID_RESOLVE), which pushes the winner's declaration of the EE's vote
        push(s, TK_BID_RESOLVE, p, 0, 0, 0, 0, 0, 0)
    for i in range(n - 1, -1, -1):
        if n == 2:
            push(s, TK_BID, order[i], 0, 0, 0, 0, 0, 0)
        push(s, TK_AYENAY, order[i], 0, 0, 0, 0, 0, 0)


@kernel
def apply(s, a):
    o = top(s)
    kind = s[o]
    p = s[o + 1]
    b = pb(p)
    s[H_PLY] += 1
    if kind == TK_RULER:
        s[b + F_CHOICE] = a - A_NUM
        pop(s)
    elif kind == TK_DRAFT:
        s[b + F_DPICK] = a - A_NUM
        pop(s)
    elif kind == TK_DISCARD:
        discard_card(s, remove_from_hand(s, p, a - A_CARD), 1 << p)
    elif kind == TK_VOTECALL:
        pop(s)
        if a != A_SKIP:
            call_vote(s, p, a - A_NUM)
    elif kind == TK_ACTION:
        pop(s)
        if a == A_SKIP:
            s[G_PASSES] += 1
        elif a < A_PROV:
            q = (a - A_PQ) // 2
            t = (a - A_PQ) % 2
            s[b + F_PLACED] += 1
            push_gain(s, p, q, 1 if t == M else 0, 1 if t == P else 0, 0, 0)
        else:
            play_card(s, p, a - A_CARD)
    elif kind == TK_FREE:
        if a == A_SKIP:
            pop(s)
        else:
            pop(s)
            # a free play at T3 uses up the one free play of the turn (the T5 task below)
            if s[o + 2] == 0 and s[G_SP] >= 2:
                o2 = STACK + (s[G_SP] - 2) * TASK_SIZE
                if s[o2] == TK_FREE and s[o2 + 1] == p:
                    s[o2 + 3] = 1
            play_card(s, p, a - A_CARD)
    elif kind == TK_GAIN:
        stage = s[o + 6] >> 4
        if stage == 0:
            s[o + 3 + (a - A_TYPE)] += 1
            s[o + 5] -= 1
        elif stage == 2:
            s[o + 3 + (a - A_TYPE)] += 1
            s[o + 6] -= 1
        elif stage == 3:
            k = a - A_NUM
            s[o + 3] += k
            s[b + F_BM] -= k
            s[o + 6] = 4 << 4
            s[o + 7] |= k << 8  # bonus amounts are remembered for the cap's loss order (D46)
        else:
            k = a - A_NUM
            s[o + 4] += k
            s[b + F_BP] -= k
            s[o + 6] = 5 << 4
            s[o + 7] |= GF_NO_BONUS | (k << 16)
    elif kind == TK_TARGET:
        q = a - A_PROV
        target = s[o + 2]
        typ = s[o + 3]
        nn = s[o + 4]
        rem = s[o + 5]
        snap = s[o + 6]
        excl = s[o + 7]
        pop(s)
        if rem > 1 and target != TG_MASK:
            push(s, TK_TARGET, p, target, typ, nn, rem - 1, snap, excl | (1 << q))
        push_typed_gain(s, p, q, typ, nn, precheck_from(s, p, q, snap))
    elif kind == TK_INIT_PLACE:
        s[o + 2] = 1
        s[o + 3] = a - A_TYPE
    elif kind == TK_AYENAY or kind == TK_EE_VOTE:
        # TK_EE_VOTE: the bid winner declares the Eternal Emperor's vote (stored in its block)
        s[pb(EE) + F_PICK if kind == TK_EE_VOTE else b + F_PICK] = 0 if a == A_AYE else 1
        pop(s)
    elif kind == TK_BID:
        if s[o + 2] == 0:
            s[b + F_BID] = N_NUM * (a - A_NUM)
            s[o + 2] = 1
        else:
            s[b + F_BID] += a - A_NUM
            pop(s)
    elif kind == TK_EXTRA:
        if a == A_SKIP:
            pop(s)
        else:
            k = a - A_NUM
            if k >= VHAND_MAX:
                remove_vote(s, p, k - VHAND_MAX, 1 << p)
                s[G_NAYS] += 1
            else:
                remove_vote(s, p, k, 1 << p)
                s[G_AYES] += 1
    elif kind == TK_PICK_PLAYER:
        v = a - A_PLAYER
        purpose = s[o + 2]
        ct = s[o + 3]
        pop(s)
        if purpose == PU_ALLY and is_ee(s, v):
            s[b + F_DI] -= dconst(s, K_ALLY_COST)  # 2 players: naming the EE costs DI
            s[b + F_DI_SPENT] += dconst(s, K_ALLY_COST)
        if purpose == PU_ALLY:
            # the ally resolves first (clockwise from the card player's left, card player last)
            # (5.4 step 1: the card player's check reads the board from before the ally's share)
            push(
                s,
                TK_TARGET,
                p,
                dyn_field(s, ct, C_A0 + 4),
                dyn_field(s, ct, C_A0 + 3),
                dyn_field(s, ct, C_A0 + 2),
                1,
                precheck_snapshot(s, p),
                0,
            )
            push(
                s,
                TK_TARGET,
                v,
                dyn_field(s, ct, C_A0 + 4),
                dyn_field(s, ct, C_A0 + 1),
                dyn_field(s, ct, C_A0),
                1,
                precheck_snapshot(s, v),
                0,
            )
        elif purpose == PU_CONVERT:
            push(s, TK_CONVERT_AT, p, v, dyn_field(s, ct, C_A0), 0, 0, 0, 0)
        elif purpose == PU_REMOVE:
            push(
                s,
                TK_REMOVE_OTHER_AT,
                p,
                v,
                dyn_field(s, ct, C_A0),
                dyn_field(s, ct, C_A0 + 1),
                0,
                0,
                0,
            )
        else:
            push(s, TK_ASSASSIN_AT, p, v, 0, 0, 0, 0, 0)
    elif kind == TK_CONVERT_AT:
        q = (a - A_PQ) // 2
        t = (a - A_PQ) % 2
        v = s[o + 2]
        k = s[o + 3]
        pop(s)
        pre = precheck(s, p, q)  # 5.4 step 1: checked before the Betrayal resolves
        r = remove_n(s, v, q, t, k)
        if r > 0:
            push(s, TK_GAIN, p, q, r if t == M else 0, r if t == P else 0, 0, 0, pre)
    elif kind == TK_REMOVE_OTHER_AT:
        remove_n(s, s[o + 2], a - A_PROV, s[o + 4], s[o + 3])
        pop(s)
    elif kind == TK_ASSASSIN_AT:
        q = (a - A_PQ) // 2
        k = (a - A_PQ) % 2
        s[li(s[o + 2], q, k)] = 0
        touch(s, q)
        pop(s)
    elif kind == TK_UPRISING:
        q = a - A_PROV
        k = s[o + 2]
        pop(s)
        order = s[SC_ORDER + OR_APPLY * (MAXP + 1) : SC_ORDER + (OR_APPLY + 1) * (MAXP + 1)]
        nc = colour_order(s, p + 1, order)  # the EE after both players
        for i in range(nc - 1, -1, -1):
            v = order[i]
            if v != p and represented(s, v, q):
                push(s, TK_REMOVE_OWN, v, k, q, -1, p, 0, 0)
    elif kind == TK_REMOVE_OWN:
        q = (a - A_PQ) // 2
        t = (a - A_PQ) % 2
        s[ti(p, q, t)] -= 1
        touch(s, q)
        s[o + 2] -= 1
        if s[o + 3] == -2:
            s[o + 7] &= ~(1 << q)
    elif kind == TK_TAKE_OTHERS:
        k = a - A_NUM
        s[ti(k // 2, s[o + 3], k % 2)] -= 1
        touch(s, s[o + 3])
        s[o + 2] -= 1
    elif kind == TK_GUO:
        q = a - A_PROV
        pop(s)
        push(s, TK_TAKE_OTHERS, p, ab_arg(s, p, 0), q, M, 0, 0, 0)
    elif kind == TK_LEADER:
        q = a - A_PROV
        k = s[o + 2]
        typ = s[o + 3]
        nn = s[o + 4]
        pop(s)
        pre = precheck(s, p, q) | GF_PRE_TAKEN  # 5.4 step 1: before the Leader is placed
        s[li(p, q, k)] = 1
        touch(s, q)
        push_typed_gain(s, p, q, typ, nn, pre)
    elif kind == TK_STRUCT:
        q = a - A_PROV
        k = s[o + 2]
        typ = s[o + 3]
        nn = s[o + 4]
        pop(s)
        s[STRUCT + q * 2 + k] = 1
        touch(s, q)
        push_typed_gain(s, p, q, typ, nn, 0)
    elif kind == TK_MOVE_FROM:
        if a == A_SKIP:
            pop(s)
        else:
            mx = s[o + 2]
            pop(s)
            push(s, TK_MOVE_TO, p, (a - A_PQ) // 2, (a - A_PQ) % 2, 0, mx, 0, 0)
    elif kind == TK_MOVE_TO:
        s[o + 4] = a - A_PROV
        s[o] = TK_MOVE_N
    elif kind == TK_MOVE_N:
        k = a - A_NUM
        q = s[o + 2]
        t = s[o + 3]
        r = s[o + 4]
        s[ti(p, q, t)] -= k
        s[ti(p, r, t)] += k
        touch(s, q)
        touch(s, r)
        pop(s)
    elif kind == TK_FLIP:
        pop(s)
        if a != A_SKIP:
            q = (a - A_PQ) // 2
            t = (a - A_PQ) % 2
            s[ti(p, q, t)] -= 1
            s[ti(p, q, 1 - t)] += 1
            touch(s, q)
    elif kind == TK_DONG:
        pop(s)
        if a != A_SKIP:
            # n tokens at Home, one gain event: the first of the chosen type, the rest of
            # either type (Dong's data: 1 token of either type)
            t = a - A_TYPE
            nn = ab_arg(s, p, 0)
            rest = nn - 1 if ab_arg(s, p, 1) == T_ANY else 0
            k = nn - rest
            push_gain(s, p, s[b + F_HOME], k if t == M else 0, k if t == P else 0, rest, 0)
    advance(s)


@kernel
def final_key(s, p):
    """7.4 as one number: final score, then the tie-breaks (never equal for two colours)."""
    return np.int64(final_score(s, p)) * 100000000 + tiebreak_key(s, p)


@kernel
def ee_wins(s):
    """2 players: the Eternal Emperor finishes first (then both players lose, spec 8).  A full
    tie cannot happen: the last tie-break puts the EE after both players (D28)."""
    if n_players(s) != 2:
        return False
    k = final_key(s, EE)
    return k > final_key(s, 0) and k > final_key(s, 1)


@kernel
def returns(s, scores, wins):
    """Win share 1 for the colour first by 7.4; when it is the Eternal Emperor every seat
    gets 0 (the game declares ``can_all_lose``)."""
    n = n_players(s)
    best = np.int64(-1)
    for p in range(n_colours(s)):
        if p < n:
            scores[p] = final_score(s, p)
        key = final_key(s, p)
        if key > best:
            best = key
    for p in range(n):
        wins[p] = 1.0 if final_key(s, p) == best else 0.0
