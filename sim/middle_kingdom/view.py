"""Middle Kingdom for people: action names, a text rendering, chance outcomes for replays."""

import numpy as np

from sim.core import H_CURRENT, H_NPLAYERS
from sim.kinds import word_kind
from sim.middle_kingdom import layout as L
from sim.middle_kingdom.rules import pb, state_from_deck

TYPE_LABEL = ("Official", "Peasant", "Merchant", "Noble", "General")
STACK_LABEL = ("Officials", "Peasants", "Merchants", "Nobles", "Generals")
GOAL_LABEL = ("Palace", "Harvest", "Market", "Heir", "Emperor", "Dragon")

decision_kind = word_kind(L, "DK_", L.G_DECISION)  # GameSpec.decision_kind


def card_name(s: np.ndarray, c: int) -> str:
    if c == L.ROW_DRAGON:
        return "Dragon"
    if c == s[L.S_PHIL]:
        return "Philosopher"
    t = int(s[L.CARD_TYPE + c])
    if t == L.NOBLE:
        return f"Noble({int(s[L.CARD_VP + c])})"
    return TYPE_LABEL[t]


def action_name(s: np.ndarray, a: int) -> str:
    kind = int(s[L.G_DECISION])
    p = int(s[H_CURRENT])
    if L.A_BID <= a < L.A_BID + 8:
        v = a - L.A_BID
        if kind == L.DK_HARVEST:
            return f"swap 0 for {v}"
        if kind == L.DK_EMPEROR:
            return f"+0.5 on bid {v}"
        if kind == L.DK_BID and s[L.G_PHASE] == L.PH_PALACE:
            return f"late bid {v}"
        return f"bid {v}"
    if L.A_ROW <= a < L.A_ROW + L.KMAX:
        i = a - L.A_ROW
        c = int(s[L.ROW + i])
        what = card_name(s, c) if c >= 0 else "empty"
        if kind == L.DK_EXCHANGE:
            return f"exchange Dragon for {what} [row {i}]"
        if kind == L.DK_HEIR:
            return f"Heir takes {what} [row {i}]"
        return f"take {what} [row {i}]"
    if a == L.A_EMP_LATE:
        return "+0.5 on the late bid"
    if a == L.A_PASS:
        return "keep 0" if kind == L.DK_HARVEST else "pass"
    if L.A_HOST <= a < L.A_HOST + L.N_TYPES:
        return f"Merchant onto {STACK_LABEL[a - L.A_HOST]}"
    if a in (L.A_SLOT_STACK0, L.A_SLOT_STACK1, L.A_SLOT_SINGLE):
        where = {
            L.A_SLOT_STACK0: "stack 1",
            L.A_SLOT_STACK1: "stack 2",
            L.A_SLOT_SINGLE: "a single",
        }[a]
        if p >= 0 and s[pb(p) + L.F_HAND_START] == 1:
            return f"0 onto {where}"
        return f"first bid onto {where}"
    raise ValueError(f"middle_kingdom has no action {a} (actions are 0..{L.NUM_ACTIONS - 1})")


def _bits(x: int) -> str:
    return "{" + ",".join(str(v) for v in range(8) if (int(x) >> v) & 1) + "}"


def render(s: np.ndarray) -> str:
    n = int(s[H_NPLAYERS])
    lines = [
        f"Middle Kingdom, {n} players, round {int(s[L.G_ROUND])}, "
        f"deck {L.N_DYN - int(s[L.G_DECK_PTR])} cards, lead seat {int(s[L.G_LEAD])}"
    ]
    row = [card_name(s, int(s[L.ROW + i])) for i in range(int(s[L.G_K])) if s[L.ROW + i] >= 0]
    lines.append("row: " + (", ".join(row) if row else "(empty)"))
    dragon = ("display", "held", "in row", "set aside")[int(s[L.G_DRAGON])]
    lines.append(f"Dragon: {dragon}")
    in_commit = s[L.G_PHASE] == L.PH_COMMIT
    for p in range(n):
        b = pb(p)
        goals = [GOAL_LABEL[g] for g in range(L.N_GOALS) if s[L.GOAL_OWNER + g] == p]
        stacks = []
        for t in range(L.N_TYPES):
            ph, db = int(s[b + L.F_PHYS + t]), int(s[b + L.F_DBL + t])
            if ph or db:
                stacks.append(
                    f"{STACK_LABEL[t]} {int(s[b + L.F_EFF + t])}"
                    + (f" (+{db} Market)" if db else "")
                )
        hand = s[b + L.F_HAND_START] if in_commit else s[b + L.F_HAND]
        carry = [int(s[b + L.F_CARRY + i]) for i in range(2) if s[b + L.F_CARRY + i] >= 0]
        laid = [int(s[b + L.F_SLOT_CARD + j]) for j in range(2) if s[b + L.F_SLOT_CARD + j] >= 0]
        bids = ("laid: hidden" if in_commit else f"laid: {laid}") if laid else ""
        mark = "*" if p == s[H_CURRENT] else " "
        lines.append(
            f"{mark}seat {p}: goals [{', '.join(goals)}]  cards [{'; '.join(stacks)}]  "
            f"tokens {int(s[b + L.F_TOKENS])}"
            f"  hand {_bits(hand)}  discard {_bits(s[b + L.F_DISC])}"
            + (f"  stacks {carry}" if carry else "")
            + (f"  {bids}" if bids else "")
        )
        if s[L.G_PHASE] == L.PH_OVER:
            lines[-1] += f"  SCORE {int(s[b + L.F_SCORE])}"
    return "\n".join(lines)


def chance_outcomes(s: np.ndarray) -> list:
    """The lead seat drawn at setup, then every deck card in the order it was turned up."""
    out = [{"event": "lead_seat", "seat": _first_lead(s)}]
    for i in range(int(s[L.G_DECK_PTR])):
        c = int(s[L.DECK + i])
        out.append({"event": "card", "card": c, "name": card_name(s, c)})
    return out


def _first_lead(s: np.ndarray) -> int:
    n = int(s[H_NPLAYERS])
    if s[L.O_LEAD_SEAT] == 1:
        return 0
    return (int(s[L.G_LEAD]) - (int(s[L.G_ROUND]) - 1)) % n


def state_from_chance(n: int, options: np.ndarray, outcomes: list) -> np.ndarray:
    lead = 0
    drawn = []
    for o in outcomes:
        if o["event"] == "lead_seat":
            lead = int(o["seat"])
        elif o["event"] == "card":
            drawn.append(int(o["card"]))
        else:
            raise ValueError(f"unknown chance event {o['event']!r}")
    if len(set(drawn)) != len(drawn) or any(not 0 <= c < L.N_DYN for c in drawn):
        raise ValueError("chance outcomes: the drawn cards must be distinct card ids 0..61")
    deck = np.array(drawn + [c for c in range(L.N_DYN) if c not in set(drawn)], np.int32)
    return state_from_deck(np.int64(n), options, deck, np.int64(lead))
