"""The games as OpenSpiel Python games: OpenSpiel's own consistency test (random simulations
with serialization and clone checks), the declared game types, resampling, and OpenSpiel's
ISMCTSBot and random bots playing."""

import numpy as np
import pytest

pytest.importorskip("pyspiel")
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from dynasty_lab.envs import openspiel as dos
from sim.core import OptionError
from sim.registry import game_names, get_game

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
    want = (
        pyspiel.GameType.Utility.GENERAL_SUM
        if spec.can_all_lose
        else pyspiel.GameType.Utility.CONSTANT_SUM
    )
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


@pytest.mark.parametrize(
    "name,players,searched",
    [
        ("goofspiel", 3, None),
        ("middle_kingdom", 3, None),
        ("ming_dynasty", 3, 6),
        ("emperors_choice", 3, 6),
        ("eternal_dynasty", 3, 6),
    ],
)
def test_ismcts_and_random_bots_play(name, players, searched):
    """OpenSpiel's ISMCTSBot (seat 0) and random bots play a whole game; in the longer seed
    games the bot searches its first ``searched`` decisions (each search rolls out whole
    games through the Python adapter) and plays the rest at random."""
    game = dos.load(name, players, {"num_cards": 6} if name == "goofspiel" else None)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bots = [
        ismcts.ISMCTSBot(
            game, evaluator, uct_c=2.0, max_simulations=8, random_state=np.random.RandomState(1)
        )
    ]
    bots += [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(1, players)]
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    searches = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(256)))
            continue
        p = state.current_player()
        if p == 0 and searched is not None and searches >= searched:
            action = int(rng.choice(state.legal_actions()))
        else:
            action = bots[p].step(state)
            searches += p == 0
        assert action in state.legal_actions()
        state.apply_action(action)
    assert searches >= (searched or 1)
    assert sum(state.returns()) == pytest.approx(1.0)


def _spellings(o, value):
    """The ways a user may give option value ``value`` (sim's: a choice name or an int)."""
    out = [value]
    if o.choices is None:
        out.append(str(value))  # a numeric string
    elif value in ("true", "false"):
        out += [value == "true", value.upper()]
    out.append(dos.to_parameter(o, value))  # what OpenSpiel itself holds
    return out


def _players_for(spec, options):
    for n in spec.players():
        try:
            spec.check_players(n, options)
            return n
        except ValueError:
            pass
    return None


@pytest.mark.parametrize("name", game_names())
def test_every_option_value_round_trips_through_openspiel(name):
    """Every value of every option, in every spelling, loads the same game, and the game's
    string (what OpenSpiel's serialization writes) loads it back."""
    spec = get_game(name)
    for o in spec.options:
        values = o.choices if o.choices is not None else sorted({o.low, o.default, o.high})
        for value in values:
            players = _players_for(spec, {o.name: value})
            if players is None:
                continue
            for given in _spellings(o, value):
                game = dos.load(name, players, {o.name: given})
                assert game.options[o.name] == value, (o.name, given)
                again = pyspiel.load_game(str(game))
                assert again.options == game.options and again.num_players() == players
            state = game.new_initial_state()
            state.apply_action(7)  # a seed byte
            g2, s2 = pyspiel.deserialize_game_and_state(
                pyspiel.serialize_game_and_state(game, state)
            )
            assert g2.options == game.options and s2.history() == state.history()


def test_game_strings_with_numbers_and_clear_errors():
    dos.register(["middle_kingdom", "goofspiel"])
    assert (
        pyspiel.load_game("dynasty_middle_kingdom(token_limit=18)").options["token_limit"] == "18"
    )
    assert (
        pyspiel.load_game("dynasty_middle_kingdom(token_limit=-1)").options["token_limit"] == "none"
    )
    assert pyspiel.load_game("dynasty_goofspiel(num_cards=7,players=3)").options["num_cards"] == 7
    assert dos.load("goofspiel", "3", {"num_cards": " 7 "}).num_players() == 3
    with pytest.raises(
        OptionError,
        match=r"option 'token_limit': 17 is not allowed \(allowed: none \(or -1\), 18\)",
    ):
        pyspiel.load_game("dynasty_middle_kingdom(token_limit=17)")
    with pytest.raises(
        OptionError, match=r"option 'variant': 'foo' is not allowed \(allowed: standard, advanced\)"
    ):
        pyspiel.load_game("dynasty_middle_kingdom(variant=foo)")
    for bad in ("x", "5.5", 0, 21, True):
        with pytest.raises(
            OptionError, match=r"option 'num_cards': .* \(allowed: an integer 1\.\.20\)"
        ):
            dos.load("goofspiel", 2, {"num_cards": bad})
    with pytest.raises(OptionError, match="unknown option 'deck'"):
        dos.load("goofspiel", 2, {"deck": 1})
    with pytest.raises(OptionError, match=r"players 9 is not allowed \(allowed: 2, 3, 4\)"):
        dos.load("goofspiel", 9)
