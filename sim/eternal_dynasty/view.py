"""Readable action names, a text rendering of the map, and replays from chance outcomes."""

import numpy as np

from sim.core import H_CURRENT, H_NPLAYERS
from sim.eternal_dynasty import layout as L
from sim.eternal_dynasty import rules as R
from sim.eternal_dynasty.options import load_components
from sim.eternal_dynasty.rules import tasks
from sim.kinds import constant_names

_COMP = load_components()
PROVINCE = [p["name"] for p in _COMP["provinces"]]
RULER = [r["name"] for r in _COMP["rulers"]]
CARD = [c["name"] for c in _COMP["dynasty_cards"]]
VOTE = [v["name"] for v in _COMP["vote_cards"]]
EVENT = [e["name"] for e in _COMP["event_cards"]]
TYPE = ("Military", "Political")

_KIND = constant_names(tasks, "TK_")


def decision_kind(s: np.ndarray) -> str:
    """The kind of decision the state asks for: its top task's `TK_*` kind
    (GameSpec.decision_kind); "none" once the stack is empty."""
    return _KIND[int(s[R.top(s)])] if s[L.G_SP] > 0 else "none"


def _card(s, c):
    return CARD[int(s[L.DYN_TYPE + c])]


def action_name(s: np.ndarray, a: int) -> str:
    a = int(a)
    if a < L.A_PROV:
        q, t = divmod(a - L.A_PQ, 2)
        o = R.top(s)
        kind = int(s[o]) if s[L.G_SP] > 0 else -1
        if kind == R.TK_ACTION:
            return f"place {TYPE[t]} in {PROVINCE[q]}"
        if kind == R.TK_ASSASSIN_AT:
            return f"remove the {('General', 'Magistrate')[t]} in {PROVINCE[q]}"
        return f"{TYPE[t]} in {PROVINCE[q]}"
    if a < L.A_TYPE:
        return PROVINCE[a - L.A_PROV]
    if a < L.A_CARD:
        if s[L.G_SP] > 0 and int(s[R.top(s)]) == R.TK_DONG:
            return f"Dong's gain: {TYPE[a - L.A_TYPE]}"
        return TYPE[a - L.A_TYPE]
    if a < L.A_PLAYER:
        p = int(s[H_CURRENT])
        slot = a - L.A_CARD
        if p >= 0 and slot < s[R.pb(p) + L.F_NDYN]:
            return f"card {slot} ({_card(s, int(s[R.pb(p) + L.F_HAND + slot]))})"
        return f"card {slot}"
    if a < L.A_NUM:
        v = a - L.A_PLAYER
        if int(s[H_NPLAYERS]) == 2 and v == L.EE:
            return "the Eternal Emperor"
        return f"player {v}"
    if a < L.A_AYE:
        k = a - L.A_NUM
        kind = int(s[R.top(s)]) if s[L.G_SP] > 0 else -1
        p = int(s[H_CURRENT])
        if kind == R.TK_RULER and p >= 0:
            r = int(s[R.pb(p) + L.F_DEALT + k])
            return f"ruler {k} ({RULER[r]})" if r >= 0 else f"ruler {k}"
        if kind in (R.TK_VOTECALL, R.TK_EXTRA) and p >= 0:
            slot = k % L.VHAND_MAX
            verb = (
                "call"
                if kind == R.TK_VOTECALL
                else ("spend as Nay" if k >= L.VHAND_MAX else "spend as Aye")
            )
            if slot < s[R.pb(p) + L.F_NVOTE]:
                vote = VOTE[int(s[L.VOTE_TYPE + s[R.pb(p) + L.F_VHAND + slot]])]
                return f"{verb} vote {slot} ({vote})"
            return f"{verb} vote {slot}"
        if kind == R.TK_TAKE_OTHERS:
            who = (
                "the Eternal Emperor"
                if int(s[H_NPLAYERS]) == 2 and k // 2 == L.EE
                else f"player {k // 2}"
            )
            return f"remove a {TYPE[k % 2]} token of {who}"
        if kind == R.TK_BID:
            o = R.top(s)
            if s[o + 2] == 0:
                return f"bid {k * L.N_NUM}+"
            return f"bid {int(s[R.pb(int(s[o + 1])) + L.F_BID]) + k}"
        return f"number {k}"
    if s[L.G_SP] > 0 and int(s[R.top(s)]) == R.TK_EE_VOTE and a in (L.A_AYE, L.A_NAY):
        return "the Emperor votes " + ("aye" if a == L.A_AYE else "nay")
    if a == L.A_SKIP and s[L.G_SP] > 0 and int(s[R.top(s)]) == R.TK_DONG:
        return "skip Dong's gain"
    return {L.A_AYE: "aye", L.A_NAY: "nay", L.A_SKIP: "pass"}[a]


def render(s: np.ndarray) -> str:
    n = int(s[H_NPLAYERS])
    lines = [
        f"Eternal Dynasty, {n} players, Generation {int(s[L.G_GEN])}/{int(s[L.G_NGEN])}, "
        f"round {int(s[L.G_ROUND])}/{int(s[L.G_NROUNDS])}, first player {int(s[L.G_FIRST])}"
    ]
    bans = [VOTE[v] for v in range(L.N_VOTE_TYPES) if s[L.G_BAN + v]]
    if bans:
        lines.append("bans: " + ", ".join(bans))
    for q in range(L.N_PROV):
        if s[L.QUAR + q]:
            lines.append(f"{q + 1:2d} {PROVINCE[q]:<10} (quarantined)")
            continue
        cells = []
        for p in range(n + 1 if n == 2 else n):
            m, pp = int(s[R.ti(p, q, 0)]), int(s[R.ti(p, q, 1)])
            lead = ("G" if s[R.li(p, q, 0)] else "") + ("Mg" if s[R.li(p, q, 1)] else "")
            if m or pp or lead:
                who = "EE" if n == 2 and p == L.EE else f"p{p}"
                cells.append(f"{who} M{m}/P{pp}" + (f" +{lead}" if lead else ""))
        extra = []
        if s[L.STRUCT + q * 2]:
            extra.append("Fortress")
        if s[L.STRUCT + q * 2 + 1]:
            extra.append("Palace")
        mk = int(s[L.MARK + q])
        extra += [name for bit, name in ((1, "Sacred"), (2, "Omen"), (4, "Plague")) if mk & bit]
        lines.append(
            f"{q + 1:2d} {PROVINCE[q]:<10} "
            + ("; ".join(cells) or "-")
            + (f"  [{', '.join(extra)}]" if extra else "")
        )
    for p in range(n):
        b = R.pb(p)
        r = int(s[b + L.F_RULER])
        mark = "*" if p == s[H_CURRENT] else " "
        lines.append(
            f"{mark}seat {p}: ruler {RULER[r] if r >= 0 else '-'}, "
            f"bonus M{int(s[b + L.F_BM])}/P{int(s[b + L.F_BP])}, "
            f"{int(s[b + L.F_NDYN])} cards, {int(s[b + L.F_NVOTE])} votes, "
            f"score {int(s[b + L.F_SCORE])}, coins {int(s[b + L.F_COINS])}"
            + (f" (worth {int(s[b + L.F_COIN_VALUE])})" if s[L.G_OVER] else "")
            + (f", Dynasty Influence {int(s[b + L.F_DI])}" if n == 2 else "")
        )
    if n == 2:  # the Eternal Emperor: an extra colour with no seat (spec 8)
        b = R.pb(L.EE)
        lines.append(
            f" Eternal Emperor (colour {L.EE}): "
            f"Starting Province {PROVINCE[int(s[L.G_EE_START])]}, "
            f"tokens {int(R.tokens_total(s, L.EE))}, score {int(s[b + L.F_SCORE])}, "
            f"coins {int(s[b + L.F_COINS])}"
            + (f" (worth {int(s[b + L.F_COIN_VALUE])})" if s[L.G_OVER] else "")
            + ("; the Emperor wins, both players lose" if s[L.G_OVER] and R.ee_wins(s) else "")
        )
    return "\n".join(lines)


def chance_outcomes(s: np.ndarray) -> list:
    """Every chance outcome in the order it happened (shuffle steps, die rolls, first
    player, coin values), as the integers the engine drew."""
    if s[L.G_LOG_OVERFLOW]:
        raise ValueError(
            "eternal_dynasty: the chance log overflowed; this game cannot be replayed from "
            "chance outcomes"
        )
    return [int(x) for x in s[L.LOG : L.LOG + int(s[L.G_LOG_LEN])]]


def state_from_chance(n: int, options: np.ndarray, outcomes: list) -> np.ndarray:
    arr = np.array([int(x) for x in outcomes], np.int64)
    if len(arr) and arr.min() < 0:
        raise ValueError("chance outcomes must be non-negative integers")
    return R.state_from_log(np.int64(n), options, arr)
