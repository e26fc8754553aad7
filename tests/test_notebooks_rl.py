"""notebooks/goofspiel_rl.py stays runnable: a tiny version trains, saves the policy and rates
it with `dynasty tournament` (in a subprocess, as a user runs it), the policy file a parameter
of the agent."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("gymnasium")

ROOT = Path(__file__).resolve().parents[1]


def test_goofspiel_rl_notebook_trains_and_rates_the_policy(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(
        [
            sys.executable,
            str(ROOT / "notebooks" / "goofspiel_rl.py"),
            str(tmp_path / "rl"),
            "40",
            "4",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "dynasty tournament exit code 0" in r.stdout
    assert (tmp_path / "rl" / "policy.joblib").exists()
    report = (tmp_path / "rl" / "tournament" / "report" / "report.md").read_text()
    policy = (tmp_path / "rl" / "policy.joblib").resolve()
    assert f'dynasty_lab.envs.policy:TensorPolicy,path="{policy}"' in report
