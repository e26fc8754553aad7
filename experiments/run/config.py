"""Experiment configs: a TOML file read into a frozen, validated :class:`ExperimentConfig`.

A config names the game, its options and player count, the agents (one per seat, or one
for every seat), how seats are assigned, how many games, the master seed and the output
folder.  Every mistake (an unknown key, game, option, agent, a bad player count or value)
is reported as one :class:`ConfigError` line naming the file, the field and what is allowed.
The reference, with an example, is docs/experiments.md.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from agents.spec import parse_agent
from agents.table import PYTHON
from experiments.run.plan import rotations_of
from experiments.run.store import ResultsError, location
from sim.components import ComponentError
from sim.components import validate as validate_components
from sim.core import OptionError
from sim.registry import UnknownGameError, game_names, get_game

SEAT_MODES = ("rotate", "fixed")
MAX_SEED = 2**63 - 1

REQUIRED = ("game", "players", "agents", "games", "seed", "output")
OPTIONAL = (
    "name",
    "description",
    "options",
    "seats",
    "chunk_size",
    "replays",
    "components",
    "score_trace",
)


class ConfigError(ValueError):
    """A config that cannot be run; the message is one line naming the field."""


@dataclass(frozen=True)
class Agent:
    """One entry of the agent table: what the arena plays and the label results use."""

    label: str
    kind: int
    params: tuple[float, ...]


@dataclass(frozen=True)
class ExperimentConfig:
    """A validated experiment.

    ``lineup[p]`` is the index in ``agents`` of the agent written for seat ``p``; with
    ``seats = "rotate"`` the lineup is rotated through the seats (see :mod:`experiments.run.plan`).
    ``options`` holds every option of the game, defaults filled in, as decoded values.
    ``chunk_size`` (games per Ray task; ``None`` = automatic) and ``replays`` (number of games
    exported as replays) change how a run is executed, never its results.
    """

    name: str
    game: str
    players: int
    options: Mapping[str, Any]  # read-only
    agents: tuple[Agent, ...]
    lineup: tuple[int, ...]
    seats: str
    games: int
    seed: int
    output: Path  # or a store.FsPath for a filesystem URI (s3://..., file://...)
    description: str = ""
    chunk_size: int | None = None
    replays: int = 0
    source: str = field(default="", compare=False)
    # Component values changed from the game's data files ({path: value}, sim/components.py).
    components: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    # Keep the score trace (lead changes, when the winner is decided: agents/trace.py); off by
    # default for runs, since it costs an ``evaluate`` per round (random Middle Kingdom plays 2-3x
    # slower); studies and tunings turn it on.
    score_trace: bool = False
    # The model files of learned agents ({model name: hash of its bytes}; agents.model).
    models: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def spec(self):
        return get_game(self.game)

    def identity(self) -> dict[str, Any]:
        """What determines the results of game ``i`` (a resumed run must match it)."""
        out = {
            "game": self.game,
            "players": self.players,
            "options": dict(self.options),
            "agents": [a.label for a in self.agents],
            "lineup": list(self.lineup),
            "seats": self.seats,
            "seed": self.seed,
        }
        if self.components:
            # only when changed, so folders of the printed components keep their identity
            out["components"] = dict(self.components)
        if self.score_trace:
            # likewise: only when on (its columns hold the trace, not "not traced")
            out["score_trace"] = True
        if self.models:  # a changed model file is another run
            out["models"] = dict(self.models)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form, saved in the results manifest."""
        return {
            "name": self.name,
            "description": self.description,
            **self.identity(),
            "agent_specs": [
                {"label": a.label, "kind": a.kind, "params": list(a.params)} for a in self.agents
            ],
            "games": self.games,
            "output": str(self.output),
            "chunk_size": self.chunk_size,
            "replays": self.replays,
        }


def _int(where: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise ConfigError(f"{where}: {value} is out of range (allowed: {bound})")
    return value


def _str(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def from_dict(
    data: dict[str, Any], source: str = "config", *, user_agents: bool = True
) -> ExperimentConfig:
    """Validate a parsed TOML table; :class:`ConfigError` ("<source>: <field>: <problem>") if bad.

    A config runs no code of its own.  The one way it can make code run is an agent named by
    module path (``mypkg.agents:greedy``), whose module is imported: ``user_agents=False``
    refuses those (for configs from elsewhere)."""

    def fail(msg: str) -> ConfigError:
        return ConfigError(f"{source}: {msg}")

    try:
        unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
        if unknown:
            raise ConfigError(
                f"unknown key {unknown[0]!r} (allowed: {', '.join(REQUIRED + OPTIONAL)})"
            )
        missing = [k for k in REQUIRED if k not in data]
        if missing:
            raise ConfigError(f"missing key {missing[0]!r} (required: {', '.join(REQUIRED)})")

        game = data["game"]
        if not isinstance(game, str):
            raise ConfigError(
                f"game: expected a game name, got {game!r} (known: {', '.join(game_names())})"
            )
        try:
            spec = get_game(game)
        except UnknownGameError as e:
            raise ConfigError(f"game: {e}") from None

        options = data.get("options", {})
        if not isinstance(options, dict):
            raise ConfigError(f"options: expected a table of option = value, got {options!r}")
        try:
            options = spec.decode_options(spec.encode_options(options))
        except OptionError as e:
            raise ConfigError(f"options: {e}") from None

        raw_components = data.get("components", {})
        if not isinstance(raw_components, dict):
            raise ConfigError(
                f"components: expected a table of path = value, got {raw_components!r}"
            )
        try:
            components = validate_components(spec, raw_components)
        except ComponentError as e:
            raise ConfigError(f"components: {e}") from None

        players = data["players"]
        if isinstance(players, bool) or not isinstance(players, int):
            raise ConfigError(
                f"players: expected an integer, got {players!r} "
                f"(allowed: {', '.join(map(str, spec.players()))})"
            )
        try:
            spec.check_players(players, options)
        except OptionError as e:
            raise ConfigError(f"players: {e}") from None

        raw_agents = data["agents"]
        if isinstance(raw_agents, (str, dict)):
            raw_agents = [raw_agents]
        if not isinstance(raw_agents, list) or not raw_agents:
            raise ConfigError(
                "agents: expected a list of agents such as "
                f"['heuristic', 'random'], got {raw_agents!r}"
            )
        if len(raw_agents) == 1:
            raw_agents = raw_agents * players
        if len(raw_agents) != players:
            raise ConfigError(
                f"agents: {len(raw_agents)} agents for {players} "
                "players (give one per seat, or one for every seat)"
            )
        agents: list[Agent] = []
        lineup: list[int] = []
        for i, raw in enumerate(raw_agents):
            if not user_agents and _names_user_agent(raw):
                raise ConfigError(
                    f"agents[{i}]: {raw!r} is a user agent (a module to import); user agents are "
                    f"not allowed in this config"
                )
            try:
                kind, params, label = parse_agent(raw)
            except ValueError as e:
                raise ConfigError(f"agents[{i}]: {e}") from None
            labels = [a.label for a in agents]
            if label not in labels:
                agents.append(Agent(label, int(kind), tuple(float(x) for x in params)))
                labels.append(label)
            lineup.append(labels.index(label))

        seats = data.get("seats", "rotate")
        if seats not in SEAT_MODES:
            raise ConfigError(f"seats: {seats!r} is not allowed (allowed: {', '.join(SEAT_MODES)})")

        games = _int("games", data["games"], 1)
        seed = _int("seed", data["seed"], 0, MAX_SEED)
        try:
            output = location(_str("output", data["output"]))
        except ResultsError as e:
            raise ConfigError(f"output: {e}") from None
        chunk_size = data.get("chunk_size")
        if chunk_size is not None:
            chunk_size = _int("chunk_size", chunk_size, 1)
        replays = _int("replays", data.get("replays", 0), 0, games)
        reusing = [
            a.label for a in agents if a.kind == 2 and a.params[7] > 0
        ]  # agents.table.MCTS, mcts.P_REUSE
        if reusing and (replays or any(a.kind == PYTHON for a in agents)):
            raise ConfigError(
                f"agents: {reusing[0]!r} reuses its tree, which only the arena's game loop keeps; "
                + (
                    "replays re-play single decisions: set replays = 0"
                    if replays
                    else "a run with a Python agent plays in a Python loop: drop reuse"
                )
            )
        if replays and components:
            raise ConfigError(
                "replays: not available for a run with changed "
                "components (replays use the data files)"
            )
        score_trace = data.get("score_trace", False)
        if not isinstance(score_trace, bool):
            raise ConfigError(f"score_trace: expected true or false, got {score_trace!r}")
        name = _str("name", data.get("name", output.name or "experiment"))
        description = data.get("description", "")
        if not isinstance(description, str):
            raise ConfigError(f"description: expected a string, got {description!r}")

        cfg = ExperimentConfig(
            name=name,
            game=game,
            players=players,
            options=MappingProxyType(dict(options)),
            agents=tuple(agents),
            lineup=tuple(lineup),
            seats=seats,
            games=games,
            seed=seed,
            output=output,
            description=description,
            chunk_size=chunk_size,
            replays=replays,
            source=source,
            components=MappingProxyType(components),
            score_trace=score_trace,
            models=MappingProxyType(_models(spec, players, agents)),
        )
        rots = rotations_of(cfg.lineup, cfg.seats == "rotate")
        if cfg.games % len(rots):
            raise ConfigError(
                f"games: {cfg.games} is not a multiple of the {len(rots)} seat rotations of the "
                f"lineup (use e.g. {cfg.games - cfg.games % len(rots) or len(rots)})"
            )
        return cfg
    except ConfigError as e:
        if str(e).startswith(f"{source}: "):
            raise
        raise fail(str(e)) from None


def _models(spec, players: int, agents) -> dict[str, str]:
    """{model: hash} of the run's learned agents, each checked against the game (ConfigError)."""
    from agents.model import ModelError, digest, load
    from agents.spec import model_name

    out = {}
    for a in agents:
        name = model_name(a.kind, a.label)
        if name is None or name in out:
            continue
        try:
            load(name).check_for(spec, players)
        except ModelError as e:
            raise ConfigError(f"agents: {a.label!r}: {e}") from None
        out[name] = digest(name)
    return out


def _names_user_agent(raw: Any) -> bool:
    from agents.user import is_user_path

    name = raw.get("kind") if isinstance(raw, dict) else raw
    return isinstance(name, str) and is_user_path(name.strip())


MAX_CONFIG_BYTES = 1024 * 1024


def load_config(path: str | Path, *, user_agents: bool = True) -> ExperimentConfig:
    """Read and validate a TOML experiment config (``user_agents``: see :func:`from_dict`)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{path}: larger than {MAX_CONFIG_BYTES // 1024} KiB; not an experiment config"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the config ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {e.start}); a config is a TOML file"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {str(e).splitlines()[0]}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None
    return from_dict(data, str(path), user_agents=user_agents)
