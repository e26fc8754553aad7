"""``dynasty run``: play an experiment's games as Ray tasks and write them to Parquet.

The driver plans the games still missing from the results folder into chunks, starts one
long-lived :class:`ChunkPlayer` actor per worker (each compiles the game's kernels once, then
plays chunk after chunk inside one compiled call and encodes its rows as Parquet), keeps at
most ``IN_FLIGHT`` chunks queued per actor with ``ray.wait``, and writes each finished chunk as
an atomic part file.  Results do not depend on the number of workers, the chunk size or the
cluster: a game's seeds and seats come from its index alone (:mod:`experiments.run.plan`).

Ray is started locally (dashboard off) and stopped again unless an address is given
(``--address`` or ``RAY_ADDRESS``), in which case the run joins that cluster.  A Ray session
already open in the calling process (tests, notebooks) is used as it is.  A local Ray listens
on loopback only (127.0.0.1), so a run is never reachable from the network.  A local Ray starts
its workers at the driver's niceness (Ray's own default, 15, would leave them a few percent of
a core next to any ordinary process), or at ``niceness`` when the run asks for it.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from agents.arena import play_games
from agents.model import resolve as resolve_model
from agents.table import N_AGENT_PARAMS, PYTHON
from agents.trace import TRACE_COLUMNS
from experiments.run import cluster, store
from experiments.run.plan import Plan, auto_chunk_size, chunk_ranges, missing_ranges
from experiments.run.schema import ResultsTable
from sim.registry import get_game

IN_FLIGHT = 2  # chunks queued per actor: one playing, one waiting, so no actor idles
COMPRESSION = "zstd"


class RunError(RuntimeError):
    """A run that could not finish; the message says what to do (usually: run it again)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def job_of(cfg) -> dict[str, Any]:
    """What a worker needs to play any game of the run (plain data, cheap to ship)."""
    plan = Plan.from_config(cfg)
    return {
        "game": cfg.game,
        "players": cfg.players,
        "options": dict(cfg.options),
        "games": cfg.games,
        "seed": cfg.seed,
        "rotations": [list(r) for r in plan.rotations],
        "agent_labels": [a.label for a in cfg.agents],
        "agent_kinds": [a.kind for a in cfg.agents],
        "agent_params": [list(a.params) for a in cfg.agents],
        **({"components": dict(cfg.components)} if getattr(cfg, "components", None) else {}),
        "score_trace": bool(getattr(cfg, "score_trace", False)),
        # a Python agent's replay sample is recorded as it is played (ChunkContext.play)
        **(
            {"record": replay_indices(cfg.games, cfg.replays)}
            if cfg.replays and any(a.kind == PYTHON for a in cfg.agents)
            else {}
        ),
        # learned agents' model files, by absolute path (a worker may start in another folder)
        **(
            {"model_paths": {m: str(resolve_model(m).resolve()) for m in cfg.models}}
            if getattr(cfg, "models", None)
            else {}
        ),
        # results on a filesystem URI: each worker writes its own part files there
        **({"write_to": str(cfg.output)} if store.is_uri(cfg.output) else {}),
    }


class ChunkContext:
    """Plays ranges of a run's games in-process; the body of a worker (and of benchmarks)."""

    def __init__(self, job: dict[str, Any]):
        self.job = job
        self.spec = get_game(job["game"])
        self.players = int(job["players"])
        from sim.components import encode

        # the rule options' codes, then the game's component data (with a study's changed values)
        self.options = encode(self.spec, job["options"], job.get("components"))
        self.plan = Plan(
            int(job["games"]), self.players, int(job["seed"]), tuple(map(tuple, job["rotations"]))
        )
        self.kinds = np.asarray(job["agent_kinds"], np.int64)
        self.params = np.asarray(job["agent_params"], np.float64).reshape(
            len(self.kinds), N_AGENT_PARAMS
        )
        self.table = ResultsTable(
            self.spec, self.players, job["options"], job["agent_labels"], job.get("components")
        )
        from agents.user import user_agents_of

        self.user = user_agents_of(
            job["agent_labels"], job["agent_kinds"]
        )  # None unless the run has user agents
        self.record = frozenset(job.get("record", ()))  # games whose actions are kept as played
        from agents.model import run_nets

        # the learned agents' networks, each agent's index set in its parameter row
        self.params, self.nets = run_nets(
            self.spec,
            self.players,
            self.kinds,
            self.params,
            job["agent_labels"],
            job.get("model_paths"),
        )

    def play(self, start: int, stop: int) -> dict[str, np.ndarray]:
        """The arrays of games ``start .. stop-1`` (one compiled call); with ``replays``, the
        replays of the recorded games among them (``{game index: replay}``)."""
        chunk = self.plan.games_of(start, stop)
        record = {i - start: [] for i in sorted(self.record) if start <= i < stop}
        timing: dict[str, np.ndarray] = {}  # decisions and agent time per game and seat
        trace: dict[
            str, np.ndarray
        ] = {}  # the score trace per game (zeros unless the run keeps it)
        scores, wins, feats, lengths = play_games(
            self.spec,
            chunk["seed"],
            self.players,
            self.options,
            chunk["seat_agent"],
            self.kinds,
            self.params,
            agent_seeds=chunk["agent_seed"],
            user_agents=self.user,
            timing=timing,
            trace=trace if self.job.get("score_trace") else None,
            labels=self.job["agent_labels"],
            first_index=start,
            nets=self.nets,
            record=record or None,
        )
        if record:
            chunk["replays"] = {start + g: self.replay_of(start + g, a) for g, a in record.items()}
        if not trace:
            trace = {c: np.zeros(len(scores), np.int64) for c in TRACE_COLUMNS}
        chunk.update(scores=scores, wins=wins, feats=feats, lengths=lengths, **timing, **trace)
        return chunk

    def encode(self, chunk: dict[str, np.ndarray]) -> bytes:
        """The Parquet bytes of a chunk's rows."""
        sink = pa.BufferOutputStream()
        pq.write_table(self.table.fill(chunk), sink, compression=COMPRESSION)
        return sink.getvalue().to_pybytes()

    def replay_of(self, i: int, actions) -> dict[str, Any]:
        """The replay dict of game ``i`` from its actions as played."""
        from sim.game import Game

        g_arr = self.plan.games_of(i, i + 1)
        g = Game(self.spec.name, self.players, int(g_arr["seed"][0]), self.job["options"])
        for a in actions:
            g.apply(int(a))
        return self._with_experiment(g.to_replay(), i, g_arr)

    def _with_experiment(self, rep: dict[str, Any], i: int, g_arr) -> dict[str, Any]:
        rep["experiment"] = {
            "game_index": i,
            "deal": int(g_arr["deal"][0]),
            "rotation": int(g_arr["rotation"][0]),
            "agents": [self.job["agent_labels"][int(s)] for s in g_arr["seat_agent"][0]],
        }
        return rep

    def replay(self, i: int) -> dict[str, Any]:
        """Game ``i`` re-played decision by decision through the Python API, as a replay dict.

        With user agents the game is played again through the Python loop, its actions recorded
        (agents.user.play_python): a kernel takes the same decisions again, a Python agent when
        they depend on its view and its ``rng`` alone.  So a run with a Python agent records its
        replay sample as it plays instead (:meth:`play`); this is for the other games."""
        if self.user is not None:
            g_arr = self.plan.games_of(i, i + 1)
            record: dict[int, list[int]] = {0: []}
            play_games(
                self.spec,
                g_arr["seed"],
                self.players,
                self.options,
                g_arr["seat_agent"],
                self.kinds,
                self.params,
                agent_seeds=g_arr["agent_seed"],
                user_agents=self.user,
                labels=self.job["agent_labels"],
                first_index=i,
                nets=self.nets,
                record=record,
            )
            return self.replay_of(i, record[0])
        from agents.arena import kernels_of_run
        from agents.decision import choose_action
        from agents.net import hint_in
        from sim.core import hash64, rng_seed
        from sim.game import Game

        # only the kernels the run's agents call are compiled
        kernels = kernels_of_run(
            self.spec, self.kinds, nets=int(self.nets.obs_size) > 0, hint=hint_in(self.nets)
        )

        g_arr = self.plan.games_of(i, i + 1)
        g = Game(self.spec.name, self.players, int(g_arr["seed"][0]), self.job["options"])
        rngs = np.zeros((self.players, 2), np.int32)
        for p in range(self.players):
            rng_seed(rngs[p], 0, hash64(np.int64(g_arr["agent_seed"][0]), np.int64(p)))
        mask = np.zeros(self.spec.num_actions, np.bool_)
        seats = g_arr["seat_agent"][0]
        while not g.is_over:
            p = g.current_player
            a = int(seats[p])
            g.apply(
                int(
                    choose_action(
                        kernels,
                        g.state,
                        np.int64(self.kinds[a]),
                        self.params[a],
                        rngs[p],
                        mask,
                        self.nets,
                    )
                )
            )
        return self._with_experiment(g.to_replay(), i, g_arr)

    def play_encoded(
        self, start: int, stop: int
    ) -> tuple[int, int, bytes | str, dict[str, float], dict[int, dict[str, Any]]]:
        """The chunk's Parquet bytes, or where the worker wrote them under a
        hidden name (``write_to``); its timings; the replays of its recorded games."""
        t0 = time.perf_counter()
        chunk = self.play(start, stop)
        t1 = time.perf_counter()
        data = self.encode(chunk)
        t2 = time.perf_counter()
        if self.job.get("write_to"):
            # the driver alone renames it, so a stopped run publishes nothing late
            data = str(
                store.write_hidden(
                    store.data_dir(self.job["write_to"], self.spec.name)
                    / store.part_name(start, stop),
                    data,
                )
            )
        return (
            start,
            stop,
            data,
            {"play_s": t1 - t0, "encode_s": t2 - t1, "write_s": time.perf_counter() - t2},
            chunk.get("replays", {}),
        )


def warm_leaf_kernels(spec, players: int | None = None, options: np.ndarray | None = None) -> None:
    """Compile (or load from the on-disk cache) every kernel of a game in the contract's signatures
    (``sim.core.KERNEL_SIGNATURES``), the ones the entries call them with.

    Calling the kernels from Python instead would compile a second copy of those that take an
    ``A``-layout array (``heuristic``, ``determinize``, ``evaluate``, ``returns``, ``features``)
    for the C-contiguous arrays Python passes; and the others, compiled without their return
    type, would be filed in the disk cache under another key than the one an entry's function
    pointer looks up (with the return type), so every worker would compile them again.  With the
    full signature, as the entries' conversion compiles them, they load.  ``players`` and
    ``options`` are not needed.  A run does not call this: the driver plays one game through
    the arena before any worker starts, which compiles exactly the kernels the run calls.
    """
    from sim.core import KERNEL_SIGNATURES

    for kern, sig in zip(spec.kernels, KERNEL_SIGNATURES):
        if sig.args not in kern.overloads:  # (the contract's defaults are compiled already)
            kern.compile(sig)  # the full signature (return type included), as a pointer does


_ACTOR_CLASS = None
# Warm actors of the current Ray session, kept between runs in one process (tests, notebooks):
# {"key": (Ray job id, game), "actors": [...]}.  A worker compiles once per game, not per run.
_POOL: dict[str, Any] = {"key": None, "actors": []}
_JOINED: dict[str, Any] = {"nodes": []}  # the joined cluster's nodes (cluster.check_nodes)


def _actor_class():
    global _ACTOR_CLASS
    if _ACTOR_CLASS is not None:
        return _ACTOR_CLASS
    import ray

    # no restarts, no retries: Ray would restart a lost worker on another node and wait, forever
    # when no CPU is free there, to retry its chunks (or rebuild a finished chunk's result that
    # was lost with its node); the run hands a lost worker's chunks to the workers left instead
    @ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)
    class ChunkPlayer:
        """A worker of one game: compiles its kernels once (in ``__init__``), then plays chunk after
        chunk of any run of that game (the compiled kernels depend on the game only, not on its
        options, player count or agents)."""

        def __init__(self, job):
            t0 = time.perf_counter()
            ctx = ChunkContext(job)
            ctx.play(0, 1)  # compile (or load) every kernel before the first real chunk
            self.contexts = {self._key(job): ctx}
            self.warm_s = time.perf_counter() - t0

        @staticmethod
        def _key(job):
            return json.dumps(job, sort_keys=True)

        def _ctx(self, job):
            key = self._key(job)
            if key not in self.contexts:
                self.contexts = {key: ChunkContext(job)}
            return self.contexts[key]

        def ready(self):
            return {
                "warm_s": self.warm_s,
                "pid": os.getpid(),
                "node": ray.get_runtime_context().get_node_id(),
                "niceness": os.getpriority(os.PRIO_PROCESS, 0),
            }

        def play(self, job, start, stop):
            return self._ctx(job).play_encoded(start, stop)

        def replays(self, job, indices):
            return [self._ctx(job).replay(i) for i in indices]

    _ACTOR_CLASS = ChunkPlayer
    return ChunkPlayer


def release_workers() -> None:
    """Stop the warm actors this process keeps between runs
    (freeing their CPUs for other drivers)."""
    if _POOL["actors"]:
        import ray

        if ray.is_initialized() and _POOL["key"][:2] == (
            ray.get_runtime_context().gcs_address,
            ray.get_runtime_context().get_job_id(),
        ):
            for a in _POOL["actors"]:
                ray.kill(a)
    _POOL.update(key=None, actors=[])


def _workers(ray, job: dict[str, Any], n: int) -> tuple[list, list[dict[str, Any]]]:
    """``n`` warm actors for ``job``'s game (reused from earlier runs of this
    session), and their info."""
    rc = ray.get_runtime_context()
    key = (rc.gcs_address, rc.get_job_id(), job["game"])
    if _POOL["key"] != key:
        if _POOL["key"] is not None and _POOL["key"][:2] == key[:2]:
            for a in _POOL["actors"]:  # another game's workers in this session: free their CPUs
                ray.kill(a)
        _POOL.update(key=key, actors=[])
    actors = _POOL["actors"]
    Player = _actor_class()
    reused = len(actors)
    while len(actors) < n:
        actors.append(Player.remote(job))
    try:
        infos = ray.get([a.ready.remote() for a in actors[:n]])
    except ray.exceptions.RayActorError:  # a pooled worker is gone for good: start afresh, once
        _POOL.update(key=key, actors=[Player.remote(job) for _ in range(n)])
        actors, reused = _POOL["actors"], 0
        infos = ray.get([a.ready.remote() for a in actors])
    for i in range(min(reused, n)):
        infos[i] = {**infos[i], "warm_s": 0.0}  # compiled in an earlier run
    return actors[:n], infos


@dataclass
class RunSummary:
    output: Path
    games: int
    played: int
    status: str
    workers: int = 0
    nodes: int = 0
    chunk_size: int = 0
    timings: dict[str, float] = field(default_factory=dict)


NICENESS_RANGE = (-20, 19)  # the operating system's range; below the driver's own needs privileges


# "0": Ray's single-machine mode, every socket on loopback
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def _loopback(on: bool) -> None:
    """Make the next Ray this process starts (or joins) take its node address from loopback (``on``)
    or from the network as Ray does by default.  Ray's own single-machine mode (its default on macOS
    and Windows) binds the GCS, raylet, object manager, agents and workers to 127.0.0.1; the flag is
    read when ray is imported, so the imported constant is set too."""
    from ray._private import ray_constants

    if on:
        os.environ[LOOPBACK_ENV] = "0"
    else:
        os.environ.pop(LOOPBACK_ENV, None)
    ray_constants.ENABLE_RAY_CLUSTER = not on and ray_constants.env_bool(
        LOOPBACK_ENV, not ray_constants.IS_WINDOWS_OR_OSX
    )


def local_ray_options(workers: int | None = None, niceness: int | None = None) -> dict[str, Any]:
    """``ray.init`` arguments of a local Ray for runs: every socket on loopback (nothing reachable
    from the network), dashboard off, and workers at ``niceness`` (default: the calling process's
    own), not at Ray's default of 15.  Call it right before ``ray.init``: it sets the
    loopback mode for that start."""
    _loopback(True)
    nice = os.getpriority(os.PRIO_PROCESS, 0) if niceness is None else int(niceness)
    return {
        # a new Ray of this process's own, even when this machine has a cluster started with
        # `ray start` (Ray would otherwise join the one named in its temp dir's ray_current_cluster)
        "address": "local",
        "num_cpus": workers or os.cpu_count() or 1,
        "include_dashboard": False,
        "logging_level": logging.WARNING,
        "log_to_driver": True,
        "_system_config": {"worker_niceness": nice},
    }


def end_process(code: int) -> None:
    """End this process with ``code`` once its work is done and written, skipping the interpreter's
    teardown when Ray was imported.

    ``ray.shutdown()`` leaves native threads running in the driver (Ray's GCS client I/O thread,
    gRPC's timer and executor threads: /proc/PID/task names them).  At interpreter exit the C++
    static destructors of the loaded libraries run while those threads still use what they free, and
    the process now and then dies of a segmentation fault after everything finished (seen once in a
    full test run: a thread in libstdc++'s string hash).  So a process that imported Ray flushes its
    output and logs and leaves with ``os._exit``: files, Parquet parts and manifests are closed by
    then, a Ray session still open is shut down first, and nothing of the project runs at exit.
    Used by the ``dynasty`` command and by the test session (tests/conftest.py)."""
    if "ray" not in sys.modules:
        sys.exit(code)
    import ray

    if ray.is_initialized():
        # a joined cluster (left connected by the run) sees its driver leave, not vanish
        ray.shutdown()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


AUTH_MODE_ENV = "RAY_AUTH_MODE"


def state_local_auth(address: str | None = None) -> None:
    """Set ``RAY_AUTH_MODE=token`` for a local Ray when Ray is not imported yet (see
    :func:`_start_ray`); studies, tournaments and tunings call it before
    their own ``import ray``."""
    if (
        not (address or os.environ.get("RAY_ADDRESS"))
        and AUTH_MODE_ENV not in os.environ
        and "ray" not in sys.modules
    ):
        os.environ[AUTH_MODE_ENV] = "token"


def _start_ray(address: str | None, workers: int | None, niceness: int | None = None):
    """(ray module, started_here): joins ``address`` / RAY_ADDRESS, or starts a local Ray.

    A local Ray gets token authentication, Ray's own default for a new local cluster, stated as
    ``RAY_AUTH_MODE=token`` so that Ray does not warn about it on every run; Ray reads the mode
    once, when it is imported, so only a process that has not imported it yet (the CLI's) sets
    it.  A mode the user set, and any run that joins a cluster, are left as they are."""
    state_local_auth(address)
    import ray

    if niceness is not None and not NICENESS_RANGE[0] <= niceness <= NICENESS_RANGE[1]:
        raise RunError(f"niceness {niceness}: expected {NICENESS_RANGE[0]}..{NICENESS_RANGE[1]}")
    if ray.is_initialized():
        if niceness is not None:
            raise RunError(
                "niceness applies to a Ray the run starts itself; this process already has a Ray "
                "session, whose workers keep the niceness they were started with"
            )
        return ray, False
    address = address or os.environ.get("RAY_ADDRESS") or None
    before = signal.getsignal(signal.SIGTERM)
    if address:
        if niceness is not None:
            raise RunError(
                "niceness applies to a local Ray only; on a cluster the "
                "nodes' own setting stands (start each node with "
                "RAY_worker_niceness=N ray start ..., see docs/experiments.md)"
            )
        # a cluster: the nodes' addresses and Ray's token authentication as configured there; a Ray
        # on this machine's loopback (another local run's) is joined in loopback mode, or Ray would
        # rewrite 127.0.0.1 to the machine's network address, where nothing listens
        _loopback(
            address.split("://")[-1].rsplit(":", 1)[0] in ("127.0.0.1", "localhost", "[::1]", "::1")
        )
        try:
            cluster.join(ray, address)
            _JOINED["nodes"] = cluster.check_nodes(ray)
        except cluster.ClusterError as e:
            if ray.is_initialized():
                ray.shutdown()
            raise RunError(str(e)) from None
    else:
        _JOINED["nodes"] = []
        ray.init(**local_ray_options(workers, niceness))
    _keep_sigterm_handler(before)
    return ray, True


@contextmanager
def ray_session(
    address: str | None = None, workers: int | None = None, niceness: int | None = None
) -> Iterator[Any]:
    """The Ray session of a workflow that plays many runs (a study's cells, a tournament's
    lineups, a tuning's trials): joined or started once (as :func:`run` does), its warm workers
    kept from one run to the next, and shut down at the end if it was started here.  A session
    this process already has is used as it is.  Inside, call :func:`run` without ``address``
    and ``niceness``."""
    state_local_auth(address)
    import ray

    started = False
    if not ray.is_initialized():
        _start_ray(address, workers, niceness)
        started = True
    try:
        yield ray
    finally:
        if started:
            _POOL.update(key=None, actors=[])
            ray.shutdown()


def _keep_sigterm_handler(before) -> None:
    """Put back the caller's SIGTERM handler (the CLI's turns SIGTERM into a clean interruption);
    Ray's core installs one of its own that aborts the process, so a `kill` would otherwise leave
    the session unrecorded (no game is lost either way: parts are written whole)."""
    if callable(before) and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, before)


def run(
    cfg,
    *,
    address: str | None = None,
    workers: int | None = None,
    chunk_size: int | None = None,
    progress: bool = True,
    stop_after: int | None = None,
    on_chunk=None,
    niceness: int | None = None,
) -> RunSummary:
    """Play every game of ``cfg`` not yet in ``cfg.output``; return what was done and how long it
    took.

    ``niceness`` starts a local Ray's workers at that niceness instead of the driver's own.
    ``stop_after`` (chunks) ends the session early as an interruption would, and
    ``on_chunk(chunks_written, actors)`` is called after each part file (both for tests).
    """
    t_start = time.perf_counter()
    out = store.location(cfg.output)
    manifest = store.open_results(out, cfg)
    held = store.lock(out)
    try:
        return _run_locked(
            cfg,
            out,
            manifest,
            t_start,
            address,
            workers,
            chunk_size,
            progress,
            stop_after,
            on_chunk,
            niceness,
        )
    finally:
        held.close()


def _run_locked(
    cfg,
    out,
    manifest,
    t_start,
    address,
    workers,
    chunk_size,
    progress,
    stop_after,
    on_chunk,
    niceness,
) -> RunSummary:
    store.remove_partial_files(out, cfg.game)
    for part, problem in store.damaged_parts(out, cfg.game, cfg.players):  # never counted as done
        aside = store.set_aside(part)
        print(
            f"{part}: damaged part file ({problem}); set aside "
            f"as {aside.name}, its games are played again",
            file=sys.stderr,
            flush=True,
        )
    done = store.done_ranges(out, cfg.game)
    todo_ranges = missing_ranges(done, cfg.games)
    n_done = cfg.games - sum(b - a for a, b in todo_ranges)
    if done and any(b > cfg.games for _, b in done):
        raise RunError(
            f"{out}: holds games beyond the {cfg.games} the "
            "config asks for; use another output folder"
        )
    out.mkdir(parents=True, exist_ok=True)
    if cfg.source and Path(cfg.source).is_file():
        store.atomic_write(out / "config.toml", Path(cfg.source).read_bytes())

    job = job_of(cfg)
    summary = RunSummary(out, cfg.games, 0, "complete")
    session: dict[str, Any] = {
        "started": _now(),
        "status": "running",
        "games_before": n_done,
        "git": store.git_commit(),
    }
    manifest["sessions"].append(session)
    store.write_manifest(out, manifest)

    timings = {
        "startup_s": 0.0,
        "play_wall_s": 0.0,
        "worker_play_s": 0.0,
        "worker_encode_s": 0.0,
        "write_s": 0.0,
        "shutdown_s": 0.0,
    }
    ray = None
    started_here = False
    played = 0
    try:
        if todo_ranges:
            # Fill the on-disk numba cache from the driver, so workers load it instead of racing to
            # write it: one game through the arena compiles the entry and the game kernels the run's
            # agents call.
            t0 = time.perf_counter()
            from agents.table import AgentError

            try:
                ChunkContext(job).play(0, 1)
            except AgentError as e:  # a user agent failed in the driver's game: say where
                raise RunError(f"{e}; {n_done} of {cfg.games} games are saved") from None
            t1 = time.perf_counter()
            ray, started_here = _start_ray(address, workers, niceness)
            try:  # a joined node with other data files would play other games
                cluster.check_component_data(
                    _JOINED["nodes"], cfg.game, store.component_digest(cfg)
                )
            except cluster.ClusterError as e:
                raise RunError(f"{e}; {n_done} of {cfg.games} games are saved") from None
            timings["driver_warm_s"], timings["ray_start_s"] = t1 - t0, time.perf_counter() - t1
            cpus = int(ray.cluster_resources().get("CPU", 1))
            n_workers = workers or cpus
            if n_workers > cpus:
                raise RunError(f"--workers {n_workers}: the Ray cluster has only {cpus} CPUs")
            size = chunk_size or cfg.chunk_size or auto_chunk_size(cfg.games - n_done, n_workers)
            chunks = deque(chunk_ranges(todo_ranges, size))
            if progress:
                print(
                    f"{cfg.name}: {cfg.games - n_done:,} games to play in "
                    f"{len(chunks)} chunks; {min(n_workers, len(chunks))} workers "
                    "are loading the game's kernels (compiled once per machine)...",
                    file=sys.stderr,
                    flush=True,
                )
            actors, infos = _workers(ray, job, min(n_workers, len(chunks)))
            summary.workers, summary.nodes, summary.chunk_size = (
                len(actors),
                len({i["node"] for i in infos}),
                size,
            )
            session.update(
                workers=len(actors),
                nodes=summary.nodes,
                chunk_size=size,
                address=address or os.environ.get("RAY_ADDRESS") or "local",
                worker_niceness=sorted({i["niceness"] for i in infos}),
                **({"cluster_nodes": _JOINED["nodes"]} if _JOINED["nodes"] else {}),
            )
            t_ready = time.perf_counter()
            timings["startup_s"] = t_ready - t_start
            timings["worker_warm_s"] = max(i["warm_s"] for i in infos)

            from tqdm import tqdm

            bar = tqdm(
                total=cfg.games,
                initial=n_done,
                unit="game",
                unit_scale=True,
                disable=not progress,
                desc=cfg.name,
                smoothing=0.05,
                dynamic_ncols=True,
            )
            pending: dict[Any, tuple[Any, tuple[int, int]]] = {}  # ref: (actor, chunk)
            alive = list(actors)
            retried: set[tuple[int, int]] = set()

            def submit(actor):
                if chunks:
                    a, b = chunks.popleft()
                    pending[actor.play.remote(job, a, b)] = (actor, (a, b))

            def requeue(actor, chunk, e) -> bool:
                """A worker lost with its process or node: its chunks go back to the queue for the
                workers left, each chunk once (a chunk that loses a second worker stops the run)."""
                if chunk in retried:
                    return False
                if any(x is actor for x in alive):
                    alive[:] = [x for x in alive if x is not actor]
                    node = next(i["node"] for x, i in zip(actors, infos) if x is actor)
                    print(
                        f"{cfg.name}: a worker on node {node[:8]} is lost ({type(e).__name__}); "
                        f"{len(alive)} workers play its chunks",
                        file=sys.stderr,
                        flush=True,
                    )
                if not alive:
                    return False
                retried.add(chunk)
                chunks.appendleft(chunk)
                for x in alive:  # a worker with nothing queued takes the returned chunks
                    while chunks and sum(y is x for y, _ in pending.values()) < IN_FLIGHT:
                        submit(x)
                return True

            for actor in actors:
                for _ in range(IN_FLIGHT):
                    submit(actor)
            written = 0
            try:
                while pending:
                    ready, _ = ray.wait(list(pending), num_returns=1)
                    actor, chunk = pending.pop(ready[0])
                    try:
                        a, b, data, t, reps = ray.get(ready[0])
                    except ray.exceptions.RayError as e:
                        lost = (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError)
                        if isinstance(e, lost) and requeue(actor, chunk, e):
                            continue
                        for ref in pending:  # first, or Ray reports each as a failed task
                            with suppress(Exception):
                                ray.cancel(ref)
                        release_workers()
                        from agents.table import AgentError

                        if isinstance(getattr(e, "cause", None), AgentError):
                            # a user agent failed: say where
                            raise RunError(
                                f"{e.cause}; {n_done + played} of {cfg.games} games are saved"
                            ) from None
                        first = (
                            str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                        )
                        raise RunError(
                            f"a worker failed ({type(e).__name__}: {first}); {n_done + played} "
                            f"of {cfg.games} games are saved, run the same command to continue"
                        ) from None
                    tw = time.perf_counter()
                    for i, rep in reps.items():  # before the part: its games' replays are kept
                        write_replay(out, i, rep)
                    part = store.data_dir(out, cfg.game) / store.part_name(a, b)
                    try:
                        if isinstance(data, str):
                            # written by the worker under a hidden name: publish it
                            store.publish(store.location(data), part)
                        else:
                            store.atomic_write(part, data)
                    except OSError as e:
                        # e.g. a full disk: nothing of this chunk is under a part name
                        raise RunError(
                            f"{part}: could not be written ({e.strerror or e}); "
                            f"{n_done + played} of {cfg.games} games are saved: free space "
                            "(or fix the storage) and run the same command to continue"
                        ) from None
                    timings["write_s"] += time.perf_counter() - tw + t.get("write_s", 0.0)
                    timings["worker_play_s"] += t["play_s"]
                    timings["worker_encode_s"] += t["encode_s"]
                    played += b - a
                    written += 1
                    bar.update(b - a)
                    if on_chunk is not None:
                        on_chunk(written, actors)
                    if stop_after is not None and written >= stop_after:
                        raise KeyboardInterrupt
                    submit(actor)
            finally:
                bar.close()
                # stopped early: drop the queued chunks (their games stay missing); cancelling is
                # best effort, a late result is simply not written
                for ref in pending:
                    with suppress(Exception):
                        ray.cancel(ref)
            timings["play_wall_s"] = time.perf_counter() - t_ready
            tr = time.perf_counter()
            if cfg.replays:
                export_replays(cfg, out, alive[0])
            timings["replays_s"] = time.perf_counter() - tr
        summary.status = "complete"
    except KeyboardInterrupt:
        summary.status = "interrupted"
    except BaseException:
        summary.status = "failed"
        raise
    finally:
        t_stop = time.perf_counter()
        if ray is not None and started_here:
            _POOL.update(key=None, actors=[])
            ray.shutdown()
        timings["shutdown_s"] = time.perf_counter() - t_stop
        summary.played = played
        if summary.status == "complete" and cfg.replays and not todo_ranges:
            export_replays(
                cfg, out
            )  # only if an earlier session stopped between its last chunk and its replays
        timings["total_s"] = time.perf_counter() - t_start
        summary.timings = timings
        session.update(finished=_now(), status=summary.status, games_played=played, timings=timings)
        remaining = missing_ranges(store.done_ranges(out, cfg.game), cfg.games)
        manifest["complete"] = not remaining
        manifest["games_done"] = cfg.games - sum(b - a for a, b in remaining)
        store.write_manifest(out, manifest)
    return summary


def replay_indices(games: int, k: int) -> list[int]:
    """``k`` game indices spread evenly over the run (the replay sample)."""
    return sorted(set(np.linspace(0, games - 1, k).round().astype(int).tolist())) if k else []


def export_replays(cfg, out: Path, actor=None) -> list[Path]:
    """Save the replays of the sample games not saved yet
    (played by ``actor`` if given, else here)."""
    todo = [
        i
        for i in replay_indices(cfg.games, cfg.replays)
        if not (out / "replays" / f"game-{i:09d}.json").exists()
    ]
    if not todo:
        return []
    if actor is not None:
        import ray

        reps = ray.get(actor.replays.remote(job_of(cfg), todo))
    else:
        ctx = ChunkContext(job_of(cfg))
        reps = [ctx.replay(i) for i in todo]
    return [write_replay(out, i, rep) for i, rep in zip(todo, reps)]


def write_replay(out: Path, i: int, rep: dict[str, Any]) -> Path:
    """Save game ``i``'s replay in the results folder ``out``."""
    path = out / "replays" / f"game-{i:09d}.json"
    store.atomic_write(path, (json.dumps(rep, indent=1) + "\n").encode())
    return path
