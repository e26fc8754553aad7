"""Agent specifications as written in experiment configs: ``random``, ``heuristic``, ``mcts:1000``.

:func:`parse_agent` turns one specification (a string, or a TOML table such as
``{kind = "mcts", simulations = 1000}``) into the row of an arena agent table:
``(kind, params, label)``, where ``kind`` is one of :data:`agents.arena.AGENT_KINDS`,
``params`` a ``float64[N_AGENT_PARAMS]`` row and ``label`` the canonical text form (used as
the ``agent`` column of results, so equal agents get equal labels).

MCTS parameters are those of :func:`agents.mcts.mcts_params` (``simulations``, ``uct_c``,
``rollout``, ``rollout_depth``, ``omniscient``), given as a table or in the text form that
:func:`agents.mcts.mcts_label` writes: ``mcts:1000,uct_c=2,rollout=heuristic,omniscient``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.arena import AGENT_KINDS, MCTS, N_AGENT_PARAMS


class AgentSpecError(ValueError):
    """An agent specification that names an unknown kind or a bad parameter."""


def _mcts_args(text: str) -> dict[str, Any]:
    """``1000,uct_c=2,rollout=heuristic,omniscient`` -> keyword arguments of ``mcts_params``."""
    args: dict[str, Any] = {}
    for i, part in enumerate(p.strip() for p in text.split(",")):
        key, eq, value = part.partition("=")
        if i == 0 and not eq:
            key, value = "simulations", part
        elif not eq:
            args[key] = True
            continue
        key = key.strip()
        value = value.strip()
        if key in ("simulations", "rollout_depth"):
            if not value.isdigit():
                raise AgentSpecError(f"mcts {key} must be a non-negative integer, got {value!r}")
            args[key] = int(value)
        elif key == "uct_c":
            try:
                args[key] = float(value)
            except ValueError:
                raise AgentSpecError(f"mcts uct_c must be a number, got {value!r}") from None
        elif key == "omniscient":
            args[key] = value.lower() == "true"
        else:
            args[key] = value
    return args


def parse_agent(spec: str | dict) -> tuple[int, np.ndarray, str]:
    """``(kind, params, label)`` for an agent specification; :class:`AgentSpecError` if invalid."""
    from agents.mcts import mcts_label, mcts_params

    known = ", ".join(sorted(AGENT_KINDS))
    if isinstance(spec, dict):
        args = dict(spec)
        name = args.pop("kind", None)
    elif isinstance(spec, str):
        name, _, arg = spec.strip().partition(":")
        if arg and name in AGENT_KINDS and AGENT_KINDS[name] != MCTS:
            raise AgentSpecError(f"agent {name!r} takes no parameters, got {spec!r}")
        args = _mcts_args(arg) if arg else {}
    else:
        raise AgentSpecError(f"an agent is a string such as 'random' or 'mcts:1000', got {spec!r}")
    if name not in AGENT_KINDS:
        raise AgentSpecError(f"unknown agent {name!r} (known: {known})")
    kind = AGENT_KINDS[name]
    if kind != MCTS:
        if args:
            raise AgentSpecError(f"agent {name!r} takes no parameters (got {', '.join(map(str, args))})")
        return kind, np.zeros(N_AGENT_PARAMS, np.float64), name
    allowed = ("simulations", "uct_c", "rollout", "rollout_depth", "omniscient")
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        raise AgentSpecError(f"agent 'mcts' has no parameter {unknown[0]!r} (parameters: {', '.join(allowed)})")
    try:
        params = mcts_params(**args)
    except ValueError as e:
        raise AgentSpecError(str(e)) from None
    return kind, params, mcts_label(params)
