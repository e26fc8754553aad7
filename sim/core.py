"""The engine contract every game implements, the in-state RNG, and shared kernels.

A game state is one flat ``int32`` array.  Every game starts its state with the same
header, so that generic code (agents, runners, the Python ``Game`` wrapper) can read
the player count, the player to move and the RNG without knowing the game::

    index  name        meaning
    0      H_RNG_LO    low 32 bits of the game's splitmix64 RNG state
    1      H_RNG_HI    high 32 bits
    2      H_NPLAYERS  number of seats
    3      H_CURRENT   seat to move; NO_PLAYER exactly when the game is over (generic
                       kernels read it instead of calling current_player / is_terminal)
    4      H_PLY       decisions applied so far
    5      H_SEED_LO   low / high 32 bits of the seed the state was created from
    6      H_SEED_HI
    7      (reserved)
    8...   game-specific fields (HEADER_SIZE = 8)

Every game package exports a :class:`GameSpec` whose ``kernels`` field is a
:class:`Kernels` namedtuple of ``@njit`` functions with these signatures::

    new_state(seed: int64, n_players: int64, options: int32[:]) -> int32[:]
    current_player(state) -> int64              # NO_PLAYER when terminal
    legal_mask(state, out: bool[:num_actions]) -> int64 (number of legal actions)
    apply(state, action: int64) -> None         # in place; assumes a legal action
    is_terminal(state) -> bool
    returns(state, scores: float64[n], wins: float64[n]) -> None
        # win shares sum to 1 (0 allowed only for a GameSpec with can_all_lose)
    determinize(state, observer: int64, rng: int32[2]) -> None
        # in place: resample everything ``observer`` cannot see
    heuristic(state, rng: int32[2]) -> int64    # the game's hand-written policy
    evaluate(state, out: float64[n]) -> None    # leaf value estimate in [0, 1] per seat
    features(state, out: float64[n, num_features]) -> None
    info_key(state, player: int64) -> int64
        # a 64-bit key of what ``player`` knows in ``state`` (for MCTS, see below)
    rewind_secrets(state, observer: int64) -> None
        # in place: take back the secret choices other seats made earlier in the current
        # simultaneous round (unseen by ``observer``), so that they choose again
    observe(state, player: int64, out: float32[size]) -> None
        # the seat's observation tensor (sim.observe): what learned agents read
    action_features(state, player: int64, hint: int64, mask, rng, out: float32[:, :]) -> int64
        # per-action features of ``player``'s decision for a learned agent's linear head,
        # into out[:num_actions, :k]; returns k (0: none at this decision, the default).
        # ``state`` is already resampled from the seat's information set (``determinize``
        # of a copy, which the kernel may change) and ``hint`` is the heuristic's action in it

``info_key`` is what lets one information-set MCTS serve every game.  Two states that
``player`` cannot tell apart must get the same key, and states ``player`` can tell apart
should get different keys (up to hash collisions).  The key covers the public history,
``player``'s own private information (hand, own secret choices) and whose turn it is, and
nothing else: in particular not the secret choices other seats made earlier in the same
simultaneous round (a later chooser never sees an earlier secret choice).  MCTS keys the
search-tree node of the seat to move by ``info_key(state, seat)``, so an opponent's node
never depends on the searcher's pending secret choice.  Games that do not provide it get
:func:`missing_info_key`, which raises when called (random and heuristic play still work).

``rewind_secrets`` lets the search treat an opponent's secret choice made earlier in the
round as that opponent's *decision* rather than as chance: MCTS rewinds the round to the
first such choice, and the opponents choose again in the tree (through their own
information-set nodes), as they would if the searcher had searched before them.  The
rewound state must equal the state at that point of the round up to what ``observer``
cannot see (seat to move, ply and pending choices restored).  Games without it get
:func:`keep_secrets` (a no-op): ``determinize`` then resamples those choices uniformly.

The kernels trust their input (a kernel given an illegal action has undefined
results); the Python-facing :class:`sim.game.Game` validates first.  Generic kernels
(the arena, MCTS) are written once for every game.  Python calls them through *entry*
kernels whose first argument is ``tuple(spec.kernels)``, typed as a tuple of function
pointers (``KERNELS_T``: the contract's signatures, the same for every game), which the
entry opens into a ``Kernels`` namedtuple with :func:`as_kernels`.  So one compiled
generic kernel serves every game and is cached on disk like any other.  (Passing the
namedtuple of dispatchers itself would compile one copy per game, and numba cannot cache
those: its cache index cannot rebuild dispatcher types in another process.)

A process compiles only what it calls (docs/architecture.md, "Generic kernels"): an entry
(:func:`entry`) is compiled at its first call, and a caller that will not call some slots
passes :func:`sim.stand_ins.run_kernels`, the tuple with generic stand-ins in those slots.

Randomness is explicit: the game's chance stream lives in the state header; agents
carry their own two-word RNG arrays (``int32[2]``), seeded separately, so a search
never perturbs the game's deal.
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import llvmlite.ir
import numba as nb
import numba.extending
import numpy as np

HEADER_SIZE = 8
H_RNG_LO = 0
H_RNG_HI = 1
H_NPLAYERS = 2
H_CURRENT = 3
H_PLY = 4
H_SEED_LO = 5
H_SEED_HI = 6

NO_PLAYER = -1

MASK32 = np.uint64(0xFFFFFFFF)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)


def kernel(fn=None, *, inline=False, per_type=False):
    """``@njit(cache=True)`` for a kernel that allocates no arrays, compiled without numba's
    reference counting (``_nrt=False``; why: docs/architecture.md, "Kernels without reference
    counting").  Such a kernel must not create arrays (slices are fine: views of arrays that
    live in the caller); numba refuses to compile one that does.  ``inline=True`` also inlines
    it into its callers (for small helpers).  ``per_type=True`` compiles it once per argument
    types, not once per combination of integer constants its callers pass
    (:func:`_one_per_type`; for kernels called with many constants, e.g. a task stack's push).
    """
    opts = {"cache": True, "_nrt": False}
    if inline:
        opts["inline"] = "always"

    def make(f):
        disp = nb.njit(**opts)(f)
        return _one_per_type(disp) if per_type else disp

    return make if fn is None else make(fn)


def _unliteral_int(t):
    return nb.types.unliteral(t) if isinstance(t, nb.types.IntegerLiteral) else t


def _one_per_type(disp):
    """Have ``disp`` compiled once per argument *types* when compiled code calls it, not once
    per combination of integer constants (numba types a constant argument as a literal and
    specializes on it; a call with a constant then uses the ``int64`` version).  Not the
    default: a kernel's constant arguments also select its branches at compile time.  Boolean
    constants stay literal (a flag is meant to specialize)."""
    base = disp.get_call_template

    def get_call_template(args, kws):
        return base(
            tuple(_unliteral_int(a) for a in args), {k: _unliteral_int(v) for k, v in kws.items()}
        )

    disp.get_call_template = get_call_template
    return disp


# The contract's signatures: generic kernels see each game kernel as a function pointer
# of exactly this type (arrays: the state is a C-contiguous int32 vector).
STATE_T = nb.types.int32[::1]
MASK_T = nb.types.boolean[::1]
OPTIONS_T = nb.types.int32[::1]
RNG_T = nb.types.int32[:]
VEC_T = nb.types.float64[:]
MAT_T = nb.types.float64[:, :]
_SIGNATURES = {
    "new_state": STATE_T(nb.types.int64, nb.types.int64, OPTIONS_T),
    "current_player": nb.types.int64(STATE_T),
    "legal_mask": nb.types.int64(STATE_T, MASK_T),
    "apply": nb.types.none(STATE_T, nb.types.int64),
    "is_terminal": nb.types.boolean(STATE_T),
    "returns": nb.types.none(STATE_T, VEC_T, VEC_T),
    "determinize": nb.types.none(STATE_T, nb.types.int64, RNG_T),
    "heuristic": nb.types.int64(STATE_T, RNG_T),
    "evaluate": nb.types.none(STATE_T, VEC_T),
    "features": nb.types.none(STATE_T, MAT_T),
    "info_key": nb.types.int64(STATE_T, nb.types.int64),
    "rewind_secrets": nb.types.none(STATE_T, nb.types.int64),
    "observe": nb.types.none(STATE_T, nb.types.int64, nb.types.float32[::1]),
    "action_features": nb.types.int64(
        STATE_T, nb.types.int64, nb.types.int64, MASK_T, RNG_T, nb.types.float32[:, ::1]
    ),
}


@nb.njit(_SIGNATURES["info_key"], cache=True)
def missing_info_key(state, player):
    """Default ``info_key`` of games that have none yet: MCTS cannot run on them."""
    if player >= 0:
        raise ValueError("this game provides no info_key kernel; MCTS needs one (see sim.core)")
    return np.int64(0)


@nb.njit(_SIGNATURES["rewind_secrets"], cache=True)
def keep_secrets(state, observer):
    """Default ``rewind_secrets``: leave earlier secret choices to ``determinize``."""
    return None


@nb.njit(_SIGNATURES["observe"], cache=True)
def missing_observe(state, player, out):
    """Default ``observe`` of games without an observation tensor: no learned agent can play."""
    if player >= -1:
        raise ValueError("this game provides no observe kernel; learned agents need one")


@nb.njit(_SIGNATURES["action_features"], cache=True)
def no_action_features(state, player, hint, mask, rng, out):
    """Default ``action_features``: none (a learned agent's linear head never plays)."""
    return np.int64(0)


Kernels = namedtuple(
    "Kernels",
    "new_state current_player legal_mask apply is_terminal returns determinize "
    "heuristic evaluate features info_key rewind_secrets observe action_features",
    defaults=(missing_info_key, keep_secrets, missing_observe, no_action_features),
)
KERNEL_SIGNATURES = Kernels(**_SIGNATURES)
# (numba may colour the message with terminal escapes, hence the leading ".*")
warnings.filterwarnings("ignore", message=".*First-class function type feature is experimental")
KERNELS_T = nb.types.Tuple([nb.types.FunctionType(sig) for sig in KERNEL_SIGNATURES])


@nb.njit(cache=True)
def as_kernels(k):
    """Open a tuple of function pointers (``KERNELS_T``) into a :class:`Kernels` namedtuple."""
    return Kernels(
        k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10], k[11], k[12], k[13]
    )


class Entry:
    """A generic entry kernel, compiled (or loaded from the disk cache) for its one signature at
    its first call rather than at import, so a run compiles only the entries it calls.

    Once compiled it accepts nothing else (as ``@njit(signature)``): a tuple of dispatchers is
    converted to the signature's function pointers, never compiled into a per-game copy."""

    def __init__(self, fn, signature):
        self.dispatcher = nb.njit(cache=True)(fn)
        self.signature = signature
        self.__name__, self.__qualname__, self.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        self.__module__ = fn.__module__
        self.__wrapped__ = fn
        self._ready = False

    def compile(self):
        """The compiled dispatcher (compiled or loaded now if it was not yet)."""
        if not self._ready:
            self.dispatcher.compile(self.signature)
            self.dispatcher.disable_compile()
            self._ready = True
        return self.dispatcher

    def __call__(self, *args):
        return (self.dispatcher if self._ready else self.compile())(*args)


def entry(*arg_types, returns=nb.types.none):
    """Decorator of a generic entry kernel: first argument ``tuple(spec.kernels)`` (KERNELS_T);
    an :class:`Entry`, compiled at its first call."""
    return lambda fn: Entry(fn, returns(KERNELS_T, *arg_types))


# --------------------------------------------------------------------------- RNG


@nb.njit(cache=True, inline="always")
def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def hash64(a, b):
    """A 64-bit hash of two integers (used to derive seeds from a master seed)."""
    x = _mix64(np.uint64(a) + GOLDEN)
    return np.int64(_mix64(x ^ (np.uint64(b) * GOLDEN + np.uint64(0x632BE59BD9B4E019))))


FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)


@kernel
def fnv_words(words, h):
    """Continue the FNV-1a hash ``h`` over integer ``words`` (each taken as 32 bits)."""
    for i in range(words.shape[0]):
        h = (h ^ np.uint64(np.int64(words[i]) & 0xFFFFFFFF)) * FNV_PRIME
    return h


@kernel
def hash_words(words, salt):
    """A 64-bit key of a word array and a salt: the last step of the games' ``info_key``
    (FNV-1a over the masked state copy, then mixed with the player)."""
    return hash64(np.int64(fnv_words(words, FNV_OFFSET)), salt)


@kernel
def game_seed(master_seed, game_index):
    """The seed of game ``game_index`` of a run: a pure function of the pair."""
    return hash64(master_seed, game_index)


@nb.njit(cache=True, inline="always")
def _load(buf, off):
    lo = np.uint64(np.int64(buf[off]) & np.int64(0xFFFFFFFF))
    hi = np.uint64(np.int64(buf[off + 1]) & np.int64(0xFFFFFFFF))
    return lo | (hi << np.uint64(32))


@nb.njit(cache=True, inline="always")
def _store(buf, off, x):
    lo = np.int64(x & MASK32)
    hi = np.int64(x >> np.uint64(32))
    if lo >= 1 << 31:
        lo -= 1 << 32
    if hi >= 1 << 31:
        hi -= 1 << 32
    buf[off] = lo
    buf[off + 1] = hi


@kernel
def rng_seed(buf, off, seed):
    """Store a splitmix64 state derived from ``seed`` at ``buf[off:off+2]``."""
    _store(buf, off, _mix64(np.uint64(seed) ^ np.uint64(0x2545F4914F6CDD1D)))


@kernel(inline=True)
def rng_next(buf, off):
    """Advance the splitmix64 state stored at ``buf[off:off+2]``; return 64 random bits."""
    x = _load(buf, off) + GOLDEN
    _store(buf, off, x)
    return _mix64(x)


@kernel(inline=True)
def rng_below(buf, off, n):
    """A uniform integer in ``[0, n)`` (``n`` >= 1) from the RNG at ``buf[off]``."""
    r = rng_next(buf, off) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))


@nb.njit(cache=True)
def new_rng(seed):
    """A fresh two-word RNG array (``int32[2]``) for an agent or a search."""
    buf = np.zeros(2, np.int32)
    rng_seed(buf, 0, seed)
    return buf


# --------------------------------------------------------------------------- header


@kernel
def init_header(state, seed, n_players):
    rng_seed(state, H_RNG_LO, seed)
    state[H_NPLAYERS] = n_players
    state[H_CURRENT] = NO_PLAYER
    state[H_PLY] = 0
    _store(state, H_SEED_LO, np.uint64(seed))


@kernel
def header_current_player(state):
    return np.int64(state[H_CURRENT])


@kernel
def header_is_terminal(state):
    return state[H_CURRENT] == NO_PLAYER


def kernels_from(*modules) -> Kernels:
    """A game's :class:`Kernels`: each field is the function of that name in the first of
    ``modules`` that defines one.  Without one, ``current_player`` and ``is_terminal`` read
    the header, and ``info_key`` / ``rewind_secrets`` take the contract's defaults."""
    defaults = {
        "current_player": header_current_player,
        "is_terminal": header_is_terminal,
        "info_key": missing_info_key,
        "rewind_secrets": keep_secrets,
        "observe": missing_observe,
        "action_features": no_action_features,
    }
    found = {}
    for name in Kernels._fields:
        for module in modules:
            if hasattr(module, name):
                found[name] = getattr(module, name)
                break
        else:
            if name not in defaults:
                raise TypeError(f"no kernel {name!r} in {', '.join(m.__name__ for m in modules)}")
            found[name] = defaults[name]
    return Kernels(**found)


# --------------------------------------------------------------------------- shared kernels


@kernel
def shuffle_range(arr, lo, hi, buf, off):
    """Fisher-Yates shuffle of ``arr[lo:hi]`` in place with the RNG at ``buf[off]``."""
    for i in range(hi - 1, lo, -1):
        j = lo + rng_below(buf, off, i - lo + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@kernel
def random_legal(mask, buf, off):
    """A uniformly random index among the True entries of ``mask`` (-1 if none)."""
    n = 0
    i = 0
    while i + 8 <= mask.shape[0]:
        n += _count8(mask, i)
        i += 8
    while i < mask.shape[0]:
        n += mask[i]
        i += 1
    return random_of_legal(mask, n, buf, off)


@nb.extending.intrinsic
def _load8(typingctx, mask, i):
    """The 8 bytes ``mask[i:i + 8]`` of a C-contiguous bool array as one ``uint64`` (an
    unaligned load; the caller keeps ``i + 8 <= len(mask)``)."""
    sig = nb.types.uint64(mask, nb.types.intp)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(
            builder.gep(ary.data, [args[1]]), llvmlite.ir.IntType(64).as_pointer()
        )
        return builder.load(ptr, align=1)

    return sig, codegen


@nb.extending.intrinsic
def bit_count(typingctx, m):
    """The set bits of the non-negative integer ``m`` (LLVM ``ctpop``), as an int64: the size
    of a set kept as a bit mask."""
    if not isinstance(m, nb.types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(context.cast(builder, args[0], signature.args[0], nb.types.int64))

    return nb.types.int64(m), codegen


@nb.extending.intrinsic
def lowest_bit(typingctx, m):
    """The index of the lowest set bit of the non-zero, non-negative integer ``m`` (LLVM
    ``cttz``), as an int64: the first member of a set kept as a bit mask."""
    if not isinstance(m, nb.types.Integer):
        return None

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[0], signature.args[0], nb.types.int64)
        return builder.cttz(v, llvmlite.ir.Constant(llvmlite.ir.IntType(1), 1))

    return nb.types.int64(m), codegen


BYTE_SUM = np.uint64(0x0101010101010101)
HIGH_BITS = np.uint64(0x8080808080808080)


@kernel(inline=True)
def _count8(mask, i):
    """The True entries among ``mask[i:i + 8]``: a bool is one byte, 0 or 1, so the word's
    product with 0x0101...01 holds their sum in its top byte."""
    return np.int64((_load8(mask, i) * BYTE_SUM) >> np.uint64(56))


@kernel(inline=True)
def clear_mask(out, size):
    """``out[:size] = False`` with ``size`` a constant of the caller (a game's NUM_ACTIONS, the
    mask's length): the compiler then writes the stores in line instead of calling memset."""
    for i in range(size):
        out[i] = False


@nb.extending.intrinsic
def _bits64(typingctx, mask, i):
    """The 64 entries ``mask[i:i + 64]`` of a C-contiguous bool array as the bits of one
    ``uint64`` (bit ``j``: entry ``i + j``), compared at once (a vector compare and its
    move-mask); the caller keeps ``i + 64 <= len(mask)``."""
    sig = nb.types.uint64(mask, nb.types.intp)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        vt = llvmlite.ir.VectorType(llvmlite.ir.IntType(8), 64)
        v = builder.load(
            builder.bitcast(builder.gep(ary.data, [args[1]]), vt.as_pointer()), align=1
        )
        return builder.bitcast(
            builder.icmp_unsigned("!=", v, llvmlite.ir.Constant(vt, None)), llvmlite.ir.IntType(64)
        )

    return sig, codegen


_PAIRS = np.uint64(0x5555555555555555)
_QUADS = np.uint64(0x3333333333333333)
_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)
_SPREAD = np.uint64(0x8040201008040201)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)


@kernel(inline=True)
def _bytes_at_most(sums, left):
    """The bytes of ``sums`` (each below 0x80) at most ``left`` (0 to 127): each byte of
    ``0x80 + left`` minus a byte keeps its top bit when the byte is at most ``left``."""
    return bit_count((((np.uint64(left) * BYTE_SUM) | HIGH_BITS) - sums) & HIGH_BITS)


@kernel(inline=True)
def _kth_in_bytes(word, left):
    """The index of the True entry with ``left`` True entries before it among the 8 bool bytes
    (0 or 1) of ``word``: multiplying by 0x0101...01 puts their running sums in its bytes, and
    the entries before the drawn one are those whose running sum is at most ``left``."""
    return _bytes_at_most(word * BYTE_SUM, left)


@kernel(inline=True)
def _nth_bit_swar(m, r):
    """:func:`nth_bit` without BMI2: the bytes' bit counts (the SWAR popcount) summed by one
    multiplication give the byte holding the bit, and that byte, spread into 8 bool bytes,
    gives the bit (:func:`_kth_in_bytes`)."""
    bits = np.uint64(m)
    s = bits - ((bits >> np.uint64(1)) & _PAIRS)
    s = (s & _QUADS) + ((s >> np.uint64(2)) & _QUADS)
    sums = ((s + (s >> np.uint64(4))) & _NIBBLES) * BYTE_SUM  # byte j: bits in bytes 0..j
    j = _bytes_at_most(sums, r)  # the bytes wholly below the bit
    shift = np.uint64(8 * j)
    left = np.int64(r) - np.int64(((sums << np.uint64(8)) >> shift) & np.uint64(0xFF))
    word = ((((bits >> shift) & np.uint64(0xFF)) * BYTE_SUM & _SPREAD) + _LOW7) & HIGH_BITS
    return 8 * j + _kth_in_bytes(word >> np.uint64(7), left)


@nb.extending.intrinsic
def _pdep(typingctx, src, mask):
    """BMI2's parallel bit deposit of the ``uint64`` values: the low bits of ``src`` placed, in
    order, at the set bits of ``mask``."""

    def codegen(context, builder, signature, args):
        i64 = llvmlite.ir.IntType(64)
        fn = builder.module.declare_intrinsic(
            "llvm.x86.bmi.pdep.64", fnty=llvmlite.ir.FunctionType(i64, [i64, i64])
        )
        return builder.call(fn, args)

    return nb.types.uint64(nb.types.uint64, nb.types.uint64), codegen


@kernel(inline=True)
def _nth_bit_pdep(m, r):
    """:func:`nth_bit` with BMI2: the bit ``1 << r`` deposited into ``m`` lands on the member."""
    return lowest_bit(_pdep(np.uint64(1) << np.uint64(r), np.uint64(m)))


def fast_pdep(cpu_name=None, features=None) -> bool:
    """Whether numba compiles for a CPU with a fast BMI2 ``pdep``: the host's (numba's default
    target) with the ``bmi2`` feature, except AMD's before Zen 3 (``znver1``, ``znver2`` and
    the ``bdver`` family), where it is microcoded and takes hundreds of cycles.  A target set
    through ``NUMBA_CPU_NAME`` or ``NUMBA_CPU_FEATURES`` (a cache for other machines) gets the
    portable code."""
    from numba.core import config

    if cpu_name is None:
        if config.CPU_NAME is not None or config.CPU_FEATURES is not None:
            return False
        from llvmlite import binding

        cpu_name, features = binding.get_host_cpu_name(), binding.get_host_cpu_features()
    return (
        bool(features.get("bmi2", False))
        and cpu_name not in ("znver1", "znver2")
        and not cpu_name.startswith("bdver")
    )


# The index of the set bit of ``m`` (a 64-bit set) with ``r`` set bits below it (``r`` less
# than its set bits), without a branch on ``r``: one ``pdep`` where it is fast, else the SWAR
# select (the same result; tests/test_random_pick.py checks both).
nth_bit = _nth_bit_pdep if fast_pdep() else _nth_bit_swar


@kernel(inline=True)
def random_of_legal(mask, n, buf, off):
    """As :func:`random_legal` when the number ``n`` of True entries is known (``legal_mask``
    returns it): one pass instead of two, the same draw.

    The drawn entry is the ``k``-th True one, found without a branch on the draw (each would
    be mispredicted about once a pick, which cost more than the pass).  A mask of 64 entries
    or more is read 64 entries at a time as the bits of a word (:func:`_bits64`; the last
    64 entries of the mask, shifted down, for its tail): the word holding the drawn entry is
    chosen by the running count of its bits, and :func:`nth_bit` finds the entry in it.  A
    shorter mask is read 8 entries at a time: the words wholly before the entry are counted,
    then the entries before it in its word (:func:`_kth_in_bytes`)."""
    if n == 0:
        return -1
    k = rng_below(buf, off, n)
    size = mask.shape[0]
    if size >= 64:
        nc = (size + 63) // 64
        rest = k  # the draw less the True entries of the chunks before
        bits = np.uint64(0)  # the chunk holding the drawn entry: its bits, first entry, rank
        start = np.int64(0)
        left = np.int64(0)
        for c in range(nc):
            if c < nc - 1:
                b = _bits64(mask, 64 * c)
            else:
                b = _bits64(mask, size - 64) >> np.uint64(64 * nc - size)
            cnt = bit_count(b)
            here = np.uint64(rest) < np.uint64(cnt)
            bits = b if here else bits
            start = 64 * c if here else start
            left = rest if here else left
            rest -= cnt
        return start + nth_bit(bits, left)
    if size < 8:
        for i in range(size):
            k -= mask[i]
            if k < 0:
                return i
        return -1
    nw = size // 8
    seen = np.int64(0)  # True entries in the words read
    before = np.int64(0)  # words wholly before the drawn entry, and their True entries
    base = np.int64(0)
    for w in range(nw):
        c = _count8(mask, 8 * w)
        seen += c
        le = np.int64(seen <= k)
        before += le
        base += c * le
    if before < nw:
        start = 8 * before
        word = _load8(mask, start)
    else:  # past the last whole word: the mask's last 8 entries, shifted down to those
        start = 8 * nw
        word = _load8(mask, size - 8) >> np.uint64(8 * (start + 8 - size))
    return start + _kth_in_bytes(word, k - base)


@kernel
def argmax_masked(values, mask, buf, off):
    """Index of the largest ``values[i]`` with ``mask[i]``, ties broken uniformly at random."""
    best = -np.inf
    count = 0
    choice = -1
    for i in range(values.shape[0]):
        if not mask[i]:
            continue
        v = values[i]
        if v > best:
            best = v
            count = 1
            choice = i
        elif v == best:
            count += 1
            if rng_below(buf, off, count) == 0:
                choice = i
    return choice


@kernel
def win_shares(scores, tiebreak, n, wins):
    """Fill ``wins`` with 1/k for each of the k seats tied on the best (score, tiebreak)."""
    best_s = -np.inf
    best_t = -np.inf
    for p in range(n):
        if scores[p] > best_s or (scores[p] == best_s and tiebreak[p] > best_t):
            best_s = scores[p]
            best_t = tiebreak[p]
    k = 0
    for p in range(n):
        if scores[p] == best_s and tiebreak[p] == best_t:
            k += 1
    for p in range(n):
        wins[p] = 1.0 / k if (scores[p] == best_s and tiebreak[p] == best_t) else 0.0


# --------------------------------------------------------------------------- spec


@dataclass(frozen=True)
class Option:
    """One rule option of a game: a named choice (``choices``) or a bounded integer."""

    name: str
    default: Any
    doc: str
    choices: tuple[str, ...] | None = None
    low: int | None = None
    high: int | None = None

    def encode(self, value: Any) -> int:
        if self.choices is not None:
            if isinstance(value, bool):
                value = str(value).lower()
            if value not in self.choices:
                raise OptionError(
                    f"option {self.name!r}: {value!r} is not allowed "
                    f"(allowed: {', '.join(self.choices)})"
                )
            return self.choices.index(value)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise OptionError(f"option {self.name!r}: expected an integer, got {value!r}")
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            raise OptionError(f"option {self.name!r}: {value} is outside {self.low}..{self.high}")
        return int(value)

    def decode(self, code: int) -> Any:
        return self.choices[code] if self.choices is not None else int(code)


class OptionError(ValueError):
    """A rule option that the game does not know or does not allow."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state."""


@dataclass(frozen=True)
class GameSpec:
    """Everything the rest of the project uses of one game: the game's contract.

    ``name`` is the snake_case id used as folder, registry key and Parquet partition value.
    Python-side helpers (``action_name``, ``render`` ...) take a state array and return text
    or plain data; they are for people and replays, never on the hot path.  The registry
    checks a spec when it registers the game (:func:`check_spec`): a missing required piece
    is an error naming the piece.  Required: the fields without a default.  Optional:
    ``components`` (data files a study may change), ``invariants`` (checked by property
    tests, ``dynasty fuzz`` and every replay), ``observation`` (the RL adapters' tensors),
    ``board`` (the viewer's drawing; without one the viewer shows ``render``'s text),
    ``scenario`` (positions for rule tests), ``report_groups``, ``round_word``, ``decision_kind``,
    ``action_features``.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    num_actions: int
    max_decisions: int  # upper bound on decisions in one game (for safety checks)
    kernels: Kernels
    options: tuple[Option, ...]
    feature_names: tuple[str, ...]
    action_name: Callable[[np.ndarray, int], str]
    render: Callable[[np.ndarray], str]
    # Chance outcomes in the order they happened, as JSON-able values; and the inverse:
    # a state built from (n_players, options, outcomes) alone, for engine-independent replays.
    chance_outcomes: Callable[[np.ndarray], list]
    state_from_chance: Callable[[int, np.ndarray, list], np.ndarray]
    # The game's check of a replay's chance outcomes before any is used, given (n_players,
    # options as a dict, outcomes): a message naming what is wrong, or None.
    chance_problem: Callable[[int, dict, list], str | None]
    allowed_players: tuple[int, ...] = ()
    player_constraints: Callable[[int, dict], str | None] = field(default=lambda n, o: None)
    # Component data (card values, board graphs ...): a sim.components.Components, whose
    # packed array (``data``) is appended after the option codes in the array given to
    # ``new_state``: kernels read it as data, never as compiled-in globals, so a replaced
    # data file needs no recompile.  None for a game without data files.
    components: Any = None
    # Breakdowns the experiment report (``dynasty report``) adds for this game: each entry is
    # (title, feature names); for every named feature the report gives the win rate of seats
    # whose final value is > 0 ("held") and of those where it is 0, with sample sizes and
    # Wilson intervals.  E.g. ("Goal card held at the end", ("goal_palace", "goal_harvest")).
    report_groups: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # True for a game where every seat can lose at once (a non-seat side such as Eternal
    # Dynasty's 2-player Eternal Emperor can win): ``returns`` then gives every seat a win
    # share of 0, so the shares of a game sum to 1 or, only for such games, to 0.
    can_all_lose: bool = False
    # The state word whose change marks the end of a round (-1: none): the runner's score trace
    # (agents/trace.py) takes a point, the provisional leader, at every change;
    # docs/results-format.md.
    round_word: int = -1
    # The game's observation tensors (a sim.observe.Observation: the information-state tensor
    # of a seat and the public tensor, fixed-shape float32, a numba kernel); None for a game
    # without one (the RL adapters in dynasty_lab/envs need it).
    observation: Any = None
    # The game's invariants (a sim.invariants.Invariants: a check kernel run after every
    # decision, and the check of a replay's chance outcomes); None: the generic ones only.
    invariants: Any = None
    # The viewer's board drawing (a sim.board.Board); None: the viewer shows ``render``.
    board: Any = None
    # A module of helpers that build positions for rule tests (``position(...)`` ...), or None.
    scenario: Any = None
    # The kind of decision a state asks for, a short name (sim.kinds); None: the game has none.
    decision_kind: Callable[[np.ndarray], str] | None = None
    # The names of the features ``kernels.action_features`` gives per action (a model's card
    # records them: a model with a linear head is refused for another list); () for none.
    action_features: tuple[str, ...] = ()

    @property
    def data(self) -> np.ndarray:
        """The packed component data (empty for a game without data files)."""
        if self.components is None:
            return np.zeros(0, np.int32)
        return self.components.packed

    def players(self) -> tuple[int, ...]:
        return self.allowed_players or tuple(range(self.min_players, self.max_players + 1))

    def option_defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def encode_options(self, options: dict[str, Any] | None = None) -> np.ndarray:
        """Validate a {name: value} dict (missing names take defaults) into an int32 array."""
        options = dict(options or {})
        known = {o.name for o in self.options}
        unknown = sorted(set(options) - known)
        if unknown:
            raise OptionError(
                f"{self.name}: unknown option {unknown[0]!r} "
                f"(known: {', '.join(sorted(known)) or 'none'})"
            )
        codes = np.array(
            [o.encode(options.get(o.name, o.default)) for o in self.options], dtype=np.int32
        )
        return np.concatenate([codes.reshape(len(self.options)), self.data.astype(np.int32)])

    def decode_options(self, arr: np.ndarray) -> dict[str, Any]:
        return {o.name: o.decode(int(arr[i])) for i, o in enumerate(self.options)}

    def check_players(self, n_players: int, options: dict[str, Any] | None = None) -> None:
        if n_players not in self.players():
            raise OptionError(
                f"{self.name}: {n_players} players is not allowed "
                f"(allowed: {', '.join(map(str, self.players()))})"
            )
        msg = self.player_constraints(n_players, dict(options or {}))
        if msg:
            raise OptionError(f"{self.name}: {msg}")
