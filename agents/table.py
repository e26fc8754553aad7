"""The agent table: the agent kinds, their parameter rows and the user-kernel slots, shared by
the arena, the single decisions, MCTS, user agents and every caller that builds a run.

An *agent table* describes the agents of a run: ``agent_kind[a]`` (RANDOM, HEURISTIC, MCTS,
USER_KERNEL, PYTHON, POLICY) and ``agent_params[a, :N_AGENT_PARAMS]`` (float64; meaning depends
on the kind: agents.mcts for MCTS, agents.policy for POLICY). ``seat_agent[g, p]`` says which
agent of the table plays seat ``p`` in game ``g``.

Agents of kind USER_KERNEL are numba kernels from a user's module (:mod:`agents.user`):
``act(state, legal, rng) -> action`` (signature ``USER_SIG``); a compiled run receives them as a
tuple of ``USER_SLOTS`` function pointers (``USERS_T``, like the game's kernels), and the agent's
``params[0]`` is its slot.  Agents of kind PYTHON (plain Python objects) never enter compiled
code: their runs are played decision by decision in Python (:func:`agents.user.play_python`).
Agents of kind POLICY play a learned network's policy (:mod:`agents.policy`); they and MCTS
agents with a network read the run's networks (:class:`agents.net.Nets`), the network's index
in their parameter row.

This module imports nothing else of :mod:`agents`, so every other module of it can import it.
"""

import numba as nb

RANDOM = 0
HEURISTIC = 1
MCTS = 2
USER_KERNEL = 3  # a numba kernel from the user's module (agents.user)
PYTHON = 4  # a Python object, played decision by decision outside the kernel (agents.user)
POLICY = 5  # a learned network's policy (agents.policy)
AGENT_KINDS = {
    "random": RANDOM,
    "heuristic": HEURISTIC,
    "mcts": MCTS,
    "policy": POLICY,
}  # by name; user agents by module path
N_AGENT_PARAMS = 12

# A user kernel agent:
#   act(state int32[::1], legal bool[::1] (filled by the arena), rng int32[:]) -> action
USER_SIG = nb.types.int64(nb.types.int32[::1], nb.types.boolean[::1], nb.types.int32[:])
USER_SLOTS = 4  # user kernels one run can hold
USERS_T = nb.types.UniTuple(nb.types.FunctionType(USER_SIG), USER_SLOTS)

# Raised by the compiled code of an entry built without the search when asked for an MCTS
# decision (agents.arena, agents.decision).
NO_SEARCH = "an MCTS agent cannot play through an entry compiled without the search"


class AgentError(RuntimeError):
    """An agent that failed during a game (raised, chose an illegal action, ran out of time); the
    message names the game index, the decision and the seat.  ``finished`` games before it are
    done."""

    def __init__(self, message: str, finished: int = 0):
        super().__init__(message)
        self.finished = finished
