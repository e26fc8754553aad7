"""The comparison report of a study: Markdown + HTML + PNG, like ``dynasty report``.

Tables: every cell's key win rates (seat or agent) with intervals and n; the game-design
metrics of every cell (:func:`experiments.study.stats.design_metrics`); every cell's paired
effect against the baseline cell with the unpaired interval of the same difference and the
measured width ratio.  Plots: key win rates per cell with error bars, effects against the
baseline with error bars, and a heatmap of the largest seat gap for a study with two axes.
Every number says its n (deals for per-deal intervals, games for counts).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from experiments.analysis.render import Image, Table, html_page, markdown, pyplot
from experiments.study.stats import (
    METRIC_DOCS,
    cell_rates,
    design_metrics,
    look_alpha,
    open_cells,
    tier_effects,
)
from experiments.study.study import Study, final_cells
from experiments.study.tiers import (
    flag_findings,
    interactions,
    summary_blocks,
    tier_blocks,
    tier_findings,
    with_tiers,
)


def _ci(v: float, lo: float, hi: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return f"{v:.4g}"
    return f"{v:.4f} [{lo:.4f}, {hi:.4f}]" if abs(v) < 10 else f"{v:.2f} [{lo:.2f}, {hi:.2f}]"


def study_tables(study: Study) -> dict[str, Any]:
    """Every number of the report: rates, effects, design metrics (per cell) and the level used."""
    cells = final_cells(study)
    looks = study.stop.looks if study.stop else 1
    alpha = look_alpha(1 - study.confidence, looks)
    with open_cells(cells, study.baseline) as res:
        rates = cell_rates(res, cells, study.key, alpha)
        eff = tier_effects(res, study, cells, alpha)
        metrics = {
            c.name: design_metrics(res, f"cell{c.index}", c.config.players, c.config.games, alpha)
            for c in cells
        }
        t = {"cells": cells, "alpha": alpha, "rates": rates, "effects": eff, "metrics": metrics}
        if study.tiers:  # findings per skill level (experiments.study.tiers)
            t["effects"] = with_tiers(eff, cells)
            t["findings"] = tier_findings(rates, eff, cells)
            t["interactions"] = interactions(res, study, cells, alpha)
            t["flags"] = flag_findings(t["findings"], t["interactions"])
    return t


def make_study_report(study: Study, out_dir: str | Path | None = None) -> dict[str, Path]:
    plt = pyplot()
    out = Path(out_dir) if out_dir else study.output / "report"
    out.mkdir(parents=True, exist_ok=True)
    t = study_tables(study)
    cells, alpha, rates, eff, metrics = (
        t["cells"],
        t["alpha"],
        t["rates"],
        t["effects"],
        t["metrics"],
    )
    manifest = json.loads((study.output / "study.json").read_text())
    level = 1 - alpha
    base = cells[study.baseline]  # (with tiers: the first tier's baseline)
    game = base.config.game
    paths: dict[str, Path] = {}
    blocks: list = [(1, f"Study: {study.name}")]
    if study.description:
        blocks.append(study.description)
    varied = ", ".join(study.varied) or "nothing"
    budget = (
        f"{study.games:,} games per cell"
        if study.stop is None
        else f"batches of {study.stop.batch:,} games per cell up to "
        f"{study.stop.max_games:,}, until every key interval's half-width is at "
        f"most {study.stop.precision} (stopped: {manifest.get('stopped_by', '?')})"
    )
    if study.tiers:
        varied += f", in {len(study.tiers)} skill tiers ({', '.join(x.name for x in study.tiers)})"
    blocks.append(
        f"Game **{game}**; {len(cells)} cells varying {varied}; baseline cell **{base.name}**; "
        f"{budget}. Every cell plays the same deals (master seed {base.config.seed}): game i "
        "of every cell has the same seeds, so cell differences are paired per deal."
    )
    if study.stop is None:
        blocks.append(
            f"Intervals: {level:.0%} t intervals over deals (n = "
            "deals; a deal's mirrored rotations are averaged first)."
        )
    else:
        blocks.append(
            "Intervals: t intervals over deals at level 1 - "
            f"{1 - study.confidence:.2g}/{looks_of(study)} = {level:.4f} per look "
            f"(a pre-set uniform alpha-spending schedule over the {looks_of(study)} "
            f"planned looks), so each stays valid at {study.confidence:.0%} "
            "whatever look the study stopped at (docs/studies.md)."
        )

    blocks += summary_blocks(study, t)

    def image(name: str, alt: str) -> Image:
        paths[name] = out / f"{name}.png"
        return Image(f"{name}.png", alt)

    blocks += _component_blocks(cells)

    # key rates per cell
    blocks.append((2, f"Win rate by {study.key}, per cell"))
    groups = list(dict.fromkeys(rates["group"]))
    rows = []
    for c in cells:
        r = rates[rates["index"] == c.index].set_index("group")
        rows.append(
            [c.name, int(c.config.games), int(r["deals"].max()) if len(r) else 0]
            + [
                _ci(r.loc[g, "rate"], r.loc[g, "low"], r.loc[g, "high"]) if g in r.index else "–"
                for g in groups
            ]
        )
    blocks.append(
        Table(
            caption=f"win rate of each {study.key} with its {level:.4g} interval; n = deals "
            f"(games = deals x rotations)",
            columns=["cell", "games", "deals"] + [f"{study.key} {g}" for g in groups],
            rows=rows,
        )
    )
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(cells)), 4))
    width = 0.8 / max(1, len(groups))
    for j, g in enumerate(groups):
        r = rates[rates["group"] == g]
        x = r["index"].to_numpy() + (j - (len(groups) - 1) / 2) * width
        ax.errorbar(
            x,
            r["rate"],
            yerr=[r["rate"] - r["low"], r["high"] - r["rate"]],
            fmt="o",
            capsize=3,
            label=f"{study.key} {g}",
        )
    ax.set_xticks(range(len(cells)), [c.name for c in cells], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("win rate")
    ax.set_title(
        f"{study.name}: win rate by {study.key} (n = {int(rates['deals'].min()):,}+ deals per cell)"
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "rates.png", dpi=110)
    plt.close(fig)
    blocks.append(image("rates", f"win rate by {study.key} per cell"))

    # design metrics
    blocks.append((2, "Game-design metrics"))
    names = [k for k in METRIC_DOCS if any(k in m for m in metrics.values())]
    rows = []
    for c in cells:
        m = metrics[c.name]
        rows.append(
            [c.name]
            + [
                (_ci(m[k]["value"], m[k]["low"], m[k]["high"]) + f" (n={m[k]['n']:,})")
                if k in m
                else "–"
                for k in names
            ]
        )
    blocks.append(
        Table(
            caption=f"{level:.4g} intervals over deals, n = deals (chi-square: n = games); "
            + "; ".join(f"{k}: {METRIC_DOCS[k]}" for k in names),
            columns=["cell"] + names,
            rows=rows,
        )
    )

    # effects
    against = f"{base.variant}, in each tier" if study.tiers else base.name
    blocks.append((2, f"Effects against the baseline ({against})"))
    if len(eff):
        per_cell = eff.groupby("cell", sort=False)["width_ratio"].median()
        blocks.append(
            "Paired against unpaired: "
            + "; ".join(
                f"{c}: the paired interval is **{r:.2f}** of the unpaired width"
                for c, r in per_cell.items()
            )
            + f" (median over the {study.key}s of each cell; a ratio r means the shared "
            "deals give the width of 1/r\u00b2 times the games; near 1 where the cells "
            "play different games on the same seeds, e.g. another player count)."
        )
        rows = [
            [
                r.cell,
                f"{study.key} {r.group}",
                r.deals,
                _ci(r.effect, r.low, r.high),
                _ci(
                    r.unpaired_effect,
                    r.unpaired_effect - r.unpaired_half_width,
                    r.unpaired_effect + r.unpaired_half_width,
                ),
                r.width_ratio,
            ]
            for r in eff.itertuples()
        ]
        blocks.append(
            Table(
                caption="difference of advantage (win rate - 1/players), "
                "cell - baseline; paired over shared deals (n = deals in "
                "both) against the unpaired interval of the same difference",
                columns=["cell", "group", "n (deals)", "paired effect", "unpaired", "width ratio"],
                rows=rows,
            )
        )
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(cells)), 4))
        others = [c for c in cells if c.index != base.index]
        pos = {c.index: i for i, c in enumerate(others)}
        for j, g in enumerate(groups):
            r = eff[eff["group"] == g]
            x = np.array([pos[i] for i in r["index"]]) + (j - (len(groups) - 1) / 2) * width
            ax.errorbar(
                x, r["effect"], yerr=r["half_width"], fmt="o", capsize=3, label=f"{study.key} {g}"
            )
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(
            range(len(others)), [c.name for c in others], rotation=30, ha="right", fontsize=8
        )
        ax.set_ylabel("advantage (win rate - 1/players) - baseline's")
        ax.set_title(f"effect against {against} (paired, n = {int(eff['deals'].min()):,}+ deals)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "effects.png", dpi=110)
        plt.close(fig)
        blocks.append(image("effects", "effects against the baseline with paired intervals"))

    blocks += tier_blocks(study, t, level)

    # heatmap for two axes
    if len(study.axes) == 2 and "seat_gap" in names and not study.tiers:
        (a1, v1), (a2, v2) = list(study.axes.items())
        grid = np.full((len(v1), len(v2)), np.nan)
        labels = [["" for _ in v2] for _ in v1]
        for c in cells:
            i = [json.dumps(x) for x in v1].index(json.dumps(c.values[a1]))
            j = [json.dumps(x) for x in v2].index(json.dumps(c.values[a2]))
            m = metrics[c.name]["seat_gap"]
            grid[i, j] = m["value"]
            labels[i][j] = f"{m['value']:.3f}\n±{(m['high'] - m['low']) / 2:.3f}"
        fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(v2), 1.2 + 0.8 * len(v1)))
        im = ax.imshow(grid, cmap="viridis", aspect="auto")
        for i in range(len(v1)):
            for j in range(len(v2)):
                ax.text(j, i, labels[i][j], ha="center", va="center", fontsize=8, color="white")
        ax.set_xticks(range(len(v2)), [str(x) for x in v2], fontsize=8)
        ax.set_yticks(range(len(v1)), [str(x) for x in v1], fontsize=8)
        ax.set_xlabel(a2)
        ax.set_ylabel(a1)
        ax.set_title(
            "largest seat gap (n = "
            f"{min(m['seat_gap']['n'] for m in metrics.values()):,}+ deals per cell)"
        )
        fig.colorbar(im, ax=ax)
        fig.tight_layout()
        fig.savefig(out / "heatmap.png", dpi=110)
        plt.close(fig)
        blocks.append((2, "Largest seat gap over the two axes"))
        blocks.append(image("heatmap", "heatmap of the largest seat gap"))

    if study.stop is not None and manifest.get("looks"):
        blocks.append((2, "Looks of the stopping rule"))
        blocks.append(
            Table(
                caption="after each batch: the widest key interval at the look's level",
                columns=["look", "games per cell", "level", "widest half-width", "widest interval"],
                rows=[
                    [
                        lk["look"],
                        lk["games_per_cell"],
                        1 - lk["alpha"],
                        lk["max_half_width"],
                        lk["worst"],
                    ]
                    for lk in manifest["looks"]
                ],
            )
        )

    md, html_path = out / "report.md", out / "report.html"
    md.write_text(markdown(blocks))
    html_path.write_text(html_page(f"Study: {study.name}", blocks))
    return {"markdown": md, "html": html_path, **paths}


def _component_blocks(cells) -> list:
    """A table of the component values the cells change, beside the data files' values and
    where those come from (printed, reconstructed, decision); none if no cell changes any."""
    from sim.components import file_values, provenance, reconstructed_note

    rows = [
        (c, path.split(".", 1)[1], v)
        for c in cells
        for path, v in c.values.items()
        if path.startswith("components.")
    ]
    if not rows:
        return []
    spec = cells[0].config.spec
    kinds = [provenance(spec, p) for _, p, _ in rows]
    note = f"; {reconstructed_note(spec)}" if any("reconstructed" in k for k in kinds) else ""
    return [
        (2, "Component values"),
        Table(
            caption="the values the cells change, and the data files' values they replace" + note,
            columns=["cell", "path", "value", "data files", "provenance"],
            rows=[
                [c.name, p, v, _values_text(file_values(spec, p)), k or "–"]
                for (c, p, v), k in zip(rows, kinds)
            ],
        ),
    ]


def _values_text(values: list) -> str:
    """A few values listed, many as their range and count."""
    if len(values) <= 6:
        return ", ".join(map(str, values))
    return f"{min(values)}..{max(values)} ({len(values)} values)"


def looks_of(study: Study) -> int:
    return study.stop.looks if study.stop else 1
