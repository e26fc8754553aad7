"""``dynasty train TRAIN.toml``: expert iteration, generation by generation, resumable.

Each generation ``g`` (folder ``OUT/gen-<g>/``):

1. **Self-play** (``data/chunk-*.npz``, experiments.train.selfplay): generation 0 plays the
   heuristic in every seat, later ones MCTS guided by the best network so far; Ray workers
   play chunks of games, the driver writes each chunk's file whole.
2. **Fit** (``OUT/models/gen-<g>.npz``, experiments.train.fit): the network is fitted to the
   examples of the newest ``window`` generations, starting from the best network's weights
   (generation 0: from scratch, after fitting the input encoding to its examples).
3. **Gate** (``gate-<opponent>/``, experiments.train.gate): the new network against the best
   so far and the heuristic, on shared deals; it becomes the best (``OUT/best.npz``) only if it
   beats every opponent of ``[gate] against`` with a 95% interval above parity.  Generation 0
   becomes the first best whatever its gate says (there is nothing to compare it with); its
   match against the heuristic is recorded.

``OUT/train.json`` records the config's identity, and per generation what was done, the fit's
history, the gate's results and the decision, and the time each step took.  Stopping anywhere
loses nothing: running the same command again skips the finished chunks, fits and matches
(a fit that did not finish is done again, giving the same weights), and goes on.  A folder made
by another config is refused.  The same config and seed give the same data and weights on one
machine (fixed seeds, simulation budgets, PyTorch threads).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from experiments.run.store import ResultsError, atomic_write
from experiments.train.config import TrainConfig, stored_identity
from experiments.train.selfplay import chunks

MANIFEST = "train.json"
FORMAT = "dynasty-lab-train"
VERSION = 1
CHUNK_GAMES = 10  # games per self-play task
GATE_SALT = 0x6A7E


@dataclass
class TrainSummary:
    output: Path
    status: str  # "complete" | "interrupted"
    generations: int  # finished generations
    best: int | None  # the generation of the best network


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def gen_dir(cfg: TrainConfig, gen: int) -> Path:
    return cfg.output / f"gen-{gen:03d}"


def model_path(cfg: TrainConfig, gen: int) -> Path:
    return cfg.output / "models" / f"gen-{gen:03d}.npz"


def read_manifest(cfg: TrainConfig) -> dict[str, Any]:
    path = cfg.output / MANIFEST
    if not path.is_file():
        raise ResultsError(f"{cfg.output}: no training here yet; run `dynasty train` first")
    return json.loads(path.read_text())


def _open(cfg: TrainConfig) -> dict[str, Any]:
    """The training's manifest (a new one in an empty folder); refuses another config's folder."""
    cfg.output.mkdir(parents=True, exist_ok=True)
    path = cfg.output / MANIFEST
    ident = json.loads(json.dumps(cfg.identity()))
    if path.is_file():
        m = json.loads(path.read_text())
        theirs = stored_identity(m.get("identity", {}))
        if theirs != ident:
            diff = sorted(k for k in set(ident) | set(theirs) if ident.get(k) != theirs.get(k))
            raise ResultsError(
                f"{cfg.source}: output: {cfg.output} holds a training of another config "
                f"(differs in {', '.join(diff)}); choose another output"
            )
        return m
    if any(cfg.output.iterdir()):
        raise ResultsError(
            f"{cfg.source}: output: {cfg.output} is not empty and holds no {MANIFEST}; "
            "choose another output"
        )
    m = {"format": FORMAT, "version": VERSION, "identity": ident, "generations": [], "best": None}
    _write(cfg, m)
    if cfg.source and Path(cfg.source).is_file():
        atomic_write(cfg.output / "train.toml", Path(cfg.source).read_bytes())
    return m


def _write(cfg: TrainConfig, m: dict[str, Any]) -> None:
    atomic_write(cfg.output / MANIFEST, (json.dumps(m, indent=1) + "\n").encode())


def _save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
    tmp.replace(path)


# --------------------------------------------------------------------------- the steps


def _selfplay(cfg: TrainConfig, gen: int, best: Path | None, progress: bool) -> float:
    """Play the generation's missing chunks on the Ray workers; the seconds it took."""
    import ray

    from experiments.train.selfplay import play_chunk

    t0 = time.perf_counter()
    data = gen_dir(cfg, gen) / "data"
    games = cfg.warm_games if gen == 0 else cfg.selfplay_games
    todo = []
    for first, count, players in chunks(games, cfg.players, CHUNK_GAMES):
        path = data / f"chunk-{first:07d}.npz"
        if path.is_file():
            continue
        todo.append(
            (
                path,
                {
                    "game": cfg.game,
                    "players": players,
                    "options": cfg.options,
                    "seed": cfg.seed,
                    "gen": gen,
                    "first": first,
                    "count": count,
                    "model": str(best.resolve()) if gen > 0 and best else None,
                    "search": cfg.search("best"),
                    "sample_decisions": cfg.sample_decisions,
                    "record_every": cfg.record_every,
                    "warm": cfg.warm_search,
                    "hint": cfg.hint,
                    "head": cfg.head_search if gen == 0 else "",
                    "head_share": cfg.head_share,
                },
            )
        )
    if not todo:
        return 0.0
    from tqdm import tqdm

    from experiments.run.runner import release_workers

    release_workers()  # the gate's warm actors hold the CPUs these tasks need
    task = ray.remote(num_cpus=1)(play_chunk)
    bar = tqdm(
        total=games,
        initial=games - sum(j["count"] for _, j in todo),
        unit="game",
        desc=f"{cfg.name} gen {gen} self-play",
        disable=not progress,
    )
    slots = max(1, int(ray.cluster_resources().get("CPU", 1))) * 2
    pending: dict[Any, tuple[Path, dict]] = {}
    queue = list(todo)
    try:
        while queue or pending:
            while queue and len(pending) < slots:
                path, job = queue.pop(0)
                pending[task.remote(job)] = (path, job)
            ready, _ = ray.wait(list(pending), num_returns=1)
            path, job = pending.pop(ready[0])
            _save_npz(path, ray.get(ready[0]))
            bar.update(job["count"])
    finally:
        bar.close()
        for ref in pending:
            ray.cancel(ref)
    return time.perf_counter() - t0


def _encoding(cfg: TrainConfig) -> np.ndarray:
    """The input encoding, fitted once to generation 0's examples (``OUT/encoding.npy``)."""
    from agents.net import fit_encoding
    from experiments.train.fit import load_examples

    path = cfg.output / "encoding.npy"
    if path.is_file():
        return np.load(path)
    ex = load_examples(list((gen_dir(cfg, 0) / "data").glob("chunk-*.npz")))
    enc = fit_encoding(ex["obs"])
    tmp = path.with_name(".encoding.npy.tmp")
    with open(tmp, "wb") as f:
        np.save(f, enc)
    tmp.replace(path)
    return enc


def data_hash(files: list[Path]) -> str:
    h = hashlib.sha1()
    for f in sorted(files):
        h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()[:16]


def _fit(
    cfg: TrainConfig, gen: int, best: Path | None, progress: bool, elapsed: float = 0.0
) -> dict[str, Any]:
    """Fit the generation's network (``OUT/models/gen-<g>.npz``, its card's ``train_s`` the
    training's seconds so far, ``elapsed`` before the fit); the fit's history."""
    from agents.model import load, observation_hash, save
    from agents.net import HEAD_ARRAY
    from experiments.run.store import git_commit
    from experiments.train.fit import fit, fit_head, load_examples, load_head_examples
    from sim.core import hash64

    spec = cfg.spec
    enc = _encoding(cfg)
    files = [
        f
        for g in range(max(0, gen - cfg.window + 1), gen + 1)
        for f in (gen_dir(cfg, g) / "data").glob("chunk-*.npz")
    ]
    examples = load_examples(files)
    init = None
    if gen > 0 and best is not None:
        init = {k: v for k, v in load(best).arrays.items() if k != "enc"}

    def say(epoch, h):
        if progress:
            print(
                f"{cfg.name} gen {gen} fit: epoch {epoch + 1}/{cfg.epochs}, "
                f"policy loss {h['policy_loss']:.4f}, value loss {h['value_loss']:.4f}",
                file=sys.stderr,
                flush=True,
            )

    t0 = time.perf_counter()
    arrays, history = fit(
        examples,
        enc,
        cfg.hidden,
        spec.num_actions,
        spec.can_all_lose,
        epochs=cfg.epochs,
        batch=cfg.batch,
        lr=cfg.lr,
        weight_decay=cfg.weight_decay,
        seed=int(hash64(np.int64(cfg.seed), np.int64(gen))) & (2**31 - 1),
        threads=cfg.threads,
        target_temperature=cfg.target_temperature,
        init=init,
        progress=say,
        hint=cfg.hint,
    )
    if cfg.head_search:  # fitted to generation 0's examples, kept by later generations
        if gen == 0:
            head = load_head_examples(list((gen_dir(cfg, 0) / "data").glob("chunk-*.npz")))
            if not head:
                raise ResultsError(f"{cfg.source}: generation 0 has no examples for the head")
            arrays[HEAD_ARRAY], head_history = fit_head(head, l2=cfg.head_l2, threads=cfg.threads)
            history.update(head_history)
        else:
            arrays[HEAD_ARRAY] = load(best).arrays[HEAD_ARRAY]
    history["fit_s"] = time.perf_counter() - t0
    card = {
        "name": f"{cfg.name}-gen-{gen:03d}",
        "game": cfg.game,
        "players": list(cfg.players),
        "options": cfg.options,
        "observation": observation_hash(spec),
        "hidden": cfg.hidden,
        "hint": cfg.hint,
        **({"action_features": list(spec.action_features)} if cfg.head_search else {}),
        "inputs": int(arrays["w1"].shape[0]),
        "generation": gen,
        "training": cfg.identity(),
        "data": data_hash(files),
        "examples": history["examples"],
        "commit": git_commit(),
        "created": _now(),
        "train_s": round(elapsed + history["fit_s"], 1),
    }
    save(model_path(cfg, gen), {"enc": enc, **arrays}, card)
    return history


def _elapsed(m: dict, gen: int) -> float:
    """Seconds the training spent before generation ``gen``'s fit (every step of the earlier
    generations, and ``gen``'s self-play)."""
    t = 0.0
    for g in m["generations"][: gen + 1]:
        t += g.get("selfplay_s", 0.0)
        if g["generation"] < gen:
            t += g.get("fit", {}).get("fit_s", 0.0) + g.get("gate_s", 0.0)
    return t


def _gate(cfg: TrainConfig, gen: int, best: Path | None, workers, progress) -> dict[str, Any]:
    """The generation's gating matches, each a resumable run; their results."""
    from experiments.run import runner
    from experiments.run.config import from_dict
    from experiments.train.gate import both_ways_result, lone_shares, match_config, match_result
    from sim.core import hash64

    n = cfg.players[0]
    candidate = cfg.gated(str(model_path(cfg, gen).resolve()))
    seed = int(hash64(np.int64(cfg.seed), np.int64(GATE_SALT + gen))) & (2**63 - 1)
    out = {}
    for opp in cfg.gate_against:
        if opp == "best":
            if best is None:
                continue
            opponent = cfg.gated(str(best.resolve()))
        else:
            opponent = opp

        def match(alone: str, others: str, folder: Path):
            run_cfg = from_dict(
                match_config(cfg.game, n, cfg.options, alone, others, cfg.gate_deals, seed, folder),
                f"{cfg.source}: gate {folder.name}",
            )
            s = runner.run(run_cfg, workers=workers, progress=progress)
            if s.status != "complete":
                raise KeyboardInterrupt
            return run_cfg.agents[0].label

        folder = gen_dir(cfg, gen) / f"gate-{opp}"
        label = match(candidate, opponent, folder)
        out[opp] = {"opponent": opponent, **match_result(folder, label, n, seed)}
        if cfg.gates_both_ways:  # the opponent alone against the candidate's copies
            lone = gen_dir(cfg, gen) / f"gate-{opp}-alone"
            opp_label = match(opponent, candidate, lone)
            out[opp].update(
                both_ways_result(lone_shares(folder, label), lone_shares(lone, opp_label), seed)
            )
    return out


# --------------------------------------------------------------------------- the loop


def run_train(
    cfg: TrainConfig,
    *,
    workers: int | None = None,
    address: str | None = None,
    niceness: int | None = None,
    progress: bool = True,
    stop_after: str | None = None,
) -> TrainSummary:
    """Train every generation of ``cfg`` not finished yet.  ``stop_after`` (tests) ends the
    session as an interruption would, after the step named ``"<gen>:<step>"`` (selfplay, fit,
    gate)."""
    from experiments.run import runner

    m = _open(cfg)
    status = "complete"
    try:
        with runner.ray_session(address, workers, niceness):
            for gen in range(cfg.generations):
                _generation(cfg, m, gen, workers, progress, stop_after)
    except KeyboardInterrupt:
        status = "interrupted"
    done = sum(1 for g in m["generations"] if g.get("status") == "done")
    return TrainSummary(cfg.output, status, done, m["best"])


def _generation(cfg: TrainConfig, m: dict, gen: int, workers, progress, stop_after) -> None:
    while len(m["generations"]) <= gen:
        m["generations"].append({"generation": len(m["generations"]), "status": "new"})
    g = m["generations"][gen]
    if g["status"] == "done":
        return
    best = model_path(cfg, m["best"]) if m["best"] is not None else None

    def step_done(name: str) -> None:
        _write(cfg, m)
        if stop_after == f"{gen}:{name}":
            raise KeyboardInterrupt

    g.setdefault("started", _now())
    g["selfplay_s"] = g.get("selfplay_s", 0.0) + _selfplay(cfg, gen, best, progress)
    g["games"] = cfg.warm_games if gen == 0 else cfg.selfplay_games
    if gen > 0:
        g["data"] = cfg.search(f"gen-{m['best']:03d}")
    else:
        g["data"] = cfg.warm_search or "heuristic"
    step_done("selfplay")
    if not model_path(cfg, gen).is_file():
        g["fit"] = _fit(cfg, gen, best, progress, _elapsed(m, gen))
    step_done("fit")
    t0 = time.perf_counter()
    g["gate"] = _gate(cfg, gen, best, workers, progress)
    g["gate_s"] = g.get("gate_s", 0.0) + time.perf_counter() - t0
    g["kept"] = gen == 0 or all(r["passed"] for r in g["gate"].values())
    if g["kept"]:
        m["best"] = gen
        shutil.copyfile(model_path(cfg, gen), cfg.output / ".best.npz.tmp")
        (cfg.output / ".best.npz.tmp").replace(cfg.output / "best.npz")
    g["best_after"] = m["best"]
    g["status"] = "done"
    g["finished"] = _now()
    step_done("gate")
    if progress:
        verdict = ", ".join(
            f"{opp} {r['win_share']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
            + (
                f" / alone against it {r['opponent_alone']:.3f}"
                f" [{r['opponent_low']:.3f}, {r['opponent_high']:.3f}]"
                if "opponent_alone" in r
                else ""
            )
            for opp, r in g["gate"].items()
        )
        print(
            f"{cfg.name} gen {gen}: {'kept' if g['kept'] else 'not kept'} ({verdict}); "
            f"best: gen {m['best']}",
            file=sys.stderr,
            flush=True,
        )
