"""Streamed aggregates (experiments.analysis.results) equal the same aggregates computed in memory
with pandas over every row, on small results folders of several part files; the fallback for columns
with many distinct values; load_results' refusal of a folder too large for memory.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.analysis import results as analysis
from experiments.analysis.report import make_report
from experiments.analysis.results import Results, histogram_summary, load_results
from experiments.run import store
from experiments.run.config import from_dict
from experiments.run.runner import ChunkContext, job_of
from experiments.run.schema import FEATURE_PREFIX

PARTS = 4


def write_folder(tmp_path, name, **kw):
    """A results folder written in this process (no Ray):
    the config's games in ``PARTS`` part files."""
    d = {
        "name": name,
        "game": "goofspiel",
        "players": 3,
        "agents": ["heuristic", "random", "random"],
        "seats": "rotate",
        "games": 900,
        "seed": 4242,
        "output": str(tmp_path / name),
        "replays": 0,
    }
    d.update(kw)
    cfg = from_dict(d, f"{name}.toml")
    out = cfg.output
    m = store.new_manifest(cfg)
    ctx = ChunkContext(job_of(cfg))
    bounds = np.linspace(0, cfg.games, PARTS + 1).astype(int)
    for a, b in zip(bounds[:-1], bounds[1:]):
        store.atomic_write(
            store.data_dir(out, cfg.game) / store.part_name(int(a), int(b)),
            ctx.encode(ctx.play(int(a), int(b))),
        )
    m["complete"] = True
    store.write_manifest(out, m)
    return cfg


@pytest.fixture(scope="module")
def goof(tmp_path_factory):
    cfg = write_folder(tmp_path_factory.mktemp("an"), "goof", options={"num_cards": 6})
    return cfg, load_results(cfg.output)


@pytest.fixture(scope="module")
def mk(tmp_path_factory):
    cfg = write_folder(
        tmp_path_factory.mktemp("an"),
        "mk",
        game="middle_kingdom",
        players=4,
        agents=["heuristic", "random", "random", "random"],
        games=400,
    )
    return cfg, load_results(cfg.output)


def pandas_rates(df, by):
    g = df.groupby(by, observed=True, sort=True)
    return pd.DataFrame(
        {
            "n": g.size(),
            "wins": g["win"].sum(),
            "mean_score": g["score"].mean(),
            "mean_rank": g["rank"].mean(),
        }
    ).reset_index()


def pandas_summary(v: pd.Series) -> list[float]:
    q = v.quantile([0.05, 0.5, 0.95]).to_numpy()
    return [len(v), v.mean(), v.std(ddof=1), v.min(), q[0], q[1], q[2], v.max()]


@pytest.mark.parametrize("by", ["seat", "agent", ["agent", "seat"]])
def test_rates_equal_the_in_memory_group_by(goof, by):
    cfg, df = goof
    with Results(cfg.output) as res:
        got = res.rates(by)
    want = pandas_rates(df, by)
    cols = [by] if isinstance(by, str) else by
    assert [tuple(r) for r in got[cols].astype(str).to_numpy()] == [
        tuple(r) for r in want[cols].astype(str).to_numpy()
    ]
    assert got["n"].tolist() == want["n"].tolist()
    np.testing.assert_allclose(
        got[["wins", "mean_score", "mean_rank"]].to_numpy(float),
        want[["wins", "mean_score", "mean_rank"]].to_numpy(float),
        rtol=1e-12,
        atol=1e-12,
    )
    assert ((got["ci_low"] <= got["win_rate"]) & (got["win_rate"] <= got["ci_high"])).all()


def test_game_count_and_tied_shares(goof):
    cfg, df = goof
    with Results(cfg.output) as res:
        assert res.games == cfg.games == df["game_index"].nunique()
        assert res.total("win") == pytest.approx(df["win"].sum(), abs=1e-9)
    assert (df["win"] % 1 != 0).any()  # ties with fractional shares are in the data


@pytest.mark.parametrize(
    "column,by,where",
    [("score", "seat", None), ("score", "agent", None), ("length", None, "seat = 0")],
)
def test_summaries_from_streamed_histograms_are_exact(goof, column, by, where):
    cfg, df = goof
    with Results(cfg.output) as res:
        got = res.summary(column, by, where)
        hist, binned = res.distribution(column, by, where)
    assert not binned and not got["approximate"].any()
    sub = df[df["seat"] == 0] if where else df
    groups = list(sub.groupby(by, observed=True, sort=True)) if by else [(None, sub)]
    assert len(got) == len(groups)
    for (_, g), (_, row) in zip(groups, got.iterrows()):
        np.testing.assert_allclose(
            row[analysis.SUMMARY_COLUMNS].to_numpy(float), pandas_summary(g[column]), rtol=1e-12
        )
    assert hist["count"].sum() == len(sub)


def test_box_statistics_match_numpy_percentiles(mk):
    cfg, df = mk
    with Results(cfg.output) as res:
        stats = res.box_stats("score", "seat")
    for s, (seat, g) in zip(stats, df.groupby("seat")):
        q1, med, q3 = np.percentile(g["score"], [25, 50, 75])
        assert (s["label"], s["q1"], s["med"], s["q3"]) == (str(seat), q1, med, q3)
        inside = g["score"][
            (g["score"] >= q1 - 1.5 * (q3 - q1)) & (g["score"] <= q3 + 1.5 * (q3 - q1))
        ]
        assert (s["whislo"], s["whishi"]) == (inside.min(), inside.max())


def test_feature_aggregates_equal_the_in_memory_ones(mk):
    cfg, df = mk
    feats = [c for c in df.columns if c.startswith(FEATURE_PREFIX)]
    assert len(feats) > 3
    with Results(cfg.output) as res:
        split, means = res.feature_split(feats), res.feature_means(feats)
    for f, row in zip(feats, split.itertuples()):
        held = df[f] > 0
        assert (row.n_held, row.n_not) == (held.sum(), (~held).sum())
        assert row.wins_held == pytest.approx(df.loc[held, "win"].sum(), abs=1e-9)
        assert row.wins_not == pytest.approx(df.loc[~held, "win"].sum(), abs=1e-9)
    win = df["win"] > 0
    np.testing.assert_allclose(
        means[["winners", "others", "all"]].to_numpy(float),
        np.array([[df.loc[win, f].mean(), df.loc[~win, f].mean(), df[f].mean()] for f in feats]),
        rtol=1e-12,
    )


def test_many_distinct_values_fall_back_to_bins_and_say_so(goof, monkeypatch):
    cfg, df = goof
    monkeypatch.setattr(analysis, "MAX_DISTINCT", 3)
    with Results(cfg.output) as res:
        hist, binned = res.distribution("score", "seat")
        summ = res.summary("score", "seat")
    assert binned and summ["approximate"].all()
    assert hist.groupby("seat")["count"].sum().tolist() == [cfg.games] * 3
    assert summ["n"].tolist() == [cfg.games] * 3
    np.testing.assert_allclose(summ["mean"], df.groupby("seat")["score"].mean(), rtol=1e-12)


def test_histogram_summary_handles_a_single_value():
    assert histogram_summary(np.array([3.0]), np.array([5]))[1:4] == [3.0, 0.0, 3.0]


def test_load_results_refuses_a_folder_too_large_for_memory(goof):
    cfg, _ = goof
    with pytest.raises(
        store.ResultsError, match=r"rows x .* columns would take about .* select fewer columns"
    ):
        load_results(cfg.output, max_bytes=10_000)
    assert list(
        load_results(cfg.output, ["game_index", "seat", "win"], max_bytes=200_000).columns
    ) == ["game_index", "seat", "win"]


def test_report_and_results_of_an_empty_folder(goof, tmp_path):
    cfg, _ = goof
    paths = make_report(cfg.output, tmp_path / "rep")
    md = paths["markdown"].read_text()
    assert f"**Games:** {cfg.games:,} of {cfg.games:,}" in md and "streamed aggregate" in md
    (tmp_path / "empty" / "data").mkdir(parents=True)
    with pytest.raises(store.ResultsError, match="hold no games yet"):
        Results(tmp_path / "empty")


def test_a_folder_continued_by_a_later_version_reads_whole(tmp_path):
    """Parts written before the score trace existed lack its columns; a folder holding both kinds
    (a run continued after an upgrade) is read by column name: every game counts, the trace
    figures come from the parts that have it, whichever part sorts first."""
    import pyarrow.parquet as pq

    cfg = write_folder(tmp_path, "mixed", score_trace=True)
    parts = sorted(store.data_dir(cfg.output, cfg.game).glob("part-*.parquet"))
    for p in parts[1::2]:  # the 2nd and 4th parts as an older version wrote them
        t = pq.read_table(p)
        pq.write_table(t.drop_columns(["lead_changes", "decided_at", "trace_points"]), p)
    with Results(cfg.output) as res:
        assert res.games == cfg.games
        traced = res.con.execute(
            "SELECT count(*), sum(lead_changes) FROM results "
            "WHERE seat = 0 AND trace_points IS NOT NULL"
        ).fetchone()
    kept = pd.concat([pq.read_table(p).to_pandas() for p in parts[0::2]])
    kept = kept[kept["seat"] == 0]
    assert traced == (len(kept), kept["lead_changes"].sum())
    md = make_report(cfg.output, tmp_path / "rep")["markdown"].read_text()
    assert f"n = games ({len(kept):,}); the provisional score leader" in md
    cfg = write_folder(tmp_path, "untraced")  # score_trace is off by default: no section, zeros
    assert "Lead changes" not in make_report(cfg.output, tmp_path / "rep2")["markdown"].read_text()
