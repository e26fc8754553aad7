"""Eternal Dynasty rule options (spec 4.2 step 1) and component data loading.

The order of ``OPTIONS`` is the order of the option codes in the state (layout.O_*).
The component file ``data/components.json`` is the spec's companion data
(``shared/rules/eternal_dynasty_data.json``); replace it with printed card values keeping
the same fields.  ``component_data`` validates it and packs it (layout.D_*); every error
names the file and the offending entry.
"""

import json
from pathlib import Path

import numpy as np

from sim.core import Option
from sim.eternal_dynasty import layout as L

DATA_FILE = Path(__file__).with_name("data") / "components.json"

OPTIONS = (
    Option(
        "events",
        "full",
        "4.2/4.3: the Event deck: all 20 cards, the 12 Minor ones, or no Event phase",
        ("full", "minor_only", "none"),
    ),
    Option("coins", "on", "4.3 No Coins: every Coin becomes 1 point at once", ("on", "off")),
    Option("ruler_draft", "false", "4.3 Ruler Draft (step G3)", ("false", "true")),
    Option(
        "length",
        "standard",
        "4.1: 'long3' (3 players, 4 x 7) or 'short5' (5 players, 4 x 6)",
        ("standard", "long3", "short5"),
    ),
    Option(
        "adjacency",
        "modern",
        "D3: modern provincial borders, or 'qing' (Shandong-Anhui out, Jiangsu-Henan in)",
        ("modern", "qing"),
    ),
    Option(
        "enforce_token_limits",
        "true",
        "D26: Leader, Structure and Influence supply limits",
        ("true", "false"),
    ),
    Option(
        "coin_draw",
        "at_award",
        "D47/7.3: a Coin's value is drawn from the bag when the Coin is awarded, or "
        "'at_reveal': all values drawn at the final reveal (same distribution, another order "
        "of chance outcomes)",
        ("at_award", "at_reveal"),
    ),
)
assert len(OPTIONS) == L.N_OPT


def player_constraints(n: int, options: dict) -> str | None:
    length = options.get("length", "standard")
    if n == 2 and length != "standard":
        return (
            f"length {length!r} needs {3 if length == 'long3' else 5} players; the 2-player "
            "game has "
            "one length (5 Generations of 6 rounds, spec 8)"
        )
    if length == "long3" and n != 3:
        return "length 'long3' needs 3 players"
    if length == "short5" and n != 5:
        return "length 'short5' needs 5 players"
    return None


class DataError(ValueError):
    """A component data file that does not describe a valid Eternal Dynasty set."""


TYPE_CODE = {"M": L.T_M, "P": L.T_P, "ANY": L.T_ANY, "CHOICE": L.T_CHOICE}
TARGET_CODE = {
    "LEGAL": L.TG_LEGAL,
    "HAS_OWN_TYPE": L.TG_HAS_OWN_TYPE,
    "SELF_REPRESENTED": L.TG_SELF_REP,
    "REPRESENTED": L.TG_REP,
    "REPRESENTED_BORDER": L.TG_REP_BORDER,
    "REPRESENTED_COASTAL": L.TG_REP_COASTAL,
    "HOME": L.TG_HOME,
    "ANY": L.TG_ANY,
}
CARD_TYPES = ("LEADER", "STRUCTURE", "EXPANSION", "DIPLOMACY", "INTRIGUE")
DYN_KINDS = (
    "LEADER",
    "STRUCTURE",
    "GAIN_SPLIT",
    "GAIN",
    "MOVE",
    "ALLIANCE",
    "CONVERT",
    "REMOVE_OTHER",
    "REMOVE_LEADER",
    "EACH_OTHER_REMOVES",
)
VOTE_KINDS = (
    "BAN",
    "EACH_GAIN",
    "EACH_REMOVE_OWN",
    "REMOVE_ALL_LEADERS",
    "EACH_DRAW_DYNASTY",
    "EACH_MOVE",
    "TOP_TAX",
)
EVENT_KINDS = (
    "ROLL_EACH_REMOVE",
    "COIN_MAJORITY",
    "MARK",
    "ROLL_HALVE",
    "ROLL_EACH_GAIN",
    "TOP_TAX",
    "SET_HALVE",
    "SET_REMOVE",
    "ROLL_WIPE",
    "REMOVE_ALL_STRUCTURES",
    "COIN_CONTROL",
    "FAMINE",
)
ABILITY_KINDS = (
    "ARC_TAKE_SETASIDE",
    "FREE_PLAY",
    "EXTRA_GAIN_IN_PROVINCE",
    "REACH_SET",
    "EXTRA_GAIN_CATCHUP",
    "HOME_TAX",
    "ARC_ROLL_GAIN",
    "PROTECT",
    "EXTRA_GAIN_NEW_PROVINCE",
    "EXTRA_GAIN_IN_SET",
    "START_MOVE",
    "START_CONVERT",
    "VOTE_WEIGHT",
    "ARC_DRAW_DYNASTY",
    "ARC_REMOVE_OTHERS",
    "ARC_GAIN_SPLIT",
    "LEADER_STRENGTH",
    "WIN_TIES",
    "SCORE_PER_REPRESENTED",
    "ARC_DRAW_VOTE",
    "START_CATCHUP_GAIN",
    "PLACE_RANGE",
)
SET_CODE = {"ALL": L.SET_ALL, "BORDER": L.SET_BORDER, "COASTAL": L.SET_COASTAL}
MARK_CODE = {"SACRED": L.MK_SACRED, "OMEN": L.MK_OMEN, "PLAGUE": L.MK_PLAGUE}
LENGTHS = ("standard", "long3", "short5")


def load_components(path: Path = DATA_FILE) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise DataError(f"{path}: line {e.lineno}: {e.msg}") from None


def component_data(comp: dict | None = None, path: Path = DATA_FILE) -> np.ndarray:
    """Validate the component file and pack it in the layout of layout.D_*."""
    comp = comp if comp is not None else load_components(path)
    try:
        return _pack(comp, str(path))
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, DataError):
            raise
        raise DataError(f"{path}: missing or malformed field {e}") from None


def _code(table, value, where):
    if isinstance(table, dict):
        if value not in table:
            raise DataError(f"{where}: {value!r} is not one of {', '.join(table)}")
        return table[value]
    if value not in table:
        raise DataError(f"{where}: {value!r} is not one of {', '.join(table)}")
    return table.index(value)


def _prov(value, where):
    if not isinstance(value, int) or not 1 <= value <= L.N_PROV:
        raise DataError(f"{where}: province id {value!r} is not in 1..{L.N_PROV}")
    return value - 1


def _pack(comp: dict, path: str) -> np.ndarray:
    d = np.zeros(L.DATA_SIZE, np.int32)
    provs = comp["provinces"]
    if len(provs) != L.N_PROV:
        raise DataError(f"{path}: provinces: expected {L.N_PROV}, found {len(provs)}")
    for i, pr in enumerate(provs):
        if pr.get("id") != i + 1:
            raise DataError(f"{path}: provinces[{i}]: id {pr.get('id')!r}, expected {i + 1}")
        d[L.D_BORDER + i] = 1 if pr["border"] else 0
        d[L.D_COASTAL + i] = 1 if pr["coastal"] else 0
    adj = np.zeros((L.N_PROV, L.N_PROV), np.int32)
    for k, (a, b) in enumerate(comp["adjacency_edges"]):
        a, b = _prov(a, f"{path}: adjacency_edges[{k}]"), _prov(b, f"{path}: adjacency_edges[{k}]")
        if a == b:
            raise DataError(f"{path}: adjacency_edges[{k}]: a province cannot border itself")
        adj[a, b] = adj[b, a] = 1
    for i, pr in enumerate(provs):
        listed = sorted(_prov(x, f"{path}: provinces[{i}].adjacent") for x in pr["adjacent"])
        if listed != sorted(np.flatnonzero(adj[i]).tolist()):
            raise DataError(
                f"{path}: provinces[{i}] ({pr['name']}): 'adjacent' disagrees with adjacency_edges"
            )
    adjq = adj.copy()
    var = comp["adjacency_variant_qing"]
    for a, b in var["remove"]:
        adjq[
            _prov(a, f"{path}: adjacency_variant_qing"), _prov(b, f"{path}: adjacency_variant_qing")
        ] = 0
        adjq[b - 1, a - 1] = 0
    for a, b in var["add"]:
        adjq[
            _prov(a, f"{path}: adjacency_variant_qing"), _prov(b, f"{path}: adjacency_variant_qing")
        ] = 1
        adjq[b - 1, a - 1] = 1
    d[L.D_ADJ : L.D_ADJ + L.N_PROV**2] = adj.ravel()
    d[L.D_ADJQ : L.D_ADJQ + L.N_PROV**2] = adjq.ravel()
    sets = {
        "BORDER": [i + 1 for i in range(L.N_PROV) if d[L.D_BORDER + i]],
        "COASTAL": [i + 1 for i in range(L.N_PROV) if d[L.D_COASTAL + i]],
    }
    for name, ids in comp["sets"].items():
        if sorted(ids) != sets[name]:
            raise DataError(f"{path}: sets.{name} disagrees with the provinces' flags")

    rulers = comp["rulers"]
    if len(rulers) != L.N_RULERS:
        raise DataError(f"{path}: rulers: expected {L.N_RULERS}, found {len(rulers)}")
    for i, r in enumerate(rulers):
        w = f"{path}: rulers[{i}] ({r.get('name', '?')})"
        if r.get("id") != i + 1:
            raise DataError(f"{w}: id {r.get('id')!r}, expected {i + 1}")
        b = L.D_RULER + i * L.RF
        d[b + L.R_HOME] = _prov(r["home"], w + ".home")
        for f, key in ((L.R_BM, "bonus_military"), (L.R_BP, "bonus_political"), (L.R_KEEP, "keep")):
            v = r[key]
            if not isinstance(v, int) or not 0 <= v <= (L.HAND_MAX - 4 if key == "keep" else 9):
                raise DataError(f"{w}.{key}: {v!r} is out of range")
            d[b + f] = v
        ab = r["ability"]
        kind = _code(ABILITY_KINDS, ab["kind"], w + ".ability.kind")
        d[b + L.R_AB] = kind
        a = [0] * 5
        k = ab["kind"]
        if k == "ARC_TAKE_SETASIDE":
            a[0] = _code(
                ("MAGISTRATE", "GENERAL", "PALACE", "FORTRESS"), ab["card"], w + ".ability.card"
            )
        elif k == "FREE_PLAY":
            a[0] = _code(CARD_TYPES, ab["card_type"], w + ".ability.card_type")
        elif k == "EXTRA_GAIN_IN_PROVINCE":
            a[0], a[1], a[2] = (
                _prov(ab["province"], w + ".ability.province"),
                ab["n"],
                TYPE_CODE[ab["type"]],
            )
        elif k == "REACH_SET":
            a[0] = _code(SET_CODE, ab["set"], w + ".ability.set")
        elif k == "EXTRA_GAIN_CATCHUP":
            a[0], a[1] = TYPE_CODE[ab["type"]], ab["n"]
        elif k == "HOME_TAX":
            a[0] = ab["n"]
        elif k == "ARC_ROLL_GAIN":
            a[0], a[1], a[2], a[3], a[4] = (
                ab["rolls"],
                ab["n"],
                TYPE_CODE[ab["type"]],
                ab["spread"],
                int(ab["wrap"]),
            )
        elif k == "PROTECT":
            bits = 0
            for part in ab["types"].split("+"):
                bits |= {"M": L.PR_M, "P": L.PR_P, "LEADERS": L.PR_LEADERS}[part]
            bits |= (
                L.PR_INTRIGUE_ONLY
                if _code(("DYNASTY_CARDS", "INTRIGUE_CARDS"), ab["from"], w + ".ability.from")
                else 0
            )
            bits |= (
                L.PR_HOME_ONLY if _code(("ALL", "HOME"), ab["where"], w + ".ability.where") else 0
            )
            a[0] = bits
        elif k == "EXTRA_GAIN_NEW_PROVINCE":
            a[0] = ab["n"]
        elif k == "EXTRA_GAIN_IN_SET":
            a[0], a[1], a[2] = (
                _code(SET_CODE, ab["set"], w + ".ability.set"),
                TYPE_CODE[ab["type"]],
                ab["n"],
            )
        elif k in ("START_MOVE", "START_CONVERT"):
            a[0] = ab["n"]
        elif k == "VOTE_WEIGHT":
            a[0] = ab["weight"]
        elif k in ("ARC_DRAW_DYNASTY", "ARC_DRAW_VOTE"):
            a[0] = ab["n"]
        elif k == "ARC_REMOVE_OTHERS":
            a[0], a[1], a[2] = (
                ab["n"],
                TYPE_CODE[ab["type"]],
                _code(("HOME", "ONE_ADJACENT_TO_HOME"), ab["where"], w + ".ability.where"),
            )
        elif k == "ARC_GAIN_SPLIT":
            a[0], a[1], a[2], a[3] = (
                ab["provinces"],
                ab["n"],
                TYPE_CODE[ab["type"]],
                TARGET_CODE[ab["target"]],
            )
        elif k == "LEADER_STRENGTH":
            a[0], a[1] = (
                _code(("GENERAL", "MAGISTRATE"), ab["leader"], w + ".ability.leader"),
                ab["strength"],
            )
        elif k == "WIN_TIES":
            a[0] = _code(("HOME_AND_ADJACENT",), ab["where"], w + ".ability.where")
        elif k == "SCORE_PER_REPRESENTED":
            a[0] = ab["divisor"]
            if a[0] < 1:
                raise DataError(f"{w}.ability.divisor must be >= 1")
        elif k == "START_CATCHUP_GAIN":
            a[0], a[1] = ab["n"], TYPE_CODE[ab["type"]]
        elif k == "PLACE_RANGE":
            a[0] = ab["distance"]
        d[b + L.R_A0 : b + L.R_A0 + 5] = a
    homes = np.bincount(
        [d[L.D_RULER + i * L.RF + L.R_HOME] for i in range(L.N_RULERS)], minlength=L.N_PROV
    )
    if homes.max() != 2 or homes.min() != 2:
        raise DataError(
            f"{path}: rulers: every province must be home to exactly two Rulers (spec 3.2)"
        )

    cards = comp["dynasty_cards"]
    if len(cards) != L.N_DYN_TYPES:
        raise DataError(
            f"{path}: dynasty_cards: expected {L.N_DYN_TYPES} card kinds, found {len(cards)}"
        )
    total = 0
    for i, c in enumerate(cards):
        w = f"{path}: dynasty_cards[{i}] ({c.get('key', '?')})"
        b = L.D_DYN + i * L.DF
        d[b + L.C_COUNT] = c["count"]
        d[b + L.C_SETASIDE] = c["set_aside_at_start"]
        total += c["count"]
        d[b + L.C_CTYPE] = _code(CARD_TYPES, c["type"], w + ".type")
        e = c["effect"]
        k = e["kind"]
        d[b + L.C_KIND] = _code(DYN_KINDS, k, w + ".effect.kind")
        a = [0] * 6
        if k == "LEADER":
            a[0] = _code(("GENERAL", "MAGISTRATE"), e["leader"], w + ".effect.leader")
            a[1], a[2], a[3] = TYPE_CODE[e["gain_type"]], e["gain"], e["strength"]
            a[4] = TARGET_CODE[e["target"]]
        elif k == "STRUCTURE":
            a[0] = _code(("FORTRESS", "PALACE"), e["structure"], w + ".effect.structure")
            a[1], a[2], a[3] = TYPE_CODE[e["type"]], e["gain"], TARGET_CODE[e["target"]]
        elif k == "GAIN_SPLIT":
            a[0], a[1], a[2], a[3] = (
                e["provinces"],
                e["n"],
                TYPE_CODE[e["type"]],
                TARGET_CODE[e["target"]],
            )
        elif k == "GAIN":
            a[0], a[1], a[2] = e["n"], TYPE_CODE[e["type"]], TARGET_CODE[e["target"]]
        elif k == "MOVE":
            a[0], a[1] = e["max"], int(e["same_type"])
        elif k == "ALLIANCE":
            a[0], a[1], a[2], a[3], a[4] = (
                e["ally_n"],
                TYPE_CODE[e["ally_type"]],
                e["self_n"],
                TYPE_CODE[e["self_type"]],
                TARGET_CODE[e["target"]],
            )
        elif k == "CONVERT":
            a[0] = e["n"]
        elif k == "REMOVE_OTHER":
            a[0], a[1] = e["n"], TYPE_CODE[e["type"]]
        elif k == "REMOVE_LEADER" or k == "EACH_OTHER_REMOVES":
            a[0] = e["n"]
        d[b + L.C_A0 : b + L.C_A0 + 6] = a
    if total != L.N_DYN:
        raise DataError(f"{path}: dynasty_cards: the counts add up to {total}, expected {L.N_DYN}")
    lk = [c["key"] for c in cards]
    for key in ("GENERAL", "MAGISTRATE", "FORTRESS", "PALACE"):
        if key not in lk:
            raise DataError(f"{path}: dynasty_cards: the set-aside card {key} is missing")
    if [c["key"] for c in cards[:4]] != ["MAGISTRATE", "GENERAL", "PALACE", "FORTRESS"]:
        raise DataError(
            f"{path}: dynasty_cards: the first four kinds must be MAGISTRATE, GENERAL, "
            "PALACE, FORTRESS"
        )

    votes = comp["vote_cards"]
    if len(votes) != L.N_VOTE_TYPES:
        raise DataError(f"{path}: vote_cards: expected {L.N_VOTE_TYPES} kinds, found {len(votes)}")
    total = 0
    for i, v in enumerate(votes):
        w = f"{path}: vote_cards[{i}] ({v.get('key', '?')})"
        b = L.D_VOTE + i * L.VF
        d[b + L.V_COUNT] = v["count"]
        total += v["count"]
        e = v["effect"]
        k = e["kind"]
        d[b + L.V_KIND] = _code(VOTE_KINDS, k, w + ".effect.kind")
        a = [0] * 6
        if k == "BAN":
            a[0] = _code(CARD_TYPES, e["card_type"], w + ".effect.card_type")
        elif k == "EACH_GAIN":
            a[0], a[1], a[2] = e["n"], TYPE_CODE[e["type"]], TARGET_CODE[e["target"]]
        elif k == "EACH_REMOVE_OWN":
            a[0], a[1] = e["n"], TYPE_CODE[e["type"]]
        elif k == "EACH_DRAW_DYNASTY":
            a[0] = e["n"]
        elif k == "EACH_MOVE":
            a[0], a[1] = e["max"], int(e["same_type"])
        elif k == "TOP_TAX":
            a[0] = e["n"]
        d[b + L.V_A0 : b + L.V_A0 + 6] = a
    if total != L.N_VOTES:
        raise DataError(f"{path}: vote_cards: the counts add up to {total}, expected {L.N_VOTES}")

    events = comp["event_cards"]
    if len(events) != L.N_EVENTS or sum(e.get("count", 1) for e in events) != L.N_EVENTS:
        raise DataError(
            f"{path}: event_cards: expected {L.N_EVENTS} single cards, found {len(events)}"
        )
    for i, ev in enumerate(events):
        w = f"{path}: event_cards[{i}] ({ev.get('key', '?')})"
        b = L.D_EVENT + i * L.EF
        d[b + L.E_CLASS] = _code(("MINOR", "MAJOR"), ev["class"], w + ".class")
        e = ev["effect"]
        k = e["kind"]
        d[b + L.E_KIND] = _code(EVENT_KINDS, k, w + ".effect.kind")
        a = [0] * 5
        setbits = 0
        if k == "ROLL_EACH_REMOVE":
            a[0], a[1], a[2] = e["rolls"], TYPE_CODE[e["type"]], e["n"]
        elif k == "COIN_MAJORITY":
            a[0], a[1], a[2], a[3] = (
                TYPE_CODE[e["metric"]],
                _code(SET_CODE, e["set"], w + ".effect.set"),
                e["first"],
                e["second"],
            )
        elif k == "MARK":
            a[0], a[1] = _code(MARK_CODE, e["mark"], w + ".effect.mark"), e["rolls"]
        elif k == "ROLL_HALVE":
            a[0], a[1] = e["rolls"], _code(("DOWN", "UP"), e["rounding"], w + ".effect.rounding")
        elif k == "ROLL_EACH_GAIN":
            a[0], a[1], a[2] = e["rolls"], e["n"], TYPE_CODE[e["type"]]
        elif k == "TOP_TAX":
            a[0] = e["n"]
        elif k == "SET_HALVE":
            a[1] = _code(("DOWN", "UP"), e["rounding"], w + ".effect.rounding")
            for q in e["provinces"]:
                setbits |= 1 << _prov(q, w + ".effect.provinces")
        elif k == "SET_REMOVE":
            a[0], a[1], a[2] = (
                _code(SET_CODE, e["set"], w + ".effect.set"),
                TYPE_CODE[e["type"]],
                e["n"],
            )
        elif k == "ROLL_WIPE":
            a[0], a[1] = e["rolls"], int(e["structures"])
        elif k == "COIN_CONTROL":
            a[0], a[1] = e["first"], e["second"]
        elif k == "FAMINE":
            a[0], a[1] = e["threshold"], e["n"]
            if e["n"] != 1:
                raise DataError(f"{w}.effect.n: the engine supports FAMINE with n = 1 only")
        d[b + L.E_A0 : b + L.E_A0 + 5] = a
        d[b + L.E_SET] = setbits

    rc = comp["rules_constants"]
    k = L.D_CONST
    d[k + L.K_DEALT_RULERS] = rc["rulers_dealt"]
    d[k + L.K_DEALT_DYN] = rc["dynasty_dealt"]
    if rc["rulers_dealt"] != 3 or not 1 <= rc["dynasty_dealt"] <= L.HAND_MAX - 6:
        raise DataError(
            f"{path}: rules_constants: rulers_dealt must be 3 and dynasty_dealt 1..{L.HAND_MAX - 6}"
        )
    d[k + L.K_INIT_M] = rc["initial_home_placement"]["M"]
    d[k + L.K_INIT_P] = rc["initial_home_placement"]["P"]
    sc = rc["scoring"]
    d[k + L.K_FIRST], d[k + L.K_SECOND], d[k + L.K_TIE2] = (
        sc["first"],
        sc["second"],
        sc["two_way_tie_first_each"],
    )
    d[k + L.K_FORTRESS], d[k + L.K_PALACE], d[k + L.K_COIN] = (
        sc["fortress_bonus"],
        sc["palace_bonus"],
        sc["coin_for_both_firsts"],
    )
    bag = rc["coin_bag"]
    d[k + L.K_BAG0], d[k + L.K_BAG1], d[k + L.K_BAG2] = bag["0"], bag["1"], bag["2"]
    sup = rc["token_supply"]
    d[k + L.K_SUP_MAG], d[k + L.K_SUP_GEN] = sup["MAGISTRATE"], sup["GENERAL"]
    d[k + L.K_SUP_PAL], d[k + L.K_SUP_FORT] = sup["PALACE"], sup["FORTRESS"]
    d[k + L.K_CAP] = sup["influence_cap_per_player"]
    d[k + L.K_LEADER_STR] = rc["leader_strength_default"]
    d[k + L.K_DIE_SIDES] = rc["province_die"]["sides"]

    tp = comp["two_player"]
    w = f"{path}: two_player"
    d[k + L.K_DI_START] = tp["dynasty_influence_start"]
    d[k + L.K_ALLY_COST] = tp["alliance_cost_di"]
    d[k + L.K_DI_CARD] = tp["di_per_unplayed_card"]
    d[k + L.K_DI_BONUS] = tp["di_per_unspent_bonus"]
    d[k + L.K_EE_VOTE] = tp["ee_vote_weight"]
    tiers = tp["ee_setup_tiers_per_type"]
    if len(tiers) != L.N_EE_TIERS or any(
        len(t) != 2 or not 1 <= t[0] <= L.N_PROV - 2 or t[1] < 1 for t in tiers
    ):
        raise DataError(
            f"{w}.ee_setup_tiers_per_type: expected {L.N_EE_TIERS} [provinces, Influence] pairs "
            f"with 1..{L.N_PROV - 2} provinces"
        )
    for i, (np_, amount) in enumerate(tiers):
        d[k + L.K_EE_TIERS + 2 * i] = np_
        d[k + L.K_EE_TIERS + 2 * i + 1] = amount
    for key, built in (
        ("bid_tie_winner", "FIRST_PLAYER"),
        ("ee_order", "AFTER_BOTH_PLAYERS"),
        ("ee_draws_cards", False),
    ):
        if tp[key] != built:
            raise DataError(f"{w}.{key}: the engine implements {built!r} only, found {tp[key]!r}")
    if (
        min(
            d[k + L.K_DI_START],
            d[k + L.K_ALLY_COST],
            d[k + L.K_DI_CARD],
            d[k + L.K_DI_BONUS],
            d[k + L.K_EE_VOTE],
        )
        < 0
    ):
        raise DataError(f"{w}: the Dynasty Influence amounts and the EE's vote weight must be >= 0")

    configs = comp["configs"]
    if len(configs) != L.NCONFIG:
        raise DataError(f"{path}: configs: expected {L.NCONFIG} rows, found {len(configs)}")
    for i, c in enumerate(configs):
        w = f"{path}: configs[{i}] ({c.get('name', '?')})"
        b = L.D_CONFIG + i * L.CF
        d[b + 0] = c["players"]
        d[b + 1] = _code(LENGTHS, c["length"], w + ".length")
        d[b + 2], d[b + 3], d[b + 4], d[b + 5] = (
            c["generations"],
            c["rounds"],
            c["vote_cards"],
            c["quarantine"],
        )
        if not 1 <= c["generations"] <= L.MAX_GENS or c["vote_cards"] > L.VHAND_MAX - 2:
            raise DataError(
                f"{w}: generations must be 1..{L.MAX_GENS} and vote_cards <= {L.VHAND_MAX - 2}"
            )
    return d
