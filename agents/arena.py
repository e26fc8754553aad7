"""Whole games between agents, inside one compiled call.

An *agent table* describes the agents of a run: ``agent_kind[a]`` (RANDOM, HEURISTIC,
MCTS) and ``agent_params[a, :N_AGENT_PARAMS]`` (float64; meaning depends on the kind).
``seat_agent[g, p]`` says which agent of the table plays seat ``p`` in game ``g``.

Agents of kind USER_KERNEL are numba kernels from a user's module (:mod:`agents.user`):
``act(state, legal, rng) -> action`` (signature ``USER_SIG``); the chunk receives them as a
tuple of ``USER_SLOTS`` function pointers (like the game's kernels), and the agent's
``params[0]`` is its slot.  Agents of kind PYTHON (plain Python objects) never enter the
compiled loop: :func:`play_games` hands a run with one to :func:`agents.user.play_python`.

Every decision of a non-random agent is timed in CPU time of the thread (:mod:`agents.clock`;
two clock reads of about 0.17 us each): ``decisions[g, p]`` counts the seat's decisions and
``agent_ns[g, p]`` sums the time its agent took over them.  Runs of consecutive random moves
are timed as one block and the time is shared among the seats in proportion to their moves.

Each game's deal comes from ``seeds[g]``; each seat's agent RNG from
``hash64(agent_seeds[g], p)``, a stream separate from the game's chance.  Nothing here
depends on which process or chunk plays a game, so results are reproducible whatever
the distribution.
"""

import numba as nb
import numpy as np

from agents.clock import cpu_ns
from agents.mcts import mcts_act
from agents.random import random_act
from sim.core import H_CURRENT, NO_PLAYER, as_kernels, entry, hash64, kernel, random_of_legal, rng_seed

RANDOM = 0
HEURISTIC = 1
MCTS = 2
USER_KERNEL = 3  # a numba kernel from the user's module (agents.user)
PYTHON = 4  # a Python object, played decision by decision outside the kernel (agents.user)
AGENT_KINDS = {"random": RANDOM, "heuristic": HEURISTIC, "mcts": MCTS}  # by name; user agents by module path
N_AGENT_PARAMS = 8

# A user kernel agent: act(state int32[::1], legal bool[::1] (filled by the arena), rng int32[:]) -> action.
USER_SIG = nb.types.int64(nb.types.int32[::1], nb.types.boolean[::1], nb.types.int32[:])
USER_SLOTS = 4  # user kernels one run can hold
USERS_T = nb.types.UniTuple(nb.types.FunctionType(USER_SIG), USER_SLOTS)

# status[:] of a chunk, set before each non-random decision and kept when a decision fails:
ST_GAME, ST_DECISION, ST_SEAT, ST_ACTION, ST_FAILED = 0, 1, 2, 3, 4
STATUS_SIZE = 5


@nb.njit(USER_SIG, cache=True)
def no_user_agent(state, legal, rng):
    """Filler of unused user-kernel slots (never called: no agent points at it)."""
    return np.int64(-1)


@nb.njit(cache=True)
def _choose_action(G, state, kind, params, rng, mask):
    """The action built-in agent ``kind`` (with ``params``) takes in ``state``; checked for legality.
    User agents are not built in: their decisions are taken by agents.user, never here."""
    if kind == HEURISTIC:
        a = G.heuristic(state, rng)
    elif kind == MCTS:
        a = mcts_act(G, state, params, rng, mask)
    elif kind == RANDOM:
        a = random_act(G, state, mask, rng)
        return a
    else:
        raise ValueError("a user agent cannot be played through choose_action (replays of runs with user "
                         "agents are not available)")
    G.legal_mask(state, mask)
    if a < 0 or a >= mask.shape[0] or not mask[a]:
        raise ValueError("agent chose an illegal action")
    return a


@kernel
def _random_moves(G, state, seat_agent, g, agent_kind, rngs, mask, moves):
    """The hot path: play while the seat to move has a random agent; return the moves made
    (and add each seat's to ``moves[p]``).

    A kernel without reference counting (sim.core.kernel): the calls through the game's
    function pointers then pass the state and mask without atomic increments."""
    steps = 0
    while state[H_CURRENT] != NO_PLAYER:
        p = state[H_CURRENT]
        if agent_kind[seat_agent[g, p]] != RANDOM:
            break
        G.apply(state, random_of_legal(mask, G.legal_mask(state, mask), rngs, 2 * p))
        moves[p] += 1
        steps += 1
    return steps


@nb.njit(cache=True)
def _act(G, U, state, kind, params, rng, mask):
    """The action of a non-random agent (unchecked); a user kernel gets the legal mask filled."""
    if kind == HEURISTIC:
        return G.heuristic(state, rng)
    if kind == MCTS:
        return mcts_act(G, state, params, rng, mask)
    G.legal_mask(state, mask)
    return U[np.int64(params[0])](state, mask, rng)


@nb.njit(cache=True)
def _play_chunk(G, U, seeds, agent_seeds, n_players, options, seat_agent, agent_kind, agent_params,
                num_actions, scores, wins, feats, lengths, decisions, agent_ns, status):
    """Play ``len(seeds)`` games; fill scores/wins ``[g, n]``, feats ``[g, n, F]``, lengths ``[g]``,
    decisions and agent time per seat ``[g, n]``.  Return the games finished: all of them, or, when an
    agent chose an illegal action, the games before it (``status`` then says where; ST_FAILED = 1)."""
    mask = np.zeros(num_actions, np.bool_)
    rngs = np.zeros(2 * n_players, np.int32)  # seat p's RNG words at [2p, 2p+2)
    moves = np.zeros(n_players, np.int64)
    for g in range(seeds.shape[0]):
        state = G.new_state(seeds[g], n_players, options)
        for p in range(n_players):
            rng_seed(rngs, 2 * p, hash64(agent_seeds[g], p))
        steps = 0
        while state[H_CURRENT] != NO_PLAYER:  # the header is part of the contract: no call needed
            p = state[H_CURRENT]
            a = seat_agent[g, p]
            kind = agent_kind[a]
            if kind == RANDOM:
                moves[:] = 0
                t0 = cpu_ns()
                run = _random_moves(G, state, seat_agent, g, agent_kind, rngs, mask, moves)
                dt = cpu_ns() - t0
                for q in range(n_players):
                    if moves[q] > 0:
                        decisions[g, q] += moves[q]
                        agent_ns[g, q] += dt * moves[q] // run
                steps += run
            else:
                status[ST_GAME] = g
                status[ST_DECISION] = steps
                status[ST_SEAT] = p
                status[ST_ACTION] = -1
                t0 = cpu_ns()
                act = _act(G, U, state, kind, agent_params[a], rngs[2 * p:2 * p + 2], mask)
                agent_ns[g, p] += cpu_ns() - t0
                decisions[g, p] += 1
                status[ST_ACTION] = act
                G.legal_mask(state, mask)
                if act < 0 or act >= num_actions or not mask[act]:
                    status[ST_FAILED] = 1
                    return g
                G.apply(state, act)
                steps += 1
        G.returns(state, scores[g], wins[g])
        G.features(state, feats[g])
        lengths[g] = steps
    return seeds.shape[0]


@entry(USERS_T, nb.int64[::1], nb.int64[::1], nb.int64, nb.int32[::1], nb.int64[:, ::1], nb.int64[::1],
       nb.float64[:, ::1], nb.int64, nb.float64[:, ::1], nb.float64[:, ::1], nb.float64[:, :, ::1], nb.int64[::1],
       nb.int64[:, ::1], nb.int64[:, ::1], nb.int64[::1], returns=nb.int64)
def play_chunk(K, U, seeds, agent_seeds, n_players, options, seat_agent, agent_kind, agent_params,
               num_actions, scores, wins, feats, lengths, decisions, agent_ns, status):
    """Entry: play a chunk of games of the game whose kernels are ``K = tuple(spec.kernels)``, with
    the user kernels ``U`` (``USER_SLOTS`` function pointers); returns the games finished."""
    return _play_chunk(as_kernels(K), U, seeds, agent_seeds, n_players, options, seat_agent, agent_kind,
                       agent_params, num_actions, scores, wins, feats, lengths, decisions, agent_ns, status)


@entry(nb.int32[::1], nb.int64, nb.float64[::1], nb.int32[:], nb.boolean[::1], returns=nb.int64)
def choose_action(K, state, kind, params, rng, mask):
    """Entry: the action agent ``kind`` takes in ``state`` (``K = tuple(spec.kernels)``)."""
    return _choose_action(as_kernels(K), state, kind, params, rng, mask)


class AgentError(RuntimeError):
    """An agent that failed during a game (raised, chose an illegal action, ran out of time); the
    message names the game index, the decision and the seat.  ``finished`` games before it are done."""

    def __init__(self, message: str, finished: int = 0):
        super().__init__(message)
        self.finished = finished


def user_table(agent_kind, agent_params, user_agents=None):
    """(tuple of USER_SLOTS kernels, params with each USER_KERNEL agent's slot in params[0])."""
    params = np.array(agent_params, np.float64, copy=True)
    slots = []
    for a, kind in enumerate(np.asarray(agent_kind)):
        if kind == USER_KERNEL:
            if user_agents is None or user_agents[a] is None:
                raise ValueError(f"agent {a} is a user kernel, but no kernel was given for it")
            params[a, 0] = len(slots)
            slots.append(user_agents[a])
    if len(slots) > USER_SLOTS:
        raise ValueError(f"a run holds at most {USER_SLOTS} user kernels, got {len(slots)}")
    return tuple(slots) + (no_user_agent,) * (USER_SLOTS - len(slots)), params


def play_games(spec, seeds, n_players, options, seat_agent, agent_kind, agent_params, agent_seeds=None, *,
               user_agents=None, timing=None, labels=None, first_index=0):
    """Python wrapper: allocate outputs and play; returns (scores, wins, feats, lengths).

    ``user_agents[a]`` is the user kernel or Python agent class of agent ``a`` of kind USER_KERNEL or
    PYTHON (None for the built-in ones).  ``timing``, if a dict, receives ``decisions`` and ``agent_ns``
    (int64 ``[g, n]``).  An agent that fails raises :class:`AgentError` naming the game (``first_index``
    + its position in the chunk), the decision, the seat and the agent (``labels``).
    """
    seeds = np.asarray(seeds, np.int64)
    n = len(seeds)
    if agent_seeds is None:
        agent_seeds = seeds
    agent_kind = np.asarray(agent_kind, np.int64)
    scores = np.zeros((n, n_players))
    wins = np.zeros((n, n_players))
    feats = np.zeros((n, n_players, len(spec.feature_names)))
    lengths = np.zeros(n, np.int64)
    decisions = np.zeros((n, n_players), np.int64)
    agent_ns = np.zeros((n, n_players), np.int64)
    if timing is not None:
        timing.update(decisions=decisions, agent_ns=agent_ns)
    seat_agent = np.asarray(seat_agent, np.int64)
    if (agent_kind == PYTHON).any():
        from agents.user import play_python

        play_python(spec, seeds, np.asarray(agent_seeds, np.int64), n_players, options, seat_agent, agent_kind,
                    agent_params, user_agents, scores, wins, feats, lengths, decisions, agent_ns, labels, first_index)
        return scores, wins, feats, lengths
    users, params = user_table(agent_kind, agent_params, user_agents)
    status = np.zeros(STATUS_SIZE, np.int64)
    try:
        done = play_chunk(tuple(spec.kernels), users, seeds, np.asarray(agent_seeds, np.int64), np.int64(n_players),
                          np.asarray(options, np.int32), seat_agent, agent_kind, params,
                          spec.num_actions, scores, wins, feats, lengths, decisions, agent_ns, status)
    except Exception as e:  # raised inside an agent's kernel: status says where
        raise AgentError(_where(spec, status, seat_agent, labels, first_index)
                         + f": the agent raised {type(e).__name__}: {e}", int(status[ST_GAME])) from None
    if status[ST_FAILED]:
        raise AgentError(_where(spec, status, seat_agent, labels, first_index)
                         + f": the agent chose action {int(status[ST_ACTION])}, which is not legal", int(done))
    return scores, wins, feats, lengths


def _where(spec, status, seat_agent, labels, first_index) -> str:
    g, p = int(status[ST_GAME]), int(status[ST_SEAT])
    a = int(seat_agent[g, p])
    name = labels[a] if labels is not None else f"agent {a}"
    return f"{spec.name} game {first_index + g}, decision {int(status[ST_DECISION])} (seat {p}, agent {name!r})"
