"""Kinds of decision: ``GameSpec.decision_kind`` names the decision a state asks of its mover
with a short name taken from the engine's own constants (Eternal Dynasty's "action", "gain",
"discard" ... from its task kinds), for diagnostics by kind (``dynasty bench
search_by_decision``). A Python function of the state, never on the hot path.
"""

from __future__ import annotations

from typing import Any


def constant_names(module: Any, prefix: str) -> dict[int, str]:
    """``{value: name}`` of a module's integer constants ``prefix + NAME``, the name lowercased
    without the prefix."""
    return {
        int(v): k[len(prefix) :].lower()
        for k, v in vars(module).items()
        if k.startswith(prefix) and isinstance(v, int) and not isinstance(v, bool)
    }
