"""Agent specifications as written in experiment configs: ``random``, ``heuristic``, ``mcts:1000``.

:func:`parse_agent` turns one specification (a string, or a TOML table such as
``{kind = "mcts", simulations = 1000}``) into the row of an arena agent table:
``(kind, params, label)``, where ``kind`` is one of :data:`agents.table.AGENT_KINDS`,
``params`` a ``float64[N_AGENT_PARAMS]`` row and ``label`` the canonical text form (used as
the ``agent`` column of results, so equal agents get equal labels).

MCTS parameters are those of :func:`agents.mcts.mcts_params` (``simulations``, ``time_ms``,
``uct_c``, ``rollout``, ``rollout_depth``, ``prior``, ``reuse``, ``omniscient``), given as a
table or in the text form that :func:`agents.mcts.mcts_label` writes:
``mcts:1000,uct_c=2,rollout=heuristic,omniscient``;
``mcts:50ms`` is a budget of 50 ms per decision instead of a number of simulations.

A learned network's policy is ``policy:<model>`` (greedy) or ``policy:<model>,temperature=0.5``
(or ``{kind = "policy", model = "...", temperature = 0.5}``), an MCTS guided by one
``mcts:5ms,net=<model>`` (``leaf=rollout``: the network's priors, rollouts' values; ``head``:
the model's linear head plays where the game gives action features, the search elsewhere); a
model is a shipped model's name or a path (agents.model).  :func:`model_name` reads the model
back from an agent's label.

A user's own agent is named by its module path, ``"mypkg.agents:greedy"`` (or
``{kind = "mypkg.agents:MyAgent", timeout_s = 5}``), with its parameters, if any, as a table
(``{kind = "mypkg.agents:Greedy", params = {temperature = 0.5}}``) or in text
(``"mypkg.agents:Greedy,temperature=0.5"``, the form of its label); :mod:`agents.user` loads
and checks it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.table import AGENT_KINDS, MCTS, N_AGENT_PARAMS, POLICY, PYTHON


class AgentSpecError(ValueError):
    """An agent specification that names an unknown kind or a bad parameter."""


def mcts_args(text: str) -> dict[str, Any]:
    """``1000,uct_c=2,rollout=heuristic,omniscient`` -> keyword arguments of ``mcts_params``."""
    args: dict[str, Any] = {}
    for i, part in enumerate(p.strip() for p in text.split(",")):
        key, eq, value = part.partition("=")
        if i == 0 and not eq and not part.endswith("ms"):
            key, value = "simulations", part
        elif i > 0 and not eq:
            args[key] = True
            continue
        key = key.strip()
        value = value.strip()
        if i == 0 and not eq and part.endswith("ms"):
            key, value = "time_ms", part[:-2]
        if key == "time_ms":
            try:
                args[key] = float(value)
            except ValueError:
                raise AgentSpecError(
                    f"mcts time budget must be a number of milliseconds such as 50ms, got {part!r}"
                ) from None
        elif key in ("simulations", "rollout_depth"):
            if not value.isdigit():
                raise AgentSpecError(f"mcts {key} must be a non-negative integer, got {value!r}")
            args[key] = int(value)
        elif key in ("uct_c", "prior", "net_temp"):
            try:
                args[key] = float(value)
            except ValueError:
                raise AgentSpecError(f"mcts {key} must be a number, got {value!r}") from None
        elif key in ("omniscient", "reuse", "head"):
            args[key] = value.lower() == "true"
        else:
            args[key] = value
    return args


def model_name(kind: int, label: str) -> str | None:
    """The model a POLICY agent or an MCTS agent with a network plays with (from its label)."""
    name, _, arg = label.partition(":")
    parts = [p.strip() for p in arg.split(",")] if arg else []
    if kind == POLICY and parts:
        return parts[0]
    if kind == MCTS:
        for part in parts:
            if part.startswith("net="):
                return part[4:]
    return None


def _policy_agent(spec: str | dict) -> tuple[int, np.ndarray, str]:
    from agents.policy import PARAMETERS, PolicyParameterError, policy_label, policy_params

    if isinstance(spec, dict):
        args = {k: v for k, v in spec.items() if k != "kind"}
    else:
        parts = [p.strip() for p in spec.strip().partition(":")[2].split(",")]
        args = {"model": parts[0]} if parts[0] else {}
        for part in parts[1:]:
            key, eq, value = part.partition("=")
            if not eq:
                raise AgentSpecError(f"policy parameter {part!r}: expected name=value")
            try:
                args[key.strip()] = float(value)
            except ValueError:
                raise AgentSpecError(
                    f"policy {key.strip()} must be a number, got {value!r}"
                ) from None
    unknown = sorted(set(args) - set(PARAMETERS))
    if unknown:
        raise AgentSpecError(
            f"agent 'policy' has no parameter {unknown[0]!r} (parameters: {', '.join(PARAMETERS)})"
        )
    model = args.pop("model", None)
    if not isinstance(model, str) or not model.strip() or "," in model:
        raise AgentSpecError(
            "agent 'policy' needs a model: policy:<model> (a shipped model's name or a path)"
        )
    try:
        params = policy_params(**args)
    except PolicyParameterError as e:
        raise AgentSpecError(str(e)) from None
    return POLICY, params, policy_label(model.strip(), params)


def _user_agent(text: str, table: dict | None) -> tuple[int, np.ndarray, str]:
    """A user agent from its text form (``path`` or ``path,name=value,...``) and, for a table,
    the table's other keys (``timeout_s``, ``params``)."""
    from agents.user import P_TIMEOUT, UserAgentError, resolve, user_label, user_spec

    path, user_params = user_spec(text)
    timeout = user_params.pop("timeout_s", None)
    if table is not None:
        if user_params:
            raise UserAgentError(
                f"user agent {text!r}: give a table's parameters as params = {{...}}, not in kind"
            )
        table = dict(table)
        timeout = table.pop("timeout_s", None)
        user_params = table.pop("params", {})
        if table:
            raise UserAgentError(
                f"user agent {path!r}: unknown key {sorted(table)[0]!r} (keys: kind, params, "
                "timeout_s)"
            )
        if not isinstance(user_params, dict):
            raise UserAgentError(
                f"user agent {path!r}: params must be a table such as {{ temperature = 0.5 }}, "
                f"got {user_params!r}"
            )
    kind, params = resolve(path, timeout, user_params)
    if kind != PYTHON:  # a kernel's values are float64: 1 and 1.0 are the same agent
        user_params = {k: float(v) for k, v in user_params.items()}
    return kind, params, user_label(path, user_params, params[P_TIMEOUT])


def parse_agent(spec: str | dict) -> tuple[int, np.ndarray, str]:
    """``(kind, params, label)`` for an agent specification; :class:`AgentSpecError` if invalid.

    A table may give the agent another ``label`` (``{kind = "heuristic", label = "heuristic-b"}``):
    a copy of an agent that results and ratings keep apart from the original."""
    if isinstance(spec, dict) and "label" in spec:
        spec = dict(spec)
        label = spec.pop("label")
        from agents.user import is_user_path

        if isinstance(spec.get("kind"), str) and is_user_path(spec["kind"]):
            # the workers load a user agent from its label (agents.user.user_agents_of)
            raise AgentSpecError(
                f"user agent {spec['kind']!r}: takes no label (its label is its module path and "
                "parameters; agents with other parameters get other labels)"
            )
        if not isinstance(label, str) or not label.strip() or label != label.strip():
            raise AgentSpecError(
                "an agent's label must be a non-empty string without surrounding spaces, "
                f"got {label!r}"
            )
        kind, params, _ = _parse_agent(spec if len(spec) > 1 else spec.get("kind"))
        return kind, params, label
    return _parse_agent(spec)


def _parse_agent(spec: str | dict) -> tuple[int, np.ndarray, str]:
    from agents.mcts import mcts_label, mcts_params

    known = ", ".join(sorted(AGENT_KINDS))
    if (isinstance(spec, dict) and spec.get("kind") == "policy") or (
        isinstance(spec, str) and spec.strip().partition(":")[0] == "policy"
    ):
        return _policy_agent(spec)
    if isinstance(spec, dict):
        args = dict(spec)
        name = args.pop("kind", None)
    elif isinstance(spec, str):
        name, _, arg = spec.strip().partition(":")
        if arg and name in AGENT_KINDS and AGENT_KINDS[name] != MCTS:
            raise AgentSpecError(f"agent {name!r} takes no parameters, got {spec!r}")
        args = mcts_args(arg) if arg and name in AGENT_KINDS else {}
    else:
        raise AgentSpecError(f"an agent is a string such as 'random' or 'mcts:1000', got {spec!r}")
    if name not in AGENT_KINDS:
        full = spec.strip() if isinstance(spec, str) else str(name)
        from agents.user import UserAgentError, is_user_path

        if isinstance(name, str) and is_user_path(full):
            try:
                return _user_agent(full, args if isinstance(spec, dict) else None)
            except UserAgentError as e:
                raise AgentSpecError(str(e)) from None
        raise AgentSpecError(
            f"unknown agent {name!r} (known: {known}, or a module path such as "
            f"'mypkg.agents:greedy')"
        )
    kind = AGENT_KINDS[name]
    if kind != MCTS:
        if args:
            raise AgentSpecError(
                f"agent {name!r} takes no parameters (got {', '.join(map(str, args))})"
            )
        return kind, np.zeros(N_AGENT_PARAMS, np.float64), name
    from agents.mcts import PARAMETERS as allowed

    unknown = sorted(set(args) - set(allowed))
    if unknown:
        raise AgentSpecError(
            f"agent 'mcts' has no parameter {unknown[0]!r} (parameters: {', '.join(allowed)})"
        )
    try:
        params = mcts_params(**args)
    except ValueError as e:
        raise AgentSpecError(str(e)) from None
    return kind, params, mcts_label(params, args.get("net"))
