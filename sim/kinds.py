"""Kinds of decision: ``GameSpec.decision_kind`` names the decision a state asks of its mover
with a short name taken from the engine's own constants (Eternal Dynasty's "action", "gain",
"discard" ... from its task kinds), for diagnostics by kind (``dynasty bench
search_by_decision``). A Python function of the state, never on the hot path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def constant_names(module: Any, prefix: str) -> dict[int, str]:
    """``{value: name}`` of a module's integer constants ``prefix + NAME``, the name lowercased
    without the prefix."""
    return {
        int(v): k[len(prefix) :].lower()
        for k, v in vars(module).items()
        if k.startswith(prefix) and isinstance(v, int) and not isinstance(v, bool)
    }


def word_kind(module: Any, prefix: str, word: int) -> Callable[[np.ndarray], str]:
    """The ``decision_kind`` of a game whose state word ``word`` holds one of ``module``'s
    ``prefix`` constants (a decision word or a phase)."""
    names = constant_names(module, prefix)

    def decision_kind(s: np.ndarray) -> str:
        return names[int(s[word])]

    return decision_kind
