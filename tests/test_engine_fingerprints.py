"""Fingerprints of whole games, so that speed work on an engine or a heuristic cannot change
what it plays (issue 15).

For every game at every player count: random games, heuristic
self-play games and MCTS games (heuristic rollouts against the heuristic) through the arena,
and the heuristic's choice in many states sampled from random games (with a fixed agent
RNG, so its tie-breaks are part of the fingerprint).  Each fingerprint is a SHA-1 of the
scores, win shares, features and lengths of the games (and of the chosen actions), checked
against the value the engines gave before the speed work (commit 695ec31).  A change to
the rules or to the heuristic's policy changes them on purpose: re-record them then
(``python -m tests.test_engine_fingerprints`` prints the current values).

Eternal Dynasty's heuristic changed its policy twice (docs/games/eternal_dynasty.md,
"Heuristic"); the earlier policies are kept as user kernels whose games and choices must not
change: trying every legal choice (``sim.eternal_dynasty.heuristic:exhaustive``) still gives
the fingerprints of 695ec31 (``heuristic`` and ``choices``), trying a shortlist of the main
action's placements (``...:shortlisted``) those of ``shortlist`` and ``shortlist choices``;
``estimated`` and ``estimated choices`` fix the heuristic's, and ``mcts`` its rollouts'.
"""

import hashlib

import numpy as np
import pytest

from agents.arena import play_games
from agents.decision import choose_action
from agents.spec import parse_agent
from agents.table import HEURISTIC, MCTS, N_AGENT_PARAMS, RANDOM, USER_KERNEL
from sim import get_game
from sim.core import new_rng

GAMES = ("eternal_dynasty", "emperors_choice", "middle_kingdom", "ming_dynasty", "goofspiel")


def _digest(*arrays) -> str:
    h = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _games(spec, n, kinds, params, games, first_seed, user_agents=None):
    seats = np.zeros((games, n), np.int64)
    if len(kinds) > 1:  # agent 0 in one seat, rotating; agent 1 in the others
        seats[:] = 1
        seats[np.arange(games), np.arange(games) % n] = 0
    seeds = np.arange(first_seed, first_seed + games)
    return _digest(
        *play_games(
            spec,
            seeds,
            n,
            spec.encode_options({}),
            seats,
            np.array(kinds),
            np.array(params, np.float64),
            user_agents=user_agents,
        )
    )


def _kept(name, policy):
    """The user kernel of an earlier policy the game keeps beside its heuristic (else None):
    Eternal Dynasty's ``exhaustive`` and ``shortlisted``."""
    if name == "eternal_dynasty" and policy is not None:
        from sim.eternal_dynasty import heuristic

        return getattr(heuristic, policy)
    return None


def random_fingerprint(name, n, games=200):
    return _games(get_game(name), n, [RANDOM], np.zeros((1, N_AGENT_PARAMS)), games, 1000)


def heuristic_fingerprint(name, n, games=6, policy="exhaustive"):
    """Heuristic self-play; the game's kept ``policy`` where it has one (None: the heuristic)."""
    agent = _kept(name, policy)
    if agent is not None:
        return _games(
            get_game(name), n, [USER_KERNEL], np.zeros((1, N_AGENT_PARAMS)), games, 2000, [agent]
        )
    return _games(get_game(name), n, [HEURISTIC], np.zeros((1, N_AGENT_PARAMS)), games, 2000)


def mcts_fingerprint(name, n, games=1):
    _, mcts, _ = parse_agent("mcts:8,rollout=heuristic,rollout_depth=10")
    return _games(
        get_game(name),
        n,
        [MCTS, HEURISTIC],
        np.stack([mcts, np.zeros(N_AGENT_PARAMS)]),
        games,
        3000,
    )


def choices_fingerprint(name, n, games=6, every=3, policy="exhaustive"):
    """The heuristic's action (the kept ``policy``'s where the game has one) in every
    ``every``-th state of ``games`` random games."""
    agent = _kept(name, policy)
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
                if agent is not None:
                    chosen.append(agent(state.copy(), mask, rng))
                else:
                    chosen.append(
                        choose_action(
                            kernels, state.copy(), HEURISTIC, np.zeros(N_AGENT_PARAMS), rng, mask
                        )
                    )
            K.legal_mask(state, mask)
            legal = np.flatnonzero(mask)
            K.apply(state, np.int64(legal[int(pick.integers(len(legal)))]))
            k += 1
    return _digest(np.array(chosen, np.int64))


EXPECTED = {
    ("eternal_dynasty", 2, "random"): "3468bc85b19d1fd7",
    ("eternal_dynasty", 2, "heuristic"): "3740098ba7a27af0",
    ("eternal_dynasty", 2, "choices"): "9d6c201abdfe479c",
    ("eternal_dynasty", 2, "mcts"): "aa9682941c6a24af",
    ("eternal_dynasty", 2, "shortlist"): "47e885034d18b982",
    ("eternal_dynasty", 2, "shortlist choices"): "7eb96c32f98a91fd",
    ("eternal_dynasty", 2, "estimated"): "72e6b519cdc54081",
    ("eternal_dynasty", 2, "estimated choices"): "8a18c20361d6ac0e",
    ("eternal_dynasty", 3, "random"): "9b157de76e7f7f32",
    ("eternal_dynasty", 3, "heuristic"): "b919f1921e0593c6",
    ("eternal_dynasty", 3, "choices"): "075cfe2d69cc1692",
    ("eternal_dynasty", 3, "mcts"): "fa8c90a3a2ce01ba",
    ("eternal_dynasty", 3, "shortlist"): "0cd3f9f9b7cd1d81",
    ("eternal_dynasty", 3, "shortlist choices"): "bbd8bea4b79370c2",
    ("eternal_dynasty", 3, "estimated"): "7adc7c8eb4c4932f",
    ("eternal_dynasty", 3, "estimated choices"): "d4f736bfae3ae5ef",
    ("eternal_dynasty", 4, "random"): "482ace8815e0ddb6",
    ("eternal_dynasty", 4, "heuristic"): "1db00a017100f1e8",
    ("eternal_dynasty", 4, "choices"): "8c6526178c2cdc1e",
    ("eternal_dynasty", 4, "mcts"): "8be2a540566259fe",
    ("eternal_dynasty", 4, "shortlist"): "0ef8287a33148a49",
    ("eternal_dynasty", 4, "shortlist choices"): "95331cc531349be3",
    ("eternal_dynasty", 4, "estimated"): "da3491a312ef7a42",
    ("eternal_dynasty", 4, "estimated choices"): "d947b95a969a2a15",
    ("eternal_dynasty", 5, "random"): "500c0eb9b433b19b",
    ("eternal_dynasty", 5, "heuristic"): "ca39f2dbe20c2a68",
    ("eternal_dynasty", 5, "choices"): "741d3d55e6c5a29a",
    ("eternal_dynasty", 5, "mcts"): "caaf0e752368e0d2",
    ("eternal_dynasty", 5, "shortlist"): "ec52d1d66b909d7a",
    ("eternal_dynasty", 5, "shortlist choices"): "a6c6af431c3b5472",
    ("eternal_dynasty", 5, "estimated"): "47325fdafe646539",
    ("eternal_dynasty", 5, "estimated choices"): "d7ef8c4b3ad344dd",
    ("emperors_choice", 3, "random"): "eed248e929546c32",
    ("emperors_choice", 3, "heuristic"): "828b158b7612308f",
    ("emperors_choice", 3, "choices"): "db8c4297a9999551",
    ("emperors_choice", 3, "mcts"): "2698b857cfc5e6ac",
    ("emperors_choice", 4, "random"): "d3cc67b29130cd27",
    ("emperors_choice", 4, "heuristic"): "d6236a95589e3fc0",
    ("emperors_choice", 4, "choices"): "7e00a7726abacd8d",
    ("emperors_choice", 4, "mcts"): "ccab257f25ab2357",
    ("emperors_choice", 5, "random"): "e1cfb185ab63bbd6",
    ("emperors_choice", 5, "heuristic"): "14ac134134da48f2",
    ("emperors_choice", 5, "choices"): "af5d090cccd68069",
    ("emperors_choice", 5, "mcts"): "2036ef5f76521296",
    ("middle_kingdom", 2, "random"): "82772a50effdcd5c",
    ("middle_kingdom", 2, "heuristic"): "1c72dce473d6f13b",
    ("middle_kingdom", 2, "choices"): "2cca3e1b6c7a114b",
    ("middle_kingdom", 2, "mcts"): "6e834b14b02ea0d3",
    ("middle_kingdom", 3, "random"): "7adb587bcbeb1545",
    ("middle_kingdom", 3, "heuristic"): "9e7bf8fc04064152",
    ("middle_kingdom", 3, "choices"): "67477ff26a4bd2b6",
    ("middle_kingdom", 3, "mcts"): "4da90bde922715f7",
    ("middle_kingdom", 4, "random"): "ab96fa24536ddff4",
    ("middle_kingdom", 4, "heuristic"): "a7eefe3ff9233636",
    ("middle_kingdom", 4, "choices"): "d74f5534c750146c",
    ("middle_kingdom", 4, "mcts"): "d1560014f117be5f",
    ("middle_kingdom", 5, "random"): "4aa8ce2653d265fa",
    ("middle_kingdom", 5, "heuristic"): "529bf210b7358e4d",
    ("middle_kingdom", 5, "choices"): "6b300ddc179cbee8",
    ("middle_kingdom", 5, "mcts"): "3c175c75d88de3df",
    ("ming_dynasty", 2, "random"): "c19fd4d9d3da40f2",
    ("ming_dynasty", 2, "heuristic"): "63c370a5fd305405",
    ("ming_dynasty", 2, "choices"): "8b7df4e7cafba632",
    ("ming_dynasty", 2, "mcts"): "25651cd4e269eede",
    ("ming_dynasty", 3, "random"): "b44c7079899c0fcb",
    ("ming_dynasty", 3, "heuristic"): "19c95445ee915d2a",
    ("ming_dynasty", 3, "choices"): "be32692b0578e164",
    ("ming_dynasty", 3, "mcts"): "bb7536df5bad7ae5",
    ("ming_dynasty", 4, "random"): "267fff998d255582",
    ("ming_dynasty", 4, "heuristic"): "88354097f9c6681c",
    ("ming_dynasty", 4, "choices"): "3a89f2dea82617e6",
    ("ming_dynasty", 4, "mcts"): "57371214ff15ee60",
    ("goofspiel", 2, "random"): "ef4359ea4f932dd6",
    ("goofspiel", 2, "heuristic"): "46cb61d36d27df9c",
    ("goofspiel", 2, "choices"): "00e3b2c6f81c2138",
    ("goofspiel", 2, "mcts"): "b05aea993be0985f",
    ("goofspiel", 3, "random"): "23f909ed30e089c6",
    ("goofspiel", 3, "heuristic"): "40466406f6922b77",
    ("goofspiel", 3, "choices"): "ed74a5e057cafc23",
    ("goofspiel", 3, "mcts"): "137b912b133062fa",
    ("goofspiel", 4, "random"): "f315a02194b8f608",
    ("goofspiel", 4, "heuristic"): "b1a45e589daf31cb",
    ("goofspiel", 4, "choices"): "926b54c068805871",
    ("goofspiel", 4, "mcts"): "2e7a80e89449bb5c",
}


def current():
    out = {}
    for name in GAMES:
        for n in get_game(name).players():
            out[(name, n, "random")] = random_fingerprint(name, n)
            out[(name, n, "heuristic")] = heuristic_fingerprint(name, n)
            out[(name, n, "choices")] = choices_fingerprint(name, n)
            out[(name, n, "mcts")] = mcts_fingerprint(name, n)
            if _kept(name, "shortlisted") is not None:
                out[(name, n, "shortlist")] = heuristic_fingerprint(name, n, policy="shortlisted")
                out[(name, n, "shortlist choices")] = choices_fingerprint(
                    name, n, policy="shortlisted"
                )
                out[(name, n, "estimated")] = heuristic_fingerprint(name, n, policy=None)
                out[(name, n, "estimated choices")] = choices_fingerprint(name, n, policy=None)
    return out


CASES = sorted(EXPECTED)


@pytest.mark.parametrize("name,n,what", CASES)
def test_fingerprint(name, n, what):
    fn = {
        "random": random_fingerprint,
        "heuristic": heuristic_fingerprint,
        "choices": choices_fingerprint,
        "mcts": mcts_fingerprint,
        "shortlist": lambda name, n: heuristic_fingerprint(name, n, policy="shortlisted"),
        "shortlist choices": lambda name, n: choices_fingerprint(name, n, policy="shortlisted"),
        "estimated": lambda name, n: heuristic_fingerprint(name, n, policy=None),
        "estimated choices": lambda name, n: choices_fingerprint(name, n, policy=None),
    }[what]
    assert fn(name, n) == EXPECTED[(name, n, what)]


if __name__ == "__main__":
    for key, value in current().items():
        print(f"    {key!r}: {value!r},")
