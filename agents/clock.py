"""A monotonic clock readable inside numba kernels: ``now_ns()`` -> int64 nanoseconds.

Numba has no clock of its own, and a ctypes function pointer would make a kernel
uncacheable (its address is a per-process constant).  This intrinsic instead declares the
C library's ``clock_gettime`` by name in the kernel's LLVM module, as numba does for its own
runtime functions, so the symbol is resolved when the (cached) code is loaded and the kernel
caches like any other.  ``CLOCK_MONOTONIC`` through the vDSO costs about 16 ns a call on the
development machine.  Used by the arena (per-decision agent time) and by MCTS time budgets.
"""

from __future__ import annotations

import numba as nb
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CLOCK_MONOTONIC = 1  # Linux's id (time.h); the clock that never jumps


@intrinsic
def _clock_gettime_ns(typingctx):
    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])  # struct timespec {time_t tv_sec; long tv_nsec} on 64-bit Linux
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(fn, [ir.Constant(ir.IntType(32), CLOCK_MONOTONIC), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen


@nb.njit(cache=True, inline="always")
def now_ns():
    """Nanoseconds of the monotonic clock (only differences mean anything)."""
    return _clock_gettime_ns()
