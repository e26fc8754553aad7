"""Emperor's Choice for people: action names, a text rendering, chance outcomes for replays."""

import numpy as np

from sim.core import H_CURRENT, H_NPLAYERS
from sim.emperors_choice import layout as L
from sim.emperors_choice.options import card_names, load_components
from sim.emperors_choice.rules import new_state_forced, pb
from sim.kinds import word_kind

_COMP = load_components()
CARD_NAMES = card_names(_COMP)
POLICY_NAMES = {}
for _r in _COMP["policy_cards"]:
    POLICY_NAMES[(_r["card"] - 1, 0 if _r["side"] == "A" else 1)] = _r["name"]
WD_IDS = [r["id"] for r in _COMP["withdrawal_tiles"]]
TREASURE_NAMES = [r["name"] for r in _COMP["treasure_cards"]]
IMM_NAMES = ("Precious Jade", "Imperial Messenger", "Gold Nugget", "Royal Seal")
CHANCE_KINDS = (
    "carriage",
    "start_player",
    "starting_bonus",
    "tile",
    "card",
    "tribute",
    "policy_side",
)

decision_kind = word_kind(L, "DK_", L.G_DECISION)  # GameSpec.decision_kind


def _effect_text(s, e: int, o: int | None = None) -> str:
    base = L.DAT + L.D_EFF + e * L.EFF_SIZE
    opts = []
    for k in range(int(s[base])):
        atoms = []
        for a in range(L.MAX_ATOMS):
            kind, v = (
                int(s[base + 1 + (k * L.MAX_ATOMS + a) * 2]),
                int(s[base + 2 + (k * L.MAX_ATOMS + a) * 2]),
            )
            if kind:
                atoms.append(f"{L.ATOM_NAMES[kind]}:{v}")
        opts.append("+".join(atoms))
    return opts[o] if o is not None else "/".join(opts)


def policy_name(s, card: int) -> str:
    return POLICY_NAMES[(card, int(s[L.POLICY + 2 * card]))]


def action_name(s: np.ndarray, a: int) -> str:
    kind = int(s[L.G_DECISION])
    p = int(s[H_CURRENT])
    if a == L.A_PASS:
        return "pass"
    if a == L.A_CONFIRM:
        return "confirm bid"
    if a == L.A_CUBE:
        return "lose the bid cubes" if kind == L.DK_LOSE else "add a cube"
    if a == L.A_END:
        if kind == L.DK_REVEAL:
            return "reveal no more"
        return "no flip" if kind == L.DK_DECREE1 else "end"
    if L.A_OPT <= a < L.A_CARD:
        o = a - L.A_OPT
        if kind == L.DK_SIDE:
            lv = int(s[pb(p) + L.F_PALACE])
            effect = _effect_text(s, L.EFF_PAL + 2 * (lv - 1) + o)
            return f"palace level {lv} side {'AB'[o]} ({effect})"
        if kind == L.DK_KEEP:
            return f"keep {L.TILE_NAMES[int(s[L.G_KEEP0 + o])]}"
        if kind == L.DK_OPTION:
            return f"choose {_effect_text(s, int(s[L.G_PEND_EFF]), o)}"
        if kind == L.DK_TREASURE:
            return f"{'use' if o else 'skip'} {TREASURE_NAMES[int(s[L.G_TR_IDX])]}"
        if kind == L.DK_DECREE_TILE:
            return ("decree Score + Flip", "decree Score + Tribute")[o]
        if kind == L.DK_DECREE1 and o < 2:
            return ("decree +3 VP now", "decree Tribute draw now")[o]
        return f"choice {o}"
    if L.A_CARD <= a < L.A_WD:
        c = a - L.A_CARD
        if kind == L.DK_REVEAL:
            return f"reveal {CARD_NAMES[c]} [#{c}]"
        if kind == L.DK_ORDER:
            return f"resolve {CARD_NAMES[c]} [#{c}] now"
        return f"{'lose' if kind == L.DK_LOSE else 'add'} {CARD_NAMES[c]} [#{c}]"
    if L.A_WD <= a < L.A_SET:
        i = a - L.A_WD
        return f"withdraw {WD_IDS[i]} ({_effect_text(s, L.EFF_WD + i)})"
    if L.A_SET <= a < L.A_IMM:
        i = a - L.A_SET
        tiles = [
            f"{L.TILE_NAMES[t]}x{int(s[L.SETS + i * L.N_TILE + t])}"
            for t in range(L.N_TILE)
            if s[L.SETS + i * L.N_TILE + t]
        ]
        return f"take set {i + 1} ({', '.join(tiles) or 'empty'})"
    if L.A_IMM <= a < L.A_TREASURE:
        return f"resolve {IMM_NAMES[a - L.A_IMM]}"
    if L.A_TREASURE <= a < L.A_SCORE:
        return f"take {TREASURE_NAMES[a - L.A_TREASURE]}"
    if L.A_SCORE <= a < L.A_FLIP:
        c = a - L.A_SCORE
        return f"score {c + 1} {policy_name(s, c)}"
    if L.A_FLIP <= a < L.A_RECRUIT:
        c = a - L.A_FLIP
        return f"flip {c + 1} {policy_name(s, c)}"
    if L.A_RECRUIT <= a < L.A_HIRE:
        c = int(s[L.RECRUIT + a - L.A_RECRUIT])
        return f"recruit {CARD_NAMES[c] if c >= 0 else 'empty'} [slot {a - L.A_RECRUIT}]"
    if L.A_HIRE <= a < L.A_RAISE:
        return f"hire {a - L.A_HIRE + 1}"
    if L.A_RAISE <= a < L.NUM_ACTIONS:
        return f"raise palace {a - L.A_RAISE + 1}"
    raise ValueError(f"emperors_choice has no action {a} (actions are 0..{L.NUM_ACTIONS - 1})")


def render(s: np.ndarray) -> str:
    n = int(s[H_NPLAYERS])
    phase = ("setup", "auction", "management", "decree", "over")[int(s[L.G_PHASE])]
    lines = [
        f"Emperor's Choice, {n} players, round {int(s[L.G_ROUND])} {phase}, "
        f"Barbarians {int(s[L.G_BARB])}, supply {int(s[L.G_SUPPLY])} cubes, "
        f"start seat {int(s[L.G_START])}, highest bid {int(s[L.G_HIGH])}"
    ]
    pol = []
    for c in range(L.N_POLICY):
        under = sum(int(s[L.UNDER + c * L.N_TRIB + t]) for t in range(L.N_TRIB))
        disc = "*" if s[L.POLICY + 2 * c + 1] else ""
        pol.append(f"{c + 1}:{policy_name(s, c)}{disc}{f'+{under}T' if under else ''}")
    lines.append("policies: " + ", ".join(pol))
    lines.append(
        "recruit: "
        + ", ".join(CARD_NAMES[int(c)] for c in s[L.RECRUIT : L.RECRUIT + L.MAX_RECRUIT] if c >= 0)
    )
    for p in range(n):
        b = pb(p)
        hand = [
            CARD_NAMES[c] + ("" if s[L.KNOWN + c] else "?")
            for c in range(len(CARD_NAMES))
            if s[L.LOC + c] == L.LOC_HAND + p
        ]
        shown = [CARD_NAMES[c] for c in range(len(CARD_NAMES)) if s[L.LOC + c] == L.LOC_BID + p]
        tab = [
            f"{L.TILE_NAMES[t]}x{int(s[b + L.F_TAB + t])}"
            for t in range(L.N_TILE)
            if s[b + L.F_TAB + t]
        ]
        trib = sum(int(s[b + L.F_TRIB + t]) for t in range(L.N_TRIB))
        tr = [TREASURE_NAMES[i] for i in range(L.N_TREASURE) if s[L.TREASURE + i] == p]
        mark = "*" if p == s[H_CURRENT] else " "
        lines.append(
            f"{mark}seat {p}: VP {int(s[b + L.F_VP])} Trust {int(s[b + L.F_TRUST])} "
            f"Gold {int(s[b + L.F_GOLD])} "
            f"cubes {int(s[b + L.F_CUBES])}+{int(s[b + L.F_BID_CUBES])} "
            f"palace {int(s[b + L.F_PALACE])} "
            f"tile {int(s[b + L.F_TILE])} tributes {trib} hand [{', '.join(hand)}]"
            + (f" shown [{', '.join(shown)}]" if shown else "")
            + f" tableau [{', '.join(tab)}]"
            + (f" treasures [{', '.join(tr)}]" if tr else "")
        )
    return "\n".join(lines)


def chance_outcomes(s: np.ndarray) -> list:
    """Every chance outcome in the order it happened (kind and value; tiles and cards named)."""
    out = []
    for i in range(int(s[L.G_LOG_N])):
        k, v = int(s[L.LOGK + i]), int(s[L.LOG + i])
        e = {"event": CHANCE_KINDS[k], "value": v}
        if k == L.CH_TILE:
            e["name"] = L.TILE_NAMES[v]
        elif k == L.CH_CARD:
            e["name"] = CARD_NAMES[v]
        out.append(e)
    return out


def state_from_chance(n: int, options: np.ndarray, outcomes: list) -> np.ndarray:
    vals = []
    for o in outcomes:
        if o.get("event") not in CHANCE_KINDS:
            raise ValueError(f"unknown chance event {o.get('event')!r}")
        vals.append(int(o["value"]))
    log = np.array(vals, np.int32)
    st = new_state_forced(np.int64(0), np.int64(n), options, log, np.int64(len(vals)))
    return st
