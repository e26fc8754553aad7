"""Replays from untrusted files: every field validated before the engine sees it.

:func:`read_replay` (used by :meth:`sim.game.Game.from_replay`) turns a file, a JSON text or
a dict into a checked replay, or raises :class:`ReplayError`, one line naming the field and
what is allowed.  Nothing from the file is executed: it is parsed as JSON (no pickle, no
eval), the game is looked up among the registered game folders only, and the engine's
kernels (which trust their input, sim.core) are reached only with values inside the
ranges the game declares: option values, player counts, action ids, and chance outcomes
checked by the game's ``chance_problem`` (``sim.<game>.invariants``) against its
components.  A re-play also runs the game's invariants (:mod:`sim.invariants`) after every
decision, so outcomes that fit their ranges but not the game are refused at the first
decision where the state stops making sense.  Replays of another format version or of
another game (when one is expected) are refused with the reason.  Sizes are bounded: at
most ``MAX_REPLAY_BYTES`` of JSON, the game's ``max_decisions`` decisions and
``MAX_CHANCE`` chance outcomes, so a hostile file cannot make a re-play hang.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from sim.core import OptionError

REPLAY_FORMAT = "dynasty-lab-replay"
REPLAY_VERSION = 1
MAX_REPLAY_BYTES = 64 * 1024 * 1024
MAX_CHANCE = 100_000
MAX_SEED = 2**63 - 1
MIN_SEED = -(2**63)
REQUIRED = ("format", "version", "game", "players", "options", "seed", "chance", "decisions")
OPTIONAL = ("scores", "win_shares", "experiment", "play", "fuzz")
DECISION_KEYS = ("player", "action", "name")


class ReplayError(ValueError):
    """A replay that cannot be re-played; the message is one line naming the field."""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _parse(source: Any, where: str) -> Any:
    if isinstance(source, dict):
        return source
    if isinstance(source, (bytes, bytearray)):
        text = bytes(source)
    elif isinstance(source, Path) or (
        isinstance(source, str) and not source.lstrip().startswith("{")
    ):
        path = Path(source)
        try:
            if path.stat().st_size > MAX_REPLAY_BYTES:
                raise ReplayError(
                    f"{where}: larger than {MAX_REPLAY_BYTES // 2**20} MiB; not a replay"
                )
            text = path.read_bytes()
        except OSError as e:
            raise ReplayError(f"{where}: cannot read the replay ({e.strerror or e})") from None
    elif isinstance(source, str):
        text = source.encode("utf-8", "surrogatepass")
    else:
        raise ReplayError(
            f"{where}: expected a replay file, JSON text or dict, got {type(source).__name__}"
        )
    if len(text) > MAX_REPLAY_BYTES:
        raise ReplayError(f"{where}: larger than {MAX_REPLAY_BYTES // 2**20} MiB; not a replay")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ReplayError as e:
        raise ReplayError(f"{where}: {e}") from None
    except RecursionError:
        raise ReplayError(f"{where}: not a replay (JSON nested too deeply)") from None
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError is a ValueError
        raise ReplayError(f"{where}: not valid JSON ({str(e).splitlines()[0][:200]})") from None


def _no_constant(name: str):
    raise ReplayError(f"not valid JSON for a replay: {name} is not a number")


def read_replay(
    source: Any, *, game: str | None = None, where: str | None = None
) -> dict[str, Any]:
    """A validated replay dict from a path, JSON text or dict; :class:`ReplayError` if bad.

    ``game``: the game expected (a replay of another game is refused)."""
    from sim.registry import game_names, get_game

    where = where or source_name(source)
    data = _parse(source, where)

    def fail(msg: str) -> ReplayError:
        return ReplayError(f"{where}: {msg}")

    if not isinstance(data, dict):
        raise fail(f"expected a JSON object, got {type(data).__name__}")
    if data.get("format") != REPLAY_FORMAT:
        raise fail(f"not a {REPLAY_FORMAT} file (format={_short(data.get('format'))})")
    version = data.get("version")
    if version != REPLAY_VERSION or not _is_int(version):
        raise fail(
            f"replay format version {_short(version)} is not supported: "
            f"this is version {REPLAY_VERSION} "
            f"of dynasty-lab's replays (docs/replay-format.md)"
        )
    unknown = sorted(k for k in data if k not in REQUIRED + OPTIONAL)
    if unknown:
        raise fail(f"unknown key {_short(unknown[0])} (allowed: {', '.join(REQUIRED + OPTIONAL)})")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise fail(f"missing key {missing[0]!r} (required: {', '.join(REQUIRED)})")
    name = data["game"]
    if not isinstance(name, str) or name not in game_names():
        raise fail(
            f"game: {_short(name)} is not a registered game (known: {', '.join(game_names())})"
        )
    if game is not None and name != game:
        raise fail(f"game: this is a replay of {name}, not of {game}")
    spec = get_game(name)
    n = data["players"]
    if not _is_int(n) or n not in spec.players():
        raise fail(
            f"players: expected one of {', '.join(map(str, spec.players()))}, got {_short(n)}"
        )
    options = data["options"]
    if not isinstance(options, dict):
        raise fail(f"options: expected an object of option: value, got {_short(options)}")
    try:
        decoded = spec.decode_options(spec.encode_options(options))
        spec.check_players(n, decoded)
    except (OptionError, TypeError) as e:
        raise fail(f"options: {e}") from None
    seed = data["seed"]
    if not _is_int(seed) or not MIN_SEED <= seed <= MAX_SEED:
        raise fail(f"seed: expected a 64-bit integer, got {_short(seed)}")
    chance = data["chance"]
    if not isinstance(chance, list) or len(chance) > MAX_CHANCE:
        raise fail(
            f"chance: expected a list of at most {MAX_CHANCE:,} chance outcomes, "
            f"got {_short(chance)}"
        )
    problem = spec.chance_problem(n, decoded, chance)
    if problem:
        raise fail(f"chance: {problem}")
    decisions = data["decisions"]
    if not isinstance(decisions, list) or len(decisions) > spec.max_decisions:
        raise fail(
            f"decisions: expected a list of at most {spec.max_decisions:,} decisions, "
            f"got {_short(decisions)}"
        )
    for i, d in enumerate(decisions):
        if not isinstance(d, dict) or set(d) != set(DECISION_KEYS):
            raise fail(
                f'decisions[{i}]: expected {{"player": seat, "action": id, "name": text}}, '
                f"got {_short(d)}"
            )
        if not _is_int(d["player"]) or not 0 <= d["player"] < n:
            raise fail(
                f"decisions[{i}].player: expected a seat 0..{n - 1}, got {_short(d['player'])}"
            )
        if not _is_int(d["action"]) or not 0 <= d["action"] < spec.num_actions:
            raise fail(
                f"decisions[{i}].action: expected an action id 0..{spec.num_actions - 1}, "
                f"got {_short(d['action'])}"
            )
        if not isinstance(d["name"], str):
            raise fail(f"decisions[{i}].name: expected a string, got {_short(d['name'])}")
    for key in ("scores", "win_shares"):
        if key in data:
            v = data[key]
            if (
                not isinstance(v, list)
                or len(v) != n
                or not all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                    for x in v
                )
            ):
                raise fail(f"{key}: expected {n} finite numbers, got {_short(v)}")
    for key in ("experiment", "play", "fuzz"):
        if key in data and not isinstance(data[key], dict):
            raise fail(f"{key}: expected an object, got {_short(data[key])}")
    return dict(data, options=decoded)


def source_name(source: Any) -> str:
    """How errors name a replay: its path, or "replay" for text and dicts."""
    if isinstance(source, Path) or (
        isinstance(source, str) and not source.lstrip().startswith("{")
    ):
        return str(source)
    return "replay"


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."
