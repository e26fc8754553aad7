"""A game's invariants, shared by its property tests, ``dynasty fuzz`` and replays.

A game declares them on its spec (``GameSpec.invariants``) as :class:`Invariants`, usually
built from its ``invariants.py`` by :func:`invariants_from`, which reads::

    check(state, before, action, mask, memo, stats) -> int64     # CHECK_SIG; 0 = fine
    MEMO_SIZE    # int64 words the checks carry from one decision to the next
    STATS_SIZE   # int64 counters over a run (what property tests assert is reached)
    ERRORS       # ERRORS[code] names error code ``code`` (ERRORS[0] == "")

``check`` is called on the start state (``action = -1``, ``before`` a copy of it), then
after every decision (``before`` = the state before it, ``action`` = the decision taken);
``mask`` holds the legal actions of ``state`` (all False once the game is over).  ``memo``
is zeroed by the caller before each game; ``stats`` lives over a whole run.  The checks are
independent of the engine's own bookkeeping where the property tests made them so (they
recount from where things lie).  A game without invariants gets :func:`no_check`.

Generic invariants every game keeps are checked by the fuzz driver itself (codes from
``G_FIRST`` on, names in :data:`GENERIC_ERRORS`).
"""

from __future__ import annotations

from collections import namedtuple
from types import ModuleType

import numba as nb
import numpy as np

CHECK_SIG = nb.types.int64(
    nb.types.int32[::1],
    nb.types.int32[::1],
    nb.types.int64,
    nb.types.boolean[::1],
    nb.types.int64[::1],
    nb.types.int64[::1],
)
CHECK_T = nb.types.FunctionType(CHECK_SIG)

# Generic error codes (the driver's): far above any game's own codes.
G_FIRST = 1000
G_NO_LEGAL, G_MASK_COUNT, G_TOO_LONG, G_ILLEGAL, G_SHARES, G_HEADER, G_SCORES = range(
    G_FIRST, G_FIRST + 7
)
GENERIC_ERRORS = {
    G_NO_LEGAL: "no legal action before the end of the game",
    G_MASK_COUNT: "legal_mask returned a count other than the mask's",
    G_TOO_LONG: "more decisions than the game's max_decisions",
    G_ILLEGAL: "an agent chose an action that is not legal",
    G_SHARES: "win shares out of [0, 1] or not summing to 1 (0 only for can_all_lose games)",
    G_HEADER: (
        "the header's seat to move disagrees with current_player / is_terminal, or is out of range"
    ),
    G_SCORES: "a final score that is not a finite number",
}

Invariants = namedtuple("Invariants", "check memo_size stats_size errors")


@nb.njit(cache=True)  # compiled for CHECK_SIG when first passed (not at import)
def no_check(state, before, action, mask, memo, stats):
    """The check of a game without invariants: nothing beyond the generic invariants."""
    return np.int64(0)


def invariants_from(module: ModuleType) -> Invariants:
    """The :class:`Invariants` a game's ``invariants.py`` defines (see the module docstring)."""
    return Invariants(
        module.check,
        max(1, module.MEMO_SIZE),
        max(1, module.STATS_SIZE),
        tuple(module.ERRORS),
    )


def invariants_of(spec) -> Invariants:
    """The invariants the game of ``spec`` declares, or :func:`no_check`'s."""
    return spec.invariants or Invariants(no_check, 1, 1, ("",))


def error_name(inv: Invariants, code: int) -> str:
    """A readable name of error ``code`` (a game's own, or a generic one)."""
    if code in GENERIC_ERRORS:
        return GENERIC_ERRORS[code]
    if 0 < code < len(inv.errors):
        return inv.errors[code]
    return f"error {code}"
