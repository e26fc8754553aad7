"""Small accessors of the Eternal Dynasty state: offsets of player blocks, tokens and
Leaders, colours in play, component data fields, Ruler abilities, strengths, and the sets
of provinces a gain may target (spec 3.1).
"""

import numpy as np

from sim.core import H_NPLAYERS, kernel
from sim.eternal_dynasty.layout import (
    AB_LEADER_STRENGTH,
    AB_PLACE_RANGE,
    AB_REACH_SET,
    ADJ,
    ADJB,
    D_BORDER,
    D_COASTAL,
    D_CONST,
    D_DYN,
    D_EVENT,
    D_RULER,
    D_VOTE,
    DATA,
    DF,
    EE,
    EF,
    F_HOME,
    F_RULER,
    GENERAL,
    K_LEADER_STR,
    LEAD,
    MAGISTRATE,
    MARK,
    MK_PLAGUE,
    N_PROV,
    PL,
    PS,
    QUAR,
    R_A0,
    R_AB,
    RF,
    SET_ALL,
    SET_BORDER,
    T_P,
    TG_ANY,
    TG_HAS_OWN_TYPE,
    TG_HOME,
    TG_LEGAL,
    TG_REP,
    TG_REP_BORDER,
    TG_REP_COASTAL,
    TG_SELF_REP,
    TOK,
    VF,
    M,
    P,
)


@kernel(inline=True)
def pb(p):
    return PL + p * PS


@kernel(inline=True)
def ti(p, q, t):
    return TOK + (p * N_PROV + q) * 2 + t


@kernel(inline=True)
def li(p, q, k):
    return LEAD + (p * N_PROV + q) * 2 + k


@kernel(inline=True)
def n_players(s):
    return np.int64(s[H_NPLAYERS])


@kernel(inline=True)
def n_colours(s):
    """Colours in play: the seats, and in the 2-player game the Eternal Emperor (colour EE = 2)."""
    n = np.int64(s[H_NPLAYERS])
    return n + 1 if n == 2 else n


@kernel(inline=True)
def is_ee(s, p):
    return p == EE and s[H_NPLAYERS] == 2


@kernel
def colour_order(s, start, out):
    """The colours in a clockwise order: seats clockwise from ``start``, then the Eternal
    Emperor, which comes after both players in every order (spec 8, D43).  Returns the count."""
    n = n_players(s)
    for i in range(n):
        out[i] = (start + i) % n
    if n == 2:
        out[2] = EE
        return np.int64(3)
    return n


@kernel(inline=True)
def dconst(s, k):
    return s[DATA + D_CONST + k]


@kernel(inline=True)
def ruler_field(s, r, f):
    return s[DATA + D_RULER + r * RF + f]


@kernel(inline=True)
def dyn_field(s, ct, f):
    return s[DATA + D_DYN + ct * DF + f]


@kernel(inline=True)
def vote_field(s, vt, f):
    return s[DATA + D_VOTE + vt * VF + f]


@kernel(inline=True)
def event_field(s, e, f):
    return s[DATA + D_EVENT + e * EF + f]


@kernel
def ability(s, p):
    """The ability kind of p's chosen Ruler this Generation (-1 if none)."""
    r = s[pb(p) + F_RULER]
    if r < 0:
        return -1
    return ruler_field(s, r, R_AB)


@kernel(per_type=True)
def ab_arg(s, p, i):
    return ruler_field(s, s[pb(p) + F_RULER], R_A0 + i)


@kernel
def in_set(s, q, which):
    if which == SET_ALL:
        return s[QUAR + q] == 0
    if which == SET_BORDER:
        return s[DATA + D_BORDER + q] == 1 and s[QUAR + q] == 0
    return s[DATA + D_COASTAL + q] == 1 and s[QUAR + q] == 0


@kernel(per_type=True)
def tokens_total(s, p):
    t = 0
    for q in range(N_PROV):
        t += s[ti(p, q, M)] + s[ti(p, q, P)]
    return t


@kernel
def represented(s, p, q):
    return s[ti(p, q, M)] + s[ti(p, q, P)] > 0


@kernel
def leader_strength(s, p, k):
    st = dconst(s, K_LEADER_STR)
    if ability(s, p) == AB_LEADER_STRENGTH and ab_arg(s, p, 0) == k:
        st = ab_arg(s, p, 1)
    return st


@kernel
def strength(s, p, q, t):
    """Spec 5.2: tokens plus the Leader bonus of the matching Leader (General: M)."""
    v = s[ti(p, q, t)]
    k = GENERAL if t == M else MAGISTRATE
    if s[li(p, q, k)] > 0:
        v += leader_strength(s, p, k)
    return v


@kernel
def gain_ok(s, q):
    """Step 0 of the gain procedure: never in a quarantined or PLAGUE province.  (Both words
    read, ``&`` not ``and``: no branch, for :func:`gain_set`.)"""
    return (s[QUAR + q] == 0) & ((s[MARK + q] & MK_PLAGUE) == 0)


@kernel
def gain_set(s):
    """The provinces where tokens may be gained (:func:`gain_ok`) as a bit set.  The bit sets
    here are built without branches on the board (a branch per province is mispredicted often
    enough to cost more than the loop)."""
    res = 0
    for q in range(N_PROV):
        res |= np.int64(gain_ok(s, q)) << q
    return res


@kernel
def open_set(s):
    """The provinces not quarantined, as a bit set."""
    res = 0
    for q in range(N_PROV):
        res |= np.int64(s[QUAR + q] == 0) << q
    return res


@kernel
def set_adjacency_bits(s):
    """Write ADJB from ADJ (layout.py): after every change of ADJ."""
    for q in range(N_PROV):
        bits = 0
        for r in range(N_PROV):
            if s[ADJ + q * N_PROV + r] == 1:
                bits |= 1 << r
        s[ADJB + q] = bits


@kernel
def reach(s, p, placement):
    """The provinces LEGAL(p) takes (spec 5.3) before quarantine and PLAGUE are left out."""
    rep = 0
    for q in range(N_PROV):
        rep |= np.int64(represented(s, p, q)) << q
    out = rep
    for q in range(N_PROV):
        out |= s[ADJB + q] & -((rep >> q) & 1)
    home = s[pb(p) + F_HOME]
    if home >= 0:
        out |= 1 << home
    ab = ability(s, p)
    if ab == AB_REACH_SET:
        for q in range(N_PROV):
            if in_set(s, q, ab_arg(s, p, 0)):
                out |= 1 << q
    if placement and ab == AB_PLACE_RANGE:
        # Zeng (spec 5.3): "provinces within distance 2 of a represented province", for the
        # placement action only; the reach starts from represented provinces, never from the
        # Home (unless represented) or the neighbours of a represented province
        ring = rep
        for _ in range(ab_arg(s, p, 0)):
            nxt = ring
            for q in range(N_PROV):
                nxt |= s[ADJB + q] & -((ring >> q) & 1)
            ring = nxt
        out |= ring
    return out


@kernel
def legal_set(s, p, placement, ignore_plague):
    """LEGAL(p) as a bit set (spec 5.3)."""
    return reach(s, p, placement) & (open_set(s) if ignore_plague else gain_set(s))


@kernel
def target_set(s, g, target, typ, first=False):
    """Gain target sets of spec 3.1 as a bit set (PLAGUE and quarantine always left out).
    ``first``: stop at the first target found (a playability check)."""
    res = 0
    if target == TG_LEGAL:
        return legal_set(s, g, False, False)
    for q in range(N_PROV):
        if not gain_ok(s, q):
            continue
        ok = False
        if target == TG_HAS_OWN_TYPE:
            ok = s[ti(g, q, typ)] > 0 if typ <= T_P else represented(s, g, q)
        elif target == TG_SELF_REP or target == TG_REP:
            ok = represented(s, g, q)
        elif target == TG_REP_BORDER:
            ok = represented(s, g, q) and s[DATA + D_BORDER + q] == 1
        elif target == TG_REP_COASTAL:
            ok = represented(s, g, q) and s[DATA + D_COASTAL + q] == 1
        elif target == TG_HOME:
            ok = q == s[pb(g) + F_HOME]
        elif target == TG_ANY:
            ok = True
        if ok:
            res |= 1 << q
            if first:
                break
    return res
