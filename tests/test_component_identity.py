"""Component data in a run's identity: the manifest records the digest of the data a run was
played with, a resume after the data changed is refused (one line, exit 2), and reports mark the
component values whose data file value is reconstructed rather than printed.

Middle Kingdom (it has component data, some printed, some reconstructed); the changed data is a
temporary copy of the game's data folder, never the real files.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import experiments.run.config as config_module
from experiments.analysis.report import make_report
from experiments.cli import main
from experiments.study.report import _component_blocks
from experiments.study.study import study_from_dict
from sim import get_game
from sim.components import components_of, mark, provenance
from sim.middle_kingdom.options import component_data, load_components

GAME = "middle_kingdom"
NOBLE = "noble_vp_tables.*.values[*]"  # reconstructed in the data file


def copy_of_data(tmp_path: Path, change=None):
    """The game's spec with the Components of a copy of its data folder, ``change(dict)``
    applied to the copy's components.json."""
    spec = get_game(GAME)
    folder = tmp_path / "data"
    shutil.copytree(spec.components.files[0].parent, folder)
    if change:
        comp = json.loads((folder / "components.json").read_text())
        change(comp)
        (folder / "components.json").write_text(json.dumps(comp, indent=1))
    comps = components_of(
        folder, lambda: load_components(folder / "components.json"), component_data
    )
    return dataclasses.replace(spec, components=comps)


def test_digest_follows_the_values_the_kernels_see_not_the_notes(tmp_path):
    spec = get_game(GAME)
    same = copy_of_data(tmp_path / "a")
    assert same.components.digest == spec.components.digest and len(spec.components.digest) == 16

    def note(comp):
        comp["goal_cards"][0]["provenance"] = "printed (checked again)"

    assert copy_of_data(tmp_path / "b", note).components.digest == spec.components.digest

    def value(comp):
        comp["goal_cards"][0]["vp"] += 1

    assert copy_of_data(tmp_path / "c", value).components.digest != spec.components.digest


def test_provenance_of_a_path():
    mk, ec, ming = get_game(GAME), get_game("emperors_choice"), get_game("ming_dynasty")
    assert provenance(mk, "goal_cards[*].vp") == "printed" and mark(mk, "goal_cards[*].vp") == ""
    assert provenance(mk, NOBLE) == "reconstructed" and mark(mk, NOBLE) == " (reconstructed)"
    assert provenance(mk, "dynasty_cards[*].vp") == "printed + reconstructed"
    # per-field notes: "power SEED / cost+count RECONSTRUCTED"
    assert provenance(ec, "character_cards[0].power") == "printed"
    assert provenance(ec, "character_cards[0].cost") == "reconstructed"
    assert provenance(ec, "starting_character_cards[0].cost") == "decision"
    assert provenance(ec, "tour_bonus[*]") == ""  # no note in the file
    assert provenance(ming, "neutral_pool.value") == "decision"


def test_study_report_marks_reconstructed_component_values(tmp_path):
    d = {
        "name": "t",
        "output": str(tmp_path / "study"),
        "games": 60,
        "base": {"game": GAME, "players": 3, "agents": ["random"], "seed": 3},
        "cells": [{"name": "printed"}, {"name": "nobles 3", "components": {NOBLE: 3}}],
    }
    (title, table) = _component_blocks(study_from_dict(d, "s.toml").cells)
    assert title == (2, "Component values")
    assert table.rows == [["nobles 3", NOBLE, 3, "2..4 (36 values)", "reconstructed"]]
    assert "reconstructed: the data files' value" in table.caption
    assert "sim/middle_kingdom/data/" in table.caption


def test_resume_is_refused_after_the_data_changed(tmp_path, capsys, monkeypatch):
    toml = tmp_path / "r.toml"
    toml.write_text(
        f'game = "{GAME}"\nplayers = 3\nagents = ["random"]\ngames = 30\nseed = 5\n'
        f'output = "{tmp_path / "out"}"\n[components]\n"{NOBLE}" = 3\n'
    )
    assert main(["run", str(toml), "--quiet", "--workers", "1"]) == 0
    manifest_path = tmp_path / "out" / "manifest.json"
    m = json.loads(manifest_path.read_text())
    assert m["component_data"] == get_game(GAME).components.digest and m["complete"]
    md = make_report(tmp_path / "out")["markdown"].read_text()
    assert (
        f"**Component data:** digest {m['component_data']}; changed: {NOBLE} = 3 (reconstructed)"
        in md
    )
    assert "**Note:** reconstructed: the data files' value" in md

    # unchanged data: resumes (nothing left to play)
    assert main(["run", str(toml), "--quiet"]) == 0
    assert "nothing to do" in capsys.readouterr().out

    # a folder from before the field: accepted, and the field recorded
    del m["component_data"]
    manifest_path.write_text(json.dumps(m))
    assert main(["run", str(toml), "--quiet"]) == 0
    digest = get_game(GAME).components.digest
    assert json.loads(manifest_path.read_text())["component_data"] == digest

    # the data changed (a copy with another goal card VP): refused in one line
    def value(comp):
        comp["goal_cards"][0]["vp"] = 5

    changed = copy_of_data(tmp_path, value)
    monkeypatch.setattr(config_module, "get_game", lambda name: changed)
    capsys.readouterr()
    assert main(["run", str(toml), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert (
        f"holds games played with other {GAME} component data (digest "
        f"{digest} there, {changed.components.digest} in "
    ) in err
    assert err.endswith("restore those data files or use another output folder")
