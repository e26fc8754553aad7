"""The random pick every random agent, rollout and runner uses (sim.core.random_of_legal and
random_legal): it reads a mask of 64 entries or more 64 at a time as the bits of a word, a
shorter one 8 at a time, and must still return exactly the ``k``-th legal action for the RNG's
draw ``k``, whatever the mask's length (whole chunks, a tail past the last chunk, fewer than 8
entries) and wherever the legal actions lie."""

import numba as nb
import numpy as np
import pytest
from llvmlite import binding

from sim.core import (
    _nth_bit_pdep,
    _nth_bit_swar,
    fast_pdep,
    new_rng,
    nth_bit,
    random_legal,
    random_of_legal,
    rng_below,
)


@nb.njit(cache=True)
def _picks(masks, sizes, seed):
    """Per mask (its first ``sizes[i]`` entries): the draw ``k`` from a copy of the RNG, the
    pick of random_of_legal and the pick of random_legal from the same RNG state."""
    out = np.zeros((masks.shape[0], 3), np.int64)
    rng = new_rng(seed)
    for i in range(masks.shape[0]):
        m = masks[i, : sizes[i]]
        n = 0
        for j in range(m.shape[0]):
            n += m[j]
        probe = rng.copy()
        out[i, 0] = rng_below(probe, 0, n) if n > 0 else -1
        again = rng.copy()
        out[i, 1] = random_of_legal(m, n, rng, 0)
        out[i, 2] = random_legal(m, again, 0)
    return out


def _masks(count, seed):
    gen = np.random.default_rng(seed)
    sizes = np.concatenate(
        [
            [1, 2, 7, 8, 9, 15, 16, 17, 23, 63, 64, 65, 97, 127, 128, 129, 140, 148, 192, 200],
            gen.integers(1, 201, count - 20),
        ]
    )
    masks = np.zeros((count, 200), np.bool_)
    for i, size in enumerate(sizes):
        kind = i % 4
        if kind == 0:  # sparse, like most decisions
            masks[i, :size] = gen.random(size) < gen.uniform(0.01, 0.2)
        elif kind == 1:  # dense
            masks[i, :size] = gen.random(size) < gen.uniform(0.5, 1.0)
        elif kind == 2:  # one legal action, anywhere (the last entry included)
            masks[i, int(gen.integers(size)) if i % 8 == 2 else size - 1] = True
        else:  # every action legal
            masks[i, :size] = True
    return masks, sizes.astype(np.int64)


@pytest.mark.parametrize("seed", [0, 1])
def test_pick_is_the_kth_legal_action(seed):
    masks, sizes = _masks(20_000, seed)
    out = _picks(masks, sizes, seed)
    for i in range(len(sizes)):
        legal = np.flatnonzero(masks[i, : sizes[i]])
        want = legal[out[i, 0]] if len(legal) else -1
        assert out[i, 1] == want and out[i, 2] == want, (i, sizes[i], out[i], want)
    # the cases above were reached: tails, short masks, last entries, empty masks
    assert (out[:, 1] >= 8 * (sizes // 8)).sum() > 500
    assert ((sizes >= 64) & (out[:, 1] >= 64 * (sizes // 64))).sum() > 500
    assert ((sizes < 8) & (out[:, 1] >= 0)).sum() > 20
    assert (out[:, 1] == sizes - 1).sum() > 1000
    assert (out[:, 1] == -1).sum() > 0


def test_pick_is_uniform():
    """Every legal action of a 97-entry mask (Eternal Dynasty's) is drawn about equally often."""
    mask = np.zeros((1, 160), np.bool_)
    legal = [0, 7, 8, 40, 63, 64, 95, 96]
    mask[0, legal] = True
    reps = 40_000
    masks = np.repeat(mask, reps, axis=0)
    out = _picks(masks, np.full(reps, 97, np.int64), 7)
    counts = np.array([(out[:, 1] == a).sum() for a in legal])
    expected = reps / len(legal)
    # 5 standard deviations of a binomial count
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected * (1 - 1 / len(legal))))
    assert counts.sum() == reps


def _nth_bits_with(select):
    @nb.njit
    def run(sets, ranks):
        out = np.zeros(sets.shape[0], np.int64)
        for i in range(sets.shape[0]):
            out[i] = select(sets[i], ranks[i])
        return out

    return run


# the portable select always; BMI2's wherever the host has the instruction (fast or not)
SELECTS = [_nth_bit_swar] + (
    [_nth_bit_pdep] if binding.get_host_cpu_features().get("bmi2", False) else []
)


@pytest.mark.parametrize("select", SELECTS, ids=lambda f: f.__name__)
def test_nth_bit_is_the_rank_th_member_of_the_set(select):
    """sim.core.nth_bit (the card drawn from a deck kept as a bit set, the entry within a
    64-entry chunk of a mask), in both its forms: the member with ``r`` members below it, for
    sets of every size (one member, all 64, the top bit) and every rank."""
    gen = np.random.default_rng(3)
    sets = gen.integers(0, 2**63, 20_000, dtype=np.int64) & gen.integers(
        0, 2**63, 20_000, dtype=np.int64
    )
    sets[:64] = np.int64(1) << np.arange(
        64, dtype=np.int64
    )  # one member, the top bit (the sign bit) included
    sets[64] = -1  # all 64
    sets[sets == 0] = 5
    members = [np.flatnonzero([(int(x) >> b) & 1 for b in range(64)]) for x in sets]
    ranks = np.array([gen.integers(len(m)) for m in members], np.int64)
    ranks[64] = 63
    out = _nth_bits_with(select)(sets, ranks)
    assert all(out[i] == members[i][ranks[i]] for i in range(len(sets)))


def test_nth_bit_takes_pdep_only_where_it_is_fast(monkeypatch):
    """BMI2's ``pdep`` is chosen for CPUs that run it in a few cycles and never for those
    that lack it or microcode it (AMD before Zen 3), nor for a target set by hand; the
    host's choice is the one ``nth_bit`` took."""
    assert fast_pdep("znver4", {"bmi2": True}) and fast_pdep("skylake", {"bmi2": True})
    assert not fast_pdep("znver2", {"bmi2": True}) and not fast_pdep("bdver4", {"bmi2": True})
    assert not fast_pdep("x86-64", {"bmi2": False}) and not fast_pdep("x86-64", {})
    assert nth_bit is (_nth_bit_pdep if fast_pdep() else _nth_bit_swar)
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", "generic")  # NUMBA_CPU_NAME: a cache for other machines
    assert not fast_pdep()
    monkeypatch.setattr(config, "CPU_NAME", None)
    monkeypatch.setattr(config, "CPU_FEATURES", "+sse4.2")  # NUMBA_CPU_FEATURES likewise
    assert not fast_pdep()
