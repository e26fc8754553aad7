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
from experiments.run.config import ConfigError
from experiments.tune.tune import Tune, best_candidates, search, tune_from_dict


def test_search_recovers_a_known_optimum_of_a_noisy_parameter():
    """The made-up objective |x - 13| / 100 measured with noise of sd 0.01 (as a win-rate gap on
    about 2,500 deals would be); 30 trials; the 3 best re-measured with 16 times the sample (sd
    0.0025): the best re-measured value is 13 and its 95% interval holds the true minimum, 0."""
    tune = Tune(
        name="t",
        description="",
        output=None,
        base={},
        search={"x": (0, 40)},
        trials=30,
        games=1,
        seed=3,
    )
    rng = np.random.default_rng(5)

    def evaluate(v):
        return abs(v["x"] - 13) / 100 + rng.normal(0, 0.01)

    study = search(tune, evaluate)
    cands = best_candidates(study, 3)
    assert len({c.params["x"] for c in cands}) == 3
    fresh = [(abs(c.params["x"] - 13) / 100 + rng.normal(0, 0.0025), c.params["x"]) for c in cands]
    value, x = min(fresh)
    assert x == 13
    assert value - 1.96 * 0.0025 <= 0 <= value + 1.96 * 0.0025


@pytest.mark.parametrize(
    "change, message",
    [
        ({"search": {}}, "tune.toml: search: empty search"),
        (
            {"search": {"goal_cards[*].vp": [1, 40]}},
            "tune.toml: search.goal_cards[*].vp: middle_kingdom: "
            "'goal_cards[*].vp': 40 is outside its declared range 0..12",
        ),
        (
            {"search": {"goal_cards[*].colour": [1, 4]}},
            "tune.toml: search.goal_cards[*].colour: middle_kingdom: "
            "'goal_cards[*].colour' is not a component value",
        ),
        ({"objective": "fun"}, "tune.toml: objective: 'fun' is not known"),
    ],
)
def test_bad_tune_config(tmp_path, change, message):
    d = {
        "output": str(tmp_path / "t"),
        "trials": 3,
        "games": 300,
        "base": {"game": "middle_kingdom", "players": 2, "agents": ["random"], "seed": 1},
        "search": {"goal_cards[*].vp": [1, 10]},
    }
    d.update(change)
    with pytest.raises(ConfigError) as e:
        tune_from_dict(d, "tune.toml")
    assert str(e.value).startswith(message), str(e.value)


def test_tune_end_to_end_on_middle_kingdom(tmp_path, capsys):
    p = tmp_path / "tune.toml"
    p.write_text(f'''output = "{tmp_path / "tune"}"
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
    assert (
        "Tuned values" in report
        and "(n=600)" in report
        and (out / "report" / "search.png").stat().st_size > 0
    )
    assert (
        out / "tune.toml"
    ).read_text() == p.read_text()  # the tuning's config is kept once, not in every trial
    assert not any((t / "config.toml").exists() for t in trials)
    assert (
        main(["tune", str(p), "--quiet", "--workers", "2"]) == 0
    )  # resumes: the 3 trials are kept, none added
    import optuna

    st = optuna.load_study(study_name="tune", storage=f"sqlite:///{out / 'optuna.db'}")
    assert len(st.trials) == 3


def test_a_trial_stopped_mid_run_is_asked_again_with_its_values(tmp_path):
    """A trial left RUNNING in Optuna's storage (its process was killed) is marked failed on resume
    and its values are the next ones asked, so its results folder continues
    instead of being orphaned."""
    import optuna

    storage = f"sqlite:///{tmp_path / 'o.db'}"
    st = optuna.create_study(study_name="tune", storage=storage, direction="minimize")
    stale = st.ask().suggest_int("x", 0, 40)
    tune = Tune(
        name="t",
        description="",
        output=None,
        base={},
        search={"x": (0, 40)},
        trials=3,
        games=1,
        seed=1,
    )
    asked = []
    study = search(tune, lambda v: asked.append(v["x"]) or abs(v["x"] - 5), storage=storage)
    assert asked[0] == stale and len(asked) == 3
    states = [t.state for t in study.trials]
    assert (
        states.count(optuna.trial.TrialState.COMPLETE) == 3
        and states[0] == optuna.trial.TrialState.FAIL
    )


def test_tune_finds_the_optimum_of_a_real_game_known_from_every_value(tmp_path):
    """Middle Kingdom, 4 random players, the share of tied games against one VP value for every goal
    card (2..9).  The optimum is known by measuring every value on the tuning's own deals (each is
    an ordinary run of the same base config); 5 trials of TPE must find a value whose tie rate is
    the grid's minimum or within that minimum's interval, while the grid itself is not flat (its
    worst value lies outside the best value's interval), so a search that missed would fail."""
    from experiments.run import runner
    from experiments.tune.tune import cell_config, measure, slug

    p = tmp_path / "tune.toml"
    p.write_text(f'''output = "{tmp_path / "tune"}"
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
    with runner.ray_session(workers=2):
        for v in range(2, 10):
            values = {"goal_cards[*].vp": v}
            cfg = cell_config(tune, values, tune.output / "trials" / slug(values), tune.games)
            runner.run(
                cfg, workers=2, progress=False
            )  # a value the search tried is already complete
            grid[v] = measure(cfg, "tie_rate")["tie_rate"]
    best = min(grid, key=lambda v: grid[v]["value"])
    worst = max(grid, key=lambda v: grid[v]["value"])
    assert grid[worst]["value"] > grid[best]["high"]  # the grid has an optimum worth finding
    import optuna

    st = optuna.load_study(study_name="tune", storage=f"sqlite:///{tune.output / 'optuna.db'}")
    found = st.best_trial.params["goal_cards[*].vp"]
    assert st.best_value == grid[found]["value"]  # the search measured the grid's own numbers
    assert grid[found]["value"] <= grid[best]["high"], (
        found,
        best,
        {v: round(m["value"], 4) for v, m in grid.items()},
    )


# ------------------------------------------------------------------ an agent's parameters


def _agent_tune(tmp_path, **change):
    d = {
        "output": str(tmp_path / "t"),
        "trials": 3,
        "games": 100,
        "base": {"game": "goofspiel", "players": 2, "agents": ["mcts:20", "mcts:20"], "seed": 1},
        "search": {"agents[0].uct_c": [0.1, 2.0]},
    }
    d.update(change)
    return d


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"search": {"agents[0].depth": [0, 9]}},
            "tune.toml: search.agents[0].depth: 'depth' is not a tunable MCTS parameter",
        ),
        (
            {"search": {"agents[2].uct_c": [0.1, 2]}},
            "tune.toml: search.agents[2].uct_c: base.agents has 2 agents",
        ),
        (
            {"search": {"agents[0].uct_c": [2, 0.1]}},
            "tune.toml: search.agents[0].uct_c: expected [low, high] numbers with low < high",
        ),
        (
            {"search": {"agents[0].uct_c": [0, 2]}},
            "tune.toml: search.agents[0].uct_c: mcts uct_c must be a number > 0, got 0",
        ),
        (
            {"search": {"agents[0].rollout_depth": [0.5, 9]}},
            "tune.toml: search.agents[0].rollout_depth: expected [low, high] integers",
        ),
        (
            {"search": {"agents[0].rollout": ["random", "oracle"]}},
            "tune.toml: search.agents[0].rollout: mcts rollout must be one of random, heuristic",
        ),
        (
            {"search": {"agents[0].uct_c": [0.1, 2], "agents[1].prior": [0, 2]}},
            "tune.toml: search.agents[1].prior: one agent is tuned at a time",
        ),
        (
            {"search": {"agents[0].uct_c": [0.1, 2], "cards_per_player": [3, 9]}},
            "tune.toml: search.cards_per_player: objective "
            '"agent_edge" searches one agent\'s parameters only',
        ),
        (
            {"objective": "seat_gap"},
            "tune.toml: objective: a search over an agent's parameters "
            '(agents[0].uct_c) needs objective = "agent_edge"',
        ),
        (
            {
                "base": {
                    "game": "goofspiel",
                    "players": 2,
                    "agents": ["heuristic", "mcts:20"],
                    "seed": 1,
                }
            },
            "tune.toml: search.agents[0].uct_c: agents[0] is "
            "'heuristic'; only an MCTS agent has parameters to tune",
        ),
        (
            {"base": {"game": "goofspiel", "players": 2, "agents": ["mcts:20"], "seed": 1}},
            "tune.toml: search.agents[0].uct_c: base.agents must list one agent per seat (2)",
        ),
    ],
)
def test_bad_agent_tune_config(tmp_path, change, message):
    with pytest.raises(ConfigError) as e:
        tune_from_dict(_agent_tune(tmp_path, **change), "tune.toml")
    assert str(e.value).startswith(message), str(e.value)


def test_agent_tune_cells_keep_the_tuned_agent_apart_and_round_floats(tmp_path):
    from experiments.tune.tune import cell_config, trial_values

    tune = tune_from_dict(
        _agent_tune(
            tmp_path,
            search={
                "agents[0].uct_c": [0.1, 2.0],
                "agents[0].rollout": ["random", "heuristic"],
                "agents[0].rollout_depth": [0, 30],
            },
        ),
        "tune.toml",
    )
    assert tune.agent == 0 and tune.objective == "agent_edge"
    assert tune.search == {
        "agents[0].uct_c": (0.1, 2.0),
        "agents[0].rollout": ("random", "heuristic"),
        "agents[0].rollout_depth": (0, 30),
    }
    base = cell_config(tune, {}, tmp_path / "b", 100)
    assert [a.label for a in base.agents] == [
        "tuned mcts:20",
        "mcts:20",
    ]  # a copy, kept apart: the control
    values = trial_values(
        {
            "agents[0].uct_c": 0.733333333,
            "agents[0].rollout": "heuristic",
            "agents[0].rollout_depth": 7,
        }
    )
    cfg = cell_config(tune, values, tmp_path / "c", 100)
    tuned = cfg.agents[0]
    assert (
        tuned.label.startswith("tuned mcts:20,")
        and "uct_c=0.7333" in tuned.label
        and "rollout=heuristic" in tuned.label
    )
    assert cfg.agents[1].label == "mcts:20" and "components" not in cfg.identity()


def test_agent_tune_finds_a_known_better_setting_and_rechecks_it(tmp_path):
    """Goofspiel, MCTS at 20 simulations per decision against itself, the tuned copy's simulation
    count searched in 2..200: more simulations are stronger, so the tuning must settle above 20, and
    its re-check on fresh deals must show an edge whose interval excludes 0, while the control (the
    tuned copy with its base parameters, 20 simulations) stays within its interval of 0."""
    p = tmp_path / "tune.toml"
    p.write_text(f'''output = "{tmp_path / "tune"}"
trials = 4
games = 200
recheck = 1
recheck_games = 400
[base]
game = "goofspiel"
players = 2
agents = ["mcts:20", "mcts:20"]
seed = 3
[search]
"agents[0].simulations" = [2, 200]
''')
    assert main(["tune", str(p), "--quiet", "--workers", "2"]) == 0
    from experiments.tune.tune import cell_config, load_tune, measure

    tune = load_tune(p)
    report = (tmp_path / "tune" / "report" / "report.md").read_text()
    import re

    best = int(re.search(r"`agents\[0\]\.simulations` = \*\*(\d+)\*\*", report)[1])
    assert best > 20
    rc = next((tmp_path / "tune" / "recheck").glob("agents*"))
    import json

    seed = json.loads((rc / "manifest.json").read_text())["config"]["seed"]
    cfg = cell_config(tune, {"agents[0].simulations": best}, rc, 400, seed=seed)
    edge = measure(cfg, "agent_edge")["agent_edge"]
    assert edge["low"] > 0 and edge["n"] == 200
    ctrl_cfg = cell_config(tune, {}, tmp_path / "tune" / "recheck" / "printed", 400, seed=cfg.seed)
    ctrl = measure(ctrl_cfg, "agent_edge")["agent_edge"]
    assert ctrl["low"] <= 0 <= ctrl["high"] and ctrl["agent"] == "tuned mcts:20"
    assert "against" in report and "with the base parameters" in report


def test_agent_tune_over_choices_writes_its_report_and_plot(tmp_path):
    """A search over a choice (the rollout policy) alone: the report lists both choices' trials and
    plots them at their index."""
    p = tmp_path / "tune.toml"
    p.write_text(f'''output = "{tmp_path / "tune"}"
trials = 2
games = 40
recheck = 1
recheck_games = 40
[base]
game = "goofspiel"
players = 2
agents = ["mcts:10", "mcts:10"]
seed = 2
[search]
"agents[0].rollout" = ["random", "heuristic"]
''')
    assert main(["tune", str(p), "--quiet", "--workers", "1"]) == 0
    report = (tmp_path / "tune" / "report" / "report.md").read_text()
    rows = [
        line for line in report.splitlines() if line.startswith("| 0 |") or line.startswith("| 1 |")
    ]
    assert len(rows) == 2 and all(("random" in r) or ("heuristic" in r) for r in rows)
    assert (tmp_path / "tune" / "report" / "search.png").stat().st_size > 10_000


def test_a_resumed_search_neither_repeats_its_first_samples_nor_drops_an_interrupted_trial(
    tmp_path,
):
    """A tuning stopped by an interrupt (Optuna marks the trial failed) asks that trial's values
    again when resumed, and the resumed sampler does not draw the first
    session's random samples again."""
    import optuna

    storage = f"sqlite:///{tmp_path / 'o.db'}"
    tune = Tune(
        name="t",
        description="",
        output=None,
        base={},
        search={"u": (0.05, 2.0), "d": (0, 60)},
        trials=6,
        games=1,
        seed=1,
    )
    first = []

    def interrupted(v):
        first.append(v)
        if len(first) == 3:
            raise KeyboardInterrupt
        return v["u"]

    with pytest.raises(KeyboardInterrupt):
        search(tune, interrupted, storage=storage)
    st = optuna.load_study(study_name="tune", storage=storage)
    assert [t.state for t in st.trials][-1] == optuna.trial.TrialState.FAIL
    again = []
    study = search(tune, lambda v: again.append(v) or v["u"], storage=storage)
    assert again[0] == first[2]  # the interrupted trial's values, first
    assert len(again) == 4 and not any(
        v in first[:2] for v in again
    )  # no first-session sample drawn again
    assert len([t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]) == 6
