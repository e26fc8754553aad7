"""The tuple of kernels a run passes to an entry (:func:`run_kernels`), with generic stand-ins in
the slots of the contract (sim.core) that no agent of the run calls.

Stand-ins are compiled once for every game, with the contract's signatures, so that a run
without search (or without the heuristic, or without the score trace) does not compile the
game's own kernels for them.  Calling one raises (it would be a bug in the choice of the run's
kernels); the condition, always true, lets numba type the return value the signature declares.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sim.core import KERNEL_SIGNATURES as SIG
from sim.core import Kernels


@nb.njit(SIG.determinize, cache=True)
def unused_determinize(state, observer, rng):
    if state.shape[0] >= 0:
        raise ValueError("determinize is not among this run's kernels (sim.stand_ins.run_kernels)")


@nb.njit(SIG.heuristic, cache=True)
def unused_heuristic(state, rng):
    if state.shape[0] >= 0:
        raise ValueError(
            "the heuristic is not among this run's kernels (sim.stand_ins.run_kernels)"
        )
    return np.int64(-1)


@nb.njit(SIG.evaluate, cache=True)
def unused_evaluate(state, out):
    if state.shape[0] >= 0:
        raise ValueError("evaluate is not among this run's kernels (sim.stand_ins.run_kernels)")


@nb.njit(SIG.info_key, cache=True)
def unused_info_key(state, player):
    if state.shape[0] >= 0:
        raise ValueError("info_key is not among this run's kernels (sim.stand_ins.run_kernels)")
    return np.int64(0)


@nb.njit(SIG.observe, cache=True)
def unused_observe(state, player, out):
    if state.shape[0] >= 0:
        raise ValueError("observe is not among this run's kernels (sim.stand_ins.run_kernels)")


@nb.njit(SIG.action_features, cache=True)
def unused_action_features(state, player, hint, mask, rng, out):
    if state.shape[0] >= 0:
        raise ValueError("action_features is not among this run's kernels (sim.stand_ins)")
    return np.int64(0)


@nb.njit(SIG.rewind_secrets, cache=True)
def unused_rewind_secrets(state, observer):
    if state.shape[0] >= 0:
        raise ValueError(
            "rewind_secrets is not among this run's kernels (sim.stand_ins.run_kernels)"
        )


def run_kernels(
    kernels: Kernels,
    *,
    heuristic: bool = True,
    search: bool = True,
    evaluate: bool = True,
    observe: bool = False,
    hint: bool = False,
) -> tuple:
    """``tuple(kernels)`` for an entry, with a stand-in in each slot the caller will not call:
    ``determinize``, ``info_key`` and ``rewind_secrets`` unless ``search`` (MCTS), ``heuristic``
    unless ``heuristic`` or ``search``, ``evaluate`` unless ``evaluate`` or ``search``,
    ``observe`` unless ``observe`` (learned agents); ``determinize`` and ``heuristic`` also
    with ``hint`` (a hint model's policy, agents/net.py), ``action_features`` only with it.

    Turning the tuple into function pointers compiles each game kernel in it (the first time on
    a machine; later runs load it from the disk cache), so a run of random and heuristic agents
    compiles neither the game's search kernels nor, without heuristic agents, its heuristic."""
    unused = {}
    if not search:
        unused.update(info_key=unused_info_key, rewind_secrets=unused_rewind_secrets)
        if not hint:
            unused["determinize"] = unused_determinize
    if not (heuristic or search or hint):
        unused["heuristic"] = unused_heuristic
    if not (evaluate or search):
        unused["evaluate"] = unused_evaluate
    if not observe:
        unused["observe"] = unused_observe
    if not hint:
        unused["action_features"] = unused_action_features
    return tuple(kernels._replace(**unused))
