"""Finds the games: every package under ``sim/`` that exports ``SPEC`` is a game.

There is no central list: adding a folder ``sim/<game>/`` whose ``__init__`` defines
``SPEC = GameSpec(...)`` registers it under ``SPEC.name`` (which must equal the folder name).
Folders whose name starts with ``_`` are skipped (a game in progress lives there until it
passes the contract tests).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from sim.core import GameSpec


class UnknownGameError(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return self.args[0]


@lru_cache(maxsize=None)
def _discover() -> dict[str, str]:
    import sim

    found = {}
    for info in pkgutil.iter_modules(sim.__path__):
        if info.ispkg and not info.name.startswith(
            "_"
        ):  # sim/_name/: work in progress, not registered
            found[info.name] = f"sim.{info.name}"
    return found


def game_names() -> list[str]:
    """Names of every registered game, sorted."""
    return sorted(_discover())


@lru_cache(maxsize=None)
def get_game(name: str) -> GameSpec:
    """The :class:`GameSpec` of game ``name``; a clear error naming the known games otherwise."""
    modules = _discover()
    if name not in modules:
        raise UnknownGameError(f"unknown game {name!r} (known: {', '.join(sorted(modules))})")
    spec = getattr(importlib.import_module(modules[name]), "SPEC", None)
    if not isinstance(spec, GameSpec) or spec.name != name:
        raise UnknownGameError(f"package sim.{name} does not export a GameSpec named {name!r}")
    return spec
