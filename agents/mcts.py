"""One information-set MCTS for every game, running inside numba.

The game is injected as its :class:`sim.core.Kernels` of function pointers ``G`` (as in
:mod:`agents.arena`; Python enters through :func:`search` with ``tuple(spec.kernels)``),
so one compiled, disk-cached search serves every game and knows nothing about any game.
The algorithm (details and reasons in docs/mcts.md):

- **Determinization.**  Each simulation starts from a copy of the root state in which
  ``G.rewind_secrets(state, me)`` has taken back the secret choices other seats made
  earlier in the current simultaneous round (they choose again in the tree, as
  decisions, not as chance), then ``G.determinize(state, me, rng)`` has resampled
  everything else the searching seat ``me`` cannot see (hidden hands, deck order).
- **Information-set nodes.**  The node of the seat ``p`` to move is found by
  ``G.info_key(state, p)`` in a hash table: one node per information set of the mover,
  shared by every determinization (and every path) that leads to it.  Because the key of
  a seat never includes secret choices other seats made earlier in the same simultaneous
  round, an opponent's node after the searcher's secret commit is the same node whatever
  the searcher committed: the opponent's statistics cannot condition on it.
- **Selection** is UCB1 over the legal actions with availability counts (ISMCTS): the
  exploration term uses how often an action was *available* at the node, since different
  determinizations can offer different actions.  Untried actions first, uniformly.
- **Expansion** adds one node per simulation; then a **rollout** by the random policy or
  the game's ``heuristic``, to the end or for ``rollout_depth`` decisions, after which
  ``G.evaluate`` estimates the outcome.
- **Rewards** are vectors: the win shares of every seat at the end (``G.returns``) or
  ``G.evaluate`` at a cut-off, each in [0, 1]; every node on the path is credited with the
  reward of the seat that moves there, so 2-5 seats work alike.
- **The move** is the most visited action at the searcher's own node, the node keyed by
  ``G.info_key(root, me)`` (ties broken at random).

Memory: the tree is a set of preallocated arrays, allocated once per search with room for
``simulations + 1`` nodes; nothing is allocated per simulation (mctx style)::

    node_key     int64[M]        information key of the node (M = simulations + 1)
    node_player  int64[M]        seat to move at the node
    edge_visits  int32[M, A]     simulations that took action a at the node (A = num_actions)
    edge_avail   int32[M, A]     simulations in which a was legal at the node
    edge_value   float64[M, A]   summed reward of node_player over those simulations
    table        int32[T]        open-addressing hash table key -> node, EMPTY = free slot
                                 (T = power of two >= 2 M, linear probing)
    path_node / path_action int64[M + 1]   the in-tree path of the current simulation

Agent parameters (one row ``float64[N_AGENT_PARAMS]`` of the arena's agent table; a 0 in a
slot means that slot's default, so a row holding only the simulation count is valid)::

    P_SIMULATIONS    0  simulations per decision (>= 1; default DEFAULT_SIMULATIONS)
    P_UCT_C          1  UCT exploration constant, rewards in [0, 1] (default DEFAULT_UCT_C)
    P_ROLLOUT        2  ROLLOUT_RANDOM (0) or ROLLOUT_HEURISTIC (1)
    P_ROLLOUT_DEPTH  3  0 = roll out to the end; k > 0 = k decisions, then G.evaluate
    P_OMNISCIENT     4  0 = information-set search; 1 = no rewind, no determinization:
                        search the true state (a cheating upper bound, and the tests'
                        peeking control)
    P_TIME_MS        5  > 0: a budget of this many milliseconds of CPU time per decision
                        (the thread's, agents.clock; read every TIME_CHECK simulations)
                        instead of a number of simulations; P_SIMULATIONS, if set too,
                        caps the simulations.  The tree then has room for TIMED_NODES_PER_MS
                        nodes per ms (at most TIMED_TREE_BYTES); simulations beyond it roll
                        out from the last node.  A timed search depends on the machine and
                        its load: its games are not a pure function of the seed.
    P_PRIOR          6  > 0: progressive bias towards the game's heuristic action, computed
                        in each simulation's determinized state at every tree node: tried
                        first, and P_PRIOR / (visits + 1) added to its UCB value.
    P_REUSE          7  > 0: tree reuse: the seat keeps its tree (the nodes and statistics of
                        every information set it met) from one of its decisions to the next
                        within a game, in the arena's per-seat tree (:func:`seat_trees`).
                        The tree has room for REUSE_SEARCHES searches; before a search that
                        might not fit, it is cleared.  Where decisions are not played by the
                        arena's loop (agents.decision: replays, the Python loop of runs with
                        Python agents) there is no tree to keep, so those refuse a reuse agent.
    P_NET            8  > 0: a learned network (index P_NET - 1 in the run's agents.net.Nets)
                        guides the search (AlphaZero's PUCT): a new node is evaluated by the
                        network on its mover's observation tensor of the determinized world
                        (agents.net), which gives the priors of its actions and the leaf's value
                        vector (one expected win share per seat) instead of a rollout; selection
                        is argmax Q + c P sqrt(N) / (1 + n) with c = P_UCT_C (default
                        DEFAULT_PUCT_C) and an unvisited action's Q the node's own value.
    P_LEAF           9  with a network: LEAF_NETWORK (0) values a new node by the value head;
                        LEAF_ROLLOUT (1) values it by a rollout (P_ROLLOUT, P_ROLLOUT_DEPTH),
                        as AlphaGo's fast rollouts do, and takes only priors from the
                        network, at the node's second visit (most nodes of a search are
                        visited once, and a rollout is cheaper than a forward pass in most
                        games); the node's own value is then its first rollout's.
                        A model with a linear head (agents.net) gives a node's priors from
                        the head where the game gives action features there (Eternal
                        Dynasty's main action), as ``policy:`` plays it.
    P_NET_TEMP      10  with a network: the softmax temperature of its priors (default 1):
                        P(a) proportional to exp(logit(a) / P_NET_TEMP).  Above 1 flattens
                        the priors (Leela Chess Zero's policy softmax temperature), for a
                        network whose policy is sharper than its search should trust.
    P_HEAD          11  > 0, with a model that has a linear head (agents.net): the head plays
                        the decisions where the game gives action features (Eternal Dynasty's
                        main action) as ``policy:`` plays them, without a search, and the
                        search plays the others without the network (UCB1, P_PRIOR's bias,
                        rollouts): a division of labour between a learned policy where it is
                        strong and the search where it is.
    P_PRIOR, with a network: the heuristic's progressive bias is added to the PUCT value of
                        the heuristic's action as above (P_PRIOR / (visits + 1)), so the
                        heuristic and the network both guide the search.

Randomness: the search uses only the ``rng`` it is given (the agent's own stream), never
the game's chance stream; the same state, parameters and RNG give the same action (a search
without a time budget).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agents.clock import cpu_ns
from agents.net import (
    NETS_T,
    T_ALL_LOSE,
    T_HIDDEN,
    T_VALUES,
    head_logits,
    head_size,
    hidden,
    no_nets,
    policy_logits,
    uses_hint,
    value_of,
)
from agents.policy import seat_features
from agents.table import N_AGENT_PARAMS
from sim.core import (
    H_NPLAYERS,
    argmax_masked,
    as_kernels,
    entry,
    new_rng,
    random_of_legal,
    rng_below,
)

P_SIMULATIONS = 0
P_UCT_C = 1
P_ROLLOUT = 2
P_ROLLOUT_DEPTH = 3
P_OMNISCIENT = 4
P_TIME_MS = 5
P_PRIOR = 6
P_REUSE = 7
P_NET = 8
P_LEAF = 9
P_NET_TEMP = 10
P_HEAD = 11

ROLLOUT_RANDOM = 0
ROLLOUT_HEURISTIC = 1
ROLLOUT_KINDS = {"random": ROLLOUT_RANDOM, "heuristic": ROLLOUT_HEURISTIC}
LEAF_NETWORK = 0
LEAF_ROLLOUT = 1
LEAF_KINDS = {"network": LEAF_NETWORK, "rollout": LEAF_ROLLOUT}
UNEVALUATED = -1.0  # prior[node, 0] of a LEAF_ROLLOUT node the network has not evaluated yet

DEFAULT_SIMULATIONS = 1000
DEFAULT_UCT_C = 0.4
DEFAULT_PUCT_C = 1.5  # the exploration constant with a network (rewards in [0, 1])
# tree room of a timed search (edge arrays: 16 bytes per node and action)
TIMED_TREE_BYTES = 64 * 2**20
MIN_TIMED_NODES = 1024
# tree room of a timed search per ms of budget (more than any game's simulations per ms)
TIMED_NODES_PER_MS = 2000
REUSE_SEARCHES = 8  # a reused tree's room, in searches (of the agent's budget)
# a timed search reads the clock (a system call, ~0.17 us) every TIME_CHECK simulations
TIME_CHECK = 4

EMPTY = -1  # a free hash-table slot
NO_ACTION = -1
TABLE_LOAD = 2  # table slots per node, at least


@nb.njit(cache=True)
def _table_size(max_nodes):
    t = 1
    while t < TABLE_LOAD * max_nodes:
        t *= 2
    return t


@nb.njit(cache=True)
def _find(table, node_key, key):
    """The table slot of ``key``: the slot holding its node, or the free slot to put it in."""
    mask = table.shape[0] - 1
    slot = key & mask
    while True:
        idx = table[slot]
        if idx == EMPTY or node_key[idx] == key:
            return slot
        slot = (slot + 1) & mask


@nb.njit(cache=True)
def _select(node, mask, edge_visits, edge_avail, edge_value, uct_c, rng, hint, prior):
    """UCB1 with availability counts over the legal actions; untried actions first.

    With ``prior`` > 0, progressive bias towards ``hint`` (the game's heuristic action in this
    determinization): it is tried first, and its UCB value gets ``prior / (visits + 1)``."""
    untried = 0
    choice = NO_ACTION
    for a in range(mask.shape[0]):
        if mask[a]:
            edge_avail[node, a] += 1
            if edge_visits[node, a] == 0:
                untried += 1
                if rng_below(rng, 0, untried) == 0:
                    choice = a
    if untried > 0:
        if prior > 0 and hint >= 0 and mask[hint] and edge_visits[node, hint] == 0:
            return hint
        return choice
    best = -np.inf
    ties = 0
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        v = edge_visits[node, a]
        u = edge_value[node, a] / v + uct_c * np.sqrt(np.log(edge_avail[node, a]) / v)
        if prior > 0 and a == hint:
            u += prior / (v + 1)
        if u > best:
            best = u
            ties = 1
            choice = a
        elif u == best:
            ties += 1
            if rng_below(rng, 0, ties) == 0:
                choice = a
    return choice


@nb.njit(cache=True)
def _select_puct(
    node, mask, edge_visits, edge_avail, edge_value, c, rng, prior, node_value, hint, bias
):
    """PUCT over the legal actions: Q + c P sqrt(N) / (1 + n), the priors renormalised over the
    actions legal in this determinization, an unvisited action's Q the node's value; with
    ``bias`` > 0, ``bias / (n + 1)`` added to the heuristic's action ``hint``."""
    total = 0
    psum = 0.0
    for a in range(mask.shape[0]):
        if mask[a]:
            edge_avail[node, a] += 1
            total += edge_visits[node, a]
            psum += prior[node, a]
    scale = c * np.sqrt(total + 1.0)
    best = -np.inf
    ties = 0
    choice = NO_ACTION
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        v = edge_visits[node, a]
        q = edge_value[node, a] / v if v > 0 else node_value[node]
        pa = prior[node, a] / psum if psum > 0 else 1.0
        u = q + scale * pa / (1.0 + v)
        if bias > 0 and a == hint:
            u += bias / (v + 1)
        if u > best:
            best = u
            ties = 1
            choice = a
        elif u == best:
            ties += 1
            if rng_below(rng, 0, ties) == 0:
                choice = a
    return choice


@nb.njit(cache=True)
def _evaluate_node(
    G, N, net, state, p, mask, node, prior, node_value, reward, scratch, all_lose, temp, rng
):
    """The network's priors of ``node`` (softmax of the legal actions' logits over ``temp``)
    and its value vector into ``reward`` (the seats' expected win shares); ``node_value`` gets
    the mover's.  A hint model's hint is the heuristic's action in the determinized world
    ``state`` (as a heuristic rollout would play it); where a model's linear head reads action
    features and the game gives them in ``state``, the head's logits are the priors (as
    ``policy:`` plays them)."""
    obs, logits, values, h1, h2 = scratch
    obs[:] = 0
    G.observe(state, p, obs)
    hint = np.int64(G.heuristic(state, rng)) if uses_hint(N.table, net) else -1
    hidden(N.table, net, N.enc, N.weights, obs, hint, h1, h2)  # (the value head reads h2)
    nf = head_size(N.table, net)
    by_head = False
    if nf > 0:  # a linear head gives the priors where the game gives action features
        feats = np.zeros((mask.shape[0], nf), np.float32)
        by_head = G.action_features(state.copy(), p, hint, mask, rng, feats) == nf
        if by_head:
            head_logits(N.table, net, N.weights, feats, mask, logits)
    if not by_head:
        policy_logits(N.table, net, N.weights, h2, mask, hint, logits)
    best = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and logits[a] > best:
            best = logits[a]
    for a in range(mask.shape[0]):
        prior[node, a] = np.exp((logits[a] - best) / temp) if mask[a] else 0.0
    n = reward.shape[0]
    value_of(N.table, net, N.weights, h2, n, all_lose, values)
    for s in range(n):
        reward[s] = values[s]
    node_value[node] = values[p]


@nb.njit(cache=True)
def search_room(params, num_actions):
    """``(simulations, time_ns, nodes)``: a search's simulation cap, time budget (0: none) and the
    nodes it may add (``simulations + 1``, or for a timed search TIMED_NODES_PER_MS per ms, at
    most TIMED_TREE_BYTES of edge arrays)."""
    time_ns = np.int64(params[P_TIME_MS] * 1e6)
    if time_ns > 0:
        sims = np.int64(params[P_SIMULATIONS]) if params[P_SIMULATIONS] > 0 else np.int64(2**62)
        room = min(
            max(MIN_TIMED_NODES, np.int64(params[P_TIME_MS] * TIMED_NODES_PER_MS)),
            max(MIN_TIMED_NODES, TIMED_TREE_BYTES // (16 * num_actions)),
        )
        return sims, time_ns, min(sims + 1, room)
    sims = np.int64(params[P_SIMULATIONS]) if params[P_SIMULATIONS] > 0 else DEFAULT_SIMULATIONS
    return sims, time_ns, sims + 1


@nb.njit(cache=True)
def _search(G, N, root, params, rng, mask, root_visits, root_value):
    """Search from ``root`` for the seat to move with a tree of its own; return its action.

    ``mask`` (bool[A]) is scratch space; ``root_visits`` (int64[A]) and ``root_value``
    (float64[A], mean reward of the mover) receive the root statistics.  ``root`` is not
    modified.  Assumes a non-terminal ``root`` and a valid parameter row.
    """
    max_nodes = search_room(params, mask.shape[0])[2]
    num_actions = mask.shape[0]
    node_key = np.empty(max_nodes, np.int64)
    node_player = np.empty(max_nodes, np.int64)
    edge_visits = np.empty((max_nodes, num_actions), np.int32)
    edge_avail = np.empty((max_nodes, num_actions), np.int32)
    edge_value = np.empty((max_nodes, num_actions), np.float64)
    table = np.full(_table_size(max_nodes), EMPTY, np.int32)
    with_net = params[P_NET] > 0
    prior = np.empty((max_nodes if with_net else 0, num_actions), np.float32)
    node_value = np.empty(max_nodes if with_net else 0, np.float64)
    a, _ = _search_in(
        G,
        root,
        params,
        rng,
        mask,
        root_visits,
        root_value,
        node_key,
        node_player,
        edge_visits,
        edge_avail,
        edge_value,
        table,
        0,
        N,
        prior,
        node_value,
    )
    return a


@nb.njit(cache=True)
def _search_in(
    G,
    root,
    params,
    rng,
    mask,
    root_visits,
    root_value,
    node_key,
    node_player,
    edge_visits,
    edge_avail,
    edge_value,
    table,
    n_nodes,
    N,
    prior,
    node_value,
):
    """The search in a given tree holding ``n_nodes`` nodes already (0: a new tree; the reused
    tree of a seat otherwise); it adds at most ``len(node_key) - n_nodes`` nodes.  With a
    network (``P_NET``), ``prior`` and ``node_value`` hold each node's priors and value (room
    for every node).  Returns ``(action, nodes in the tree)``."""
    sims, time_ns, _ = search_room(params, mask.shape[0])
    t_start = cpu_ns()
    max_nodes = node_key.shape[0]
    uct_c = params[P_UCT_C] if params[P_UCT_C] > 0 else DEFAULT_UCT_C
    heuristic_rollout = np.int64(params[P_ROLLOUT]) == ROLLOUT_HEURISTIC
    rollout_depth = np.int64(params[P_ROLLOUT_DEPTH])
    omniscient = params[P_OMNISCIENT] > 0
    bias = params[P_PRIOR]
    num_actions = mask.shape[0]
    n = root[H_NPLAYERS]
    me = G.current_player(root)
    net = np.int64(params[P_NET]) - 1 if params[P_HEAD] <= 0 else -1  # -1: no network
    net_value = np.int64(params[P_LEAF]) == LEAF_NETWORK
    temp = params[P_NET_TEMP] if params[P_NET_TEMP] > 0 else 1.0
    if net >= 0:
        uct_c = params[P_UCT_C] if params[P_UCT_C] > 0 else DEFAULT_PUCT_C
        all_lose = N.table[net, T_ALL_LOSE] > 0
        scratch = (
            np.zeros(N.obs_size, np.float32),
            np.zeros(num_actions, np.float32),
            np.zeros(N.table[net, T_VALUES], np.float64),
            np.zeros(N.table[net, T_HIDDEN], np.float32),
            np.zeros(N.table[net, T_HIDDEN], np.float32),
        )
    else:
        all_lose = False
        scratch = (
            np.zeros(0, np.float32),
            np.zeros(0, np.float32),
            np.zeros(0, np.float64),
            np.zeros(0, np.float32),
            np.zeros(0, np.float32),
        )

    path_node = np.empty(max_nodes + 1, np.int64)
    path_action = np.empty(max_nodes + 1, np.int64)
    reward = np.zeros(n, np.float64)
    scores = np.zeros(n, np.float64)
    work = np.empty_like(root)

    done = np.int64(0)
    while done < sims and (time_ns == 0 or done % TIME_CHECK != 0 or cpu_ns() - t_start < time_ns):
        done += 1
        work[:] = root
        if not omniscient:
            G.rewind_secrets(work, me)
            G.determinize(work, me, rng)
        depth = 0
        evaluated = False  # the leaf's value came from the network
        leaf = np.int64(-1)  # a new node whose own value is its first rollout's (LEAF_ROLLOUT)
        # Selection and expansion: walk the tree, add the first missing node, stop there.
        while not G.is_terminal(work):
            p = G.current_player(work)
            key = G.info_key(work, p)
            slot = _find(table, node_key, key)
            node = table[slot]
            expanded = False
            if node == EMPTY:
                if n_nodes == max_nodes:
                    break
                node = n_nodes
                n_nodes += 1
                table[slot] = node
                node_key[node] = key
                node_player[node] = p
                edge_visits[node, :] = 0
                edge_avail[node, :] = 0
                edge_value[node, :] = 0.0
                expanded = True
            G.legal_mask(work, mask)
            if net >= 0:
                if expanded and not net_value:  # LEAF_ROLLOUT: a rollout values it; priors
                    prior[node, 0] = UNEVALUATED  # at its second visit
                    leaf = node
                    break
                if expanded or prior[node, 0] == UNEVALUATED:
                    own = node_value[node]
                    _evaluate_node(
                        G,
                        N,
                        net,
                        work,
                        p,
                        mask,
                        node,
                        prior,
                        node_value,
                        reward,
                        scratch,
                        all_lose,
                        temp,
                        rng,
                    )
                    if expanded:  # LEAF_NETWORK: the network values the new node
                        evaluated = True
                        break
                    node_value[node] = own  # LEAF_ROLLOUT: its value stays its rollout's
            hint = G.heuristic(work, rng) if bias > 0 else NO_ACTION
            if net >= 0:
                a = _select_puct(
                    node,
                    mask,
                    edge_visits,
                    edge_avail,
                    edge_value,
                    uct_c,
                    rng,
                    prior,
                    node_value,
                    hint,
                    bias,
                )
            else:
                a = _select(node, mask, edge_visits, edge_avail, edge_value, uct_c, rng, hint, bias)
            path_node[depth] = node
            path_action[depth] = a
            depth += 1
            G.apply(work, a)
            if expanded:
                break
        # Rollout (none when the network valued the leaf).
        steps = 0
        while (
            not evaluated
            and not G.is_terminal(work)
            and (rollout_depth == 0 or steps < rollout_depth)
        ):
            if heuristic_rollout:
                a = G.heuristic(work, rng)
            else:
                a = random_of_legal(mask, G.legal_mask(work, mask), rng, 0)
            G.apply(work, a)
            steps += 1
        if G.is_terminal(work):
            G.returns(work, scores, reward)
        elif not evaluated:
            G.evaluate(work, reward)
        if leaf >= 0:
            node_value[leaf] = reward[node_player[leaf]]
        # Backpropagation: each node is credited with the reward of the seat that moves there.
        for i in range(depth):
            node = path_node[i]
            a = path_action[i]
            edge_visits[node, a] += 1
            edge_value[node, a] += reward[node_player[node]]

    # The decision is taken at the searcher's own information set, wherever the walks
    # started (a rewound round starts at an earlier opponent's node).
    root_node = table[_find(table, node_key, G.info_key(root, me))]
    G.legal_mask(root, mask)
    for a in range(num_actions):
        v = edge_visits[root_node, a] if (mask[a] and root_node != EMPTY) else 0
        root_visits[a] = v
        root_value[a] = edge_value[root_node, a] / v if v > 0 else 0.0
    # the most visited action; NO_ACTION if none is legal
    return argmax_masked(root_visits, mask, rng, 0), n_nodes


@nb.njit(cache=True)
def mcts_act(G, N, state, params, rng, mask):
    """The action MCTS (parameter row ``params``; networks ``N``) takes in ``state`` with agent
    RNG ``rng``."""
    if params[P_HEAD] > 0:
        a = _head_act(G, N, state, np.int64(params[P_NET]) - 1, rng, mask)
        if a != NO_ACTION:
            return a
    visits = np.zeros(mask.shape[0], np.int64)
    value = np.zeros(mask.shape[0], np.float64)
    return _search(G, N, state, params, rng, mask, visits, value)


@nb.njit(cache=True)
def _head_act(G, N, state, net, rng, mask):
    """P_HEAD: the action of net ``net``'s linear head where the game gives action features at
    the seat's decision (in a copy resampled from its information set, as ``policy:`` reads
    them); NO_ACTION elsewhere, ``rng`` then as it was (the search draws what it would
    without the head)."""
    nf = head_size(N.table, net)
    if nf == 0:
        return NO_ACTION
    saved = rng.copy()
    G.legal_mask(state, mask)
    feats = np.zeros((mask.shape[0], nf), np.float32)
    if seat_features(G, state, G.current_player(state), rng, mask, feats)[1] != nf:
        rng[:] = saved
        return NO_ACTION
    logits = np.zeros(mask.shape[0], np.float32)
    head_logits(N.table, net, N.weights, feats, mask, logits)
    return argmax_masked(logits, mask, rng, 0)


# The arena's per-seat trees (seat_trees): a tuple of the search's tree arrays (module docstring)
# with the seat first, S = n_players seats (0 when no agent reuses its tree) of room R nodes
# each, and the nodes each seat's tree holds:
#
#   trees[T_NODE_KEY]     int64[S, R]        node_key of seat p's tree at [p]
#   trees[T_NODE_PLAYER]  int64[S, R]        node_player
#   trees[T_EDGE_VISITS]  int32[S, R, A]     edge_visits
#   trees[T_EDGE_AVAIL]   int32[S, R, A]     edge_avail
#   trees[T_EDGE_VALUE]   float64[S, R, A]   edge_value
#   trees[T_TABLE]        int32[S, T]        table (T = 1 when S = 0)
#   trees[T_NODES]        int64[n_players]   nodes in seat p's tree (0: empty)
#
# Compile-time constants: the tuple's items have different types, and numba reads them by
# constant index.
T_NODE_KEY = 0
T_NODE_PLAYER = 1
T_EDGE_VISITS = 2
T_EDGE_AVAIL = 3
T_EDGE_VALUE = 4
T_TABLE = 5
T_NODES = 6


@nb.njit(cache=True)
def seat_trees(n_players, agent_kind, agent_params, mcts_kind, num_actions):
    """The arena's per-seat trees for agents with tree reuse (``P_REUSE``): room for
    REUSE_SEARCHES searches of the largest budget among them (at most TIMED_TREE_BYTES of edge
    arrays per seat); empty arrays when no agent reuses its tree.  Indexed by ``T_*`` (the
    comment above)."""
    room = 0
    for a in range(agent_kind.shape[0]):
        if agent_kind[a] == mcts_kind and agent_params[a, P_REUSE] > 0:
            room = max(room, REUSE_SEARCHES * search_room(agent_params[a], num_actions)[2])
    if room > 0:
        room = max(MIN_TIMED_NODES, min(room, TIMED_TREE_BYTES // (16 * num_actions)))
    seats = n_players if room > 0 else 0
    return (
        np.zeros((seats, room), np.int64),  # T_NODE_KEY
        np.zeros((seats, room), np.int64),  # T_NODE_PLAYER
        np.zeros((seats, room, num_actions), np.int32),  # T_EDGE_VISITS
        np.zeros((seats, room, num_actions), np.int32),  # T_EDGE_AVAIL
        np.zeros((seats, room, num_actions), np.float64),  # T_EDGE_VALUE
        np.full((seats, _table_size(room) if room > 0 else 1), EMPTY, np.int32),  # T_TABLE
        np.zeros(n_players, np.int64),  # T_NODES
    )


@nb.njit(cache=True)
def clear_tree(trees, p):
    """Empty seat ``p``'s reused tree (at the start of a game, or when a search might not fit)."""
    if trees[T_TABLE].shape[0] > 0 and trees[T_NODES][p] > 0:
        trees[T_TABLE][p, :] = EMPTY
    trees[T_NODES][p] = 0


@nb.njit(cache=True)
def mcts_act_reusing(G, N, state, params, rng, mask, trees, p):
    """:func:`mcts_act` for seat ``p``, in the seat's tree of ``trees`` (:func:`seat_trees`) when
    the agent reuses its tree, in a tree of its own otherwise."""
    if params[P_REUSE] <= 0 or trees[T_TABLE].shape[0] == 0:
        return mcts_act(G, N, state, params, rng, mask)
    if params[P_HEAD] > 0:
        a = _head_act(G, N, state, np.int64(params[P_NET]) - 1, rng, mask)
        if a != NO_ACTION:
            return a
    visits = np.zeros(mask.shape[0], np.int64)
    value = np.zeros(mask.shape[0], np.float64)
    room = trees[T_NODE_KEY].shape[1]
    if trees[T_NODES][p] + search_room(params, mask.shape[0])[2] > room:
        clear_tree(trees, p)
    a, n_nodes = _search_in(
        G,
        state,
        params,
        rng,
        mask,
        visits,
        value,
        trees[T_NODE_KEY][p],
        trees[T_NODE_PLAYER][p],
        trees[T_EDGE_VISITS][p],
        trees[T_EDGE_AVAIL][p],
        trees[T_EDGE_VALUE][p],
        trees[T_TABLE][p],
        trees[T_NODES][p],
        N,
        np.empty((0, mask.shape[0]), np.float32),  # no network: refused with reuse (mcts_params)
        np.empty(0, np.float64),
    )
    trees[T_NODES][p] = n_nodes
    return a


@entry(
    NETS_T,
    nb.int32[::1],
    nb.float64[::1],
    nb.int32[:],
    nb.boolean[::1],
    nb.int64[::1],
    nb.float64[::1],
    returns=nb.int64,
)
def search(K, N, root, params, rng, mask, root_visits, root_value):
    """Entry: search ``root`` of the game whose kernels are ``K = tuple(spec.kernels)``, with the
    networks ``N`` (agents.net.Nets; empty without one).

    ``mask`` (bool[A]) is scratch space; ``root_visits`` (int64[A]) and ``root_value``
    (float64[A], mean reward of the mover) receive the root statistics.
    """
    return _search(as_kernels(K), N, root, params, rng, mask, root_visits, root_value)


# --------------------------------------------------------------------------- Python side

PARAMETERS = (
    "simulations",
    "time_ms",
    "uct_c",
    "rollout",
    "rollout_depth",
    "omniscient",
    "prior",
    "reuse",
    "net",
    "leaf",
    "net_temp",
    "head",
)


class MCTSParameterError(ValueError):
    """An MCTS parameter with a wrong name or value."""


def mcts_params(
    simulations: int | None = None,
    uct_c: float | None = None,
    rollout: str = "random",
    rollout_depth: int = 0,
    omniscient: bool = False,
    size: int | None = None,
    time_ms: float = 0,
    prior: float = 0.0,
    reuse: bool = False,
    net: str | None = None,
    leaf: str = "network",
    net_temp: float = 1.0,
    head: bool = False,
) -> np.ndarray:
    """A validated MCTS parameter row (``float64[size]``, default ``N_AGENT_PARAMS``).

    ``simulations`` defaults to DEFAULT_SIMULATIONS, or to no cap with a ``time_ms`` budget.
    ``net`` names a model (agents.model): the row marks P_NET, and the run that holds the
    model sets the network's index there; ``uct_c`` then defaults to DEFAULT_PUCT_C, and
    ``leaf="rollout"`` values new nodes by rollouts instead of the value head (P_LEAF), and
    ``net_temp`` is the softmax temperature of its priors (P_NET_TEMP); ``head`` lets the
    model's linear head play where the game gives action features and the search without the
    network elsewhere (P_HEAD)."""
    if net is not None and (not isinstance(net, str) or not net.strip()):
        raise MCTSParameterError(f"mcts net must name a model, got {net!r}")
    if leaf not in LEAF_KINDS:
        raise MCTSParameterError(f"mcts leaf must be one of {', '.join(LEAF_KINDS)}, got {leaf!r}")
    if leaf != "network" and net is None:
        raise MCTSParameterError("mcts leaf is a setting of a search with a net")
    if (
        isinstance(net_temp, bool)
        or not isinstance(net_temp, (int, float, np.integer, np.floating))
        or not net_temp > 0
    ):
        raise MCTSParameterError(f"mcts net_temp must be a number > 0, got {net_temp!r}")
    if net_temp != 1 and net is None:
        raise MCTSParameterError("mcts net_temp is a setting of a search with a net")
    if not isinstance(head, bool):
        raise MCTSParameterError(f"mcts head must be true or false, got {head!r}")
    if head and net is None:
        raise MCTSParameterError("mcts head is a setting of a search with a net")
    if head and (leaf != "network" or net_temp != 1):
        raise MCTSParameterError(
            "mcts head: the search runs without the network, so leaf and net_temp do not apply"
        )
    if net is not None and reuse and not head:
        raise MCTSParameterError("mcts reuse cannot be combined with a net (not implemented)")
    if uct_c is None:
        uct_c = DEFAULT_PUCT_C if net is not None and not head else DEFAULT_UCT_C
    if (
        isinstance(time_ms, bool)
        or not isinstance(time_ms, (int, float, np.integer, np.floating))
        or time_ms < 0
    ):
        raise MCTSParameterError(
            f"mcts time_ms must be a number of milliseconds >= 0, got {time_ms!r}"
        )
    if simulations is None:
        simulations = 0 if time_ms > 0 else DEFAULT_SIMULATIONS

    def whole(name, v, low):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise MCTSParameterError(f"mcts {name} must be an integer >= {low}, got {v!r}")
        return int(v)

    sims = whole("simulations", simulations, 0 if time_ms > 0 else 1)
    depth = whole("rollout_depth", rollout_depth, 0)
    if (
        isinstance(uct_c, bool)
        or not isinstance(uct_c, (int, float, np.floating, np.integer))
        or not uct_c > 0
    ):
        raise MCTSParameterError(f"mcts uct_c must be a number > 0, got {uct_c!r}")
    if rollout not in ROLLOUT_KINDS:
        raise MCTSParameterError(
            f"mcts rollout must be one of {', '.join(ROLLOUT_KINDS)}, got {rollout!r}"
        )
    if not isinstance(omniscient, bool):
        raise MCTSParameterError(f"mcts omniscient must be true or false, got {omniscient!r}")
    row = np.zeros(size or N_AGENT_PARAMS, np.float64)
    row[P_SIMULATIONS] = sims
    row[P_UCT_C] = float(uct_c)
    row[P_ROLLOUT] = ROLLOUT_KINDS[rollout]
    row[P_ROLLOUT_DEPTH] = depth
    row[P_OMNISCIENT] = 1.0 if omniscient else 0.0
    row[P_TIME_MS] = float(time_ms)
    if (
        isinstance(prior, bool)
        or not isinstance(prior, (int, float, np.integer, np.floating))
        or prior < 0
    ):
        raise MCTSParameterError(f"mcts prior must be a number >= 0, got {prior!r}")
    row[P_PRIOR] = float(prior)
    if not isinstance(reuse, bool):
        raise MCTSParameterError(f"mcts reuse must be true or false, got {reuse!r}")
    row[P_REUSE] = 1.0 if reuse else 0.0
    row[P_NET] = 1.0 if net is not None else 0.0
    row[P_LEAF] = LEAF_KINDS[leaf]
    row[P_NET_TEMP] = float(net_temp) if net_temp != 1 else 0.0
    row[P_HEAD] = 1.0 if head else 0.0
    return row


def mcts_label(params: np.ndarray, net: str | None = None) -> str:
    """Canonical text of a parameter row: ``mcts:1000``, plus any non-default settings (and
    ``net=<model>`` for a search with a network)."""
    if params[P_TIME_MS] > 0:
        parts = [f"mcts:{params[P_TIME_MS]:g}ms"]
        if params[P_SIMULATIONS] > 0:
            parts.append(f"simulations={int(params[P_SIMULATIONS])}")
    else:
        parts = [f"mcts:{int(params[P_SIMULATIONS]) or DEFAULT_SIMULATIONS}"]
    default_c = DEFAULT_PUCT_C if params[P_NET] > 0 and params[P_HEAD] <= 0 else DEFAULT_UCT_C
    if params[P_UCT_C] > 0 and params[P_UCT_C] != default_c:
        parts.append(f"uct_c={params[P_UCT_C]:g}")
    if int(params[P_ROLLOUT]) == ROLLOUT_HEURISTIC:
        parts.append("rollout=heuristic")
    if int(params[P_ROLLOUT_DEPTH]) > 0:
        parts.append(f"rollout_depth={int(params[P_ROLLOUT_DEPTH])}")
    if params[P_PRIOR] > 0:
        parts.append(f"prior={params[P_PRIOR]:g}")
    if params[P_REUSE] > 0:
        parts.append("reuse")
    if params[P_OMNISCIENT] > 0:
        parts.append("omniscient")
    if net is not None:
        parts.append(f"net={net}")
    if int(params[P_LEAF]) == LEAF_ROLLOUT:
        parts.append("leaf=rollout")
    if params[P_NET_TEMP] > 0 and params[P_NET_TEMP] != 1:
        parts.append(f"net_temp={params[P_NET_TEMP]:g}")
    if params[P_HEAD] > 0:
        parts.append("head")
    return ",".join(parts)


def search_root(spec, state: np.ndarray, params: np.ndarray, seed: int, nets=None):
    """Search ``state`` of game ``spec`` with a fresh RNG from ``seed`` (``nets``: the network
    of a search with one, agents.net.Nets).

    Returns ``(action, visits, value)``: the chosen action and, per action, the root visit
    counts and mean rewards of the seat to move.  For tests, notebooks and people.
    """
    k = spec.kernels
    if k.is_terminal(state):
        raise ValueError("the game is over: there is nothing to search")
    mask = np.zeros(spec.num_actions, np.bool_)
    visits = np.zeros(spec.num_actions, np.int64)
    value = np.zeros(spec.num_actions, np.float64)
    rng = new_rng(np.int64(seed))
    n = nets if nets is not None else no_nets()
    a = search(tuple(k), n, state, np.asarray(params, np.float64), rng, mask, visits, value)
    return int(a), visits, value


__all__ = [
    "search",
    "mcts_act",
    "mcts_act_reusing",
    "seat_trees",
    "clear_tree",
    "mcts_params",
    "mcts_label",
    "search_root",
]
