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
    schedule = "combinations"        # or "permutations", or "gauntlet" (see below)
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

**The gauntlet.**  ``schedule = "gauntlet"`` with ``focus = ["mypkg.agents:greedy"]`` (names of
pool agents) rates newcomers against the rest of the pool, the baselines, without playing the
baselines among themselves.  A lineup is one focus agent and ``n-1`` baselines: for every focus
agent, every ``(n-1)``-subset of the ``B`` baselines (``F C(B, n-1)`` lineups), the focus agent
in seat 0 and the baselines in pool order, each played with ``seats = "rotate"`` as above.  So on
every deal the focus agent sits in each seat once, against every combination of baselines
equally often (each baseline in ``C(B-1, n-2)`` of its lineups), and every baseline also plays
every seat equally often.  Two focus agents never share a lineup: each newcomer is measured
against the baselines only, so adding a second newcomer changes nothing of the first's games.
One circular order is played per combination, so for ``n >= 3`` who follows the focus agent is
not balanced (as with ``combinations``).  ``anchors`` (any schedule) holds agents' ratings at
given values, and only the others are fitted on that scale (:func:`fit_ratings`'s ``fixed``):
``anchors = "results/ladder/report/ratings.csv"`` (a tournament report's ``ratings.csv``: the
rows of this pool's agents at each player count; rows of other agents are ignored) or an inline
table ``anchors = { heuristic = 0.0, "mcts:100" = 310.0 }`` (the same values at every player
count).  Focus agents are never anchored.  Anchors change only the report, so they can be set
or changed after the games are played.

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

import csv
import dataclasses
import itertools
import json
import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from agents.table import PYTHON
from experiments.run.config import MAX_SEED, ConfigError, ExperimentConfig, from_dict

FORMAT = "dynasty-lab-tournament"
VERSION = 1
REQUIRED = ("game", "players", "pool", "deals", "seed", "output")
OPTIONAL = (
    "name",
    "description",
    "options",
    "schedule",
    "chunk_size",
    "round_deals",
    "focus",
    "anchors",
)
# default: the deals are played in about this many rounds (round_deals = ceil(deals / ROUNDS))
ROUNDS = 4
SCHEDULES = ("combinations", "permutations", "gauntlet")


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
    focus: tuple[str, ...] = ()  # a gauntlet's focus agents (labels)
    # held ratings per player count: {players: {label: rating}}, and where they come from
    anchors: dict[int, dict[str, float]] = dataclasses.field(default_factory=dict)
    anchors_source: str = ""
    kind: ClassVar[str] = "tournament"  # the planner's name in messages

    def identity(self) -> dict[str, Any]:
        ident = {
            "game": self.game,
            "players": list(self.players),
            "pool": list(self.pool),
            "deals": self.deals,
            "seed": self.seed,
            "schedule": self.schedule,
            "options": self.options,
        }
        if self.focus:  # anchors are not here: they change the report, not the games
            ident["focus"] = list(self.focus)
        return ident

    def lineups_of(self, players: int) -> list[Lineup]:
        return [x for x in self.lineups if x.players == players]


def schedule(
    k: int, n: int, kind: str = "combinations", focus: Sequence[int] = ()
) -> list[tuple[int, ...]]:
    """The lineups (pool indices per seat, before rotation) of ``n``
    players from a pool of ``k``; ``gauntlet``: each ``focus`` agent with every ``n-1`` others."""
    out = []
    if kind == "gauntlet":
        baselines = [a for a in range(k) if a not in focus]
        return [(f,) + c for f in focus for c in itertools.combinations(baselines, n - 1)]
    for combo in itertools.combinations(range(k), n):
        if kind == "combinations" or n <= 2:
            out.append(combo)
        else:  # every circular order: the first agent fixed, the others in every order
            out.extend((combo[0],) + rest for rest in itertools.permutations(combo[1:]))
    return out


def _fail(source: str, msg: str) -> ConfigError:
    return ConfigError(f"{source}: {msg}")


def _focus(data: dict[str, Any], labels: list[str], sched: str, source: str) -> tuple[str, ...]:
    """A gauntlet's focus agents (labels of the pool), checked."""
    focus = data.get("focus")
    if sched != "gauntlet":
        if focus is not None:
            raise _fail(source, 'focus: only a gauntlet has focus agents (schedule = "gauntlet")')
        return ()
    if focus is None:
        raise _fail(source, 'focus: schedule = "gauntlet" needs focus = [the pool agents to rate]')
    if not isinstance(focus, list) or not focus or not all(isinstance(f, str) for f in focus):
        raise _fail(source, f"focus: expected a list of names of pool agents, got {focus!r}")
    for i, f in enumerate(focus):
        if f not in labels:
            raise _fail(source, f"focus[{i}]: {f!r} is not in the pool (pool: {', '.join(labels)})")
        if f in focus[:i]:
            raise _fail(source, f"focus[{i}]: {f!r} is listed twice")
    return tuple(focus)


def _anchors(
    data: dict[str, Any], labels: list[str], focus: tuple[str, ...], players: list[int], source: str
) -> tuple[dict[int, dict[str, float]], str]:
    """The held ratings per player count and where they come from: a ratings CSV (columns
    ``agent``, ``rating``, optionally ``players``) or an inline table of ratings."""
    anchors = data.get("anchors")
    if anchors is None:
        return {}, ""
    free = [a for a in labels if a not in focus]
    if isinstance(anchors, dict):
        table: dict[str, float] = {}
        for a, v in anchors.items():
            if a not in labels:
                raise _fail(
                    source, f"anchors: {a!r} is not in the pool (pool: {', '.join(labels)})"
                )
            if a in focus:
                raise _fail(source, f"anchors: {a!r} is a focus agent; the gauntlet rates it")
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise _fail(source, f"anchors: {a!r}: expected a rating (a number), got {v!r}")
            table[a] = float(v)
        if not table:
            raise _fail(source, "anchors: the table names no agent")
        held, where = dict.fromkeys(players, table), "the config"
    elif isinstance(anchors, str) and anchors.strip():
        held, where = _anchors_csv(Path(anchors), free, players, source), anchors
    else:
        raise _fail(
            source,
            "anchors: expected a ratings CSV (a tournament report's ratings.csv) or a table "
            f"{{agent = rating}}, got {anchors!r}",
        )
    if any(len(h) == len(labels) for h in held.values()):
        raise _fail(source, "anchors: every agent of the pool is anchored: none is left to rate")
    return held, where


def _anchors_csv(
    path: Path, free: list[str], players: list[int], source: str
) -> dict[int, dict[str, float]]:
    try:
        with path.open(newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        reason = getattr(e, "strerror", None) or e
        raise _fail(source, f"anchors: cannot read {path} ({reason})") from None
    if not rows or not {"agent", "rating"} <= set(rows[0]):
        raise _fail(
            source,
            f"anchors: {path} has no rows with columns agent and rating "
            "(as in a tournament report's ratings.csv)",
        )
    held: dict[int, dict[str, float]] = {}
    for n in players:
        table = {}
        for line, r in enumerate(rows, start=2):
            if r["agent"] not in free or r.get("players", str(n)) != str(n):
                continue
            try:
                table[r["agent"]] = float(r["rating"])
            except (TypeError, ValueError):
                raise _fail(
                    source, f"anchors: {path} line {line}: rating {r['rating']!r} is not a number"
                ) from None
            if not math.isfinite(table[r["agent"]]):
                raise _fail(source, f"anchors: {path} line {line}: rating is not finite")
        if not table:
            raise _fail(
                source,
                f"anchors: {path} rates none of {', '.join(free)} at {n} players",
            )
        held[n] = table
    return held


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


def check_keys(
    data: dict[str, Any], source: str, required: tuple[str, ...], optional: tuple[str, ...]
) -> None:
    """:class:`ConfigError` for the first unknown or missing key of a config table."""
    unknown = sorted(set(data) - set(required) - set(optional))
    if unknown:
        raise _fail(
            source, f"unknown key {unknown[0]!r} (allowed: {', '.join(required + optional)})"
        )
    missing = [k for k in required if k not in data]
    if missing:
        raise _fail(source, f"missing key {missing[0]!r} (required: {', '.join(required)})")


def deal_fields(data: dict[str, Any], source: str) -> tuple[int, int, int, Path]:
    """The config's ``deals``, ``round_deals`` (default: a quarter of the deals, rounded up),
    ``seed`` and ``output`` folder, each checked (:class:`ConfigError` naming the field)."""

    def count(key: str, v: Any, low: int = 1, high: int | None = None) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < low or (high and v > high):
            want = f"an integer {low}..{high}" if high else "a positive integer"
            raise _fail(source, f"{key}: expected {want}, got {v!r}")
        return v

    deals = count("deals", data["deals"])
    round_deals = count("round_deals", data.get("round_deals", -(-deals // ROUNDS)))
    seed = count("seed", data["seed"], 0, MAX_SEED)
    output = data["output"]
    if not isinstance(output, str) or not output.strip():
        raise _fail(source, f"output: expected a folder name, got {output!r}")
    return deals, round_deals, seed, Path(output)


def player_counts(data: dict[str, Any], source: str) -> list[int]:
    """The config's ``players``: one count or a list of distinct ones."""
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
    return players


def agent_labels(
    data: dict[str, Any], entries: list[tuple[str, Any]], players: int, source: str, twice: str
) -> list[str]:
    """The label of every ``(field, agent)`` entry, each checked once through an ordinary run
    config (its error names ``field``); a label given twice is refused (``twice`` says where)."""
    out = Path(data["output"])
    labels: list[str] = []
    for where, entry in entries:
        base = {
            "game": data["game"],
            "players": players,
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
                msg = f"{where}: " + msg[len("agents[0]: ") :]
            raise _fail(source, msg) from None
        label = cfg.agents[0].label
        if label in labels:
            raise _fail(
                source,
                f"{where}: {label!r} is {twice} twice (a copy needs its own label: "
                f'{{kind = ..., label = "{label}-b"}})',
            )
        labels.append(label)
    return labels


def make_lineup(
    data: dict[str, Any],
    source: str,
    idx: int,
    n: int,
    agents: tuple[int, ...],
    pool: list[Any],
    deals: int,
    seed: int,
    name: str,
    description: str,
) -> Lineup:
    """Lineup ``idx`` (``agents``: indices into ``pool``) as an ordinary run config in its own
    folder, checked (:class:`ConfigError` naming the lineup if bad)."""
    run = {
        "name": f"{name} p{n} lineup {idx}",
        "description": description,
        "game": data["game"],
        "players": n,
        "agents": [pool[a] for a in agents],
        "seats": "rotate",
        "games": deals * n,
        "seed": seed,
        "output": str(Path(data["output"]) / "lineups" / f"p{n}-{idx:03d}"),
        "options": data.get("options", {}),
    }
    if "chunk_size" in data:
        run["chunk_size"] = data["chunk_size"]
    # not a file: the lineup folder gets no copy of the tournament's TOML
    where = f"{source}, lineup {idx}"
    try:
        cfg = from_dict(run, where)
    except ConfigError as e:
        raise _fail(source, f"lineup {idx} ({n} players): {str(e)[len(where) + 2 :]}") from None
    if any(a.kind == PYTHON for a in cfg.agents):
        # the report's page of its first game: a Python agent's game recorded as played
        run["replays"] = 1
        cfg = dataclasses.replace(cfg, replays=1)
    return Lineup(idx, n, tuple(agents), cfg, run)


def tournament_from_dict(data: dict[str, Any], source: str = "tournament") -> Tournament:
    """Validate a tournament table; :class:`ConfigError` naming the file and field if bad."""
    check_keys(data, source, REQUIRED, OPTIONAL)
    players = player_counts(data, source)
    pool = data["pool"]
    if not isinstance(pool, list) or len(pool) < 2:
        raise _fail(source, f"pool: expected a list of at least 2 agents, got {pool!r}")
    deals, round_deals, seed, out = deal_fields(data, source)
    sched = data.get("schedule", "combinations")
    if sched not in SCHEDULES:
        raise _fail(source, f"schedule: {sched!r} is not allowed (allowed: {', '.join(SCHEDULES)})")
    name = data.get("name", out.name or "tournament")
    description = data.get("description", "")

    entries = [(f"pool[{i}]", entry) for i, entry in enumerate(pool)]
    labels = agent_labels(data, entries, players[0], source, "in the pool")
    focus = _focus(data, labels, sched, source)
    anchors, anchors_source = _anchors(data, labels, focus, players, source)
    focus_index = [labels.index(f) for f in focus]

    lineups: list[Lineup] = []
    for n in players:
        if focus and len(pool) - len(focus) < n - 1:
            raise _fail(
                source,
                f"players: a gauntlet of {n} players needs at least {n - 1} baselines "
                f"(the pool has {len(pool) - len(focus)} agents besides the focus)",
            )
        if n > len(pool):
            raise _fail(
                source,
                f"players: {n} players need a pool of at "
                f"least {n} agents (the pool has {len(pool)})",
            )
        for agents in schedule(len(pool), n, sched, focus_index):
            idx = len(lineups)
            about = f"lineup {idx} of tournament {name}"
            lineups.append(
                make_lineup(data, source, idx, n, agents, pool, deals, seed, name, about)
            )
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
        focus=focus,
        anchors=anchors,
        anchors_source=anchors_source,
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

    m = open_plan(t.output, "tournament.json", FORMAT, t.identity(), t.source, t.kind)
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


def lineup_count(k: int, n: int, kind: str = "combinations", focus: int = 0) -> int:
    """``C(k, n)``, times ``(n-1)!`` circular orders with ``permutations`` (for n > 2); a
    gauntlet of ``focus`` agents: ``focus C(k - focus, n - 1)``."""
    if kind == "gauntlet":
        return focus * math.comb(k - focus, n - 1)
    return math.comb(k, n) * (math.factorial(n - 1) if kind == "permutations" and n > 2 else 1)
