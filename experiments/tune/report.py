"""The report of ``dynasty tune``: the tuned values, their re-checked metrics with intervals against
the printed values on the same fresh deals, every trial, and a plot of the search."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from experiments.analysis.render import Image, Table, html_page, markdown, pyplot
from experiments.study.stats import METRIC_DOCS
from experiments.tune.tune import MAXIMISED, Tune, slug, trial_values, tune_results


def _ci(m: dict[str, Any]) -> str:
    if m is None:
        return "–"
    v, lo, hi = m["value"], m["low"], m["high"]
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return f"{v:.4g} (n={m['n']:,})"
    return f"{v:.4f} [{lo:.4f}, {hi:.4f}] (n={m['n']:,})"


def make_tune_report(tune: Tune) -> dict[str, Path]:
    """Write ``tune``'s report (Markdown, HTML, PNG) from its folder; the paths written."""
    r = tune_results(tune)
    return _write(tune, r.study, r.trials, r.rechecks, r.printed, r.printed_metrics)


def _write(
    tune, study, trials: dict, rechecks: list, printed_cfg, printed: dict
) -> dict[str, Path]:
    plt = pyplot()
    out = tune.output / "report"
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    obj = tune.objective
    import optuna

    n_done = len([t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE])

    sign = -1 if obj in MAXIMISED else 1
    base_name = "the base parameters" if tune.agent is not None else "the printed values"
    blocks: list = [(1, f"Tuning: {tune.name}")]
    if tune.description:
        blocks.append(tune.description)
    blocks.append(
        f"Game **{tune.base['game']}**, {tune.base.get('players')} players, agents "
        f"{tune.base.get('agents')}; objective: {OBJECTIVE_TEXT.get(obj, obj)}"
        + (
            f", with a skill gap of at least {tune.min_skill_gap}"
            if tune.min_skill_gap is not None
            else ""
        )
        + f". Optuna TPE (seed {tune.seed}), {n_done} trials of {tune.games:,} "
        f"games each, every trial on the same deals; the {len(rechecks)} best "
        f"re-played on {tune.recheck_games:,} fresh deals (another master "
        f"seed) next to {base_name}. Intervals: 95% over deals (n = deals)."
    )
    if rechecks:
        best = min(rechecks, key=lambda r: sign * r["metrics"][obj]["value"])
        blocks.append((2, "Tuned values"))
        blocks.append(
            ", ".join(f"`{k}` = **{v}**" for k, v in best["values"].items())
            + f": {obj} {_ci(best['metrics'][obj])} on the fresh deals, "
            f"against {_ci(printed[obj])} with {base_name} on the same deals."
        )
        if tune.agent is not None:
            blocks.append(
                f"The tuned agent (`agents[{tune.agent}]`) plays "
                f"{tune.base['agents'][: tune.agent] + tune.base['agents'][tune.agent + 1 :]}; "
                "its edge is its win rate minus theirs (0 for an agent no better than they are)."
            )
        names = [k for k in METRIC_DOCS if k in printed]
        rows = [[base_name[4:]] + [_ci(printed.get(k)) for k in names]]
        rows += [
            [", ".join(f"{k}={v}" for k, v in r["values"].items())]
            + [_ci(r["metrics"].get(k)) for k in names]
            for r in rechecks
        ]
        blocks.append(
            Table(
                caption=f"re-check on {tune.recheck_games:,} fresh games: every design metric "
                "with its 95% interval; " + "; ".join(f"{k}: {METRIC_DOCS[k]}" for k in names),
                columns=["candidate"] + names,
                rows=rows,
            )
        )
    blocks.append((2, "The search"))
    import optuna

    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    rows = []
    xs, ys, lo, hi = [], [], [], []

    for t in done:
        values = trial_values(t.params)
        m = trials.get(slug(values), {}).get("metrics", {}).get(obj)
        rows.append([t.number] + [values[k] for k in tune.search] + [_ci(m), t.value])
        if m:
            xs.append(t.number)
            ys.append(m["value"])
            lo.append(m["value"] - m["low"])
            hi.append(m["high"] - m["value"])
    blocks.append(
        Table(
            caption=f"every trial ({tune.games:,} games each, shared deals): {obj} with its 95% "
            "interval, and the value Optuna minimised (with the constraint's penalty, if any)",
            columns=["trial"] + list(tune.search) + [obj, "objective"],
            rows=rows,
        )
    )
    fig, axes = plt.subplots(
        1, 2 if len(tune.search) == 1 else 1, figsize=(11 if len(tune.search) == 1 else 6, 4)
    )
    axes = np.atleast_1d(axes)
    ax = axes[0]
    ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=2, label=f"trial ({tune.games:,} games)")
    if ys:
        ax.plot(
            xs,
            (np.maximum if sign < 0 else np.minimum).accumulate(ys),
            color="C1",
            label="best so far",
        )
    ax.axhline(
        printed[obj]["value"], color="grey", ls="--", lw=0.8, label=f"{base_name[4:]} (fresh deals)"
    )
    ax.set_xlabel("trial")
    ax.set_ylabel(obj)
    ax.set_title(f"{tune.name}: the search (95% intervals, n = deals)")
    ax.legend(fontsize=8)
    if len(tune.search) == 1:
        (p,) = tune.search
        ax = axes[1]
        vals = [trial_values(t.params)[p] for t in done if trials.get(slug(trial_values(t.params)))]
        if vals and isinstance(vals[0], str):  # choices: plotted at their index
            choices = list(tune.search[p])
            ax.set_xticks(range(len(choices)), choices)
            vals = [choices.index(v) for v in vals]
        ax.errorbar(vals, ys, yerr=[lo, hi], fmt="o", capsize=2)
        for r in rechecks:
            m = r["metrics"][obj]
            x = r["values"][p]
            x = list(tune.search[p]).index(x) if isinstance(x, str) else x
            ax.errorbar(
                [x + 0.15],
                [m["value"]],
                yerr=[[m["value"] - m["low"]], [m["high"] - m["value"]]],
                fmt="s",
                color="C3",
                capsize=3,
                label="re-check (fresh deals)" if r is rechecks[0] else None,
            )
        ax.set_xlabel(p)
        ax.set_ylabel(obj)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "search.png", dpi=110)
    plt.close(fig)
    paths["search"] = out / "search.png"
    blocks.append(Image("search.png", "the search: objective per trial with intervals"))
    md, html_path = out / "report.md", out / "report.html"
    md.write_text(markdown(blocks))
    html_path.write_text(html_page(f"Tuning: {tune.name}", blocks))
    return {"markdown": md, "html": html_path, **paths}


OBJECTIVE_TEXT = {
    "seat_gap": "make the largest seat gap as small as possible",
    "tie_rate": "make shared wins as rare as possible",
    "no_winner_rate": "make games no seat wins as rare as possible",
    "agent_edge": "make the tuned agent's edge over the other "
    "agents (win rate minus theirs) as large as possible",
}
