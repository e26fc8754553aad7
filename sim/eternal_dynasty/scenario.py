"""Build Eternal Dynasty positions the way the rulebook describes them (for rule tests).

``position`` returns a state in the rounds of Generation 1 with the given Rulers, board
and hands, and no task pending; ``turn`` then gives a seat its turn (optional Vote call,
start-of-turn ability, free plays, action) exactly as the engine would.  Province and
Ruler ids are the data file's (1-based); the state uses 0-based ones.
"""

import numpy as np

from sim.core import H_CURRENT
from sim.eternal_dynasty import layout as L
from sim.eternal_dynasty import rules as R
from sim.eternal_dynasty.options import load_components
from sim.registry import get_game

COMP = load_components()
PROVINCE_ID = {p["name"]: p["id"] for p in COMP["provinces"]}
RULER_ID = {r["name"]: r["id"] for r in COMP["rulers"]}
CARD_KIND = {c["key"]: i for i, c in enumerate(COMP["dynasty_cards"])}
VOTE_KIND = {v["key"]: i for i, v in enumerate(COMP["vote_cards"])}
NEUTRAL_RULER = RULER_ID[
    "Wen the Scholar"
]  # an After-Rulers-are-chosen draw: inert during the rounds
M, P = L.M, L.P


def q0(province) -> int:
    return (PROVINCE_ID[province] if isinstance(province, str) else int(province)) - 1


def position(
    n: int,
    rulers=None,
    board=None,
    leaders=None,
    structures=None,
    marks=None,
    hands=None,
    votes=None,
    options=None,
    first: int = 0,
    seed: int = 0,
    quarantine: bool = False,
    ee_start=None,
    keep_ee: bool = False,
) -> np.ndarray:
    """rulers: per seat a name or id (default a neutral Ruler); board: {(seat, province): (M, P)};
    leaders: {(seat, province): "GENERAL"/"MAGISTRATE" or both as a tuple}; structures:
    {province: ("FORTRESS", ...)}; marks: {province: L.MK_*}; hands: per seat a list of card
    keys; votes: per seat a list of Vote card keys (none by default).  The random 3-player
    quarantine is lifted unless ``quarantine`` is true.  With 2 players the Eternal Emperor is
    colour ``L.EE`` in ``board``; its rolled setup (tokens and Structures) is cleared unless
    ``keep_ee``, and ``ee_start`` sets its Starting Province.  Both players have 10 Dynasty
    Influence."""
    spec = get_game("eternal_dynasty")
    s = spec.kernels.new_state(np.int64(seed), np.int64(n), spec.encode_options(options or {}))
    s[L.G_SP] = 0
    if not quarantine:  # no random quarantine: the given provinces only (3 players)
        adj = L.D_ADJQ if s[L.O_ADJACENCY] == 1 else L.D_ADJ
        s[L.ADJ : L.ADJ + L.N_PROV**2] = s[L.DATA + adj : L.DATA + adj + L.N_PROV**2]
        R.set_adjacency_bits(s)
        s[L.QUAR : L.QUAR + L.N_PROV] = 0
        for r in range(L.N_RULERS):
            if s[L.RUL_LOC + r] == L.LOC_OUT:
                s[L.RUL_LOC + r] = L.LOC_DISCARD
    if n == 2 and not keep_ee:
        s[R.ti(L.EE, 0, M) : R.ti(L.EE, 0, M) + L.N_PROV * 2] = 0
        s[L.STRUCT : L.STRUCT + L.N_PROV * 2] = 0
    if n == 2 and ee_start is not None:
        s[L.G_EE_START] = q0(ee_start)
        s[R.pb(L.EE) + L.F_HOME] = q0(ee_start)
    for p in range(n):  # no Vote cards unless given
        while s[R.pb(p) + L.F_NVOTE] > 0:
            R.remove_vote(s, p, s[R.pb(p) + L.F_NVOTE] - 1, 1 << p)
    for p in range(n):
        b = R.pb(p)
        while s[b + L.F_NDYN] > 0:
            c = R.remove_from_hand(s, p, s[b + L.F_NDYN] - 1)
            s[L.DYN_LOC + c] = L.LOC_SETASIDE if R.is_setaside_copy(s, c) else L.LOC_DISCARD
        for k in range(3):
            r = s[b + L.F_DEALT + k]
            if r >= 0:
                s[L.RUL_LOC + r] = L.LOC_DISCARD
            s[b + L.F_DEALT + k] = -1
        r = rulers[p] if rulers and p < len(rulers) and rulers[p] is not None else NEUTRAL_RULER
        r = (RULER_ID[r] if isinstance(r, str) else int(r)) - 1
        s[b + L.F_RULER] = r
        s[L.RUL_LOC + r] = L.LOC_CHOSEN
        s[b + L.F_HOME] = s[L.DATA + L.D_RULER + r * L.RF + L.R_HOME]
        s[b + L.F_BM] = s[L.DATA + L.D_RULER + r * L.RF + L.R_BM]
        s[b + L.F_BP] = s[L.DATA + L.D_RULER + r * L.RF + L.R_BP]
        s[b + L.F_KEEP] = s[L.DATA + L.D_RULER + r * L.RF + L.R_KEEP]
        s[b + L.F_RULER_HIST] = r
        if hands and p < len(hands):
            for key in hands[p]:
                give_card(s, p, key)
        if votes is not None and p < len(votes):
            for key in votes[p]:
                give_vote(s, p, key)
    for (p, prov), (m, pp) in (board or {}).items():
        s[R.ti(p, q0(prov), M)] = m
        s[R.ti(p, q0(prov), P)] = pp
    for (p, prov), kinds in (leaders or {}).items():
        for k in (kinds,) if isinstance(kinds, str) else kinds:
            s[R.li(p, q0(prov), {"GENERAL": L.GENERAL, "MAGISTRATE": L.MAGISTRATE}[k])] = 1
    for prov, kinds in (structures or {}).items():
        for k in (kinds,) if isinstance(kinds, str) else kinds:
            s[L.STRUCT + q0(prov) * 2 + {"FORTRESS": L.FORTRESS, "PALACE": L.PALACE}[k]] = 1
    for prov, bits in (marks or {}).items():
        s[L.MARK + q0(prov)] = bits
    s[L.G_FIRST] = first
    s[L.G_GEN] = 1
    s[L.G_ROUND] = 1
    s[L.G_TURN_IDX] = 0
    s[L.G_PHASE] = L.PH_TURNS
    s[H_CURRENT] = -1
    return s


def give_card(s, p, key, setaside=False):
    """Move a Dynasty card of kind ``key`` (from the deck or discard; or a set-aside copy) to
    p's hand."""
    ct = CARD_KIND[key]
    want = (L.LOC_SETASIDE,) if setaside else (L.LOC_DECK, L.LOC_DISCARD)
    for c in range(L.N_DYN):
        if s[L.DYN_TYPE + c] == ct and s[L.DYN_LOC + c] in want:
            if s[L.DYN_LOC + c] == L.LOC_DECK:
                _take_from_deck(s, L.DYN_DECK, L.G_DYN_PTR, L.G_DYN_END, c)
            R.add_to_hand(s, p, c)
            return c
    raise ValueError(f"no {key} card left to give")


def give_vote(s, p, key):
    vt = VOTE_KIND[key]
    for c in range(L.N_VOTES):
        if s[L.VOTE_TYPE + c] == vt and s[L.VOTE_LOC + c] in (L.LOC_DECK, L.LOC_DISCARD):
            if s[L.VOTE_LOC + c] == L.LOC_DECK:
                _take_from_deck(s, L.VOTE_DECK, L.G_VOTE_PTR, L.G_VOTE_END, c)
            b = R.pb(p)
            s[b + L.F_VHAND + s[b + L.F_NVOTE]] = c
            s[b + L.F_NVOTE] += 1
            s[L.VOTE_LOC + c] = L.LOC_HAND
            return c
    raise ValueError(f"no {key} Vote card left to give")


def _take_from_deck(s, deck, ptr, end, c):
    lo, hi = int(s[ptr]), int(s[end])
    cards = [int(x) for x in s[deck + lo : deck + hi] if x != c]
    s[deck + lo : deck + lo + len(cards)] = cards
    s[end] = lo + len(cards)


def turn(s, p):
    """Give seat p its turn now (T1-T5: the engine's own ``push_turn``, start-of-turn ability
    included) and run to its first decision."""
    n = int(s[2])
    s[L.G_TURN_IDX] = (p - int(s[L.G_FIRST])) % n
    R.push_turn(s, p)
    R.advance(s)
    return s


def run_task(s, kind, p, *args):
    """Push one task (e.g. an initial placement) and run to the next decision."""
    a = list(args) + [0] * (6 - len(args))
    R.push(s, kind, p, *a)
    R.advance(s)
    return s


def tokens(s, p, province) -> tuple[int, int]:
    q = q0(province)
    return int(s[R.ti(p, q, M)]), int(s[R.ti(p, q, P)])


def score(s, province):
    """(majority points, Structure points, Coin awards) per seat for one province (7.1)."""
    pts = np.zeros(L.MAXP + 1, np.int64)
    spts = np.zeros(L.MAXP + 1, np.int64)
    coin = np.zeros(L.MAXP + 1, np.int64)
    R.score_province(s, np.int64(q0(province)), pts, spts, coin, np.zeros(L.MAXP + 1, np.int64))
    n = int(s[2])
    return [int(pts[p] + spts[p]) for p in range(n)], [int(coin[p]) for p in range(n)]
