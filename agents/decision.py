"""One decision of a built-in agent, outside the arena's game loop: replays, interactive play,
the environments of dynasty_lab, and the Python loop of runs with Python agents (agents.user).

:func:`choose_action` takes the decision through one of two entries, each compiled at its first
call (sim.core.entry): ``choose_action_search`` and ``choose_action_no_search``, the same kernel
:func:`_choose_action` with ``search=None`` instead of True in the second, on which numba prunes
the branch that searches before typing it, so only an MCTS decision compiles agents.mcts.  The
game's kernels come as ``tuple(spec.kernels)`` or a run's ``agents.arena.kernels_of_run``.

A decision is the one the arena's game loop takes for the same state, parameters and agent RNG
words, except for an MCTS agent with tree reuse, which only the arena can play (its tree lives
in the game loop): it is refused here.

**Timed decisions.**  Calling an entry from Python costs far more than a cheap agent's decision
(numba converts the kernels' tuple into function pointers at every call: about 0.3 ms, against
0.5 us for a Middle Kingdom heuristic decision).  A caller that records agent time (the Python
loop of runs with Python agents) passes ``spent``: the decision then goes through
``choose_action_timed_search`` / ``choose_action_timed_no_search``, which read the thread's CPU
clock (agents.clock) around the decision inside the compiled call and write its time into
``spent[0]``, so the agent is charged its own work and not the crossing from Python.
"""

import numba as nb

from agents.clock import cpu_ns
from agents.mcts import P_REUSE, mcts_act
from agents.net import NETS_T, no_nets
from agents.policy import net_scratch, policy_act
from agents.random import random_act
from agents.table import HEURISTIC, MCTS, NO_SEARCH, POLICY, RANDOM
from sim.core import H_NPLAYERS, as_kernels, entry

REUSE_ONLY_IN_ARENA = (
    "an MCTS agent with tree reuse plays whole games in the arena only (its tree is kept "
    "between its decisions there); replays, runs with Python agents and interactive play take "
    "single decisions: use the agent without reuse"
)


@nb.njit(cache=True)
def _choose_action(G, N, search, state, kind, params, rng, mask):
    """The action built-in agent ``kind`` (with ``params``; networks ``N``) takes in ``state``;
    checked for legality.  User agents are not built in: their decisions are taken by
    agents.user, never here.  ``search``: True, or None in the entry without the search (the
    module docstring)."""
    if kind == HEURISTIC:
        a = G.heuristic(state, rng)
    elif kind == MCTS:
        if search is None:
            raise ValueError(NO_SEARCH)
        a = mcts_act(G, N, state, params, rng, mask)
    elif kind == POLICY:
        obs, logits, _, h1, h2 = net_scratch(N, mask.shape[0], state[H_NPLAYERS])
        a = policy_act(G, N, state, params, rng, mask, obs, logits, h1, h2)
    elif kind == RANDOM:
        a = random_act(G, state, mask, rng)
        return a
    else:
        raise ValueError(
            "a user agent cannot be played through choose_action (replays of runs with user "
            "agents are not available)"
        )
    G.legal_mask(state, mask)
    if a < 0 or a >= mask.shape[0] or not mask[a]:
        raise ValueError("agent chose an illegal action")
    return a


CHOOSE_ARGS = (NETS_T, nb.int32[::1], nb.int64, nb.float64[::1], nb.int32[:], nb.boolean[::1])


@entry(*CHOOSE_ARGS, returns=nb.int64)
def choose_action_search(K, N, state, kind, params, rng, mask):
    """Entry of :func:`choose_action` with the search (compiled at the first MCTS decision)."""
    return _choose_action(as_kernels(K), N, True, state, kind, params, rng, mask)


@entry(*CHOOSE_ARGS, returns=nb.int64)
def choose_action_no_search(K, N, state, kind, params, rng, mask):
    """Entry of :func:`choose_action` for the other built-in agents (the search is not
    compiled)."""
    return _choose_action(as_kernels(K), N, None, state, kind, params, rng, mask)


@nb.njit(cache=True)
def _timed(G, N, search, state, kind, params, rng, mask, spent):
    """:func:`_choose_action`, its CPU time (ns) written into ``spent[0]``."""
    t0 = cpu_ns()
    a = _choose_action(G, N, search, state, kind, params, rng, mask)
    spent[0] = cpu_ns() - t0
    return a


TIMED_ARGS = (*CHOOSE_ARGS, nb.int64[::1])


@entry(*TIMED_ARGS, returns=nb.int64)
def choose_action_timed_search(K, N, state, kind, params, rng, mask, spent):
    """:func:`choose_action_search`, timed inside the call (``spent[0]``, ns)."""
    return _timed(as_kernels(K), N, True, state, kind, params, rng, mask, spent)


@entry(*TIMED_ARGS, returns=nb.int64)
def choose_action_timed_no_search(K, N, state, kind, params, rng, mask, spent):
    """:func:`choose_action_no_search`, timed inside the call (``spent[0]``, ns)."""
    return _timed(as_kernels(K), N, None, state, kind, params, rng, mask, spent)


def choose_action(K, state, kind, params, rng, mask, nets=None, spent=None):
    """The action agent ``kind`` takes in ``state`` (``K = tuple(spec.kernels)``, or a run's
    ``agents.arena.kernels_of_run``; ``nets``: the networks of learned agents, agents.net.Nets);
    checked for legality.  Only an MCTS decision compiles the search.  An MCTS agent with tree
    reuse is refused: its tree lives in the arena's game loop, and one decision taken alone
    would not be the decision that loop takes.  ``spent`` (int64, at least one element): the
    decision's CPU time in ns is written into ``spent[0]``, measured inside the compiled call
    (the module docstring)."""
    if kind == MCTS and params[P_REUSE] > 0:
        raise ValueError(REUSE_ONLY_IN_ARENA)
    N = nets if nets is not None else no_nets()
    if spent is not None:
        fn = choose_action_timed_search if kind == MCTS else choose_action_timed_no_search
        return fn(K, N, state, kind, params, rng, mask, spent)
    return (choose_action_search if kind == MCTS else choose_action_no_search)(
        K, N, state, kind, params, rng, mask
    )
