"""Every config shipped under experiments/configs loads with the loader its command uses (runs,
studies, interventions, tunings, tournaments, trainings, skill depths), so a config the docs
point to never fails on its first line."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFIGS = Path(__file__).resolve().parents[1] / "experiments" / "configs"


def _kind(path: Path) -> str:
    if path.parent.name == "train":
        return "train"
    if path.parent.name == "tournaments":
        return "tournament"
    if path.parent.name == "depth":
        return "depth"
    if path.parent.name == "tunings" or "[search]" in path.read_text():
        return "tune"
    if path.parent.name == "studies":
        return "interventions" if "[interventions]" in path.read_text() else "study"
    return "run"


@pytest.mark.parametrize(
    "path", sorted(CONFIGS.rglob("*.toml")), ids=lambda p: str(p.relative_to(CONFIGS))
)
def test_shipped_config_loads(path):
    kind = _kind(path)
    if kind == "run":
        from experiments.run.config import load_config

        cfg = load_config(path)
        assert cfg.games > 0
    elif kind == "study":
        from experiments.study.study import load_study

        assert load_study(path).cells
    elif kind == "tune":
        from experiments.tune.tune import load_tune

        t = load_tune(path)
        assert t.search and t.trials > 0
    elif kind == "train":
        from experiments.train.config import load_train

        assert load_train(path).generations > 0
    elif kind == "interventions":
        from experiments.study.interventions import load_interventions

        s = load_interventions(path)
        assert len(s.study.cells) >= 2 and s.study.cells[0].name == "printed"
    elif kind == "depth":
        from experiments.depth.depth import load_depth

        assert len(load_depth(path).ladder) >= 2
    else:
        from experiments.tournament.tournament import load_tournament

        assert load_tournament(path).pool


def test_every_kind_is_shipped():
    kinds = {_kind(p) for p in CONFIGS.rglob("*.toml")}
    assert kinds == {"run", "study", "tune", "tournament", "train", "depth", "interventions"}
