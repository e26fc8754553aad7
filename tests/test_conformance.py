"""The engine contract, checked on every registered game (a new game folder is picked up here).

For each game and player count: the mask is non-empty until the end, the Python API
rejects illegal actions with a clear error, games end within ``max_decisions``, cloning
then stepping leaves the original untouched, the same seed gives the same trajectory,
win shares sum to 1 (or 0 for a game that declares ``can_all_lose``), replays round-trip (from the
seed and from the chance outcomes alone), and the heuristic only plays legal actions.
"""

import json

import numpy as np
import pytest

from sim import Game, game_names, get_game
from sim.core import H_CURRENT, NO_PLAYER, IllegalActionError, OptionError, new_rng
from sim.registry import UnknownGameError

CASES = [(name, n) for name in game_names() for n in get_game(name).players()]


@pytest.mark.parametrize("name,n", CASES)
def test_random_games_follow_the_contract(name, n):
    spec = get_game(name)
    k = spec.kernels
    mask = np.zeros(spec.num_actions, np.bool_)
    for seed in range(5):
        g = Game(name, n, seed)
        rng = np.random.default_rng(seed)
        steps = 0
        while not g.is_over:
            count = k.legal_mask(g.state, mask)
            assert count == mask.sum() and count > 0
            assert 0 <= g.current_player < n and g.state[H_CURRENT] == g.current_player
            before = g.state.copy()
            clone = g.clone()
            legal = np.flatnonzero(mask)
            clone.apply(int(legal[rng.integers(len(legal))]))
            assert np.array_equal(g.state, before)  # the clone owns its state
            illegal = np.flatnonzero(~mask)
            if len(illegal):
                with pytest.raises(IllegalActionError, match="legal"):
                    g.apply(int(illegal[0]))
                assert np.array_equal(g.state, before)
            g.apply(int(legal[rng.integers(len(legal))]))
            steps += 1
            assert steps <= spec.max_decisions
        assert k.legal_mask(g.state, mask) == 0 and g.state[H_CURRENT] == NO_PLAYER
        total = sum(g.win_shares)
        assert abs(total - 1.0) < 1e-9 or (spec.can_all_lose and total == 0.0)
        assert len(g.features()) == len(spec.feature_names)


@pytest.mark.parametrize("name,n", CASES)
def test_same_seed_same_trajectory_and_replays_round_trip(name, n, tmp_path):
    a, b = Game(name, n, 42), Game(name, n, 42)
    a.play_random(np.random.default_rng(1))
    b.play_random(np.random.default_rng(1))
    assert a.history == b.history and a.scores == b.scores
    path = tmp_path / "replay.json"
    a.save_replay(path)
    rep = json.loads(path.read_text())
    assert rep["game"] == name and rep["players"] == n and rep["scores"] == a.scores
    assert all({"player", "action", "name"} <= set(d) for d in rep["decisions"])
    for use_seed in (True, False):
        c = Game.from_replay(path, use_seed=use_seed)
        assert c.scores == a.scores and c.is_over
    rep["decisions"][0]["name"] = "something else"
    with pytest.raises(ValueError, match="decision 0"):
        Game.from_replay(rep)


@pytest.mark.parametrize("name,n", CASES)
def test_heuristic_plays_legal_actions(name, n):
    spec = get_game(name)
    k = spec.kernels
    mask = np.zeros(spec.num_actions, np.bool_)
    rng = new_rng(9)
    for seed in range(5):
        s = k.new_state(np.int64(seed), np.int64(n), spec.encode_options({}))
        while not k.is_terminal(s):
            k.legal_mask(s, mask)
            a = k.heuristic(s, rng)
            assert mask[a]
            k.apply(s, a)


def test_clear_errors_for_bad_input():
    with pytest.raises(UnknownGameError, match="unknown game 'chess'.*middle_kingdom"):
        Game("chess", 2)
    with pytest.raises(OptionError, match="6 players is not allowed"):
        Game("middle_kingdom", 6)
    with pytest.raises(OptionError, match="unknown option 'colour'"):
        Game("middle_kingdom", 4, options={"colour": "red"})
    with pytest.raises(OptionError, match="'sometimes' is not allowed.*true, false"):
        Game("middle_kingdom", 4, options={"heir_optional": "sometimes"})
    with pytest.raises(OptionError, match="advanced.*3 players"):
        Game("middle_kingdom", 4, options={"variant": "advanced"})
    g = Game("middle_kingdom", 4, 1)
    with pytest.raises(
        IllegalActionError, match=r"'take Dragon' is not legal for seat 0; legal: bid 0"
    ):
        g.apply("take Dragon")
    with pytest.raises(IllegalActionError, match=r"action 13 \(pass\) is not legal for seat 0"):
        g.apply(13)
