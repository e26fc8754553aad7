"""Fingerprints of whole games, so that speed work on an engine or a heuristic cannot change
what it plays (issue 15).

For Eternal Dynasty and Emperor's Choice, at every player count: random games, heuristic
self-play games and MCTS games (heuristic rollouts against the heuristic) through the arena,
and the heuristic's choice in many states sampled from random games (with a fixed agent
RNG, so its tie-breaks are part of the fingerprint).  Each fingerprint is a SHA-1 of the
scores, win shares, features and lengths of the games (and of the chosen actions), checked
against the value the engines gave before the speed work (commit 695ec31).  A change to
the rules or to the heuristic's policy changes them on purpose: re-record them then
(``python -m tests.test_engine_fingerprints`` prints the current values).
"""

import hashlib

import numpy as np
import pytest

from agents.arena import HEURISTIC, MCTS, N_AGENT_PARAMS, RANDOM, choose_action, play_games
from agents.spec import parse_agent
from sim import get_game
from sim.core import new_rng

GAMES = ("eternal_dynasty", "emperors_choice")


def _digest(*arrays) -> str:
    h = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _games(spec, n, kinds, params, games, first_seed):
    seats = np.zeros((games, n), np.int64)
    if len(kinds) > 1:  # agent 0 in one seat, rotating; agent 1 in the others
        seats[:] = 1
        seats[np.arange(games), np.arange(games) % n] = 0
    seeds = np.arange(first_seed, first_seed + games)
    return _digest(*play_games(spec, seeds, n, spec.encode_options({}), seats, np.array(kinds),
                               np.array(params, np.float64)))


def random_fingerprint(name, n, games=200):
    return _games(get_game(name), n, [RANDOM], np.zeros((1, N_AGENT_PARAMS)), games, 1000)


def heuristic_fingerprint(name, n, games=6):
    return _games(get_game(name), n, [HEURISTIC], np.zeros((1, N_AGENT_PARAMS)), games, 2000)


def mcts_fingerprint(name, n, games=1):
    _, mcts, _ = parse_agent("mcts:8,rollout=heuristic,rollout_depth=10")
    return _games(get_game(name), n, [MCTS, HEURISTIC], np.stack([mcts, np.zeros(N_AGENT_PARAMS)]), games, 3000)


def choices_fingerprint(name, n, games=6, every=3):
    """The heuristic's action in every ``every``-th state of ``games`` random games."""
    spec = get_game(name)
    K = spec.kernels
    kernels = tuple(K)
    mask = np.zeros(spec.num_actions, np.bool_)
    chosen = []
    for g in range(games):
        state = K.new_state(np.int64(4000 + g), np.int64(n), spec.encode_options({}))
        rng = new_rng(g)
        pick = np.random.default_rng(4000 + g)
        k = 0
        while not K.is_terminal(state):
            if k % every == 0:
                chosen.append(choose_action(kernels, state.copy(), HEURISTIC, np.zeros(N_AGENT_PARAMS), rng, mask))
            K.legal_mask(state, mask)
            legal = np.flatnonzero(mask)
            K.apply(state, np.int64(legal[int(pick.integers(len(legal)))]))
            k += 1
    return _digest(np.array(chosen, np.int64))


EXPECTED = {
    ('eternal_dynasty', 2, 'random'): '3468bc85b19d1fd7',
    ('eternal_dynasty', 2, 'heuristic'): '3740098ba7a27af0',
    ('eternal_dynasty', 2, 'choices'): '9d6c201abdfe479c',
    ('eternal_dynasty', 2, 'mcts'): '5f8d59a58b09bf1d',
    ('eternal_dynasty', 3, 'random'): '9b157de76e7f7f32',
    ('eternal_dynasty', 3, 'heuristic'): 'b919f1921e0593c6',
    ('eternal_dynasty', 3, 'choices'): '075cfe2d69cc1692',
    ('eternal_dynasty', 3, 'mcts'): '460cd3106a5d95c3',
    ('eternal_dynasty', 4, 'random'): '482ace8815e0ddb6',
    ('eternal_dynasty', 4, 'heuristic'): '1db00a017100f1e8',
    ('eternal_dynasty', 4, 'choices'): '8c6526178c2cdc1e',
    ('eternal_dynasty', 4, 'mcts'): 'efc0c6267314d37e',
    ('eternal_dynasty', 5, 'random'): '500c0eb9b433b19b',
    ('eternal_dynasty', 5, 'heuristic'): 'ca39f2dbe20c2a68',
    ('eternal_dynasty', 5, 'choices'): '741d3d55e6c5a29a',
    ('eternal_dynasty', 5, 'mcts'): '808b40e0993d829e',
    ('emperors_choice', 3, 'random'): 'eed248e929546c32',
    ('emperors_choice', 3, 'heuristic'): '828b158b7612308f',
    ('emperors_choice', 3, 'choices'): 'db8c4297a9999551',
    ('emperors_choice', 3, 'mcts'): '2698b857cfc5e6ac',
    ('emperors_choice', 4, 'random'): 'd3cc67b29130cd27',
    ('emperors_choice', 4, 'heuristic'): 'd6236a95589e3fc0',
    ('emperors_choice', 4, 'choices'): '7e00a7726abacd8d',
    ('emperors_choice', 4, 'mcts'): 'ccab257f25ab2357',
    ('emperors_choice', 5, 'random'): 'e1cfb185ab63bbd6',
    ('emperors_choice', 5, 'heuristic'): '14ac134134da48f2',
    ('emperors_choice', 5, 'choices'): 'af5d090cccd68069',
    ('emperors_choice', 5, 'mcts'): '2036ef5f76521296',
}


def current():
    out = {}
    for name in GAMES:
        for n in get_game(name).players():
            out[(name, n, "random")] = random_fingerprint(name, n)
            out[(name, n, "heuristic")] = heuristic_fingerprint(name, n)
            out[(name, n, "choices")] = choices_fingerprint(name, n)
            out[(name, n, "mcts")] = mcts_fingerprint(name, n)
    return out


CASES = sorted(EXPECTED)


@pytest.mark.parametrize("name,n,what", CASES)
def test_fingerprint(name, n, what):
    fn = {"random": random_fingerprint, "heuristic": heuristic_fingerprint, "choices": choices_fingerprint,
          "mcts": mcts_fingerprint}[what]
    assert fn(name, n) == EXPECTED[(name, n, what)]


if __name__ == "__main__":
    for key, value in current().items():
        print(f"    {key!r}: {value!r},")
