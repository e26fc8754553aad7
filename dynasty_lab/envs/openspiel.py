"""The dynasty-lab games as OpenSpiel Python games.

    >>> import pyspiel
    >>> from dynasty_lab.envs import openspiel as dos
    >>> dos.register()                     # every game, as "dynasty_<game>"
    >>> game = pyspiel.load_game("dynasty_middle_kingdom", {"players": 4})
    >>> state = game.new_initial_state()

Game type, declared as the engines are:

- dynamics ``SEQUENTIAL``: one seat decides at a time; a round of simultaneous secret
  choices (Goofspiel's bids, Middle Kingdom's commit ...) is taken one seat at a time with
  the earlier choices hidden, as in the engine (the information-state strings and tensors
  never show another seat's pending choice);
- chance mode ``EXPLICIT_STOCHASTIC``: a game starts with SEED_BYTES chance nodes, each
  a uniform byte, that make the 64-bit seed of the deal; the engine then resolves every
  later chance event (shuffles, draws, dice) from the state's own RNG, seeded by it, so
  the whole game is a function of those chance outcomes and the decisions (the engines
  keep their chance inside the state, and an OpenSpiel Python game cannot declare
  ``SAMPLED_STOCHASTIC``: OpenSpiel's consistency test asks it for an RNG state it cannot
  give).  ``resample_from_infostate`` resamples what the seat to move cannot see with the
  engine's ``determinize``;
- information ``IMPERFECT_INFORMATION``;
- returns: the win shares (1/k to each of the k winners), so ``CONSTANT_SUM`` with utility
  sum 1, except Eternal Dynasty, ``GENERAL_SUM`` (in its 2-player game the Eternal Emperor
  can win, and both seats then get 0); terminal rewards only.

Information-state and observation tensors and strings come from the game's observation
(sim.observe, docs/games/<game>.md): both are the seat's information-state tensor; an
observer asked for public information only (``private_info=NONE``) gives the public tensor.
For Goofspiel it holds the whole public history (perfect recall); for the seed games it
is the masked state, a sufficient summary of the history for play (the ply and every
public record the engine keeps) but two histories reaching the same state share it.

Game parameters: ``players`` and every rule option of the game by name, defaults as in
``sim``, each declared with the type its values have in an OpenSpiel game string so that
``pyspiel.load_game(str(game))`` is the same game: integer options as ints, true/false
choices as bools, word choices as strings, and a choice with numeral names as an int
(Middle Kingdom's ``token_limit``: 18, or -1 for none).  :func:`load` and the game's
constructor also take an integer option as a numeric string ("18") and a choice by its
name; a value not allowed raises ``sim.core.OptionError`` naming the option and the
allowed values.
"""

from __future__ import annotations

import re

import numpy as np
import pyspiel

from sim.core import OptionError, new_rng
from sim.registry import game_names, get_game

PREFIX = "dynasty_"
SEED_BYTES = 8
_REGISTERED: set[str] = set()


def short_name(game: str) -> str:
    return PREFIX + game


# --------------------------------------------------------------------------- parameters
# OpenSpiel checks each parameter's type against the declared default before the game's
# constructor runs, and reads a game string ("dynasty_goofspiel(num_cards=5)") by the look
# of each value: true/false a bool, digits an int, other words a string.  So every option is
# declared with the type its values have in a game string, and ``str(game)`` loads back
# the same game:
#   - integer options: int;
#   - choices "true"/"false": bool;
#   - choices that are all words: string (the choice's name);
#   - choices with a numeral among their names (Middle Kingdom's token_limit: none, 18):
#     int, a numeral name as its number, the other names as -1, -2 ... in their order
#     (token_limit=18, token_limit=-1 for none).
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[-+0-9.]+")


def _openspiel_reads(text: str) -> type:
    """The type OpenSpiel's game-string parser gives ``text`` (GameParameterFromString)."""
    if text in ("true", "True", "false", "False"):
        return bool
    if _INT_TEXT.fullmatch(text):
        return int
    if _FLOAT_TEXT.fullmatch(text):
        return float
    return object if text.endswith(")") else str  # a nested game, else a string


def _kind(o) -> str:
    """How OpenSpiel holds option ``o``: "int", "bool", "str" or "coded" (see above)."""
    if o.choices is None:
        return "int"
    reads = {_openspiel_reads(c) for c in o.choices}
    if reads == {bool} and {c.lower() for c in o.choices} <= {"true", "false"}:
        return "bool"
    return "str" if reads == {str} else "coded"


def _codes(o) -> dict[str, int]:
    """A "coded" option's choice names and their OpenSpiel ints."""
    out, nxt = {}, -1
    for c in o.choices:
        if _INT_TEXT.fullmatch(c):
            out[c] = int(c)
        else:
            out[c], nxt = nxt, nxt - 1
    assert len(set(out.values())) == len(out), f"option {o.name!r}: clashing OpenSpiel codes {out}"
    return out


def _allowed(o) -> str:
    if o.choices is None:
        lo = "" if o.low is None else o.low
        hi = "" if o.high is None else o.high
        return f"an integer {lo}..{hi}"
    if _kind(o) == "coded":
        return ", ".join(c if str(v) == c else f"{c} (or {v})" for c, v in _codes(o).items())
    return ", ".join(o.choices)


def option_value(game: str, o, value):
    """The rule option value (``sim``'s: a choice name or an int) that ``value`` stands for:
    an integer option takes an int or a numeric string ("18"); a choice option its name (a
    bool for true/false choices, a number for a numeral name, a coded option's OpenSpiel
    int).  Anything else raises OptionError naming the option and the allowed values."""
    bad = OptionError(
        f"{game}: option {o.name!r}: {value!r} is not allowed (allowed: {_allowed(o)})"
    )
    if isinstance(value, np.generic):
        value = value.item()
    if o.choices is None:
        if isinstance(value, bool):
            raise bad
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        elif isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
            value = int(value.strip())
        if not isinstance(value, int):
            raise bad
        if (o.low is not None and value < o.low) or (o.high is not None and value > o.high):
            raise bad
        return value
    if isinstance(value, bool):
        value = str(value).lower()
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        value = str(value)
    if not isinstance(value, str):
        raise bad
    text = value.strip()
    if text in o.choices:
        return text
    if text.lower() in ("true", "false") and text.lower() in o.choices:
        return text.lower()
    if _kind(o) == "coded" and _INT_TEXT.fullmatch(text):
        by_code = {v: c for c, v in _codes(o).items()}
        if int(text) in by_code:
            return by_code[int(text)]
    raise bad


def to_parameter(o, value):
    """A valid option value (as :func:`option_value` returns) as its OpenSpiel parameter."""
    kind = _kind(o)
    if kind == "int":
        return int(value)
    if kind == "bool":
        return value == "true"
    if kind == "coded":
        return _codes(o)[value]
    return value


def _option_default(o):
    return to_parameter(o, option_value("default", o, o.default))


def game_type(game: str) -> pyspiel.GameType:
    spec = get_game(game)
    params = {"players": min(spec.players())}
    params.update({o.name: _option_default(o) for o in spec.options})
    T = pyspiel.GameType
    return T(
        short_name=short_name(game),
        long_name=f"dynasty-lab {spec.title}",
        dynamics=T.Dynamics.SEQUENTIAL,
        chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC,
        information=T.Information.IMPERFECT_INFORMATION,
        utility=T.Utility.GENERAL_SUM if spec.can_all_lose else T.Utility.CONSTANT_SUM,
        reward_model=T.RewardModel.TERMINAL,
        max_num_players=max(spec.players()),
        min_num_players=min(spec.players()),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


class DynastyGame(pyspiel.Game):
    """One dynasty-lab game as an OpenSpiel game (see the module docstring)."""

    game_name = ""  # set by the subclass register() makes for each game

    def __init__(self, params=None):
        spec = get_game(self.game_name)
        gtype = game_type(self.game_name)
        params = dict(params or {})
        known = {o.name: o for o in spec.options}
        unknown = sorted(set(params) - set(known) - {"players"})
        if unknown:
            raise OptionError(
                f"{self.game_name}: unknown parameter {unknown[0]!r} "
                f"(known: players, {', '.join(sorted(known))})"
            )
        players = _players(
            self.game_name, spec, params.get("players", gtype.parameter_specification["players"])
        )
        options = {
            o.name: option_value(self.game_name, o, params[o.name])
            if o.name in params
            else o.default
            for o in spec.options
        }
        spec.check_players(players, options)
        # the parameters as OpenSpiel types (so str(game) loads back the same game)
        params = {
            k: players if k == "players" else to_parameter(known[k], options[k]) for k in params
        }
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.num_actions,
            max_chance_outcomes=256,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None if spec.can_all_lose else 1.0,
            max_game_length=spec.max_decisions,
        )
        super().__init__(gtype, info, params)
        self.spec_name = self.game_name
        self.players = players
        self.options = options
        self.opt = spec.encode_options(options)

    def new_initial_state(self):
        return DynastyState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        public_only = (
            iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        )
        return DynastyObserver(get_game(self.spec_name), public_only)


class DynastyState(pyspiel.State):
    """A game in progress: the engine's flat state array and its kernels."""

    def __init__(self, game):
        super().__init__(game)
        self.game_name = game.spec_name
        self.players = game.players
        self.opt = game.opt
        self.seed_bytes = []
        self.s = None  # the engine state, once the seed is dealt

    # The spec (numba kernels) is looked up, not stored: the state's __dict__ is pickled
    # by OpenSpiel's serialization.
    @property
    def _spec(self):
        return get_game(self.game_name)

    def current_player(self):
        if self.s is None:
            return pyspiel.PlayerId.CHANCE
        k = self._spec.kernels
        if k.is_terminal(self.s):
            return pyspiel.PlayerId.TERMINAL
        return int(k.current_player(self.s))

    def _legal_actions(self, player):
        spec = self._spec
        m = np.zeros(spec.num_actions, np.bool_)
        spec.kernels.legal_mask(self.s, m)
        return [int(a) for a in np.flatnonzero(m)]

    def chance_outcomes(self):
        return [(b, 1.0 / 256) for b in range(256)]

    def _apply_action(self, action):
        if self.s is None:
            self.seed_bytes.append(int(action))
            if len(self.seed_bytes) == SEED_BYTES:
                seed = np.array([int.from_bytes(bytes(self.seed_bytes), "little")], np.uint64).view(
                    np.int64
                )[0]
                self.s = self._spec.kernels.new_state(seed, np.int64(self.players), self.opt)
            return
        self._spec.kernels.apply(self.s, np.int64(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        return f"P{player}: {self._spec.action_name(self.s, int(action))}"

    def is_terminal(self):
        return self.s is not None and bool(self._spec.kernels.is_terminal(self.s))

    def returns(self):
        n = self.players
        if not self.is_terminal():
            return [0.0] * n
        scores, wins = np.zeros(n), np.zeros(n)
        self._spec.kernels.returns(self.s, scores, wins)
        return [float(w) for w in wins]

    def resample_from_infostate(self, player_id, probability_sampler=None):
        """A state the seat ``player_id`` cannot tell from this one (the engine's determinize)."""
        try:
            seed = int(probability_sampler() * 2**52) if probability_sampler is not None else None
        except TypeError:
            seed = None
        if seed is None:
            seed = int(np.random.default_rng().integers(2**52))
        c = self.clone()
        self._spec.kernels.determinize(c.s, np.int64(player_id), new_rng(np.int64(seed)))
        return c

    def __str__(self):
        if self.s is None:
            return f"dealing: seed bytes {self.seed_bytes}"
        return self._spec.render(self.s)


class DynastyObserver:
    """OpenSpiel's PyObserver over sim.observe: ``tensor``, ``dict``,
    ``set_from``, ``string_from``."""

    def __init__(self, spec, public_only: bool):
        self.obs = spec.observation
        self.public_only = public_only
        self.tensor = np.zeros(self.obs.size, np.float32)
        self.dict = {f.name: self.tensor[f.offset : f.offset + f.length] for f in self.obs.fields}

    def set_from(self, state, player):
        if state.s is None:
            self.tensor[:] = 0.0
            return
        self.obs.observe(state.s, np.int64(-1 if self.public_only else player), self.tensor)

    def string_from(self, state, player):
        if state.s is None:
            return "dealing"
        return self.obs.string(state.s, -1 if self.public_only else player)


def register(games=None) -> list[str]:
    """Register the games (all by default) with OpenSpiel; returns their short names."""
    names = []
    for g in games or game_names():
        if get_game(g).observation is None:
            continue
        name = short_name(g)
        if name not in _REGISTERED and name not in pyspiel.registered_names():
            cls = type(f"Dynasty_{g}", (DynastyGame,), {"game_name": g})
            pyspiel.register_game(game_type(g), cls)
            _REGISTERED.add(name)
        names.append(name)
    return names


def load(game: str, players: int, options: dict | None = None):
    """``pyspiel.load_game`` of a registered dynasty-lab game (registering it first)."""
    register([game])
    spec = get_game(game)
    known = {o.name: o for o in spec.options}
    params = {"players": _players(game, spec, players)}
    for k, v in (options or {}).items():
        if k not in known:
            raise OptionError(
                f"{game}: unknown option {k!r} (known: {', '.join(sorted(known)) or 'none'})"
            )
        params[k] = to_parameter(known[k], option_value(game, known[k], v))
    return pyspiel.load_game(short_name(game), params)


def _players(game, spec, value) -> int:
    """``players`` as an int (an int or a numeric string), one the game allows."""
    if isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
        value = int(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or int(value) not in spec.players()
    ):
        raise OptionError(
            f"{game}: players {value!r} is not allowed "
            f"(allowed: {', '.join(map(str, spec.players()))})"
        )
    return int(value)
