"""Whole games between agents, inside one compiled call.

The run's agents come as an agent table (:mod:`agents.table`: ``agent_kind``, ``agent_params``,
``seat_agent``).  Agents of kind USER_KERNEL reach the compiled loop as the run's tuple of user
kernels (:func:`user_table`); a run with an agent of kind PYTHON never enters it:
:func:`play_games` hands it to :func:`agents.user.play_python`.

Agents' decisions are timed in CPU time of the thread, one clock read per *run*: consecutive
decisions of one agent (its seats in self-play; consecutive random moves, of any random agents),
from the end of the run before.  A run's time holds the choices, the legality checks and
``apply``, and is shared among the seats in proportion to their decisions in it.  The runs are
timed on the monotonic clock, which is cheap to read where the thread's CPU-time clock is a
system call (:mod:`agents.clock`), and converted at the end of the chunk: each run gets its share
of the chunk's CPU time (two reads of the thread's CPU time a chunk) in proportion to its
monotonic time.  On an idle core that is
its CPU time; on a busy one the waits for a core fall on every run alike, in proportion to its
length, so an agent's time stays its CPU time on average (docs/performance.md, "Agent time").
``decisions[g, p]`` counts the seat's decisions and ``agent_ns[g, p]`` sums its share of time,
so each agent's total over a game is its own; where agents alternate, every decision is a run.

**Score trace.**  Where asked, the loop keeps each game's score trace (:mod:`agents.trace`,
the round word ``rw``; -1: none, and the game's row stays zeros).

**Entries.**  Python plays through :func:`play_chunk`, compiled at its first call
(sim.core.entry).  A run without an MCTS agent goes through the entry ``play_chunk_no_search``:
the same kernels (``_play_chunk``, ``_act``) with ``search=None`` instead of True, on which
numba prunes the branch that searches before typing it, so ``agents.mcts`` is never compiled;
and :func:`play_games` passes the game's kernels as :func:`kernels_of_run`, with stand-ins in
the slots the run's agents never call.  Both choices only leave out code that is not called:
the same seeds give the same games.  Single decisions outside the loop: :mod:`agents.decision`.

Each game's deal comes from ``seeds[g]``; each seat's agent RNG from
``hash64(agent_seeds[g], p)``, a stream separate from the game's chance.  Nothing here
depends on which process or chunk plays a game, so results are reproducible whatever
the distribution.
"""

from collections import namedtuple

import numba as nb
import numpy as np

from agents.clock import cpu_ns, now_ns
from agents.mcts import clear_tree, mcts_act_reusing, seat_trees
from agents.net import NETS_T, hint_in, no_nets
from agents.policy import net_scratch, policy_act
from agents.table import (
    HEURISTIC,
    MCTS,
    NO_SEARCH,
    POLICY,
    PYTHON,
    RANDOM,
    USER_KERNEL,
    USER_SIG,
    USER_SLOTS,
    USERS_T,
    AgentError,
)
from agents.trace import (
    TRACE_COLUMNS,
    TRACE_WORDS,
    sole_best,
    trace_finish,
    trace_point,
    trace_start,
)
from agents.user import play_python
from sim.core import (
    H_CURRENT,
    NO_PLAYER,
    as_kernels,
    entry,
    hash64,
    kernel,
    random_of_legal,
    rng_seed,
)
from sim.stand_ins import run_kernels

# status[:] of a chunk, set before each non-random decision and kept when a decision fails:
ST_GAME, ST_DECISION, ST_SEAT, ST_ACTION, ST_FAILED = 0, 1, 2, 3, 4
STATUS_SIZE = 5


def _record(name, **fields):
    """A namedtuple class with these fields and its numba type for these field types (numba
    passes a namedtuple of arrays and integers as a struct)."""
    cls = namedtuple(name, tuple(fields), module=__name__)
    return cls, nb.types.BaseTuple.from_types(tuple(fields.values()), cls)


# A chunk's arguments, by name: what to play, who plays, and where the results go (G games of
# n seats).
ChunkGames, CHUNK_GAMES_T = _record(
    "ChunkGames",
    seeds=nb.int64[::1],  # [G]: game g's deal
    agent_seeds=nb.int64[::1],  # [G]: the seed of game g's agent RNGs
    seat_agent=nb.int64[:, ::1],  # [G, n]: the agent of the table at seat p of game g
    n_players=nb.int64,
    options=nb.int32[::1],  # the game's encoded options
    num_actions=nb.int64,  # the game's action space
    round_word=nb.int64,  # the state word of the score trace; -1: no trace
)
ChunkAgents, CHUNK_AGENTS_T = _record(
    "ChunkAgents",  # the agent table (agents.table)
    kind=nb.int64[::1],  # agent_kind
    params=nb.float64[:, ::1],  # agent_params (a user kernel's: its slot in params[0])
    nets=NETS_T,  # the learned agents' networks (agents.net; empty without them)
)
ChunkResults, CHUNK_RESULTS_T = _record(
    "ChunkResults",
    scores=nb.float64[:, ::1],  # [G, n]
    wins=nb.float64[:, ::1],  # [G, n]
    feats=nb.float64[:, :, ::1],  # [G, n, F]: the game's features
    lengths=nb.int64[::1],  # [G]: decisions of the game
    decisions=nb.int64[:, ::1],  # [G, n]: decisions of the seat
    agent_ns=nb.int64[:, ::1],  # [G, n]: time of the seat's agent (module docstring)
    trace=nb.int64[:, ::1],  # [G, len(TRACE_COLUMNS)]: the score trace (agents.trace)
    status=nb.int64[::1],  # [STATUS_SIZE]: where a decision failed (ST_*)
)


@nb.njit(USER_SIG, cache=True)
def no_user_agent(state, legal, rng):
    """Filler of unused user-kernel slots (never called: no agent points at it)."""
    return np.int64(-1)


@kernel
def _random_moves(G, state, seat_agent, g, agent_kind, rngs, mask, moves, rw):
    """The hot path: play while the seat to move has a random agent and the round word
    ``state[rw]`` (``rw`` >= 0) keeps its value; return the moves made (and add each seat's to
    ``moves[p]``).

    A kernel without reference counting (sim.core.kernel): the calls through the game's
    function pointers then pass the state and mask without atomic increments."""
    steps = 0
    r0 = state[rw] if rw >= 0 else 0
    while state[H_CURRENT] != NO_PLAYER:
        p = state[H_CURRENT]
        if agent_kind[seat_agent[g, p]] != RANDOM:
            break
        G.apply(state, random_of_legal(mask, G.legal_mask(state, mask), rngs, 2 * p))
        moves[p] += 1
        steps += 1
        if rw >= 0 and state[rw] != r0:
            break
    return steps


@kernel
def _share_time(agent_ns, g, moves, t0, n_players):
    """End a run of decisions (``moves[q]`` of them seat ``q``'s) that began at ``t0`` (monotonic
    clock): read the clock once and share the time among the seats by their decisions.  Returns
    the time read (the next run's start).  :func:`_in_cpu_time` turns the chunk's sums into CPU
    time."""
    t1 = now_ns()
    dt = t1 - t0
    count = 0
    for q in range(n_players):
        count += moves[q]
    for q in range(n_players):
        if moves[q] > 0:
            agent_ns[g, q] += dt * moves[q] // count
    return t1


@kernel
def _in_cpu_time(agent_ns, games, c0, w0):
    """Scale the agent times of the chunk's first ``games`` games, summed on the monotonic clock,
    by the thread's CPU time over the monotonic time since the chunk began (``c0``, ``w0``): each
    run's share of the chunk's CPU time (the module docstring)."""
    cpu = cpu_ns() - c0
    wall = now_ns() - w0
    if wall <= 0:
        return
    f = min(1.0, cpu / wall)
    for g in range(games):
        for q in range(agent_ns.shape[1]):
            agent_ns[g, q] = np.int64(agent_ns[g, q] * f)


@nb.njit(cache=True)
def _no_trees(n_players, num_actions):
    """The per-seat trees of a chunk without tree reuse (agents.mcts.seat_trees's types, empty)."""
    return (
        np.zeros((0, 0), np.int64),  # T_NODE_KEY
        np.zeros((0, 0), np.int64),  # T_NODE_PLAYER
        np.zeros((0, 0, num_actions), np.int32),  # T_EDGE_VISITS
        np.zeros((0, 0, num_actions), np.int32),  # T_EDGE_AVAIL
        np.zeros((0, 0, num_actions), np.float64),  # T_EDGE_VALUE
        np.full((0, 1), -1, np.int32),  # T_TABLE
        np.zeros(n_players, np.int64),  # T_NODES
    )


@nb.njit(cache=True)
def _act(G, U, N, search, state, kind, params, rng, mask, trees, p):
    """The action of an MCTS or user agent (unchecked) at seat ``p``; a user kernel gets the
    legal mask filled.  ``search``: True, or None in the entry without the search (the module
    docstring); ``trees``: the seats' reused MCTS trees (agents.mcts.seat_trees).  The
    heuristic is called by :func:`_play_chunk` itself: a call of this function counts a
    reference to each of its arrays (the trees' seven among them), a few per cent of a
    heuristic decision in Eternal Dynasty (docs/performance.md)."""
    if kind == MCTS:
        if search is None:
            raise ValueError(NO_SEARCH)
        return mcts_act_reusing(G, N, state, params, rng, mask, trees, p)
    G.legal_mask(state, mask)
    return U[np.int64(params[0])](state, mask, rng)


@nb.njit(cache=True)
def _play_chunk(G, U, search, games, agents, out):
    """Play the games of ``games`` (:class:`ChunkGames`) between the agents of ``agents``
    (:class:`ChunkAgents`; user kernels ``U``) and fill ``out`` (:class:`ChunkResults`).
    ``search``: True, or None in the entry without the search (the module docstring).  Return
    the games finished: all of them, or, when an agent chose an illegal action, the games
    before it (``out.status`` then says where; ST_FAILED = 1)."""
    seeds, agent_seeds, seat_agent = games.seeds, games.agent_seeds, games.seat_agent
    n_players, options = games.n_players, games.options
    num_actions, rw = games.num_actions, games.round_word
    agent_kind, agent_params = agents.kind, agents.params
    scores, wins, feats, lengths = out.scores, out.wins, out.feats, out.lengths
    decisions, agent_ns, trace, status = out.decisions, out.agent_ns, out.trace, out.status
    mask = np.zeros(num_actions, np.bool_)
    nets = agents.nets
    obs, logits, _, h1, h2 = net_scratch(nets, num_actions, n_players)  # POLICY agents' scratch
    rngs = np.zeros(2 * n_players, np.int32)  # seat p's RNG words at [2p, 2p+2)
    moves = np.zeros(n_players, np.int64)
    tr = np.zeros(TRACE_WORDS, np.int64)
    values = np.zeros(n_players)
    if search is None:
        trees = _no_trees(n_players, num_actions)
    else:
        trees = seat_trees(n_players, agent_kind, agent_params, MCTS, num_actions)
    c0 = cpu_ns()  # the chunk's CPU time and monotonic time: _in_cpu_time
    w0 = now_ns()
    for g in range(seeds.shape[0]):
        state = G.new_state(seeds[g], n_players, options)
        for p in range(n_players):
            if search is not None:  # a new game: the reused trees start empty
                clear_tree(trees, p)
            rng_seed(rngs, 2 * p, hash64(agent_seeds[g], p))
        steps = 0
        trace_start(tr)
        rnd = state[rw] if rw >= 0 else 0
        t0 = now_ns()  # one clock read per run of one agent's decisions: the module docstring
        # the agent of the open run of non-random decisions (-1: none); moves[q]: its seat q's
        blk = -1
        while state[H_CURRENT] != NO_PLAYER:  # the header is part of the contract: no call needed
            if rw >= 0 and state[rw] != rnd:
                if blk >= 0:
                    t0 = _share_time(agent_ns, g, moves, t0, n_players)
                    blk = -1
                rnd = state[rw]
                G.evaluate(state, values)
                trace_point(tr, sole_best(values, n_players))
                t0 = now_ns()  # the trace's evaluate is nobody's decision
            p = state[H_CURRENT]
            a = seat_agent[g, p]
            kind = agent_kind[a]
            if blk >= 0 and a != blk:
                t0 = _share_time(agent_ns, g, moves, t0, n_players)
                blk = -1
            if kind == RANDOM:
                moves[:] = 0
                run = _random_moves(G, state, seat_agent, g, agent_kind, rngs, mask, moves, rw)
                for q in range(n_players):
                    decisions[g, q] += moves[q]
                t0 = _share_time(agent_ns, g, moves, t0, n_players)
                steps += run
            else:
                if blk < 0:
                    blk = a
                    moves[:] = 0
                status[ST_GAME] = g
                status[ST_DECISION] = steps
                status[ST_SEAT] = p
                status[ST_ACTION] = -1
                rng = rngs[2 * p : 2 * p + 2]
                if kind == HEURISTIC:  # not through _act (its docstring)
                    act = G.heuristic(state, rng)
                elif kind == POLICY:
                    act = policy_act(
                        G, nets, state, agent_params[a], rng, mask, obs, logits, h1, h2
                    )
                else:
                    act = _act(
                        G, U, nets, search, state, kind, agent_params[a], rng, mask, trees, p
                    )
                decisions[g, p] += 1
                status[ST_ACTION] = act
                G.legal_mask(state, mask)
                if act < 0 or act >= num_actions or not mask[act]:
                    status[ST_FAILED] = 1
                    _in_cpu_time(agent_ns, g, c0, w0)
                    return g
                G.apply(state, act)
                moves[p] += 1
                steps += 1
        if blk >= 0:
            _share_time(agent_ns, g, moves, t0, n_players)
        G.returns(state, scores[g], wins[g])
        G.features(state, feats[g])
        if rw >= 0:
            trace_finish(tr, wins[g], n_players, trace[g])
        lengths[g] = steps
    _in_cpu_time(agent_ns, seeds.shape[0], c0, w0)
    return seeds.shape[0]


# The chunk entries' arguments after K (play_chunk and play_chunk_no_search take the same).
CHUNK_ARGS = (USERS_T, CHUNK_GAMES_T, CHUNK_AGENTS_T, CHUNK_RESULTS_T)


@entry(*CHUNK_ARGS, returns=nb.int64)
def play_chunk(K, U, games, agents, out):
    """Entry: play a chunk of games of the game whose kernels are ``K = tuple(spec.kernels)``,
    with the user kernels ``U`` (``USER_SLOTS`` function pointers); returns the games
    finished (:func:`_play_chunk`)."""
    return _play_chunk(as_kernels(K), U, True, games, agents, out)


@entry(*CHUNK_ARGS, returns=nb.int64)
def play_chunk_no_search(K, U, games, agents, out):
    """Entry: :func:`play_chunk` for chunks without MCTS agents (the search is not compiled)."""
    return _play_chunk(as_kernels(K), U, None, games, agents, out)


def kernels_of_run(
    spec, agent_kind, trace: bool = False, nets: bool = False, hint: bool = False
) -> tuple:
    """The game's kernels as the entries take them, for a run of agents of kinds ``agent_kind``:
    ``tuple(spec.kernels)`` with stand-ins in the slots no agent of the run calls (the search's
    without MCTS agents, the heuristic without heuristic or MCTS agents, ``evaluate`` without
    the score ``trace`` or MCTS, ``observe`` without learned agents: ``nets``; the heuristic
    and ``determinize`` are kept for a hint model's policy: ``hint``), so that the run
    compiles only the game kernels it calls."""
    kinds = np.asarray(agent_kind)
    search = bool((kinds == MCTS).any())
    return run_kernels(
        spec.kernels,
        heuristic=bool((kinds == HEURISTIC).any()),
        search=search,
        evaluate=trace,
        observe=nets or bool((kinds == POLICY).any()),
        hint=hint,
    )


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


def play_games(
    spec,
    seeds,
    n_players,
    options,
    seat_agent,
    agent_kind,
    agent_params,
    agent_seeds=None,
    *,
    user_agents=None,
    timing=None,
    trace=None,
    labels=None,
    first_index=0,
    nets=None,
    record=None,
):
    """Python wrapper: allocate outputs and play; returns (scores, wins, feats, lengths).

    ``user_agents[a]`` is the user kernel or Python agent class of agent ``a`` of kind
    USER_KERNEL or PYTHON (None for the built-in ones).  ``timing``, if a dict, receives
    ``decisions`` and ``agent_ns`` (int64 ``[g, n]``).  ``trace``, if a dict, receives the score
    trace's ``TRACE_COLUMNS`` (int64 ``[g]`` each; agents.trace); without it no trace is kept (it
    costs an ``evaluate`` per round).  An agent that fails raises :class:`AgentError` naming the
    game (``first_index`` + its position in the chunk), the decision, the seat and the agent
    (``labels``).  ``nets`` (agents.net.Nets) holds the networks of POLICY agents and of MCTS
    agents with a network (their index in their parameter rows).  ``record``, a dict ``{g:
    []}``: game ``g``'s actions are appended to its list as they are played; the games are then
    played by :func:`agents.user.play_python` (the arena's decisions, taken from Python).
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
    traces = np.zeros((n, len(TRACE_COLUMNS)), np.int64)
    if trace is not None:
        trace.update({c: traces[:, i] for i, c in enumerate(TRACE_COLUMNS)})
    seat_agent = np.asarray(seat_agent, np.int64)
    nets = nets if nets is not None else no_nets()
    if (agent_kind == PYTHON).any() or record:  # recorded games: the same decisions, in Python
        play_python(
            spec,
            seeds,
            np.asarray(agent_seeds, np.int64),
            n_players,
            options,
            seat_agent,
            agent_kind,
            agent_params,
            user_agents,
            scores,
            wins,
            feats,
            lengths,
            decisions,
            agent_ns,
            labels,
            first_index,
            traces if trace is not None else None,
            nets=nets,
            record=record,
        )
        return scores, wins, feats, lengths
    users, params = user_table(agent_kind, agent_params, user_agents)
    status = np.zeros(STATUS_SIZE, np.int64)
    # compiled at its first call
    chunk = play_chunk if (agent_kind == MCTS).any() else play_chunk_no_search
    kernels = kernels_of_run(
        spec, agent_kind, trace is not None, nets=int(nets.obs_size) > 0, hint=hint_in(nets)
    )
    try:
        done = chunk(
            kernels,
            users,
            ChunkGames(
                seeds=seeds,
                agent_seeds=np.asarray(agent_seeds, np.int64),
                seat_agent=seat_agent,
                n_players=np.int64(n_players),
                options=np.asarray(options, np.int32),
                num_actions=np.int64(spec.num_actions),
                round_word=np.int64(spec.round_word if trace is not None else -1),
            ),
            ChunkAgents(kind=agent_kind, params=params, nets=nets),
            ChunkResults(
                scores=scores,
                wins=wins,
                feats=feats,
                lengths=lengths,
                decisions=decisions,
                agent_ns=agent_ns,
                trace=traces,
                status=status,
            ),
        )
    except Exception as e:  # raised inside an agent's kernel: status says where
        raise AgentError(
            _where(spec, status, seat_agent, labels, first_index)
            + f": the agent raised {type(e).__name__}: {e}",
            int(status[ST_GAME]),
        ) from None
    if status[ST_FAILED]:
        raise AgentError(
            _where(spec, status, seat_agent, labels, first_index)
            + f": the agent chose action {int(status[ST_ACTION])}, which is not legal",
            int(done),
        )
    return scores, wins, feats, lengths


def _where(spec, status, seat_agent, labels, first_index) -> str:
    g, p = int(status[ST_GAME]), int(status[ST_SEAT])
    a = int(seat_agent[g, p])
    name = labels[a] if labels is not None else f"agent {a}"
    decision = int(status[ST_DECISION])
    return f"{spec.name} game {first_index + g}, decision {decision} (seat {p}, agent {name!r})"
