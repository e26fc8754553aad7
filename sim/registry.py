"""Finds the games: every package under ``sim/`` that exports ``SPEC`` is a game.

There is no central list: adding a folder ``sim/<game>/`` whose ``__init__`` defines
``SPEC = GameSpec(...)`` registers it under ``SPEC.name`` (which must equal the folder name).
Folders whose name starts with ``_`` are skipped (a game in progress lives there until it
passes the contract tests).  Game folders outside the project are found too when their
parent folders are listed in ``DYNASTY_GAMES_PATH`` (separated like ``PATH``).

A game is registered when it is first asked for (:func:`get_game`): its package is imported
and its spec checked (:func:`check_spec`); a missing or malformed piece of the contract is a
:class:`GameContractError` naming the game and the piece.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from functools import cache
from pathlib import Path

import numpy as np

from sim.core import GameSpec, Kernels, Option

GAMES_PATH_ENV = "DYNASTY_GAMES_PATH"


class UnknownGameError(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return self.args[0]


class GameContractError(TypeError):
    """A game package whose spec lacks a piece of the contract, or declares one wrongly."""


@cache
def _discover() -> dict[str, str]:
    """Game name -> the package to import: ``sim.<name>`` for the project's games, ``<name>``
    for a folder found through ``DYNASTY_GAMES_PATH`` (whose folders join the end of
    ``sys.path``, so they shadow no installed package)."""
    found = {}
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        # sim/_name/: work in progress, not registered
        if info.ispkg and not info.name.startswith("_"):
            found[info.name] = f"sim.{info.name}"
    for folder in filter(None, os.environ.get(GAMES_PATH_ENV, "").split(os.pathsep)):
        folder = os.path.abspath(folder)
        if folder not in sys.path:
            sys.path.append(folder)
        for info in pkgutil.iter_modules([folder]):
            if info.ispkg and not info.name.startswith("_") and info.name not in found:
                found[info.name] = info.name
    return found


def game_names() -> list[str]:
    """Names of every registered game, sorted."""
    return sorted(_discover())


@cache
def get_game(name: str) -> GameSpec:
    """The checked :class:`GameSpec` of game ``name``; a clear error naming the known games if
    there is no such game, or naming the missing piece if its spec is incomplete."""
    modules = _discover()
    if name not in modules:
        raise UnknownGameError(f"unknown game {name!r} (known: {', '.join(sorted(modules))})")
    try:
        module = importlib.import_module(modules[name])
    except (TypeError, AttributeError, ImportError) as e:
        raise GameContractError(f"game {name}: its package does not load: {e}") from e
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, GameSpec):
        raise GameContractError(
            f"game {name}: {modules[name]} does not export SPEC = GameSpec(...)"
        )
    check_spec(spec, name)
    return spec


def _kernel_problem(name: str, fn) -> str | None:
    if not hasattr(fn, "py_func"):  # a numba dispatcher (@njit / sim.core.kernel)
        return f"kernel {name!r} is not a numba kernel (decorate it with @sim.core.kernel)"
    return None


def check_spec(spec: GameSpec, name: str) -> None:
    """Raise :class:`GameContractError` naming the first piece of the contract ``spec`` lacks or
    declares wrongly (the package folder is ``name``)."""

    def fail(piece: str, msg: str) -> GameContractError:
        return GameContractError(f"game {name}: {piece}: {msg}")

    if spec.name != name:
        raise fail("name", f"{spec.name!r} differs from its folder name {name!r}")
    if not isinstance(spec.title, str) or not spec.title:
        raise fail("title", "expected a non-empty string")
    for piece in ("min_players", "max_players", "num_actions", "max_decisions"):
        v = getattr(spec, piece)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise fail(piece, f"expected a positive integer, got {v!r}")
    if spec.min_players > spec.max_players:
        raise fail("max_players", f"{spec.max_players} is below min_players {spec.min_players}")
    if not isinstance(spec.kernels, Kernels):
        raise fail("kernels", "expected a sim.core.Kernels (see sim.core.kernels_from)")
    for kname, fn in zip(Kernels._fields, spec.kernels):
        problem = _kernel_problem(kname, fn)
        if problem:
            raise fail("kernels", problem)
    if not all(isinstance(o, Option) for o in spec.options):
        raise fail("options", "expected a tuple of sim.core.Option")
    if not all(isinstance(f, str) for f in spec.feature_names):
        raise fail("feature_names", "expected a tuple of strings")
    for piece in (
        "action_name",
        "render",
        "chance_outcomes",
        "state_from_chance",
        "chance_problem",
    ):
        if not callable(getattr(spec, piece)):
            raise fail(piece, "expected a function")
    _check_optional(spec, fail)


def _check_optional(spec: GameSpec, fail) -> None:
    from sim.board import Board
    from sim.components import Components
    from sim.invariants import Invariants
    from sim.observe import Observation

    for piece, kind in (
        ("components", Components),
        ("invariants", Invariants),
        ("observation", Observation),
        ("board", Board),
    ):
        v = getattr(spec, piece)
        if v is not None and not isinstance(v, kind):
            raise fail(piece, f"expected a {kind.__module__}.{kind.__name__} or None")
    if spec.decision_kind is not None and not callable(spec.decision_kind):
        raise fail("decision_kind", "expected a function of the state or None")
    if spec.invariants is not None:
        problem = _kernel_problem("invariants.check", spec.invariants.check)
        if problem:
            raise fail("invariants", problem)
    for title, features in spec.report_groups:
        unknown = [f for f in features if f not in spec.feature_names]
        if unknown:
            raise fail("report_groups", f"{title!r} names unknown feature {unknown[0]!r}")
