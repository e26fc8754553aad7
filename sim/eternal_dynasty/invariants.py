"""Eternal Dynasty invariants, checked after every decision
(tests/test_eternal_dynasty_properties.py, ``dynasty fuzz``; protocol in :mod:`sim.invariants`).

Token, Leader and Structure supplies, quarantine, the adjacency bit sets (``ADJB``) against
the adjacency matrix, every card in exactly one place, bonus pools, Rulers never chosen twice,
Coin values against what left the bag; with 2 players the Eternal Emperor's tokens checked
like a player's, no Leaders, cards or bonus pool for it, Dynasty Influence never negative.
At each decision of a Ruler ability, the rulings on Zeng's placements, Dong's optional gain
and Xun's rolls (docs/games/eternal_dynasty.md), each against its own reading of the spec.
"""

import numba as nb
import numpy as np

from sim.eternal_dynasty import layout as L
from sim.eternal_dynasty.rules import TG_MASK, TK_ACTION, TK_DONG, TK_TARGET, pb

(
    E_TOKENS,
    E_CAP,
    E_LEADERS,
    E_STRUCTS,
    E_QUAR,
    E_DYN,
    E_VOTES,
    E_BONUS,
    E_RULERS,
    E_SCORE,
    E_SETASIDE,
    E_EMPEROR,
    E_DI,
    E_COINS,
    E_ZENG,
    E_DONG,
    E_XUN,
    E_ADJB,
) = range(1, 19)


@nb.njit(cache=True)
def check_state(s):
    n = s[2]
    nc = n + 1 if n == 2 else n  # colours in play: the seats, and the Eternal Emperor in 2p
    limits = s[L.O_LIMITS] == 0
    cap = s[L.DATA + L.D_CONST + L.K_CAP]
    for p in range(L.NCOL):
        tot = 0
        for q in range(L.N_PROV):
            for t in range(2):
                v = s[L.TOK + (p * L.N_PROV + q) * 2 + t]
                if v < 0 or (p >= nc and v != 0):
                    return E_TOKENS
                tot += v
        if limits and tot > cap:  # tokens on the board + supply == cap, supply >= 0
            return E_CAP
    for k in range(2):
        on = 0
        for p in range(L.NCOL):
            for q in range(L.N_PROV):
                v = s[L.LEAD + (p * L.N_PROV + q) * 2 + k]
                if v < 0 or v > 1:
                    return E_LEADERS
                on += v
        sup = s[L.DATA + L.D_CONST + (L.K_SUP_GEN if k == 0 else L.K_SUP_MAG)]
        if limits and on > sup:
            return E_LEADERS
        on = 0
        for q in range(L.N_PROV):
            v = s[L.STRUCT + q * 2 + k]
            if v < 0 or v > 1:
                return E_STRUCTS
            on += v
        sup = s[L.DATA + L.D_CONST + (L.K_SUP_FORT if k == 0 else L.K_SUP_PAL)]
        if limits and on > sup:
            return E_STRUCTS
    for q in range(L.N_PROV):
        if s[L.QUAR + q] == 1:
            if s[L.MARK + q] != 0 or s[L.STRUCT + q * 2] != 0 or s[L.STRUCT + q * 2 + 1] != 0:
                return E_QUAR
            for p in range(L.NCOL):
                for t in range(2):
                    if (
                        s[L.TOK + (p * L.N_PROV + q) * 2 + t] != 0
                        or s[L.LEAD + (p * L.N_PROV + q) * 2 + t] != 0
                    ):
                        return E_QUAR
    # the adjacency bit sets the rules read (ADJB) are the adjacency matrix in play (ADJ)
    for q in range(L.N_PROV):
        for r in range(L.N_PROV):
            if ((s[L.ADJB + q] >> r) & 1) != s[L.ADJ + q * L.N_PROV + r]:
                return E_ADJB
    # Dynasty cards: each instance in exactly one place
    where = np.zeros(L.N_DYN, np.int64)
    for i in range(s[L.G_DYN_PTR], s[L.G_DYN_END]):
        c = s[L.DYN_DECK + i]
        where[c] += 1
        if s[L.DYN_LOC + c] != L.LOC_DECK:
            return E_DYN
    for p in range(n):
        for i in range(s[pb(p) + L.F_NDYN]):
            c = s[pb(p) + L.F_HAND + i]
            where[c] += 1
            if s[L.DYN_LOC + c] != L.LOC_HAND:
                return E_DYN
    for c in range(L.N_DYN):
        loc = s[L.DYN_LOC + c]
        if loc == L.LOC_DECK or loc == L.LOC_HAND:
            if where[c] != 1:
                return E_DYN
        elif (loc != L.LOC_DISCARD and loc != L.LOC_SETASIDE) or where[c] != 0:
            return E_DYN
    # the four set-aside copies are set aside or in a hand, never in the deck or the discard
    start = 0
    for ct in range(L.N_DYN_TYPES):
        for j in range(s[L.DATA + L.D_DYN + ct * L.DF + L.C_COUNT]):
            c = start + j
            sa = j < s[L.DATA + L.D_DYN + ct * L.DF + L.C_SETASIDE]
            loc = s[L.DYN_LOC + c]
            if sa and loc != L.LOC_SETASIDE and loc != L.LOC_HAND:
                return E_SETASIDE
            if not sa and loc == L.LOC_SETASIDE:
                return E_SETASIDE
        start += s[L.DATA + L.D_DYN + ct * L.DF + L.C_COUNT]
    # Vote cards
    where = np.zeros(L.N_VOTES, np.int64)
    for i in range(s[L.G_VOTE_PTR], s[L.G_VOTE_END]):
        where[s[L.VOTE_DECK + i]] += 1
    for p in range(n):
        for i in range(s[pb(p) + L.F_NVOTE]):
            c = s[pb(p) + L.F_VHAND + i]
            where[c] += 1
            if s[L.VOTE_LOC + c] != L.LOC_HAND:
                return E_VOTES
    for c in range(L.N_VOTES):
        loc = s[L.VOTE_LOC + c]
        if (loc == L.LOC_DECK or loc == L.LOC_HAND) != (where[c] == 1) or where[c] > 1:
            return E_VOTES
    # bonus pools within the Ruler's printed pool
    for p in range(n):
        r = s[pb(p) + L.F_RULER]
        bm = s[pb(p) + L.F_BM]
        bp = s[pb(p) + L.F_BP]
        if r < 0:
            if bm != 0 or bp != 0:
                return E_BONUS
        elif (
            bm < 0
            or bp < 0
            or bm > s[L.DATA + L.D_RULER + r * L.RF + L.R_BM]
            or bp > s[L.DATA + L.D_RULER + r * L.RF + L.R_BP]
        ):
            return E_BONUS
        if s[pb(p) + L.F_SCORE] < 0:
            return E_SCORE
    # 2 players: the Eternal Emperor holds no Leaders, cards, Ruler or bonus pool, keeps its
    # Starting Province, and Dynasty Influence is never negative
    if n == 2:
        b = pb(L.EE)
        for q in range(L.N_PROV):
            for k in range(2):
                if s[L.LEAD + (L.EE * L.N_PROV + q) * 2 + k] != 0:
                    return E_EMPEROR
        if (
            s[b + L.F_NDYN] != 0
            or s[b + L.F_NVOTE] != 0
            or s[b + L.F_RULER] != -1
            or s[b + L.F_BM] != 0
            or s[b + L.F_BP] != 0
            or s[b + L.F_HOME] != s[L.G_EE_START]
            or s[L.QUAR + s[L.G_EE_START]] != 0
        ):
            return E_EMPEROR
        for p in range(2):
            if s[pb(p) + L.F_DI] < 0:
                return E_DI
    # Coins: values drawn at the award (D47) are what left the bag; with coin_draw = at_reveal
    # nothing is drawn before the end
    bag = np.zeros(3, np.int64)
    for v in range(3):
        bag[v] = s[L.DATA + L.D_CONST + L.K_BAG0 + v]
    held = 0
    value = 0
    for p in range(L.NCOL):
        k = s[pb(p) + L.F_COINS]
        v = s[pb(p) + L.F_COIN_VALUE]
        if k < 0 or (p >= nc and k != 0) or v < 0 or v > 2 * k:
            return E_COINS
        held += k
        value += v
    if held > bag[0] + bag[1] + bag[2] or (s[L.O_COINS] == 1 and held != 0):
        return E_COINS
    if s[L.O_COIN_DRAW] == L.CD_AWARD or s[L.G_OVER] == 1:
        d1 = bag[1] - s[L.G_BAG1]
        d2 = bag[2] - s[L.G_BAG2]
        if (
            bag[0] - s[L.G_BAG0] + d1 + d2 != held
            or value != d1 + 2 * d2
            or min(s[L.G_BAG0], s[L.G_BAG1], s[L.G_BAG2]) < 0
        ):
            return E_COINS
    elif value != 0 or s[L.G_BAG0] != bag[0] or s[L.G_BAG1] != bag[1] or s[L.G_BAG2] != bag[2]:
        return E_COINS
    # a Ruler is chosen at most once in a game
    seen = np.zeros(L.N_RULERS, np.int64)
    for p in range(n):
        for g in range(L.MAX_GENS):
            r = s[pb(p) + L.F_RULER_HIST + g]
            if r >= 0:
                seen[r] += 1
                if (
                    seen[r] > 1
                    or s[L.RUL_LOC + r] == L.LOC_DECK
                    or s[L.RUL_LOC + r] == L.LOC_DISCARD
                ):
                    return E_RULERS
    return 0


@nb.njit(cache=True)
def check_decision(s, mask):
    """The Ruler-ability rulings (Zeng, Dong, Xun) at a decision, each from the spec's own
    words."""
    o = L.STACK + (s[L.G_SP] - 1) * L.TASK_SIZE
    kind = s[o]
    p = s[o + 1]
    if p >= s[2]:
        return 0
    r = s[pb(p) + L.F_RULER]
    ab = s[L.DATA + L.D_RULER + r * L.RF + L.R_AB] if r >= 0 else -1
    if kind == TK_ACTION and ab == L.AB_PLACE_RANGE:
        # Zeng (5.3): within distance 2 of a represented province, or the Home
        near = np.zeros(L.N_PROV, np.bool_)
        for q in range(L.N_PROV):
            near[q] = s[L.TOK + (p * L.N_PROV + q) * 2] + s[L.TOK + (p * L.N_PROV + q) * 2 + 1] > 0
        for _ in range(s[L.DATA + L.D_RULER + r * L.RF + L.R_A0]):
            nxt = near.copy()
            for q in range(L.N_PROV):
                if near[q]:
                    for x in range(L.N_PROV):
                        if s[L.ADJ + q * L.N_PROV + x] == 1:
                            nxt[x] = True
            near = nxt
        near[s[pb(p) + L.F_HOME]] = True
        for q in range(L.N_PROV):
            ok = near[q] and s[L.QUAR + q] == 0 and (s[L.MARK + q] & L.MK_PLAGUE) == 0
            if mask[L.A_PQ + 2 * q] != ok or mask[L.A_PQ + 2 * q + 1] != ok:
                return E_ZENG
    if kind == TK_DONG:
        # Dong (6.3 T2, optional): a skip, and only when no colour has fewer tokens
        mine = 0
        for q in range(L.N_PROV * 2):
            mine += s[L.TOK + p * L.N_PROV * 2 + q]
        for v in range(s[2] + 1 if s[2] == 2 else s[2]):
            tv = 0
            for q in range(L.N_PROV * 2):
                tv += s[L.TOK + v * L.N_PROV * 2 + q]
            if tv < mine:
                return E_DONG
        if not mask[L.A_SKIP] or not (mask[L.A_TYPE] or mask[L.A_TYPE + 1]):
            return E_DONG
    if kind == TK_TARGET and s[o + 2] == TG_MASK:
        # Xun (Ruler 13): roll, choose, gain, then roll again: no later roll waits below
        for i in range(s[L.G_SP] - 1):
            k = s[L.STACK + i * L.TASK_SIZE]
            if k == TK_TARGET and s[L.STACK + i * L.TASK_SIZE + 2] == TG_MASK:
                return E_XUN
        if ab != L.AB_ARC_ROLL_GAIN:
            return E_XUN
    return 0


ERRORS = (
    "",
    "E_TOKENS",
    "E_CAP",
    "E_LEADERS",
    "E_STRUCTS",
    "E_QUAR",
    "E_DYN",
    "E_VOTES",
    "E_BONUS",
    "E_RULERS",
    "E_SCORE",
    "E_SETASIDE",
    "E_EMPEROR",
    "E_DI",
    "E_COINS",
    "E_ZENG",
    "E_DONG",
    "E_XUN",
    "E_ADJB",
)
MEMO_SIZE = 0
STATS_SIZE = 0


@nb.njit(cache=True)  # compiled for CHECK_SIG when first passed or called
def check(s, before, action, mask, memo, stats):
    """Every state: ``check_state``; at a decision also ``check_decision``."""
    e = check_state(s)
    if e != 0 or s[3] < 0:
        return e
    return check_decision(s, mask)


def chance_problem(n: int, options: dict, chance: list) -> str | None:
    """What is wrong with a replay's chance outcomes (None if nothing): at most LOG_MAX
    integers, each below the largest draw the engine makes (its largest deck, the province
    die, the Coin bag)."""
    import json

    from sim.eternal_dynasty.options import DATA_FILE

    rc = json.loads(DATA_FILE.read_text())["rules_constants"]
    bound = max(
        L.N_DYN,
        L.N_VOTES,
        L.N_RULERS,
        L.N_EVENTS,
        rc["province_die"]["sides"],
        sum(rc["coin_bag"].values()),
    )
    if len(chance) > L.LOG_MAX:
        return f"more than {L.LOG_MAX} chance outcomes"
    for i, v in enumerate(chance):
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < bound:
            return f"[{i}]: expected an integer 0..{bound - 1}, got {str(v)[:40]}"
    return None
