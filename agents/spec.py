"""Agent specifications as written in experiment configs: ``random``, ``heuristic``, ``mcts:1000``.

:func:`parse_agent` turns one specification (a string, or a TOML table such as
``{kind = "mcts", simulations = 1000}``) into the row of an arena agent table:
``(kind, params, label)``, where ``kind`` is one of :data:`agents.arena.AGENT_KINDS`,
``params`` a ``float64[N_AGENT_PARAMS]`` row and ``label`` the canonical text form (used as
the ``agent`` column of results, so equal agents get equal labels).

Parameter slots by kind (``params[i]``):

========== ===========================================
random     none
heuristic  none
mcts       0: simulations per decision (an integer >= 1)
========== ===========================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.arena import AGENT_KINDS, MCTS, N_AGENT_PARAMS


class AgentSpecError(ValueError):
    """An agent specification that names an unknown kind or a bad parameter."""


def _simulations(value: Any) -> int:
    if isinstance(value, str):
        value = value.strip()
        if not value.isdigit():
            raise AgentSpecError(f"mcts simulations must be a positive integer, got {value!r}")
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise AgentSpecError(f"mcts simulations must be a positive integer, got {value!r}")
    return int(value)


def parse_agent(spec: str | dict) -> tuple[int, np.ndarray, str]:
    """``(kind, params, label)`` for an agent specification; :class:`AgentSpecError` if invalid."""
    known = ", ".join(sorted(AGENT_KINDS))
    if isinstance(spec, dict):
        spec = dict(spec)
        name = spec.pop("kind", None)
        args = spec
    elif isinstance(spec, str):
        name, _, arg = spec.strip().partition(":")
        args = {"simulations": arg} if arg else {}
    else:
        raise AgentSpecError(f"an agent is a string such as 'random' or 'mcts:1000', got {spec!r}")
    if name not in AGENT_KINDS:
        raise AgentSpecError(f"unknown agent {name!r} (known: {known})")
    kind = AGENT_KINDS[name]
    params = np.zeros(N_AGENT_PARAMS, np.float64)
    allowed = {"simulations"} if kind == MCTS else set()
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise AgentSpecError(
            f"agent {name!r} takes no parameter {unknown[0]!r}"
            + (f" (parameters: {', '.join(sorted(allowed))})" if allowed else "")
        )
    label = name
    if kind == MCTS:
        sims = _simulations(args.get("simulations", 1000))
        params[0] = sims
        label = f"mcts:{sims}"
    return kind, params, label
