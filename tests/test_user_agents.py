"""User agents: a numba kernel (fast path) and a Python class (slow path) play through `dynasty run`
and `dynasty tournament`; bad agents give one clear line and exit code 2, or, during a run, an
error naming the game and decision while finished games stay saved."""

import json
import re

import numpy as np
import pytest

from agents.arena import play_games
from agents.spec import AgentSpecError, parse_agent
from agents.table import PYTHON, USER_KERNEL, AgentError
from experiments.cli import main
from sim.registry import get_game

GAME = "goofspiel"
OPTIONS = {"num_cards": 5}


def write(path, text):
    path.write_text(text)
    return path


def run_toml(tmp_path, agents, games=40, name="u", extra=""):
    agents_text = "[" + ", ".join(a if a.startswith("{") else json.dumps(a) for a in agents) + "]"
    return write(
        tmp_path / f"{name}.toml",
        f'game = "{GAME}"\nplayers = 2\nagents = {agents_text}\ngames = {games}\n'
        f'seed = 5\noutput = "{tmp_path / name}"\n{extra}[options]\nnum_cards = 5\n',
    )


def test_kinds_and_labels():
    assert parse_agent("agents.examples:lowest_legal")[0::2] == (
        USER_KERNEL,
        "agents.examples:lowest_legal",
    )
    assert parse_agent("agents.examples:OnePlyEvaluate")[0::2] == (
        PYTHON,
        "agents.examples:OnePlyEvaluate",
    )
    kind, params, label = parse_agent({"kind": "agents.examples:OnePlyEvaluate", "timeout_s": 2})
    assert (
        kind == PYTHON and params[1] == 2 and label == "agents.examples:OnePlyEvaluate,timeout_s=2"
    )


@pytest.mark.parametrize(
    "agent, msg",
    [
        (
            "no_such_pkg.agents:greedy",
            "user agent 'no_such_pkg.agents:greedy': module 'no_such_pkg.agents' does not "
            "import (ModuleNotFoundError",
        ),
        ("agents.examples:nothing", "module 'agents.examples' has no attribute 'nothing'"),
        (
            "tests.user_agents_bad:two_args",
            "the kernel does not have the arena's agent signature act(state: int32[::1], "
            "legal: bool[::1], rng: int32[:]) -> int64",
        ),
        (
            "tests.user_agents_bad:returns_float",
            "the kernel does not have the arena's agent signature",
        ),
        ("tests.user_agents_bad:NOT_AN_AGENT", "expected a numba kernel"),
        ("tests.user_agents_bad:NoAct", "expected a numba kernel"),
        ("alphazero", "unknown agent 'alphazero'"),
    ],
)
def test_bad_agents_are_one_line_and_exit_2(tmp_path, capsys, agent, msg):
    with pytest.raises(AgentSpecError, match=re.escape(msg)):
        parse_agent(agent)
    path = run_toml(tmp_path, [agent, "random"])
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1
        and err[0].startswith(f"dynasty: error: {path}: agents[0]: ")
        and msg in err[0]
    )


def _table(agents):
    kinds, params, labels = zip(*(parse_agent(a) for a in agents))
    return np.array(kinds), np.vstack(params), list(labels)


def test_kernel_plays_like_the_python_path_and_errors_name_the_game():
    """The same games whether the user kernel runs in the arena or decision by decision (a run with
    a Python agent takes the slow path for every seat)."""
    spec = get_game(GAME)
    from agents import examples
    from agents.user import play_python

    kinds, params, labels = _table(["agents.examples:random_legal", "heuristic"])
    users = [examples.random_legal, None]
    seats = np.array([[0, 1], [1, 0]] * 10)
    seeds = np.arange(20) + 100
    opt = spec.encode_options(OPTIONS)
    fast = play_games(spec, seeds, 2, opt, seats, kinds, params, user_agents=users)
    out = [
        np.zeros((20, 2)),
        np.zeros((20, 2)),
        np.zeros((20, 2, len(spec.feature_names))),
        np.zeros(20, np.int64),
        np.zeros((20, 2), np.int64),
        np.zeros((20, 2), np.int64),
    ]
    from agents.arena import user_table

    _, p2 = user_table(kinds, params, users)
    play_python(spec, seeds, seeds, 2, opt, seats, kinds, p2, users, *out)
    for a, b in zip(fast, out[:4]):
        np.testing.assert_array_equal(a, b)

    kinds, params, labels = _table(["tests.user_agents_bad:sometimes_illegal", "random"])
    from tests import user_agents_bad

    seeds = np.arange(200)
    bad_games = [
        g
        for g in range(200)
        if (int(np.int64(get_game(GAME).kernels.new_state(np.int64(g), np.int64(2), opt)[5])) % 40)
        == 0
    ]
    assert bad_games
    with pytest.raises(
        AgentError,
        match=rf"^goofspiel game {1000 + bad_games[0]}, decision \d+ \(seat 0, agent "
        r"'tests.user_agents_bad:sometimes_illegal'\): the agent chose action 25, "
        r"which is not legal$",
    ) as e:
        play_games(
            spec,
            seeds,
            2,
            opt,
            np.zeros((200, 2), np.int64) + [0, 1],
            kinds,
            params,
            user_agents=[user_agents_bad.sometimes_illegal, None],
            labels=labels,
            first_index=1000,
        )
    assert e.value.finished == bad_games[0]


@pytest.mark.parametrize(
    "agent, msg",
    [
        (
            "tests.user_agents_bad:Raises",
            r"\(seat \d, agent 'tests.user_agents_bad:Raises'\): the agent "
            r"raised RuntimeError: the library failed",
        ),
        (
            "tests.user_agents_bad:Illegal",
            r"the agent returned -7, which is not a legal action \(legal: \[\d",
        ),
        (
            {"kind": "tests.user_agents_bad:Slow", "timeout_s": 0.01},
            r"the agent took 0.0\d+ s, more than its "
            r"timeout_s = 0.01",
        ),
    ],
)
def test_python_agent_failures_name_the_game_and_decision(agent, msg):
    spec = get_game(GAME)
    kinds, params, labels = _table([agent, "random"])
    from agents.user import user_agents_of

    with pytest.raises(AgentError, match=r"^goofspiel game 7, decision \d+ .*" + msg):
        play_games(
            spec,
            [3],
            2,
            spec.encode_options(OPTIONS),
            [[0, 1]],
            kinds,
            params,
            user_agents=user_agents_of(labels, kinds),
            labels=labels,
            first_index=7,
        )


# ----------------------------------------------------------------- through dynasty run / tournament


RAY_WORKERS = 1  # the module's Ray session (tests/conftest.py, ray_session)


def test_user_agents_play_through_run_and_tournament(ray_session, tmp_path, capsys):
    from experiments.analysis.results import load_results

    path = run_toml(
        tmp_path, ["agents.examples:random_legal", "agents.examples:OnePlyEvaluate"], games=20
    )
    assert main(["run", str(path), "--quiet", "--workers", "1"]) == 0
    df = load_results(tmp_path / "u")
    assert len(df) == 40 and set(df["agent"]) == {
        "agents.examples:random_legal",
        "agents.examples:OnePlyEvaluate",
    }
    assert (df["decisions"] > 0).all() and (df["agent_ms"] > 0).all()
    assert abs(df["win"].sum() - 20) < 1e-9
    py = df[df["agent"] == "agents.examples:OnePlyEvaluate"]
    ms = py["agent_ms"].sum() / py["decisions"].sum()
    assert ms > 0.005  # a Python decision with 4 resampled states per action costs real time

    t = write(
        tmp_path / "t.toml",
        f'game = "{GAME}"\nplayers = 2\ndeals = 10\nseed = 1\n'
        f'output = "{tmp_path / "t"}"\npool = ["random", "agents.examples:lowest_legal", '
        f'"agents.examples:OnePlyEvaluate"]\n[options]\nnum_cards = 5\n',
    )
    capsys.readouterr()
    assert main(["tournament", str(t), "--quiet", "--workers", "1"]) == 0
    assert "3 lineups, 60 games in all" in capsys.readouterr().out
    md = (tmp_path / "t" / "report" / "report.md").read_text()
    assert "agents.examples:OnePlyEvaluate" in md and "agents.examples:lowest_legal" in md


def test_a_failing_agent_stops_the_run_naming_the_game_and_keeps_finished_games(
    ray_session, tmp_path, capsys
):
    from experiments.run import store

    path = run_toml(
        tmp_path,
        ["tests.user_agents_bad:sometimes_illegal", "random"],
        games=400,
        name="bad",
        extra="chunk_size = 20\n",
    )
    assert main(["run", str(path), "--quiet", "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    m = re.match(
        r"dynasty: error: goofspiel game (\d+), decision (\d+) \(seat (\d), "
        r"agent 'tests.user_agents_bad:sometimes_illegal'\): the agent chose "
        r"action 25, which is not legal; (\d+) of 400 games are saved$",
        err[0],
    )
    assert m, err
    first_bad, saved = int(m.group(1)), int(m.group(4))
    done = store.done_ranges(tmp_path / "bad", GAME)
    assert saved == sum(b - a for a, b in done) > 0
    assert all(
        b <= first_bad or a > first_bad for a, b in done
    )  # the failing game's chunk is not saved
    assert (
        saved >= (first_bad // 20) * 20 - 20
    )  # the chunks before it are (one may still have been in flight)


# ------------------------------------------------------------------------------ parameters


def test_parameters_reach_the_agent_and_are_part_of_its_label():
    """A kernel's parameter array and a class's constructor arguments, from a table or the text
    form (the label, names sorted, values as TOML values); they change the agent's play."""
    from agents.user import user_agents_of, user_spec

    table = {"kind": "agents.examples:epsilon_lowest", "params": {"epsilon": 1}}
    assert parse_agent(table)[2] == "agents.examples:epsilon_lowest,epsilon=1.0"
    assert parse_agent("agents.examples:epsilon_lowest,epsilon=1.0")[2] == parse_agent(table)[2]
    assert parse_agent("agents.examples:epsilon_lowest")[2] == "agents.examples:epsilon_lowest"
    cls = {
        "kind": "tests.user_agents_ok:Nth",
        "params": {"tag": 'a,b="c"', "n": 1},
        "timeout_s": 2,
    }
    kind, params, label = parse_agent(cls)
    assert kind == PYTHON and params[1] == 2
    assert label == r'tests.user_agents_ok:Nth,n=1,tag="a,b=\"c\"",timeout_s=2'
    assert user_spec(label) == (
        "tests.user_agents_ok:Nth",
        {"n": 1, "tag": 'a,b="c"', "timeout_s": 2},
    )
    assert parse_agent(label)[2] == label
    from experiments.run.config import ConfigError, from_dict

    with pytest.raises(ConfigError, match="is a user agent .* not allowed in this config"):
        from_dict(  # a config from elsewhere: no module is imported, with parameters or not
            {
                "game": GAME,
                "players": 2,
                "agents": ["agents.examples:epsilon_lowest,epsilon=0.5", "random"],
                "games": 10,
                "seed": 1,
                "output": "x",
            },
            "t.toml",
            user_agents=False,
        )

    spec = get_game(GAME)
    opt = spec.encode_options(OPTIONS)
    seeds = np.arange(30) + 11

    def play(agent):
        kinds, params, labels = _table([agent, "random"])
        users = user_agents_of(labels, kinds)
        return play_games(spec, seeds, 2, opt, [[0, 1]] * 30, kinds, params, user_agents=users)[0]

    lowest = play("agents.examples:lowest_legal")
    np.testing.assert_array_equal(play("agents.examples:epsilon_lowest,epsilon=0"), lowest)
    assert not np.array_equal(play("agents.examples:epsilon_lowest,epsilon=1"), lowest)
    np.testing.assert_array_equal(play("tests.user_agents_ok:Nth,n=0"), lowest)
    assert not np.array_equal(play("tests.user_agents_ok:Nth,n=2"), lowest)


BAD_PARAMS = [
    (
        '{ kind = "agents.examples:epsilon_lowest", params = { eps = 0.5 } }',
        "user agent 'agents.examples:epsilon_lowest': no parameter 'eps' (parameters: epsilon)",
    ),
    (
        '{ kind = "agents.examples:epsilon_lowest", params = { epsilon = "high" } }',
        "user agent 'agents.examples:epsilon_lowest': parameter epsilon must be a number, "
        "got 'high'",
    ),
    (
        '{ kind = "agents.examples:lowest_legal", params = { epsilon = 0.5 } }',
        "user agent 'agents.examples:lowest_legal': the kernel takes no parameters (got epsilon",
    ),
    (
        '{ kind = "tests.user_agents_ok:Nth", params = { m = 2 } }',
        "user agent 'tests.user_agents_ok:Nth': got an unexpected keyword argument 'm' "
        "(parameters: n, tag)",
    ),
    (
        '{ kind = "dynasty_lab.envs.policy:TensorPolicy" }',
        "user agent 'dynasty_lab.envs.policy:TensorPolicy': missing a required argument: "
        "'path' (parameters: path)",
    ),
    (
        '{ kind = "tests.user_agents_ok:Nth", params = { n = [1, 2] } }',
        "parameter n must be a number, a string or true/false, got [1, 2]",
    ),
    (
        '{ kind = "tests.user_agents_ok:Nth", params = 3 }',
        "params must be a table such as { temperature = 0.5 }, got 3",
    ),
    (
        '{ kind = "tests.user_agents_ok:Nth", parms = { n = 1 } }',
        "unknown key 'parms' (keys: kind, params, timeout_s)",
    ),
    ("tests.user_agents_ok:Nth,n", "parameters 'n': expected name=value"),
    ('{ kind = "tests.user_agents_ok:Nth", label = "nth" }', "takes no label"),
]


@pytest.mark.parametrize("agent, msg", BAD_PARAMS)
def test_bad_parameters_are_one_line_and_exit_2(tmp_path, capsys, agent, msg):
    path = run_toml(tmp_path, [agent, "random"])
    assert main(["run", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"dynasty: error: {path}: agents[0]: "), err
    assert msg in err[0], err


# ---------------------------------------------------------------- the observation in the view


@pytest.mark.parametrize("game, players", [("goofspiel", 2), ("middle_kingdom", 3)])
def test_the_view_holds_the_observation_the_pettingzoo_adapter_gives(game, players):
    """A Python agent sees, at every decision, the tensor, action mask and layout that the
    PettingZoo environment gives the same seat in the same game."""
    from dynasty_lab.envs.pettingzoo import env as pz_env
    from tests import user_agents_ok

    e = pz_env(game, players=players)
    e.reset(seed=3)
    seed = int(np.random.default_rng(3).integers(2**62))  # the deal the reset drew
    spec = get_game(game)
    kinds, params, labels = _table(["tests.user_agents_ok:Recorder"] * players)
    user_agents_ok.SEEN.clear()
    play_games(
        spec,
        [seed],
        players,
        spec.encode_options({}),
        [list(range(players))],
        kinds,
        params,
        user_agents=[user_agents_ok.Recorder] * players,
    )
    seen = user_agents_ok.SEEN
    assert len(seen) > 5
    for seat, tensor, mask, fields, action in seen:
        assert e.agent_selection == f"player_{seat}"
        obs = e.observe(e.agent_selection)
        assert tensor.dtype == obs["observation"].dtype == np.float32
        np.testing.assert_array_equal(tensor, obs["observation"])
        np.testing.assert_array_equal(mask, obs["action_mask"])
        assert fields == spec.observation.fields and fields[0].offset == 0
        e.step(action)
    assert all(e.terminations.values())


# ------------------------------------------------- a bad agent's error through every command


def session_toml(tmp_path, command, agent, name="c"):
    """A tiny config of ``command`` (run, tournament, study, tune) in which ``agent`` (TOML)
    plays Goofspiel against random (in a tuning, against the tuned MCTS agent)."""
    out = tmp_path / name
    opts = "[options]\nnum_cards = 5\n"
    base = f'game = "{GAME}"\nplayers = 2\nseed = 5\n'
    text = {
        "run": f'{base}agents = [{agent}, "random"]\ngames = 40\noutput = "{out}"\n{opts}',
        "tournament": f'{base}pool = ["random", {agent}]\ndeals = 4\noutput = "{out}"\n{opts}',
        "study": f'output = "{out}"\ngames = 10\n[base]\n{base}agents = [{agent}, "random"]\n'
        "[base.options]\nnum_cards = 5\n[axes]\nplayers = [2]\n",
        "tune": f'output = "{out}"\nobjective = "agent_edge"\ntrials = 1\ngames = 10\n'
        f'recheck = 1\nrecheck_games = 10\n[base]\n{base}agents = ["mcts:10", {agent}]\n'
        '[base.options]\nnum_cards = 5\n[search]\n"agents[0].rollout" = ["random", "heuristic"]\n',
    }[command]
    return write(tmp_path / f"{name}.toml", text)


COMMANDS = ["run", "tournament", "study", "tune"]
AGENT_FAILURES = [
    (
        '"tests.user_agents_bad:Raises"',
        "tests.user_agents_bad:Raises",
        r"the agent raised RuntimeError: the library failed",
    ),
    (
        '"tests.user_agents_bad:Illegal"',
        "tests.user_agents_bad:Illegal",
        r"the agent returned -7, which is not a legal action \(legal: \[0, 1, 2, 3, 4\]\)",
    ),
    (
        '{ kind = "tests.user_agents_bad:Slow", timeout_s = 0.01 }',
        "tests.user_agents_bad:Slow,timeout_s=0.01",
        r"the agent took [\d.]+ s, more than its timeout_s = 0.01",
    ),
    (
        '{ kind = "tests.user_agents_bad:Hangs", timeout_s = 0.2 }',
        "tests.user_agents_bad:Hangs,timeout_s=0.2",
        r"the agent took 0\.2\d* s, more than its timeout_s = 0.2",
    ),
    (
        '{ kind = "agents.examples:OnePlyEvaluate", params = { samples = 0 } }',
        "agents.examples:OnePlyEvaluate,samples=0",
        r"making the agent raised ValueError: samples must be a positive integer, got 0",
    ),
]


@pytest.mark.parametrize("command", COMMANDS)
def test_an_agent_error_is_one_line_through_every_command(ray_session, tmp_path, capsys, command):
    """An agent that raises, returns an illegal action, overruns its timeout or cannot be made
    with its parameters ends ``run``, ``tournament``, ``study`` and ``tune`` with one line (game,
    decision, seat, agent; the legal actions; the games saved) and exit code 2; so do
    parameters the agent does not take, at config time."""
    for i, (agent, label, msg) in enumerate(AGENT_FAILURES):
        path = session_toml(tmp_path, command, agent, name=f"c{i}")
        capsys.readouterr()
        assert main([command, str(path), "--quiet", "--workers", "1"]) == 2, agent
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
        assert re.fullmatch(
            rf"dynasty: error: goofspiel game \d+, decision \d+ \(seat \d, agent "
            rf"'{re.escape(label)}'\): {msg}; 0 of \d+ games are saved",
            err[0],
        ), err
    agent, msg = BAD_PARAMS[0]
    path = session_toml(tmp_path, command, agent, name="params")
    assert main([command, str(path), "--quiet", "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"dynasty: error: {path}: ") and msg in err[0], err


@pytest.mark.parametrize(
    "agent, label, msg",
    [
        (
            "tests.user_agents_bad:RaisesLate",
            "tests.user_agents_bad:RaisesLate",
            "the agent raised RuntimeError: the library failed",
        ),
        (
            '{ kind = "tests.user_agents_bad:HangsLate", timeout_s = 0.2 }',
            "tests.user_agents_bad:HangsLate,timeout_s=0.2",
            r"the agent took 0\.2\d* s, more than its timeout_s = 0.2",
        ),
    ],
)
def test_a_python_agent_failing_in_a_worker_is_one_line_and_keeps_finished_games(
    ray_session, tmp_path, capsys, agent, label, msg
):
    """The error comes from a Ray worker (a later game than the driver's first): one line, no
    message of Ray's, the games of the chunks before it saved; the message's first line only;
    an agent that never returns is stopped at its timeout."""
    from experiments.run import store

    path = run_toml(tmp_path, [agent, "random"], games=400, name="late", extra="chunk_size = 20\n")
    assert main(["run", str(path), "--quiet", "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    m = re.fullmatch(
        r"dynasty: error: goofspiel game \d+, decision \d+ \(seat 0, agent "
        rf"'{re.escape(label)}'\): {msg}; (\d+) of 400 games are saved",
        err[0],
    )
    assert m, err
    done = store.done_ranges(tmp_path / "late", GAME)
    assert int(m.group(1)) == sum(b - a for a, b in done) > 0


def test_parameters_play_in_the_workers_and_a_resumed_run_must_keep_them(
    ray_session, tmp_path, capsys
):
    """A kernel's parameters reach the Ray workers (epsilon = 0 plays as lowest_legal); the label
    in the results holds them; resuming the run with other parameters is refused."""
    from experiments.analysis.results import load_results

    def run_with(agent, name):
        path = run_toml(tmp_path, [agent, "random"], games=40, name=name)
        return main(["run", str(path), "--quiet", "--workers", "1"]), path

    assert run_with("agents.examples:epsilon_lowest,epsilon=0", "eps")[0] == 0
    assert run_with("agents.examples:lowest_legal", "low")[0] == 0
    eps, low = load_results(tmp_path / "eps"), load_results(tmp_path / "low")
    assert set(eps["agent"]) == {"agents.examples:epsilon_lowest,epsilon=0.0", "random"}
    cols = ["game_index", "seat", "score"]
    np.testing.assert_array_equal(
        eps.sort_values(cols[:2])[cols].to_numpy(), low.sort_values(cols[:2])[cols].to_numpy()
    )
    capsys.readouterr()
    code, path = run_with(
        '{ kind = "agents.examples:epsilon_lowest", params = { epsilon = 0.5 } }', "eps"
    )
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds results of a different experiment (agents: " in err[0], err
    assert "epsilon=0.5" in err[0]


def test_a_policy_trained_through_pettingzoo_plays_in_a_tournament(ray_session, tmp_path, capsys):
    """An action-value model fitted on the PettingZoo environment's observations (random play,
    fixed seeds) plays, as dynasty_lab.envs.policy:TensorPolicy with its file as a parameter,
    in ``dynasty tournament``, unchanged."""
    import joblib
    from sklearn.linear_model import Ridge

    from dynasty_lab.envs.pettingzoo import env as pz_env
    from dynasty_lab.envs.policy import features

    e = pz_env(GAME, players=2, options=OPTIONS)
    rng = np.random.default_rng(0)
    xs, ys = [], []
    for episode in range(60):
        e.reset(seed=episode)
        rows = {a: [] for a in e.possible_agents}
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            if term or trunc:
                xs += rows[agent]
                ys += [reward] * len(rows[agent])
                e.step(None)
                continue
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            rows[agent].append(features(obs["observation"], [action], e.action_space(agent).n)[0])
            e.step(action)
    model = Ridge(alpha=1.0).fit(np.array(xs), np.array(ys))
    joblib.dump({"model": model, "fields": None}, tmp_path / "policy.joblib")

    policy = (
        '{ kind = "dynasty_lab.envs.policy:TensorPolicy", '
        f'params = {{ path = "{tmp_path / "policy.joblib"}" }} }}'
    )
    t = write(
        tmp_path / "t.toml",
        f'game = "{GAME}"\nplayers = 2\ndeals = 10\nseed = 1\noutput = "{tmp_path / "t"}"\n'
        f'pool = ["random", {policy}]\n[options]\nnum_cards = 5\n',
    )
    capsys.readouterr()
    assert main(["tournament", str(t), "--quiet", "--workers", "1"]) == 0
    assert "1 lineups, 20 games in all" in capsys.readouterr().out
    from experiments.analysis.results import load_results

    (lineup,) = (tmp_path / "t" / "lineups").iterdir()
    df = load_results(lineup)
    label = f'dynasty_lab.envs.policy:TensorPolicy,path="{tmp_path / "policy.joblib"}"'
    assert set(df["agent"]) == {"random", label}
    assert (df[df["agent"] == label]["decisions"] > 0).all()
