"""The one compile-cache policy of the project.

numba's on-disk cache is invalidated only by changes to the file that defines a kernel,
but our kernels fold constants from other modules (a game's state layout, the contract
in ``sim/core.py``).  So each kernel is cached in a folder keyed by a hash of the
sources it can depend on:

    sim/<game>/...      sim/*.py (the contract) + that game's package (board drawings
                        excepted: no kernel imports them)
    sim/*.py            sim/*.py
    agents/...          sim/*.py + agents/
    anything else       sim/ + agents/ + experiments/ + tests/  (tests' own kernels)

An edit to one game recompiles that game only; an edit to the contract recompiles all.
A stale kernel can never be loaded.

The base folder is ``$NUMBA_CACHE_DIR`` if set, else ``.numba_cache`` at the repository
root (git-ignored; ``make clean-cache`` removes it).  ``NUMBA_DISABLE_JIT=1`` still works
for debugging.  This module must run before any ``@njit(cache=True)`` is compiled, which
``sim/__init__`` guarantees for everything that imports ``sim``.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

import numba
from numba.core.caching import CacheImpl, UserProvidedCacheLocator

ROOT = Path(__file__).resolve().parent.parent
BASE = Path(os.environ.get("NUMBA_CACHE_DIR") or ROOT / ".numba_cache")
EVERYTHING = ("sim", "agents", "experiments", "tests")


@cache
def _hash_files(files: tuple[Path, ...]) -> str:
    h = hashlib.sha1()
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


# Board drawings (sim/board.py, sim/<game>/board.py) are for the viewer only; no kernel imports
# them, so they are left out of the hashed sources and a drawing change recompiles nothing.
DRAWING = "board.py"


def _py(folder: Path, recursive: bool = True) -> list[Path]:
    if not folder.is_dir():
        return []
    found = folder.rglob("*.py") if recursive else folder.glob("*.py")
    return sorted(f for f in found if f.name != DRAWING)


def dependency_group(py_file: str | Path) -> tuple[str, tuple[Path, ...]]:
    """The name and the source files of the cache group of a kernel defined in ``py_file``."""
    path = Path(py_file).resolve()
    rel = path.relative_to(ROOT).parts
    contract = _py(ROOT / "sim", recursive=False)
    if rel[0] == "sim" and len(rel) > 2:
        return f"sim.{rel[1]}", tuple(contract + _py(ROOT / "sim" / rel[1]))
    if rel[0] == "sim":
        return "sim", tuple(contract)
    if rel[0] == "agents":
        return "agents", tuple(contract + _py(ROOT / "agents"))
    return "all", tuple(f for d in EVERYTHING for f in _py(ROOT / d))


def forget_hashes() -> None:
    """Hash the sources afresh at the next look-up (they are hashed once per process)."""
    _hash_files.cache_clear()


def cache_folder(py_file: str | Path) -> str:
    """The name of the cache folder (under BASE) of the kernels defined in ``py_file``."""
    name, files = dependency_group(py_file)
    return f"{name}-{_hash_files(files)}"


class ProjectCacheLocator(UserProvidedCacheLocator):
    """Caches a project kernel under BASE/<group>-<hash of the group's sources>/."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = str(BASE / cache_folder(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            Path(py_file).resolve().relative_to(ROOT)
        except ValueError:
            return None  # not ours: numba's own locators decide
        return super().from_function(py_func, py_file)


def configure() -> None:
    if ProjectCacheLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, ProjectCacheLocator)
    if not numba.config.CACHE_DIR:  # UserProvidedCacheLocator only acts when this is set
        numba.config.CACHE_DIR = str(BASE)


configure()
