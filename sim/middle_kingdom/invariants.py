"""Middle Kingdom invariants, checked after every decision (tests/test_middle_kingdom_properties.py,
``dynasty fuzz``; protocol in :mod:`sim.invariants`).

Every dynasty card in exactly one place, consistent with the row, the deck and the stacks;
owned cards against each seat's physical, doubled and effective counts; bid cards
conserved (hand, discard, carried stacks, this round's entries); the 1-card in hand at
each round start (I1); goal owners hold the maximum at round boundaries (I3); the Dragon
held iff owned; tokens counted; each round's identical slots (D33); the Emperor's naming
at 2p and advanced 3p (D5).
"""

import numba as nb
import numpy as np

from sim.middle_kingdom import layout as L
from sim.middle_kingdom.rules import pb

# Error codes of the invariant checker (0 = fine).
E_ROW, E_DECK, E_OWNED, E_BIDS, E_GOAL, E_DRAGON, E_TOKENS, E_HAND_ZERO, E_IDENT, E_EMPEROR = range(
    1, 11
)
# What the runs count (stats[i]): identical slots where a member drew nothing (D33), and
# rounds where a seat holding the Palace and the Emperor named its late bid (D5 at_commit).
ST_SHORT_SLOTS, ST_LATE_NAMED = 0, 1


@nb.njit(cache=True)
def check_state(s, at_round_start):
    n = s[2]
    # every dynasty card in exactly one place, consistent with the row, the deck and stacks
    for i in range(s[L.G_K]):
        c = s[L.ROW + i]
        if c >= 0 and c != L.ROW_DRAGON and s[L.LOC + c] != L.LOC_ROW:
            return E_ROW
    n_row = 0
    for c in range(L.N_DYN):
        if s[L.LOC + c] == L.LOC_ROW:
            n_row += 1
            found = False
            for i in range(s[L.G_K]):
                if s[L.ROW + i] == c:
                    found = True
            if not found:
                return E_ROW
    for i in range(L.N_DYN):
        c = s[L.DECK + i]
        in_deck = s[L.LOC + c] == L.LOC_DECK
        if (i >= s[L.G_DECK_PTR]) != in_deck:
            return E_DECK
    seen = np.zeros(L.N_DYN, np.int64)
    for i in range(L.N_DYN):
        seen[s[L.DECK + i]] += 1
    for c in range(L.N_DYN):
        if seen[c] != 1:
            return E_DECK
    for p in range(n):
        phys = np.zeros(5, np.int64)
        dbl = np.zeros(5, np.int64)
        for c in range(L.N_DYN):
            if s[L.LOC + c] == L.LOC_OWNED + p and s[L.HOST + c] >= 0:
                h = s[L.HOST + c]
                if h == s[L.CARD_TYPE + c]:
                    phys[h] += 1
                else:
                    dbl[h] += 1
        extra = dbl.sum() if s[L.O_MARKET_DBL_MERCHANT] == 1 else 0  # D14 flag
        for t in range(5):
            if (phys[t] != s[pb(p) + L.F_PHYS + t] or dbl[t] != s[pb(p) + L.F_DBL + t]) and s[
                L.G_PEND_P
            ] != p:
                return E_OWNED
            expect = phys[t] + 2 * dbl[t] + (extra if t == L.MERCHANT else 0)
            if s[pb(p) + L.F_EFF + t] != expect and s[L.G_PEND_P] != p:
                return E_OWNED
    # bid cards conserved: hand, discard, carried stacks, this round's entries
    for p in range(n):
        b = pb(p)
        seen_bits = 0
        parts = (s[b + L.F_HAND], s[b + L.F_DISC])
        for x in parts:
            if seen_bits & x:
                return E_BIDS
            seen_bits |= x
        for j in range(2):
            for f in (L.F_CARRY, L.F_SLOT_CARD, L.F_SLOT_BOTTOM):
                v = s[b + f + j]
                if v >= 0:
                    if (seen_bits >> v) & 1:
                        return E_BIDS
                    seen_bits |= 1 << v
        if seen_bits != 255:
            return E_BIDS
        if at_round_start and not (s[b + L.F_HAND_START] & 1):
            return E_HAND_ZERO  # I1
    # I3 at round boundaries: goal owners hold the maximum; unowned iff all below 2
    if at_round_start:
        for t in range(5):
            owner = s[L.GOAL_OWNER + t]
            mx = 0
            for p in range(n):
                if s[pb(p) + L.F_EFF + t] > mx:
                    mx = s[pb(p) + L.F_EFF + t]
            if owner < 0:
                if mx >= 2:
                    return E_GOAL
            elif s[pb(owner) + L.F_EFF + t] != mx or mx < 2:
                return E_GOAL
    held = s[L.G_DRAGON] == L.DR_HELD
    if held != (s[L.GOAL_OWNER + L.DRAGON] >= 0):
        return E_DRAGON
    tok = 0
    for p in range(n):
        tok += s[pb(p) + L.F_TOKENS]
    if tok != s[L.G_TOKENS_OUT]:
        return E_TOKENS
    return 0


@nb.njit(cache=True)
def check_round(s, stats):
    """At the first decision of a round (or the end), check the previous round's identical
    slots, all resolved by now (D33): under each_while_cards the members who drew come first
    and a member drew nothing only from an empty deck; under all_or_none all or none drew,
    and none only when the deck is smaller than the slot."""
    if s[L.G_ORD_POS] != s[L.G_ORD_N]:
        return 0  # this round's order is built already (no commit was asked): not resolved yet
    left = L.N_DYN - s[L.G_DECK_PTR]
    i = 0
    while i < s[L.G_ORD_N]:
        end = s[L.ORD_GEND + i]
        if s[L.ORD_GKIND + i] == L.GK_IDENT:
            drew = 0
            for j in range(i, end):
                if s[L.ORD_HOST + j] >= 0:
                    if drew != j - i:
                        return E_IDENT  # a drawer after a member who drew nothing
                    drew += 1
            if drew < end - i:
                stats[ST_SHORT_SLOTS] += 1
                if s[L.O_IDENT_SHORT] == 1 and (drew > 0 or left >= end - i):
                    return E_IDENT
                if s[L.O_IDENT_SHORT] == 0 and left > 0:
                    return E_IDENT
        i = end
    return 0


ERRORS = (
    "",
    "E_ROW",
    "E_DECK",
    "E_OWNED",
    "E_BIDS",
    "E_GOAL",
    "E_DRAGON",
    "E_TOKENS",
    "E_HAND_ZERO",
    "E_IDENT",
    "E_EMPEROR",
)
STATS_SIZE = 2
# memo words: the round last seen, the Emperor's naming decisions asked in it, the Emperor's
# holder in phase 1 (goals move in phase 2 only)
M_ROUND, M_ASKS, M_EMP = 0, 1, 2
MEMO_SIZE = 3


@nb.njit(cache=True)  # compiled for CHECK_SIG when first passed or called
def check(s, before, action, mask, memo, stats):
    """Every state: ``check_state``; at a decision, the identical slots of the round just
    ended (``check_round``) and the Emperor's naming (D5): at most one naming decision a
    round, asked with the commit under ``at_commit`` and after it under ``post_reveal``,
    and under ``at_commit`` made by the end of the commit whenever the Emperor bids two
    cards; at the end, the last round's slots (the end-game Heir award may leave I3 behind)."""
    if action < 0:
        memo[M_ROUND] = 0
        memo[M_ASKS] = 0
        memo[M_EMP] = -1
    elif action == L.A_EMP_LATE:
        stats[ST_LATE_NAMED] += 1
    if s[3] < 0:  # over
        e = check_state(s, False)
        if e != 0:
            return e
        return check_round(s, stats)
    e = check_state(s, s[L.G_PHASE] == L.PH_COMMIT)  # goals cannot move in phase 1
    if e != 0:
        return e
    if s[L.G_ROUND] != memo[M_ROUND]:
        e = check_round(s, stats)
        if e != 0:
            return e
        memo[M_ROUND] = s[L.G_ROUND]
        memo[M_ASKS] = 0
    at_commit = s[L.O_EMP_AT_COMMIT] == 1
    if s[L.G_PHASE] == L.PH_COMMIT:
        memo[M_EMP] = s[L.GOAL_OWNER + L.EMPEROR]
    emp = memo[M_EMP]
    if s[L.G_DECISION] == L.DK_EMPEROR:
        memo[M_ASKS] += 1
        if memo[M_ASKS] > 1 or s[L.G_TWO_BID] == 0 or at_commit != (s[L.G_PHASE] == L.PH_COMMIT):
            return E_EMPEROR
    elif at_commit and s[L.G_TWO_BID] == 1 and emp >= 0 and s[L.G_PHASE] != L.PH_COMMIT:
        b = pb(emp)
        if s[b + L.F_HAND_START] != 1 and s[b + L.F_EMP_SLOT] < 0:
            return E_EMPEROR
    return 0


def chance_problem(n: int, options: dict, chance: list) -> str | None:
    """What is wrong with a replay's chance outcomes (None if nothing): first the lead seat
    ``{"event": "lead_seat", "seat": 0..n-1}``, then distinct cards ``{"event": "card",
    "card": 0..61, "name": text}``."""
    cards = set()
    for i, o in enumerate(chance):
        if not isinstance(o, dict):
            return f"[{i}]: expected an object, got {type(o).__name__}"
        ev = o.get("event")
        if ev == "lead_seat" and i == 0:
            if set(o) != {"event", "seat"} or not _seat(o["seat"], n):
                return f'[{i}]: expected {{"event": "lead_seat", "seat": 0..{n - 1}}}'
        elif ev == "card" and i > 0:
            c = o.get("card")
            if (
                not set(o) <= {"event", "card", "name"}
                or not _seat(c, L.N_DYN)
                or c in cards
                or not isinstance(o.get("name", ""), str)
            ):
                return (
                    f'[{i}]: expected {{"event": "card", "card": 0..{L.N_DYN - 1} (each once), '
                    '"name": text}'
                )
            cards.add(c)
        else:
            return f"[{i}]: expected the lead seat first, then cards, got event {str(ev)[:40]!r}"
    return None


def _seat(v, n) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n
