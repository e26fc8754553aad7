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

Game parameters: ``players`` and every rule option of the game by name (choice
options as strings, integer options as ints), defaults as in ``sim``.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from sim.core import new_rng
from sim.registry import game_names, get_game

PREFIX = "dynasty_"
SEED_BYTES = 8
_REGISTERED: set[str] = set()


def short_name(game: str) -> str:
    return PREFIX + game


def _option_default(o):
    """An option's default as an OpenSpiel parameter: choices "true"/"false" as a bool
    (OpenSpiel reads such a string back as a bool), other choices as strings."""
    v = o.default
    if isinstance(v, bool) or str(v).lower() in ("true", "false"):
        return str(v).lower() == "true"
    if o.choices is not None:
        return str(v).lower() if isinstance(v, bool) else str(v)
    return int(v)


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
        full = {**gtype.parameter_specification, **params}
        players = int(full["players"])
        options = {o.name: full[o.name] for o in spec.options}
        spec.check_players(players, options)
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
        public_only = iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
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
                seed = np.array([int.from_bytes(bytes(self.seed_bytes), "little")], np.uint64).view(np.int64)[0]
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
            seed = int(probability_sampler() * 2 ** 52) if probability_sampler is not None else None
        except TypeError:
            seed = None
        if seed is None:
            seed = int(np.random.default_rng().integers(2 ** 52))
        c = self.clone()
        self._spec.kernels.determinize(c.s, np.int64(player_id), new_rng(np.int64(seed)))
        return c

    def __str__(self):
        if self.s is None:
            return f"dealing: seed bytes {self.seed_bytes}"
        return self._spec.render(self.s)


class DynastyObserver:
    """OpenSpiel's PyObserver over sim.observe: ``tensor``, ``dict``, ``set_from``, ``string_from``."""

    def __init__(self, spec, public_only: bool):
        self.obs = spec.observation
        self.public_only = public_only
        self.tensor = np.zeros(self.obs.size, np.float32)
        self.dict = {f.name: self.tensor[f.offset:f.offset + f.length] for f in self.obs.fields}

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
    params = {"players": int(players)}
    for k, v in (options or {}).items():
        params[k] = str(v).lower() if isinstance(v, bool) else v
    return pyspiel.load_game(short_name(game), params)
