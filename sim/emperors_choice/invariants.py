"""Emperor's Choice invariants, checked after every decision
(tests/test_emperors_choice_properties.py, ``dynasty fuzz``; protocol in :mod:`sim.invariants`).

Soldier cubes, tiles, Character cards, Tribute cards and Treasures conserved (the card sets
of every location, ``CARDS_AT``, equal to the recount from ``LOC``); tracks within
their limits (Trust 0..30, VP >= 0, Gold >= 0, palace 0..12, Barbarians 2..17); the VP
ledger (start VP plus VP by source minus VP lost) equals the VP track.
"""

import numba as nb
import numpy as np

from sim.emperors_choice import layout as L
from sim.emperors_choice.rules import pb

E_CUBES, E_TILES, E_CARDS, E_TRIB, E_TRACK, E_LEDGER, E_TREASURE, E_MASK = range(1, 9)


@nb.njit(cache=True)
def check_state(s):
    n = s[2]
    held = 0
    for p in range(n):
        b = pb(p)
        if s[b + L.F_CUBES] < 0 or s[b + L.F_BID_CUBES] < 0:
            return E_CUBES
        held += s[b + L.F_CUBES] + s[b + L.F_BID_CUBES]
    if s[L.G_SUPPLY] < 0 or held + s[L.G_SUPPLY] != s[L.DAT + L.D_POOL + n - 3]:
        return E_CUBES
    total = 0
    for t in range(L.N_TILE):
        k = s[L.BAG + t] + s[L.REMOVED + t]
        for i in range(L.MAX_SETS):
            k += s[L.SETS + i * L.N_TILE + t]
        for p in range(n):
            k += s[pb(p) + L.F_TAB + t] + s[pb(p) + L.F_PENDING + t]
        if s[L.G_DECISION] == L.DK_KEEP:  # two drawn tiles wait for the keep choice
            k += (s[L.G_KEEP0] == t) + (s[L.G_KEEP1] == t)
        for i in range(s[L.G_STACK_N]):  # immediate tiles queued for resolution
            if s[L.STACK + 3 * i] == L.AT_IMM and s[L.STACK + 3 * i + 1] == t:
                k += 1
        extra = k - s[L.DAT + L.D_BAG + t]
        if t == L.CASTLE and extra != n * s[L.DAT + L.D_START + 5]:
            return E_TILES
        if L.CAR1 <= t < L.CAR1 + 5 and not (0 <= extra <= 1):
            return E_TILES
        if t != L.CASTLE and not (L.CAR1 <= t < L.CAR1 + 5) and extra != 0:
            return E_TILES
        total += k
    if total != np.sum(s[L.DAT + L.D_BAG : L.DAT + L.D_BAG + L.N_TILE]) + n * (
        s[L.DAT + L.D_START + 5] + 1
    ):
        return E_TILES
    nc = s[L.DAT + L.D_NCARDS]
    for i in range(L.MAX_RECRUIT):
        c = s[L.RECRUIT + i]
        if c >= 0 and s[L.LOC + c] != L.LOC_DISPLAY:
            return E_CARDS
    shown = 0
    for c in range(nc):
        loc = s[L.LOC + c]
        if loc == L.LOC_DISPLAY:
            shown += 1
            found = False
            for i in range(L.MAX_RECRUIT):
                if s[L.RECRUIT + i] == c:
                    found = True
            if not found:
                return E_CARDS
        elif not (
            loc == L.LOC_BOX
            or loc == L.LOC_DECK
            or loc == L.LOC_DISCARD
            or (L.LOC_HAND <= loc < L.LOC_HAND + n)
            or (L.LOC_BID <= loc < L.LOC_BID + n)
            or (L.LOC_PEND <= loc < L.LOC_PEND + n)
        ):
            return E_CARDS
        kind = s[L.DAT + L.D_CARDS + c * L.CD_SIZE + L.CD_KIND]
        if kind != L.CK_DECK and loc == L.LOC_DISPLAY and s[L.G_ROUND] == 1:
            return E_CARDS
        if L.LOC_PEND <= loc < L.LOC_PEND + n and (
            loc - L.LOC_PEND != s[3] or s[L.G_DECISION] != L.DK_BID
        ):
            return E_CARDS
        # a bid-time effect waits only while its bidder orders them (D-A4), on a displayed card
        if s[L.BID_FX + c] != 0 and (s[L.G_DECISION] != L.DK_ORDER or loc != L.LOC_BID + s[3]):
            return E_CARDS
    want = np.zeros(2 * L.N_LOC, np.int64)  # each location's card set (CARDS_AT) recounted from LOC
    for c in range(nc):
        want[2 * s[L.LOC + c] + (c >> 5)] |= np.int64(1) << (c & 31)
    for i in range(2 * L.N_LOC):
        if (np.int64(s[L.CARDS_AT + i]) & 0xFFFFFFFF) != want[i]:
            return E_CARDS
    for t in range(L.N_TRIB):
        k = s[L.TRIB_DECK + t]
        for p in range(n):
            k += s[pb(p) + L.F_TRIB + t]
        for c in range(L.N_POLICY):
            k += s[L.UNDER + c * L.N_TRIB + t]
        if k != s[L.DAT + L.D_TRIB_N + t] or s[L.TRIB_DECK + t] < 0:
            return E_TRIB
    for i in range(L.N_TREASURE):
        if not (-1 <= s[L.TREASURE + i] < n):
            return E_TREASURE
    if not (L.BARB_START <= s[L.G_BARB] <= L.BARB_MAX):
        return E_TRACK
    for p in range(n):
        b = pb(p)
        if not (0 <= s[b + L.F_TRUST] <= L.TRUST_MAX) or s[b + L.F_VP] < 0 or s[b + L.F_GOLD] < 0:
            return E_TRACK
        if not (0 <= s[b + L.F_PALACE] <= L.N_LEVELS):
            return E_TRACK
        led = (
            s[L.DAT + L.D_START] + s[b + L.F_VP_DECREE] + s[b + L.F_VP_TRUST] + s[b + L.F_VP_PALACE]
        )
        led += (
            s[b + L.F_VP_GOLD]
            + s[b + L.F_VP_CHARS]
            + s[b + L.F_VP_TREASURE]
            + s[b + L.F_VP_TRIBUTE]
        )
        led += s[b + L.F_VP_OTHER] - s[b + L.F_VP_LOST]
        for i in range(2 * L.N_POLICY):
            led += s[b + L.F_VP_POLICY + i]
        if led != s[b + L.F_VP]:
            return E_LEDGER
    return 0


ERRORS = (
    "",
    "E_CUBES",
    "E_TILES",
    "E_CARDS",
    "E_TRIB",
    "E_TRACK",
    "E_LEDGER",
    "E_TREASURE",
    "E_MASK",
)
MEMO_SIZE = 0
STATS_SIZE = 0


@nb.njit(cache=True)  # compiled for CHECK_SIG when first passed or called
def check(s, before, action, mask, memo, stats):
    """Every state: ``check_state``."""
    return check_state(s)


# the chance kinds by code, as view.CHANCE_KINDS names them
CHANCE_KINDS = (
    "carriage",
    "start_player",
    "starting_bonus",
    "tile",
    "card",
    "tribute",
    "policy_side",
)


def chance_problem(n: int, options: dict, chance: list) -> str | None:
    """What is wrong with a replay's chance outcomes (None if nothing): at most LOG_CAP
    ``{"event": kind, "value": v, "name": text}``, each value within its kind's range (the
    engine checks the kinds against its own draws as it re-plays)."""
    bound = {
        "carriage": 5,
        "start_player": n,
        "starting_bonus": L.N_SB,
        "tile": L.N_TILE,
        "card": L.MAXC,
        "tribute": L.N_TRIB,
        "policy_side": 2,
    }
    if len(chance) > L.LOG_CAP:
        return f"more than {L.LOG_CAP} chance outcomes"
    for i, o in enumerate(chance):
        if (
            not isinstance(o, dict)
            or not set(o) <= {"event", "value", "name"}
            or o.get("event") not in bound
        ):
            return f'[{i}]: expected {{"event": {"|".join(CHANCE_KINDS)}, "value": integer}}'
        v = o.get("value")
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < bound[o["event"]]:
            return (
                f"[{i}].value: expected 0..{bound[o['event']] - 1} for a {o['event']} outcome, "
                f"got {str(v)[:40]}"
            )
        if not isinstance(o.get("name", ""), str):
            return f"[{i}].name: expected a string"
    return None
