"""Middle Kingdom rule options (spec Appendix A) and component data loading.

The order of ``OPTIONS`` is the order of the option codes in the state (layout.O_*).
Each option's doc names the spec decision it flips; defaults are the spec's.
"""

import json
from pathlib import Path

import numpy as np

from sim.core import Option
from sim.middle_kingdom import layout as L

DATA_FILE = Path(__file__).with_name("data") / "components.json"

OPTIONS = (
    Option(
        "variant",
        "standard",
        "3 players: 'advanced' plays the two-player rules with 5 cards a round",
        ("standard", "advanced"),
    ),
    Option(
        "harvest_count",
        "after_lay",
        "D3: Harvest counts the hand after (or before) the 0 is laid",
        ("after_lay", "before_lay"),
    ),
    Option(
        "lead_seat",
        "rotating",
        "D6: lead seat for identical-stack draws: random, rotating; or always seat 0",
        ("rotating", "fixed_seat0"),
    ),
    Option(
        "ident_draw_timing",
        "in_order",
        "D7: identical stacks draw at their place in the order, or after all picks",
        ("in_order", "after_picks"),
    ),
    Option(
        "ident_goal_timing",
        "after_slot",
        "D7: goal checks after the whole identical slot, or after each draw",
        ("after_slot", "per_member"),
    ),
    Option(
        "ident_short_deck",
        "each_while_cards",
        "D33: a short deck serves members in order, or nobody",
        ("each_while_cards", "all_or_none"),
    ),
    Option(
        "dragon_held_includes_row_pick",
        "false",
        "D13: taking the Dragon from the row counts as holding it",
        ("false", "true"),
    ),
    Option(
        "dragon_tiebreak_dyn_count",
        "physical",
        "D13: Dragon tie-break counts physical or effective cards",
        ("physical", "effective"),
    ),
    Option(
        "market_dbl_is_merchant",
        "false",
        "D14: a Market Merchant on another stack still counts as one Merchant",
        ("false", "true"),
    ),
    Option(
        "market_on_any_gain",
        "any_gain",
        "D10/D14: the Market applies to every gain, or to picks only",
        ("any_gain", "pick_only"),
    ),
    Option(
        "heir_optional", "true", "D15: the Heir's leftover pick may be passed", ("true", "false")
    ),
    Option(
        "heir_may_take_dragon",
        "true",
        "D15: the Heir's pick may take the Dragon",
        ("true", "false"),
    ),
    Option(
        "token_limit", "none", "D18: the 18 VP tokens are no limit, or a hard limit", ("none", "18")
    ),
    Option(
        "noble_vp_table",
        "default_4_4_4",
        "1.3: the RECONSTRUCTED Noble split (4x2/4x3/4x4, 6/4/2, 3/6/3)",
        ("default_4_4_4", "alt_a_6_4_2", "alt_b_3_6_3"),
    ),
    Option(
        "emp_designation_2p",
        "post_reveal",
        "D5 (2p, advanced 3p): the Emperor names its +0.5 bid after the reveal, Palace and "
        "Harvest steps, or secretly with its commit",
        ("post_reveal", "at_commit"),
    ),
)
assert len(OPTIONS) == L.N_OPTION_CODES
TABLE_NAMES = ("default_4_4_4", "alt_a_6_4_2", "alt_b_3_6_3")
TYPE_NAMES = ("official", "peasant", "merchant", "noble", "general")


class DataError(ValueError):
    """A component data file that does not describe a valid Middle Kingdom deck."""


def load_components(path: Path = DATA_FILE) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise DataError(f"{path}: line {e.lineno}: {e.msg}") from None


def component_data(comp: dict | None = None, path: Path = DATA_FILE) -> np.ndarray:
    """Validate the component file and pack it in the layout of layout.D_*."""
    comp = comp if comp is not None else load_components(path)
    try:
        return _pack(comp, path)
    except (KeyError, TypeError) as e:
        raise DataError(f"{path}: missing or malformed field {e}") from None


def _pack(comp: dict, path: Path) -> np.ndarray:
    cards = comp["dynasty_cards"]
    if len(cards) != L.N_DYN:
        raise DataError(f"{path}: expected {L.N_DYN} dynasty cards, found {len(cards)}")
    types = []
    for i, c in enumerate(cards):
        if c.get("id") != i:
            raise DataError(f"{path}: dynasty card #{i} has id {c.get('id')!r}")
        if c.get("type") not in TYPE_NAMES:
            raise DataError(
                f"{path}: dynasty card #{i}: type {c.get('type')!r} is not one of {TYPE_NAMES}"
            )
        types.append(TYPE_NAMES.index(c["type"]))
    noble_ids = [i for i, t in enumerate(types) if t == L.NOBLE]
    vp = np.zeros((L.N_NOBLE_TABLES, L.N_DYN), np.int32)
    for k, name in enumerate(TABLE_NAMES):
        values = comp["noble_vp_tables"][name]["values"]
        if len(values) != len(noble_ids):
            raise DataError(
                f"{path}: Noble table {name} has {len(values)} values for {len(noble_ids)} Nobles"
            )
        vp[k] = [c["vp"] for c in cards]
        vp[k, noble_ids] = values
    phil = comp["philosopher_id"]
    if types[phil] != L.OFFICIAL:
        raise DataError(f"{path}: the Philosopher (#{phil}) must be an official")
    goal_vp = [g["vp"] for g in comp["goal_cards"]]
    peasant = comp["peasant_table"]["values"]
    if len(goal_vp) != L.N_GOALS or len(peasant) != 6:
        raise DataError(f"{path}: expected 6 goal cards and 6 peasant-table entries")
    packed = (
        types
        + vp.ravel().tolist()
        + goal_vp
        + peasant
        + [
            comp["missing_type_penalty"]["value"],
            comp["token_vp"]["value"],
            comp["token_supply"]["value"],
            comp["goal_threshold"]["value"],
            comp["harvest_hand_limit"]["value"],
            comp["dragon_summon_min_goals"]["value"],
            phil,
        ]
    )
    arr = np.array(packed, np.int32)
    assert arr.shape[0] == L.D_SIZE
    return arr


def player_constraints(n: int, options: dict) -> str | None:
    if options.get("variant", "standard") == "advanced" and n != 3:
        return f"variant 'advanced' is for 3 players, not {n}"
    return None
