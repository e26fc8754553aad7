"""The bit-set intrinsics of sim.core (LLVM ctpop and cttz) that the engines use for sets of
cards and provinces kept as bit masks: the same answers as Python's integers, for every
integer type the engines pass (int32 state words, int64 and uint64 masks)."""

import numba as nb
import numpy as np
import pytest

from sim.core import bit_count, lowest_bit


@nb.njit(cache=True)
def _bits(values):
    out = np.zeros((values.shape[0], 2), np.int64)
    for i in range(values.shape[0]):
        out[i, 0] = bit_count(values[i])
        out[i, 1] = lowest_bit(values[i]) if values[i] != 0 else -1
    return out


@pytest.mark.parametrize(
    "dtype,high", [(np.int32, 2**31 - 1), (np.int64, 2**63 - 1), (np.uint64, 2**63 - 1)]
)
def test_bit_count_and_lowest_bit_agree_with_python(dtype, high):
    rng = np.random.default_rng(5)
    values = np.concatenate(
        [
            np.array([0, 1, 2, 3, high], dtype),
            (
                np.uint64(1)
                << rng.integers(0, 31 if dtype == np.int32 else 63, 200).astype(np.uint64)
            ).astype(dtype),
            rng.integers(0, high, 500, dtype=np.int64 if dtype != np.uint64 else np.uint64).astype(
                dtype
            ),
        ]
    )
    got = _bits(values)
    for v, (count, low) in zip(values.tolist(), got.tolist()):
        assert count == bin(v).count("1"), v
        assert low == ((v & -v).bit_length() - 1 if v else -1), v
    assert got[:, 0].max() > 20  # the random values are not all tiny
