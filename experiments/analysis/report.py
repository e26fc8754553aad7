"""``dynasty report``: a Markdown and an HTML win-rate report, with PNG plots, from a results
folder.

Every rate comes with its sample size and a Wilson 95% interval (``scipy.stats.binomtest``);
seat fairness is tested with a chi-square goodness-of-fit test of wins per seat against equal
shares.  Win shares of tied games are fractional; intervals use the rounded total of shares.
Game-specific sections come from data the game declares (``GameSpec.report_groups``), so this
module names no game.  Every number is a streamed aggregate (:mod:`experiments.analysis.results`):
the report's memory does not grow with the number of games.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from experiments.analysis.render import Image, Table, html_page, markdown, pyplot
from experiments.analysis.results import CONFIDENCE, SUMMARY_COLUMNS, Results, wilson
from experiments.run import store
from experiments.run.schema import FEATURE_PREFIX, OPTION_PREFIX

ALPHA = 0.05


# --------------------------------------------------------------------------- statistics


def seat_fairness(seat_rates: pd.DataFrame, players: int) -> dict[str, float]:
    """Chi-square test that every seat wins an equal share of the games
    (from the per-seat rates)."""
    from scipy.stats import chisquare

    obs = seat_rates.set_index("seat")["wins"].reindex(range(players), fill_value=0.0).to_numpy()
    res = chisquare(obs)
    return {
        "chi2": float(res.statistic),
        "df": players - 1,
        "p": float(res.pvalue),
        "games": float(obs.sum()),
    }


# --------------------------------------------------------------------------- plots


def _rate_plot(
    t: pd.DataFrame,
    label: str,
    path: Path,
    title: str,
    fair: float | None,
    xlabel: str | None = None,
) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    x = np.arange(len(t))
    err = np.vstack([t["win_rate"] - t["ci_low"], t["ci_high"] - t["win_rate"]])
    ax.bar(x, t["win_rate"], yerr=err, capsize=4, color="#4c72b0")
    names = [str(v) for v in t[label]]
    crowded = sum(len(n) for n in names) > 40
    ax.set_xticks(x, names, rotation=30 if crowded else 0, ha="right" if crowded else "center")
    if fair is not None:
        ax.axhline(fair, color="#c44e52", ls="--", lw=1, label=f"equal share 1/{round(1 / fair)}")
        ax.legend(loc="best", fontsize=8)
    ax.set_xlabel(xlabel or label)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _grouped_rate_plot(t: pd.DataFrame, path: Path, title: str, fair: float) -> None:
    """Win rate of each agent (bars) from each seat (groups), with intervals."""
    plt = pyplot()
    agents = list(dict.fromkeys(t["agent"].tolist()))
    seats = sorted(set(t["seat"].tolist()))
    width = 0.8 / len(agents)
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for j, a in enumerate(agents):
        ta = t[t["agent"] == a].set_index("seat").reindex(seats)
        x = np.arange(len(seats)) + (j - (len(agents) - 1) / 2) * width
        err = np.vstack([ta["win_rate"] - ta["ci_low"], ta["ci_high"] - ta["win_rate"]])
        ax.bar(x, ta["win_rate"], width, yerr=err, capsize=3, label=str(a))
    ax.axhline(fair, color="#444", ls="--", lw=1, label=f"equal share 1/{round(1 / fair)}")
    ax.set_xticks(np.arange(len(seats)), [str(s) for s in seats])
    ax.set_xlabel("seat")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


STREAMED = "streamed histogram of all {n:,} {unit}"


def _box_plot(
    stats: list[dict[str, Any]], by: str, value: str, path: Path, title: str, n: int
) -> None:
    """Box plots from streamed statistics: quartiles, mean (triangle), whiskers at 1.5 IQR."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bxp(stats, showmeans=True, showfliers=False)
    ax.set_xlabel(by)
    ax.set_ylabel(value)
    ax.set_title(title, fontsize=10)
    ax.annotate(
        f"{STREAMED.format(n=n, unit='rows')}; whiskers at 1.5 IQR, outliers not drawn",
        (0.01, 0.01),
        xycoords="figure fraction",
        fontsize=7,
        color="#555",
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _hist_plot(hist: pd.DataFrame, path: Path, title: str, xlabel: str, binned: bool) -> None:
    """A histogram from streamed counts (``value``, ``count``): one bar per value, or 60 bins."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    values, counts = hist["value"].to_numpy(np.float64), hist["count"].to_numpy()
    lo, hi = values.min(), values.max()
    exact = not binned and hi - lo <= 80 and np.all(values == np.round(values))
    bins = np.arange(int(lo), int(hi) + 2) - 0.5 if exact else 60
    ax.hist(values, bins=bins, weights=counts, color="#55a868")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("games")
    ax.set_title(title, fontsize=10)
    note = STREAMED.format(n=int(counts.sum()), unit="games") + (
        " (60 equal-width bins)" if binned else ""
    )
    ax.annotate(note, (0.01, 0.01), xycoords="figure fraction", fontsize=7, color="#555")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------- report


def _rate_rows(t: pd.DataFrame, key: str) -> list[list[Any]]:
    return [
        [k, int(n), w, r, f"{lo:.4f} – {hi:.4f}", s, rk]
        for k, n, w, r, lo, hi, s, rk in zip(
            t[key].tolist(),
            t["n"],
            t["wins"],
            t["win_rate"],
            t["ci_low"],
            t["ci_high"],
            t["mean_score"],
            t["mean_rank"],
        )
    ]


RATE_COLUMNS = ["n", "wins", "win rate", "95% CI (Wilson)", "mean score", "mean rank"]


def _summary_rows(t: pd.DataFrame, key: str | None) -> list[list[Any]]:
    return [([r[key]] if key else []) + [r[c] for c in SUMMARY_COLUMNS] for _, r in t.iterrows()]


def make_report(results: str | Path, out_dir: str | Path | None = None) -> dict[str, Path]:
    """Write ``report.md``, ``report.html`` and the PNGs into ``out_dir``
    (default RESULTS/report)."""
    results = store.location(results)
    manifest = store.read_manifest(results)
    if manifest is None:
        raise store.ResultsError(
            f"{results}: no manifest.json here; is it the output folder of `dynasty run`?"
        )
    out = store.location(out_dir) if out_dir else results / "report"
    if isinstance(out, store.FsPath):  # written locally, then copied next to the results
        import tempfile

        with tempfile.TemporaryDirectory(prefix="dynasty-report-") as tmp:
            local = make_report(results, tmp)
            for path in local.values():
                store.atomic_write(out / path.name, path.read_bytes())
            return {name: out / path.name for name, path in local.items()}
    out.mkdir(parents=True, exist_ok=True)
    cfg = manifest["config"]
    players = int(cfg["players"])
    groups = ()
    can_all_lose = False
    title = cfg["game"]
    spec = None
    try:
        from sim.registry import get_game

        spec = get_game(cfg["game"])
        groups = tuple(getattr(spec, "report_groups", ()) or ())
        can_all_lose = bool(getattr(spec, "can_all_lose", False))
        title = spec.title
    except Exception:  # a report of results from a game not installed here: generic sections only
        pass

    with Results(results) as res:
        return _write_report(
            res, results, manifest, out, cfg, players, groups, can_all_lose, title, spec
        )


def _component_lines(spec, cfg: dict, manifest: dict) -> tuple[str, str | None]:
    """The header's component data line (the digest the games were played with, the config's
    changed values, each marked where the data file's value is reconstructed) and the note
    explaining the mark (None when nothing is marked)."""
    from sim.components import mark, reconstructed_note

    changed = cfg.get("components") or {}
    digest = manifest.get("component_data")
    if digest is None and not changed:
        return "", None
    marks = {p: mark(spec, p) if spec is not None else "" for p in changed}
    line = f"  \n**Component data:** digest {digest or 'not recorded'}" + (
        "; changed: " + ", ".join(f"{p} = {v}{marks[p]}" for p, v in changed.items())
        if changed
        else ""
    )
    now = spec.components.digest if spec is not None and spec.components is not None else None
    if digest and now and now != digest:
        line += f" (the data files now give {now}; the marks follow them as they are now)"
    return line, (f"**Note:** {reconstructed_note(spec)}." if any(marks.values()) else None)


def _write_report(
    res: Results,
    results: Path,
    manifest: dict,
    out: Path,
    cfg: dict,
    players: int,
    groups,
    can_all_lose: bool,
    title: str,
    spec=None,
) -> dict[str, Path]:
    option_cols = [c for c in res.columns if c.startswith(OPTION_PREFIX)]
    feats = [c for c in res.columns if c.startswith(FEATURE_PREFIX)]
    n_games = res.games
    fair = 1.0 / players
    blocks: list = []
    images: dict[str, Path] = {}

    def image(name: str, alt: str) -> Image:
        images[name] = out / name
        return Image(name, alt)

    # ---- header
    agents_line = ", ".join(f"seat {p}: {cfg['agents'][a]}" for p, a in enumerate(cfg["lineup"]))
    seats_line = (
        f"rotated — the lineup ({agents_line}) is rotated through the seats, "
        "and every rotation of a deal is played with the deal's seed (mirrored "
        "games), so the luck of the deal cancels out of agent comparisons"
        if cfg["seats"] == "rotate"
        else f"fixed — {agents_line} in every game"
    )
    opts = ", ".join(f"{k} = {v}" for k, v in cfg["options"].items()) or "none"
    components, marked_note = _component_lines(spec, cfg, manifest)
    blocks += [
        (1, f"{cfg['name']}: {title}, {players} players"),
        f"{cfg.get('description') or ''}".strip() or f"Experiment `{cfg['name']}`.",
        f"**Games:** {n_games:,} of {cfg['games']:,} requested"
        + ("" if manifest.get("complete") else " (the run is not complete; run it again to finish)")
        + f"  \n**Seats:** {seats_line}  \n**Options:** {opts}  \n"
        f"**Master seed:** {cfg['seed']}  \n"
        f"**Code:** commit {manifest.get('git', {}).get('commit') or 'unknown'}"
        + (" (with local changes)" if manifest.get("git", {}).get("dirty") else "")
        + components,
    ]
    if marked_note:
        blocks.append(marked_note)
    commits = sorted(
        {
            x["git"]["commit"]
            for x in manifest.get("sessions", [])
            if x.get("games_played") and x.get("git", {}).get("commit")
        }
    )
    if len(commits) > 1:
        blocks.append(
            f"**Note:** the games were played in sessions at {len(commits)} different commits "
            f"({', '.join(c[:10] for c in commits)}); if the rules or agents changed in between, "
            "the results mix versions."
        )

    # ---- seats
    seat_t = res.rates("seat")
    fairness = seat_fairness(seat_t, players)
    verdict = (
        "no evidence that any seat is favoured"
        if fairness["p"] >= ALPHA
        else "the seats do not win equally often"
    )
    caveat = (
        ""
        if cfg["seats"] == "rotate" or len(set(cfg["lineup"])) == 1
        else " With fixed seats and different agents, seat and agent effects are confounded."
    )
    _rate_plot(
        seat_t, "seat", out / "win_rate_by_seat.png", f"Win rate by seat ({n_games:,} games)", fair
    )
    blocks += [
        (2, "Win rate by seat"),
        Table(
            ["seat"] + RATE_COLUMNS,
            _rate_rows(seat_t, "seat"),
            f"n = games played from each seat; {n_games:,} games",
        ),
        "Seat fairness (chi-square test of wins per seat against equal shares "
        f"of {fair:.4f}): chi2 = {fairness['chi2']:.2f}, df = {fairness['df']}, "
        f"p = {fairness['p']:.4g} — {verdict} at the {ALPHA:.0%} level.{caveat}",
        image("win_rate_by_seat.png", "win rate by seat"),
    ]
    if can_all_lose:
        # e.g. Eternal Dynasty, 2 players: the Eternal Emperor wins and both seats lose
        # every game's win shares add up to 1, or to 0 when no seat won
        lost = n_games - int(round(float(seat_t["wins"].sum())))
        lo, hi = wilson(lost, n_games)
        blocks.append(
            "Games no seat won (in this game every seat can lose, e.g. to Eternal Dynasty's "
            f"Eternal Emperor): {lost:,} of {n_games:,} = {lost / n_games:.3f} (95% Wilson "
            f"interval {lo:.3f}–{hi:.3f}); this is 1 minus the sum of the seats' win rates, "
            "and the seat fairness test above compares the seats over the games a seat won."
        )

    # ---- agents
    agent_t = res.rates("agent")
    _rate_plot(
        agent_t,
        "agent",
        out / "win_rate_by_agent.png",
        f"Win rate by agent ({n_games:,} games)",
        fair,
    )
    blocks += [
        (2, "Win rate by agent"),
        Table(
            ["agent"] + RATE_COLUMNS,
            _rate_rows(agent_t, "agent"),
            f"n = seats played by the agent (an agent in two seats of a game counts twice); "
            f"{n_games:,} games; equal share is {fair:.4f}",
        ),
        image("win_rate_by_agent.png", "win rate by agent"),
    ]
    if len(agent_t) > 1:
        both = res.rates(["agent", "seat"])
        _grouped_rate_plot(
            both,
            out / "win_rate_by_agent_and_seat.png",
            f"Win rate by agent and seat ({n_games:,} games)",
            fair,
        )
        blocks += [
            Table(
                ["agent", "seat"] + RATE_COLUMNS,
                [[a] + row for a, row in zip(both["agent"].tolist(), _rate_rows(both, "seat"))],
                "win rate of each agent from each seat; n = games",
            ),
            image("win_rate_by_agent_and_seat.png", "win rate by agent and seat"),
        ]

    # ---- scores
    rows = n_games * players
    _box_plot(
        res.box_stats("score", "seat"),
        "seat",
        "score",
        out / "scores_by_seat.png",
        "Final score by seat",
        rows,
    )
    _box_plot(
        res.box_stats("score", "agent"),
        "agent",
        "score",
        out / "scores_by_agent.png",
        "Final score by agent",
        rows,
    )
    by_seat, by_agent = res.summary("score", "seat"), res.summary("score", "agent")
    approx = " (quantiles approximate: t-digest)" if by_seat["approximate"].any() else ""
    blocks += [
        (2, "Scores"),
        Table(
            ["seat"] + SUMMARY_COLUMNS,
            _summary_rows(by_seat, "seat"),
            f"final score by seat; n = games{approx}",
        ),
        image("scores_by_seat.png", "score distribution by seat"),
        Table(
            ["agent"] + SUMMARY_COLUMNS,
            _summary_rows(by_agent, "agent"),
            f"final score by agent; n = seats played{approx}",
        ),
        image("scores_by_agent.png", "score distribution by agent"),
    ]

    # ---- length
    lengths, binned = res.distribution("length", where="seat = 0")
    _hist_plot(
        lengths,
        out / "game_length.png",
        f"Game length ({n_games:,} games)",
        "decisions per game",
        binned,
    )
    length_t = res.summary("length", where="seat = 0")
    blocks += [
        (2, "Game length"),
        Table(
            ["measure"] + SUMMARY_COLUMNS,
            [["decisions per game"] + _summary_rows(length_t, None)[0]],
            f"n = games ({n_games:,})" + (" (quantiles approximate: t-digest)" if binned else ""),
        ),
        image("game_length.png", "game length"),
    ]

    # ---- the score trace: lead changes and when the winner is decided (agents/trace.py)
    # runs with score_trace (NULL in parts written before it existed)
    traced = "seat = 0 AND trace_points > 0"
    n_traced = (
        int(res.con.execute(f"SELECT count(*) FROM results WHERE {traced}").fetchone()[0])
        if "trace_points" in res.columns
        else 0
    )
    if n_traced:
        changes, _ = res.distribution("lead_changes", where=traced)
        _hist_plot(
            changes,
            out / "lead_changes.png",
            f"Lead changes per game ({n_traced:,} games)",
            "changes of the provisional leader",
            False,
        )
        changes_t = res.summary("lead_changes", where=traced)
        first, final, none, share = res.con.execute(
            "SELECT avg(CASE WHEN decided_at = 1 THEN 1.0 ELSE 0.0 END), "
            "avg(CASE WHEN decided_at = trace_points THEN 1.0 ELSE 0.0 END), "
            "avg(CASE WHEN decided_at < 0 THEN 1.0 ELSE 0.0 END), "
            "avg(CASE WHEN decided_at > 0 AND trace_points > 1 "
            "THEN (decided_at - 1.0) / (trace_points - 1) END) "
            f"FROM results WHERE {traced}"
        ).fetchone()
        blocks += [
            (2, "Lead changes and when the winner is decided"),
            Table(
                ["measure"] + SUMMARY_COLUMNS,
                [["lead changes per game"] + _summary_rows(changes_t, None)[0]],
                f"n = games ({n_traced:,}); the provisional score leader at every "
                "round's end and the final result (docs/results-format.md, score trace)",
            ),
            Table(
                ["games where the eventual winner ...", "share"],
                [
                    ["led alone from the first round's end", first],
                    ["took the lead for good only in the final scoring", final],
                    ["(no sole winner: shared or no seat won)", none],
                    [
                        "mean share of the game before the winner "
                        "led for good (0 early, 1 at the end)",
                        share,
                    ],
                ],
                f"n = games ({n_traced:,})",
            ),
            image("lead_changes.png", "lead changes per game"),
        ]

    # ---- game-declared breakdowns: win rate by whether a feature is held at the end
    for gi, (gtitle, names) in enumerate(groups):
        cols = [FEATURE_PREFIX + n for n in names if FEATURE_PREFIX + n in feats]
        if not cols:
            continue
        split = res.feature_split(cols)
        rows_t, plot_rows = [], []
        for f, nh, wh, nn, wn in zip(
            split["feature"], split["n_held"], split["wins_held"], split["n_not"], split["wins_not"]
        ):
            r = []
            for n, w in ((int(nh), float(wh)), (int(nn), float(wn))):
                lo, hi = wilson(w, n)
                r += [n, w / n if n else math.nan, f"{lo:.4f} – {hi:.4f}" if n else "–"]
            rows_t.append([f[len(FEATURE_PREFIX) :]] + r)
            lo, hi = wilson(float(wh), int(nh))
            plot_rows.append(
                {"feature": f[len(FEATURE_PREFIX) :], "win_rate": r[1], "ci_low": lo, "ci_high": hi}
            )
        name = f"win_rate_by_group_{gi}.png"
        _rate_plot(
            pd.DataFrame(plot_rows).fillna(0.0),
            "feature",
            out / name,
            f"Win rate of seats holding each item: {gtitle.lower()}",
            fair,
            xlabel=gtitle,
        )
        blocks += [
            (2, f"Win rate by {gtitle.lower()}"),
            Table(
                [
                    gtitle,
                    "n held",
                    "win rate held",
                    "95% CI held",
                    "n not held",
                    "win rate not held",
                    "95% CI not held",
                ],
                rows_t,
                "n = seats whose final state has (or lacks) the item; one seat may hold several",
            ),
            image(name, f"win rate by {gtitle.lower()}"),
        ]

    # ---- what winners have
    if feats:
        means = res.feature_means(feats)
        n_win = int(res.con.execute("SELECT count(*) FROM results WHERE win > 0").fetchone()[0])
        blocks += [
            (2, "Features of winners"),
            Table(
                ["feature", "mean (winners)", "mean (others)", "mean (all)"],
                [
                    [f[len(FEATURE_PREFIX) :], a, b, c]
                    for f, a, b, c in zip(
                        means["feature"], means["winners"], means["others"], means["all"]
                    )
                ],
                f"final-state features per seat; n = {n_win:,} winning seats, "
                f"{rows - n_win:,} others",
            ),
        ]

    # ---- games to watch: viewer pages of the sample replays and of notable games
    # (experiments/view/viewer.py)
    from experiments.view.viewer import report_blocks

    blocks += report_blocks(res, results, manifest, out)

    blocks += [
        (2, "About this report"),
        f"Made by `dynasty report` from {results}. Win rates are win shares (1/k for each of k "
        f"tied winners); intervals are Wilson {CONFIDENCE:.0%} intervals of the rounded total "
        "of shares over n. The intervals treat the rows of a group as independent samples. "
        "That holds for a seat's rows (one per game, games independent) up to the mirrored "
        "rotations of a deal, which share the deal's seed; an agent that sits in several "
        "seats of a game contributes dependent rows (one seat's win is another's loss). Every "
        "figure is a streamed aggregate over all rows (DuckDB over the Parquet parts): score "
        "and length distributions are exact histograms, not samples. Option columns: "
        + ", ".join(option_cols)
        + ".",
    ]

    md_path, html_path = out / "report.md", out / "report.html"
    store.atomic_write(md_path, markdown(blocks).encode())
    store.atomic_write(html_path, html_page(f"{cfg['name']} report", blocks).encode())
    return {"markdown": md_path, "html": html_path, **images}
