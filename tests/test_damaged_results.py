"""Damaged results folders: a truncated part, a file that is not Parquet, a part with the wrong
rows, a manifest that is not JSON, a folder of a newer format, a disk that fills during a write.
Each gives one clear line naming the file and what to do; a damaged part is never counted as
done (the next run sets it aside and plays exactly its games again) and no report is made from
part of the data.
"""

from __future__ import annotations

import errno
import json

import pandas as pd
import pytest

from experiments.analysis.report import make_report
from experiments.analysis.results import Results, load_results
from experiments.cli import main
from experiments.run import store
from experiments.run.runner import ChunkContext, RunError, job_of, run
from tests.test_analysis import write_folder


def reference(cfg) -> pd.DataFrame:
    ctx = ChunkContext(job_of(cfg))
    return ctx.table.fill(ctx.play(0, cfg.games)).to_pandas()


def comparable(df: pd.DataFrame) -> pd.DataFrame:
    from experiments.run.schema import MEASURED_COLUMNS

    cols = [c for c in df.columns if c not in MEASURED_COLUMNS and c != "game"]
    df = df[cols].sort_values(["game_index", "seat"]).reset_index(drop=True)
    return df.astype(
        {
            c: str
            for c in df.columns
            if isinstance(df[c].dtype, pd.CategoricalDtype) or df[c].dtype == object
        }
    )


@pytest.fixture(scope="module")
def ray_session():
    import ray

    from experiments.run.runner import local_ray_options

    if ray.is_initialized():
        ray.shutdown()
    ray.init(**local_ray_options(workers=2))
    yield ray
    ray.shutdown()


def parts_of(cfg):
    return sorted(
        p for p in store.data_dir(cfg.output, cfg.game).iterdir() if store.PART_RE.match(p.name)
    )


@pytest.mark.parametrize(
    "damage, problem",
    [
        (
            lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
            "not a readable Parquet file",
        ),
        (lambda p: p.write_bytes(b"this is not parquet"), "not a readable Parquet file"),
    ],
)
def test_report_refuses_a_folder_with_a_damaged_part(tmp_path, capsys, damage, problem):
    cfg = write_folder(tmp_path, "dmg")
    bad = parts_of(cfg)[1]
    damage(bad)
    with pytest.raises(
        store.ResultsError,
        match=f"{bad}: damaged part file: {problem}.*run the experiment's `dynasty run` again",
    ):
        Results(cfg.output)
    assert main(["report", str(cfg.output)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad) in err[0] and "dynasty run" in err[0]


def test_a_part_with_the_wrong_rows_is_damaged(tmp_path):
    import pyarrow.parquet as pq

    cfg = write_folder(tmp_path, "rows")
    first, second = parts_of(cfg)[:2]
    pq.write_table(
        pq.read_table(first).slice(0, 30), second
    )  # valid Parquet, but not its range's rows
    assert store.damaged_parts(cfg.output, cfg.game, cfg.players) == [
        (second, f"holds 30 rows, not the {225 * 3} of its 225 games")
    ]


@pytest.mark.parametrize(
    "text, says", [("{not json", "unreadable manifest"), (None, "written by a newer dynasty-lab")]
)
def test_bad_manifests_are_one_line_errors(tmp_path, capsys, text, says):
    cfg = write_folder(tmp_path, "man")
    path = cfg.output / "manifest.json"
    if text is None:
        m = json.loads(path.read_text())
        m["version"] = 99
        text = json.dumps(m)
    path.write_text(text)
    assert main(["report", str(cfg.output)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and says in err[0]


def test_run_sets_damaged_parts_aside_and_replays_exactly_their_games(
    ray_session, tmp_path, capsys
):
    cfg = write_folder(tmp_path, "again")
    parts = parts_of(cfg)
    parts[1].write_bytes(parts[1].read_bytes()[:100])
    parts[2].write_bytes(b"garbage")
    gone = [tuple(int(x) for x in store.PART_RE.match(p.name).groups()) for p in parts[1:3]]
    before = {p.name: p.stat().st_mtime_ns for p in (parts[0], parts[3])}
    s = run(cfg, workers=2, progress=False)
    assert s.status == "complete" and s.played == sum(b - a for a, b in gone)
    err = capsys.readouterr().err
    assert err.count("damaged part file") == 2 and "its games are played again" in err
    assert {p.name: p.stat().st_mtime_ns for p in (parts[0], parts[3])} == before  # untouched
    aside = sorted(
        p.name
        for p in store.data_dir(cfg.output, cfg.game).iterdir()
        if p.name.startswith(store.DAMAGED_PREFIX)
    )
    assert aside == [store.DAMAGED_PREFIX + p.name for p in parts[1:3]]
    df = load_results(cfg.output)
    assert len(df) == cfg.games * cfg.players and not df.duplicated(["game_index", "seat"]).any()
    pd.testing.assert_frame_equal(comparable(df), comparable(reference(cfg)))
    assert "**Games:**" in make_report(cfg.output)["markdown"].read_text()


def test_disk_full_during_a_write_stops_cleanly_and_the_next_run_completes(
    ray_session, tmp_path, monkeypatch
):
    from experiments.run.config import from_dict

    cfg = from_dict(
        {
            "name": "full",
            "game": "goofspiel",
            "players": 2,
            "agents": ["random"],
            "seats": "fixed",
            "games": 800,
            "seed": 5,
            "output": str(tmp_path / "full"),
        },
        "full.toml",
    )
    real = store.atomic_write
    calls = []

    def full_disk(path, data):
        if store.PART_RE.match(path.name):
            calls.append(path.name)
            if len(calls) == 3:
                raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(store, "atomic_write", full_disk)
    with pytest.raises(
        RunError,
        match=r"could not be written \(No space left on device\); \d+ of 800 games "
        r"are saved: free space .* run the same command to continue",
    ):
        run(cfg, workers=2, chunk_size=100, progress=False)
    saved = store.done_ranges(cfg.output, cfg.game)
    assert len(saved) == 2  # the third part was never published
    monkeypatch.setattr(store, "atomic_write", real)
    assert run(cfg, workers=2, chunk_size=100, progress=False).status == "complete"
    df = load_results(cfg.output)
    assert len(df) == 1600 and not df.duplicated(["game_index", "seat"]).any()
    pd.testing.assert_frame_equal(comparable(df), comparable(reference(cfg)))
