"""Streamed (out-of-core) aggregates over a results folder: the analysis every report, study and
tournament computes, in bounded memory whatever the number of games.

DuckDB runs SQL straight over the folder's Parquet part files: a group-by streams the rows
through a hash table the size of its groups, with a memory limit it spills beyond, so only
aggregates ever reach pandas.  Distributions are streamed histograms (one count per distinct
value, so their quantiles, means and spreads are exact); a column with more than
``MAX_DISTINCT`` distinct values falls back to binned counts and approximate quantiles
(DuckDB's t-digest), and says so.  Why DuckDB rather than pyarrow's dataset engine:
docs/architecture.md ("Analysis at scale").

    res = Results("results/demo")
    res.games                               # games in the folder
    res.rates(["agent", "seat"])            # n, wins, win_rate, Wilson interval, mean score
                                            # and rank
    res.distribution("score", by="seat")    # value counts per seat (a streamed histogram)
    res.summary("score", by="seat")         # n, mean, sd, min, 5%, median, 95%, max per seat
    res.sql("SELECT ... FROM results ...")  # anything else, as long as its answer is small

The row filter ``where`` of each method is an SQL expression over the results columns
(docs/results-format.md), e.g. ``"players = 4 AND agent = 'heuristic'"``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from experiments.run import store

CONFIDENCE = 0.95
MAX_DISTINCT = 100_000  # distinct values a streamed histogram keeps exactly
QUANTILES = (0.05, 0.5, 0.95)
SUMMARY_COLUMNS = ["n", "mean", "sd", "min", "5%", "median", "95%", "max"]
MEMORY_LIMIT = os.environ.get(
    "DYNASTY_ANALYSIS_MEMORY", "1GB"
)  # DuckDB's working memory; it spills beyond


def wilson(wins: float, n: int) -> tuple[float, float]:
    """Wilson 95% interval of a win rate from ``wins`` (shares, rounded) out of ``n``."""
    from scipy.stats import binomtest

    if n == 0:
        return (math.nan, math.nan)
    k = int(min(n, max(0, round(wins))))
    ci = binomtest(k, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return float(ci.low), float(ci.high)


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _cols(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def histogram_summary(
    values: np.ndarray, counts: np.ndarray, quantiles: Sequence[float] = QUANTILES
) -> list[float]:
    """n, mean, sd, min, the ``quantiles`` (5%, median, 95%), max of the data a histogram counts
    (exact: the quantiles interpolate linearly between order statistics, as pandas
    and numpy do by default)."""
    order = np.argsort(values, kind="stable")
    v, c = np.asarray(values, np.float64)[order], np.asarray(counts, np.int64)[order]
    n = int(c.sum())
    if n == 0:
        return [0] + [math.nan] * (4 + len(quantiles))
    mean = float((v * c).sum() / n)
    sd = float(math.sqrt((c * (v - mean) ** 2).sum() / (n - 1))) if n > 1 else math.nan
    ends = np.cumsum(c)  # order statistics ends[i-1] .. ends[i]-1 have value v[i]

    def at(i: int) -> float:
        return float(v[np.searchsorted(ends, i, side="right")])

    qs = []
    for q in quantiles:
        pos = (n - 1) * q
        lo = int(math.floor(pos))
        a, b, t = at(lo), at(min(lo + 1, n - 1)), pos - lo
        qs.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)  # numpy's lerp
    return [n, mean, sd, float(v[0])] + qs + [float(v[-1])]


def box_stats(values: np.ndarray, counts: np.ndarray, label: str) -> dict[str, Any]:
    """Matplotlib ``bxp`` statistics of a histogram: quartiles, mean, whiskers at 1.5 IQR."""
    n, mean, _, _, q1, med, q3, _ = histogram_summary(values, counts, (0.25, 0.5, 0.75))
    iqr = q3 - q1
    v = np.asarray(values, np.float64)[np.asarray(counts) > 0]
    lo_w = float(v[v >= q1 - 1.5 * iqr].min()) if n else math.nan
    hi_w = float(v[v <= q3 + 1.5 * iqr].max()) if n else math.nan
    return {
        "label": label,
        "mean": mean,
        "med": med,
        "q1": q1,
        "q3": q3,
        "whislo": lo_w,
        "whishi": hi_w,
        "fliers": [],
    }


class Results:
    """A results folder opened for streamed SQL aggregates (view ``results``:
    one row per game and seat)."""

    def __init__(
        self, results: str | Path, *, memory_limit: str = MEMORY_LIMIT, threads: int | None = None
    ):
        import duckdb

        self.path = store.location(results)
        self.manifest = store.read_manifest(self.path)
        data = self.path / "data"
        parts = [
            p
            for d in (data.iterdir() if data.is_dir() else [])
            if d.name.startswith("game=")
            for p in d.iterdir()
            if store.PART_RE.match(p.name)
        ]
        if not parts:
            raise store.ResultsError(
                f"{self.path}: the results hold no games yet (no part files under {data})"
            )
        cfg = (self.manifest or {}).get("config", {})
        if "players" in cfg and "game" in cfg:  # refuse to report on part of the data
            store.check_parts(
                self.path,
                cfg["game"],
                int(cfg["players"]),
                "run the experiment's `dynasty run` again: it sets damaged parts aside and plays "
                "their games again",
            )
        self.con = duckdb.connect(
            config={
                "memory_limit": memory_limit,
                "threads": threads or os.cpu_count() or 1,
                "preserve_insertion_order": False,
            }
        )
        if isinstance(self.path, store.FsPath):
            # any pyarrow filesystem: DuckDB scans the Arrow dataset
            self.con.register("parts", store.open_dataset(self.path))
            self.con.execute("CREATE VIEW results AS SELECT * FROM parts")
        else:
            # DuckDB's own Parquet reader, parallel over row groups, over the part files listed now
            # (never .tmp- files; a run still writing to the folder adds none while this analysis
            # reads it); by column name, so a folder continued by a later version (which adds
            # columns) reads whole, the new columns NULL in the older parts
            files = ", ".join("'" + str(p).replace("'", "''") + "'" for p in sorted(parts, key=str))
            self.con.execute(
                f"CREATE VIEW results AS SELECT * FROM read_parquet([{files}], "
                "hive_partitioning = true, union_by_name = true)"
            )
        self._histograms: dict[tuple, tuple[pd.DataFrame, bool]] = {}
        self.columns = [r[0] for r in self.con.execute("DESCRIBE results").fetchall()]

    def close(self) -> None:
        self.con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ raw SQL

    def sql(self, query: str, params: list | None = None) -> pd.DataFrame:
        """The answer of ``query`` over the view ``results`` as a DataFrame (keep answers small)."""
        return self.con.execute(query, params or []).df()

    def attach(self, name: str, results: str | Path) -> None:
        """Another results folder as the view ``name`` of this connection, e.g. the other cells of a
        study, so that one query can join them on ``deal`` (experiments/study/stats.py)."""
        data = Path(results) / "data"
        glob = str(data / "game=*" / "part-*.parquet").replace("'", "''")  # part files only
        self.con.execute(
            f"CREATE OR REPLACE VIEW {quote_ident(name)} AS SELECT * FROM read_parquet('{glob}', "
            f"hive_partitioning = true, union_by_name = true)"
        )

    def _where(self, where: str | None) -> str:
        return f"WHERE {where}" if where else ""

    # ------------------------------------------------------------------ counts and rates

    @cached_property
    def games(self) -> int:
        """Games in the folder (every game has one row per seat, seat 0 among them)."""
        return int(self.con.execute("SELECT count(*) FROM results WHERE seat = 0").fetchone()[0])

    def total(self, expr: str, where: str | None = None) -> float:
        return float(
            self.con.execute(f"SELECT sum({expr}) FROM results {self._where(where)}").fetchone()[0]
            or 0
        )

    def rates(self, by: str | Sequence[str], where: str | None = None) -> pd.DataFrame:
        """Per group: n (rows), wins (sum of win shares), mean score, mean rank, win rate and its
        Wilson interval, sorted by the group columns (agents in the order of the run's config)."""
        cols = _cols(by)
        keys = ", ".join(map(quote_ident, cols))
        t = self.sql(
            f"SELECT {keys}, count(*) AS n, sum(win) AS wins, avg(score) AS mean_score, "
            f"avg(rank) AS mean_rank FROM results {self._where(where)} GROUP BY {keys}"
        )
        t = self._ordered(t, cols)
        t["n"] = t["n"].astype(np.int64)
        t["win_rate"] = t["wins"] / t["n"]
        ci = [wilson(w, n) for w, n in zip(t["wins"], t["n"])]
        t["ci_low"] = [c[0] for c in ci]
        t["ci_high"] = [c[1] for c in ci]
        return t

    def _ordered(self, t: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
        """Rows sorted by ``cols``; the agent column in the config's order of
        agents, not alphabetically."""
        agents = [
            a["label"] if isinstance(a, dict) else str(a)
            for a in ((self.manifest or {}).get("config", {}).get("agents") or [])
        ]
        sort = t.copy()
        for c in cols:
            if c == "agent" and agents:
                rank = {a: i for i, a in enumerate(agents)}
                sort[c] = [rank.get(a, len(rank)) for a in t[c]]
        order = sort.sort_values(cols, kind="stable").index if cols else t.index
        return t.loc[order].reset_index(drop=True)

    # ------------------------------------------------------------------ distributions

    def distribution(
        self, column: str, by: str | Sequence[str] | None = None, where: str | None = None
    ) -> tuple[pd.DataFrame, bool]:
        """A streamed histogram: (rows ``by..., value, count`` sorted, exact).  The flag is True
        when the column has more than ``MAX_DISTINCT`` distinct values and the counts are of 60
        equal-width bins per group (``value`` = bin centre) instead."""
        cols = _cols(by)
        memo = (column, tuple(cols), where)
        if memo not in self._histograms:
            # the report asks for some twice (table and plot): scan once
            self._histograms[memo] = self._distribution(column, cols, where)
        hist, binned = self._histograms[memo]
        return hist.copy(), binned

    def _distribution(
        self, column: str, cols: list[str], where: str | None
    ) -> tuple[pd.DataFrame, bool]:
        keys = "".join(f"{quote_ident(c)}, " for c in cols)
        w = self._where(where)
        c = quote_ident(column)
        t = self.sql(
            f"SELECT {keys}{c} AS value, count(*) AS count FROM results {w} GROUP BY ALL "
            f"LIMIT {MAX_DISTINCT + 1}"
        )
        binned = len(t) > MAX_DISTINCT
        if binned:
            lo, hi = self.con.execute(f"SELECT min({c}), max({c}) FROM results {w}").fetchone()
            width = (hi - lo) / 60 or 1.0
            t = self.sql(
                f"SELECT {keys}{lo} + (least(floor(({c} - {lo}) / {width}), 59) + 0.5) "
                f"* {width} AS value, count(*) AS count FROM results {w} GROUP BY ALL"
            )
        t["count"] = t["count"].astype(np.int64)
        return self._ordered(t, cols + ["value"]), binned

    def summary(
        self, column: str, by: str | Sequence[str] | None = None, where: str | None = None
    ) -> pd.DataFrame:
        """Per group: n, mean, sd, min, 5%, median, 95%, max of ``column`` (exact from the
        histogram; approximate quantiles, column ``approximate`` True, beyond
        ``MAX_DISTINCT`` values)."""
        cols = _cols(by)
        hist, binned = self.distribution(column, cols, where)
        rows = []
        groups = hist.groupby(cols, sort=False) if cols else [((), hist)]
        for key, g in groups:
            key = key if isinstance(key, tuple) else (key,)
            rows.append(list(key) + histogram_summary(g["value"].to_numpy(), g["count"].to_numpy()))
        t = pd.DataFrame(rows, columns=cols + SUMMARY_COLUMNS)
        if binned:
            # bins blur the order statistics: take them from DuckDB's t-digest, the moments exactly
            t = self._approximate_summary(column, cols, where)
        t["approximate"] = binned
        return t

    def _approximate_summary(self, column: str, cols: list[str], where: str | None) -> pd.DataFrame:
        keys = ", ".join(map(quote_ident, cols))
        c = quote_ident(column)
        qs = ", ".join(f"approx_quantile({c}, {q}) AS q{i}" for i, q in enumerate(QUANTILES))
        t = self.sql(
            f"SELECT {keys + ', ' if keys else ''}count(*) AS n, "
            f"avg({c}) AS mean, stddev_samp({c}) AS sd, min({c}) AS min, "
            f"{qs}, max({c}) AS max FROM results {self._where(where)}"
            + (f" GROUP BY {keys}" if keys else "")
        )
        t = t.rename(columns={"q0": "5%", "q1": "median", "q2": "95%"})
        return self._ordered(t, cols)[cols + SUMMARY_COLUMNS]

    def box_stats(self, column: str, by: str, where: str | None = None) -> list[dict[str, Any]]:
        """Matplotlib ``bxp`` statistics of ``column`` per value of ``by``
        (from the streamed histogram)."""
        hist, _ = self.distribution(column, by, where)
        return [
            box_stats(g["value"].to_numpy(), g["count"].to_numpy(), str(k))
            for k, g in hist.groupby(by, sort=False)
        ]

    # ------------------------------------------------------------------ features

    def feature_split(self, features: Sequence[str], where: str | None = None) -> pd.DataFrame:
        """Per feature column: n and win shares of the seats holding it (> 0) and of the others."""
        parts = []
        for f in features:
            c = quote_ident(f)
            parts += [
                f"count(*) FILTER (WHERE {c} > 0)",
                f"coalesce(sum(win) FILTER (WHERE {c} > 0), 0)",
                f"count(*) FILTER (WHERE NOT {c} > 0)",
                f"coalesce(sum(win) FILTER (WHERE NOT {c} > 0), 0)",
            ]
        row = self.con.execute(
            f"SELECT {', '.join(parts)} FROM results {self._where(where)}"
        ).fetchone()
        v = np.asarray(row, np.float64).reshape(len(features), 4)
        return pd.DataFrame(
            {
                "feature": list(features),
                "n_held": v[:, 0].astype(np.int64),
                "wins_held": v[:, 1],
                "n_not": v[:, 2].astype(np.int64),
                "wins_not": v[:, 3],
            }
        )

    def feature_means(self, features: Sequence[str], where: str | None = None) -> pd.DataFrame:
        """Per feature column: its mean over winning seats (win > 0),
        over the others, and over all."""
        parts = []
        for f in features:
            c = quote_ident(f)
            parts += [
                f"avg({c}) FILTER (WHERE win > 0)",
                f"avg({c}) FILTER (WHERE NOT win > 0)",
                f"avg({c})",
            ]
        row = self.con.execute(
            f"SELECT {', '.join(parts)} FROM results {self._where(where)}"
        ).fetchone()
        v = np.asarray([math.nan if x is None else x for x in row], np.float64).reshape(
            len(features), 3
        )
        return pd.DataFrame(
            {"feature": list(features), "winners": v[:, 0], "others": v[:, 1], "all": v[:, 2]}
        )


LOAD_LIMIT = float(os.environ.get("DYNASTY_LOAD_LIMIT_GB", "4")) * 2**30


def _row_bytes(t) -> int:
    """Bytes one value of an Arrow type takes in a pandas column (a dictionary: its codes)."""
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        t = t.index_type
    try:
        return max(1, t.bit_width // 8)
    except ValueError:
        # variable width (strings, the partition column): a pointer and a short value
        return 16


def load_results(
    results: Path, columns: list[str] | None = None, *, max_bytes: float | None = None
) -> pd.DataFrame:
    """The rows of a results folder as a pandas DataFrame, sorted by (game_index, seat): for small
    folders and notebooks.  ``columns`` selects columns (docs/results-format.md lists them; fewer
    columns, less memory).  A folder whose rows would take more than ``max_bytes`` in memory
    (default ``DYNASTY_LOAD_LIMIT_GB``, 4 GiB) is refused with a ResultsError: aggregate it with
    :class:`experiments.analysis.results.Results` instead, or select fewer columns."""
    dataset = store.open_dataset(results)
    names = columns or dataset.schema.names
    rows = dataset.count_rows()
    width = sum(
        _row_bytes(dataset.schema.field(c).type) for c in names if c in dataset.schema.names
    )
    need = (
        rows * (width + 8) * 2
    )  # the Arrow table and the pandas frame it becomes, plus the sort's index
    limit = LOAD_LIMIT if max_bytes is None else max_bytes
    if need > limit:
        raise store.ResultsError(
            f"{results}: {rows:,} rows x {len(names)} columns would take about "
            f"{need / 2**30:.1f} GiB in memory (limit {limit / 2**30:.1f} GiB, "
            "DYNASTY_LOAD_LIMIT_GB); select fewer columns, or aggregate without loading "
            f"rows: experiments.analysis.results.Results({str(results)!r}).rates(['seat'])"
        )
    df = dataset.to_table(columns=columns).to_pandas()
    return df.sort_values(["game_index", "seat"], kind="stable").reset_index(drop=True)
