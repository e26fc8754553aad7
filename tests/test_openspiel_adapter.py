"""The games as OpenSpiel Python games: OpenSpiel's own consistency test (random simulations
with serialization and clone checks), the declared game types, resampling, and OpenSpiel's
ISMCTSBot and random bots playing."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from dynasty_lab.envs import openspiel as dos  # noqa: E402
from sim.registry import game_names, get_game  # noqa: E402

SIMS = {"goofspiel": 4}


def cases():
    for name in game_names():
        spec = get_game(name)
        counts = spec.players() if name == "goofspiel" else (min(spec.players()),)
        for n in counts:
            yield name, n


@pytest.mark.parametrize("name,players", list(cases()))
def test_openspiel_random_simulations_with_serialization(name, players):
    game = dos.load(name, players)
    pyspiel.random_sim_test(game, num_sims=SIMS.get(name, 1), serialize=True, verbose=False)


@pytest.mark.parametrize("name", game_names())
def test_game_types_are_declared_as_they_are(name):
    spec = get_game(name)
    game = dos.load(name, min(spec.players()))
    t = game.get_type()
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    want = pyspiel.GameType.Utility.GENERAL_SUM if spec.can_all_lose else pyspiel.GameType.Utility.CONSTANT_SUM
    assert t.utility == want
    assert game.information_state_tensor_shape() == [spec.observation.size]
    assert game.num_distinct_actions() == spec.num_actions


def _deal(state, rng):
    while state.is_chance_node():
        state.apply_action(int(rng.integers(256)))


@pytest.mark.parametrize("name", ["goofspiel", "middle_kingdom"])
def test_resampled_states_share_the_information_state(name):
    spec = get_game(name)
    game = dos.load(name, max(spec.players()))
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    _deal(state, rng)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(30):
        if state.is_terminal():
            break
        p = state.current_player()
        r = state.resample_from_infostate(p, sampler)
        assert r.information_state_string(p) == state.information_state_string(p)
        assert r.information_state_tensor(p) == state.information_state_tensor(p)
        state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("name,players", [("goofspiel", 3), ("middle_kingdom", 3)])
def test_ismcts_and_random_bots_play(name, players):
    game = dos.load(name, players, {"num_cards": 6} if name == "goofspiel" else None)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bots = [ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=np.random.RandomState(1))]
    bots += [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(1, players)]
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(256)))
            continue
        p = state.current_player()
        action = bots[p].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert sum(state.returns()) == pytest.approx(1.0)
