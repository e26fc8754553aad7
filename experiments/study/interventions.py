"""Card strength by intervention: what happens to a game if one of its cards (goal, ruler, tile
...) is weaker, measured on shared deals.

A study with an ``[interventions]`` table instead of ``[axes]`` or ``[[cells]]`` expands to one
baseline cell (the data files as they are, ``printed``) and one cell per **item** of the game's
component data, each weakening that one item (docs/studies.md, "Card strength by
intervention")::

    [interventions]
    weaken = "bottom"             # each strength value to the bottom of its declared range,
                                  # or an integer k: lowered by k (not below the range's bottom)
    lists = ["goal_cards"]        # optional: the item lists to test (default: every list with
                                  # a declared range)
    correction = "bh"             # optional: "bh" (Benjamini-Hochberg, the default) or "holm"

**Items.**  Every list of records in ``components.json`` (``goal_cards``, ``rulers``,
``tribute_cards`` ...) is a list of items, one per element.  An item's **strength** is every
numeric field of its record whose path the game declares in ``ranges.toml``
(``goal_cards[*].vp``, ``rulers[*].bonus_military`` and ``rulers[*].bonus_political``): its cell
lowers all of them together.  A list with no declared field, and an item already at the bottom
of every declared range, are listed as skipped with the reason.  Taking an item out of the game
is not an intervention here: no game declares a range for a count of its items.

**Holders.**  ``ranges.toml`` may name, per list, the feature (``f_<name>`` in the results) that
is above 0 for a seat holding the item at the end of a game::

    [[item]]
    list = "goal_cards"
    holder = ["goal_palace", "goal_harvest", ...]   # one per element, or a template: "ruler_{id}"

**Effects**, each paired per deal against the baseline cell (the unit is the deal, as in
:mod:`experiments.study.stats`):

- ``holder``: the change of the win rate of the seats that hold the item in the baseline's game
  (the same game index and seat in both cells: per deal, the mean of ``win(cell) - win(base)``
  over the games and seats holding it in the baseline; deals where no seat holds it drop out);
- ``seat_gap``: the change of the baseline's largest seat gap (the win rate of its best seat
  minus its worst seat, that same pair in both cells);
- ``margin``: the change of the winner's margin (best score minus the second), for every item.

**Correction for the number of items** (each effect is one family of m items), on the p-values
of the paired t test over deals, with ``q = 1 - level``:

- ``correction = "bh"`` (the default): Benjamini-Hochberg adjusted p-values
  (``scipy.stats.false_discovery_control``), items selected at false discovery rate ``q``, and
  every interval of the family at the FCR-adjusted level ``1 - R q / m`` of Benjamini and
  Yekutieli (2005), R = the items selected (``1 - q / m`` when none is);
- ``correction = "holm"``: Holm's step-down adjusted p-values
  (``statsmodels.stats.multitest.multipletests``), items selected with family-wise error rate
  ``q``, and every interval at the Bonferroni level ``1 - q / m`` (simultaneous intervals; an
  item Holm selects may still have an interval touching 0, never the other way round).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from experiments.analysis.results import Results, quote_ident, wilson
from experiments.run.config import ConfigError
from experiments.run.schema import FEATURE_PREFIX
from experiments.study.stats import (
    adjusted_p_values,
    deal_stats,
    look_alpha,
    open_cells,
    t_p_value,
)
from experiments.study.study import Study, final_cells, read_config, study_from_dict

KEYS = ("weaken", "lists", "correction")
EFFECTS = ("holder", "seat_gap", "margin")
QUESTIONS = (
    "What happens if this card is weaker? (intervention)",
    "How do seats holding this card do? (correlation in the printed game)",
)
CORRECTION = {
    "bh": "Benjamini-Hochberg over the items of each effect (adjusted p-values, false discovery "
    "rate q), intervals at the FCR-adjusted level 1 - R q / m of Benjamini and Yekutieli (2005)",
    "holm": "Holm's step-down over the items of each effect (adjusted p-values, family-wise "
    "error rate q), simultaneous intervals at the Bonferroni level 1 - q / m",
}
ADJUSTED = {"bh": "BH-adjusted", "holm": "Holm-adjusted"}


@dataclass(frozen=True)
class Item:
    """One item of a game's component data: ``list[index]``, its strength values and holder."""

    list: str
    index: int
    label: str
    strength: dict[str, tuple[int, int, int]]  # path -> (value, low, high)
    holder: str | None = None

    @property
    def name(self) -> str:
        return f"{self.list}[{self.index}]" + (f" {self.label}" if self.label else "")


@dataclass(frozen=True)
class Plan:
    """The interventions of a study: the weakened values per item and what was left out."""

    weaken: Any
    items: tuple[Item, ...]
    cells: tuple[tuple[str, dict[str, int]], ...]  # (cell name, {path: weakened value})
    skipped: tuple[tuple[str, str], ...] = field(default=())  # (item or list, reason)
    correction: str = "bh"  # a key of CORRECTION


def _fail(source: str, where: str, msg: str) -> ConfigError:
    return ConfigError(f"{source}: {where}: {msg}")


def _holder_decl(spec) -> dict[str, Any]:
    """``{list: holder}`` from the ``[[item]]`` tables of the game's ``ranges.toml``."""
    from sim.components import RANGES_FILE

    if spec.components is None or not spec.components.files:
        return {}
    p = Path(spec.components.files[0]).parent / RANGES_FILE
    if not p.is_file():
        return {}
    return {t["list"]: t.get("holder") for t in tomllib.loads(p.read_text()).get("item", [])}


def _label(rec: dict) -> str:
    for k in ("name", "id", "key"):
        if isinstance(rec.get(k), (str, int)) and not isinstance(rec.get(k), bool):
            return str(rec[k])
    return ""


def game_items(spec) -> tuple[list[Item], list[tuple[str, str]]]:
    """Every item of the game's component data with a declared strength, and the lists skipped
    (with the reason)."""
    from sim.components import declared_ranges, parse_path

    if spec.components is None:
        return [], [("(all)", "the game has no component data")]
    data, holders = spec.components.base, _holder_decl(spec)
    ranges = [(parse_path(r.path), r) for r in declared_ranges(spec)]
    items, skipped = [], []
    for name, v in data.items():
        if not (isinstance(v, list) and v and all(isinstance(e, dict) for e in v)):
            continue
        found = []
        for i, rec in enumerate(v):
            strength = {}
            for f, x in rec.items():
                if isinstance(x, bool) or not isinstance(x, int):
                    continue
                for steps, r in ranges:
                    if steps[:1] == [name] and steps[1:] in (["*", f], [i, f]):
                        strength[f"{name}[{i}].{f}"] = (x, r.low, r.high)
                        break
            h = holders.get(name)
            if isinstance(h, list):
                h = h[i] if i < len(h) else None
            elif isinstance(h, str):
                h = h.format(index=i, **{k: x for k, x in rec.items() if isinstance(x, (str, int))})
            found.append(Item(name, i, _label(rec), strength, h))
        if not any(it.strength for it in found):
            skipped.append((f"{name} ({len(v)} items)", "no field of these has a declared range"))
            continue
        items += [it for it in found if it.strength]
    return items, skipped


def plan(spec, table: Any, source: str = "study") -> Plan:
    """The cells of an ``[interventions]`` table for the game of ``spec`` (ConfigError naming the
    field if the table is bad)."""
    where = "interventions"
    if not isinstance(table, dict):
        raise _fail(source, where, "expected a table with weaken (and lists)")
    bad = sorted(set(table) - set(KEYS))
    if bad:
        raise _fail(source, f"{where}.{bad[0]}", f"unknown key (allowed: {', '.join(KEYS)})")
    weaken = table.get("weaken", "bottom")
    if weaken != "bottom" and (
        isinstance(weaken, bool) or not isinstance(weaken, int) or weaken < 1
    ):
        raise _fail(
            source,
            f"{where}.weaken",
            f'expected "bottom" or a positive integer step, got {weaken!r}',
        )
    correction = table.get("correction", "bh")
    if correction not in CORRECTION:
        raise _fail(
            source,
            f"{where}.correction",
            f'expected "bh" (Benjamini-Hochberg) or "holm", got {correction!r}',
        )
    items, skipped = game_items(spec)
    known = list(dict.fromkeys(it.list for it in items))
    lists = table.get("lists", known)
    if not isinstance(lists, list) or not all(isinstance(x, str) for x in lists):
        raise _fail(source, f"{where}.lists", f"expected a list of item lists, got {lists!r}")
    for x in lists:
        if x not in known:
            raise _fail(
                source,
                f"{where}.lists",
                f"{spec.name}: {x!r} is not a list of items with a declared range "
                f"(lists: {', '.join(known) or 'none'})",
            )
    cells, chosen = [], []
    for it in items:
        if it.list not in lists:
            continue
        values = {}
        for path, (v, low, _high) in it.strength.items():
            new = low if weaken == "bottom" else max(low, v - weaken)
            if new < v:
                values[path] = new
        if not values:
            lows = ", ".join(str(low) for _, low, _ in it.strength.values())
            skipped.append((it.name, f"already at the bottom of its declared range ({lows})"))
            continue
        chosen.append(it)
        cells.append((f"weaker {it.name}", values))
    if not cells:
        raise _fail(
            source,
            where,
            f"{spec.name}: no item (card, goal, ruler, tile ...) of its component data can be "
            "weakened within a declared range",
        )
    return Plan(weaken, tuple(chosen), tuple(cells), tuple(skipped), correction)


FORBIDDEN = ("axes", "cells", "baseline")


@dataclass(frozen=True)
class InterventionStudy:
    """A study whose cells the ``[interventions]`` table made, with that table."""

    study: Study
    table: dict[str, Any]

    def plan(self) -> Plan:
        return plan(self.study.cells[0].config.spec, self.table, self.study.source)


def interventions_from_dict(data: dict[str, Any], source: str = "study") -> InterventionStudy:
    """A study config with ``[interventions]`` instead of ``[axes]`` or ``[[cells]]``, as an
    ordinary study: the baseline cell ``printed`` and one cell per item (ConfigError, one line
    naming the file and the field, if anything is bad)."""
    from sim.registry import UnknownGameError, get_game

    if "interventions" not in data:
        raise _fail(source, "interventions", "missing: give an [interventions] table")
    for k in FORBIDDEN:
        if k in data:
            raise _fail(
                source,
                k,
                "not with [interventions] (the cells are the baseline 'printed' and one "
                "weakened item each)",
            )
    if data.get("key", "seat") != "seat":
        raise _fail(source, "key", "interventions compare seats: key must be 'seat'")
    base = data.get("base")
    game = base.get("game") if isinstance(base, dict) else None
    try:
        spec = get_game(game) if isinstance(game, str) else None
    except UnknownGameError as e:
        raise _fail(source, "base.game", str(e).strip("'\"")) from None
    if spec is None:
        raise _fail(source, "base.game", f"expected a game name, got {game!r}")
    p = plan(spec, data["interventions"], source)
    rest = {k: v for k, v in data.items() if k != "interventions"}
    rest["cells"] = [{"name": "printed"}] + [
        {"name": name, "components": dict(values)} for name, values in p.cells
    ]
    return InterventionStudy(study_from_dict(rest, source), dict(data["interventions"]))


def load_interventions(
    path: str | Path, overrides: dict[str, Any] | None = None
) -> InterventionStudy:
    """Read an interventions study config (``dynasty interventions CONFIG``)."""
    return interventions_from_dict(read_config(path, overrides), str(path))


# --------------------------------------------------------------------------- statistics


def _paired(res: Results, a_sql: str, b_sql: str) -> tuple[int, float, float]:
    """D, mean and variance over deals of ``a.x - b.x`` joined on ``deal``."""
    d, m, v = res.con.execute(
        f"WITH a AS ({a_sql}), b AS ({b_sql}) "
        "SELECT count(*), avg(a.x - b.x), var_samp(a.x - b.x) FROM a JOIN b USING (deal)"
    ).fetchone()
    return int(d), (math.nan if m is None else float(m)), (math.nan if v is None else float(v))


def holder_effect(res: Results, view: str, base: str, feature: str, games: int, base_games: int):
    """(D, mean, var) of the per-deal change of the baseline holders' win rate."""
    d, m, v = res.con.execute(
        f"WITH b AS (SELECT deal, game_index, seat, win FROM {quote_ident(base)} "
        f"WHERE game_index < {int(base_games)} AND {quote_ident(feature)} > 0), "
        f"c AS (SELECT game_index, seat, win FROM {quote_ident(view)} "
        f"WHERE game_index < {int(games)}), "
        "per AS (SELECT b.deal, avg(c.win - b.win) AS x FROM b JOIN c USING (game_index, seat) "
        "GROUP BY b.deal) SELECT count(*), avg(x), var_samp(x) FROM per"
    ).fetchone()
    return int(d), (math.nan if m is None else float(m)), (math.nan if v is None else float(v))


def _gap_sql(view: str, games: int, hi: int, lo: int) -> str:
    return (
        f"SELECT deal, avg(win) FILTER (WHERE seat = {hi}) - avg(win) FILTER (WHERE seat = {lo}) "
        f"AS x FROM {quote_ident(view)} WHERE game_index < {int(games)} GROUP BY deal"
    )


def _margin_sql(view: str, games: int) -> str:
    return (
        "SELECT deal, avg(CASE WHEN len(s) >= 2 THEN s[1] - s[2] END) AS x FROM ("
        f"SELECT deal, game_index, list_sort(list(score), 'DESC') AS s FROM {quote_ident(view)} "
        f"WHERE game_index < {int(games)} GROUP BY deal, game_index) GROUP BY deal"
    )


def correct(frame: pd.DataFrame, q: float, method: str = "bh") -> pd.DataFrame:
    """Adjusted p-values of a family (rows with ``d``, ``mean``, ``var``, ``p``) and its
    intervals: Benjamini-Hochberg at the FCR-adjusted level ``1 - R q / m`` (``"bh"``), or Holm
    at the Bonferroni level ``1 - q / m`` (``"holm"``)."""
    from scipy.stats import t

    out = frame.copy()
    ok = out["p"].notna().to_numpy()
    m = int(ok.sum())
    adj = adjusted_p_values(out["p"].to_numpy(), method, q)
    selected = int((adj[ok] <= q).sum())
    level = 1 - (1 if method == "holm" else max(selected, 1)) * q / max(m, 1)
    out["p_adjusted"], out["selected"], out["level"] = adj, adj <= q, level
    hw = [
        float(t.ppf(1 - (1 - level) / 2, d - 1) * math.sqrt(max(v, 0.0) / d))
        if d >= 2 and np.isfinite(v)
        else math.nan
        for d, v in zip(out["d"], out["var"])
    ]
    out["low"], out["high"] = out["mean"] - hw, out["mean"] + hw
    return out


def intervention_effects(study: Study, p: Plan, cells: Sequence, alpha: float) -> dict[str, Any]:
    """Per item and effect (holder, seat_gap, margin): D, the paired effect, its p-value, the
    adjusted p-value and the corrected interval (``p.correction``); the plan and the baseline's
    seat pair."""
    b = cells[study.baseline]
    by_name = {c.name: c for c in cells}
    with open_cells(cells, study.baseline) as res:
        seats = deal_stats(res, f"cell{b.index}", "seat", b.config.games)
        hi = int(seats.loc[seats["mean"].idxmax(), "grp"])
        lo = int(seats.loc[seats["mean"].idxmin(), "grp"])
        cols = set(res.columns)
        rows = []
        for it, (name, _) in zip(p.items, p.cells):
            c = by_name[name]
            v, bv, g, bg = f"cell{c.index}", f"cell{b.index}", c.config.games, b.config.games
            feat = FEATURE_PREFIX + it.holder if it.holder else None
            if feat in cols:
                rows.append(("holder", it, *holder_effect(res, v, bv, feat, g, bg)))
            rows.append(
                ("seat_gap", it, *_paired(res, _gap_sql(v, g, hi, lo), _gap_sql(bv, bg, hi, lo)))
            )
            rows.append(("margin", it, *_paired(res, _margin_sql(v, g), _margin_sql(bv, bg))))
    frame = pd.DataFrame(rows, columns=["effect", "item", "d", "mean", "var"])
    frame["p"] = [t_p_value(d, m, s) for d, m, s in zip(frame["d"], frame["mean"], frame["var"])]
    fams = {
        e: correct(frame[frame["effect"] == e].reset_index(drop=True), alpha, p.correction)
        for e in EFFECTS
    }
    return {"plan": p, "effects": fams, "best_seat": hi, "worst_seat": lo}


def correlational(cells: Sequence, baseline: int, items: Sequence[Item]) -> pd.DataFrame:
    """The baseline cell's win rate of seats holding each item at the end (and not), as
    ``dynasty report`` gives it: n = seats, Wilson 95% intervals."""
    b = cells[baseline]
    with Results(b.folder) as res:
        feats = [
            FEATURE_PREFIX + it.holder
            for it in items
            if it.holder and FEATURE_PREFIX + it.holder in res.columns
        ]
        if not feats:
            return pd.DataFrame()
        split = res.feature_split(feats, where=f"game_index < {int(b.config.games)}")
    split["item"] = [
        next(it.name for it in items if FEATURE_PREFIX + it.holder == f) for f in feats
    ]
    return split


# --------------------------------------------------------------------------- report blocks


def _ci(m: float, lo: float, hi: float) -> str:
    if m is None or not np.isfinite(m):
        return "–"
    if not np.isfinite(lo):
        return f"{m:.4f}"
    return f"{m:+.4f} [{lo:+.4f}, {hi:+.4f}]"


def report_blocks(study: Study, p: Plan, cells: Sequence, alpha: float) -> list:
    """The report's two tables: the intervention effects ranked, beside the correlational table."""
    from experiments.analysis.render import Table

    r = intervention_effects(study, p, cells, alpha)
    fams = r["effects"]
    q = alpha
    get = {e: {row.item.name: row for row in f.itertuples()} for e, f in fams.items()}
    ranked = sorted(
        p.items,
        key=lambda it: (
            get["holder"][it.name].mean if it.name in get["holder"] else math.inf,
            get["seat_gap"][it.name].mean,
        ),
    )
    weaken = (
        "to the bottom of its declared range"
        if p.weaken == "bottom"
        else f"by {p.weaken} (not below its declared range)"
    )
    blocks: list = [
        (2, "Card strength by intervention"),
        f"Each item's cell lowers its strength values {weaken}; every other value as printed. "
        f"Effects are paired per deal against the baseline cell **{cells[study.baseline].name}**. "
        f"Correction for the {len(p.items)} items tested: {CORRECTION[p.correction]}, "
        f"q = {q:.3g}; "
        "each effect is its own family (the level is in each table's caption).",
    ]
    lv = {e: (f["level"].iloc[0] if len(f) else math.nan) for e, f in fams.items()}
    nsel = {e: int(f["selected"].sum()) if len(f) else 0 for e, f in fams.items()}
    weakened = {it.name: values for it, (_, values) in zip(p.items, p.cells)}
    rows = []
    for rank, it in enumerate(ranked, 1):
        h, g, mg = get["holder"].get(it.name), get["seat_gap"][it.name], get["margin"][it.name]
        changed = ", ".join(
            f"{path.split('.')[-1]} {it.strength[path][0]} → {w}"
            for path, w in weakened[it.name].items()
        )
        rows.append(
            [
                rank,
                it.name,
                changed,
                h.d if h else "–",
                _ci(h.mean, h.low, h.high) if h else "– (no holder recorded)",
                f"{h.p_adjusted:.3g}" if h else "–",
                g.d,
                _ci(g.mean, g.low, g.high),
                f"{g.p_adjusted:.3g}",
                _ci(mg.mean, mg.low, mg.high),
            ]
        )
    blocks.append((3, QUESTIONS[0]))
    blocks.append(
        Table(
            caption="intervention: the paired effect, "
            "cell - baseline, of weakening the item alone, ranked by the effect on its holder "
            "(most harmful first), then by the seat-gap effect.  holder: win rate of the seats "
            "holding the item in the baseline's game, n = deals with a holder; seat gap: the "
            f"baseline's seat {r['best_seat']} minus seat {r['worst_seat']} win rate, n = deals; "
            "margin: the winner's score minus the second best, in points.  Intervals at the "
            + ("Bonferroni" if p.correction == "holm" else "FCR-adjusted")
            + " levels "
            + ", ".join(
                f"{lv[e]:.4g} ({e.replace('_', ' ')}, {nsel[e]} of {len(fams[e])} selected)"
                for e in EFFECTS
                if len(fams[e])
            )
            + f"; p: {ADJUSTED[p.correction]} p-values",
            columns=[
                "rank",
                "item",
                "weakened",
                "n holder",
                "holder win rate effect",
                "p holder",
                "n gap",
                "seat gap effect",
                "p gap",
                "margin effect",
            ],
            rows=rows,
        )
    )
    corr = correlational(cells, study.baseline, p.items)
    if len(corr):
        crow = []
        corr = corr.assign(rate=corr["wins_held"] / corr["n_held"].clip(lower=1))
        for row in corr.sort_values("rate", ascending=False).itertuples():
            lo, hi = wilson(float(row.wins_held), int(row.n_held))
            nlo, nhi = wilson(float(row.wins_not), int(row.n_not))
            crow.append(
                [
                    row.item,
                    int(row.n_held),
                    f"{row.rate:.4f} [{lo:.4f}, {hi:.4f}]" if row.n_held else "–",
                    int(row.n_not),
                    f"{row.wins_not / row.n_not:.4f} [{nlo:.4f}, {nhi:.4f}]" if row.n_not else "–",
                ]
            )
        blocks.append((3, QUESTIONS[1]))
        blocks.append(
            Table(
                caption="correlational: the baseline cell's win rate of the seats holding the "
                "item at the end, and of the others, as `dynasty report` gives it; n = seats; "
                "Wilson 95% intervals, not corrected.  "
                "A card held by seats that win says the holders did well, not that the card "
                "made them win: the table above answers that.",
                columns=["item", "n held", "win rate held", "n not held", "win rate not held"],
                rows=crow,
            )
        )
    else:
        blocks.append(
            "No item's holder is recorded in the results (no `holder` feature in the game's "
            "ranges.toml): the table above gives the seat-gap and margin effects, and there is "
            "no correlational table of holders."
        )
    if p.skipped:
        blocks.append(
            Table(
                caption="items and lists of the component data not tested, with the reason",
                columns=["item", "reason"],
                rows=[list(s) for s in p.skipped],
            )
        )
    return blocks


def make_intervention_report(s: InterventionStudy, out_dir: str | Path | None = None) -> dict:
    """``OUT/report/interventions.{md,html}``: the ranked intervention table beside the
    correlational one (the study's comparison report, ``report.md``, is written beside it)."""
    from experiments.analysis.render import html_page, markdown

    study = s.study
    out = Path(out_dir) if out_dir else study.output / "report"
    out.mkdir(parents=True, exist_ok=True)
    cells = final_cells(study)
    alpha = look_alpha(1 - study.confidence, study.stop.looks if study.stop else 1)
    b = cells[study.baseline]
    blocks: list = [
        (1, f"Card strength by intervention: {study.name}"),
        f"Game **{b.config.game}**, {b.config.players} players, agents "
        f"{', '.join(a.label for a in b.config.agents)}; {len(cells)} cells of "
        f"{b.config.games:,} games on the same deals (master seed {b.config.seed}). "
        "Two tables answer two questions: the first what weakening an item does (an "
        "intervention, paired on shared deals), the second how seats that end up holding it "
        "do (a correlation in the printed game).  The cells' win rates, design metrics and "
        "per-seat effects are in report.md beside this file.",
    ]
    blocks += report_blocks(study, s.plan(), cells, alpha)
    md, html = out / "interventions.md", out / "interventions.html"
    md.write_text(markdown(blocks))
    html.write_text(html_page(f"Card strength by intervention: {study.name}", blocks))
    return {"interventions": md, "interventions_html": html}
