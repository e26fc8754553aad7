"""Card strength by intervention (experiments/study/interventions.py): the expansion of a game's
items into cells within their declared ranges, the Benjamini-Hochberg and Holm corrected
intervals against a hand computation from the Parquet (DuckDB and the formulas), the report's
two tables with their questions, and bad configs (one line, exit 2)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import main
from experiments.study.interventions import (
    QUESTIONS,
    intervention_effects,
    interventions_from_dict,
    plan,
)
from experiments.study.study import final_cells
from sim.components import check_value
from sim.registry import get_game

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "experiments" / "configs" / "studies" / "middle_kingdom_goal_strength.toml"


def config(tmp_path, games: int = 240, **interventions) -> dict:
    return {
        "name": "iv",
        "output": str(tmp_path / "iv"),
        "games": games,
        "interventions": interventions or {"weaken": "bottom"},
        "base": {"game": "middle_kingdom", "players": 4, "agents": ["random"], "seed": 11},
    }


def write(tmp_path, text: str, name: str = "iv.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# --------------------------------------------------------------------------- expansion


def test_every_goal_card_is_a_cell_within_its_declared_range(tmp_path):
    spec = get_game("middle_kingdom")
    cards = spec.components.base["goal_cards"]
    p = plan(spec, {"weaken": "bottom"})
    # Harvest and Emperor are printed at 0, the bottom of 0..12: skipped, with the reason
    assert [n for n, _ in p.cells] == [
        f"weaker goal_cards[{i}] {cards[i]['name']}" for i in (0, 2, 3, 5)
    ]
    for _, values in p.cells:
        assert len(values) == 1
        for path, v in values.items():
            assert v == 0 == check_value(spec, path, v)  # the bottom of the declared range
    skipped = dict(p.skipped)
    assert "already at the bottom" in skipped["goal_cards[1] Harvest"]
    assert "no field of these has a declared range" in skipped["dynasty_cards (62 items)"]
    assert [it.holder for it in p.items] == [
        "goal_palace",
        "goal_market",
        "goal_heir",
        "goal_dragon",
    ]
    # a step instead: one VP less, never below the range
    step = dict(plan(spec, {"weaken": 1}).cells)
    assert step["weaker goal_cards[0] Palace"] == {"goal_cards[0].vp": 3}
    assert step["weaker goal_cards[5] Celestial Dragon"] == {"goal_cards[5].vp": 1}
    # the study: the printed baseline first, then one cell per item, each changing only its item
    s = interventions_from_dict(config(tmp_path), "iv.toml").study
    assert s.baseline == 0 and s.cells[0].name == "printed" and s.cells[0].values == {}
    assert [c.values for c in s.cells[1:]] == [
        {f"components.{k}": v for k, v in values.items()} for _, values in p.cells
    ]
    assert s.cells[1].config.components == {"goal_cards[0].vp": 0}


def test_rulers_weaken_both_bonuses_and_items_without_holders():
    ed = plan(get_game("eternal_dynasty"), {"weaken": 1, "lists": ["rulers"]})
    rulers = get_game("eternal_dynasty").components.base["rulers"]
    first = dict(ed.cells)[f"weaker rulers[0] {rulers[0]['name']}"]
    assert first == {
        "rulers[0].bonus_military": max(0, rulers[0]["bonus_military"] - 1),
        "rulers[0].bonus_political": max(0, rulers[0]["bonus_political"] - 1),
    }
    assert ed.items[0].holder == f"ruler_{rulers[0]['id']}"
    ec = plan(get_game("emperors_choice"), {"weaken": "bottom"})
    assert {it.list for it in ec.items} == {"tribute_cards", "treasure_cards"}
    assert all(it.holder is None for it in ec.items)  # no per-card holder in the results


# --------------------------------------------------------------------------- bad configs


@pytest.mark.parametrize(
    "change, message",
    [
        ({"interventions": {"weaken": 0}}, "iv.toml: interventions.weaken: expected"),
        ({"interventions": {"weaken": "half"}}, "iv.toml: interventions.weaken: expected"),
        (
            {"interventions": {"lists": ["dynasty_cards"]}},
            "iv.toml: interventions.lists: middle_kingdom: 'dynasty_cards' is not a list",
        ),
        ({"interventions": {"colour": 1}}, "iv.toml: interventions.colour: unknown key"),
        (
            {"interventions": {"correction": "bonferroni"}},
            'iv.toml: interventions.correction: expected "bh" (Benjamini-Hochberg) or "holm"',
        ),
        ({"axes": {"players": [3]}}, "iv.toml: axes: not with [interventions]"),
        ({"key": "agent"}, "iv.toml: key: interventions compare seats"),
        ({"base": {"game": "ming_dynasty"}}, "iv.toml: interventions: ming_dynasty: no item"),
        ({"base": {"game": "chess"}}, "iv.toml: base.game:"),
    ],
)
def test_bad_config_is_one_line_exit_2(tmp_path, capsys, change, message):
    from tests.test_study import toml_text

    d = config(tmp_path)
    if "base" in change:
        d["base"] = {**d["base"], **change.pop("base")}
    d.update(change)
    p = write(tmp_path, toml_text(d) + "\n")
    assert main(["interventions", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("dynasty: error: ") and f"{tmp_path}/{message}" in err, err


def test_the_template_loads():
    from experiments.study.interventions import load_interventions

    s = load_interventions(TEMPLATE).study
    assert s.cells[0].name == "printed" and len(s.cells) == 5


# --------------------------------------------------------------------------- with Ray


def _view(folder: Path) -> str:
    return f"read_parquet('{folder}/data/game=*/part-*.parquet')"


def _bh_by_hand(p: list[float], q: float) -> tuple[list[float], int]:
    """BH adjusted p-values and the number selected, from the step-up formula."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adj = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p[i] * m / rank)
        adj[i] = min(1.0, running)
    selected = max((k for k in range(1, m + 1) if p[order[k - 1]] <= k * q / m), default=0)
    return adj, selected


def _holm_by_hand(p: list[float]) -> list[float]:
    """Holm's adjusted p-values from the step-down formula: the running maximum, in increasing
    order of p, of (m - k + 1) p_(k), capped at 1."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adj, running = [0.0] * m, 0.0
    for k, i in enumerate(order, 1):
        running = max(running, min(1.0, (m - k + 1) * p[i]))
        adj[i] = running
    return adj


def test_corrected_intervals_equal_a_hand_computation(ray_session, tmp_path, capsys):
    import duckdb
    from scipy.stats import t

    d = config(tmp_path, games=240)
    from tests.test_study import toml_text

    p = write(tmp_path, toml_text(d) + "\n")
    assert main(["interventions", str(p), "--quiet", "--workers", "2"]) == 0
    s = interventions_from_dict(d, str(p))
    study, pl = s.study, s.plan()
    cells = final_cells(study)
    q = 1 - study.confidence
    got = intervention_effects(study, pl, cells, q)
    holm_fams = intervention_effects(study, dataclasses.replace(pl, correction="holm"), cells, q)
    con = duckdb.connect()
    base = cells[0].folder
    hi, lo = got["best_seat"], got["worst_seat"]
    hand: dict[str, list] = {"holder": [], "seat_gap": []}
    for it, c in zip(pl.items, cells[1:]):
        # the holders' win rate: per deal, the mean over the baseline's holding (game, seat) of
        # win(cell) - win(baseline); deals without a holder drop out
        x = con.execute(
            f"SELECT avg(c.win - b.win) FROM {_view(base)} b JOIN {_view(c.folder)} c "
            f"USING (game_index, seat) WHERE b.f_{it.holder} > 0 GROUP BY b.deal"
        ).fetchnumpy()
        hand["holder"].append(next(iter(x.values())).astype(float))
        gap = (
            "SELECT deal, avg(win) FILTER (WHERE seat = {hi}) - avg(win) FILTER (WHERE seat = {lo})"
            " AS g FROM {v} GROUP BY deal"
        )
        y = con.execute(
            f"SELECT a.g - b.g FROM ({gap.format(hi=hi, lo=lo, v=_view(c.folder))}) a "
            f"JOIN ({gap.format(hi=hi, lo=lo, v=_view(base))}) b USING (deal)"
        ).fetchnumpy()
        hand["seat_gap"].append(next(iter(y.values())).astype(float))
    for effect, xs in hand.items():
        means = [float(x.mean()) for x in xs]
        ses = [float(x.std(ddof=1) / math.sqrt(len(x))) for x in xs]
        pv = [
            float(2 * t.sf(abs(m) / se, len(x) - 1)) if se > 0 else (0.0 if m != 0 else 1.0)
            for m, se, x in zip(means, ses, xs)
        ]
        adj, selected = _bh_by_hand(pv, q)
        level = 1 - max(selected, 1) * q / len(xs)  # Benjamini-Yekutieli FCR-adjusted level
        fam = got["effects"][effect]
        assert [r.item.name for r in fam.itertuples()] == [it.name for it in pl.items]
        assert fam["d"].tolist() == [len(x) for x in xs]
        np.testing.assert_allclose(fam["mean"], means, atol=1e-12)
        np.testing.assert_allclose(fam["p_adjusted"], adj, rtol=1e-9, atol=1e-300)
        assert int(fam["selected"].sum()) == selected
        assert fam["level"].iloc[0] == pytest.approx(level)
        hw = [t.ppf(1 - (1 - level) / 2, len(x) - 1) * se for x, se in zip(xs, ses)]
        np.testing.assert_allclose(fam["low"], np.array(means) - hw, atol=1e-12)
        np.testing.assert_allclose(fam["high"], np.array(means) + hw, atol=1e-12)
        # Holm (correction = "holm"): the same effects, step-down p-values, Bonferroni intervals
        holm = holm_fams["effects"][effect]
        np.testing.assert_allclose(holm["mean"], means, atol=1e-12)
        np.testing.assert_allclose(holm["p_adjusted"], _holm_by_hand(pv), rtol=1e-9, atol=1e-300)
        assert holm["selected"].tolist() == [a <= q for a in _holm_by_hand(pv)]
        assert holm["level"].iloc[0] == pytest.approx(1 - q / len(xs))
        hw = [t.ppf(1 - q / len(xs) / 2, len(x) - 1) * se for x, se in zip(xs, ses)]
        np.testing.assert_allclose(holm["low"], np.array(means) - hw, atol=1e-12)
    # taking a goal card's VP away hurts the seats that held it, whatever the correction
    assert (got["effects"]["holder"]["high"] < 0).all()
    # the report: both tables, each with the question it answers, and the correction stated
    report = (study.output / "report" / "interventions.md").read_text()
    for question in QUESTIONS:
        assert f"### {question}" in report
    assert "Benjamini-Hochberg" in report and "already at the bottom" in report
    assert (study.output / "report" / "interventions.html").stat().st_size > 0
    assert (study.output / "report" / "report.md").is_file()
    assert "interventions.md" in capsys.readouterr().out
    # the same games, reported with Holm's correction: the report says which correction it used
    d["interventions"] = {**d["interventions"], "correction": "holm"}
    p.write_text(toml_text(d) + "\n")
    assert main(["interventions", str(p), "--quiet", "--report-only"]) == 0
    report = (study.output / "report" / "interventions.md").read_text()
    assert "Holm's step-down" in report and "Holm-adjusted p-values" in report
    assert "Benjamini-Hochberg" not in report and "Bonferroni levels" in report
