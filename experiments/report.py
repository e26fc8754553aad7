"""``dynasty report``: a Markdown and an HTML win-rate report, with PNG plots, from a results folder.

Every rate comes with its sample size and a Wilson 95% interval (``scipy.stats.binomtest``);
seat fairness is tested with a chi-square goodness-of-fit test of wins per seat against equal
shares.  Win shares of tied games are fractional; intervals use the rounded total of shares.
Game-specific sections come from data the game declares (``GameSpec.report_groups``), so this
module names no game.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from experiments import store
from experiments.schema import FEATURE_PREFIX, OPTION_PREFIX

CONFIDENCE = 0.95
ALPHA = 0.05


# --------------------------------------------------------------------------- statistics


def wilson(wins: float, n: int) -> tuple[float, float]:
    """Wilson 95% interval of a win rate from ``wins`` (shares, rounded) out of ``n``."""
    from scipy.stats import binomtest

    if n == 0:
        return (math.nan, math.nan)
    k = int(min(n, max(0, round(wins))))
    ci = binomtest(k, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return float(ci.low), float(ci.high)


def rate_table(df: pd.DataFrame, by: str | list[str]) -> pd.DataFrame:
    """Win rate, its interval and the mean score per group, with sample sizes."""
    g = df.groupby(by, observed=True, sort=True)
    t = pd.DataFrame({"n": g.size(), "wins": g["win"].sum(), "mean_score": g["score"].mean(),
                      "mean_rank": g["rank"].mean()})
    t["win_rate"] = t["wins"] / t["n"]
    ci = [wilson(w, n) for w, n in zip(t["wins"], t["n"])]
    t["ci_low"] = [c[0] for c in ci]
    t["ci_high"] = [c[1] for c in ci]
    return t.reset_index()


def seat_fairness(df: pd.DataFrame, players: int) -> dict[str, float]:
    """Chi-square test that every seat wins an equal share of the games."""
    from scipy.stats import chisquare

    obs = df.groupby("seat")["win"].sum().reindex(range(players), fill_value=0.0).to_numpy()
    res = chisquare(obs)
    return {"chi2": float(res.statistic), "df": players - 1, "p": float(res.pvalue), "games": float(obs.sum())}


# --------------------------------------------------------------------------- document model


@dataclass
class Table:
    columns: list[str]
    rows: list[list[Any]]
    caption: str


@dataclass
class Image:
    file: str
    alt: str


def _fmt(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return "–"
        return f"{v:.4f}" if abs(v) < 10 else f"{v:.2f}"
    if isinstance(v, (np.integer,)):
        return str(int(v))
    return str(v)


def _md(blocks: list) -> str:
    out = []
    for b in blocks:
        if isinstance(b, tuple):
            level, text = b
            out.append("#" * level + " " + text)
        elif isinstance(b, str):
            out.append(b)
        elif isinstance(b, Table):
            out.append(f"*{b.caption}*\n")
            out.append("| " + " | ".join(b.columns) + " |")
            out.append("|" + "|".join("---" for _ in b.columns) + "|")
            out.extend("| " + " | ".join(_fmt(v) for v in r) + " |" for r in b.rows)
        elif isinstance(b, Image):
            out.append(f"![{b.alt}]({b.file})")
        out.append("")
    return "\n".join(out)


def _html(title: str, blocks: list) -> str:
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
           "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
           "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em;"
           "text-align:right}th{background:#f3f3f3}caption{text-align:left;font-style:italic}"
           "img{max-width:100%}</style></head><body>"]
    for b in blocks:
        if isinstance(b, tuple):
            level, text = b
            out.append(f"<h{level}>{html.escape(text)}</h{level}>")
        elif isinstance(b, str):
            text = html.escape(b)
            for marker, tag in (("**", "b"), ("`", "code")):
                parts = text.split(marker)
                text = "".join(p if i % 2 == 0 else f"<{tag}>{p}</{tag}>" for i, p in enumerate(parts))
            out.append(f"<p>{text.replace(chr(10), '<br>')}</p>")
        elif isinstance(b, Table):
            out.append(f"<table><caption>{html.escape(b.caption)}</caption><tr>"
                       + "".join(f"<th>{html.escape(c)}</th>" for c in b.columns) + "</tr>")
            out.extend("<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in r) + "</tr>" for r in b.rows)
            out.append("</table>")
        elif isinstance(b, Image):
            out.append(f"<p><img src='{html.escape(b.file)}' alt='{html.escape(b.alt)}'></p>")
    out.append("</body></html>")
    return "\n".join(out)


# --------------------------------------------------------------------------- plots


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _rate_plot(t: pd.DataFrame, label: str, path: Path, title: str, fair: float | None,
               xlabel: str | None = None) -> None:
    plt = _plt()
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
    plt = _plt()
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


def _box_plot(df: pd.DataFrame, by: str, value: str, path: Path, title: str) -> None:
    plt = _plt()
    groups = [(k, g[value].to_numpy()) for k, g in df.groupby(by, observed=True, sort=True)]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.boxplot([g for _, g in groups], showmeans=True)
    ax.set_xticks(np.arange(1, len(groups) + 1), [str(k) for k, _ in groups])
    ax.set_xlabel(by)
    ax.set_ylabel(value)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _hist_plot(values: np.ndarray, path: Path, title: str, xlabel: str) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    lo, hi = int(values.min()), int(values.max())
    bins = np.arange(lo, hi + 2) - 0.5 if hi - lo <= 80 else 60
    ax.hist(values, bins=bins, color="#55a868")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("games")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------- report


def _rate_rows(t: pd.DataFrame, key: str) -> list[list[Any]]:
    return [[k, int(n), w, r, f"{lo:.4f} – {hi:.4f}", s, rk] for k, n, w, r, lo, hi, s, rk in
            zip(t[key].tolist(), t["n"], t["wins"], t["win_rate"], t["ci_low"], t["ci_high"], t["mean_score"],
                t["mean_rank"])]


RATE_COLUMNS = ["n", "wins", "win rate", "95% CI (Wilson)", "mean score", "mean rank"]


def _summary(values: pd.Series) -> list[Any]:
    q = values.quantile([0.05, 0.5, 0.95]).to_numpy()
    return [len(values), values.mean(), values.std(ddof=1) if len(values) > 1 else math.nan, values.min(), q[0],
            q[1], q[2], values.max()]


SUMMARY_COLUMNS = ["n", "mean", "sd", "min", "5%", "median", "95%", "max"]


def load_results(results: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """The rows of a results folder as a DataFrame, sorted by (game_index, seat)."""
    df = store.open_dataset(results).to_table(columns=columns).to_pandas()
    return df.sort_values(["game_index", "seat"], kind="stable").reset_index(drop=True)


def make_report(results: str | Path, out_dir: str | Path | None = None) -> dict[str, Path]:
    """Write ``report.md``, ``report.html`` and the PNGs into ``out_dir`` (default RESULTS/report)."""
    results = Path(results)
    manifest = store.read_manifest(results)
    if manifest is None:
        raise store.ResultsError(f"{results}: no manifest.json here; is it the output folder of `dynasty run`?")
    out = Path(out_dir) if out_dir else results / "report"
    out.mkdir(parents=True, exist_ok=True)
    cfg = manifest["config"]
    players = int(cfg["players"])
    groups = ()
    can_all_lose = False
    title = cfg["game"]
    try:
        from sim.registry import get_game

        spec = get_game(cfg["game"])
        groups = tuple(getattr(spec, "report_groups", ()) or ())
        can_all_lose = bool(getattr(spec, "can_all_lose", False))
        title = spec.title
    except Exception:  # a report of results from a game not installed here: generic sections only
        pass

    names = store.open_dataset(results).schema.names
    option_cols = [c for c in names if c.startswith(OPTION_PREFIX)]
    df = load_results(results, [c for c in names if c not in option_cols])  # options are constant per run
    if df.empty:
        raise store.ResultsError(f"{results}: the results hold no games yet")
    n_games = df["game_index"].nunique()
    feats = [c for c in df.columns if c.startswith(FEATURE_PREFIX)]
    fair = 1.0 / players
    blocks: list = []
    images: dict[str, Path] = {}

    def image(name: str, alt: str) -> Image:
        images[name] = out / name
        return Image(name, alt)

    # ---- header
    agents_line = ", ".join(f"seat {p}: {cfg['agents'][a]}" for p, a in enumerate(cfg["lineup"]))
    seats_line = (
        f"rotated — the lineup ({agents_line}) is rotated through the seats, and every rotation of a deal is "
        "played with the deal's seed (mirrored games), so the luck of the deal cancels out of agent comparisons"
        if cfg["seats"] == "rotate" else f"fixed — {agents_line} in every game"
    )
    opts = ", ".join(f"{k} = {v}" for k, v in cfg["options"].items()) or "none"
    blocks += [(1, f"{cfg['name']}: {title}, {players} players"),
               f"{cfg.get('description') or ''}".strip() or f"Experiment `{cfg['name']}`.",
               f"**Games:** {n_games:,} of {cfg['games']:,} requested"
               + ("" if manifest.get("complete") else " (the run is not complete; run it again to finish)")
               + f"  \n**Seats:** {seats_line}  \n**Options:** {opts}  \n**Master seed:** {cfg['seed']}  \n"
               f"**Code:** commit {manifest.get('git', {}).get('commit') or 'unknown'}"
               + (" (with local changes)" if manifest.get("git", {}).get("dirty") else "")]
    commits = sorted({x["git"]["commit"] for x in manifest.get("sessions", [])
                      if x.get("games_played") and x.get("git", {}).get("commit")})
    if len(commits) > 1:
        blocks.append(f"**Note:** the games were played in sessions at {len(commits)} different commits "
                      f"({', '.join(c[:10] for c in commits)}); if the rules or agents changed in between, "
                      "the results mix versions.")

    # ---- seats
    seat_t = rate_table(df, "seat")
    fairness = seat_fairness(df, players)
    verdict = ("no evidence that any seat is favoured" if fairness["p"] >= ALPHA
               else "the seats do not win equally often")
    caveat = ("" if cfg["seats"] == "rotate" or len(set(cfg["lineup"])) == 1 else
              " With fixed seats and different agents, seat and agent effects are confounded.")
    _rate_plot(seat_t, "seat", out / "win_rate_by_seat.png", f"Win rate by seat ({n_games:,} games)", fair)
    blocks += [(2, "Win rate by seat"),
               Table(["seat"] + RATE_COLUMNS, _rate_rows(seat_t, "seat"),
                     f"n = games played from each seat; {n_games:,} games"),
               f"Seat fairness (chi-square test of wins per seat against equal shares of {fair:.4f}): "
               f"chi2 = {fairness['chi2']:.2f}, df = {fairness['df']}, p = {fairness['p']:.4g} — {verdict} "
               f"at the {ALPHA:.0%} level.{caveat}",
               image("win_rate_by_seat.png", "win rate by seat")]
    if can_all_lose:  # e.g. Eternal Dynasty, 2 players: the Eternal Emperor wins and both seats lose
        lost = int((df.groupby("game_index")["win"].sum() < 0.5).sum())
        lo, hi = wilson(lost, n_games)
        blocks.append(f"Games no seat won (in this game every seat can lose, e.g. to Eternal Dynasty's Eternal "
                      f"Emperor): {lost:,} of {n_games:,} = {lost / n_games:.3f} (95% Wilson interval "
                      f"{lo:.3f}–{hi:.3f}); this is 1 minus the sum of the seats' win rates, and the seat "
                      "fairness test above compares the seats over the games a seat won.")

    # ---- agents
    agent_t = rate_table(df, "agent")
    _rate_plot(agent_t, "agent", out / "win_rate_by_agent.png", f"Win rate by agent ({n_games:,} games)", fair)
    blocks += [(2, "Win rate by agent"),
               Table(["agent"] + RATE_COLUMNS, _rate_rows(agent_t, "agent"),
                     f"n = seats played by the agent (an agent in two seats of a game counts twice); "
                     f"{n_games:,} games; equal share is {fair:.4f}"),
               image("win_rate_by_agent.png", "win rate by agent")]
    if df["agent"].nunique() > 1:
        both = rate_table(df, ["agent", "seat"])
        _grouped_rate_plot(both, out / "win_rate_by_agent_and_seat.png",
                           f"Win rate by agent and seat ({n_games:,} games)", fair)
        blocks += [Table(["agent", "seat"] + RATE_COLUMNS,
                         [[a] + row for a, row in zip(both["agent"].tolist(), _rate_rows(both, "seat"))],
                         "win rate of each agent from each seat; n = games"),
                   image("win_rate_by_agent_and_seat.png", "win rate by agent and seat")]

    # ---- scores
    _box_plot(df, "seat", "score", out / "scores_by_seat.png", "Final score by seat")
    _box_plot(df, "agent", "score", out / "scores_by_agent.png", "Final score by agent")
    blocks += [(2, "Scores"),
               Table(["seat"] + SUMMARY_COLUMNS, [[k] + _summary(g["score"]) for k, g in df.groupby("seat")],
                     "final score by seat; n = games"),
               image("scores_by_seat.png", "score distribution by seat"),
               Table(["agent"] + SUMMARY_COLUMNS,
                     [[k] + _summary(g["score"]) for k, g in df.groupby("agent", observed=True)],
                     "final score by agent; n = seats played"),
               image("scores_by_agent.png", "score distribution by agent")]

    # ---- length
    per_game = df[df["seat"] == 0]
    _hist_plot(per_game["length"].to_numpy(), out / "game_length.png", f"Game length ({n_games:,} games)",
               "decisions per game")
    blocks += [(2, "Game length"),
               Table(["measure"] + SUMMARY_COLUMNS, [["decisions per game"] + _summary(per_game["length"])],
                     f"n = games ({n_games:,})"),
               image("game_length.png", "game length")]

    # ---- game-declared breakdowns: win rate by whether a feature is held at the end
    for gi, (gtitle, names) in enumerate(groups):
        cols = [FEATURE_PREFIX + n for n in names if FEATURE_PREFIX + n in df.columns]
        if not cols:
            continue
        rows, plot_rows = [], []
        for c in cols:
            held = df[c] > 0
            r = []
            for mask in (held, ~held):
                n, w = int(mask.sum()), float(df.loc[mask, "win"].sum())
                lo, hi = wilson(w, n)
                r += [n, w / n if n else math.nan, f"{lo:.4f} – {hi:.4f}" if n else "–"]
            rows.append([c[len(FEATURE_PREFIX):]] + r)
            plot_rows.append({"feature": c[len(FEATURE_PREFIX):], "win_rate": r[1],
                              "ci_low": wilson(float(df.loc[held, "win"].sum()), int(held.sum()))[0],
                              "ci_high": wilson(float(df.loc[held, "win"].sum()), int(held.sum()))[1]})
        name = f"win_rate_by_group_{gi}.png"
        _rate_plot(pd.DataFrame(plot_rows).fillna(0.0), "feature", out / name,
                   f"Win rate of seats holding each item: {gtitle.lower()}", fair, xlabel=gtitle)
        blocks += [(2, f"Win rate by {gtitle.lower()}"),
                   Table([gtitle, "n held", "win rate held", "95% CI held", "n not held", "win rate not held",
                          "95% CI not held"], rows,
                         "n = seats whose final state has (or lacks) the item; one seat may hold several"),
                   image(name, f"win rate by {gtitle.lower()}")]

    # ---- what winners have
    if feats:
        win_mask = df["win"] > 0
        rows = [[c[len(FEATURE_PREFIX):], df.loc[win_mask, c].mean(), df.loc[~win_mask, c].mean(), df[c].mean()]
                for c in feats]
        blocks += [(2, "Features of winners"),
                   Table(["feature", "mean (winners)", "mean (others)", "mean (all)"], rows,
                         f"final-state features per seat; n = {int(win_mask.sum()):,} winning seats, "
                         f"{int((~win_mask).sum()):,} others")]

    blocks += [(2, "About this report"),
               f"Made by `dynasty report` from {results}. Win rates are win shares (1/k for each of k tied "
               f"winners); intervals are Wilson {CONFIDENCE:.0%} intervals of the rounded total of shares over n. "
               "The intervals treat the rows of a group as independent samples. That holds for a seat's rows (one "
               "per game, games independent) up to the mirrored rotations of a deal, which share the deal's "
               "seed; an agent that sits in several seats of a game contributes dependent rows (one seat's win "
               "is another's loss). Option columns: " + ", ".join(option_cols) + "."]

    md_path, html_path = out / "report.md", out / "report.html"
    store.atomic_write(md_path, _md(blocks).encode())
    store.atomic_write(html_path, _html(f"{cfg['name']} report", blocks).encode())
    return {"markdown": md_path, "html": html_path, **images}
