"""docs/designers.md: every config the guide names is played on a small budget with the loader
and the functions its command uses (``dynasty study``, ``interventions``, ``depth``, ``run`` and
``report``), and its report holds the section the guide sends the reader to.

The budgets are cut (a few games per cell, a ladder of random and one search on two deals),
so only the path from the config to the report's section is checked here; the guide's figures
come from the full configs, each with its command.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "designers.md"

# config -> (command, the report file, the sections the guide points to in it)
CASES = {
    "experiments/configs/studies/designer_seat_advantage.toml": (
        "study",
        "report.md",
        ["## Win rate by seat, per cell", "## Game-design metrics", "seat_chi2_p", "seat_gap"],
    ),
    "experiments/configs/studies/middle_kingdom_goal_strength.toml": (
        "interventions",
        "interventions.md",
        [
            "### What happens if this card is weaker? (intervention)",
            "### How do seats holding this card do? (correlation in the printed game)",
        ],
    ),
    "experiments/configs/studies/emperors_choice_bonus.toml": (
        "study",
        "report.md",
        ["## Effects against the baseline (printed)", "## Game-design metrics"],
    ),
    "experiments/configs/studies/middle_kingdom_seats_tiers.toml": (
        "study",
        "report.md",
        ["Summary: findings per skill level", "Findings per skill level"],
    ),
    "experiments/configs/depth/designer_middle_kingdom.toml": (
        "depth",
        "report.md",
        ["Range of skill", "deal share"],
    ),
    "experiments/configs/designer_reconstructed.toml": (
        "run",
        "report.md",
        ["**Component data:** digest", "(reconstructed)"],
    ),
}

SMALL_GAMES = 24  # per cell: a multiple of every player count's rotations here


@pytest.fixture(scope="module")
def ray_one_worker():
    """One Ray session of one worker for every config (each command's session joins it)."""
    from experiments.run import runner

    with runner.ray_session(None, 1, None):
        yield


def test_the_guide_names_exactly_these_configs():
    text = GUIDE.read_text()
    named = set(re.findall(r"experiments/configs/[\w/]+\.toml", text))
    assert set(CASES) <= named, sorted(set(CASES) - named)
    for path in named:
        assert (ROOT / path).is_file(), path
    # each played config is named in a command of the guide
    for path, (command, _, _) in CASES.items():
        assert f"dynasty {command} {path}" in text, f"no `dynasty {command} {path}` in the guide"


def _play(path: Path, command: str, out: Path) -> Path:
    """Play the config small into ``out``; the folder holding the report."""
    if command == "study":
        from experiments.study.report import make_study_report
        from experiments.study.study import load_study, run_study

        s = load_study(path, {"output": str(out), "games": SMALL_GAMES})
        run_study(s, workers=1, progress=False)
        make_study_report(s)
        return out / "report"
    if command == "interventions":
        from experiments.study.interventions import load_interventions, make_intervention_report
        from experiments.study.report import make_study_report
        from experiments.study.study import run_study

        s = load_interventions(path, {"output": str(out), "games": 40})
        run_study(s.study, workers=1, progress=False)
        make_study_report(s.study)
        make_intervention_report(s)
        return out / "report"
    if command == "depth":
        from experiments.depth.depth import depth_from_dict, run_depth
        from experiments.depth.report import make_depth_report

        data = tomllib.loads(path.read_text())
        data.update(output=str(out), deals=2, budgets=[1], pairs="adjacent")
        data.pop("beside", None)
        d = depth_from_dict(data, str(path))
        run_depth(d, workers=1, progress=False)
        make_depth_report(d)
        return out / "report"
    from experiments.analysis.report import make_report
    from experiments.run.config import from_dict
    from experiments.run.runner import run

    data = tomllib.loads(path.read_text())
    data.update(output=str(out), games=40)
    run(from_dict(data, str(path)), workers=1, progress=False)
    make_report(out, out / "report")
    return out / "report"


@pytest.mark.parametrize("config", sorted(CASES), ids=lambda p: Path(p).stem)
def test_each_config_of_the_guide_plays_small_and_reports_its_section(
    config, tmp_path, ray_one_worker
):
    command, report, sections = CASES[config]
    folder = _play(ROOT / config, command, tmp_path / "out")
    text = (folder / report).read_text()
    for s in sections:
        assert s in text, f"{config}: {report} has no {s!r}"
