"""Findings per skill level: a study's cells played by several lineups (``[[tiers]]``).

The numbers of the report (per-tier effects against each tier's baseline, interactions between
tiers) against hand computations with DuckDB straight from the cells' Parquet; the flags of the
summary on a case built to flip a sign; bad tiers; a study without tiers as before.

2-player Goofspiel with fixed seats: tier "heuristic first" seats the heuristic at seat 0, tier
"heuristic second" at seat 1, so one card each (a tie every game) takes seat 0's edge away in
the first tier and gives it edge in the second: the effect on seat 0 must change its sign.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import duckdb
import numpy as np
import pytest
from scipy.stats import t as student_t

from experiments.cli import main
from experiments.study.study import load_study, study_from_dict
from tests.test_interventions import _bh_by_hand
from tests.test_study import toml_text

TIERS = [
    {"name": "heuristic first", "agents": ["heuristic", "random"]},
    {"name": "heuristic second", "agents": ["random", "heuristic"]},
    {"name": "random", "agents": ["random"]},
]


def tier_dict(out: Path, **kw) -> dict:
    d = {
        "name": "tiers",
        "output": str(out),
        "games": 300,
        "baseline": "num_cards=5",
        "base": {
            "game": "goofspiel",
            "players": 2,
            "agents": ["random"],
            "seats": "fixed",
            "seed": 11,
        },
        "axes": {"options": {"num_cards": [5, 3, 1]}},
        "tiers": TIERS,
    }
    d.update(kw)
    return d


def write(tmp_path: Path, d: dict, name: str = "study.toml") -> Path:
    p = tmp_path / name
    p.write_text(toml_text(d) + "\n")
    return p


# --------------------------------------------------------------------------- planning, without Ray


def test_tiers_are_cells_per_lineup_on_the_same_deals(tmp_path):
    s = study_from_dict(tier_dict(tmp_path / "s"), "s.toml")
    assert [c.name for c in s.cells][:3] == [
        "heuristic first: num_cards=5",
        "heuristic first: num_cards=3",
        "heuristic first: num_cards=1",
    ]
    assert len(s.cells) == 9 and [c.index for c in s.cells] == list(range(9))
    assert {c.config.seed for c in s.cells} == {11}  # one master seed: the same deals
    groups = s.tier_groups()
    assert [name for name, _ in groups] == ["heuristic first", "heuristic second", "random"]
    for (name, cells), tier in zip(groups, TIERS):
        assert [c.variant for c in cells] == ["num_cards=5", "num_cards=3", "num_cards=1"]
        assert all(c.tier == name for c in cells)
        assert all([a.label for a in c.config.agents] == tier["agents"] for c in cells)
    assert s.cells[4].folder == tmp_path / "s" / "tiers" / "01-heuristic_second" / "01-num_cards=3"
    assert s.identity()["tiers"] == TIERS
    # without tiers: the identity and the folders of before
    d = tier_dict(tmp_path / "s")
    del d["tiers"]
    plain = study_from_dict(d, "s.toml")
    assert set(plain.identity()) == {
        "base",
        "cells",
        "games",
        "stop",
        "key",
        "confidence",
        "baseline",
    }
    assert plain.cells[2].folder == tmp_path / "s" / "cells" / "02-num_cards=1"
    assert plain.tier_groups() == [("", list(plain.cells))]
    assert all(c.tier == "" and c.variant == "" for c in plain.cells)


@pytest.mark.parametrize(
    "tiers, message",
    [
        ([TIERS[0]], "tiers: expected at least two [[tiers]] tables"),
        ("random", "tiers: expected at least two [[tiers]] tables"),
        ([TIERS[0], {"name": "x"}], "tiers[1].agents: expected exactly the keys name, agents"),
        (
            [TIERS[0], {"name": "x", "agents": ["random"], "budget": 3}],
            "tiers[1].budget: expected exactly the keys name, agents",
        ),
        ([TIERS[0], dict(TIERS[0])], "tiers[1].name: two tiers are named 'heuristic first'"),
        ([TIERS[0], {"name": "", "agents": ["random"]}], "tiers[1].name: expected a tier name"),
        ([TIERS[0], {"name": "x", "agents": []}], "tiers[1].agents: expected a lineup"),
        ([TIERS[0], {"name": "x", "agents": ["grandmaster"]}], "tiers[1].agents: "),
    ],
)
def test_bad_tiers_are_one_line_exit_2(tmp_path, capsys, tiers, message):
    p = write(tmp_path, tier_dict(tmp_path / "s", tiers=tiers))
    assert main(["study", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{p}: {message}" in err, err


def test_tiers_and_an_agents_axis_are_refused(tmp_path, capsys):
    d = tier_dict(tmp_path / "s", axes={"agents": [["random"], ["heuristic"]]})
    p = write(tmp_path, d)
    assert main(["study", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "axes.agents: the tiers set the lineup: a cell cannot vary agents too" in err


# --------------------------------------------------------------------------- with Ray


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The tier study played through `dynasty study`, and the same study without tiers for the
    first tier's lineup."""
    import ray

    from experiments.run.runner import local_ray_options, release_workers

    tmp = tmp_path_factory.mktemp("tiers")
    ray.init(**local_ray_options(workers=2))
    p = write(tmp, tier_dict(tmp / "study"))
    assert main(["study", str(p), "--quiet", "--workers", "2"]) == 0
    d = tier_dict(tmp / "plain", base={**tier_dict(tmp)["base"], "agents": TIERS[0]["agents"]})
    del d["tiers"]
    d["name"] = "plain"
    q = write(tmp, d, "plain.toml")
    assert main(["study", str(q), "--quiet", "--workers", "2"]) == 0
    yield load_study(p), load_study(q)
    release_workers()
    ray.shutdown()


def _per_deal(con, cell) -> str:
    """Per deal and seat: the advantage (win rate - 1/players), by hand from the Parquet."""
    glob = str(cell.folder / "data" / "**" / "*.parquet")
    return (
        f"SELECT deal, CAST(seat AS INTEGER) AS seat, avg(win) - 1.0 / any_value(players) AS x "
        f"FROM read_parquet('{glob}', hive_partitioning = true) "
        f"WHERE game_index < {cell.config.games} GROUP BY deal, seat"
    )


def _t_interval(y: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    m = float(y.mean())
    hw = float(student_t.ppf(1 - (1 - level) / 2, len(y) - 1) * y.std(ddof=1) / np.sqrt(len(y)))
    return m, m - hw, m + hw


def _by_seat(rows) -> dict[int, np.ndarray]:
    return {seat: np.array([y for ss, y in rows if ss == seat]) for seat in {r[0] for r in rows}}


def _hand_advantage(con, cell) -> dict[int, np.ndarray]:
    return _by_seat(
        con.execute(f"SELECT seat, x FROM ({_per_deal(con, cell)}) ORDER BY seat, deal").fetchall()
    )


def _hand_effect(con, cell, base) -> dict[int, np.ndarray]:
    return _by_seat(
        con.execute(
            f"SELECT seat, c.x - b.x FROM ({_per_deal(con, cell)}) c "
            f"JOIN ({_per_deal(con, base)}) b USING (deal, seat) ORDER BY seat, deal"
        ).fetchall()
    )


def _hand_interaction(con, ca, ba, cb, bb) -> dict[int, np.ndarray]:
    return _by_seat(
        con.execute(
            f"SELECT seat, (cb.x - bb.x) - (ca.x - ba.x) FROM ({_per_deal(con, cb)}) cb "
            f"JOIN ({_per_deal(con, bb)}) bb USING (deal, seat) "
            f"JOIN ({_per_deal(con, ca)}) ca USING (deal, seat) "
            f"JOIN ({_per_deal(con, ba)}) ba USING (deal, seat) ORDER BY seat, deal"
        ).fetchall()
    )


def _hand_values(s) -> dict:
    """By hand from the Parquet: {(kind, cell, seat): {tier: (value, low, high)}}."""
    con = duckdb.connect()
    out: dict = {}
    for name, cells in s.tier_groups():
        for c in cells:
            for seat, y in _hand_advantage(con, c).items():
                out.setdefault(("advantage", c.variant, seat), {})[name] = _t_interval(y)
            if c is not cells[0]:
                for seat, y in _hand_effect(con, c, cells[0]).items():
                    out.setdefault(("effect", c.variant, seat), {})[name] = _t_interval(y)
    return out


def test_per_tier_effects_and_interactions_match_duckdb_by_hand(played):
    from experiments.study.report import study_tables

    s, _ = played
    t = study_tables(s)
    found, inter = t["findings"], t["interactions"]
    hand = _hand_values(s)
    assert len(hand) == 3 * 2 + 2 * 2  # (3 cells' advantages + 2 cells' effects) x 2 seats
    for (kind, variant, seat), per_tier in hand.items():
        for tier, (m, lo, hi) in per_tier.items():
            r = found[
                (found["kind"] == kind)
                & (found["tier"] == tier)
                & (found["variant"] == variant)
                & (found["group"] == seat)
            ]
            assert len(r) == 1 and int(r["deals"].iloc[0]) == 300
            assert r[["value", "low", "high"]].iloc[0].tolist() == pytest.approx([m, lo, hi])
    assert len(found) == 3 * 10
    eff = t["effects"]  # the report's effect table: the same numbers, per tier
    assert len(eff) == 3 * 2 * 2
    for r in eff.itertuples():
        m, lo, hi = hand[("effect", r.variant, r.group)][r.tier]
        assert [r.effect, r.low, r.high] == pytest.approx([m, lo, hi])
    con = duckdb.connect()
    groups = s.tier_groups()
    hand_p = []  # (row of inter, the paired t test's p-value by hand)
    for (ta, ca), (tb, cb) in itertools.combinations(groups, 2):
        for j, (a, b) in enumerate(zip(ca, cb)):
            cases = [
                (
                    "advantage",
                    _by_seat(
                        con.execute(
                            f"SELECT seat, b.x - a.x FROM ({_per_deal(con, b)}) b "
                            f"JOIN ({_per_deal(con, a)}) a USING (deal, seat) ORDER BY seat, deal"
                        ).fetchall()
                    ),
                )
            ]
            if j:
                cases.append(("effect", _hand_interaction(con, a, ca[0], b, cb[0])))
            for kind, by_seat in cases:
                for seat, y in by_seat.items():
                    m, lo, hi = _t_interval(y)
                    r = inter[
                        (inter["kind"] == kind)
                        & (inter["tier_a"] == ta)
                        & (inter["tier_b"] == tb)
                        & (inter["variant"] == a.variant)
                        & (inter["group"] == seat)
                    ]
                    assert len(r) == 1 and int(r["deals"].iloc[0]) == len(y) == 300
                    assert r[["interaction", "low", "high"]].iloc[0].tolist() == pytest.approx(
                        [m, lo, hi]
                    )
                    se = y.std(ddof=1) / np.sqrt(len(y))
                    p = 2 * student_t.sf(abs(m) / se, len(y) - 1) if se > 0 else float(m == 0)
                    hand_p.append((r.index[0], p))
    assert len(inter) == 3 * (3 + 2) * 2  # 3 pairs of tiers x (3 advantages + 2 effects) x 2 seats
    # the correction for the number of changes: Benjamini-Hochberg over all 30, by hand
    assert sorted(i for i, _ in hand_p) == list(range(len(inter)))
    adj, selected = _bh_by_hand([p for _, p in hand_p], 0.05)
    for (i, p), a in zip(hand_p, adj):
        assert inter.loc[i, "p"] == pytest.approx(p, rel=1e-9, abs=1e-300)
        assert inter.loc[i, "p_adjusted"] == pytest.approx(a, rel=1e-9, abs=1e-300)
    assert int(inter["holds"].sum()) == selected
    # the constructed flip: one card each takes seat 0's edge away in one tier, gives it in the
    # other, so the effect on seat 0 changes sign and the interaction is far from 0
    one = eff[(eff["variant"] == "num_cards=1") & (eff["group"] == 0)].set_index("tier")
    assert one.loc["heuristic first", "high"] < 0 < one.loc["heuristic second", "low"]
    x = inter[
        (inter["kind"] == "effect")
        & (inter["variant"] == "num_cards=1")
        & (inter["group"] == 0)
        & (inter["tier_a"] == "heuristic first")
        & (inter["tier_b"] == "heuristic second")
    ]
    assert x["low"].iloc[0] > 0.5


def test_flagged_findings_are_in_the_summary(played):
    from experiments.study.report import study_tables

    s, _ = played
    flags = study_tables(s)["flags"]
    expected = set()  # by hand: significant somewhere, and the sign or the significance changes
    for key, per_tier in _hand_values(s).items():
        signs = {int(np.sign(m)) for m, _, _ in per_tier.values()} - {0}
        sig = {bool(lo > 0 or hi < 0) for _, lo, hi in per_tier.values()}
        if (signs == {1, -1} and True in sig) or len(sig) > 1:
            expected.add(key)
    got = {(f.kind, f.variant, int(f.group)) for f in flags.itertuples() if f.flagged}
    assert got == expected and len(flags) == 10
    # holds: flagged, and one of its changes between tiers survives Benjamini-Hochberg
    inter = study_tables(s)["interactions"]
    held = {(r.kind, r.variant, int(r.group)) for r in inter.itertuples() if r.holds}
    holds = {(f.kind, f.variant, int(f.group)) for f in flags.itertuples() if f.holds}
    assert holds == expected & held and ("effect", "num_cards=1", 0) in holds
    for key in (("effect", "num_cards=1", 0), ("advantage", "num_cards=5", 0)):
        assert key in got
        f = flags[(flags["kind"] == key[0]) & (flags["variant"] == key[1]) & (flags["group"] == 0)]
        assert f["sign_change"].iloc[0]
    report = (s.output / "report" / "report.md").read_text()
    summary = report.split("## Summary: findings per skill level", 1)[1].split("\n## ", 1)[0]
    assert f"**{len(expected)} of the 10 findings change between tiers**" in summary
    assert f"**{len(holds)} of the {len(expected)} hold after the correction for the 30" in summary
    label = {"advantage": "advantage", "effect": "effect vs baseline"}
    for kind, variant, seat in expected:
        assert f"| {label[kind]} | {variant} | seat {seat} |" in summary
    assert "| effect vs baseline | num_cards=1 | seat 0 | sign" in summary
    assert "heuristic second - heuristic first: +0." in summary
    for heading in ("## Findings per skill level", "per tier", "interaction"):
        assert heading in report
    m = json.loads((s.output / "study.json").read_text())
    assert [c["tier"] for c in m["cells"]] == [x["name"] for x in TIERS for _ in range(3)]


def test_flag_logic_on_a_table():
    import pandas as pd

    from experiments.study.tiers import flag_findings

    rows = [  # (tier, variant, group, effect, low, high)
        ("a", "x", 0, 0.10, 0.05, 0.15),
        ("b", "x", 0, -0.10, -0.15, -0.05),  # sign (and not significance: both exclude 0)
        ("a", "y", 0, 0.10, 0.05, 0.15),
        ("b", "y", 0, 0.02, -0.01, 0.05),  # significance only
        ("a", "u", 0, 0.10, 0.05, 0.15),
        ("b", "u", 0, -0.02, -0.05, 0.01),  # sign and significance
        ("a", "z", 0, 0.10, 0.05, 0.15),
        ("b", "z", 0, 0.20, 0.10, 0.30),  # neither
        ("a", "w", 0, 0.01, -0.05, 0.07),
        ("b", "w", 0, -0.01, -0.07, 0.05),  # opposite estimates, no finding in either: neither
        ("a", "v", 0, 0.0, float("nan"), float("nan")),
        ("b", "v", 0, 0.0, float("nan"), float("nan")),  # no games differ: neither
    ]
    eff = pd.DataFrame(rows, columns=["tier", "variant", "group", "value", "low", "high"])
    f = flag_findings(eff).set_index("variant")
    assert not f["holds"].any()  # without the changes between tiers nothing is confirmed
    assert f["sign_change"].to_dict() == {
        "x": True,
        "y": False,
        "u": True,
        "z": False,
        "w": False,
        "v": False,
    }
    assert f["significance_change"].to_dict() == {
        "x": False,
        "y": True,
        "u": True,
        "z": False,
        "w": False,
        "v": False,
    }
    assert f["flagged"].to_dict() == {
        "x": True,
        "y": True,
        "u": True,
        "z": False,
        "w": False,
        "v": False,
    }


def test_a_study_without_tiers_is_the_tier_it_would_be(played):
    """The same lineup without tiers plays exactly the first tier's games, with its effects,
    in the folders and with the report of a study without tiers."""
    import pandas as pd

    from experiments.analysis.results import Results  # noqa: F401 (the report's reader)
    from experiments.study.report import study_tables
    from experiments.study.stats import effects, look_alpha, open_cells

    s, plain = played
    tier0 = s.tier_groups()[0][1]
    for a, b in zip(plain.cells, tier0):
        assert a.folder.parent.name == "cells"
        cols = ["game_index", "seat", "seed", "win", "score"]
        x = pd.read_parquet(a.folder / "data").sort_values(["game_index", "seat"])[cols]
        y = pd.read_parquet(b.folder / "data").sort_values(["game_index", "seat"])[cols]
        assert x.reset_index(drop=True).equals(y.reset_index(drop=True))
    t = study_tables(plain)
    assert set(t) == {"cells", "alpha", "rates", "effects", "metrics"}
    cells = list(plain.cells)
    with open_cells(cells, 0) as res:
        direct = effects(res, cells, 0, "seat", look_alpha(0.05, 1))
    assert t["effects"].equals(direct)
    tiered = study_tables(s)["effects"]
    tiered = tiered[tiered["tier"] == "heuristic first"].reset_index(drop=True)
    cols = ["group", "deals", "effect", "low", "high"]
    assert t["effects"][cols].equals(tiered[cols])
    m = json.loads((plain.output / "study.json").read_text())
    assert "tiers" not in m["identity"] and all("tier" not in c for c in m["cells"])
    report = (plain.output / "report" / "report.md").read_text()
    assert "skill level" not in report and "tier" not in report


def test_the_stopping_rule_reads_each_tier_against_its_own_baseline(played):
    """With [stop], the key intervals are every tier's rates and effects against the tier's own
    baseline: the widest of them is the widest of the report's rates and per-tier effects."""
    from experiments.study.report import study_tables
    from experiments.study.stats import key_intervals

    s, _ = played
    t = study_tables(s)
    k = key_intervals(s, list(s.cells), 1)
    widest = max(t["rates"]["half_width"].max(), t["effects"]["half_width"].max())
    assert k["max_half_width"] == pytest.approx(widest)
    assert len(t["effects"]) == 3 * 2 * 2  # no effect across tiers
