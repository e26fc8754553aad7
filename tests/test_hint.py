"""Hint models (agents/net.py): a network that also reads the game's heuristic action in a world
resampled from the seat's information set.  The numba forward pass equals PyTorch's with the
hint, the hint reveals nothing the seat cannot see, a hint model plays through the arena and
the search, and a hint training records its hints and starts as the heuristic."""

import json
import tomllib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import net  # noqa: E402
from sim import get_game  # noqa: E402
from sim.core import new_rng  # noqa: E402
from tests.test_net import _play, _random_model, _random_tensors, _states  # noqa: E402


def test_a_hint_models_numba_forward_pass_equals_torch_within_1e_5():
    from experiments.train.model import PolicyValueNet

    rng = np.random.default_rng(5)
    x = _random_tensors(rng)
    enc = net.fit_encoding(x[:200])
    torch.manual_seed(1)
    m = PolicyValueNet(net.n_inputs(enc), 32, 17, 6, hint=True)
    with torch.no_grad():
        for p in m.parameters():
            p.mul_(3.0)
    arrays = m.arrays()
    assert arrays["w1"].shape[0] == net.n_inputs(enc) + 17 and arrays["wk"].shape == (17,)
    table, enc_buf, w_buf = net.pack([{"enc": enc, **arrays}])
    assert table[0, net.T_HINT] == net.n_inputs(enc)
    masks = rng.random((100, 17)) < 0.5
    hints = rng.integers(-1, 17, 100)
    masks[np.arange(100), np.maximum(hints, 0)] = True  # the hint is legal (or none)
    test = x[200:]
    logits, values = net.forward_batch(table, 0, enc_buf, w_buf, test, masks, 4, False, hints)
    with torch.no_grad():
        tl, tv = m(torch.from_numpy(net.encode_dense(enc, test)), torch.from_numpy(hints))
    tl = tl.numpy()
    assert np.allclose(logits[masks], tl[masks], rtol=1e-5, atol=1e-5)
    expect = torch.softmax(tv[:, :4], dim=1).numpy()
    assert np.allclose(values[:, :4], expect, rtol=1e-5, atol=1e-6)
    # the hint changes the logits (its row of the first layer and its skip weight)
    none = np.full(100, -1, np.int64)
    plain, _ = net.forward_batch(table, 0, enc_buf, w_buf, test, masks, 4, False, none)
    assert not np.allclose(plain[masks], logits[masks])
    assert net.uses_hint(table, 0) and net.hint_in(net.Nets(table, enc_buf, w_buf, 1))


@pytest.mark.parametrize("name", ["ming_dynasty", "eternal_dynasty"])
def test_the_hint_reveals_nothing_the_seat_cannot_see(name):
    """The hint is the heuristic's action in a world resampled from the seat's information set,
    so its distribution is a function of that set: drawn 60 times from a state and 60 times
    from the same state with its hidden information resampled (the game's determinize), the
    two samples agree (chi-square test of each state, Bonferroni over the states at 0.001),
    and with the same random stream the hint is the same action in nearly every state."""
    from scipy.stats import chi2_contingency

    from agents.policy import hint_of

    spec = get_game(name)
    K = tuple(spec.kernels)
    states = _states(name, 4, games=3)
    same = changed = 0
    for i, (s, p) in enumerate(states):
        d = s.copy()
        spec.kernels.determinize(d, np.int64(p), new_rng(np.int64(i + 1)))
        changed += not np.array_equal(d, s)
        h1 = hint_of(K, s, np.int64(p), new_rng(np.int64(1000 + i)))
        h2 = hint_of(K, d, np.int64(p), new_rng(np.int64(1000 + i)))
        same += h1 == h2
    assert changed > len(states) // 4
    assert same >= 0.95 * len(states)
    tested = states[:: max(1, len(states) // 30)]
    for i, (s, p) in enumerate(tested):
        d = s.copy()
        spec.kernels.determinize(d, np.int64(p), new_rng(np.int64(i + 1)))
        rng_s, rng_d = new_rng(np.int64(2 * i)), new_rng(np.int64(2 * i + 1))
        a = [hint_of(K, s, np.int64(p), rng_s) for _ in range(60)]
        b = [hint_of(K, d, np.int64(p), rng_d) for _ in range(60)]
        actions = sorted(set(a) | set(b))
        if len(actions) == 1:
            continue
        counts = np.array([[a.count(x) for x in actions], [b.count(x) for x in actions]])
        assert chi2_contingency(counts)[1] > 0.001 / len(tested), (i, counts)


@pytest.mark.parametrize("name", ["ming_dynasty", "eternal_dynasty"])
def test_a_hint_model_plays_through_the_arena_and_the_search(name, tmp_path):
    """``policy:`` of a hint model whose skip weights dwarf its logits plays the hint; beside
    random seats its games are legal whole games (the arena checks every action), and
    ``mcts`` with it as ``net=`` plays too."""
    from agents.model import observation_hash, save
    from agents.policy import hint_of

    spec = get_game(name)
    states = _states(name, 4, games=2)
    m = _random_model(spec, states, hint=True)
    m["wk"][:] = 1000.0
    table, enc, w = net.pack([m])
    K = tuple(spec.kernels)
    mask = np.zeros(spec.num_actions, np.bool_)
    for i, (s, p) in enumerate(states[:40]):
        spec.kernels.legal_mask(s, mask)
        h = hint_of(K, s, np.int64(p), new_rng(np.int64(i)))
        obs = spec.observation.tensor(s, p)[None].astype(np.float32)
        logits, _ = net.forward_batch(
            table, 0, enc, w, obs, mask[None].copy(), 4, False, np.array([h])
        )
        assert mask[h] and int(np.argmax(logits[0])) == h
    path = tmp_path / "hint.npz"
    card = {"game": name, "players": [4], "observation": observation_hash(spec), "hint": True}
    save(path, {k: v for k, v in m.items() if k != "all_lose"}, card)

    s, w_, f, lengths = _play(spec, [f"policy:{path}", "random", f"policy:{path}", "random"], 2)
    assert (lengths > 0).all()
    s, w_, f, lengths = _play(spec, [f"mcts:8,net={path}", "random", "random", "random"], 1)
    assert lengths[0] > 0


TINY_HINT = """
name = "tiny_hint"
game = "ming_dynasty"
players = 4
seed = 3
output = "{out}"
generations = 1
[network]
hidden = 32
hint = true
[warm_start]
games = 30
[selfplay]
games = 4
search = "mcts:8,rollout=heuristic,rollout_depth=10"
leaf = "rollout"
net_temp = 2.0
sample_decisions = 3
[fit]
epochs = 2
batch = 256
[gate]
deals = 10
against = ["best"]
"""


def test_a_hint_training_records_its_hints_and_starts_as_the_heuristic(ray_session, tmp_path):
    """A hint training's examples carry the hint (the heuristic's action, legal, as the
    generation-0 target in most decisions), its model is a hint model with the card saying
    so, it follows the hint in most decisions, and the self-play search carries the config's
    ``net_temp``."""
    from agents.model import load
    from experiments.train.config import train_from_dict
    from experiments.train.fit import load_examples
    from experiments.train.train import gen_dir, model_path, run_train

    cfg = train_from_dict(tomllib.loads(TINY_HINT.format(out=tmp_path / "h")), "h.toml")
    assert cfg.hint and cfg.search("m.npz").endswith(",net=m.npz,leaf=rollout,net_temp=2")
    s = run_train(cfg, workers=2, progress=False)
    assert s.status == "complete"
    ex = load_examples(list((gen_dir(cfg, 0) / "data").glob("chunk-*.npz")))
    rows = np.arange(len(ex["hint"]))
    assert (ex["hint"] >= 0).all() and ex["mask"][rows, ex["hint"]].all()
    target = ex["policy"].argmax(1)
    several = ex["mask"].sum(1) > 1
    agree = (target == ex["hint"])[several].mean()
    assert 0.6 < agree < 1.0  # the heuristic's own ties are broken by another random stream
    m = load(model_path(cfg, 0))
    assert m.card["hint"] is True and "wk" in m.arrays
    spec = get_game("ming_dynasty")
    nets = net.nets_of([{**m.arrays, "all_lose": 0}], spec.observation.size)
    logits, _ = net.forward_batch(
        nets.table,
        0,
        nets.enc,
        nets.weights,
        ex["obs"][several],
        ex["mask"][several],
        4,
        False,
        ex["hint"][several].astype(np.int64),
    )
    follows = (logits.argmax(1) == ex["hint"][several]).mean()
    assert follows > 0.9
    fit = json.loads((cfg.output / "train.json").read_text())["generations"][0]["fit"]
    assert 0 <= fit["follows_departure"] <= 1 and 0 < fit["search_departs"] < 1
    from experiments.train.report import make_train_report

    report = make_train_report(cfg)["markdown"].read_text()
    assert "search departs from the hint" in report and "follows the departures" in report
