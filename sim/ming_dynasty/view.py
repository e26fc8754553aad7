"""Ming Dynasty for people: action names, a text rendering, chance outcomes for replays."""

import numpy as np

from sim.core import H_CURRENT, H_NPLAYERS
from sim.kinds import word_kind
from sim.ming_dynasty import layout as L
from sim.ming_dynasty.rules import DEPLOY_MONK, DEPLOY_OPEN, pb, state_from_script

SYM_NAME = ("Horse", "Boat", "Palanquin", "Dragon")
ENTITY = ("A", "B", "C", "D", "N")
PHASE_NAME = (
    "prince placement",
    "neutral placement",
    "phase 1 (place members)",
    "phase 2 (take cards)",
    "phase 3 (prince actions)",
    "phase 3 (moving)",
    "phase 3 (deploy)",
    "phase 4 (commit returns)",
    "phase 4 (return members)",
    "phase 4 (neutral returns)",
    "phase 5 (choose start player)",
    "game over",
)

decision_kind = word_kind(L, "PH_", L.G_PHASE)  # GameSpec.decision_kind


def action_name(s: np.ndarray, a: int) -> str:
    ph = int(s[L.G_PHASE])
    a = int(a)
    if L.A_DIST <= a < L.A_DIST + L.N_DIST:
        d = a - L.A_DIST
        if ph == L.PH_PRINCE:
            return f"prince to district {d}"
        if ph == L.PH_NEUTRAL:
            return f"neutral member to district {d}"
        if ph == L.PH_NRETURN:
            return f"neutral member back to district {d}"
        return f"member back to district {d}"
    if L.A_SPACE <= a < L.A_SPACE + L.N_PROV:
        sp = a - L.A_SPACE
        if ph == L.PH_CARDS:
            sym = int(s[L.DISPLAY + sp])
            return f"take {SYM_NAME[sym] if sym >= 0 else 'nothing'} from display {sp}"
        return f"place on space {sp}"
    if L.A_DRAGON <= a < L.A_DRAGON + L.N_PROV:
        return f"take dragon paying a member from space {a - L.A_DRAGON}"
    if L.A_STEP <= a < L.A_STEP + L.N_DIST:
        p = int(s[H_CURRENT])
        sym = int(s[L.ADJ + int(s[L.PRINCE + p]) * L.N_DIST + a - L.A_STEP]) if p >= 0 else -1
        return f"step to {a - L.A_STEP} by {SYM_NAME[sym] if sym >= 0 else 'card'}"
    if L.A_STEPD <= a < L.A_STEPD + L.N_DIST:
        return f"step to {a - L.A_STEPD} by Dragon"
    if L.A_STAY <= a < L.A_STAY + 4:
        return f"stay discarding {SYM_NAME[a - L.A_STAY]}"
    if a == L.A_PASS:
        return "pass"
    if L.A_DEPLOY <= a < L.A_DEPLOY + L.N_DEPLOY:
        i = a - L.A_DEPLOY
        return f"deploy {DEPLOY_OPEN[i]} open" + (" + monastery" if DEPLOY_MONK[i] else "")
    if L.A_COMMIT <= a < L.A_COMMIT + 7:
        return f"return {a - L.A_COMMIT}"
    if L.A_START <= a < L.A_START + L.MAXP:
        return f"start player seat {a - L.A_START}"
    if L.A_DRAGON_OF <= a < L.A_DRAGON_OF + L.N_PROV * L.MAXP:
        sp, q = divmod(a - L.A_DRAGON_OF, L.MAXP)
        return f"take dragon paying a member of seat {q} from space {sp}"
    if L.A_COMMIT_SEC <= a < L.A_COMMIT_SEC + L.N_COMMIT_SEC:
        code = a - L.A_COMMIT_SEC
        prov = int(s[L.G_PROV])
        parts = []
        for j in range(L.DPP):
            r = code % L.COMMIT_SEC_BASE
            code //= L.COMMIT_SEC_BASE
            if r:
                parts.append(f"{r} to district {prov * L.DPP + j}")
        return "return " + (", ".join(parts) if parts else "none")
    raise ValueError(f"ming_dynasty has no action {a} (actions are 0..{L.NUM_ACTIONS - 1})")


def _ents(s, base, n2):
    n = int(s[H_NPLAYERS])
    ents = list(range(n)) + ([L.NEUTRAL] if n == 2 else [])
    return " ".join(f"{ENTITY[e]}{int(s[base + e])}" for e in ents if s[base + e] > 0) or "-"


def render(s: np.ndarray) -> str:
    n = int(s[H_NPLAYERS])
    ph = int(s[L.G_PHASE])
    lines = [
        f"Ming Dynasty, {n} players, round {int(s[L.G_ROUND])}, {PHASE_NAME[ph]}, "
        f"start player {ENTITY[int(s[L.G_START])]}",
        "display: "
        + ", ".join(
            f"{i}:{SYM_NAME[int(s[L.DISPLAY + i])] if s[L.DISPLAY + i] >= 0 else '-'}"
            for i in range(L.N_PROV)
        )
        + f"   supply {int(s[L.G_DECK_N] - s[L.G_DECK_PTR])}  "
        + f"discard H{int(s[L.G_DISCARD])} B{int(s[L.G_DISCARD + 1])} P{int(s[L.G_DISCARD + 2])}"
        + (f" D{int(s[L.G_DISCARD_D])}" if s[L.G_DISCARD_D] else "")
        + f"  dragons {int(s[L.G_DRAGON_SUPPLY])}  "
        + f"tiles {[int(x) for x in s[L.TILE_SUPPLY : L.TILE_SUPPLY + 6]]}",
    ]
    if n == 2:
        lines[-1] += f"  neutral pool {int(s[L.G_NEUTRAL_POOL])}"
    for prov in range(L.N_PROV):
        lines.append(f"province {prov}:  space [{_ents(s, L.SPACE + prov * L.MAXP, False)}]")
        for j in range(L.DPP):
            d = prov * L.DPP + j
            princes = [ENTITY[p] for p in range(n) if s[L.PRINCE + p] == d]
            monk = int(s[L.MONK + d])
            lines.append(
                f"  district {d:2d}: open [{_ents(s, L.OPEN + d * L.N_ENT, True)}]"
                f"  monastery {ENTITY[monk] if monk >= 0 else '-'}"
                + (
                    f"  city [{_ents(s, L.CITY + d * L.N_ENT, True)}]"
                    if s[L.CITY + d * L.N_ENT : L.CITY + d * L.N_ENT + 5].any()
                    else ""
                )
                + (f"  prince {','.join(princes)}" if princes else "")
            )
    for p in range(n):
        b = pb(p)
        hand = " ".join(
            f"{SYM_NAME[k][0]}{int(s[b + L.F_HAND + k])}" for k in range(4) if s[b + L.F_HAND + k]
        )
        mark = "*" if p == s[H_CURRENT] else " "
        lines.append(
            f"{mark}{ENTITY[p]} (seat {p}): score {int(s[b + L.F_SCORE])}  "
            f"supply {int(s[b + L.F_SUPPLY])}  boxed {int(s[L.BOXED + p])}  hand [{hand or '-'}]  "
            f"tiles {[int(x) for x in s[b + L.F_TILES : b + L.F_TILES + 6]]}"
            + (
                "  passed"
                if ph in (L.PH_TURN, L.PH_WALK, L.PH_DEPLOY) and s[b + L.F_PASSED]
                else ""
            )
        )
    return "\n".join(lines)


def chance_outcomes(s: np.ndarray) -> list:
    """The first start player, then every movement card turned up, in order."""
    out = [{"event": "start_player", "seat": int(s[L.G_FIRST_START])}]
    for i in range(int(s[L.G_LOG_N])):
        sym = int(s[L.LOG + i])
        out.append({"event": "card", "symbol": SYM_NAME[sym]})
    return out


def state_from_chance(n: int, options: np.ndarray, outcomes: list) -> np.ndarray:
    start = 0
    script = []
    for o in outcomes:
        if o["event"] == "start_player":
            start = int(o["seat"])
        elif o["event"] == "card":
            if o["symbol"] not in SYM_NAME:  # a Dragon only under stay_dragon = discard_pile
                raise ValueError(f"chance outcomes: unknown card symbol {o['symbol']!r}")
            script.append(SYM_NAME.index(o["symbol"]))
        else:
            raise ValueError(f"unknown chance event {o['event']!r}")
    return state_from_script(np.int64(n), options, np.int64(start), np.array(script, np.int32))
