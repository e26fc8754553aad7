"""The report of a tournament: ratings with intervals, the pairwise win matrix, strength against
time per decision.  Markdown + HTML + PNG, like ``dynasty report``; every number with its n.

Per player count: the ratings table (Elo-like scale, 95% bootstrap intervals over deals, the
agents' win rates with Wilson intervals, mean rank, mean time per decision and decisions
timed), a plot of the ratings with their intervals, a plot of rating against time per decision
(log scale: an agent up and to the left is better at equal cost), and the pairwise win matrix
(share of comparisons the row agent won against the column agent, Wilson 95% interval, n) as a
table and a heatmap.  With OpenSpiel installed (the ``alpharank`` or ``dev`` extra), also
alpha-Rank's stationary mass of each agent on the win matrix, with percentiles over the same
bootstrap resamples, as a table and a bar plot; without it, one line says what to install.
The aggregates are streamed through :mod:`experiments.analysis.results`.

A gauntlet's report opens each player count with its focus agents' ratings and intervals, and
with an anchor table says which ratings were held at the table's values (their interval
column reads "anchored").  Every report also writes ``ratings.csv`` (players, agent, rating,
ci_low, ci_high, anchored): the anchor table of a later gauntlet.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from experiments.analysis.ratings import (
    BOOTSTRAP,
    AlphaRank,
    Ratings,
    TournamentResults,
    alpharank_missing,
)
from experiments.analysis.render import Image, Table, axis_label, html_page, markdown, pyplot
from experiments.tournament.tournament import Tournament, games_done


def _ci(lo: float, hi: float, digits: int = 0) -> str:
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return "–"
    return f"{lo:.{digits}f} – {hi:.{digits}f}"


def _ms(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.3g}"


FEW_DEALS = 30


def _few(deals: int) -> str:
    return (
        f" (only {deals} deals: a bootstrap over so few deals "
        "understates the uncertainty, so read the intervals as rough)"
        if deals < FEW_DEALS
        else ""
    )


def _rating_plot(r: Ratings, path: Path, title: str) -> None:
    plt = pyplot()
    order = np.argsort(r.rating)
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * len(r.agents) + 1.4))
    y = np.arange(len(order))
    ax.errorbar(
        r.rating[order],
        y,
        xerr=[r.rating[order] - r.low[order], r.high[order] - r.rating[order]],
        fmt="o",
        capsize=4,
        color="#4c72b0",
    )
    ax.set_yticks(y, [axis_label(r.agents[i]) for i in order])
    ax.set_xlabel("rating (Elo-like scale; 95% bootstrap interval over deals)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _time_plot(r: Ratings, ms: dict[str, float], path: Path, title: str) -> bool:
    xs = np.array([ms.get(a, math.nan) for a in r.agents])
    ok = np.isfinite(xs) & (xs > 0)
    if not ok.any():
        return False
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    idx = np.flatnonzero(ok)
    ax.errorbar(
        xs[idx],
        r.rating[idx],
        yerr=[r.rating[idx] - r.low[idx], r.high[idx] - r.rating[idx]],
        fmt="o",
        capsize=4,
        color="#c44e52",
    )
    for i in idx:
        ax.annotate(
            axis_label(r.agents[i]),
            (xs[i], r.rating[i]),
            textcoords="offset points",
            xytext=(5, 4),
            fontsize=8,
        )
    ax.set_xscale("log")
    ax.set_xlabel("mean CPU time per decision, ms (log scale)")
    ax.set_ylabel("rating (95% interval)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _matrix_plot(r: Ratings, path: Path, title: str) -> None:
    plt = pyplot()
    k = len(r.agents)
    rate = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            if i != j and r.comparisons[i, j] > 0:
                rate[i, j] = r.wins[i, j] / r.comparisons[i, j]
    fig, ax = plt.subplots(figsize=(1.0 * k + 2.5, 0.8 * k + 1.8))
    im = ax.imshow(rate, vmin=0, vmax=1, cmap="RdBu")
    for i in range(k):
        for j in range(k):
            if np.isfinite(rate[i, j]):
                ax.text(j, i, f"{rate[i, j]:.2f}", ha="center", va="center", fontsize=8)
    labels = [axis_label(a) for a in r.agents]
    ax.set_xticks(range(k), labels, rotation=35, ha="right")
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title(title, fontsize=10)
    fig.colorbar(im, ax=ax, label="share of comparisons won")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _alpharank_plot(a: AlphaRank, path: Path, title: str) -> None:
    plt = pyplot()
    order = np.argsort(a.mass, kind="stable")
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * len(a.agents) + 1.4))
    y = np.arange(len(order))
    ax.barh(y, a.mass[order], color="#4c72b0", alpha=0.8)
    if np.all(np.isfinite(a.low)):
        ax.errorbar(
            a.mass[order],
            y,
            xerr=[
                np.clip(a.mass[order] - a.low[order], 0, None),
                np.clip(a.high[order] - a.mass[order], 0, None),
            ],
            fmt="none",
            capsize=4,
            color="#333333",
        )
    ax.set_yticks(y, [axis_label(a.agents[i]) for i in order])
    ax.set_xlim(0, 1.02)
    ax.set_xlabel(
        "alpha-Rank stationary mass"
        + (" (95% bootstrap interval over deals)" if np.all(np.isfinite(a.low)) else "")
    )
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def alpharank_blocks(r: Ratings, n: int, out: Path, image) -> list:
    """The alpha-Rank section of ``n`` players (needs OpenSpiel: check :func:`alpharank_missing`
    first); one line instead if OpenSpiel finds no stationary distribution."""
    try:
        a = r.alpha_rank()
    except ValueError as e:
        return [(3, f"{n} players: alpha-Rank"), f"alpha-Rank not computed: {e}"]
    order = np.lexsort((-r.rating, -a.mass))
    boot = len(a.samples)
    rows = [
        [a.agents[i], f"{a.mass[i]:.3f}", _ci(a.low[i], a.high[i], 3), f"{r.rating[i]:.0f}"]
        for i in order
    ]
    lowered = (
        f"; {a.lowered:,} resamples whose chain was numerically "
        "reducible at that alpha were computed at a smaller one"
        if a.lowered
        else ""
    )
    name = f"alpharank_{n}p.png"
    _alpharank_plot(a, out / name, f"alpha-Rank, {n} players (alpha = {a.alpha:.3g}, m = {a.m})")
    return [
        (3, f"{n} players: alpha-Rank"),
        Table(
            ["agent", "alpha-Rank mass", "95% CI", "rating"],
            rows,
            "alpha-Rank (OpenSpiel, single population) of the meta-game whose payoff of "
            "the row agent against another is its win share in the pairwise results above; "
            f"population m = {a.m}, alpha = {a.alpha:.4g} from OpenSpiel's sweep (raised "
            "until the stationary distribution stops changing); intervals: the stationary "
            f"distribution of each of the {boot:,} bootstrap resamples of the deals at the "
            f"same alpha{lowered}; rating: Bradley-Terry, from the table above",
        ),
        image(name, f"alpha-Rank, {n} players"),
    ]


def tournament_tables(
    t: Tournament, *, bootstrap: int = BOOTSTRAP, anchor: str | None = None, seed: int = 0
) -> dict[int, dict[str, Any]]:
    """Per player count: the Ratings, the agents' rates and times (DataFrames)."""
    out: dict[int, dict[str, Any]] = {}
    folders = [x.folder for x in t.lineups if games_done(x) > 0]
    if not folders:
        from experiments.run.store import ResultsError

        raise ResultsError(
            f"{t.output}: the tournament has no games yet; run `dynasty tournament` first"
        )
    with TournamentResults(folders) as res:
        for n in t.players:
            if not any(games_done(x) for x in t.lineups_of(n)):
                continue
            where = f"players = {n}"
            agents = list(t.pool)
            fixed = t.anchors.get(n)
            r = res.ratings(
                agents,
                players=n,
                bootstrap=bootstrap,
                anchor=anchor if anchor in agents and not fixed else None,
                seed=seed,
                fixed=fixed,
            )
            rates = res.agent_rates(where).set_index("agent")
            times = res.agent_time(where).set_index("agent")
            games = int(
                res.con.execute(
                    f"SELECT count(*) FROM games WHERE {where} AND seat = 0"
                ).fetchone()[0]
            )
            out[n] = {"ratings": r, "rates": rates, "times": times, "games": games}
    return out


def code_lines(manifest: dict[str, Any]) -> list[str]:
    """The report's "Code" line: the commits a folder's sessions ran (none if unrecorded)."""
    commits = sorted(
        {s["git"]["commit"] for s in manifest.get("sessions", []) if s.get("git", {}).get("commit")}
    )
    if not commits:
        return []
    return [
        f"**Code:** commit{'s' if len(commits) > 1 else ''} {', '.join(c[:10] for c in commits)}"
    ]


def make_tournament_report(
    t: Tournament,
    out_dir: str | Path | None = None,
    *,
    bootstrap: int = BOOTSTRAP,
    anchor: str | None = None,
) -> dict[str, Path]:
    """Write report.md, report.html and the PNGs into ``out_dir`` (default OUT/report)."""
    from experiments.run import store

    if anchor is not None and anchor not in t.pool:
        from experiments.run.config import ConfigError

        raise ConfigError(
            f"--anchor: {anchor!r} is not in the pool of "
            f"{t.source or t.name} (pool: {', '.join(t.pool)})"
        )
    if anchor is not None and t.anchors:
        from experiments.run.config import ConfigError

        raise ConfigError(
            f"--anchor: the anchors of {t.source or t.name} ({t.anchors_source}) set the rating "
            "scale; leave out --anchor"
        )
    out = Path(out_dir) if out_dir else t.output / "report"
    out.mkdir(parents=True, exist_ok=True)
    tables = tournament_tables(t, bootstrap=bootstrap, anchor=anchor)
    m = (
        json.loads((t.output / "tournament.json").read_text())
        if (t.output / "tournament.json").exists()
        else {}
    )
    images: dict[str, Path] = {}

    def image(name: str, alt: str) -> Image:
        images[name] = out / name
        return Image(name, alt)

    total = sum(games_done(x) for x in t.lineups)
    wanted = sum(x.config.games for x in t.lineups)
    opts = ", ".join(f"{k} = {v}" for k, v in t.options.items()) or "none"
    pool = f"**Pool:** {', '.join(t.pool)}"
    if t.focus:
        baselines = [a for a in t.pool if a not in t.focus]
        pool = (
            f"**Focus:** {', '.join(t.focus)}  \n**Baselines:** {', '.join(baselines)}  \n"
            "**Gauntlet:** each lineup is one focus agent and a combination of baselines; "
            "every focus agent plays every seat against every combination equally often"
        )
    if t.anchors:
        pool += f"  \n**Anchors:** {t.anchors_source} (these ratings are held, not fitted)"
    blocks: list = [
        (1, f"Tournament {t.name}: {t.game}"),
        t.description or f"Tournament `{t.name}`.",
        f"{pool}  \n**Players:** {', '.join(map(str, t.players))}  \n"
        f"**Schedule:** {t.schedule}: {len(t.lineups)} lineups, each played on {t.deals:,} deals "
        f"in all its seat rotations with the deal's seed (the same deals in every lineup)  \n"
        f"**Games:** {total:,} of {wanted:,}"
        + ("" if total >= wanted else " (not complete; run it again)")
        + f"  \n**Options:** {opts}  \n**Master seed:** {t.seed}",
    ]
    blocks += code_lines(m)
    no_alpharank = alpharank_missing()
    if t.focus and no_alpharank is None:
        no_alpharank = (
            "alpha-Rank needs the head-to-head results of every pair of agents, and a "
            "gauntlet's baselines do not all meet"
        )
    csv_tables = []
    for n, tab in tables.items():
        r: Ratings = tab["ratings"]
        rates, times = tab["rates"], tab["times"]
        scale = f"anchored on {r.anchor} = 0" if r.anchor else "centred on the pool's mean"
        if r.fixed:
            scale = (
                f"of the anchors ({t.anchors_source}): {', '.join(r.fixed)} held at their "
                "given ratings, the other agents fitted on that scale (their intervals hold "
                "the anchors fixed)"
            )
        rows = []
        for i in np.argsort(-r.rating):
            a = r.agents[i]
            n_seats = int(rates.loc[a, "n"]) if a in rates.index else 0
            ms = float(times.loc[a, "ms_per_decision"]) if a in times.index else math.nan
            dec = int(times.loc[a, "decisions"]) if a in times.index and not math.isnan(ms) else 0
            rows.append(
                [
                    a,
                    f"{r.rating[i]:.0f}",
                    "anchored" if a in r.fixed else _ci(r.low[i], r.high[i]),
                    n_seats,
                    f"{rates.loc[a, 'win_rate']:.3f}" if n_seats else "–",
                    _ci(rates.loc[a, "ci_low"], rates.loc[a, "ci_high"], 3) if n_seats else "–",
                    f"{rates.loc[a, 'mean_rank']:.2f}" if n_seats else "–",
                    _ms(ms),
                    dec,
                ]
            )
        csv_tables.append(
            r.table().assign(players=n, anchored=[a in r.fixed for a in r.agents])[
                ["players", "agent", "rating", "ci_low", "ci_high", "anchored"]
            ]
        )
        name = f"ratings_{n}p.png"
        _rating_plot(
            r, out / name, f"Ratings, {n} players ({tab['games']:,} games, {r.deals:,} deals)"
        )
        blocks.append((2, f"{n} players: ratings"))
        for f in t.focus:
            i = r.agents.index(f)
            blocks.append(
                f"**{f}** (focus): rating {r.rating[i]:.0f}, 95% CI {_ci(r.low[i], r.high[i])}, "
                f"{int(rates.loc[f, 'n']) if f in rates.index else 0:,} seats"
                + (", on the scale of the anchored agents" if r.fixed else "")
            )
        blocks += [
            Table(
                [
                    "agent",
                    "rating",
                    "95% CI",
                    "n (seats)",
                    "win rate",
                    "95% CI (Wilson)",
                    "mean rank",
                    "ms / decision",
                    "decisions timed",
                ],
                rows,
                "Bradley-Terry on rank-broken pairs, Elo-like scale "
                f"{scale}; intervals: {bootstrap:,} bootstrap resamples "
                f"of the {r.deals:,} deals; {tab['games']:,} games" + _few(r.deals),
            ),
            image(name, f"ratings, {n} players"),
        ]
        ms_map = {a: float(times.loc[a, "ms_per_decision"]) for a in r.agents if a in times.index}
        tname = f"rating_vs_time_{n}p.png"
        if _time_plot(r, ms_map, out / tname, f"Rating against time per decision, {n} players"):
            blocks += [
                "Rating against the agent's mean CPU time per decision (the worker thread's, "
                "on the machine that played; random play's time is its share of the arena's "
                "random-move loop). Up and to the left is stronger at equal cost.",
                image(tname, "rating against time per decision"),
            ]
        wm = r.win_matrix()
        mname = f"win_matrix_{n}p.png"
        _matrix_plot(r, out / mname, f"Pairwise win shares, {n} players")
        blocks += [
            (3, f"{n} players: pairwise results"),
            Table(
                ["agent", "opponent", "n", "wins", "win share", "95% CI (Wilson)"],
                [
                    [a, b, int(k), f"{w:g}", f"{x:.3f}", _ci(lo, hi, 3)]
                    for a, b, k, w, x, lo, hi in zip(
                        wm["agent"],
                        wm["opponent"],
                        wm["n"],
                        wm["wins"],
                        wm["win_rate"],
                        wm["ci_low"],
                        wm["ci_high"],
                    )
                ],
                "n = pairwise comparisons (each game gives one per pair of seats of "
                "the two agents; a shared rank is half a win); the Wilson interval "
                "treats them as independent, which the rotations of a deal are not "
                "quite: the ratings' bootstrap over deals is the safer interval",
            ),
            image(mname, "pairwise win matrix"),
        ]
        if no_alpharank is None:
            blocks += alpharank_blocks(r, n, out, image)
    if no_alpharank is not None:
        blocks.append(f"{no_alpharank}. This report skips it.")
    from experiments.view.viewer import lineup_blocks

    blocks += lineup_blocks(t.lineups, out)
    blocks += [
        (2, "About this report"),
        f"Made by `dynasty tournament` from {t.output} (`--report-only` writes it again from "
        "the games played). Each game's ranks are "
        "broken into pairwise comparisons between seats of different agents and a "
        "Bradley-Terry model is fitted (choix); for more than 2 players this estimates the "
        "Plackett-Luce strengths of the ranks. Every pair of agents that met gets one virtual "
        "tie as a weak prior. Intervals are percentile intervals of a bootstrap over deals (a "
        "deal's lineups and rotations are resampled together). alpha-Rank (Omidshafiei et al. "
        "2019, OpenSpiel) ranks the same pairwise win matrix by the stationary distribution "
        "of an evolutionary process; docs/agents.md says how to read it. Each lineup folder "
        "under lineups/ is an ordinary results folder with its own `dynasty report`.",
    ]
    store.atomic_write(  # the ratings as a table: a later gauntlet's anchors
        out / "ratings.csv", pd.concat(csv_tables).to_csv(index=False).encode()
    )
    md_path, html_path = out / "report.md", out / "report.html"
    store.atomic_write(md_path, markdown(blocks).encode())
    store.atomic_write(html_path, html_page(f"{t.name} tournament report", blocks).encode())
    return {"markdown": md_path, "html": html_path, **images}


def _same_time(a: float, b: float) -> bool:
    """Whether two agents' measured ms per decision are within 10% of each other."""
    return a > 0 and b > 0 and max(a, b) <= 1.1 * min(a, b)


def ladder_markdown(
    t: Tournament,
    anchor: str = "random",
    compare: Sequence[tuple[str, str]] = (),
    bootstrap: int = BOOTSTRAP,
) -> str:
    """A ladder table for docs/agents.md: rating [95% CI], ms per decision and n per agent (the
    first player count), and the rating difference of each
    ``(variant, baseline)`` pair in ``compare``."""
    tabs = tournament_tables(t, bootstrap=bootstrap, anchor=anchor)
    n = min(tabs)
    tab = tabs[n]
    r: Ratings = tab["ratings"]
    rates, times = tab["rates"], tab["times"]
    wanted = sum(x.config.games for x in t.lineups_of(n))
    done = (
        "" if tab["games"] >= wanted else f" (not complete: {tab['games']:,} of {wanted:,} games)"
    )
    done += _few(r.deals)
    lines = [
        f"{t.game}, {n} players: {tab['games']:,} games on {r.deals:,} deals{done}, "
        f"`experiments/configs/tournaments/{t.name}.toml`",
        "",
        "| agent | rating | 95% CI | ms / decision | n (seats) | win rate |",
        "|---|---|---|---|---|---|",
    ]
    for i in np.argsort(-r.rating):
        a = r.agents[i]
        ms = float(times.loc[a, "ms_per_decision"]) if a in times.index else math.nan
        lines.append(
            f"| `{a}` | {r.rating[i]:.0f} | {_ci(r.low[i], r.high[i])} | {_ms(ms)} | "
            f"{int(rates.loc[a, 'n']) if a in rates.index else 0} | "
            f"{rates.loc[a, 'win_rate'] if a in rates.index else math.nan:.3f} |"
        )
    for variant, baseline in compare:
        if variant in r.agents and baseline in r.agents:
            d, lo, hi = r.difference(variant, baseline)
            ms = [float(times["ms_per_decision"].get(a, math.nan)) for a in (variant, baseline)]
            same = " (same time per decision)" if _same_time(*ms) else ""
            lines += [
                "",
                f"`{variant}` minus `{baseline}`{same}: {d:+.0f} (95% CI {lo:+.0f} to {hi:+.0f})",
            ]
    return "\n".join(lines)


if __name__ == "__main__":  # python -m experiments.tournament.report T.toml [VARIANT BASELINE]
    import sys

    from experiments.tournament.tournament import load_tournament

    args = sys.argv[1:]
    print(
        ladder_markdown(
            load_tournament(args[0]), compare=[tuple(args[1:3])] if len(args) >= 3 else ()
        )
    )
