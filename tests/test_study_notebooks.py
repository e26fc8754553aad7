"""The worked studies stay runnable: each notebook plays its study config on a small budget
(one local Ray session for all of them) and answers its question in a table."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "notebook, games, cells",
    [
        ("middle_kingdom_study", 60, 12),
        ("ming_dynasty_study", 60, 6),
        ("emperors_choice_study", 60, 5),
        ("eternal_dynasty_study", 20, 8),
    ],
)
def test_worked_study_notebook(ray_session, tmp_path, capsys, notebook, games, cells):
    nb = runpy.run_path(str(ROOT / "notebooks" / f"{notebook}.py"))
    out = nb["main"](games=games, output=str(tmp_path / "study"), workers=2)
    ans = out["answer"]
    assert len(ans) == cells and (ans["deals"] == games).all()
    assert out["paths"]["markdown"].exists() and out["paths"]["effects"].stat().st_size > 0
    text = capsys.readouterr().out
    assert "report:" in text
