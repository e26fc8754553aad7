"""Balance studies: the planner (axes, explicit cells, bad input), cells on shared deals, resume,
component values as data, paired intervals against unpaired ones, and the comparison report.

Goofspiel where the game does not matter; one local Ray session (2 CPUs) for the module.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.study.report import make_study_report
from experiments.study.study import load_study, run_study, study_from_dict

ROOT = Path(__file__).resolve().parents[1]


def toml_text(d: dict, prefix: str = "") -> str:
    """A small TOML writer for the study tables used here (scalars, lists, nested tables)."""
    scalars = [
        (k, v)
        for k, v in d.items()
        if not isinstance(v, dict) and not (isinstance(v, list) and v and isinstance(v[0], dict))
    ]
    lines = [
        f"{json.dumps(k) if not k.isidentifier() else k} = {json.dumps(v)}" for k, v in scalars
    ]
    for k, v in d.items():
        name = f"{prefix}{json.dumps(k) if not k.isidentifier() else k}"
        if isinstance(v, dict):
            lines.append(f"\n[{name}]")
            lines.append(toml_text(v, name + "."))
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                lines.append(f"\n[[{name}]]")
                lines.append(toml_text(item, name + "."))
    return "\n".join(lines)


def study_dict(tmp_path, **kw) -> dict:
    d = {
        "name": "t",
        "output": str(tmp_path / "study"),
        "games": 600,
        "base": {
            "game": "goofspiel",
            "players": 2,
            "agents": ["random"],
            "seed": 7,
            "options": {"num_cards": 5},
        },
        "axes": {"players": [2, 3], "options": {"points_order": ["random", "descending"]}},
    }
    d.update(kw)
    return d


def write(tmp_path, d: dict, name: str = "study.toml") -> Path:
    p = tmp_path / name
    p.write_text(toml_text(d) + "\n")
    return p


# --------------------------------------------------------------------------- planning, without Ray


def test_grid_and_explicit_cells(tmp_path):
    s = load_study(write(tmp_path, study_dict(tmp_path)))
    assert [c.name for c in s.cells] == [
        "players=2,points_order=random",
        "players=2,points_order=descending",
        "players=3,points_order=random",
        "players=3,points_order=descending",
    ]
    assert {c.config.seed for c in s.cells} == {7}  # shared deals: one master seed
    assert (
        s.cells[3].config.players == 3 and s.cells[3].config.options["points_order"] == "descending"
    )
    assert all(Path(c.config.output).parent == tmp_path / "study" / "cells" for c in s.cells)
    d = study_dict(tmp_path)
    del d["axes"]
    d["cells"] = [
        {"name": "base"},
        {"players": 3, "options": {"num_cards": 4}},
        {"agents": ["heuristic", "random"]},
    ]
    s = study_from_dict(d, "x.toml")
    assert [c.name for c in s.cells] == ["base", "players=3,num_cards=4", "agents=heuristic+random"]
    assert s.cells[2].config.games == 600 and len(s.cells[2].config.agents) == 2


@pytest.mark.parametrize(
    "change, message",
    [
        ({"axes": {"colour": [1, 2]}}, "study.toml: axes.colour: unknown axis"),
        (
            {"axes": {"options": {"deck": ["a"]}}},
            "study.toml: axes.options.deck[0]: goofspiel: unknown option 'deck'",
        ),
        (
            {"axes": {"options": {"points_order": ["sideways"]}}},
            "study.toml: axes.options.points_order[0]: option "
            "'points_order': 'sideways' is not allowed",
        ),
        ({"axes": {"players": []}}, "study.toml: axes.players: empty sweep"),
        (
            {"axes": {"players": [2, 9]}},
            "study.toml: axes.players[1]: goofspiel: 9 players is not allowed",
        ),
        ({"axes": {}}, "study.toml: axes: empty sweep"),
        (
            {"axes": {"components": {"goal_cards[*].vp": [1]}}},
            "study.toml: axes.components.goal_cards[*].vp[0]: "
            "goofspiel: this game has no component data to change",
        ),
        (
            {
                "base": {"game": "middle_kingdom", "players": 4, "agents": ["random"], "seed": 1},
                "axes": {"components": {"goal_cards[*].vp": [4, 40]}},
            },
            "study.toml: axes.components.goal_cards[*].vp[1]: middle_kingdom: "
            "'goal_cards[*].vp': 40 is outside its declared range 0..12",
        ),
        (
            {
                "base": {"game": "middle_kingdom", "players": 4, "agents": ["random"], "seed": 1},
                "axes": {"components": {"goal_cards[9].vp": [4]}},
            },
            "study.toml: axes.components.goal_cards[9].vp[0]: "
            "'goal_cards[9].vp': goal_cards has no element [9]",
        ),
        (
            {
                "base": {"game": "middle_kingdom", "players": 4, "agents": ["random"], "seed": 1},
                "axes": {"components": {"dynasty_cards[0].type": [4]}},
            },
            "study.toml: axes.components.dynasty_cards[0].type[0]: "
            "middle_kingdom: 'dynasty_cards[0].type' is not a component value",
        ),
        ({"games": 0}, "study.toml: games: expected a positive integer"),
        (
            {"stop": {"precision": 0.01, "max_games": 100, "batch": 10}},
            "study.toml: games: give either games",
        ),
        ({"baseline": "nope"}, "study.toml: baseline: no cell named 'nope'"),
        (
            {
                "base": {
                    "game": "goofspiel",
                    "players": 2,
                    "agents": ["random"],
                    "seed": 7,
                    "output": "x",
                }
            },
            "study.toml: base.output: set by the study",
        ),
    ],
)
def test_bad_study_is_one_line_naming_file_and_field_exit_2(tmp_path, capsys, change, message):
    d = study_dict(tmp_path)
    d.update(change)
    p = write(tmp_path, d)
    assert main(["study", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"dynasty: error: {p.parent}/{message}") or message in err, err


# --------------------------------------------------------------------------- with Ray


def _rows(folder: Path):
    import pandas as pd

    return (
        pd.read_parquet(folder / "data").sort_values(["game_index", "seat"]).reset_index(drop=True)
    )


def test_study_cells_share_deals_resume_and_report(ray_session, tmp_path, capsys):
    p = write(tmp_path, study_dict(tmp_path))
    s = load_study(p)
    r = run_study(
        s, workers=2, progress=False, stop_after_cells=2
    )  # a killed study: two cells done, two missing
    assert r.status == "interrupted"
    assert (
        main(["study", str(p), "--quiet"]) == 0
    )  # resumes: plays the rest, then writes the report
    out = capsys.readouterr().out
    assert "4 cells, 2,400 games in all" in out
    frames = [_rows(c.folder) for c in s.cells]
    for c, df in zip(s.cells, frames):
        assert (
            df["game_index"].nunique() == 600 and len(df) == 600 * c.config.players
        )  # nothing lost or doubled
        assert (df["opt_points_order"].astype(str) == c.config.options["points_order"]).all()
        assert (df["players"] == c.config.players).all()
    # shared deals: game i has the same seeds in every cell
    seeds = [df.groupby("game_index")["seed"].first().to_numpy() for df in frames]
    assert all((x == seeds[0]).all() for x in seeds)
    # the report: files, and the measured paired/unpaired width ratio of every effect below 1
    report = (tmp_path / "study" / "report" / "report.md").read_text()
    for f in ("report.html", "rates.png", "effects.png", "heatmap.png"):
        assert (tmp_path / "study" / "report" / f).stat().st_size > 0
    assert "of the unpaired width" in report and "(n=600)" in report
    from experiments.study.report import study_tables

    eff = study_tables(s)["effects"]
    assert len(eff) == 6 and (eff["width_ratio"] < 1).all()
    # the same study again: nothing to play; another config in the same folder is refused
    assert main(["study", str(p), "--quiet"]) == 0
    d = study_dict(tmp_path)
    d["base"]["seed"] = 8
    assert main(["study", str(write(tmp_path, d, "other.toml")), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "other.toml: base: the study folder" in err and "made by another study config" in err


def test_component_axis_changes_data_without_recompiling(ray_session, tmp_path):
    d = study_dict(
        tmp_path,
        games=200,
        base={"game": "middle_kingdom", "players": 3, "agents": ["random"], "seed": 3},
        axes={"components": {"goal_cards[*].vp": [4, 12]}},
    )
    s = study_from_dict(d, "mk.toml")
    import agents.arena as arena

    warm = study_dict(
        tmp_path / "warm", games=200, base=d["base"], axes={"components": {"goal_cards[*].vp": [4]}}
    )
    run_study(
        study_from_dict(warm, "warm.toml"), workers=2, progress=False
    )  # compiles what a cell needs
    before = {k: len(v.signatures) for k, v in vars(arena).items() if hasattr(v, "signatures")}
    run_study(s, workers=2, progress=False)  # the same cell, then the other value: new data only
    after = {k: len(v.signatures) for k, v in vars(arena).items() if hasattr(v, "signatures")}
    assert after == before  # the driver compiled nothing new for the second cell's data
    low, high = _rows(s.cells[0].folder), _rows(s.cells[1].folder)
    assert (low["c_goal_cards[*].vp"] == 4).all() and (high["c_goal_cards[*].vp"] == 12).all()
    assert (
        low.groupby("game_index")["seed"].first() == high.groupby("game_index")["seed"].first()
    ).all()
    assert high["f_vp_goals"].mean() > 2 * low["f_vp_goals"].mean()


def test_study_stops_at_a_precision_with_valid_looks(ray_session, tmp_path):
    """2-player Goofspiel, two cells: batches of 400 games up to 4,000 until every key interval's
    half-width (at level 1 - 0.05/10 per look) is at most 0.04; the looks are recorded, the final
    cells hold exactly the games of the last look, and a second run plays nothing more."""
    d = study_dict(tmp_path, axes={"options": {"points_order": ["random", "descending"]}})
    del d["games"]
    d["stop"] = {"precision": 0.04, "max_games": 4000, "batch": 400}
    s = study_from_dict(d, "stop.toml")
    r = run_study(s, workers=2, progress=False)
    assert r.status == "complete" and "precision reached" in r.stopped_by
    looks = r.looks
    assert [lk["look"] for lk in looks] == list(range(1, len(looks) + 1)) and len(looks) > 1
    assert looks[-1]["max_half_width"] <= 0.04 < looks[-2]["max_half_width"]
    assert all(lk["alpha"] == pytest.approx(0.005) for lk in looks)
    final = looks[-1]["games_per_cell"]
    assert set(r.games.values()) == {final}
    again = run_study(s, workers=2, progress=False)
    assert again.games == r.games and len(again.looks) == len(looks)
    paths = make_study_report(s)
    text = paths["markdown"].read_text()
    assert (
        "Looks of the stopping rule" in text
        and "precision reached" in text
        and f"n={final:,}" in text
    )


def test_killed_study_resumes_mid_cell_without_loss_or_duplicates(ray_session, tmp_path):
    """SIGKILL a `dynasty study` (its own local Ray) while its second cell is half played, then run
    the same command again: every cell holds each of its games exactly once."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from experiments.run import store
    from experiments.run.runner import release_workers

    d = study_dict(
        tmp_path, games=6000, axes={"options": {"points_order": ["random", "descending"]}}
    )
    d["base"]["chunk_size"] = 50
    p = write(tmp_path, d)
    s = load_study(p)
    release_workers()  # the subprocess needs the CPUs
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    # stderr to a file, not a pipe nobody reads while the study runs (the child keeps its own
    # handle on the file once this one is closed)
    with open(tmp_path / "stderr.txt", "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "experiments.cli", "study", str(p), "--quiet", "--workers", "2"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    second = s.cells[1]
    deadline = time.time() + 300
    while (
        time.time() < deadline
        and proc.poll() is None
        and len(store.done_ranges(second.folder, "goofspiel")) < 3
    ):
        time.sleep(0.02)
    assert proc.poll() is None, (tmp_path / "stderr.txt").read_text()[-2000:]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = store.done_ranges(second.folder, "goofspiel")
    assert 3 <= len(before) < 120
    assert main(["study", str(p), "--quiet"]) == 0
    for c in s.cells:
        df = _rows(c.folder)
        assert len(df) == 6000 * 2 and df["game_index"].nunique() == 6000
        assert not df.duplicated(["game_index", "seat"]).any()
    assert json.loads((tmp_path / "study" / "study.json").read_text())["complete"]
