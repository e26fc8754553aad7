"""``dynasty study``: one base experiment, sweep axes -> cells, each an ordinary run on shared
deals.

A study config (TOML) holds a base experiment (an experiment config without ``output`` and
``games``) and either sweep axes, whose every combination is a cell (a grid), or an explicit
list of cells.  Each cell is an ordinary results folder ``OUT/cells/<NN>-<name>/`` played by
:func:`experiments.run.runner.run` (resumable, the same Parquet schema, the varied values as
``opt_*`` / ``c_*`` / ``players`` / ``agent`` columns).  Every cell uses the base's master seed,
so game ``i`` of every cell has the same deal index and the same seeds: differences between
cells are paired per deal (common random numbers; :mod:`experiments.study.stats`).

Axes::

    [axes]
    players = [2, 3, 4, 5]                      # player counts
    agents = [["heuristic", "random"], ["random"]]   # lineups
    [axes.options]                              # rule options (`dynasty games`)
    noble_vp_table = ["default_4_4_4", "alt_a_6_4_2"]
    [axes.components]                           # component values (sim/components.py)
    "goal_cards[*].vp" = [3, 4, 5]

or ``[[cells]]`` tables with any of ``name``, ``players``, ``agents``, ``options``,
``components``.  The budget is ``games`` per cell, or a ``[stop]`` table (``precision``,
``max_games``, ``batch``): the study then plays in batches until every key interval is that
narrow (docs/studies.md, "Stopping at a precision").

``[[tiers]]`` tables (each ``name`` and ``agents``, a lineup) play every cell again with each
tier's lineup, on the same deals (``OUT/tiers/<NN>-<tier>/<NN>-<cell>/``); each tier's effects are
against its own baseline cell, and the report compares the tiers (:mod:`experiments.study.tiers`).

The study folder holds ``study.json`` (the validated study, its cells and every look of the
stopping rule), ``study.toml`` (the file as given) and ``report/``.  Running the same study
again resumes it: finished cells are left as they are, unfinished ones continue; a folder
made by another study config is refused.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from experiments.run.config import ConfigError, ExperimentConfig, from_dict

FORMAT = "dynasty-lab-study"
VERSION = 1
REQUIRED = ("base", "output")
OPTIONAL = (
    "name",
    "description",
    "axes",
    "cells",
    "games",
    "stop",
    "baseline",
    "key",
    "confidence",
    "tiers",
)
AXIS_KEYS = ("players", "agents", "options", "components")
CELL_KEYS = ("name",) + AXIS_KEYS
STOP_KEYS = ("precision", "max_games", "batch")
KEYS = ("seat", "agent")
TIER_KEYS = ("name", "agents")
BASE_FORBIDDEN = ("output", "games", "replays")


@dataclass(frozen=True)
class Cell:
    """One cell: its name, the values it varies (``{axis: value}``) and its run config."""

    index: int
    name: str
    values: dict[str, Any]
    config: ExperimentConfig
    tier: str = ""  # the skill tier's name ("" in a study without tiers)
    variant: str = ""  # the cell's name within its tier (its name without the tier)

    @property
    def folder(self) -> Path:
        return Path(self.config.output)


@dataclass(frozen=True)
class Stop:
    precision: float
    max_games: int
    batch: int

    @property
    def looks(self) -> int:
        """The pre-set number of looks (interim analyses): one after each batch."""
        return math.ceil(self.max_games / self.batch)


@dataclass(frozen=True)
class Tier:
    """A skill tier: every cell of the study played again by this lineup, on the same deals."""

    name: str
    agents: list


@dataclass(frozen=True)
class Study:
    name: str
    description: str
    output: Path
    base: dict[str, Any]
    cells: tuple[Cell, ...]
    axes: dict[str, list] = field(default_factory=dict)  # grid axes (empty for an explicit list)
    games: int | None = None
    stop: Stop | None = None
    baseline: int = 0
    key: str = "seat"
    confidence: float = 0.95
    source: str = ""
    tiers: tuple[Tier, ...] = ()  # skill tiers; cells are tier-major (docs/studies.md)

    @property
    def varied(self) -> list[str]:
        """The axis names the cells vary, in order (``options.x``, ``components.p``,
        ``players``, ``agents``)."""
        seen: list[str] = []
        for c in self.cells:
            for k in c.values:
                if k not in seen:
                    seen.append(k)
        return seen

    def identity(self) -> dict[str, Any]:
        """What determines the study's results (a resumed study must match it).  A study
        without tiers has the identity it had before tiers existed."""
        ident = {
            "base": self.base,
            "cells": [{"name": c.name, "values": c.values} for c in self.cells],
            "games": self.games,
            "stop": None if self.stop is None else vars(self.stop),
            "key": self.key,
            "confidence": self.confidence,
            "baseline": self.baseline,
        }
        if self.tiers:
            ident["tiers"] = [{"name": t.name, "agents": t.agents} for t in self.tiers]
        return ident

    def tier_groups(self, cells: list[Cell] | None = None) -> list[tuple[str, list[Cell]]]:
        """The cells by tier, ``(tier name, its cells)`` in order; ``baseline`` is a position
        within each.  One group named "" for a study without tiers."""
        cells = list(self.cells if cells is None else cells)
        if not self.tiers:
            return [("", cells)]
        n = len(cells) // len(self.tiers)
        return [(t.name, cells[i * n : (i + 1) * n]) for i, t in enumerate(self.tiers)]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9=,._+-]+", "_", text)[:80].strip("_") or "cell"


def _value_text(v: Any) -> str:
    if isinstance(v, list):
        return "+".join(map(str, v))
    return str(v)


def _fail(source: str, where: str, msg: str) -> ConfigError:
    return ConfigError(f"{source}: {where}: {msg}")


def _axis_values(source: str, axes: dict) -> list[tuple[str, list]]:
    """The grid axes as (axis name, values): ``players``, ``agents``, ``options.<name>``,
    ``components.<path>``."""
    out: list[tuple[str, list]] = []
    unknown = sorted(set(axes) - set(AXIS_KEYS))
    if unknown:
        raise _fail(source, f"axes.{unknown[0]}", f"unknown axis (allowed: {', '.join(AXIS_KEYS)})")
    for k in AXIS_KEYS:
        if k not in axes:
            continue
        if k in ("options", "components"):
            if not isinstance(axes[k], dict):
                raise _fail(source, f"axes.{k}", "expected a table of name = [values]")
            items = [(f"{k}.{name}", vals) for name, vals in axes[k].items()]
        else:
            items = [(k, axes[k])]
        for name, vals in items:
            if not isinstance(vals, list):
                raise _fail(source, f"axes.{name}", f"expected a list of values, got {vals!r}")
            if not vals:
                raise _fail(source, f"axes.{name}", "empty sweep: give at least one value")
            if len({json.dumps(v) for v in vals}) != len(vals):
                raise _fail(source, f"axes.{name}", "a value is listed twice")
            out.append((name, vals))
    return out


def _apply(base: dict, values: dict[str, Any]) -> dict:
    d = copy.deepcopy(base)
    for name, v in values.items():
        if name.startswith("options."):
            d.setdefault("options", {})[name[len("options.") :]] = v
        elif name.startswith("components."):
            d.setdefault("components", {})[name[len("components.") :]] = v
        else:
            d[name] = v
    return d


def _check_axis_value(source: str, where: str, game: str, name: str, v: Any) -> None:
    """One line naming the axis for a value the game refuses (before whole cells are checked)."""
    from agents.spec import parse_agent
    from sim.components import ComponentError, validate
    from sim.core import OptionError
    from sim.registry import get_game

    spec = get_game(game)
    try:
        if name.startswith("options."):
            opt = {o.name: o for o in spec.options}.get(name[8:])
            if opt is None:
                raise OptionError(
                    f"{game}: unknown option {name[8:]!r} (known: "
                    f"{', '.join(o.name for o in spec.options)})"
                )
            opt.encode(v)
        elif name.startswith("components."):
            validate(spec, {name[11:]: v})
        elif name == "players":
            if isinstance(v, bool) or not isinstance(v, int) or v not in spec.players():
                raise OptionError(
                    f"{game}: {v!r} players is not allowed (allowed: "
                    f"{', '.join(map(str, spec.players()))})"
                )
        elif name == "agents":
            for a in v if isinstance(v, list) else [v]:
                parse_agent(a)
    except (OptionError, ComponentError, ValueError) as e:
        raise _fail(source, where, str(e)) from None


def read_config(path: str | Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """A study config file's table, ``overrides`` replacing top-level keys (e.g. a small
    ``games`` and another ``output`` for a quick run of a worked study; ``games`` drops the
    ``[stop]`` rule); ConfigError if it cannot be read or is not TOML."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the study config ({e.strerror or e})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    if overrides:
        data.update(overrides)
        if "games" in overrides:
            data.pop("stop", None)
    return data


def load_study(path: str | Path, overrides: dict[str, Any] | None = None) -> Study:
    """Read and validate a study config; ConfigError ("<file>: <field>: <problem>") if bad
    (``overrides``: :func:`read_config`)."""
    return study_from_dict(read_config(path, overrides), str(path))


def study_from_dict(data: dict[str, Any], source: str = "study") -> Study:
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise _fail(source, unknown[0], f"unknown key (allowed: {', '.join(REQUIRED + OPTIONAL)})")
    for k in REQUIRED:
        if k not in data:
            raise ConfigError(f"{source}: missing key {k!r} (required: {', '.join(REQUIRED)})")
    base = data["base"]
    if not isinstance(base, dict):
        raise _fail(
            source, "base", "expected a table: an experiment config without output and games"
        )
    for k in BASE_FORBIDDEN:
        if k in base:
            raise _fail(
                source,
                f"base.{k}",
                "set by the study, not the base "
                f"({'the study output' if k == 'output' else 'games or [stop]'})",
            )
    if not isinstance(data["output"], str) or not data["output"].strip():
        raise _fail(source, "output", f"expected a folder name, got {data['output']!r}")
    output = Path(data["output"])
    game = base.get("game")

    # the budget
    games = data.get("games")
    stop = None
    if ("games" in data) == ("stop" in data):
        raise _fail(
            source,
            "games",
            "give either games (per cell) or a [stop] table (precision, max_games, batch)",
        )
    if games is not None and (isinstance(games, bool) or not isinstance(games, int) or games < 1):
        raise _fail(source, "games", f"expected a positive integer, got {games!r}")
    if "stop" in data:
        s = data["stop"]
        if not isinstance(s, dict):
            raise _fail(source, "stop", "expected a table with precision, max_games, batch")
        bad = sorted(set(s) - set(STOP_KEYS)) or [k for k in STOP_KEYS if k not in s]
        if bad:
            raise _fail(
                source, f"stop.{bad[0]}", f"expected exactly the keys {', '.join(STOP_KEYS)}"
            )
        p = s["precision"]
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p < 1:
            raise _fail(
                source, "stop.precision", f"expected a half-width between 0 and 1, got {p!r}"
            )
        for k in ("max_games", "batch"):
            if isinstance(s[k], bool) or not isinstance(s[k], int) or s[k] < 1:
                raise _fail(source, f"stop.{k}", f"expected a positive integer, got {s[k]!r}")
        if s["batch"] > s["max_games"]:
            raise _fail(
                source, "stop.batch", f"{s['batch']} is more than max_games {s['max_games']}"
            )
        stop = Stop(float(p), s["max_games"], s["batch"])

    key = data.get("key", "seat")
    if key not in KEYS:
        raise _fail(source, "key", f"{key!r} is not allowed (allowed: {', '.join(KEYS)})")
    confidence = data.get("confidence", 0.95)
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, float)
        or not 0.5 <= confidence < 1
    ):
        raise _fail(source, "confidence", f"expected a level such as 0.95, got {confidence!r}")

    # the cells
    if "axes" in data and "cells" in data:
        raise _fail(
            source, "cells", "give either [axes] (a grid) or [[cells]] (an explicit list), not both"
        )
    if "axes" not in data and "cells" not in data:
        raise _fail(source, "axes", "empty sweep: give [axes] or [[cells]]")
    raw_cells: list[tuple[str, dict[str, Any], str]] = []  # (name, values, where)
    axes: dict[str, list] = {}
    if "axes" in data:
        if not isinstance(data["axes"], dict):
            raise _fail(source, "axes", "expected a table of axis = [values]")
        items = _axis_values(source, data["axes"])
        if not items:
            raise _fail(source, "axes", "empty sweep: no axis given")
        axes = dict(items)
        for n, vals in items:
            for j, v in enumerate(vals):
                if isinstance(game, str):
                    # (a bad base game is reported by the cell's config below)
                    _check_axis_value(source, f"axes.{n}[{j}]", game, n, v)
        for combo in itertools.product(*[v for _, v in items]):
            values = {n: v for (n, _), v in zip(items, combo)}
            name = ",".join(f"{n.split('.', 1)[-1]}={_value_text(v)}" for n, v in values.items())
            raw_cells.append((name, values, "axes"))
    else:
        cells = data["cells"]
        if not isinstance(cells, list) or not cells:
            raise _fail(source, "cells", "empty sweep: give at least one [[cells]] table")
        for i, c in enumerate(cells):
            if not isinstance(c, dict):
                raise _fail(source, f"cells[{i}]", "expected a table")
            bad = sorted(set(c) - set(CELL_KEYS))
            if bad:
                raise _fail(
                    source, f"cells[{i}].{bad[0]}", f"unknown key (allowed: {', '.join(CELL_KEYS)})"
                )
            values: dict[str, Any] = {}
            for k in AXIS_KEYS:
                if k not in c:
                    continue
                if k in ("options", "components"):
                    if not isinstance(c[k], dict):
                        raise _fail(source, f"cells[{i}].{k}", "expected a table of name = value")
                    values.update({f"{k}.{n}": v for n, v in c[k].items()})
                else:
                    values[k] = c[k]
            for n, v in values.items():
                if isinstance(game, str):
                    _check_axis_value(source, f"cells[{i}].{n}", game, n, v)
            name = (
                c.get("name")
                or ",".join(f"{n.split('.', 1)[-1]}={_value_text(v)}" for n, v in values.items())
                or "base"
            )
            if not isinstance(name, str):
                raise _fail(source, f"cells[{i}].name", f"expected a string, got {name!r}")
            raw_cells.append((name, values, f"cells[{i}]"))
    names = [n for n, _, _ in raw_cells]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise _fail(source, "cells", f"two cells are the same ({dup!r})")

    tiers = _tiers(source, data, game, raw_cells)
    budget = games if games is not None else stop.batch
    built: list[Cell] = []
    for t, tier in enumerate(tiers or [None]):
        for j, (name, values, where) in enumerate(raw_cells):
            i = t * len(raw_cells) + j
            d = _apply(base, values)
            folder = output / "cells" / f"{i:02d}-{_slug(name)}"
            full, extra = name, {}
            if tier is not None:
                d["agents"] = copy.deepcopy(tier.agents)
                full = f"{tier.name}: {name}"
                folder = output / "tiers" / f"{t:02d}-{_slug(tier.name)}" / f"{j:02d}-{_slug(name)}"
                where = f"tiers[{t}] ({tier.name}), {where}"
                extra = {"tier": tier.name, "variant": name}
            built.append(
                _build_cell(source, data, i, full, values, where, d, folder, budget, extra)
            )

    baseline = data.get("baseline", 0)
    if isinstance(baseline, str):
        if baseline not in names:
            raise _fail(
                source, "baseline", f"no cell named {baseline!r} (cells: {', '.join(names)})"
            )
        baseline = names.index(baseline)
    elif (
        isinstance(baseline, bool)
        or not isinstance(baseline, int)
        or not 0 <= baseline < len(raw_cells)
    ):
        raise _fail(
            source,
            "baseline",
            f"expected a cell name or an index 0..{len(raw_cells) - 1}, got {baseline!r}",
        )

    name = data.get("name", output.name or "study")
    description = data.get("description", "")
    if not isinstance(name, str) or not isinstance(description, str):
        raise _fail(source, "name", "name and description must be strings")
    return Study(
        name=name,
        description=description,
        output=output,
        base=copy.deepcopy(base),
        cells=tuple(built),
        axes=axes,
        games=games,
        stop=stop,
        baseline=baseline,
        key=key,
        confidence=confidence,
        source=source,
        tiers=tuple(tiers),
    )


def _build_cell(source, data, i, name, values, where, d, folder, budget, extra) -> Cell:
    """One cell's run config: the base with the cell's values, its folder and its budget."""
    d["output"] = str(folder)
    d["name"] = name
    d.setdefault("description", data.get("description", ""))
    d.setdefault(
        "score_trace", True
    )  # the design metrics' lead changes (base.score_trace = false: off)
    d["games"] = 60  # a multiple of any number of rotations (1..5 seats); the budget comes next
    probe = from_dict(d, f"{source}: {where} ({name})")
    d["games"] = round_games(budget, probe)
    return Cell(i, name, values, from_dict(d, f"{source}: {where} ({name})"), **extra)


def _tiers(source: str, data: dict, game: Any, raw_cells: list) -> list[Tier]:
    """The ``[[tiers]]`` tables (each ``name`` and ``agents``, a lineup), checked; [] if none."""
    if "tiers" not in data:
        return []
    raw = data["tiers"]
    if not isinstance(raw, list) or len(raw) < 2:
        raise _fail(
            source, "tiers", "expected at least two [[tiers]] tables, each with name and agents"
        )
    out: list[Tier] = []
    for t, tier in enumerate(raw):
        where = f"tiers[{t}]"
        if not isinstance(tier, dict):
            raise _fail(source, where, "expected a table with name and agents")
        bad = sorted(set(tier) - set(TIER_KEYS)) or [k for k in TIER_KEYS if k not in tier]
        if bad:
            raise _fail(
                source, f"{where}.{bad[0]}", f"expected exactly the keys {', '.join(TIER_KEYS)}"
            )
        name, agents = tier["name"], tier["agents"]
        if not isinstance(name, str) or not name.strip():
            raise _fail(source, f"{where}.name", f"expected a tier name, got {name!r}")
        if name in [x.name for x in out]:
            raise _fail(source, f"{where}.name", f"two tiers are named {name!r}")
        if not isinstance(agents, list) or not agents:
            raise _fail(source, f"{where}.agents", f"expected a lineup (a list), got {agents!r}")
        if isinstance(game, str):
            _check_axis_value(source, f"{where}.agents", game, "agents", agents)
        out.append(Tier(name, agents))
    varied = next((w for _, v, w in raw_cells if "agents" in v), None)
    if varied is not None:
        raise _fail(
            source, f"{varied}.agents", "the tiers set the lineup: a cell cannot vary agents too"
        )
    return out


def round_games(games: int, cfg: ExperimentConfig) -> int:
    """``games`` rounded down to whole deals of the cell's rotations (at least one deal)."""
    from experiments.run.plan import rotations_of

    r = len(rotations_of(cfg.lineup, cfg.seats == "rotate"))
    return max(r, games - games % r)


def with_games(cell: Cell, games: int) -> Cell:
    """The cell with another game budget (rounded to whole deals); same identity,
    so it extends the run."""
    d = dict(cell.config.__dict__)
    d["games"] = round_games(games, cell.config)
    return replace(cell, config=ExperimentConfig(**d))


# --------------------------------------------------------------------------- manifest


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def open_study(study: Study) -> dict[str, Any]:
    """The study's manifest: a new one, or the folder's own if it was made by
    the same study config."""
    from experiments.run.store import open_plan

    m = open_plan(study.output, "study.json", FORMAT, study.identity(), study.source, "study")
    if m is not None:
        return m
    ident = json.loads(json.dumps(study.identity()))
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": study.name,
        "identity": ident,
        "cells": [
            {"index": c.index, "name": c.name, "values": c.values, "folder": str(c.folder)}
            | ({"tier": c.tier} if c.tier else {})
            for c in study.cells
        ],
        "baseline": study.baseline,
        "looks": [],
        "sessions": [],
        "complete": False,
    }


def write_study_manifest(study: Study, m: dict[str, Any]) -> None:
    from experiments.run.store import write_json

    write_json(study.output / "study.json", m)


# --------------------------------------------------------------------------- running


@dataclass
class StudySummary:
    output: Path
    status: str
    games: dict[str, int]
    looks: list[dict[str, Any]]
    stopped_by: str = ""


def run_study(
    study: Study,
    *,
    workers: int | None = None,
    address: str | None = None,
    progress: bool = True,
    niceness: int | None = None,
    stop_after_cells: int | None = None,
) -> StudySummary:
    """Play every cell (resuming what is there); with ``[stop]``, batch after batch until precise.

    One Ray session serves every cell, so the workers compile the game once for the whole study.
    ``stop_after_cells`` ends the session after that many cell runs, as an interruption would
    (tests).
    """
    from experiments.run import runner, store

    m = open_study(study)
    study.output.mkdir(parents=True, exist_ok=True)
    if study.source and Path(study.source).is_file():
        store.atomic_write(study.output / "study.toml", Path(study.source).read_bytes())
    session = {"started": _now(), "status": "running"}
    m["sessions"].append(session)
    write_study_manifest(study, m)

    status = "complete"
    stopped_by = ""
    try:
        with runner.ray_session(address, workers, niceness):
            stopped_by = _play_study(study, m, workers, progress, stop_after_cells)
    except KeyboardInterrupt:
        status = "interrupted"
    except BaseException:
        status = "failed"
        raise
    finally:
        session.update(finished=_now(), status=status, stopped_by=stopped_by)
        m["complete"] = status == "complete"
        m["stopped_by"] = stopped_by or m.get("stopped_by", "")
        write_study_manifest(study, m)
    games = {}
    for c in study.cells:
        games[c.name] = sum(b - a for a, b in store.done_ranges(c.folder, c.config.game))
    return StudySummary(study.output, status, games, m["looks"], stopped_by)


def _play_study(study: Study, m: dict, workers, progress, stop_after_cells) -> str:
    """Play the study's cells (by looks when it stops at a precision); what stopped it."""
    from experiments.run import runner, store
    from experiments.run.plan import missing_ranges

    runs = 0
    stopped_by = ""

    def play(cells: list[Cell]) -> bool:
        nonlocal runs
        for c in cells:
            if not missing_ranges(store.done_ranges(c.folder, c.config.game), c.config.games):
                continue  # already played (a resumed study, or an earlier look of a larger one)
            if stop_after_cells is not None and runs >= stop_after_cells:
                raise KeyboardInterrupt
            s = runner.run(c.config, workers=workers, progress=progress)
            runs += 1
            if s.status != "complete":
                raise KeyboardInterrupt
        return True

    if study.stop is None:
        play(list(study.cells))
        stopped_by = f"fixed budget of {study.games:,} games per cell"
    else:
        from experiments.study.stats import key_intervals

        look = 0
        while True:
            look += 1
            target = min(study.stop.batch * look, study.stop.max_games)
            cells = [with_games(c, target) for c in study.cells]
            play(cells)
            widths = key_intervals(study, cells, look)
            entry = {
                "look": look,
                "games_per_cell": target,
                "alpha": widths["alpha"],
                "max_half_width": widths["max_half_width"],
                "worst": widths["worst"],
            }
            if not any(e["look"] == look for e in m["looks"]):
                m["looks"].append(entry)
                write_study_manifest(study, m)
            if widths["max_half_width"] <= study.stop.precision:
                stopped_by = (
                    f"precision reached at look {look} of {study.stop.looks}: every key interval's "
                    f"half-width <= {study.stop.precision}"
                )
                break
            if target >= study.stop.max_games:
                stopped_by = (
                    f"max_games {study.stop.max_games:,} reached before the precision "
                    f"(widest half-width {widths['max_half_width']:.4f}, {widths['worst']})"
                )
                break
        m["final_games"] = target
    return stopped_by


def final_cells(study: Study) -> list[Cell]:
    """The cells with the game budget the study played
    (after stopping at a precision: the final look's)."""
    if study.stop is None:
        return list(study.cells)
    m = json.loads((study.output / "study.json").read_text())
    target = m.get("final_games") or (
        m["looks"][-1]["games_per_cell"] if m.get("looks") else study.stop.batch
    )
    return [with_games(c, target) for c in study.cells]
