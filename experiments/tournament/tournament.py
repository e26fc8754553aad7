"""``dynasty tournament``: a pool of agents, a game and player counts -> balanced lineups, each an
ordinary run on the same deals.

A tournament config (TOML)::

    name = "goofspiel_ladder"
    game = "goofspiel"
    players = [2, 3]                 # one player count or several
    pool = ["random", "heuristic", "mcts:100", "mcts:1000"]
    deals = 200                      # deals every lineup plays (each in all its seat rotations)
    seed = 2026
    output = "results/tournaments/goofspiel_ladder"
    schedule = "combinations"        # or "permutations" (see below)
    round_deals = 50                 # optional: deals per round (default: a quarter of the deals)
    [options]                        # rule options, as in a run config
    num_cards = 8

Pool entries are agents as in a run config (``mcts:50ms``, ``{kind = "mcts", simulations =
300}``, a user agent ``"mypkg.agents:greedy"``); ``{kind = ..., label = "heuristic-b"}`` enters
a copy of an agent under another name (two copies must get equal ratings).

**The schedule.**  For ``n`` players and a pool of ``K >= n`` agents, every ``n``-subset of the
pool is a lineup (``C(K, n)`` of them; for 2 players, every unordered pair), and every lineup is
played with ``seats = "rotate"``: its ``n`` cyclic rotations on each deal, with the deal's seed.
So on every deal each agent of a lineup sits in each seat once; every agent is in
``C(K-1, n-1)`` lineups and meets every other agent in ``C(K-2, n-2)`` of them (the complete
block design), hence every agent plays every seat, and meets every opponent, equally often.
For 2 players this is every ordered pair on every deal.  Cyclic rotations keep each lineup's
circular order (who plays after whom); ``schedule = "permutations"`` adds every circular order
of each subset (``(n-1)!`` lineups per subset: 1 for 2 players, 2 for 3, 6 for 4, 24 for 5), so
that every agent also follows every other equally often.

Every lineup is an ordinary results folder ``OUT/lineups/p<n>-<NNN>/`` played by
:func:`experiments.run.runner.run` (resumable, the same Parquet rows as ``dynasty run``, readable by
``dynasty report``), all with the tournament's master seed: deal ``d`` is the same game seed in
every lineup, so comparisons are paired per deal and ratings are bootstrapped over deals.
``OUT/tournament.json`` records the tournament; running the same config again resumes it, and a
folder made by another config is refused.  The deals are played in rounds: every lineup plays the
first ``round_deals`` deals, then every lineup the next ones, and so on (a run extends when its
``games`` grow), so a tournament stopped at any point holds every lineup on about as many deals.
Ratings and the report: :mod:`experiments.analysis.ratings`, :mod:`experiments.tournament.report`.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from experiments.run.config import MAX_SEED, ConfigError, ExperimentConfig, from_dict

FORMAT = "dynasty-lab-tournament"
VERSION = 1
REQUIRED = ("game", "players", "pool", "deals", "seed", "output")
OPTIONAL = ("name", "description", "options", "schedule", "chunk_size", "round_deals")
# default: the deals are played in about this many rounds (round_deals = ceil(deals / ROUNDS))
ROUNDS = 4
SCHEDULES = ("combinations", "permutations")


@dataclass(frozen=True)
class Lineup:
    """One lineup: the agents (pool indices) of seats 0..n-1 before rotation, and its run."""

    index: int
    players: int
    agents: tuple[int, ...]
    config: ExperimentConfig
    run: dict = dataclasses.field(
        default_factory=dict, compare=False
    )  # the run config as a TOML table

    @property
    def folder(self) -> Path:
        return Path(self.config.output)

    @property
    def labels(self) -> list[str]:
        return [a.label for a in (self.config.agents[i] for i in self.config.lineup)]


@dataclass(frozen=True)
class Tournament:
    name: str
    description: str
    game: str
    players: tuple[int, ...]
    pool: tuple[str, ...]  # agent labels, in the config's order
    deals: int
    seed: int
    output: Path
    schedule: str
    options: dict[str, Any]
    lineups: tuple[Lineup, ...]
    source: str = ""
    round_deals: int = 0  # deals per round (see run_tournament); 0 = all at once

    def identity(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": list(self.players),
            "pool": list(self.pool),
            "deals": self.deals,
            "seed": self.seed,
            "schedule": self.schedule,
            "options": self.options,
        }

    def lineups_of(self, players: int) -> list[Lineup]:
        return [x for x in self.lineups if x.players == players]


def schedule(k: int, n: int, kind: str = "combinations") -> list[tuple[int, ...]]:
    """The lineups (pool indices per seat, before rotation) of ``n``
    players from a pool of ``k``."""
    out = []
    for combo in itertools.combinations(range(k), n):
        if kind == "combinations" or n <= 2:
            out.append(combo)
        else:  # every circular order: the first agent fixed, the others in every order
            out.extend((combo[0],) + rest for rest in itertools.permutations(combo[1:]))
    return out


def _fail(source: str, msg: str) -> ConfigError:
    return ConfigError(f"{source}: {msg}")


def load_tournament(path: str | Path) -> Tournament:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ConfigError(
            f"{path}: cannot read the tournament config ({e.strerror or e})"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    return tournament_from_dict(data, str(path))


def tournament_from_dict(data: dict[str, Any], source: str = "tournament") -> Tournament:
    """Validate a tournament table; :class:`ConfigError` naming the file and field if bad."""
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise _fail(
            source, f"unknown key {unknown[0]!r} (allowed: {', '.join(REQUIRED + OPTIONAL)})"
        )
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise _fail(source, f"missing key {missing[0]!r} (required: {', '.join(REQUIRED)})")
    players = data["players"]
    players = [players] if isinstance(players, int) and not isinstance(players, bool) else players
    if (
        not isinstance(players, list)
        or not players
        or not all(isinstance(p, int) and not isinstance(p, bool) for p in players)
    ):
        raise _fail(
            source, f"players: expected a player count or a list of them, got {data['players']!r}"
        )
    if len(set(players)) != len(players):
        raise _fail(source, f"players: {players} lists a player count twice")
    pool = data["pool"]
    if not isinstance(pool, list) or len(pool) < 2:
        raise _fail(source, f"pool: expected a list of at least 2 agents, got {pool!r}")
    deals = data["deals"]
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise _fail(source, f"deals: expected a positive integer, got {deals!r}")
    round_deals = data.get("round_deals", -(-deals // ROUNDS) if isinstance(deals, int) else 1)
    if isinstance(round_deals, bool) or not isinstance(round_deals, int) or round_deals < 1:
        raise _fail(source, f"round_deals: expected a positive integer, got {round_deals!r}")
    sched = data.get("schedule", "combinations")
    if sched not in SCHEDULES:
        raise _fail(source, f"schedule: {sched!r} is not allowed (allowed: {', '.join(SCHEDULES)})")
    seed = data["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise _fail(source, f"seed: expected an integer 0..{MAX_SEED}, got {seed!r}")
    output = data["output"]
    if not isinstance(output, str) or not output.strip():
        raise _fail(source, f"output: expected a folder name, got {output!r}")
    out = Path(output)
    name = data.get("name", out.name or "tournament")
    description = data.get("description", "")

    # Validate the pool once, each agent through an ordinary run config; labels must be distinct.
    labels: list[str] = []
    for i, entry in enumerate(pool):
        base = {
            "game": data["game"],
            "players": players[0],
            "agents": [entry],
            "games": 1,
            "seed": 0,
            "output": str(out / "_check"),
            "seats": "fixed",
            "options": data.get("options", {}),
        }
        try:
            cfg = from_dict(base, source)
        except ConfigError as e:
            msg = str(e)[len(source) + 2 :]
            if msg.startswith("agents[0]: "):
                msg = f"pool[{i}]: " + msg[len("agents[0]: ") :]
            raise _fail(source, msg) from None
        label = cfg.agents[0].label
        if label in labels:
            raise _fail(
                source,
                f"pool[{i}]: {label!r} is in the pool twice (a copy needs its own label: "
                f'{{kind = ..., label = "{label}-b"}})',
            )
        labels.append(label)

    lineups: list[Lineup] = []
    for n in players:
        if n > len(pool):
            raise _fail(
                source,
                f"players: {n} players need a pool of at "
                f"least {n} agents (the pool has {len(pool)})",
            )
        for agents in schedule(len(pool), n, sched):
            idx = len(lineups)
            run = {
                "name": f"{name} p{n} lineup {idx}",
                "description": f"lineup {idx} of tournament {name}",
                "game": data["game"],
                "players": n,
                "agents": [pool[a] for a in agents],
                "seats": "rotate",
                "games": deals * n,
                "seed": seed,
                "output": str(out / "lineups" / f"p{n}-{idx:03d}"),
                "options": data.get("options", {}),
            }
            if "chunk_size" in data:
                run["chunk_size"] = data["chunk_size"]
            # not a file: the lineup folder gets no copy of the tournament's TOML
            where = f"{source}, lineup {idx}"
            try:
                cfg = from_dict(run, where)
            except ConfigError as e:
                raise _fail(
                    source, f"lineup {idx} ({n} players): {str(e)[len(where) + 2 :]}"
                ) from None
            lineups.append(Lineup(idx, n, tuple(agents), cfg, run))
    return Tournament(
        name=name,
        description=description,
        game=data["game"],
        players=tuple(players),
        pool=tuple(labels),
        deals=deals,
        seed=seed,
        output=out,
        schedule=sched,
        options=dict(lineups[0].config.options),
        lineups=tuple(lineups),
        source=source,
        round_deals=min(round_deals, deals),
    )


def to_toml(table: dict[str, Any]) -> str:
    """A flat run config (strings, numbers, lists, inline tables;
    ``options`` as a table) as TOML."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        raise TypeError(f"cannot write {v!r} as TOML")

    lines = [f"{k} = {value(v)}" for k, v in table.items() if k != "options"]
    if table.get("options"):
        lines += ["", "[options]"] + [
            f"{json.dumps(k)} = {value(v)}" for k, v in table["options"].items()
        ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the manifest


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def open_tournament(t: Tournament) -> dict[str, Any]:
    """The tournament's manifest: a new one, or the folder's own if the same config made it."""
    from experiments.run.store import open_plan

    m = open_plan(t.output, "tournament.json", FORMAT, t.identity(), t.source, "tournament")
    if m is not None:
        return m
    ident = json.loads(json.dumps(t.identity()))
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": t.name,
        "description": t.description,
        "identity": ident,
        "lineups": [
            {
                "index": x.index,
                "players": x.players,
                "agents": [t.pool[a] for a in x.agents],
                "folder": str(x.folder.relative_to(t.output)),
            }
            for x in t.lineups
        ],
        "sessions": [],
        "complete": False,
    }


def write_manifest(t: Tournament, m: dict[str, Any]) -> None:
    from experiments.run.store import write_json

    write_json(t.output / "tournament.json", m)


@dataclass
class TournamentSummary:
    output: Path
    status: str
    games: int
    played: int
    lineups: int


def games_done(lineup: Lineup) -> int:
    from experiments.run import store

    return sum(b - a for a, b in store.done_ranges(lineup.folder, lineup.config.game))


def run_tournament(
    t: Tournament,
    *,
    workers: int | None = None,
    address: str | None = None,
    progress: bool = True,
    niceness: int | None = None,
    stop_after_lineups: int | None = None,
) -> TournamentSummary:
    """Play every lineup's missing games; one Ray session (and one set of warm workers) for all.

    ``stop_after_lineups`` ends the session after that many lineup runs, as an interruption would.
    """
    from experiments.run import runner, store

    m = open_tournament(t)
    t.output.mkdir(parents=True, exist_ok=True)
    if t.source and Path(t.source).is_file():
        store.atomic_write(t.output / "tournament.toml", Path(t.source).read_bytes())
    session: dict[str, Any] = {"started": _now(), "status": "running", "git": store.git_commit()}
    m["sessions"].append(session)
    write_manifest(t, m)
    status = "complete"
    runs = played = 0
    try:
        with runner.ray_session(address, workers, niceness):
            # In rounds: every lineup plays deals 0..round_deals-1, then every lineup the next
            # round_deals ... (a run extends when its games grow), so a tournament stopped at any
            # point is balanced.
            targets = list(range(t.round_deals, t.deals, t.round_deals)) + [t.deals]
            for target in targets:
                for i, x in enumerate(t.lineups):
                    cfg = dataclasses.replace(x.config, games=target * x.config.games // t.deals)
                    if games_done(x) >= cfg.games:
                        continue
                    if stop_after_lineups is not None and runs >= stop_after_lineups:
                        raise KeyboardInterrupt
                    if progress:
                        import sys

                        print(
                            f"deals up to {target} of {t.deals}, lineup {i + 1} of "
                            f"{len(t.lineups)} ({x.players} players): {', '.join(x.labels)}",
                            file=sys.stderr,
                            flush=True,
                        )
                    cfg.output.mkdir(
                        parents=True, exist_ok=True
                    )  # the lineup's run config, as dynasty run keeps it
                    store.atomic_write(cfg.output / "config.toml", to_toml(x.run).encode())
                    s = runner.run(cfg, workers=workers, progress=progress)
                    runs += 1
                    played += s.played
                    if s.status != "complete":
                        raise KeyboardInterrupt
    except KeyboardInterrupt:
        status = "interrupted"
    except BaseException:
        status = "failed"
        raise
    finally:
        session.update(finished=_now(), status=status, games_played=played)
        m["complete"] = all(games_done(x) >= x.config.games for x in t.lineups)
        write_manifest(t, m)
    total = sum(games_done(x) for x in t.lineups)
    return TournamentSummary(t.output, status, total, played, len(t.lineups))


def lineup_count(k: int, n: int, kind: str = "combinations") -> int:
    """``C(k, n)``, times ``(n-1)!`` circular orders with ``permutations`` (for n > 2)."""
    return math.comb(k, n) * (math.factorial(n - 1) if kind == "permutations" and n > 2 else 1)
