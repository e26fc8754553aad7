"""Observation tensors (sim.observe): no leak, nothing lost, fixed shape, documented.

Over random states of every game and player count, for every seat:

- states the seat cannot tell apart (its ``determinize`` resamples: same ``info_key``) give
  the same information-state tensor, and every state gives every seat the same public
  tensor as all its determinizations;
- the tensor tells apart what the seat can tell apart: equal tensors exactly when equal
  ``info_key`` over all the states and seats seen (so it changes whenever what the seat
  knows changes); for the masked-state games the test also recomputes ``info_key`` from the
  masked words and checks every hashed word is in the tensor, exactly (float32).
"""

import numpy as np
import pytest

from sim.core import NO_PLAYER, new_rng
from sim.registry import game_names, get_game

SAMPLES = {
    "goofspiel": 1,
    "middle_kingdom": 3,
    "ming_dynasty": 4,
    "emperors_choice": 8,
    "eternal_dynasty": 12,
}
GAMES_PER_COUNT = {"goofspiel": 4}


def random_states(spec, players, games, every, seed):
    k = spec.kernels
    mask = np.zeros(spec.num_actions, np.bool_)
    rng = np.random.default_rng(seed)
    for g in range(games):
        s = k.new_state(np.int64(seed * 1000 + g), np.int64(players), spec.encode_options())
        i = 0
        while True:
            if i % every == 0 or k.is_terminal(s):
                yield s.copy()
            if k.is_terminal(s):
                break
            k.legal_mask(s, mask)
            k.apply(s, np.int64(rng.choice(np.flatnonzero(mask))))
            i += 1


def cases():
    for name in game_names():
        for n in get_game(name).players():
            yield name, n


@pytest.mark.parametrize("name,players", list(cases()))
def test_same_info_key_same_observation_and_back(name, players):
    spec = get_game(name)
    obs = spec.observation
    assert obs is not None, f"{name} has no observation tensor"
    k = spec.kernels
    by_key, by_obs = {}, {}
    n_states = 0
    for s in random_states(
        spec, players, GAMES_PER_COUNT.get(name, 1), SAMPLES[name], seed=players
    ):
        n_states += 1
        pub = obs.public(s)
        assert pub.shape == (obs.size,) and pub.dtype == np.float32
        for p in range(players):
            t = obs.tensor(s, p)
            assert t.shape == (obs.size,)
            assert (
                t[:players].tolist() == [1.0 if q == p else 0.0 for q in range(players)]
                or name == "goofspiel"
            )
            key = int(k.info_key(s, np.int64(p)))
            b = t.tobytes()
            assert by_key.setdefault((p, key), b) == b, (
                f"{name}: same info_key, different tensors (seat {p})"
            )
            assert by_obs.setdefault(b, (p, key)) == (p, key), (
                f"{name}: same tensor, different info_key"
            )
            for r in range(2):
                d = s.copy()
                k.determinize(d, np.int64(p), new_rng(np.int64(n_states * 7 + r)))
                assert int(k.info_key(d, np.int64(p))) == key
                assert np.array_equal(obs.tensor(d, p), t), (
                    f"{name}: the tensor of seat {p} leaks what it cannot see"
                )
                assert np.array_equal(obs.public(d), pub), (
                    f"{name}: the public tensor leaks seat {p}'s secrets"
                )
    assert n_states >= 10
    assert len(by_key) == len(by_obs)


def _masked_module(name):
    import importlib

    return importlib.import_module(f"sim.{name}.observe")


@pytest.mark.parametrize(
    "name", ["middle_kingdom", "ming_dynasty", "emperors_choice", "eternal_dynasty"]
)
def test_masked_state_is_exactly_what_info_key_hashes(name):
    spec = get_game(name)
    mod = _masked_module(name)
    k = spec.kernels
    players = max(spec.players())
    seats = min(spec.players())
    for n in (seats, players):
        for s in random_states(spec, n, 1, SAMPLES[name] * 2, seed=11):
            for p in list(range(n)) + [NO_PLAYER]:
                if p >= 0:
                    assert int(mod.key(s, np.int64(p))) == int(k.info_key(s, np.int64(p)))
                if name == "emperors_choice":
                    hidden = np.zeros(mod.MAXP, np.int64)
                    c = mod.masked(s, np.int64(p), hidden)
                else:
                    c = mod.masked(s, np.int64(p))
                rest = np.ones(c.shape[0], bool)
                rest[mod.INDEX] = False
                assert not c[rest].any(), (
                    f"{name}: hashed words missing from the tensor: {np.flatnonzero(c * rest)[:5]}"
                )
                t = mod.OBSERVATION.tensor(s, p)
                assert np.array_equal(
                    t[mod.MAXP : mod.MAXP + mod.INDEX.size].astype(np.int64), c[mod.INDEX]
                )


def test_goofspiel_tensor_shows_own_bid_only_to_its_bidder():
    from sim import Game

    g = Game("goofspiel", players=3, seed=1, options={"num_cards": 5})
    obs = g.spec.observation
    before = [obs.tensor(g.state, p) for p in range(3)]
    g.apply(2)  # seat 0 bids 3
    after = [obs.tensor(g.state, p) for p in range(3)]
    f = {x.name: x for x in obs.fields}
    own = f["own_bid"]
    assert (
        after[0][own.offset + 2] == 1 and not after[1][own.offset : own.offset + own.length].any()
    )
    assert not np.array_equal(
        before[1], after[1]
    )  # seat 1 learns that seat 0 has bid (and it is to move)
    assert "bid 3" in obs.string(g.state, 0) and "bid 3" not in obs.string(g.state, 1)
    assert "has bid" in obs.string(g.state, 1)


@pytest.mark.parametrize("name", game_names())
def test_layout_table_covers_the_tensor_and_is_documented(name):
    from pathlib import Path

    obs = get_game(name).observation
    covered = np.zeros(obs.size, int)
    for f in obs.fields:
        covered[f.offset : f.offset + f.length] += 1
    assert (covered[get_game(name).players()[-1] :] <= 1).all() and covered.max() == 1
    assert (
        (covered[:5] == 1).all()
        or name == "goofspiel"
        and obs.fields[-1].offset + obs.fields[-1].length == obs.size
    )
    doc = Path(__file__).resolve().parents[1] / "docs" / "games" / f"{name}.md"
    text = doc.read_text()
    from sim.observe import layout_table

    assert "## Observation tensor" in text and f"shape ({obs.size},)" in text
    assert layout_table(obs) in text, f"docs/games/{name}.md: the observation table is out of date"
