"""dynasty-lab agents as OpenSpiel bots, played by OpenSpiel's own ``evaluate_bots`` against each
other and against OpenSpiel's uniform random bot."""

import math

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from agents.spec import AgentSpecError
from dynasty_lab.envs import openspiel as dos
from dynasty_lab.envs.openspiel_bots import DynastyBot
from sim.registry import get_game

GAMES = [name[len(dos.PREFIX) :] for name in dos.register()]


def play(game, bots, seed):
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, np.random.default_rng(seed))
    return returns, state.history()


@pytest.mark.parametrize("name", GAMES)
def test_bots_play_every_registered_game(name):
    spec = get_game(name)
    n = min(spec.players())
    game = dos.load(name, n)

    def bots():
        return [DynastyBot(game, 0, "heuristic", seed=1), DynastyBot(game, 1, "mcts:4", seed=1)] + [
            DynastyBot(game, p, "random", seed=1) for p in range(2, n)
        ]

    returns, history = play(game, bots(), 3)
    assert len(returns) == n and all(0.0 <= r <= 1.0 for r in returns)
    assert sum(returns) == pytest.approx(1.0) or (spec.can_all_lose and sum(returns) == 0.0)
    assert play(game, bots(), 3) == (returns, history)  # same seeds, same game


def test_heuristic_bot_beats_openspiels_uniform_random_bot():
    """Goofspiel (13 cards), N games, the heuristic's seat alternating.  If the heuristic were
    no better than random, its mean win share (each game's in [0, 1]) would have mean at most
    1/2, and by Hoeffding's inequality P(mean >= 1/2 + t) <= exp(-2 N t^2): with t for a bound of
    1e-6 a pass is no accident."""
    game = dos.load("goofspiel", 2)
    n_games = 200
    t = math.sqrt(math.log(1e6) / (2 * n_games))  # 0.186
    rng = np.random.default_rng(7)
    shares = []
    for i in range(n_games):
        seat = i % 2
        bots = [None, None]
        bots[seat] = DynastyBot(game, seat, "heuristic", seed=i)
        bots[1 - seat] = pyspiel.make_uniform_random_bot(1 - seat, 1000 + i)
        shares.append(evaluate_bots(game.new_initial_state(), bots, rng)[seat])
    assert np.mean(shares) >= 0.5 + t


def test_a_bot_decides_on_its_seats_information_only():
    """At seat 1's bid in Goofspiel, seat 0's bid is in the engine state but hidden from seat
    1: the state the bot's agent sees has the seat's information (info_key) and a resampled
    bid."""
    game = dos.load("goofspiel", 2)
    k = get_game("goofspiel").kernels
    state = game.new_initial_state()
    for b in range(dos.SEED_BYTES):
        state.apply_action(b + 5)
    state.apply_action(state.legal_actions()[-1])  # seat 0 bids its highest card
    assert state.current_player() == 1
    seen = [DynastyBot(game, 1, "heuristic", seed=s).seen(state) for s in range(20)]
    key = k.info_key(state.s, np.int64(1))
    assert all(k.info_key(s, np.int64(1)) == key for s in seen)
    assert any(not np.array_equal(s, state.s) for s in seen)


def test_what_cannot_be_a_bot():
    game = dos.load("goofspiel", 2)
    with pytest.raises(ValueError, match="not a built-in agent"):
        DynastyBot(game, 0, "agents.examples:OnePlyEvaluate")
    with pytest.raises(ValueError, match="tree reuse"):
        DynastyBot(game, 0, "mcts:20,reuse=true")
    with pytest.raises(ValueError, match="only its seat's information"):
        DynastyBot(game, 0, "mcts:20,omniscient=true")
    with pytest.raises(AgentSpecError):
        DynastyBot(game, 0, "alphazero")
    with pytest.raises(ValueError, match="seats 0..1"):
        DynastyBot(game, 2, "random")
    with pytest.raises(TypeError, match="not a dynasty-lab game"):
        DynastyBot(pyspiel.load_game("kuhn_poker"), 0, "random")
    state = game.new_initial_state()
    for _ in range(dos.SEED_BYTES):
        state.apply_action(0)
    with pytest.raises(ValueError, match="seat 0 is to move"):
        DynastyBot(game, 1, "random").step(state)
