"""The game contract: what a game declares on its GameSpec, checked when it is registered.

A minimal game (tests/games/race: only the required pieces) is found through
``DYNASTY_GAMES_PATH`` and carried through ``dynasty run``, ``report`` and ``view``; a game
that lacks a piece, or declares one wrongly, is refused with a message naming the piece.
"""

import base64
import dataclasses
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sim import get_game
from sim.registry import GameContractError, check_spec

GAMES = Path(__file__).parent / "games"
DYNASTY = [sys.executable, "-m", "experiments.cli"]
PAYLOAD = re.compile(r'<script type="application/octet-stream" id="data">([^<]+)</script>')


def _dynasty(args, games_path, cwd):
    env = dict(os.environ, DYNASTY_GAMES_PATH=str(games_path))
    return subprocess.run(
        DYNASTY + [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_a_minimal_game_runs_through_run_report_and_view(tmp_path):
    cfg = tmp_path / "race.toml"
    cfg.write_text(
        'name = "race"\ngame = "race"\nplayers = 3\nagents = ["heuristic", "random", "random"]\n'
        f'seats = "rotate"\ngames = 300\nseed = 1\noutput = "{tmp_path / "out"}"\nreplays = 2\n'
    )
    root = Path(__file__).parent.parent
    listed = _dynasty(["games"], GAMES, root)
    assert listed.returncode == 0 and "race — Race to 10; players: 2, 3, 4" in listed.stdout
    ran = _dynasty(["run", cfg, "--quiet", "--workers", "1"], GAMES, root)
    assert ran.returncode == 0, ran.stderr
    rep = _dynasty(["report", tmp_path / "out"], GAMES, root)
    assert rep.returncode == 0, rep.stderr
    report = (tmp_path / "out" / "report" / "report.md").read_text()
    assert "race" in report and "| heuristic |" in report
    view = _dynasty(["view", tmp_path / "out"], GAMES, root)
    assert view.returncode == 0, view.stderr
    page = (tmp_path / "out" / "replays" / "game-000000000.html").read_text()
    data = json.loads(gzip.decompress(base64.b64decode(PAYLOAD.search(page)[1])))
    assert "count 0 of 10" in data["strings"]  # the game's render
    assert any(s["label"].endswith(": add 2") for s in data["steps"][1:])  # its action names


def test_every_registered_game_declares_its_pieces():
    for name in ("emperors_choice", "eternal_dynasty", "middle_kingdom", "ming_dynasty"):
        spec = get_game(name)
        assert spec.components is not None and spec.components.ranges
        assert spec.invariants is not None and spec.board is not None
        assert spec.observation is not None and spec.scenario is not None
        assert spec.data.size > 0 and len(spec.components.digest) == 16
    goof = get_game("goofspiel")
    assert goof.components is None and goof.data.size == 0 and goof.board is not None


@pytest.mark.parametrize(
    "change, piece",
    [
        ({"render": None}, "render: expected a function"),
        ({"chance_problem": "no"}, "chance_problem: expected a function"),
        ({"num_actions": 0}, "num_actions: expected a positive integer, got 0"),
        ({"title": ""}, "title: expected a non-empty string"),
        ({"min_players": 4, "max_players": 3}, "max_players: 3 is below min_players 4"),
        ({"feature_names": (1,)}, "feature_names: expected a tuple of strings"),
        ({"board": lambda s: ""}, "board: expected a sim.board.Board or None"),
        ({"components": {}}, "components: expected a sim.components.Components or None"),
        ({"decision_kind": "bid"}, "decision_kind: expected a function of the state or None"),
        ({"report_groups": (("x", ("nope",)),)}, "report_groups: 'x' names unknown feature"),
        ({"name": "other"}, "name: 'other' differs from its folder name 'goofspiel'"),
    ],
)
def test_a_spec_with_a_bad_piece_is_refused_naming_it(change, piece):
    spec = dataclasses.replace(get_game("goofspiel"), **change)
    with pytest.raises(GameContractError, match=f"^game goofspiel: {piece}"):
        check_spec(spec, "goofspiel")


def test_a_kernel_that_is_not_compiled_is_refused():
    spec = get_game("goofspiel")
    kernels = spec.kernels._replace(apply=lambda state, action: None)
    with pytest.raises(GameContractError, match="kernel 'apply' is not a numba kernel"):
        check_spec(dataclasses.replace(spec, kernels=kernels), "goofspiel")


def test_a_game_without_a_required_kernel_fails_when_registered(tmp_path):
    """A game folder whose rules lack ``apply``: listed as not loading, and a run of it ends
    with one line naming the game and the kernel, exit code 2."""
    src = (GAMES / "race" / "__init__.py").read_text()
    broken = src.replace("def apply(", "def apply_move(").replace('name="race"', 'name="broken"')
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "__init__.py").write_text(broken)
    root = Path(__file__).parent.parent
    listed = _dynasty(["games"], tmp_path, root)
    assert "broken: does not load" in listed.stdout and "no kernel 'apply'" in listed.stdout
    cfg = tmp_path / "b.toml"
    cfg.write_text(
        'name = "b"\ngame = "broken"\nplayers = 2\nagents = ["random", "random"]\n'
        f'games = 10\nseed = 1\noutput = "{tmp_path / "out"}"\n'
    )
    ran = _dynasty(["run", cfg], tmp_path, root)
    assert ran.returncode == 2
    assert ran.stderr.strip().splitlines() == [
        "dynasty: error: game broken: its package does not load: no kernel 'apply' in broken"
    ]
