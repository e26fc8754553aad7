"""The learned agents' network: the numba forward pass (agents/net.py) computes what the
training library's does (experiments/train/model.py), within 1e-5, on random inputs."""

import numpy as np
import pytest
import torch  # the optional extra "train" (make setup installs it)

from agents import net


def _random_tensors(rng, samples=300, size=60):
    """Tensors whose words exercise every encoding: constants, small codes, bit sets, counts."""
    x = np.zeros((samples, size), np.float32)
    x[:, 0:10] = 7  # constant: dropped
    x[:, 10:25] = rng.integers(-1, 6, (samples, 15))  # small codes: one-hot
    x[:, 25:40] = rng.integers(256, 2**20, (samples, 15))  # bit sets
    x[:, 40:50] = rng.integers(0, 200, (samples, 10))  # counts: scalar
    x[:, 50:60] = rng.normal(0, 3, (samples, 10))  # reals: scalar
    return x


def test_the_encoding_gives_each_kind_of_word_its_inputs():
    rng = np.random.default_rng(1)
    x = _random_tensors(rng)
    enc = net.fit_encoding(x)
    kinds = {int(r[net.E_WORD]): int(r[net.E_KIND]) for r in enc}
    assert all(w not in kinds for w in range(10))
    assert all(kinds[w] == net.ONEHOT for w in range(10, 25))
    assert all(kinds[w] == net.BITS for w in range(25, 40))
    assert all(kinds[w] == net.SCALAR for w in range(40, 60))
    dense = net.encode_dense(enc, x)
    assert dense.shape == (300, net.n_inputs(enc))
    onehot = enc[enc[:, net.E_KIND] == net.ONEHOT]
    for _, _, _, n, first in onehot:  # every one-hot word activates exactly one input
        assert (dense[:, first : first + n].sum(axis=1) == 1).all()


@pytest.mark.parametrize("players, all_lose", [(2, False), (3, False), (5, False), (2, True)])
def test_the_numba_forward_pass_equals_torch_within_1e_5(players, all_lose):
    from experiments.train.model import PolicyValueNet

    rng = np.random.default_rng(players + 10 * all_lose)
    x = _random_tensors(rng)
    enc = net.fit_encoding(x[:200])
    torch.manual_seed(players)
    m = PolicyValueNet(net.n_inputs(enc), 32, 17, 6)
    with torch.no_grad():  # larger weights than the initialisation, to make the check harder
        for p in m.parameters():
            p.mul_(3.0)
    table, enc_buf, w_buf = net.pack([{"enc": enc, **m.arrays()}])
    masks = rng.random((100, 17)) < 0.5
    masks[:, 0] = True
    test = x[200:]  # unseen samples (values outside the fitted ranges included)
    logits, values = net.forward_batch(
        table, 0, enc_buf, w_buf, test, masks, np.int64(players), all_lose, NO_HINTS[: len(test)]
    )
    with torch.no_grad():
        tl, tv = m(torch.from_numpy(net.encode_dense(enc, test)))
    tl = tl.numpy()
    assert np.allclose(logits[masks], tl[masks], rtol=1e-5, atol=1e-5)
    assert np.isneginf(logits[~masks]).all()
    slots = list(range(players)) + ([5] if all_lose else [])
    expect = torch.softmax(tv[:, slots], dim=1).numpy()[:, :players]
    assert np.allclose(values[:, :players], expect, rtol=1e-5, atol=1e-6)


NO_HINTS = np.full(1000, -1, np.int64)  # forward_batch's hints for a model without them
GAMES = ("middle_kingdom", "ming_dynasty", "emperors_choice", "eternal_dynasty", "goofspiel")


def _states(name, players, games=6, every=7, seed=0):
    """(state, seat to move) pairs from random games."""
    from sim import Game

    rng = np.random.default_rng(seed)
    out = []
    for s in range(games):
        g = Game(name, players, s)
        step = 0
        while not g.is_over:
            if step % every == 0:
                out.append((g.state.copy(), g.current_player))
            g.apply(int(rng.choice(list(g.legal_actions()))))
            step += 1
    return out


def _random_model(spec, states, hidden=32, seed=0, hint=False):
    """A model of random weights over an encoding fitted to ``states`` (a hint model with
    ``hint``)."""
    from experiments.train.model import PolicyValueNet

    obs = np.array([spec.observation.tensor(s, p) for s, p in states])
    enc = net.fit_encoding(obs)
    torch.manual_seed(seed)
    m = PolicyValueNet(net.n_inputs(enc), hidden, spec.num_actions, spec.max_players + 1, hint)
    return {"enc": enc, **m.arrays(), "all_lose": int(spec.can_all_lose)}


def _play(spec, labels, games):
    """``play_games`` of 4-player ``games`` (seeds 0..) with the agents ``labels`` in seats
    0-3, their models loaded as a run loads them."""
    from agents.arena import play_games
    from agents.model import run_nets
    from agents.spec import parse_agent

    rows = [parse_agent(x) for x in labels]
    kinds = np.array([r[0] for r in rows])
    params, nets = run_nets(spec, 4, kinds, np.array([r[1] for r in rows]), [r[2] for r in rows])
    seat_agent = np.tile(np.arange(4), (games, 1))
    opts = spec.encode_options({})
    return play_games(spec, np.arange(games), 4, opts, seat_agent, kinds, params, nets=nets)


@pytest.mark.parametrize("name", GAMES)
def test_the_network_reads_only_the_seats_information(name):
    """Resampling what the seat cannot see (the game's determinize) leaves its observation
    tensor, and so the network's policy and values, unchanged, while the states differ."""
    from sim import get_game
    from sim.core import new_rng

    spec = get_game(name)
    n = 3 if name != "goofspiel" else 2
    n = max(n, spec.min_players)
    states = _states(name, n)
    table, enc, w = net.pack([_random_model(spec, states)])
    changed = 0
    for i, (s, p) in enumerate(states):
        d = s.copy()
        spec.kernels.determinize(d, np.int64(p), new_rng(np.int64(i + 1)))
        changed += not np.array_equal(d, s)
        o1, o2 = spec.observation.tensor(s, p), spec.observation.tensor(d, p)
        assert np.array_equal(o1, o2)
        mask = np.zeros(spec.num_actions, np.bool_)
        spec.kernels.legal_mask(s, mask)
        l1, v1 = net.forward_batch(
            table, 0, enc, w, o1[None], mask[None], np.int64(n), False, NO_HINTS[:1]
        )
        l2, v2 = net.forward_batch(
            table, 0, enc, w, o2[None], mask[None], np.int64(n), False, NO_HINTS[:1]
        )
        assert np.array_equal(l1, l2) and np.array_equal(v1, v2)
    if name != "goofspiel":  # goofspiel hides only pending bids and the prize order
        assert changed > len(states) // 4  # the resampling did change hidden information


@pytest.mark.parametrize("name", ["middle_kingdom", "eternal_dynasty"])
def test_policy_and_search_with_a_network_play_legal_games(name, tmp_path):
    """policy:, policy: at a temperature and mcts with net= play whole games through the arena
    (every action is checked legal there); greedy play is the same on the same deals, sampled
    play differs from it."""
    from agents.model import observation_hash, save
    from sim import get_game

    spec = get_game(name)
    states = _states(name, 4, games=3)
    path = tmp_path / f"{name}.npz"
    m = _random_model(spec, states)
    card = {"game": name, "players": [4], "observation": observation_hash(spec)}
    save(path, {k: v for k, v in m.items() if k != "all_lose"}, card)

    def play(labels, games=4):
        return _play(spec, labels, games)

    greedy = [f"policy:{path}", "heuristic", f"policy:{path}", "random"]
    a, b = play(greedy), play(greedy)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[3], b[3])
    hot = play([f"policy:{path},temperature=5", "heuristic", f"policy:{path}", "random"])
    assert not np.array_equal(a[3], hot[3])
    s, w, f, lengths = play([f"mcts:8,net={path}", "heuristic", "random", "random"], games=1)
    assert lengths[0] > 0 and abs(w.sum() - 1) < 1e-9 or spec.can_all_lose
    net_leaf = play([f"mcts:16,net={path}", "heuristic", "random", "random"], games=2)
    rollout_leaf = play([f"mcts:16,net={path},leaf=rollout", "heuristic", "random", "random"], 2)
    assert rollout_leaf[3].min() > 0
    assert not np.array_equal(net_leaf[3], rollout_leaf[3])  # the leaves are valued otherwise


def test_net_temp_and_the_heuristic_prior_steer_a_search_with_a_network():
    """``net_temp`` is the softmax temperature of the network's priors: near 0 a prior-driven
    search (a large c) spends its visits on the policy's favourite, far above 1 it spreads them
    over the legal actions; ``prior=`` adds the heuristic's progressive bias, which pulls
    visits to the heuristic's action (an action the policy does not favour here)."""
    from agents.mcts import P_NET, search_root
    from agents.spec import parse_agent
    from sim import get_game

    spec = get_game("middle_kingdom")
    states = _states("middle_kingdom", 4, games=4)
    m = _random_model(spec, states)
    nets = net.nets_of([m], spec.observation.size)
    mask = np.zeros(spec.num_actions, np.bool_)

    def legal(state):
        spec.kernels.legal_mask(state, mask)
        return mask.copy()

    def favourite(state, p):
        obs = spec.observation.tensor(state, p)[None].astype(np.float32)
        legal_now = legal(state)[None]
        logits, _ = net.forward_batch(
            nets.table,
            0,
            nets.enc,
            nets.weights,
            obs,
            legal_now,
            4,
            bool(m["all_lose"]),
            NO_HINTS[:1],
        )
        return int(np.argmax(np.where(legal_now[0], logits[0], -np.inf)))

    def visits(label, state):
        params = parse_agent(label)[1].copy()
        params[P_NET] = 1
        return search_root(spec, state, params, seed=3, nets=nets)[1]

    def heuristic_action(state):
        from sim.core import new_rng

        return int(spec.kernels.heuristic(state.copy(), new_rng(np.int64(3))))

    # states with many legal actions where the heuristic's action is not the policy's favourite
    picked = [
        (s, p) for s, p in states if legal(s).sum() >= 6 and heuristic_action(s) != favourite(s, p)
    ]
    assert len(picked) >= 3
    for state, p in picked[:3]:
        k = legal(state).sum()
        sharp = visits("mcts:300,net=m.npz,uct_c=50,net_temp=0.02", state)
        flat = visits("mcts:300,net=m.npz,uct_c=50,net_temp=100", state)
        plain = visits("mcts:300,net=m.npz,uct_c=50", state)
        assert int(np.argmax(sharp)) == favourite(state, p)
        assert sharp.max() > 0.8 * sharp.sum()
        assert flat.max() < 3 * flat.sum() / k  # close to an even spread
        assert not np.array_equal(plain, sharp) and not np.array_equal(plain, flat)
        h = heuristic_action(state)
        biased = visits("mcts:300,net=m.npz,net_temp=0.02,prior=1000", state)
        unbiased = visits("mcts:300,net=m.npz,net_temp=0.02", state)
        assert biased[h] > unbiased[h] and biased[h] > 0.5 * biased.sum()


def test_net_temp_is_a_positive_setting_of_a_search_with_a_network():
    from agents.spec import AgentSpecError, parse_agent

    label = parse_agent("mcts:40,net=m.npz,leaf=rollout,net_temp=2.5,prior=1")[2]
    assert label == "mcts:40,prior=1,net=m.npz,leaf=rollout,net_temp=2.5"
    assert parse_agent(label)[2] == label
    assert parse_agent("mcts:40,net=m.npz,net_temp=1")[2] == "mcts:40,net=m.npz"
    with pytest.raises(AgentSpecError, match="mcts net_temp is a setting of a search with a net"):
        parse_agent("mcts:40,net_temp=2")
    for bad in ("0", "-1"):
        with pytest.raises(AgentSpecError, match="mcts net_temp must be a number > 0"):
            parse_agent(f"mcts:40,net=m.npz,net_temp={bad}")
    with pytest.raises(AgentSpecError, match="mcts net_temp must be a number, got 'warm'"):
        parse_agent("mcts:40,net=m.npz,net_temp=warm")


def test_leaf_rollout_is_a_setting_of_a_search_with_a_network():
    from agents.spec import AgentSpecError, parse_agent

    kind, params, label = parse_agent("mcts:40,net=m.npz,leaf=rollout")
    assert label == "mcts:40,net=m.npz,leaf=rollout" and parse_agent(label)[2] == label
    assert parse_agent("mcts:40,net=m.npz,leaf=network")[2] == "mcts:40,net=m.npz"
    with pytest.raises(AgentSpecError, match="mcts leaf is a setting of a search with a net"):
        parse_agent("mcts:40,leaf=rollout")
    with pytest.raises(AgentSpecError, match="mcts leaf must be one of network, rollout"):
        parse_agent("mcts:40,net=m.npz,leaf=value")


@pytest.mark.parametrize("hint", [[], ["--hint"]])
def test_the_learned_agents_benchmark_prints_a_row_per_game(capsys, hint):
    """``dynasty bench learned`` times policy self-play against the heuristic and random play,
    and MCTS with a network against MCTS without, in one row per game (also of a hint
    model)."""
    from experiments.bench.learned import main

    assert (
        main(
            hint
            + [
                "--game",
                "goofspiel",
                "--games",
                "4",
                "--searches",
                "2",
                "--simulations",
                "8",
                "--hidden",
                "8",
            ]
        )
        == 0
    )
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("goofspiel | ")]
    assert len(rows) == 1
    cells = rows[0].split(" | ")
    assert len(cells) == 11 and all(float(c.replace(",", "")) > 0 for c in cells[1:])
