"""Clocks readable inside numba kernels: ``cpu_ns()`` (the calling thread's CPU time) and
``now_ns()`` (monotonic wall clock), int64 nanoseconds.

Agent time (the arena's per-decision measurement, MCTS time budgets) is the thread's CPU time:
on a machine shared with other work a wall clock counts the time the process waits for a core,
while CPU time counts only the agent's own work, so it is comparable between agents and runs.
Reading it (``CLOCK_THREAD_CPUTIME_ID``) is a system call, reading the monotonic clock (vDSO) is
not, so the arena times each run of decisions on the monotonic clock and hands out the chunk's
CPU time in proportion (``agents.arena``, module docstring).

Numba has no clock of its own, and a ctypes function pointer would make a kernel
uncacheable (its address is a per-process constant).  These intrinsics instead declare the
C library's ``clock_gettime`` by name in the kernel's LLVM module, as numba does for its own
runtime functions, so the symbol is resolved when the (cached) code is loaded and the kernel
caches like any other.
"""

from __future__ import annotations

import numba as nb
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CLOCK_MONOTONIC = 1  # Linux's ids (time.h): the wall clock that never jumps
CLOCK_THREAD_CPUTIME_ID = 3  # CPU time of the calling thread


def _clock(clock_id):
    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        # struct timespec {time_t tv_sec; long tv_nsec} on 64-bit Linux
        timespec = ir.LiteralStructType([i64, i64])
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(fn, [ir.Constant(ir.IntType(32), clock_id), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return codegen


@intrinsic
def _monotonic_ns(typingctx):
    return types.int64(), _clock(CLOCK_MONOTONIC)


@intrinsic
def _thread_cpu_ns(typingctx):
    return types.int64(), _clock(CLOCK_THREAD_CPUTIME_ID)


@nb.njit(cache=True, inline="always")
def now_ns():
    """Nanoseconds of the monotonic wall clock (only differences mean anything)."""
    return _monotonic_ns()


@nb.njit(cache=True, inline="always")
def cpu_ns():
    """Nanoseconds of CPU time the calling thread has used (only differences mean anything)."""
    return _thread_cpu_ns()
