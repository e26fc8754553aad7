"""The one compile-cache policy of the project.

numba's on-disk cache is invalidated only by changes to the file that defines a kernel,
but our kernels fold constants from other modules (state layouts, agent kinds).  So the
cache folder is keyed by a hash of every Python source under ``sim/``, ``agents/``, ``experiments/`` and
``tests/``: any edit there starts a fresh folder, and a stale kernel can never be loaded.

The base folder is ``$NUMBA_CACHE_DIR`` if set, else ``.numba_cache`` at the repository
root (git-ignored; ``make clean-cache`` removes it).  ``NUMBA_DISABLE_JIT=1`` still works
for debugging.  This module must run before any ``@njit(cache=True)`` is decorated,
which ``sim/__init__`` guarantees for everything that imports ``sim``.
"""

import hashlib
import os
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parent.parent
HASHED = ("sim", "agents", "experiments", "tests")


def source_hash() -> str:
    h = hashlib.sha1()
    for folder in HASHED:
        base = ROOT / folder
        if not base.is_dir():
            continue
        for f in sorted(base.rglob("*.py")):
            h.update(str(f.relative_to(ROOT)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


def configure() -> Path:
    base = Path(os.environ.get("NUMBA_CACHE_DIR") or ROOT / ".numba_cache")
    folder = base / source_hash()
    numba.config.CACHE_DIR = str(folder)
    return folder


CACHE_FOLDER = configure()
