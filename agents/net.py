"""Learned agents' networks: an encoding of a seat's observation tensor fitted to sample
states, and a small MLP (policy logits over the action space, a value per seat), evaluated by
numba kernels inside the compiled game loop.

The observation tensors of the seed games are masked states: integer codes, counts and bit
sets (sim/observe.py), not inputs a network learns from directly.  :func:`fit_encoding` looks
at the tensors of sample states and gives every word one of four encodings:

    DROP     the word never changes (option codes, component data): no input
    ONEHOT   at most MAX_ONEHOT distinct values in [lo, lo + n): n inputs, one of them 1
    BITS     non-negative integers reaching BITSET_FROM, over at most MAX_BITS distinct bits
             (card sets): an input per bit
    SCALAR   anything else (counts, scores): one input, (value - lo) / n, about [0, 1] over
             the samples

A value outside what the samples showed gives no input (ONEHOT, BITS) or is extrapolated
(SCALAR).  The inputs are sparse: a state activates about one input per word, so the first
layer is a sum of the weight rows of the active inputs (as Stockfish's NNUE does).

The network (:data:`LAYER_NAMES`): inputs -> H (ReLU) -> H (ReLU) -> policy logits (one per
action; the legal ones are soft-maxed) and value logits (one per seat slot and a last slot
for "no seat wins", soft-maxed over the slots of the game's seats, plus the last where every
seat can lose): the value of seat ``p`` is its expected win share.

A **hint model** also reads the game's heuristic action in the position (the *hint*, played
on a world resampled from the seat's information set, so it reveals nothing the seat cannot
see): one more input per action, the hint's one-hot after the encoding's inputs, and a skip
weight per action (:data:`HINT_ARRAY` ``wk``) added to the hint's logit.  The network starts
as the heuristic (a large skip weight) and learns where to play otherwise, as residual policy
learning does; ``hint`` -1 (none) gives neither.

A hint model may also have a **linear head** (:data:`HEAD_ARRAY` ``wf``, one weight per action
feature): at a decision where the game gives per-action features (the contract's
``action_features``, computed in the same resampled world as the hint), the legal actions'
logits are their features' weighted sums, and the network is not asked; elsewhere the network
decides.  A conditional logit over features the game computes for every action (its
heuristic's try values, say) can learn what a network over the observation does not see.

A model is its encoding (int32 rows ``word, kind, lo, n, first input``) and its float32 arrays;
:func:`pack` puts several models in two flat buffers that a compiled kernel reads
(:func:`forward`), so a run can hold one network per agent.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

import numba as nb
import numpy as np

DROP, ONEHOT, BITS, SCALAR = 0, 1, 2, 3
KIND_NAMES = ("drop", "onehot", "bits", "scalar")
MAX_ONEHOT = 24
MAX_BITS = 32
BITSET_FROM = 256  # integer words reaching this are read as bit sets; below, as counts
E_WORD, E_KIND, E_LO, E_N, E_FIRST = range(5)  # the columns of an encoding row
ENC_COLS = 5

LAYER_NAMES = ("w1", "b1", "w2", "b2", "wp", "bp", "wv", "bv")

# A row of the net table (int64) per packed model: where its arrays start in the buffers,
# and its sizes.
T_ENC, T_ROWS, T_IN, T_HIDDEN, T_ACTIONS, T_VALUES = range(6)
T_W1, T_B1, T_W2, T_B2, T_WP, T_BP, T_WV, T_BV = range(6, 14)
T_ALL_LOSE = 14  # 1: the game can end with every seat losing (the value's last slot counts)
T_HINT = 15  # a hint model: its first hint input (the inputs after the encoding's); else -1
T_WK = 16  # a hint model: where its skip weights ``wk`` start
T_NF = 17  # a model with a linear head: its number of action features (else 0)
T_WF = 18  # where its head's weights ``wf`` start
TABLE_COLS = 19
HINT_ARRAY = "wk"  # a hint model's extra array: the hint's skip weight per action
HEAD_ARRAY = "wf"  # a linear head's weights: one per action feature (sim.core, action_features)


def fit_encoding(tensors: np.ndarray) -> np.ndarray:
    """The encoding rows of observation tensors ``tensors`` (float32 [samples, size])."""
    x = np.asarray(tensors)
    rows = []
    first = 0
    for w in range(x.shape[1]):
        col = x[:, w]
        lo, hi = float(col.min()), float(col.max())
        if lo == hi:
            continue
        ints = bool(np.all(col == np.round(col)))
        vals = np.unique(col)
        if ints and len(vals) <= MAX_ONEHOT and hi - lo < 4 * MAX_ONEHOT:
            n = int(hi - lo) + 1
            rows.append((w, ONEHOT, int(lo), n, first))
        elif ints and lo >= 0 and BITSET_FROM <= hi < 2**31:
            bits = np.bitwise_or.reduce(col.astype(np.int64))
            nbits = int(bits).bit_length()
            if bin(int(bits)).count("1") <= MAX_BITS and nbits <= 31:
                n = nbits
                rows.append((w, BITS, 0, n, first))
            else:
                n = 1
                rows.append((w, SCALAR, int(lo), max(1, int(hi - lo)), first))
        else:
            n = 1
            rows.append((w, SCALAR, int(np.floor(lo)), max(1, int(np.ceil(hi - lo))), first))
        first += n
    return np.asarray(rows, np.int32).reshape(-1, ENC_COLS)


def n_inputs(enc: np.ndarray) -> int:
    """The number of inputs an encoding gives."""
    if len(enc) == 0:
        return 0
    last = enc[-1]
    return int(last[E_FIRST]) + (1 if last[E_KIND] == SCALAR else int(last[E_N]))


def encode_dense(enc: np.ndarray, tensors: np.ndarray) -> np.ndarray:
    """The inputs of ``tensors`` ([samples, size]) as a dense float32 array [samples, inputs]
    (for training; the kernels never build it)."""
    x = np.asarray(tensors, np.float32)
    out = np.zeros((x.shape[0], n_inputs(enc)), np.float32)
    for w, kind, lo, n, first in enc:
        v = x[:, w]
        if kind == ONEHOT:
            k = v.astype(np.int64) - lo
            ok = (k >= 0) & (k < n)
            out[np.nonzero(ok)[0], first + k[ok]] = 1.0
        elif kind == BITS:
            iv = v.astype(np.int64)
            for b in range(n):
                out[:, first + b] = (iv >> b) & 1
        elif kind == SCALAR:
            out[:, first] = (v - lo) / n
    return out


# --------------------------------------------------------------------------- packing

# The networks of a run as compiled code receives them (numba passes a namedtuple of arrays as
# a struct): the packed table, encodings and weights (:func:`pack`), and the size of the
# game's observation tensor (0: no network).
Nets = namedtuple("Nets", "table enc weights obs_size", module=__name__)
NETS_T = nb.types.BaseTuple.from_types(
    (nb.int64[:, ::1], nb.int32[:, ::1], nb.float32[::1], nb.int64), Nets
)


def nets_of(models: Sequence[dict[str, np.ndarray]], obs_size: int) -> Nets:
    """The :class:`Nets` of a run's models (none: empty arrays, ``obs_size`` 0)."""
    table, enc, weights = pack(models)
    return Nets(table, enc, weights, np.int64(obs_size if len(models) else 0))


def no_nets() -> Nets:
    return nets_of([], 0)


def hint_in(nets: Nets) -> bool:
    """Whether a run's networks include a hint model (its policy calls the heuristic and
    ``determinize``)."""
    return bool((nets.table[:, T_HINT] >= 0).any())


def pack(models: Sequence[dict[str, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(table int64 [models, TABLE_COLS], encodings int32 [rows, ENC_COLS], weights float32)
    of models given as dicts with ``enc`` and the arrays of :data:`LAYER_NAMES` (and
    ``all_lose``, 1 for a game every seat can lose)."""
    table = np.zeros((len(models), TABLE_COLS), np.int64)
    table[:, T_HINT] = -1
    encs, weights = [], []
    enc_at = w_at = 0
    for k, m in enumerate(models):
        enc = np.asarray(m["enc"], np.int32).reshape(-1, ENC_COLS)
        h = m["b1"].shape[0]
        table[k, :T_W1] = (
            enc_at,
            len(enc),
            m["w1"].shape[0],
            h,
            m["bp"].shape[0],
            m["bv"].shape[0],
        )
        encs.append(enc)
        enc_at += len(enc)
        for j, name in enumerate(LAYER_NAMES):
            a = np.ascontiguousarray(m[name], np.float32).ravel()
            table[k, T_W1 + j] = w_at
            weights.append(a)
            w_at += a.size
        if HINT_ARRAY in m:
            table[k, T_HINT] = n_inputs(enc)
            table[k, T_WK] = w_at
            a = np.ascontiguousarray(m[HINT_ARRAY], np.float32).ravel()
            weights.append(a)
            w_at += a.size
        if HEAD_ARRAY in m:
            a = np.ascontiguousarray(m[HEAD_ARRAY], np.float32).ravel()
            table[k, T_NF] = a.size
            table[k, T_WF] = w_at
            weights.append(a)
            w_at += a.size
    enc_buf = np.concatenate(encs) if encs else np.zeros((0, ENC_COLS), np.int32)
    w_buf = np.concatenate(weights) if weights else np.zeros(0, np.float32)
    return table, np.ascontiguousarray(enc_buf, np.int32), w_buf


# --------------------------------------------------------------------------- kernels


# The net kernels allocate nothing (no reference counting, as sim.core.kernel) and let LLVM
# reorder float sums (fastmath) so that the row sums vectorise: about 2x faster; the result
# differs from the training library's by float rounding only (tests/test_net.py, 1e-5).
net_kernel = nb.njit(cache=True, _nrt=False, fastmath=True)


@net_kernel
def _add_row(h, weights, base, nh, x):
    """``h[:nh] += x * weights[base : base + nh]``."""
    hh = h[:nh]
    ww = weights[base : base + nh]
    for j in range(nh):
        hh[j] += x * ww[j]


@net_kernel
def _set_row(h, weights, base, nh):
    """``h[:nh] = weights[base : base + nh]`` (a slice assignment would copy its source)."""
    hh = h[:nh]
    ww = weights[base : base + nh]
    for j in range(nh):
        hh[j] = ww[j]


@net_kernel
def _relu(h, nh):
    hh = h[:nh]
    for j in range(nh):
        if hh[j] < 0:
            hh[j] = 0


@net_kernel
def hidden(table, k, enc, weights, obs, hint, h1, h2):
    """The second hidden layer of net ``k`` on observation ``obs`` (and, for a hint model, the
    heuristic's action ``hint``; -1: none) into ``h2`` (``h1``: scratch of the first); returns
    the hidden size."""
    row = table[k]
    nh = row[T_HIDDEN]
    w1 = row[T_W1]
    _set_row(h1, weights, row[T_B1], nh)
    for r in range(row[T_ENC], row[T_ENC] + row[T_ROWS]):
        kind = enc[r, E_KIND]
        v = obs[enc[r, E_WORD]]
        lo = enc[r, E_LO]
        n = enc[r, E_N]
        first = enc[r, E_FIRST]
        if kind == ONEHOT:
            i = np.int64(v) - lo
            if 0 <= i < n:
                _add_row(h1, weights, w1 + (first + i) * nh, nh, np.float32(1.0))
        elif kind == BITS:
            bits = np.int64(v)
            b = 0
            while bits > 0 and b < n:
                if bits & 1:
                    _add_row(h1, weights, w1 + (first + b) * nh, nh, np.float32(1.0))
                bits >>= 1
                b += 1
        else:
            _add_row(h1, weights, w1 + first * nh, nh, np.float32((v - lo) / n))
    if row[T_HINT] >= 0 and hint >= 0:
        _add_row(h1, weights, w1 + (row[T_HINT] + hint) * nh, nh, np.float32(1.0))
    _relu(h1, nh)
    w2 = row[T_W2]
    _set_row(h2, weights, row[T_B2], nh)
    for i in range(nh):
        if h1[i] != 0:
            _add_row(h2, weights, w2 + i * nh, nh, h1[i])
    _relu(h2, nh)
    return nh


@net_kernel
def policy_logits(table, k, weights, h2, mask, hint, logits):
    """Net ``k``'s logits of the legal actions into ``logits`` (-inf for the others); a hint
    model adds its skip weight to the logit of the hint."""
    row = table[k]
    nh, na = row[T_HIDDEN], row[T_ACTIONS]
    wp, bp = row[T_WP], row[T_BP]
    for a in range(na):
        if not mask[a]:
            logits[a] = -np.inf
            continue
        s = weights[bp + a]
        for i in range(nh):
            s += h2[i] * weights[wp + i * na + a]
        logits[a] = s
    if row[T_HINT] >= 0 and hint >= 0 and mask[hint]:
        logits[hint] += weights[row[T_WK] + hint]


@net_kernel
def head_logits(table, k, weights, feats, mask, logits):
    """The linear head of net ``k``: each legal action's logit is its features (``feats``, a row
    per action) times the head's weights; -inf for the others."""
    row = table[k]
    nf, wf = row[T_NF], row[T_WF]
    for a in range(mask.shape[0]):
        if not mask[a]:
            logits[a] = -np.inf
            continue
        s = np.float32(0.0)
        for i in range(nf):
            s += feats[a, i] * weights[wf + i]
        logits[a] = s


@net_kernel
def head_size(table, k):
    """The number of action features net ``k``'s linear head reads (0: it has none)."""
    return table[k, T_NF]


@net_kernel
def uses_hint(table, k):
    """Whether net ``k`` is a hint model (it reads the heuristic's action)."""
    return table[k, T_HINT] >= 0


@net_kernel
def value_of(table, k, weights, h2, n_players, all_lose, values):
    """Net ``k``'s value of each seat (expected win share) into ``values[:n_players]``: a
    softmax over the seats' slots and, for a game where every seat can lose, the last slot."""
    row = table[k]
    nh, nv = row[T_HIDDEN], row[T_VALUES]
    wv, bv = row[T_WV], row[T_BV]
    best = -np.inf
    for s in range(nv):
        if s < n_players or (all_lose and s == nv - 1):
            z = weights[bv + s]
            for i in range(nh):
                z += h2[i] * weights[wv + i * nv + s]
            values[s] = z
            if z > best:
                best = z
    total = 0.0
    for s in range(nv):
        if s < n_players or (all_lose and s == nv - 1):
            e = np.exp(values[s] - best)
            values[s] = e
            total += e
    for s in range(n_players):
        values[s] /= total


@net_kernel
def forward(table, k, enc, weights, obs, hint, mask, n_players, all_lose, logits, values, h1, h2):
    """Policy logits and seat values of net ``k`` for one observation and hint (see the module
    doc)."""
    hidden(table, k, enc, weights, obs, hint, h1, h2)
    policy_logits(table, k, weights, h2, mask, hint, logits)
    value_of(table, k, weights, h2, n_players, all_lose, values)


@nb.njit(cache=True)
def forward_batch(table, k, enc, weights, obs, masks, n_players, all_lose, hints):
    """:func:`forward` over rows of observations and hints (tests and the training's
    checks)."""
    na, nv, nh = table[k, T_ACTIONS], table[k, T_VALUES], table[k, T_HIDDEN]
    logits = np.zeros((obs.shape[0], na), np.float32)
    values = np.zeros((obs.shape[0], nv), np.float64)
    h1 = np.zeros(nh, np.float32)
    h2 = np.zeros(nh, np.float32)
    for r in range(obs.shape[0]):
        forward(
            table,
            k,
            enc,
            weights,
            obs[r],
            hints[r],
            masks[r],
            n_players,
            all_lose,
            logits[r],
            values[r],
            h1,
            h2,
        )
    return logits, values
