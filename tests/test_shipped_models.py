"""The models shipped in agents/models/: each is the product of the training config of the same
name in experiments/configs/train/ and reads the observation layout its game has today; their
policies against the heuristic at 4 players on shared deals, both ways round (docs/training.md)."""

import json
from pathlib import Path

import numpy as np
import pytest

from agents.model import load, observation_hash, shipped_models
from experiments.train.config import load_train, stored_identity
from sim import get_game

CONFIGS = Path(__file__).resolve().parents[1] / "experiments" / "configs" / "train"


def test_the_seed_games_models_are_shipped():
    assert {"middle_kingdom", "emperors_choice"} <= set(shipped_models())


@pytest.mark.parametrize("name", shipped_models())
def test_a_shipped_model_comes_from_its_training_config(name):
    card = load(name).card
    cfg = load_train(CONFIGS / f"{name}.toml")
    assert card["game"] == cfg.game and card["players"] == list(cfg.players)
    assert card["observation"] == observation_hash(get_game(cfg.game))
    assert stored_identity(card["training"]) == json.loads(json.dumps(cfg.identity()))
    assert card["train_s"] <= 3 * 3600
    assert card["generation"] < cfg.generations


def _lone_seat_shares(game: str, alone: str, others: str, deals: int) -> np.ndarray:
    """``alone``'s mean win share per deal, one seat against three ``others``, rotated through
    the seats of ``deals`` shared deals."""
    from agents.arena import play_games
    from agents.model import run_nets
    from agents.spec import parse_agent

    spec = get_game(game)
    labels = [alone, others]
    rows = [parse_agent(x) for x in labels]
    kinds = np.array([r[0] for r in rows])
    params, nets = run_nets(spec, 4, kinds, np.array([r[1] for r in rows]), labels)
    seeds = np.repeat(np.arange(1000, 1000 + deals), 4)
    seat_agent = np.ones((deals * 4, 4), np.int64)
    seat_agent[np.arange(deals * 4), np.tile(np.arange(4), deals)] = 0
    opts = spec.encode_options({})
    _, wins, _, _ = play_games(spec, seeds, 4, opts, seat_agent, kinds, params, nets=nets)
    return (wins * (seat_agent == 0)).sum(axis=1).reshape(deals, 4).mean(axis=1)


def _interval(share: np.ndarray) -> tuple[float, float]:
    half = 2.576 * share.std(ddof=1) / np.sqrt(len(share))  # 99%, normal over deals
    return share.mean() - half, share.mean() + half


def test_the_emperors_choice_policy_beats_the_heuristic_both_ways():
    """At 4 players on 100 shared deals: ``policy:emperors_choice`` alone against three
    heuristics wins more than its share (1/4), and the heuristic alone against three copies
    of the policy less, each by a 99% interval over deals."""
    policy_alone = _lone_seat_shares("emperors_choice", "policy:emperors_choice", "heuristic", 100)
    heuristic_alone = _lone_seat_shares(
        "emperors_choice", "heuristic", "policy:emperors_choice", 100
    )
    assert _interval(policy_alone)[0] > 0.25, policy_alone.mean()
    assert _interval(heuristic_alone)[1] < 0.25, heuristic_alone.mean()


def test_the_middle_kingdom_policy_wins_alone_but_not_the_other_way_round():
    """What docs/training.md says of ``policy:middle_kingdom``: alone against three heuristics
    it wins more than 1/4 of the games, but the heuristic alone against three copies of it wins
    more than 1/4 too (the policy is not the stronger player; its one-way gate passed)."""
    policy_alone = _lone_seat_shares("middle_kingdom", "policy:middle_kingdom", "heuristic", 100)
    heuristic_alone = _lone_seat_shares("middle_kingdom", "heuristic", "policy:middle_kingdom", 100)
    assert _interval(policy_alone)[0] > 0.25, policy_alone.mean()
    assert _interval(heuristic_alone)[0] > 0.25, heuristic_alone.mean()
