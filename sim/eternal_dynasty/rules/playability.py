"""What a Dynasty card may do: protection by Ruler abilities, Vote bans, the targets of
Leaders, Structures, conversions, removals, assassinations and uprisings, and whether a
card is playable at all.
"""

import numpy as np

from sim.core import kernel
from sim.eternal_dynasty.layout import (
    AB_FREE_PLAY,
    AB_PROTECT,
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
    DK_REMOVE_OTHER,
    DK_STRUCTURE,
    DYN_TYPE,
    F_DI,
    F_HOME,
    FORTRESS,
    G_BAN,
    GENERAL,
    K_ALLY_COST,
    K_SUP_FORT,
    K_SUP_GEN,
    K_SUP_MAG,
    K_SUP_PAL,
    MAXP,
    N_PROV,
    N_VOTE_TYPES,
    O_LIMITS,
    PR_HOME_ONLY,
    PR_INTRIGUE_ONLY,
    PR_LEADERS,
    PR_M,
    PR_P,
    STRUCT,
    TG_LEGAL,
    V_A0,
    V_KIND,
    VK_BAN,
    M,
)
from sim.eternal_dynasty.rules.helpers import (
    ab_arg,
    ability,
    dconst,
    dyn_field,
    gain_ok,
    gain_set,
    is_ee,
    li,
    n_colours,
    n_players,
    open_set,
    pb,
    reach,
    represented,
    target_set,
    ti,
    vote_field,
)
from sim.eternal_dynasty.rules.tasks import PU_ALLY, PU_ASSASSIN, PU_CONVERT, PU_REMOVE


@kernel
def protected(s, victim, actor, q, t, intrigue):
    """PROTECT Rulers against removal/conversion of type t in q by a card of ``actor``."""
    if victim == actor or victim > MAXP:
        return False
    if ability(s, victim) != AB_PROTECT:
        return False
    bits = ab_arg(s, victim, 0)
    if (bits & PR_INTRIGUE_ONLY) and not intrigue:
        return False
    if (bits & PR_HOME_ONLY) and q != s[pb(victim) + F_HOME]:
        return False
    return (bits & (PR_M if t == M else PR_P)) != 0


@kernel
def leader_protected(s, victim, actor):
    if victim == actor or ability(s, victim) != AB_PROTECT:
        return False
    return (ab_arg(s, victim, 0) & PR_LEADERS) != 0


@kernel
def banned(s, ctype):
    for v in range(N_VOTE_TYPES):
        if (
            s[G_BAN + v] == 1
            and vote_field(s, v, V_KIND) == VK_BAN
            and vote_field(s, v, V_A0) == ctype
        ):
            return True
    return False


@kernel
def leaders_on_board(s, k):
    c = 0
    for p in range(n_players(s)):
        for q in range(N_PROV):
            c += s[li(p, q, k)]
    return c


@kernel
def structures_on_board(s, k):
    c = 0
    for q in range(N_PROV):
        c += s[STRUCT + q * 2 + k]
    return c


@kernel
def leader_targets(s, p, k, ls, first=False):
    """``ls``: LEGAL(p), ``legal_set(s, p, False, False)``.  ``first``: stop at the first
    target found (whether there is one is all a playability check asks; also below)."""
    if s[O_LIMITS] == 0:
        sup = dconst(s, K_SUP_GEN) if k == GENERAL else dconst(s, K_SUP_MAG)
        if leaders_on_board(s, k) >= sup:
            return 0
    res = 0
    for q in range(N_PROV):
        if (ls >> q) & 1 and s[li(p, q, k)] == 0:
            res |= 1 << q
            if first:
                break
    return res


@kernel
def structure_targets(s, p, k, t, first=False):
    if s[O_LIMITS] == 0:
        sup = dconst(s, K_SUP_FORT) if k == FORTRESS else dconst(s, K_SUP_PAL)
        if structures_on_board(s, k) >= sup:
            return 0
    res = 0
    for q in range(N_PROV):
        if gain_ok(s, q) and s[STRUCT + q * 2 + k] == 0 and s[ti(p, q, t)] > 0:
            res |= 1 << q
            if first:
                break
    return res


@kernel
def convert_targets(s, p, v, first=False):
    """Betrayal: (q, t) bit set (bit q*2+t) where both hold Influence and v has t tokens."""
    res = np.int64(0)
    for q in range(N_PROV):
        if not gain_ok(s, q) or not represented(s, p, q):
            continue
        for t in range(2):
            if s[ti(v, q, t)] > 0 and not protected(s, v, p, q, t, True):
                res |= np.int64(1) << (q * 2 + t)
                if first:
                    return res
    return res


@kernel
def remove_targets(s, p, v, t, ls, first=False):
    """``ls``: LEGAL(p) with PLAGUE provinces kept, ``legal_set(s, p, False, True)``."""
    res = 0
    for q in range(N_PROV):
        if (ls >> q) & 1 and s[ti(v, q, t)] > 0 and not protected(s, v, p, q, t, True):
            res |= 1 << q
            if first:
                break
    return res


@kernel
def assassin_targets(s, p, v, first=False):
    if leader_protected(s, v, p):
        return np.int64(0)
    res = np.int64(0)
    for q in range(N_PROV):
        for k in range(2):
            if s[li(v, q, k)] > 0:
                res |= np.int64(1) << (q * 2 + k)
                if first:
                    return res
    return res


@kernel
def uprising_targets(s, p, first=False):
    n = n_colours(s)
    res = 0
    for q in range(N_PROV):
        if not represented(s, p, q):
            continue
        for v in range(n):
            if v == p:
                continue
            for t in range(2):
                if s[ti(v, q, t)] > 0 and not protected(s, v, p, q, t, True):
                    res |= 1 << q
                    if first:
                        return res
    return res


@kernel
def move_sources(s, p, same_type, first=False):
    """(q, t) bit set of own tokens that may move to some adjacent province."""
    res = np.int64(0)
    gain = gain_set(s)
    for q in range(N_PROV):
        if (s[ADJB + q] & gain) == 0:
            continue
        for t in range(2):
            if s[ti(p, q, t)] > 0:
                res |= np.int64(1) << (q * 2 + t)
                if first:
                    return res
    return res


@kernel
def victim_ok(s, p, v, purpose, ct, lsp):
    """``lsp``: ``legal_set(s, p, False, True)`` (:func:`card_sets`)."""
    if purpose == PU_ALLY:
        # 2 players: naming the Eternal Emperor costs Dynasty Influence (DI >= cost needed)
        return not is_ee(s, v) or s[pb(p) + F_DI] >= dconst(s, K_ALLY_COST)
    if purpose == PU_CONVERT:
        return convert_targets(s, p, v, True) != 0
    if purpose == PU_REMOVE:
        return remove_targets(s, p, v, dyn_field(s, ct, C_A0 + 1), lsp, True) != 0
    return assassin_targets(s, p, v, True) != 0


@kernel
def card_sets(s, p):
    """LEGAL(p) and LEGAL(p) with PLAGUE provinces kept (``legal_set(s, p, False, False)`` and
    ``legal_set(s, p, False, True)``): what :func:`card_playable` takes, computed once for a
    hand."""
    r = reach(s, p, False)
    return r & gain_set(s), r & open_set(s)


@kernel
def card_playable(s, p, c, ls, lsp):
    """D18/D42: a card is playable when some part of it has a legal target.  ``ls``, ``lsp``:
    :func:`card_sets`."""
    ct = s[DYN_TYPE + c]
    if banned(s, dyn_field(s, ct, C_CTYPE)):
        return False
    kind = dyn_field(s, ct, C_KIND)
    a0 = dyn_field(s, ct, C_A0)
    a1 = dyn_field(s, ct, C_A0 + 1)
    n = n_players(s)
    if kind == DK_LEADER:
        return leader_targets(s, p, a0, ls, True) != 0
    if kind == DK_STRUCTURE:
        return structure_targets(s, p, a0, a1, True) != 0
    if kind == DK_GAIN_SPLIT or kind == DK_GAIN:
        target = dyn_field(s, ct, C_A0 + 3) if kind == DK_GAIN_SPLIT else dyn_field(s, ct, C_A0 + 2)
        if target == TG_LEGAL:
            return ls != 0
        return (
            target_set(
                s, p, target, dyn_field(s, ct, C_A0 + 2) if kind == DK_GAIN_SPLIT else a1, True
            )
            != 0
        )
    if kind == DK_MOVE:
        return move_sources(s, p, True, True) != 0
    if kind == DK_ALLIANCE:
        return n >= 2
    if kind == DK_EACH_OTHER_REMOVES:
        return uprising_targets(s, p, True) != 0
    purpose = (
        PU_CONVERT
        if kind == DK_CONVERT
        else (PU_REMOVE if kind == DK_REMOVE_OTHER else PU_ASSASSIN)
    )
    for v in range(n_colours(s)):  # noqa: SIM110 (numba kernel: a plain loop, no generator)
        if v != p and victim_ok(s, p, v, purpose, ct, lsp):
            return True
    return False


@kernel
def free_type(s, p):
    if ability(s, p) == AB_FREE_PLAY:
        return ab_arg(s, p, 0)
    return -1
