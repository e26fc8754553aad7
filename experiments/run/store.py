"""The on-disk results folder: Parquet part files, manifest, replays; atomic writes; resume.

Layout of a results folder ``OUT``::

    OUT/manifest.json                       config, seeds, versions, commit, sessions and timings
    OUT/config.toml                         the config file as given
    OUT/data/game=<game>/part-<start>-<stop>.parquet
                                            rows of games start .. stop-1 (9-digit, zero-padded)
    OUT/replays/game-<index>.json           replays of a sample of games (optional)
    OUT/report/                             written by ``dynasty report``

A part file appears under its final name only once it is complete (written to a hidden
temporary name, flushed to disk, then renamed), so the set of games done is exactly the union
of the ranges in the part names; a resumed run plays the rest and nothing else.

``OUT`` is a local path, or the URI of any filesystem pyarrow knows (``s3://bucket/prefix``,
``gs://...``, ``hdfs://...``, ``file:///shared/path``): :func:`location` turns either into a
path object with the few methods this module uses (:class:`FsPath` for URIs), so the same code
writes both.  On an object store a part is written to its temporary name and moved (the store
shows the object only once it is whole), the folder lock is not available across machines
(one run per folder at a time is then the user's to keep), and workers write their own part
files (see experiments/run/runner.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds
import pyarrow.fs as pafs

from experiments.run.schema import FORMAT, VERSION

PART_RE = re.compile(r"^part-(\d{9})-(\d{9})\.parquet$")
TMP_PREFIX = ".tmp-"


class ResultsError(ValueError):
    """A results folder that cannot be used (another experiment's, or not a results folder)."""


def is_uri(where) -> bool:
    return isinstance(where, FsPath) or "://" in str(where)


class FsPath:
    """A path on a pyarrow filesystem, with the part of ``pathlib.Path``'s
    interface the store uses."""

    def __init__(self, uri: str, fs: pafs.FileSystem | None = None, path: str | None = None):
        if fs is None:
            try:
                fs, path = pafs.FileSystem.from_uri(uri)
            except (ValueError, OSError) as e:
                raise ResultsError(
                    f"{uri}: not a results location pyarrow can open ({e})"
                ) from None
        self.uri, self.fs, self.path = uri.rstrip("/"), fs, path.rstrip("/")

    def __truediv__(self, part: str) -> FsPath:
        return FsPath(f"{self.uri}/{part}", self.fs, f"{self.path}/{part}")

    def __str__(self) -> str:
        return self.uri

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return isinstance(other, FsPath) and other.uri == self.uri

    def __hash__(self) -> int:
        return hash(self.uri)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def parent(self) -> FsPath:
        return FsPath(self.uri.rsplit("/", 1)[0], self.fs, self.path.rsplit("/", 1)[0])

    def _type(self):
        return self.fs.get_file_info(self.path).type

    def exists(self) -> bool:
        return self._type() != pafs.FileType.NotFound

    def is_dir(self) -> bool:
        return self._type() == pafs.FileType.Directory

    def is_file(self) -> bool:
        return self._type() == pafs.FileType.File

    def iterdir(self):
        for info in self.fs.get_file_info(pafs.FileSelector(self.path, allow_not_found=True)):
            yield self / info.base_name

    def mkdir(self, parents: bool = True, exist_ok: bool = True) -> None:
        self.fs.create_dir(self.path, recursive=True)

    def read_bytes(self) -> bytes:
        with self.fs.open_input_stream(self.path) as f:
            return f.read()

    def read_text(self) -> str:
        return self.read_bytes().decode()

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self.fs.delete_file(self.path)
        except (FileNotFoundError, OSError):
            if not missing_ok:
                raise


def location(where) -> Path | FsPath:
    """A results location: a local ``Path``, or an :class:`FsPath` for a filesystem URI."""
    if isinstance(where, (Path, FsPath)):
        return where
    return FsPath(str(where)) if is_uri(where) else Path(where)


def data_dir(out, game: str) -> Path | FsPath:
    return location(out) / "data" / f"game={game}"


def part_name(start: int, stop: int) -> str:
    return f"part-{start:09d}-{stop:09d}.parquet"


def atomic_write(path: Path | FsPath, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see either nothing or the whole file (a failed
    write, e.g. a full disk, leaves nothing under ``path`` and removes its temporary file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(path, FsPath):
        publish(write_hidden(path, data), path)
        return
    tmp = path.parent / f"{TMP_PREFIX}{os.getpid()}-{path.name}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_hidden(path: FsPath, data: bytes) -> FsPath:
    """Write ``data`` under a temporary name beside ``path``
    (readers ignore it); return that name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f"{TMP_PREFIX}{os.getpid()}-{path.name}"
    with path.fs.open_output_stream(tmp.path) as f:
        f.write(data)
    return tmp


def publish(tmp: FsPath, path: FsPath) -> None:
    """Give a file written by :func:`write_hidden` its final name (a rename,
    or an object store's copy)."""
    path.fs.move(tmp.path, path.path)


def remove_partial_files(out: Path, game: str) -> None:
    """Delete temporary files a stopped run left behind (only while holding the folder's lock)."""
    d = data_dir(out, game)
    if d.is_dir():
        for p in d.iterdir():
            if p.name.startswith(TMP_PREFIX):
                p.unlink(missing_ok=True)


def lock(out: Path):
    """An exclusive lock on a results folder, held until the returned file is closed
    (or the process dies)."""
    import fcntl

    out = location(out)
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(out, FsPath):  # no lock across machines; see the module's docstring
        return open(os.devnull, "w")
    f = open(out / ".lock", "w")  # noqa: SIM115  (returned open: the lock lasts until it is closed)
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise ResultsError(f"{out}: another `dynasty run` is writing to this folder") from None
    return f


def done_ranges(out: Path, game: str) -> list[tuple[int, int]]:
    """Game ranges already written, from the part file names."""
    d = data_dir(out, game)
    if not d.is_dir():
        return []
    ranges = []
    for p in d.iterdir():
        m = PART_RE.match(p.name)
        if m:
            ranges.append((int(m.group(1)), int(m.group(2))))
    ranges.sort()
    for (a0, b0), (a1, b1) in zip(ranges, ranges[1:]):
        if a1 < b0:
            raise ResultsError(
                f"{d}: part files overlap ({part_name(a0, b0)} and {part_name(a1, b1)})"
            )
    return ranges


DAMAGED_PREFIX = ".damaged-"


def part_problem(path, players: int) -> str | None:
    """Why the part file at ``path`` cannot be used (not Parquet, truncated, the wrong number of
    rows for its games), or None.  Reads only the file's footer."""
    import pyarrow.parquet as pq

    a, b = (int(x) for x in PART_RE.match(path.name).groups())
    try:
        if isinstance(path, FsPath):
            with path.fs.open_input_file(path.path) as f:
                rows = pq.read_metadata(f).num_rows
        else:
            rows = pq.read_metadata(path).num_rows
    except Exception as e:  # pyarrow says ArrowInvalid / OSError for a truncated or foreign file
        first = str(e).strip().splitlines()[0][:120] if str(e).strip() else type(e).__name__
        return f"not a readable Parquet file ({first})"
    if rows != (b - a) * players:
        return f"holds {rows} rows, not the {(b - a) * players} of its {b - a} games"
    return None


def damaged_parts(out, game: str, players: int) -> list[tuple[Path | FsPath, str]]:
    """(part, problem) of every part file of ``out`` that cannot be used."""
    d = data_dir(out, game)
    if not d.is_dir():
        return []
    found = []
    for p in d.iterdir():
        if PART_RE.match(p.name):
            problem = part_problem(p, players)
            if problem:
                found.append((p, problem))
    return sorted(found, key=lambda x: str(x[0]))


def set_aside(part) -> Path | FsPath:
    """Rename a damaged part to a hidden name (kept for inspection, never read as results)."""
    to = part.parent / f"{DAMAGED_PREFIX}{part.name}"
    if isinstance(part, FsPath):
        part.fs.move(part.path, to.path)
    else:
        os.replace(part, to)
    return to


def check_parts(out, game: str, players: int, what_to_do: str) -> None:
    """Raise a ResultsError naming the first damaged part of ``out`` (and how many there are)."""
    bad = damaged_parts(out, game, players)
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise ResultsError(f"{bad[0][0]}: damaged part file: {bad[0][1]}{more}; {what_to_do}")


def versions() -> dict[str, str]:
    import platform

    out = {"python": platform.python_version()}
    for pkg in ("dynasty-lab", "numpy", "numba", "ray", "pyarrow", "pandas", "scipy", "matplotlib"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def git_commit() -> dict[str, Any]:
    """The commit of the code that ran (and whether the working tree had changes)."""
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        ).stdout.strip()
        dirty = (
            subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            != ""
        )
        return {"commit": commit or None, "dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def read_manifest(out: Path) -> dict[str, Any] | None:
    p = location(out) / "manifest.json"
    if not p.exists():
        return None
    try:
        m = json.loads(p.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultsError(
            f"{p}: unreadable manifest ({e}); restore it, or move the folder aside and run "
            "the experiment again into a new output folder"
        ) from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise ResultsError(f"{p}: not a {FORMAT} manifest")
    version = m.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise ResultsError(
            f"{p}: written by a newer dynasty-lab (results format version {version!r}; this one "
            f"reads up to {VERSION}): upgrade dynasty-lab to use this folder"
        )
    return m


def write_json(path, data: Any) -> None:
    """Write a manifest (``manifest.json``, ``study.json``,
    ``tournament.json``) atomically, indented."""
    atomic_write(path, (json.dumps(data, indent=1) + "\n").encode())


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    write_json(location(out) / "manifest.json", manifest)


def new_manifest(cfg) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "config": cfg.to_dict(),
        "identity": cfg.identity(),
        "component_data": component_digest(cfg),
        "seed_scheme": {
            "seed": "game_seed(master_seed, deal)",
            "agent_seed": "game_seed(hash64(master_seed, AGENT_STREAM), game_index)",
            "seat_rng": "hash64(agent_seed, seat)",
        },
        "versions": versions(),
        "git": git_commit(),
        "sessions": [],
        "complete": False,
    }


def component_digest(cfg) -> str | None:
    """The digest of the component data ``cfg``'s game plays with (``Components.digest``, the
    data files' values before the config's changes), None for a game without data files."""
    comp = cfg.spec.components
    return comp.digest if comp is not None else None


def open_results(out: Path, cfg) -> dict[str, Any]:
    """The manifest of ``out`` for ``cfg``: a new one, or the existing one if it is the same
    experiment played with the same component data (a folder whose manifest predates the
    ``component_data`` field is accepted, and the field recorded from then on)."""
    m = read_manifest(out)
    if m is None:
        if data_dir(out, cfg.game).exists() and any(data_dir(out, cfg.game).iterdir()):
            raise ResultsError(
                f"{out}: holds part files but no manifest.json; use another output folder"
            )
        return new_manifest(cfg)
    if m.get("identity") != json.loads(json.dumps(cfg.identity())):
        theirs, ours = m.get("identity", {}), json.loads(json.dumps(cfg.identity()))
        diff = next((k for k in ours if theirs.get(k) != ours[k]), "?")
        raise ResultsError(
            f"{out}: holds results of a different experiment ({diff}: {theirs.get(diff)!r} there, "
            f"{ours.get(diff)!r} in the config); choose another output folder or delete it"
        )
    digest = component_digest(cfg)
    if "component_data" in m and m["component_data"] != digest:
        from sim.components import data_folder

        raise ResultsError(
            f"{out}: holds games played with other {cfg.game} component data (digest "
            f"{m['component_data']} there, {digest} in {data_folder(cfg.spec)} now); restore "
            "those data files or use another output folder"
        )
    m["component_data"] = digest
    m["config"] = cfg.to_dict()
    return m


def open_plan(
    out, manifest_name: str, fmt: str, identity: dict[str, Any], source: str, kind: str
) -> dict[str, Any] | None:
    """The manifest ``out/manifest_name`` of a study or tournament folder if ``identity`` made it,
    None for a new folder; a ResultsError (one line) for an unreadable manifest, another config's
    folder, or a non-empty folder without one.  ``kind`` names the planner in messages
    ("study", "tournament")."""
    out = location(out)
    p = out / manifest_name
    ident = json.loads(json.dumps(identity))
    if p.exists():
        try:
            m = json.loads(p.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ResultsError(f"{p}: unreadable {kind} manifest ({e})") from None
        if not isinstance(m, dict) or m.get("format") != fmt:
            raise ResultsError(f"{p}: not a {fmt} manifest")
        if m.get("identity") != ident:
            theirs = m.get("identity", {})
            diff = next((k for k in ident if theirs.get(k) != ident[k]), "?")
            raise ResultsError(
                f"{source}: {diff}: the {kind} folder {out} was made by another {kind} config "
                f"({diff}: {theirs.get(diff)!r} there, {ident.get(diff)!r} in the config); "
                "choose another output or delete the folder"
            )
        return m
    if out.exists() and any(out.iterdir()):
        raise ResultsError(
            f"{source}: output: {out} is not empty and holds "
            f"no {manifest_name}; choose another output"
        )
    return None


def open_dataset(out) -> ds.Dataset:
    """The Parquet dataset of a results folder (the ``game`` column comes from the folder name)."""
    d = location(out) / "data"
    if not d.is_dir():
        raise ResultsError(f"{out}: no results here (expected {d})")
    if isinstance(d, FsPath):
        return ds.dataset(
            d.path,
            filesystem=d.fs,
            format="parquet",
            partitioning="hive",
            ignore_prefixes=[".", "_"],
        )
    return ds.dataset(d, format="parquet", partitioning="hive", ignore_prefixes=[".", "_"])
