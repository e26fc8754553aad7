"""Emperor's Choice rule options (spec section 6) and component data loading.

The order of ``OPTIONS`` is the order of the option codes in the state (layout.O_*).
``component_data`` validates ``data/components.json`` (errors name the file, the table,
the row and the field) and packs it in the layout of ``layout.D_*``.
"""

import json
import re
from pathlib import Path

import numpy as np

from sim.core import Option
from sim.emperors_choice import layout as L

DATA_FILE = Path(__file__).with_name("data") / "components.json"

OPTIONS = (
    Option(
        "policy_start",
        "A",
        "1.10: Policy cards start on side A, or on random sides",
        ("A", "random"),
    ),
    Option(
        "starting_bonus_mode",
        "random",
        "1.8: one random Starting Bonus tile per player, or none",
        ("random", "none"),
    ),
    Option(
        "cmax_scope",
        "historical_all_players",
        "R-A2: the card-count limit counts every display so far this auction, or only active "
        "players' current displays",
        ("historical_all_players", "current_active_displays"),
    ),
    Option(
        "soldier_payment_penalty",
        "capped_no_penalty",
        "7#33: policy cube payments a player cannot make cost nothing, or 3 VP per missing cube",
        ("capped_no_penalty", "3vp_per_missing"),
    ),
    Option(
        "trust_overflow",
        "cap30_then_minus10",
        "R-C4: the gainer stops at 30 then all lose 10, or keeps the excess then all lose 10 "
        "(repeated while above 30)",
        ("cap30_then_minus10", "uncapped_then_minus10"),
    ),
    Option(
        "auction_cube_loss",
        "recompute_next_turn",
        "R-A8: bids are recounted when the next turn begins, or only the owner's at the "
        "owner's turn (highest bid unchanged)",
        ("recompute_next_turn", "frozen_until_owner_turn"),
    ),
    Option(
        "treasure_once_per_round",
        "false",
        "7#21: a stolen Treasure used this round cannot be used again by its new owner",
        ("false", "true"),
    ),
    Option(
        "immediate_tiles_timing",
        "step2_or_instant_after",
        "R-C8: immediate tiles wait for Management step 2, or resolve at once",
        ("step2_or_instant_after", "always_instant"),
    ),
    Option(
        "final_tiebreak_power",
        "top_card_only",
        "7#41: final tie-break compares the top card's Power, or all Powers sorted",
        ("top_card_only", "lexicographic_sorted_powers"),
    ),
    Option(
        "reveal_mode",
        "compulsory",
        "7#36: the cards that count for Border Defence, Expedition, Meritocracy and Blood "
        "Lineage are revealed compulsorily, or each player picks which of them to reveal "
        "(only revealed cards count; at the final scoring revealing stays compulsory)",
        ("compulsory", "optional_subset"),
    ),
)
assert len(OPTIONS) == L.N_OPT

ATOMS = {name: i for i, name in enumerate(L.ATOM_NAMES) if name}
NO_ARG_ATOMS = ("bonus_cavalry", "qin_draw2keep1")
BID_EFFECTS = ("none", "trust_plus_1", "trust_minus_2_and_tribute_1")
END_EFFECTS = {
    "none": L.EE_NONE,
    "vp_flat": L.EE_FLAT,
    "vp_per_castle": L.EE_PER_CASTLE,
    "vp_per_legalist_and_confucianist": L.EE_PER_PHILO,
}


class DataError(ValueError):
    """A component data file that does not describe valid Emperor's Choice components."""


def load_components(path: Path = DATA_FILE) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise DataError(f"{path}: line {e.lineno}: {e.msg}") from None


def parse_effect(text: str, where: str) -> list[list[tuple[int, int]]]:
    """An icon string ('gold:3', 'palace_up:1+gold:1', 'gold:2/trust:2') as options of atoms."""
    if not isinstance(text, str) or not text.strip():
        raise DataError(f"{where}: effect must be a non-empty string, got {text!r}")
    options = []
    for opt in text.split("/"):
        atoms = []
        for atom in opt.split("+"):
            m = re.fullmatch(r"\s*([a-z_0-9]+)(?::(\d+))?\s*", atom)
            if not m or m.group(1) not in ATOMS:
                raise DataError(
                    f"{where}: unknown icon {atom!r} in {text!r} (known: {', '.join(ATOMS)})"
                )
            name, k = m.group(1), m.group(2)
            if name in NO_ARG_ATOMS:
                if k is not None:
                    raise DataError(f"{where}: icon {name!r} takes no number")
                k = 1
            elif k is None or int(k) < 1:
                raise DataError(f"{where}: icon {name!r} needs a count >= 1 ({text!r})")
            if name in ("qin_tile", "character") and int(k) != 1:
                raise DataError(f"{where}: icon {name!r} only comes as {name}:1")
            atoms.append((ATOMS[name], int(k)))
        if len(atoms) > L.MAX_ATOMS:
            raise DataError(f"{where}: at most {L.MAX_ATOMS} icons per option")
        options.append(atoms)
    if len(options) > L.MAX_OPTS:
        raise DataError(f"{where}: at most {L.MAX_OPTS} '/' options")
    return options


def _effect_ints(options) -> list[int]:
    out = [len(options)]
    for o in range(L.MAX_OPTS):
        for a in range(L.MAX_ATOMS):
            if o < len(options) and a < len(options[o]):
                out += list(options[o][a])
            else:
                out += [0, 0]
    return out


def _int(row, key, where, low=0, high=10**6):
    v = row.get(key) if isinstance(row, dict) else None
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        raise DataError(f"{where}: field {key!r} must be an integer in {low}..{high}, got {v!r}")
    return v


def card_table(comp: dict, path=DATA_FILE) -> list[dict]:
    """Every character card slot in id order: the deck (counts expanded), then starting and
    bonus cards."""
    out = []
    for i, r in enumerate(comp["character_cards"]):
        for _ in range(_int(r, "count", f"{path}: character_cards row {i + 1}", 0, L.MAXC)):
            out.append(dict(r, kind=L.CK_DECK))
    st = comp["starting_character_cards"]
    if len(st) != 3:
        raise DataError(
            f"{path}: starting_character_cards must have 3 rows (the two starting Cavalry, "
            "the bonus Cavalry)"
        )
    for i, kind in enumerate((L.CK_START2, L.CK_START3, L.CK_BONUS)):
        need = L.MAXP if kind != L.CK_BONUS else 1
        cnt = _int(st[i], "count", f"{path}: starting_character_cards row {i + 1}", need, need)
        out += [dict(st[i], kind=kind)] * cnt
    if len(out) > L.MAXC:
        raise DataError(f"{path}: {len(out)} character cards; at most {L.MAXC} are supported")
    return out


def component_data(comp: dict | None = None, path: Path = DATA_FILE) -> np.ndarray:
    comp = comp if comp is not None else load_components(path)
    try:
        return _pack(comp, path)
    except (KeyError, TypeError, AttributeError) as e:
        raise DataError(f"{path}: missing or malformed field {e}") from None


def _pack(comp: dict, path) -> np.ndarray:
    d = np.zeros(L.D_SIZE, np.int64)
    cards = card_table(comp, path)
    names = sorted({c["name"] for c in cards})
    d[L.D_NCARDS] = len(cards)
    for i, c in enumerate(cards):
        w = f"{path}: character card {c.get('id')} ({c.get('name')})"
        o = L.D_CARDS + i * L.CD_SIZE
        d[o + L.CD_POWER] = _int(c, "power", w, 0, 99)
        rule = c.get("power_rule")
        if rule not in ("fixed", "soldiers_plus_2"):
            raise DataError(f"{w}: power_rule {rule!r} is not 'fixed' or 'soldiers_plus_2'")
        d[o + L.CD_RULE] = 0 if rule == "fixed" else 1
        d[o + L.CD_COST] = _int(c, "cost", w, 0, 99)
        d[o + L.CD_LINEAGE] = _int(c, "lineage", w, 0, 1)
        d[o + L.CD_DEFENCE] = _int(c, "defence", w, 0, 99)
        if c.get("bid_effect") not in BID_EFFECTS:
            raise DataError(f"{w}: bid_effect {c.get('bid_effect')!r} is not one of {BID_EFFECTS}")
        d[o + L.CD_BID] = BID_EFFECTS.index(c["bid_effect"])
        m = re.fullmatch(
            r"(none|vp_flat|vp_per_castle|vp_per_legalist_and_confucianist)(?:_(\d+))?",
            str(c.get("end_effect")),
        )
        if not m or (m.group(1) != "none") != (m.group(2) is not None):
            raise DataError(
                f"{w}: end_effect {c.get('end_effect')!r} is not none or one of vp_flat_K, "
                "vp_per_castle_K, vp_per_legalist_and_confucianist_K"
            )
        d[o + L.CD_END] = END_EFFECTS[m.group(1)]
        d[o + L.CD_END_K] = int(m.group(2) or 0)
        d[o + L.CD_KIND] = c["kind"]
        d[o + L.CD_NAME] = names.index(c["name"])
    tiles = {r["tile_type"]: r for r in comp["qin_tiles"]}
    for t, name in enumerate(L.TILE_NAMES):
        if name not in tiles:
            raise DataError(f"{path}: qin_tiles has no row for {name!r}")
        d[L.D_BAG + t] = _int(tiles[name], "count_in_bag", f"{path}: qin_tiles {name}", 0, 200)
    extra = set(tiles) - set(L.TILE_NAMES)
    if extra:
        raise DataError(
            f"{path}: qin_tiles: unknown tile type {sorted(extra)[0]!r} (known: "
            f"{', '.join(L.TILE_NAMES)})"
        )
    bv = comp["barbarian_values"]
    d[L.D_BARB] = _int(bv, "barbarian_1", f"{path}: barbarian_values", 1, 15)
    d[L.D_BARB + 1] = _int(bv, "barbarian_2", f"{path}: barbarian_values", 1, 15)

    def put_effect(idx, text, where):
        o = L.D_EFF + idx * L.EFF_SIZE
        d[o : o + L.EFF_SIZE] = _effect_ints(parse_effect(text, where))

    wd = comp["withdrawal_tiles"]
    if len(wd) != L.N_WD:
        raise DataError(f"{path}: withdrawal_tiles must have {L.N_WD} rows, found {len(wd)}")
    for i, r in enumerate(wd):
        put_effect(
            L.EFF_WD + i,
            r["effect"],
            f"{path}: withdrawal_tiles row {i + 1} ({r.get('id')}) field 'effect'",
        )
    sb = comp["starting_bonus_tiles"]
    if len(sb) != L.N_SB:
        raise DataError(f"{path}: starting_bonus_tiles must have {L.N_SB} rows, found {len(sb)}")
    for i, r in enumerate(sb):
        put_effect(
            L.EFF_SB + i,
            r["effect"],
            f"{path}: starting_bonus_tiles row {i + 1} ({r.get('id')}) field 'effect'",
        )
    pal = comp["palace_levels"]
    if len(pal) != L.N_LEVELS + 1:
        raise DataError(f"{path}: palace_levels must list the Start space and {L.N_LEVELS} levels")
    for lv, r in enumerate(pal):
        w = f"{path}: palace_levels row {lv + 1}"
        if _int(r, "level", w, lv, lv) != lv:
            raise DataError(f"{w}: levels must be 0..{L.N_LEVELS} in order")
        d[L.D_PAL_VP + lv] = _int(r, "end_vp", w, 0, 999)
        if lv > 0:
            for x, side in enumerate(("side_a", "side_b")):
                text = r[side]
                if "palace_up" in text:
                    raise DataError(
                        f"{w} field {side!r}: a palace level cannot raise the palace (no chains)"
                    )
                put_effect(L.EFF_PAL + 2 * (lv - 1) + x, text, f"{w} field {side!r}")
    costs = [
        _int(r, "gold", f"{path}: palace_paid_raise row {i + 1}", 0, 99)
        for i, r in enumerate(comp["palace_paid_raise"])
    ]
    if len(costs) != 3:
        raise DataError(f"{path}: palace_paid_raise must price 1, 2 and 3 levels")
    d[L.D_RAISE_COST : L.D_RAISE_COST + 3] = costs
    pol = comp["policy_cards"]
    seen = set()
    for i, r in enumerate(pol):
        w = f"{path}: policy_cards row {i + 1}"
        c = _int(r, "card", w, 1, L.N_POLICY)
        side = r.get("side")
        if side not in ("A", "B") or (c, side) in seen:
            raise DataError(f"{w}: side must be A or B, once per card (got {side!r})")
        seen.add((c, side))
        if r.get("scoring_id") not in L.SCORING_IDS:
            raise DataError(
                f"{w}: scoring_id {r.get('scoring_id')!r} is not one of {', '.join(L.SCORING_IDS)}"
            )
        d[L.D_POLICY + 2 * (c - 1) + (side == "B")] = L.SCORING_IDS.index(r["scoring_id"])
    if len(seen) != 2 * L.N_POLICY:
        raise DataError(f"{path}: policy_cards must give both sides of cards 1..{L.N_POLICY}")
    if d[L.D_POLICY + 2 * L.EXTRAV_CARD] != L.SC_EXTRAV:
        raise DataError(
            f"{path}: policy_cards: Extravagance must be card {L.EXTRAV_CARD + 1} side A "
            "(its continuous effect)"
        )
    for key, off in (("tour_bonus", L.D_TOUR), ("parade_bonus", L.D_PARADE)):
        vals = comp[key]
        if len(vals) != 6 or any(not isinstance(v, int) or v < 0 for v in vals):
            raise DataError(f"{path}: {key} must list 6 non-negative integers (for 0..5)")
        d[off : off + 6] = vals
    tier = comp["tier_vp_legalism_confucianism"]
    if len(tier) != 4:
        raise DataError(f"{path}: tier_vp_legalism_confucianism must list VP for 0, 1, 2, 3+ tiles")
    d[L.D_TIER : L.D_TIER + 4] = tier
    tr = comp["treasure_cards"]
    if len(tr) != L.N_TREASURE:
        raise DataError(f"{path}: treasure_cards must have {L.N_TREASURE} rows")
    for i, r in enumerate(tr):
        w = f"{path}: treasure_cards row {i + 1} ({r.get('id')})"
        put_effect(L.EFF_TR + 2 * i, r["effect_rounds_1_4"], w + " field 'effect_rounds_1_4'")
        put_effect(L.EFF_TR + 2 * i + 1, r["effect_rounds_5_6"], w + " field 'effect_rounds_5_6'")
        d[L.D_TREASURE_VP + i] = _int(r, "end_vp", w, 0, 99)
    trib = comp["tribute_cards"]
    if not 1 <= len(trib) <= L.N_TRIB:
        raise DataError(f"{path}: tribute_cards must have 1..{L.N_TRIB} rows")
    for i, r in enumerate(trib):
        d[L.D_TRIB_VP + i] = _int(r, "vp", f"{path}: tribute_cards row {i + 1}", 0, 99)
        d[L.D_TRIB_N + i] = _int(r, "count", f"{path}: tribute_cards row {i + 1}", 0, 200)
    cost = comp["decree_trust_cost"]
    if len(cost) != L.MAX_ROUNDS:
        raise DataError(f"{path}: decree_trust_cost must list {L.MAX_ROUNDS} rounds")
    d[L.D_DECREE_COST : L.D_DECREE_COST + L.MAX_ROUNDS] = cost
    for k, n in enumerate((3, 4, 5)):
        sizes = comp["tile_display_sets"][str(n)]
        if len(sizes) != n or any(not isinstance(v, int) or v < 0 for v in sizes):
            raise DataError(f"{path}: tile_display_sets[{n}] must list {n} set sizes")
        d[L.D_SETS + k * L.MAX_SETS : L.D_SETS + k * L.MAX_SETS + n] = sizes
        rec = comp["recruitment_display"][str(n)]
        if not isinstance(rec, int) or not 0 <= rec <= L.MAX_RECRUIT:
            raise DataError(f"{path}: recruitment_display[{n}] must be 0..{L.MAX_RECRUIT}")
        d[L.D_RECRUIT + k] = rec
        pool = comp["soldier_pool"][str(n)]
        if not isinstance(pool, int) or not 0 <= pool <= L.MAX_HIRE or pool > 7 * n:
            raise DataError(f"{path}: soldier_pool[{n}] must be 0..{7 * n}")
        d[L.D_POOL + k] = pool
    ps = comp["player_start"]
    for i, key in enumerate(("vp", "trust", "palace_level", "gold", "soldiers", "castles")):
        d[L.D_START + i] = _int(ps, key, f"{path}: player_start", 0, 999)
    for k, n in enumerate((3, 4, 5)):
        if d[L.D_START + 4] * n > d[L.D_POOL + k]:
            raise DataError(
                f"{path}: soldier_pool[{n}] is smaller than the players' starting cubes"
            )
    if d[L.D_START + 1] > L.TRUST_MAX or d[L.D_START + 2] > L.N_LEVELS:
        raise DataError(
            f"{path}: player_start trust must be <= {L.TRUST_MAX} and palace_level <= {L.N_LEVELS}"
        )
    return d.astype(np.int32)


def card_names(comp: dict | None = None) -> list[str]:
    """Names of the card slots in id order (for people)."""
    cards = card_table(comp if comp is not None else load_components())
    out = []
    for c in cards:
        out.append(
            f"{c['name'].replace(' (starting)', '').replace(' (bonus)', '')} "
            f"{c['power'] if c['power_rule'] == 'fixed' else 'FM'}"
        )
    return out
