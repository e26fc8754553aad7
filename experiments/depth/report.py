"""The statistics and the report of ``dynasty depth``: per player count, each step's win share
against the step below with its interval, the range of skill, how much of the outcome the deal
decides at each step, and the ratings against the budget.  Markdown + HTML + PNG, like the
tournament report; every number with its n.

**Win share** of ``b`` against ``a`` (experiments/depth/depth.py defines the lineups): per game,
the share of the pairs (seat of ``b``, seat of ``a``) won by ``b``'s seat (better rank; a shared
rank counts 1/2), then the mean ``p = S / G`` over the ``G`` games of the pair.  **Interval:**
the Wilson score 95% interval of ``p`` with ``n = G`` (:func:`wilson_share`: ``(p + z^2/2n +-
z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``, ``z = 1.96``; fractional shares as they are, not
rounded); it takes the games as independent, while the rotations of a deal share its cards, so
read it as approximate (the deal share below says how much the deal matters).

**Range of skill** (Zinkevich, Bowling and Burch, "A new algorithm for generating equilibria in
massive zero-sum games", AAAI 2007): the length of the longest list of ladder agents
``a_1, a_2, ..., a_L``, in the ladder's order, in which each beats the one before it with a win
share of at least the threshold (0.75).  Only pairs that were played count: with
``pairs = "adjacent"`` the list is a run of consecutive steps; with ``pairs = "all"`` it may
skip steps, and with ``pairs = k`` up to ``k - 1`` steps at a time (the longest path through the
"beats by >= 0.75" pairs, by dynamic programming).
A ladder where no step reaches the threshold has range 1.

**How much the deal decides** (one-way random-effects ANOVA over deals, the intraclass
correlation ICC(1)): ``y`` = the upper agent's share in one game, the groups the ``D`` deals
(``n_d`` games each, every rotation of the deal and, for 3+ players, both lineups), ``N``
games.  ``MSB = sum_d n_d (ybar_d - ybar)^2 / (D - 1)``, ``MSW = sum (y - ybar_d)^2 / (N - D)``,
``n0 = (N - sum_d n_d^2 / N) / (D - 1)``, between-deal variance ``s_b^2 = max(0, (MSB - MSW) /
n0)``, and the **deal share** ``s_b^2 / (s_b^2 + MSW)``: the share of the variance of the
outcome that lies between deals (0: the deal tells nothing of who wins; 1: every game of a deal
ends alike, whoever sits where).  No variance at all (every game won by the upper agent): not
defined, shown as a dash.  The **per-deal spread** (Goodman, Perez-Liebana and Lucas, "Seeding
for Success: Skill and Stochasticity in Tabletop Games", 2023) is the standard deviation over
deals of the per-deal win share ``ybar_d``.

**Ratings:** the tournament's Bradley-Terry fit (experiments/analysis/ratings.py) of every
comparison played, anchored on the ladder's first agent (0), with 95% bootstrap intervals over
deals; with adjacent pairs the ratings chain the steps, so an interval grows up the ladder.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from experiments.analysis.ratings import BOOTSTRAP, Ratings, TournamentResults
from experiments.analysis.render import Image, Table, html_page, markdown, pyplot
from experiments.analysis.results import CONFIDENCE
from experiments.depth.depth import Depth
from experiments.tournament.report import code_lines
from experiments.tournament.tournament import games_done

GAME_SHARES = (  # the join reads only the columns it needs (see ratings.per_deal_counts)
    "WITH g AS (SELECT players, lineup, deal, game_index, seat, agent, rank FROM games) "
    "SELECT a.players AS players, a.lineup AS lineup, a.deal AS deal, a.game_index AS game, "
    "CAST(a.agent AS VARCHAR) AS agent, CAST(b.agent AS VARCHAR) AS opponent, "
    "avg(CASE WHEN a.rank < b.rank THEN 1.0 WHEN a.rank = b.rank THEN 0.5 ELSE 0.0 END) AS share "
    "FROM g a JOIN g b ON a.lineup = b.lineup AND a.game_index = b.game_index "
    "AND a.seat <> b.seat AND a.agent <> b.agent GROUP BY ALL"
)


def wilson_share(share: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of a (possibly fractional) win share over ``n`` games."""
    from scipy.stats import norm

    if n == 0:
        return (math.nan, math.nan)
    z = float(norm.ppf(0.5 + confidence / 2))
    centre = share + z * z / (2 * n)
    half = z * math.sqrt(max(0.0, share * (1 - share)) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def deal_variance(share: np.ndarray, deal: np.ndarray) -> dict[str, float]:
    """One-way ANOVA of per-game outcomes ``share`` grouped by ``deal`` (module docstring):
    the deal share (ICC(1)), the per-deal spread, D, N, MSB, MSW."""
    y = np.asarray(share, np.float64)
    _, g = np.unique(np.asarray(deal), return_inverse=True)
    n_d = np.bincount(g).astype(np.float64)
    d, n = len(n_d), len(y)
    means = np.bincount(g, weights=y) / n_d
    out = {"deals": d, "games": n, "share_between": math.nan, "spread": math.nan}
    if d < 2 or n <= d:
        return out
    grand = y.mean()
    msb = float((n_d * (means - grand) ** 2).sum() / (d - 1))
    msw = float(((y - means[g]) ** 2).sum() / (n - d))
    n0 = (n - (n_d**2).sum() / n) / (d - 1)
    between = max(0.0, (msb - msw) / n0)
    total = between + msw
    out.update(
        msb=msb,
        msw=msw,
        share_between=between / total if total > 1e-15 else math.nan,
        spread=float(means.std(ddof=1)),
    )
    return out


def skill_chain(
    ladder: list[str], shares: dict[tuple[str, str], float], threshold: float
) -> list[str]:
    """The longest list of ``ladder`` agents, in its order, each beating the previous one with
    ``shares[(upper, lower)] >= threshold`` (pairs not in ``shares`` were not played); the first
    longest, by dynamic programming over the ladder."""
    if not ladder:
        return []
    best = [1] * len(ladder)
    prev = [-1] * len(ladder)
    for j in range(len(ladder)):
        for i in range(j):
            s = shares.get((ladder[j], ladder[i]))
            if s is not None and s >= threshold - 1e-12 and best[i] + 1 > best[j]:
                best[j], prev[j] = best[i] + 1, i
    j = int(np.argmax(best))
    chain = []
    while j >= 0:
        chain.append(ladder[j])
        j = prev[j]
    return chain[::-1]


def depth_tables(d: Depth, *, bootstrap: int = BOOTSTRAP, seed: int = 0) -> dict[int, Any]:
    """Per player count: ``pairs`` (one row per pair played: players, agent, opponent, kind,
    games, deals, wins, share, ci_low, ci_high, deal_share, spread), ``chain`` (labels) and
    ``ratings``."""
    folders = [x.folder for x in d.lineups if games_done(x) > 0]
    if not folders:
        from experiments.run.store import ResultsError

        raise ResultsError(f"{d.output}: no games yet; run `dynasty depth` first")
    out: dict[int, Any] = {}
    with TournamentResults(folders) as res:
        games = res.sql(GAME_SHARES)
        for n in d.players:
            g_n = games[games["players"] == n]
            if g_n.empty:
                continue
            rows = []
            for lo, hi in d.matches:
                a, b = d.pool[hi], d.pool[lo]
                g = g_n[(g_n["agent"] == a) & (g_n["opponent"] == b)]
                if g.empty:
                    continue
                s, G = float(g["share"].sum()), len(g)
                ci = wilson_share(s / G, G)
                var = deal_variance(g["share"].to_numpy(), g["deal"].to_numpy())
                beside = a in d.beside
                step = not beside and d.ladder.index(a) == d.ladder.index(b) + 1
                rows.append(
                    {
                        "players": n,
                        "agent": a,
                        "opponent": b,
                        "kind": "beside" if beside else ("step" if step else "pair"),
                        "games": G,
                        "deals": var["deals"],
                        "wins": s,
                        "share": s / G,
                        "ci_low": ci[0],
                        "ci_high": ci[1],
                        "deal_share": var["share_between"],
                        "spread": var["spread"],
                    }
                )
            pairs = pd.DataFrame(rows)
            ladder = pairs[pairs["kind"] != "beside"]
            shares = {(r.agent, r.opponent): r.share for r in ladder.itertuples()}
            rated = connected(d, pairs)
            r = (
                res.ratings(rated, players=n, bootstrap=bootstrap, anchor=d.ladder[0], seed=seed)
                if len(rated) >= 2
                else None
            )
            times = res.agent_time(f"players = {int(n)}").set_index("agent")
            out[n] = {
                "times": times,
                "pairs": pairs,
                "chain": skill_chain(list(d.ladder), shares, d.threshold),
                "ratings": r,
            }
    return out


def connected(d: Depth, pairs: pd.DataFrame) -> list[str]:
    """The agents that played games linking them to the ladder's first agent (pool order):
    the ones a rating anchored on it can place (an interrupted run may not have them all)."""
    seen, todo = {d.ladder[0]}, [d.ladder[0]]
    while todo:
        a = todo.pop()
        for x, y in zip(pairs["agent"], pairs["opponent"]):
            for u, v in ((x, y), (y, x)):
                if u == a and v not in seen:
                    seen.add(v)
                    todo.append(v)
    return [a for a in d.pool if a in seen] if len(seen) > 1 else []


# --------------------------------------------------------------------------- plots


def _budget_plot(d: Depth, r: Ratings, path: Path, title: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    xs = [b for a, b in d.budgets if a in r.agents]
    idx = [r.agents.index(a) for a, _ in d.budgets if a in r.agents]
    if idx:
        ax.errorbar(
            xs,
            r.rating[idx],
            yerr=[r.rating[idx] - r.low[idx], r.high[idx] - r.rating[idx]],
            fmt="o-",
            capsize=4,
            color="#4c72b0",
            label=d.budgets[0][0].split(":")[0] if d.budgets else "search",
        )
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [f"{b:g}" for b in xs])
        ax.minorticks_off()
    searched = {a for a, _ in d.budgets}
    colors = ["#c44e52", "#55a868", "#8172b2", "#ccb974", "#64b5cd", "#937860"]
    for k, a in enumerate(x for x in r.agents if x not in searched):
        i = r.agents.index(a)
        c = colors[k % len(colors)]
        ax.axhline(r.rating[i], color=c, lw=1, ls="--", label=a)
        ax.axhspan(r.low[i], r.high[i], color=c, alpha=0.08)
    unit = "simulations per decision" if d.budget_unit == "simulations" else "ms per decision"
    ax.set_xlabel(f"budget, {unit} (log2 scale)")
    ax.set_ylabel(f"rating, {d.ladder[0]} = 0 (95% interval)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _steps_plot(d: Depth, steps: pd.DataFrame, path: Path, title: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 0.4 * len(steps) + 1.6))
    y = np.arange(len(steps))
    s = steps["share"].to_numpy()
    ax.errorbar(
        s,
        y,
        xerr=[s - steps["ci_low"].to_numpy(), steps["ci_high"].to_numpy() - s],
        fmt="o",
        capsize=4,
        color="#4c72b0",
    )
    ax.axvline(d.threshold, color="#c44e52", ls="--", lw=1, label=f"{d.threshold:g}")
    ax.axvline(0.5, color="#888888", lw=1)
    ax.set_yticks(y, [f"{a} vs {b}" for a, b in zip(steps["agent"], steps["opponent"])])
    ax.set_xlim(0, 1)
    ax.set_xlabel("win share against the step below (Wilson 95% interval)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------- the report


def _ci(lo: float, hi: float, digits: int = 3) -> str:
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return "–"
    return f"{lo:.{digits}f} – {hi:.{digits}f}"


def _pair_rows(t: pd.DataFrame, threshold: float) -> list[list]:
    return [
        [
            f"`{r.agent}`",
            f"`{r.opponent}`",
            f"{r.share:.3f}",
            _ci(r.ci_low, r.ci_high),
            r.games,
            r.deals,
            "yes" if r.share >= threshold - 1e-12 else "no",
        ]
        for r in t.itertuples()
    ]


def chain_text(chain: list[str], t: pd.DataFrame) -> str:
    """The range of skill's list with each link's win share and its 95% interval (from the
    pairs table ``t``): "`a` < `b` (0.800, CI 0.750 – 0.840) < ..."."""
    if not chain:
        return "–"
    by = {(r.agent, r.opponent): r for r in t.itertuples()}
    out = [f"`{chain[0]}`"]
    for lo, hi in zip(chain, chain[1:]):
        r = by.get((hi, lo))
        out.append(f"`{hi}`" + (f" ({r.share:.3f}, CI {_ci(r.ci_low, r.ci_high)})" if r else ""))
    return " < ".join(out)


def place(r: Ratings, ladder: list[str], agent: str) -> str:
    """Where ``agent``'s rating falls on the ladder: "between `a` and `b`", "below `a`" ..."""
    x = r.rating[r.agents.index(agent)]
    steps = sorted((r.rating[r.agents.index(a)], a) for a in ladder if a in r.agents)
    below = [a for v, a in steps if v <= x]
    above = [a for v, a in steps if v > x]
    if not below:
        return f"below `{above[0]}`"
    if not above:
        return f"above `{below[-1]}`"
    return f"between `{below[-1]}` and `{above[0]}`"


def _beside_blocks(d: Depth, n: int, t: pd.DataFrame, r: Ratings | None) -> list:
    side = t[t["kind"] == "beside"]
    if side.empty:
        return []
    lines = [
        f"`{a}`: rating {r.rating[r.agents.index(a)]:.0f} "
        f"({_ci(r.low[r.agents.index(a)], r.high[r.agents.index(a)], 0)}), "
        f"{place(r, list(d.ladder), a)} on the ladder"
        for a in d.beside
        if r is not None and a in r.agents
    ]
    return [
        (2, f"{n} players: beside the ladder"),
        Table(
            ["agent", "vs", "win share", "95% CI", "games", "deals", f">= {d.threshold:g}"],
            _pair_rows(side, d.threshold),
            "Each agent beside the ladder against every step (win share and Wilson interval "
            "as above)",
        ),
        "  \n".join(lines),
    ]


def make_depth_report(
    d: Depth, out_dir: str | Path | None = None, *, bootstrap: int = BOOTSTRAP
) -> dict[str, Path]:
    """Write report.md, report.html, pairs.csv and the PNGs into ``out_dir`` (default
    OUT/report)."""
    from experiments.run import store

    out = Path(out_dir) if out_dir else d.output / "report"
    out.mkdir(parents=True, exist_ok=True)
    tables = depth_tables(d, bootstrap=bootstrap)
    m_path = d.output / "tournament.json"
    m = json.loads(m_path.read_text()) if m_path.exists() else {}
    images: dict[str, Path] = {}

    def image(name: str, alt: str) -> Image:
        images[name] = out / name
        return Image(name, alt)

    total = sum(games_done(x) for x in d.lineups)
    wanted = sum(x.config.games for x in d.lineups)
    opts = ", ".join(f"{k} = {v}" for k, v in d.options.items()) or "none"
    pairs = (
        "each step against the step directly below it"
        if d.pairs in ("adjacent", 1)
        else "every pair of ladder steps"
        if d.pairs == "all"
        else f"each step against the {d.pairs} steps below it (fewer near the bottom)"
    )
    blocks: list = [
        (1, f"Skill depth {d.name}: {d.game}"),
        d.description or f"Skill depth `{d.name}`.",
        f"**Ladder** (increasing skill): {', '.join(d.ladder)}  \n"
        + (f"**Beside** (against every step): {', '.join(d.beside)}  \n" if d.beside else "")
        + f"**Pairs:** {pairs}; {len(d.lineups)} lineups, each on {d.deals:,} deals in all its "
        "seat rotations with the deal's seed (the same deals in every lineup)"
        + (
            "; for 3+ players each pair plays one seat against the rest in both roles"
            if any(n > 2 for n in d.players)
            else ""
        )
        + f"  \n**Players:** {', '.join(map(str, d.players))}  \n"
        f"**Games:** {total:,} of {wanted:,}"
        + ("" if total >= wanted else " (not complete; run it again)")
        + f"  \n**Options:** {opts}  \n**Master seed:** {d.seed}",
    ]
    blocks += code_lines(m)
    csv = []
    for n, tab in tables.items():
        t: pd.DataFrame = tab["pairs"]
        csv.append(t)
        r: Ratings | None = tab["ratings"]
        ladder = t[t["kind"] != "beside"]
        steps = ladder[ladder["kind"] == "step"]
        chain = tab["chain"]
        blocks += [
            (2, f"{n} players: the ladder"),
            Table(
                ["agent", "vs", "win share", "95% CI", "games", "deals", f">= {d.threshold:g}"],
                _pair_rows(ladder, d.threshold),
                "Win share of the agent against the one below it: per game, the share of "
                "(agent seat, opponent seat) pairs the agent's seat ranked above (ties 1/2), "
                "averaged over the games; interval: Wilson score 95% over the games",
            ),
            f"**Range of skill** (the longest list of ladder agents, each beating the one "
            f"before it with a win share of at least {d.threshold:g}"
            + (
                ", over consecutive steps: only adjacent steps were played"
                if d.pairs in ("adjacent", 1)
                else f", skipping at most {d.pairs - 1} steps: each step played the "
                f"{d.pairs} below it"
                if isinstance(d.pairs, int)
                else ""
            )
            + f"): **{len(chain)}**: {chain_text(chain, ladder)}",
        ]
        if len(steps):
            name = f"steps_{n}p.png"
            _steps_plot(
                d, steps, out / name, f"{d.game}, {n} players: each step against the one below"
            )
            blocks.append(image(name, f"win share per step, {n} players"))
        blocks += [
            (2, f"{n} players: how much the deal decides"),
            Table(
                [
                    "agent",
                    "vs",
                    "deals",
                    "games / deal",
                    "deal share",
                    "per-deal spread",
                    "win share",
                ],
                [
                    [
                        f"`{r_.agent}`",
                        f"`{r_.opponent}`",
                        r_.deals,
                        f"{r_.games / max(1, r_.deals):.3g}",
                        "–" if math.isnan(r_.deal_share) else f"{r_.deal_share:.3f}",
                        "–" if math.isnan(r_.spread) else f"{r_.spread:.3f}",
                        f"{r_.share:.3f}",
                    ]
                    for r_ in t.itertuples()
                ],
                "Deal share: the share of the variance of the agent's per-game win share that "
                "lies between deals (one-way ANOVA over deals, ICC(1)); per-deal spread: the "
                "standard deviation over deals of the agent's per-deal win share",
            ),
        ]
        blocks += _beside_blocks(d, n, t, r)
        if r is None:
            blocks += [
                (2, f"{n} players: rating against budget"),
                f"No ratings yet: no games link two agents to `{d.ladder[0]}` (run the same "
                "command to continue).",
            ]
            continue
        unrated = [a for a in d.pool if a not in r.agents]
        rows = []
        times = tab["times"]
        budget = dict(d.budgets)
        for i, a in enumerate(r.agents):  # the ladder in its order, then the agents beside it
            b = budget.get(a)
            rows.append(
                [
                    f"`{a}`",
                    "–" if b is None else f"{b:g}",
                    f"{r.rating[i]:.0f}",
                    "anchor" if a == r.anchor else _ci(r.low[i], r.high[i], 0),
                    f"{times.loc[a, 'ms_per_decision']:.3g}" if a in times.index else "–",
                ]
            )
        name = f"rating_budget_{n}p.png"
        _budget_plot(d, r, out / name, f"{d.game}, {n} players: rating against budget")
        unit = "simulations" if d.budget_unit == "simulations" else "ms"
        blocks += [
            (2, f"{n} players: rating against budget"),
            Table(
                ["agent", f"budget ({unit})", "rating", "95% CI", "ms / decision"],
                rows,
                f"Bradley-Terry ratings of every comparison played, {r.anchor} = 0, 95% "
                f"bootstrap intervals over {r.deals:,} deals; ms / decision: mean CPU time "
                "per decision"
                + (
                    f"; not rated yet (no games link them to {r.anchor}): {', '.join(unrated)}"
                    if unrated
                    else ""
                ),
            ),
            image(name, f"rating against budget, {n} players"),
        ]
    blocks += [
        (2, "About this report"),
        f"Made by `dynasty depth` from {d.output} (`--report-only` writes it again from the "
        "games played); `pairs.csv` holds the tables' numbers. The range of skill follows "
        "Zinkevich, Bowling and Burch (2007); the deal share is the intraclass correlation "
        "of a one-way ANOVA over deals, the per-deal spread the spread of per-deal win rates "
        "that Goodman, Perez-Liebana and Lucas (2023) use; docs/studies.md gives the formulas. "
        "Each lineup folder under lineups/ is an ordinary results folder with its own "
        "`dynasty report`.",
    ]
    store.atomic_write(out / "pairs.csv", pd.concat(csv).to_csv(index=False).encode())
    md_path, html_path = out / "report.md", out / "report.html"
    store.atomic_write(md_path, markdown(blocks).encode())
    store.atomic_write(html_path, html_page(f"{d.name} skill depth report", blocks).encode())
    return {"markdown": md_path, "html": html_path, **images}
