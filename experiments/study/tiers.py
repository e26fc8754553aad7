"""Findings per skill level: a study's cells played by several lineups (``[[tiers]]``).

Every tier plays every cell on the same deals (one master seed: deal ``d`` has the same seeds in
every cell of every tier), so differences between tiers are paired by deal like differences
between cells.  Per tier the report gives the seat advantage, the design metrics and each cell's
paired effect against the tier's own baseline cell (:func:`experiments.study.stats.effects`).

**The interaction** of a cell and a group (seat or agent) between tiers ``A`` and ``B`` is the
change of the cell's effect with skill: per deal ``y_d = (cell_B - base_B) - (cell_A - base_A)``
of the per-deal advantages (win rate - 1/players, a deal's rotations averaged first), over the
deals all four runs played, with the t interval over deals the study uses for effects (at the
same level, ``1 - alpha/K`` with ``[stop]``).

**Flags.**  A finding (one cell's effect on one group, significant in at least one tier: its
interval excludes 0) is flagged when its sign changes between tiers (a significant effect whose
estimate has the other sign in another tier) or its significance does (its interval excludes 0
in one tier and not in another); the report's summary lists the flagged findings beside their
interactions.  Estimates of opposite signs whose intervals all hold 0 are no finding in any
tier, so they are not flagged (the interaction table still lists them).

**Correction for the number of changes.**  A study with many cells, groups and tiers makes many
comparisons, and some findings flip between tiers by chance.  Every paired change between tiers
in the study (advantages and interactions, every pair of tiers: one family) gets the p-value of
its paired t test and a Benjamini-Hochberg adjusted p-value (``scipy.stats.
false_discovery_control``); a flagged finding **holds** when one of its changes has an adjusted
p-value at most the report's alpha, that is when the change with skill itself survives the
correction, not only the per-tier significance.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from experiments.analysis.render import Table
from experiments.analysis.results import Results, quote_ident
from experiments.study.stats import (
    ADVANTAGE,
    _group_expr,
    adjusted_p_values,
    paired_stats,
    t_half_width,
    t_p_value,
)

KINDS = {"advantage": "advantage", "effect": "effect vs baseline"}


def _per_deal(view: str, key: str, games: int) -> str:
    return (
        f"SELECT deal, {_group_expr(key)} AS grp, {ADVANTAGE} AS x FROM {quote_ident(view)} "
        f"WHERE game_index < {int(games)} GROUP BY deal, grp"
    )


def interaction_stats(res: Results, cell_a, base_a, cell_b, base_b, key: str) -> pd.DataFrame:
    """Per group: D (deals all four runs played), mean and variance of the per-deal
    ``(cell_b - base_b) - (cell_a - base_a)`` of advantages; one join on ``deal``."""
    parts = {"ca": cell_a, "ba": base_a, "cb": cell_b, "bb": base_b}
    with_ = ", ".join(
        f"{n} AS ({_per_deal(f'cell{c.index}', key, c.config.games)})" for n, c in parts.items()
    )
    return res.sql(
        f"WITH {with_} SELECT grp, count(*) AS d, avg(y) AS mean, var_samp(y) AS var FROM ("
        f" SELECT grp, (cb.x - bb.x) - (ca.x - ba.x) AS y FROM cb"
        f" JOIN bb USING (deal, grp) JOIN ca USING (deal, grp) JOIN ba USING (deal, grp))"
        f" GROUP BY grp ORDER BY grp"
    )


def interactions(res: Results, study, cells: Sequence, alpha: float) -> pd.DataFrame:
    """Every pair of tiers (``A`` before ``B`` in the config), every cell, every group: the change
    between the tiers of the cell's advantage (``kind = "advantage"``: per deal
    ``cell_B - cell_A``) and of its effect against the baseline (``kind = "effect"``, every cell
    but the baseline: the interaction ``effect_B - effect_A``), each with its paired interval
    over deals, its p-value (``p``) and its Benjamini-Hochberg adjusted p-value over every row
    (``p_adjusted``; ``holds``: at most ``alpha``)."""
    groups = study.tier_groups(cells)
    rows = []
    for (ta, ca), (tb, cb) in itertools.combinations(groups, 2):
        for kind in KINDS:
            for j, (a, b) in enumerate(zip(ca, cb)):
                if kind == "advantage":
                    t = paired_stats(
                        res,
                        f"cell{b.index}",
                        f"cell{a.index}",
                        study.key,
                        b.config.games,
                        a.config.games,
                    )
                elif j == study.baseline:
                    continue
                else:
                    ba, bb = ca[study.baseline], cb[study.baseline]
                    t = interaction_stats(res, a, ba, b, bb, study.key)
                rows += _interval_rows(t, alpha, kind=kind, tier_a=ta, tier_b=tb, variant=a.variant)
    out = pd.DataFrame(rows)
    if len(out):
        adj = adjusted_p_values(out["p"].to_numpy(), "bh")
        out["p_adjusted"], out["holds"] = adj, adj <= alpha
    return out


def _interval_rows(t: pd.DataFrame, alpha: float, **fields) -> list[dict]:
    rows = []
    for r in t.itertuples():
        hw = t_half_width(r.var, int(r.d), alpha)
        rows.append(
            {
                **fields,
                "group": r.grp,
                "deals": int(r.d),
                "interaction": r.mean,
                "low": r.mean - hw,
                "high": r.mean + hw,
                "half_width": hw,
                "p": t_p_value(int(r.d), r.mean, r.var),
            }
        )
    return rows


def _sign(v: float) -> int:
    return 0 if v is None or not np.isfinite(v) or v == 0 else (1 if v > 0 else -1)


def _significant(lo: float, hi: float) -> bool:
    return bool(np.isfinite(lo) and np.isfinite(hi) and (lo > 0 or hi < 0))


def flag_findings(findings: pd.DataFrame, inter: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per finding (``kind``, ``variant``, ``group``) seen in two tiers or more, from the
    per-tier values (columns ``tier``, ``variant``, ``group``, ``value``, ``low``, ``high``, and
    ``kind`` if there are several kinds): ``sign_change`` (significant in some tier, and the
    estimate is positive in one tier and negative in another), ``significance_change`` (the
    interval excludes 0 in one tier and not in another), ``flagged`` (either) and, given the
    changes between tiers (:func:`interactions`), ``holds`` (flagged, and one of its changes has a
    BH-adjusted p-value at most the report's alpha)."""
    cols = [
        "kind",
        "variant",
        "group",
        "tiers",
        "sign_change",
        "significance_change",
        "flagged",
        "holds",
    ]
    held = (
        {(r.kind, r.variant, r.group) for r in inter.itertuples() if r.holds}
        if inter is not None and len(inter)
        else set()
    )
    if not len(findings):
        return pd.DataFrame(columns=cols)
    if "kind" not in findings:
        findings = findings.assign(kind="effect")
    rows = []
    for (kind, variant, group), g in findings.groupby(["kind", "variant", "group"], sort=False):
        if g["tier"].nunique() < 2:
            continue
        signs = {_sign(v) for v in g["value"]} - {0}
        sig = {_significant(lo, hi) for lo, hi in zip(g["low"], g["high"])}
        sign_change = signs == {1, -1} and True in sig
        significance_change = len(sig) > 1
        rows.append(
            dict(
                zip(
                    cols,
                    [
                        kind,
                        variant,
                        group,
                        list(g["tier"]),
                        sign_change,
                        significance_change,
                        sign_change or significance_change,
                        (sign_change or significance_change) and (kind, variant, group) in held,
                    ],
                )
            )
        )
    return pd.DataFrame(rows, columns=cols)


def tier_findings(rates: pd.DataFrame, eff: pd.DataFrame, cells: Sequence) -> pd.DataFrame:
    """Every cell's per-tier findings, one row each: ``kind = "advantage"`` (a group's win rate -
    1/players, from :func:`experiments.study.stats.cell_rates`) and ``kind = "effect"`` (the
    paired effect against the tier's baseline), with ``tier``, ``variant``, ``group``, ``value``,
    ``low``, ``high``, ``deals``."""
    by_index = {c.index: c for c in cells}
    fair = np.array([1.0 / by_index[i].config.players for i in rates["index"]])
    adv = pd.DataFrame(
        {
            "kind": "advantage",
            "index": rates["index"],
            "group": rates["group"],
            "deals": rates["deals"],
            "value": rates["rate"] - fair,
            "low": rates["low"] - fair,
            "high": rates["high"] - fair,
        }
    )
    parts = [adv]
    if len(eff):
        parts.append(
            eff[["index", "group", "deals", "effect", "low", "high"]]
            .rename(columns={"effect": "value"})
            .assign(kind="effect")
        )
    out = pd.concat(parts, ignore_index=True)
    out["tier"] = [by_index[i].tier for i in out["index"]]
    out["variant"] = [by_index[i].variant for i in out["index"]]
    return out


def with_tiers(eff: pd.DataFrame, cells: Sequence) -> pd.DataFrame:
    """The effects with each cell's ``tier`` and ``variant`` (its name within the tier)."""
    by_index = {c.index: c for c in cells}
    out = eff.copy()
    out["tier"] = [by_index[i].tier for i in out["index"]]
    out["variant"] = [by_index[i].variant for i in out["index"]]
    return out


# --------------------------------------------------------------------------- report blocks


def _ci(v: float, lo: float, hi: float, sign: str = "+") -> str:
    """``v [lo, hi]``, signed (differences) or not (``sign=""``: design metrics)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return f"{v:{sign}.4g}"
    return f"{v:{sign}.4f} [{lo:{sign}.4f}, {hi:{sign}.4f}]"


def summary_blocks(study, t: dict) -> list:
    """The summary of a study with tiers: the findings whose sign or significance changes."""
    if not study.tiers:
        return []
    flags, found, inter = t["flags"], t["findings"], t["interactions"]
    flagged = flags[flags["flagged"]] if len(flags) else flags
    names = ", ".join(f"**{x.name}** ({'+'.join(map(str, x.agents))})" for x in study.tiers)
    what = (
        f"a finding is a cell's advantage of one {study.key} (win rate - 1/players) or the "
        "cell's paired effect on it against the baseline cell"
    )
    out: list = [(2, "Summary: findings per skill level")]
    if not len(flagged):
        out.append(
            f"Tiers: {names}. None of the {len(flags)} findings changes between tiers ({what}): "
            "none is significant (interval excluding 0) in one tier and not in another, or "
            "significant with the other sign in another tier."
        )
        return out
    held = int(flagged["holds"].sum())
    out.append(
        f"Tiers: {names}. **{len(flagged)} of the {len(flags)} findings change between tiers** "
        f"({what}): significant in some tier, their sign or their significance at the report's "
        "level differs between tiers. The change is the paired interval, over deals, of the "
        "difference between two tiers (for an effect, the interaction): where it excludes 0 the "
        "finding measurably changes with skill. "
        f"**{held} of the {len(flagged)} hold after the correction for the "
        f"{len(inter)} changes tested** (Benjamini-Hochberg over every paired change between "
        f"tiers, adjusted p at most {t['alpha']:.3g}); the others may be chance flips among "
        "many comparisons."
    )
    rows = []
    for f in flagged.itertuples():

        def same(x: pd.DataFrame, f=f) -> pd.Series:
            return (x["kind"] == f.kind) & (x["variant"] == f.variant) & (x["group"] == f.group)

        per_tier = "; ".join(
            f"{r.tier}: {_ci(r.value, r.low, r.high)}" for r in found[same(found)].itertuples()
        )
        change = "; ".join(
            f"{r.tier_b} - {r.tier_a}: {_ci(r.interaction, r.low, r.high)} (n={r.deals:,})"
            for r in inter[same(inter)].itertuples()
        )
        changes = " and ".join(
            w for w, on in (("sign", f.sign_change), ("significance", f.significance_change)) if on
        )
        best = inter[same(inter)]["p_adjusted"].min() if same(inter).any() else math.nan
        rows.append(
            [
                KINDS[f.kind],
                f.variant,
                f"{study.key} {f.group}",
                changes,
                per_tier,
                change or "–",
                ("yes" if f.holds else "no") + (f" ({best:.3g})" if np.isfinite(best) else ""),
            ]
        )
    out.append(
        Table(
            caption="flagged findings: the value in each tier and its paired change between tiers; "
            "holds: a change with a BH-adjusted p-value at most the report's alpha (the smallest "
            "adjusted p-value in brackets)",
            columns=[
                "finding",
                "cell",
                "group",
                "changes",
                "per tier",
                "change (paired)",
                "holds",
            ],
            rows=rows,
        )
    )
    return out


def tier_blocks(study, t: dict, level: float) -> list:
    """The per-tier tables side by side: seat advantage, design metrics, effects, and the
    interactions between tiers."""
    from experiments.study.stats import METRIC_DOCS

    if not study.tiers:
        return []
    groups = study.tier_groups(t["cells"])
    tiers = [name for name, _ in groups]
    rates, metrics, eff, inter = t["rates"], t["metrics"], t["effects"], t["interactions"]
    out: list = [(2, "Findings per skill level")]
    out.append(
        "Every tier plays every cell on the same deals; each tier's effects are against its own "
        f"baseline cell ({groups[0][1][study.baseline].variant}). The interaction of tiers A and "
        "B is the paired t interval over deals of (cell_B - base_B) - (cell_A - base_A), over the "
        f"deals all four runs played, at the level of the effects ({level:.4g})."
    )
    # seat (or agent) advantage per tier
    rows = []
    for j, c0 in enumerate(groups[0][1]):
        for g in dict.fromkeys(rates[rates["index"] == c0.index]["group"]):
            row = [c0.variant, f"{study.key} {g}"]
            for _, cs in groups:
                c = cs[j]
                r = rates[(rates["index"] == c.index) & (rates["group"] == g)]
                fair = 1.0 / c.config.players
                row.append(
                    _ci(r["rate"].iloc[0] - fair, r["low"].iloc[0] - fair, r["high"].iloc[0] - fair)
                    + f" (n={int(r['deals'].iloc[0]):,})"
                    if len(r)
                    else "–"
                )
            rows.append(row)
    out.append(
        Table(
            caption=f"{study.key} advantage (win rate - 1/players) per tier, {level:.4g} "
            "intervals, n = deals",
            columns=["cell", "group"] + tiers,
            rows=rows,
        )
    )
    # design metrics per tier
    names = [k for k in METRIC_DOCS if any(k in m for m in metrics.values())]
    rows = []
    for j, c0 in enumerate(groups[0][1]):
        for k in names:
            row = [c0.variant, k]
            for _, cs in groups:
                m = metrics[cs[j].name]
                row.append(
                    _ci(m[k]["value"], m[k]["low"], m[k]["high"], "") + f" (n={m[k]['n']:,})"
                    if k in m
                    else "–"
                )
            rows.append(row)
    out.append(
        Table(
            caption=f"design metrics per tier ({level:.4g} intervals over deals; chi-square: "
            "n = games)",
            columns=["cell", "metric"] + tiers,
            rows=rows,
        )
    )
    # effects per tier, side by side
    if len(eff):
        rows = []
        for (variant, g), e in eff.groupby(["variant", "group"], sort=False):
            by = {r.tier: r for r in e.itertuples()}
            rows.append(
                [variant, f"{study.key} {g}"]
                + [
                    _ci(by[x].effect, by[x].low, by[x].high) + f" (n={by[x].deals:,})"
                    if x in by
                    else "–"
                    for x in tiers
                ]
            )
        out.append(
            Table(
                caption="paired effect against the tier's baseline cell (difference of "
                "advantage, cell - baseline), n = deals in both",
                columns=["cell", "group"] + tiers,
                rows=rows,
            )
        )
    if len(inter):
        flags = t["flags"]
        flagged = {(f.kind, f.variant, f.group) for f in flags.itertuples() if f.flagged}
        out.append(
            Table(
                caption="change between two tiers, paired per deal: of a cell's advantage "
                "(cell_B - cell_A) and of its effect, the interaction ((cell_B - base_B) - "
                "(cell_A - base_A)); p (BH): its Benjamini-Hochberg adjusted p-value over the "
                f"{len(inter)} changes; flagged: the finding's sign or significance changes "
                "between tiers",
                columns=[
                    "finding",
                    "cell",
                    "group",
                    "tiers",
                    "n (deals)",
                    "change",
                    "p (BH)",
                    "flagged",
                ],
                rows=[
                    [
                        KINDS[r.kind],
                        r.variant,
                        f"{study.key} {r.group}",
                        f"{r.tier_b} - {r.tier_a}",
                        r.deals,
                        _ci(r.interaction, r.low, r.high),
                        f"{r.p_adjusted:.3g}" if np.isfinite(r.p_adjusted) else "–",
                        "yes" if (r.kind, r.variant, r.group) in flagged else "",
                    ]
                    for r in inter.itertuples()
                ],
            )
        )
    return out
