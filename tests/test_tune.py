"""dynasty tune: the search recovers a known optimum of a noisy made-up parameter within its
interval, the best candidates are re-checked, and an end-to-end tuning of a Middle Kingdom
component value writes its trials, re-checks, report and plot, and resumes; on a real game (Middle
Kingdom's goal VP against the tie rate) the search finds the optimum that measuring every value
shows."""

from __future__ import annotations

import tomllib

import numpy as np
import pytest

from experiments.cli import main
from experiments.config import ConfigError
from experiments.tune import Tune, best_candidates, search, tune_from_dict


def test_search_recovers_a_known_optimum_of_a_noisy_parameter():
    """The made-up objective |x - 13| / 100 measured with noise of sd 0.01 (as a win-rate gap on
    about 2,500 deals would be); 30 trials; the 3 best re-measured with 16 times the sample (sd
    0.0025): the best re-measured value is 13 and its 95% interval holds the true minimum, 0."""
    tune = Tune(name="t", description="", output=None, base={}, search={"x": (0, 40)}, trials=30, games=1, seed=3)
    rng = np.random.default_rng(5)
    evaluate = lambda v: abs(v["x"] - 13) / 100 + rng.normal(0, 0.01)
    study = search(tune, evaluate)
    cands = best_candidates(study, 3)
    assert len({c.params["x"] for c in cands}) == 3
    fresh = [(abs(c.params["x"] - 13) / 100 + rng.normal(0, 0.0025), c.params["x"]) for c in cands]
    value, x = min(fresh)
    assert x == 13
    assert value - 1.96 * 0.0025 <= 0 <= value + 1.96 * 0.0025


@pytest.mark.parametrize("change, message", [
    ({"search": {}}, "tune.toml: search: empty search"),
    ({"search": {"goal_cards[*].vp": [1, 40]}}, "tune.toml: search.goal_cards[*].vp: middle_kingdom: 'goal_cards[*].vp': 40 is outside its declared range 0..12"),
    ({"search": {"goal_cards[*].colour": [1, 4]}}, "tune.toml: search.goal_cards[*].colour: middle_kingdom: 'goal_cards[*].colour' is not a component value"),
    ({"objective": "fun"}, "tune.toml: objective: 'fun' is not known"),
])
def test_bad_tune_config(tmp_path, change, message):
    d = {"output": str(tmp_path / "t"), "trials": 3, "games": 300,
         "base": {"game": "middle_kingdom", "players": 2, "agents": ["random"], "seed": 1},
         "search": {"goal_cards[*].vp": [1, 10]}}
    d.update(change)
    with pytest.raises(ConfigError) as e:
        tune_from_dict(d, "tune.toml")
    assert str(e.value).startswith(message), str(e.value)


def test_tune_end_to_end_on_middle_kingdom(tmp_path, capsys):
    p = tmp_path / "tune.toml"
    p.write_text(f'''output = "{tmp_path / 'tune'}"
trials = 3
games = 300
recheck = 1
recheck_games = 600
[base]
game = "middle_kingdom"
players = 2
agents = ["random"]
seed = 4
[search]
"goal_cards[*].vp" = [2, 9]
''')
    assert main(["tune", str(p), "--quiet", "--workers", "2"]) == 0
    out = tmp_path / "tune"
    trials = sorted((out / "trials").iterdir())
    assert 1 <= len(trials) <= 3 and (out / "recheck" / "printed" / "manifest.json").exists()
    report = (out / "report" / "report.md").read_text()
    assert "Tuned values" in report and "(n=600)" in report and (out / "report" / "search.png").stat().st_size > 0
    assert main(["tune", str(p), "--quiet", "--workers", "2"]) == 0  # resumes: the 3 trials are kept, none added
    import optuna

    st = optuna.load_study(study_name="tune", storage=f"sqlite:///{out / 'optuna.db'}")
    assert len(st.trials) == 3


def test_a_trial_stopped_mid_run_is_asked_again_with_its_values(tmp_path):
    """A trial left RUNNING in Optuna's storage (its process was killed) is marked failed on resume and
    its values are the next ones asked, so its results folder continues instead of being orphaned."""
    import optuna

    storage = f"sqlite:///{tmp_path / 'o.db'}"
    st = optuna.create_study(study_name="tune", storage=storage, direction="minimize")
    stale = st.ask().suggest_int("x", 0, 40)
    tune = Tune(name="t", description="", output=None, base={}, search={"x": (0, 40)}, trials=3, games=1, seed=1)
    asked = []
    study = search(tune, lambda v: asked.append(v["x"]) or abs(v["x"] - 5), storage=storage)
    assert asked[0] == stale and len(asked) == 3
    states = [t.state for t in study.trials]
    assert states.count(optuna.trial.TrialState.COMPLETE) == 3 and states[0] == optuna.trial.TrialState.FAIL


def test_tune_finds_the_optimum_of_a_real_game_known_from_every_value(tmp_path):
    """Middle Kingdom, 4 random players, the share of tied games against one VP value for every goal
    card (2..9).  The optimum is known by measuring every value on the tuning's own deals (each is
    an ordinary run of the same base config); 5 trials of TPE must find a value whose tie rate is
    the grid's minimum or within that minimum's interval, while the grid itself is not flat (its
    worst value lies outside the best value's interval), so a search that missed would fail."""
    from experiments import runner
    from experiments.tune import _slug, cell_config, measure

    p = tmp_path / "tune.toml"
    p.write_text(f'''output = "{tmp_path / 'tune'}"
objective = "tie_rate"
trials = 5
games = 6000
recheck = 1
recheck_games = 600
[base]
game = "middle_kingdom"
players = 4
agents = ["random"]
seed = 11
[search]
"goal_cards[*].vp" = [2, 9]
''')
    assert main(["tune", str(p), "--quiet", "--workers", "2"]) == 0
    tune = tune_from_dict(tomllib.loads(p.read_text()), str(p))
    grid = {}
    runner._start_ray(None, 2)
    try:
        for v in range(2, 10):
            values = {"goal_cards[*].vp": v}
            cfg = cell_config(tune, values, tune.output / "trials" / _slug(values), tune.games)
            runner.run(cfg, workers=2, progress=False)  # a value the search tried is already complete
            grid[v] = measure(cfg, "tie_rate")["tie_rate"]
    finally:
        import ray

        runner._POOL.update(key=None, actors=[])
        ray.shutdown()
    best = min(grid, key=lambda v: grid[v]["value"])
    worst = max(grid, key=lambda v: grid[v]["value"])
    assert grid[worst]["value"] > grid[best]["high"]  # the grid has an optimum worth finding
    import optuna

    st = optuna.load_study(study_name="tune", storage=f"sqlite:///{tune.output / 'optuna.db'}")
    found = st.best_trial.params["goal_cards[*].vp"]
    assert st.best_value == grid[found]["value"]  # the search measured the grid's own numbers
    assert grid[found]["value"] <= grid[best]["high"], (found, best, {v: round(m["value"], 4) for v, m in grid.items()})
