"""Training learned agents (``dynasty train``): the same config and seed give the same weights,
a training stopped and resumed gives the same weights as one that was not, the report is
written, and bad configs and model files end in one line.  Tiny Goofspiel trainings (a few
seconds of play) stand in for the real ones (docs/training.md)."""

import json
import subprocess
import sys
import tomllib

import numpy as np
import pytest

from agents.model import load
from experiments.cli import main
from experiments.run.config import ConfigError
from experiments.train.config import train_from_dict
from experiments.train.train import model_path, run_train

TINY = """
name = "tiny"
game = "goofspiel"
players = 2
seed = 3
output = "{out}"
generations = 2
[options]
num_cards = 5
[network]
hidden = 16
[warm_start]
games = 60
[selfplay]
games = 20
simulations = 12
sample_decisions = 3
[fit]
epochs = 2
batch = 64
[gate]
deals = 101   # 202 games a match: two chunks, so the gate leaves two warm actors behind
"""


def _cfg(tmp_path, name="a", **change):
    data = tomllib.loads(TINY.format(out=tmp_path / name))
    for k, v in change.items():
        data[k] = v
    return train_from_dict(data, f"{name}.toml")


def _weights(cfg, gen):
    m = load(model_path(cfg, gen))
    return dict(m.arrays)


def test_same_config_same_weights_and_a_resumed_training_too(ray_session, tmp_path):
    a = _cfg(tmp_path, "a")
    s = run_train(a, workers=2, progress=False)
    assert s.status == "complete" and s.generations == 2
    b = _cfg(tmp_path, "b")  # the same config, stopped after generation 1's self-play
    s = run_train(b, workers=2, progress=False, stop_after="1:selfplay")
    assert s.status == "interrupted" and s.generations == 1
    assert not model_path(b, 1).exists()
    s = run_train(b, workers=2, progress=False)
    assert s.status == "complete" and s.generations == 2
    for gen in (0, 1):
        wa, wb = _weights(a, gen), _weights(b, gen)
        assert wa.keys() == wb.keys()
        for k in wa:
            assert np.array_equal(wa[k], wb[k]), (gen, k)
    card = load(model_path(a, 1)).card
    assert card["game"] == "goofspiel" and card["players"] == [2] and card["generation"] == 1
    assert card["train_s"] > load(model_path(a, 0)).card["train_s"] > 0  # time so far
    c = _cfg(tmp_path, "c", seed=4)  # another seed: other weights
    run_train(c, workers=2, progress=False, stop_after="0:fit")
    assert not np.array_equal(_weights(a, 0)["w1"], _weights(c, 0)["w1"])


def test_dynasty_train_writes_its_report_and_refuses_another_config(ray_session, tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(TINY.format(out=tmp_path / "out").replace("generations = 2", "generations = 1"))
    assert main(["train", str(path), "--quiet", "--workers", "2"]) == 0
    report = (tmp_path / "out" / "report" / "report.md").read_text()
    assert "| 0 | – | " in report and "gate.png" in report
    assert (tmp_path / "out" / "best.npz").is_file()
    assert f"`mcts:5ms,net={tmp_path / 'out' / 'best.npz'}` (the training's search" in report
    other = tmp_path / "o.toml"
    other.write_text(path.read_text().replace("seed = 3", "seed = 9"))
    r = subprocess.run(
        [sys.executable, "-m", "experiments.cli", "train", str(other), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"dynasty: error: {other}: output: {tmp_path / 'out'} holds a training of another "
        "config (differs in seed); choose another output"
    ]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"game": "chess"}, "game: unknown game 'chess'"),
        ({"players": 7}, "players: 7 is not a player count of goofspiel"),
        ({"bogus": 1}, "bogus: unknown key"),
        ({"fit": {"lr": 5}}, "fit.lr: expected a number from 1e-06 to 1, got 5"),
        ({"gate": {"against": ["nobody"]}}, "gate.against: expected a list of best, heuristic"),
        ({"selfplay": {"simulations": 1}}, "selfplay.simulations: expected an integer from 2"),
        ({"selfplay": {"leaf": "value"}}, "selfplay.leaf: expected one of network, rollout"),
        ({"warm_start": {"agent": "mcts"}}, "warm_start.agent: expected one of heuristic, search"),
        ({"gate": {"both_ways": "yes"}}, "gate.both_ways: expected true or false, got 'yes'"),
        ({"gate": {"temperature": -1}}, "gate.temperature: expected a number from 0 to 10"),
        ({"fit": {"target_temperature": 0}}, "fit.target_temperature: expected a number from 0.05"),
        ({"warm_start": {"agent": "mcts:5ms"}}, "warm_start.agent: expected one of heuristic, s"),
        ({"warm_start": {"agent": "mcts:9,bogus=1"}}, "warm_start.agent: agent 'mcts' has no "),
        ({"selfplay": {"search": "heuristic"}}, "selfplay.search: expected an MCTS spec such as"),
        ({"selfplay": {"search": "mcts:5ms"}}, "selfplay.search: .* without a network or a time"),
        (
            {"selfplay": {"search": "mcts:9", "simulations": 9}},
            "selfplay.search: gives the simulations: drop selfplay.simulations",
        ),
    ],
)
def test_bad_train_configs_are_one_line(tmp_path, change, message):
    data = tomllib.loads(TINY.format(out=tmp_path / "x"))
    data.update(change)
    with pytest.raises(ConfigError, match="^t.toml: " + message.replace("[", r"\[")):
        train_from_dict(data, "t.toml")


def _run_cfg(tmp_path, agent):
    p = tmp_path / "r.toml"
    p.write_text(
        f'game = "goofspiel"\nplayers = 2\nagents = ["{agent}", "random"]\ngames = 10\n'
        f'seed = 1\noutput = "{tmp_path / "out"}"\n'
    )
    return p


@pytest.mark.parametrize(
    "agent, message",
    [
        ("policy:nowhere/m.npz", "nowhere/m.npz: no such model file (shipped models: "),
        ("policy:{bad}", "not a model file"),
        ("mcts:10,net={mk}", "a model of middle_kingdom, not of goofspiel"),
    ],
)
def test_a_bad_model_file_is_one_line_and_exit_code_2(tmp_path, agent, message):
    from agents.model import observation_hash, save
    from sim import get_game

    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file")
    mk = tmp_path / "mk.npz"
    enc = np.zeros((0, 5), np.int32)
    z = {k: np.zeros((1, 1), np.float32) for k in ("w1", "w2", "wp", "wv")}
    z.update({k: np.zeros(1, np.float32) for k in ("b1", "b2", "bp", "bv")})
    save(
        mk,
        {"enc": enc, **z},
        {
            "game": "middle_kingdom",
            "players": [4],
            "observation": observation_hash(get_game("middle_kingdom")),
        },
    )
    cfg = _run_cfg(tmp_path, agent.format(bad=bad, mk=mk))
    r = subprocess.run(
        [sys.executable, "-m", "experiments.cli", "run", str(cfg), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"dynasty: error: {cfg}: agents: ")
    assert message in lines[0]


def _chunk_job(**change):
    """A self-play job of ``TINY``'s game (experiments.train.selfplay.play_chunk): generation 0's
    first 3 games, unless ``change`` says otherwise."""
    job = {
        "game": "goofspiel",
        "players": 2,
        "options": {"num_cards": 5},
        "seed": 3,
        "gen": 0,
        "first": 0,
        "count": 3,
        "model": None,
        "sample_decisions": 2,
        "record_every": 1,
        "warm": None,
    }
    return {**job, **change}


def test_a_warm_start_by_search_records_visit_shares_and_a_rollout_leaf_search_plays(tmp_path):
    """``warm_start.agent = "search"``: generation 0's targets are plain MCTS's visit shares
    (not one-hot choices); ``selfplay.leaf = "rollout"`` plays its generations with the
    network's priors and rollouts' values."""
    from experiments.train.selfplay import play_chunk

    cfg = _cfg(
        tmp_path, "w", warm_start={"games": 20, "agent": "search"}, selfplay={"simulations": 30}
    )
    assert cfg.warm_agent == "search" and cfg.warm_search == "mcts:30"
    job = _chunk_job(warm=cfg.warm_search)
    warm = play_chunk(job)
    assert np.allclose(warm["policy"].sum(axis=1), 1)
    assert (warm["policy"].max(axis=1) < 1).any()  # visit shares, not the heuristic's choice
    assert not (warm["policy"][~warm["mask"]] > 0).any()
    heur = play_chunk({**job, "warm": _cfg(tmp_path, "h").warm_search})  # None: the heuristic
    assert (heur["policy"].max(axis=1) == 1).all()
    spelled = _cfg(tmp_path, "s", warm_start={"agent": "mcts:30,rollout=heuristic"})
    assert spelled.warm_search == "mcts:30,rollout=heuristic"
    other = play_chunk({**job, "warm": spelled.warm_search})  # heuristic rollouts: other visits
    assert np.allclose(other["policy"].sum(axis=1), 1)
    assert not np.array_equal(other["policy"], warm["policy"])
    tiny = _cfg(tmp_path, "r", selfplay={"games": 20, "simulations": 12, "leaf": "rollout"})
    assert tiny.search("m.npz") == "mcts:12,net=m.npz,leaf=rollout"


def test_sharpened_targets_are_the_visit_shares_to_a_power():
    """``target_temperature`` t turns a target policy p into p^(1/t), renormalised; 1 leaves it."""
    from experiments.train.fit import sharpen

    p = np.array([[0.5, 0.3, 0.2, 0.0], [0.0, 0.0, 1.0, 0.0]], np.float32)
    assert sharpen(p, 1.0) is p
    s = sharpen(p, 0.5)
    first = np.array([0.25, 0.09, 0.04, 0.0]) / 0.38
    assert np.allclose(s[0], first, atol=1e-6) and np.allclose(s[1], p[1])
    assert s.dtype == p.dtype


def test_the_fit_measures_how_often_the_network_plays_the_searchs_action():
    """Agreement counts only decisions with a choice; for a hint model the search's departures
    from the hint, and how often the network follows them, are counted apart."""
    from experiments.train.fit import _agreement

    mask = np.array([[1, 1, 1], [1, 1, 0], [0, 1, 0], [1, 1, 1], [1, 0, 1]], bool)
    policy = np.array(
        [[0.6, 0.3, 0.1], [0.2, 0.8, 0.0], [0.0, 1.0, 0.0], [0.1, 0.2, 0.7], [0.4, 0.0, 0.6]],
        np.float32,
    )
    net_top = np.array([0, 0, 1, 2, 0])  # agrees in rows 0, 2 (no choice) and 3
    idx = np.arange(5)
    hint = np.array([0, 0, 1, 1, 2], np.int16)  # the search departs in rows 1 and 3
    plain = _agreement(net_top, {"mask": mask, "policy": policy, "hint": -np.ones(5)}, idx)
    assert plain == {"policy_agreement": 2 / 4}
    hinted = _agreement(net_top, {"mask": mask, "policy": policy, "hint": hint}, idx)
    assert hinted == {"policy_agreement": 0.5, "search_departs": 0.5, "follows_departure": 0.5}
    assert _agreement(net_top[[2]], {"mask": mask, "policy": policy, "hint": hint}, idx[[2]]) == {}


def test_the_gate_plays_both_ways_with_more_than_two_players(ray_session, tmp_path):
    """At 3 players the gate also plays the opponent alone against the candidate's copies on the
    same deals, and keeps a network only if the lone seats' difference is above 0."""
    from experiments.train.gate import both_ways_result

    same = np.array([0.3, 0.4, 0.2, 0.5])
    r = both_ways_result(same, same, 1)
    assert r["difference"] == 0 and not r["passed"]
    r = both_ways_result(same + 0.3, same - 0.1, 1)
    assert abs(r["difference"] - 0.4) < 1e-12 and r["passed"] and r["difference_low"] > 0

    cfg = _cfg(tmp_path, "three", players=3, generations=1, gate={"deals": 12, "temperature": 0.5})
    assert cfg.gate_both_ways
    run_train(cfg, workers=2, progress=False)
    m = json.loads((cfg.output / "train.json").read_text())
    gate = m["generations"][0]["gate"]["heuristic"]
    assert {"opponent_alone", "difference", "difference_low", "difference_high"} <= set(gate)
    assert (cfg.output / "gen-000" / "gate-heuristic-alone").is_dir()
    alone = gate["win_share"] - gate["opponent_alone"]
    assert abs(gate["difference"] - alone) < 1e-9
    # the candidate played as its policy sampled at the gate's temperature, both ways round
    from experiments.train.gate import lone_shares

    played = cfg.policy(str(model_path(cfg, 0).resolve()))
    assert played.endswith(",temperature=0.5")
    assert len(lone_shares(cfg.output / "gen-000" / "gate-heuristic", played)) == 12
    from experiments.train.report import make_train_report

    report = make_train_report(cfg)["markdown"].read_text()
    assert "heuristic alone against it" in report


def test_the_self_play_search_is_any_mcts_spec_with_the_network_added(ray_session, tmp_path):
    """``selfplay.search`` names the search of generations 1.. (here with heuristic rollouts);
    the training adds the best network to it, and its games differ from those of the plain
    search with the same network. Configs without it keep their identity (and their data)."""
    from experiments.train.config import stored_identity
    from experiments.train.selfplay import play_chunk

    spelled = {"games": 20, "search": "mcts:12,rollout=heuristic", "sample_decisions": 3}
    cfg = _cfg(tmp_path, "s", selfplay={**spelled, "leaf": "rollout"})
    assert cfg.simulations == 12 and cfg.selfplay_search == "mcts:12,rollout=heuristic"
    assert cfg.search("m.npz") == "mcts:12,rollout=heuristic,net=m.npz,leaf=rollout"
    plain = _cfg(tmp_path, "p", selfplay={"games": 20, "simulations": 12, "leaf": "rollout"})
    assert plain.search("m.npz") == "mcts:12,net=m.npz,leaf=rollout"
    timed = "mcts:5ms,rollout=heuristic,net=m.npz,leaf=rollout"
    assert cfg.timed_search("m.npz") == timed  # what the report suggests
    old = json.loads(json.dumps(plain.identity()))
    del old["selfplay_search"]  # a training made before the key: the same identity
    assert stored_identity(old) == json.loads(json.dumps(plain.identity()))

    run_train(cfg, workers=2, progress=False, stop_after="1:selfplay")
    m = json.loads((cfg.output / "train.json").read_text())
    assert m["generations"][1]["data"] == "mcts:12,rollout=heuristic,net=gen-000,leaf=rollout"
    job = _chunk_job(gen=1, count=4, model=str(model_path(cfg, 0)), sample_decisions=3)
    ours = play_chunk({**job, "search": cfg.search("best")})
    chunk = np.load(cfg.output / "gen-001" / "data" / "chunk-0000000.npz")
    assert np.array_equal(ours["policy"], chunk["policy"][: len(ours["policy"])])
    other = play_chunk({**job, "search": plain.search("best")})
    assert not np.array_equal(ours["policy"], other["policy"])
