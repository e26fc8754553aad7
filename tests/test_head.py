"""Linear heads (agents/net.py ``wf``): at a decision where the game gives per-action features
(the contract's ``action_features``; Eternal Dynasty's main action), a model's logits are the
features times the head's weights.  The numba logits equal PyTorch's, Eternal Dynasty's
features are what they say and read nothing the seat cannot see, a head model plays its head
at the main action and its network elsewhere, a training with ``[head]`` records the search's
visits at the main actions and fits the head reproducibly, and a head built for other features
is refused."""

import json
import tomllib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import net  # noqa: E402
from sim import get_game  # noqa: E402
from sim.core import new_rng  # noqa: E402
from tests.test_net import _random_model, _states  # noqa: E402

ED = "eternal_dynasty"


def test_a_linear_heads_numba_logits_equal_torch_within_1e_5():
    from experiments.train.model import LinearHead

    rng = np.random.default_rng(3)
    feats = rng.normal(size=(50, 17, 9)).astype(np.float32)
    masks = rng.random((50, 17)) < 0.6
    masks[:, 0] = True
    torch.manual_seed(2)
    head = LinearHead(9)
    with torch.no_grad():
        head.wf.normal_()
    wf = head.wf.detach().numpy().copy()
    m = {"enc": np.zeros((0, net.ENC_COLS), np.int32), "wf": wf}
    for name, shape in (("w1", (1, 4)), ("b1", (4,)), ("w2", (4, 4)), ("b2", (4,))):
        m[name] = np.zeros(shape, np.float32)
    m.update(wp=np.zeros((4, 17), np.float32), bp=np.zeros(17, np.float32))
    m.update(wv=np.zeros((4, 5), np.float32), bv=np.zeros(5, np.float32))
    table, _, w = net.pack([m])
    assert net.head_size(table, 0) == 9
    logits = np.zeros(17, np.float32)
    with torch.no_grad():
        expect = head(torch.from_numpy(feats)).numpy()
    for r in range(50):
        net.head_logits(table, 0, w, feats[r], masks[r], logits)
        assert np.allclose(logits[masks[r]], expect[r][masks[r]], rtol=1e-5, atol=1e-5)
        assert np.isneginf(logits[~masks[r]]).all()


def _features(spec, states):
    from agents.policy import features_of

    K = tuple(spec.kernels)
    out = []
    mask = np.zeros(spec.num_actions, np.bool_)
    for i, (s, p) in enumerate(states):
        spec.kernels.legal_mask(s, mask)
        feats = np.zeros((spec.num_actions, len(spec.action_features)), np.float32)
        hint, k = features_of(K, s, np.int64(p), new_rng(np.int64(i)), mask, feats)
        out.append((hint, k, mask.copy(), feats))
    return out


def test_eternal_dynastys_action_features_are_what_they_say():
    """Features at the main action with a choice only; there, per legal action: the gap to the
    best try in [-1, 0] with at least one at 0, one block, the province of a placement, the
    Generation's block, the tied best sharing 1, and the hint marked once (and legal)."""
    from sim.eternal_dynasty.layout import A_CARD, A_SKIP, G_GEN
    from sim.eternal_dynasty.rules import TK_ACTION, top

    spec = get_game(ED)
    names = spec.action_features
    col = {n: i for i, n in enumerate(names)}
    states = _states(ED, 4, games=2, every=3)
    seen = 0
    for (s, _), (hint, k, mask, f) in zip(states, _features(spec, states)):
        main = s[top(s)] == TK_ACTION and mask.sum() > 1
        assert k == (len(names) if main else 0)
        if not main:
            continue
        seen += 1
        assert not f[~mask].any()
        legal = f[mask]
        gap = legal[:, col["gap/8"]]
        assert (gap <= 0).all() and (gap >= -1).all() and gap.max() == 0
        assert np.array_equal(legal[:, col["gap=0"]], (gap == 0).astype(np.float32))
        blocks = legal[:, col["block:military"] : col["block:pass"] + 1]
        assert (blocks.sum(1) == 1).all()
        tied = legal[:, col["tied:military"] : col["tied:pass"] + 1].sum()
        assert tied == pytest.approx(1.0)
        g = min(max(int(s[G_GEN]), 1), 5)  # Generations 1-5 (a later one in the fifth)
        gen = legal[:, col[f"generation:{g}:military"] : col[f"generation:{g}:pass"] + 1]
        assert np.array_equal(gen, blocks)
        assert mask[hint] and f[hint, col["hint"]] == 1 and legal[:, col["hint"]].sum() == 1
        for a in np.flatnonzero(mask):
            if a < 36:
                assert f[a, col[f"province:{a // 2}"]] == 1 and f[a, col["block:military"] + a % 2]
            elif A_CARD <= a < A_SKIP:
                assert f[a, col["block:card"]] == 1
    assert seen >= 10


def test_the_action_features_read_nothing_the_seat_cannot_see():
    """From a state and from the same state with its hidden information resampled (the game's
    determinize), with the same random stream, the features are the same in nearly every
    state (the hint test's bound), while the states differ."""
    spec = get_game(ED)
    states = _states(ED, 4, games=2, every=3)
    resampled = []
    for i, (s, p) in enumerate(states):
        d = s.copy()
        spec.kernels.determinize(d, np.int64(p), new_rng(np.int64(i + 1)))
        resampled.append((d, p))
    a, b = _features(spec, states), _features(spec, resampled)
    main = [i for i, x in enumerate(a) if x[1] > 0]
    assert len(main) >= 10
    changed = sum(not np.array_equal(states[i][0], resampled[i][0]) for i in main)
    same = sum(np.array_equal(a[i][3], b[i][3]) and a[i][0] == b[i][0] for i in main)
    assert changed > len(main) // 4
    assert same >= 0.95 * len(main)


def _head_model(spec, states, tmp_path, weights: dict[str, float]):
    from agents.model import observation_hash, save

    m = _random_model(spec, states, hint=True)
    m["wk"][:] = 1000.0  # elsewhere the network plays the hint
    wf = np.zeros(len(spec.action_features), np.float32)
    for name, w in weights.items():
        wf[spec.action_features.index(name)] = w
    m["wf"] = wf
    path = tmp_path / "head.npz"
    card = {
        "game": spec.name,
        "players": [4],
        "observation": observation_hash(spec),
        "hint": True,
        "action_features": list(spec.action_features),
    }
    save(path, {k: v for k, v in m.items() if k != "all_lose"}, card)
    return path


def _pass_head_decisions(tmp_path, agent: str, count: int):
    """A head model with all its weight on passing (its network plays the hint), ``agent``
    (``{path}``: the model's file) loaded as a run loads it, and the first ``count`` states of
    two 4-player games as ``(i, state, legal mask, hint, features given)`` read from stream
    ``i``.  Returns ``(spec, path, (kind, params, label, nets), decisions)``."""
    from agents.model import run_nets
    from agents.policy import features_of
    from agents.spec import parse_agent

    spec = get_game(ED)
    states = _states(ED, 4, games=2, every=3)
    path = _head_model(spec, states, tmp_path, {"block:pass": 50.0})
    kind, params, label = parse_agent(agent.format(path=path))
    params, nets = run_nets(spec, 4, [kind], [params], [label])
    K = tuple(spec.kernels)
    feats = np.zeros((spec.num_actions, len(spec.action_features)), np.float32)
    decisions = []
    for i, (s, p) in enumerate(states[:count]):
        mask = np.zeros(spec.num_actions, np.bool_)
        spec.kernels.legal_mask(s, mask)
        hint, k = features_of(K, s, np.int64(p), new_rng(np.int64(i)), mask.copy(), feats)
        decisions.append((i, s, mask, hint, k))
    return spec, path, (kind, params[0], label, nets), decisions


def test_a_head_model_plays_its_head_at_the_main_action_and_its_network_elsewhere(tmp_path):
    """A head whose weight is all on passing passes at every main action with a choice, and
    elsewhere plays the hint (its network's skip weight); its games are legal whole games."""
    from agents.decision import choose_action
    from sim.eternal_dynasty.layout import A_SKIP
    from tests.test_net import _play

    spec, path, (kind, params, label, nets), decisions = _pass_head_decisions(
        tmp_path, "policy:{path}", 60
    )
    K = tuple(spec.kernels)
    passed = hinted = 0
    for i, s, mask, hint, k in decisions:
        a = choose_action(K, s, kind, params, new_rng(np.int64(i)), mask.copy(), nets)
        if k > 0 and mask[A_SKIP]:
            assert a == A_SKIP
            passed += 1
        elif k == 0:
            assert a == hint
            hinted += 1
    assert passed >= 5 and hinted >= 5
    *_, lengths = _play(spec, [f"policy:{path}", "heuristic", "random", "heuristic"], 2)
    assert (lengths > 0).all()


@pytest.mark.parametrize("leaf", ["network", "rollout"])
def test_a_head_models_search_takes_its_priors_from_the_head(tmp_path, leaf):
    """In a search with a head model, a main action's priors are the head's: with all its
    weight on passing, the root's visits go to passing (the network alone would send them to
    the hint); such a search plays legal whole games."""
    from agents.mcts import search_root
    from sim.eternal_dynasty.layout import A_SKIP
    from tests.test_net import _play

    agent = "mcts:8,net={path}" + ("" if leaf == "network" else f",leaf={leaf}")
    spec, _, (_, params, label, nets), decisions = _pass_head_decisions(tmp_path, agent, 40)
    checked = 0
    for i, s, mask, hint, k in decisions:
        if k == 0 or not mask[A_SKIP] or hint == A_SKIP:
            continue
        a, visits, _ = search_root(spec, s, params, i, nets)
        assert a == A_SKIP and visits[A_SKIP] >= visits.sum() - 1, (i, visits.nonzero())
        checked += 1
    assert checked >= 5
    if leaf == "rollout":
        *_, lengths = _play(spec, [label, "heuristic", "random", "heuristic"], 1)
        assert (lengths > 0).all()


def test_a_search_with_head_plays_the_head_there_and_searches_without_the_net_elsewhere(
    tmp_path,
):
    """``mcts:...,net=<model>,head``: at a main action the head's choice (a pass-only head
    passes); at every other decision exactly the search without the network (the same action
    from the same stream); legal whole games; a model without a head is refused in one line."""
    from agents.decision import choose_action
    from agents.model import ModelError, run_nets, save
    from agents.net import no_nets
    from agents.spec import parse_agent
    from sim.eternal_dynasty.layout import A_SKIP
    from tests.test_net import _play

    spec, path, (kind, params, label, nets), decisions = _pass_head_decisions(
        tmp_path, "mcts:8,prior=1,net={path},head", 60
    )
    assert label == f"mcts:8,prior=1,net={path},head"
    plain = parse_agent("mcts:8,prior=1")
    K = tuple(spec.kernels)
    passed = searched = 0
    for i, s, mask, _, k in decisions:
        a = choose_action(K, s, kind, params, new_rng(np.int64(i)), mask.copy(), nets)
        if k > 0:
            assert a == A_SKIP or not mask[A_SKIP]
            passed += int(mask[A_SKIP])
        else:
            b = choose_action(
                K, s, plain[0], plain[1], new_rng(np.int64(i)), mask.copy(), no_nets()
            )
            assert a == b
            searched += 1
    assert passed >= 5 and searched >= 5
    *_, lengths = _play(spec, [label, "heuristic", "random", "heuristic"], 1)
    assert (lengths > 0).all()
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k not in ("card", "wf")}
        card = json.loads(str(z["card"]))
    del card["action_features"]
    save(tmp_path / "nohead.npz", arrays, card)
    nohead = parse_agent(f"mcts:8,net={tmp_path / 'nohead.npz'},head")
    with pytest.raises(ModelError, match="has no linear head") as e:
        run_nets(spec, 4, [nohead[0]], [nohead[1]], [nohead[2]])
    assert "\n" not in str(e.value)


def test_a_head_built_for_other_features_is_refused(tmp_path):
    from agents.model import ModelError, load

    spec = get_game(ED)
    path = _head_model(spec, _states(ED, 4, games=1), tmp_path, {"hint": 1.0})
    load(path).check_for(spec, 4)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k != "card"}
        card = json.loads(str(z["card"]))
    card["action_features"] = card["action_features"][:-1]
    from agents.model import save

    save(path, arrays, card)
    with pytest.raises(ModelError, match="other action features"):
        load(path).check_for(spec, 4)


HEAD = """
name = "tiny_head"
game = "eternal_dynasty"
players = 4
seed = 4
output = "{out}"
generations = 1
[network]
hidden = 16
hint = true
[warm_start]
games = 10
[head]
search = "mcts:8,rollout=heuristic,rollout_depth=10,prior=1"
share = 0.5
"""


@pytest.mark.parametrize(
    "change, message",
    [
        ({"network": {"hidden": 16}}, "head: a linear head reads the hint's world"),
        ({"head": {"share": 0.5}}, "head.search: missing"),
        ({"head": {"search": "mcts:8,net=x.npz"}}, "head.search: expected an MCTS spec"),
        ({"head": {"search": "mcts:8", "share": 0}}, "head.share: expected a number"),
        ({"game": "middle_kingdom"}, "middle_kingdom gives no action features"),
    ],
)
def test_bad_head_configs_are_one_line(change, message):
    from experiments.run.config import ConfigError
    from experiments.train.config import train_from_dict

    data = tomllib.loads(HEAD.format(out="x"))
    data.update(change)
    with pytest.raises(ConfigError, match=message) as e:
        train_from_dict(data, "h.toml")
    assert "\n" not in str(e.value)


def test_a_head_trainings_examples_are_the_searchs_visits_and_its_fit_is_reproducible():
    """Generation 0 with ``[head]`` records, at about its share of the main actions, the game's
    features and the head search's visit shares (legal, summing to 1), the same for the same
    job; the head fitted to them is the same twice and plays the search's action more often
    than chance on its held-in examples."""
    from experiments.train.config import train_from_dict
    from experiments.train.fit import fit_head
    from experiments.train.selfplay import play_chunk

    cfg = train_from_dict(tomllib.loads(HEAD.format(out="x")), "h.toml")
    job = {
        "game": ED,
        "players": 4,
        "options": {},
        "seed": cfg.seed,
        "gen": 0,
        "first": 0,
        "count": 1,
        "model": None,
        "search": cfg.search("best"),
        "sample_decisions": 0,
        "record_every": 5,
        "warm": None,
        "hint": True,
        "head": cfg.head_search,
        "head_share": cfg.head_share,
    }
    a, b = play_chunk(job), play_chunk(job)
    n = len(a["feat"])
    assert n >= 10 and a["feat"].shape[1:] == (get_game(ED).num_actions, 55)
    for key in ("feat", "feat_mask", "feat_policy", "feat_step", "obs", "policy"):
        assert np.array_equal(a[key], b[key])
    pol = a["feat_policy"]
    assert np.allclose(pol.sum(1), 1) and not pol[~a["feat_mask"]].any()
    assert (a["feat_mask"].sum(1) > 1).all()
    ex = {k: a[k] for k in ("feat", "feat_mask", "feat_policy")}
    ex["feat_game"] = np.arange(n) + 1  # every example held in (game % 10 != 0) but the 9th
    w1, h1 = fit_head(ex, l2=1e-4, threads=1)
    w2, _ = fit_head(ex, l2=1e-4, threads=1)
    assert np.array_equal(w1, w2) and np.abs(w1).max() > 0
    logits = np.where(ex["feat_mask"], ex["feat"] @ w1, -np.inf)
    agree = (logits.argmax(1) == pol.argmax(1)).mean()
    chance = (1 / ex["feat_mask"].sum(1)).mean()
    assert agree > chance
    assert h1["head_examples"] == n
