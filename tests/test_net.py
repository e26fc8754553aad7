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
        table, 0, enc_buf, w_buf, test, masks, np.int64(players), all_lose
    )
    with torch.no_grad():
        tl, tv = m(torch.from_numpy(net.encode_dense(enc, test)))
    tl = tl.numpy()
    assert np.allclose(logits[masks], tl[masks], rtol=1e-5, atol=1e-5)
    assert np.isneginf(logits[~masks]).all()
    slots = list(range(players)) + ([5] if all_lose else [])
    expect = torch.softmax(tv[:, slots], dim=1).numpy()[:, :players]
    assert np.allclose(values[:, :players], expect, rtol=1e-5, atol=1e-6)
