"""A learned network's policy as an agent: ``policy:<model>`` (greedy) or
``policy:<model>,temperature=0.5`` (sampled from the softmax of the legal actions' logits
divided by the temperature).

The agent reads the seat's observation tensor (``G.observe``, the game's contract) and the
network the run holds for it (:class:`agents.net.Nets`); nothing else of the state.  A hint
model also reads the game's heuristic action in a world resampled from the seat's
information set (``G.determinize`` of a copy, then ``G.heuristic``; agents/net.py), and a
model with a linear head the game's per-action features in that world (``G.action_features``),
where the game gives them.  It runs
inside the compiled game loop like the heuristic: no Python per decision.

Parameter row (``float64[N_AGENT_PARAMS]``)::

    P_NET          0  the network's index in the run's Nets (set when the run is built)
    P_TEMPERATURE  1  0: the most likely legal action (ties at random); > 0: sampled
"""

from __future__ import annotations

import numba as nb
import numpy as np

from agents.net import T_HIDDEN, head_logits, head_size, hidden, policy_logits, uses_hint
from agents.table import N_AGENT_PARAMS
from sim.core import H_CURRENT, argmax_masked, as_kernels, entry, rng_next

P_NET = 0
P_TEMPERATURE = 1
PARAMETERS = ("model", "temperature")


@nb.njit(cache=True)
def _uniform(rng):
    """A uniform float in [0, 1) from the agent's RNG."""
    return np.float64(rng_next(rng, 0) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(cache=True)
def sample_logits(logits, mask, temperature, rng):
    """A legal action drawn with probability softmax(logits / temperature) over the legal ones."""
    best = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and logits[a] > best:
            best = logits[a]
    total = 0.0
    for a in range(mask.shape[0]):
        if mask[a]:
            total += np.exp((logits[a] - best) / temperature)
    u = _uniform(rng) * total
    last = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            last = a
            u -= np.exp((logits[a] - best) / temperature)
            if u < 0:
                return a
    return last


@nb.njit(cache=True)
def seat_hint(G, state, p, rng):
    """The hint of a hint model: the game's heuristic action in a copy of ``state`` whose hidden
    information is resampled from seat ``p``'s information set."""
    work = state.copy()
    G.determinize(work, p, rng)
    return np.int64(G.heuristic(work, rng))


@nb.njit(cache=True)
def seat_features(G, state, p, rng, mask, feats):
    """``(hint, k)``: the hint and the game's action features (``k`` of them per action, into
    ``feats``; 0: none at this decision) in a copy of ``state`` resampled from seat ``p``'s
    information set, as a model with a linear head reads them."""
    work = state.copy()
    G.determinize(work, p, rng)
    hint = np.int64(G.heuristic(work.copy(), rng))
    return hint, G.action_features(work, p, hint, mask, rng, feats)


@entry(
    nb.int32[::1],
    nb.int64,
    nb.int32[:],
    nb.boolean[::1],
    nb.float32[:, ::1],
    returns=nb.types.UniTuple(nb.int64, 2),
)
def features_of(K, state, p, rng, mask, feats):
    """Entry: :func:`seat_features` for the game whose kernels are ``K`` (the examples of a
    training's linear head)."""
    return seat_features(as_kernels(K), state, p, rng, mask, feats)


@entry(nb.int32[::1], nb.int64, nb.int32[:], returns=nb.int64)
def hint_of(K, state, p, rng):
    """Entry: :func:`seat_hint` for the game whose kernels are ``K = tuple(spec.kernels)``
    (the self-play's examples of a hint training)."""
    return seat_hint(as_kernels(K), state, p, rng)


@nb.njit(cache=True)
def policy_act(G, N, state, params, rng, mask, obs, logits, h1, h2):
    """The action of a POLICY agent (parameter row ``params``) at the seat to move; ``obs``,
    ``logits``, ``h1`` and ``h2`` are scratch of the sizes the run's networks need."""
    p = state[H_CURRENT]
    G.legal_mask(state, mask)
    k = np.int64(params[P_NET])
    nf = head_size(N.table, k)
    by_head = False
    if nf > 0:  # the linear head where the game gives action features, else the network
        feats = np.zeros((mask.shape[0], nf), np.float32)
        hint, got = seat_features(G, state, p, rng, mask, feats)
        by_head = got == nf
        if by_head:
            head_logits(N.table, k, N.weights, feats, mask, logits)
    else:
        hint = seat_hint(G, state, p, rng) if uses_hint(N.table, k) else -1
    if not by_head:  # (the observation is read only when the network decides)
        obs[:] = 0
        G.observe(state, p, obs)
        hidden(N.table, k, N.enc, N.weights, obs, hint, h1, h2)
        policy_logits(N.table, k, N.weights, h2, mask, hint, logits)
    if params[P_TEMPERATURE] > 0:
        return sample_logits(logits, mask, params[P_TEMPERATURE], rng)
    return argmax_masked(logits, mask, rng, 0)


@nb.njit(cache=True)
def net_scratch(N, num_actions, max_players):
    """(obs, logits, values, h1, h2): the scratch arrays the run's networks need."""
    nh = 1
    for k in range(N.table.shape[0]):
        nh = max(nh, N.table[k, T_HIDDEN])
    return (
        np.zeros(max(1, N.obs_size), np.float32),
        np.zeros(num_actions, np.float32),
        np.zeros(max_players + 1, np.float64),
        np.zeros(nh, np.float32),
        np.zeros(nh, np.float32),
    )


# --------------------------------------------------------------------------- Python side


class PolicyParameterError(ValueError):
    """A policy agent's parameter with a wrong name or value."""


def policy_params(temperature: float = 0.0) -> np.ndarray:
    """A validated POLICY parameter row (the network's index is set when the run is built)."""
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, (int, float, np.integer, np.floating))
        or temperature < 0
    ):
        raise PolicyParameterError(f"policy temperature must be a number >= 0, got {temperature!r}")
    row = np.zeros(N_AGENT_PARAMS, np.float64)
    row[P_TEMPERATURE] = float(temperature)
    return row


def policy_label(model: str, params: np.ndarray) -> str:
    """Canonical text: ``policy:<model>``, plus ``temperature=...`` when sampled."""
    label = f"policy:{model}"
    if params[P_TEMPERATURE] > 0:
        label += f",temperature={params[P_TEMPERATURE]:g}"
    return label
