"""A single-agent Gymnasium environment: one seat learns, the others are dynasty-lab agents.

    >>> from dynasty_lab.envs.gymnasium import DynastyEnv
    >>> env = DynastyEnv("goofspiel", players=3, seat=0, opponents=["heuristic", "mcts:200"],
    ...                  options={"num_cards": 8})
    >>> obs, info = env.reset(seed=1)
    >>> obs, reward, terminated, truncated, info = env.step(
    ...     env.action_space.sample(info["action_mask"]))

Observations are the learning seat's information-state tensor (float32, fixed shape;
sim.observe); ``info["action_mask"]`` (int8) marks its legal actions (also
:meth:`DynastyEnv.action_masks`, the name sb3-contrib's MaskablePPO looks for).  Between two
decisions of the learning seat the other seats play: ``opponents`` is a list of agent
specifications as in experiment configs (``"random"``, ``"heuristic"``, ``"mcts:200"``,
``"mcts:50ms"``; agents.spec), one per other seat in seat order, or one for all of them.
They run through the arena's own ``choose_action`` kernel with their own seeded RNGs, so an
episode is a function of the reset seed.  The reward is 0 until the game ends, then the
learning seat's win share (``reward="win"``) or its score (``reward="score"``).  An
illegal action raises :class:`sim.core.IllegalActionError` naming the legal ones, or is
replaced by the k-th legal action with ``illegal_action="remap"``.  ``seat=None`` draws
the learning seat at random at each reset (``info["seat"]``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agents.decision import choose_action
from agents.spec import parse_agent
from agents.table import AGENT_KINDS, HEURISTIC, RANDOM
from dynasty_lab.envs._core import Table
from sim.core import hash64, new_rng, random_of_legal

OBS_BOUND = float(2**24)


class DynastyEnv(gym.Env):
    """One seat of a dynasty-lab game as a Gymnasium environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        game: str,
        players: int = 2,
        seat: int | None = 0,
        opponents=("heuristic",),
        options: dict[str, Any] | None = None,
        *,
        reward: str = "win",
        illegal_action: str = "raise",
        render_mode: str | None = None,
    ):
        self.table = Table(game, players, options, reward)
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be in 0..{players - 1}, got {seat}")
        if illegal_action not in ("raise", "remap"):
            raise ValueError(f"illegal_action must be 'raise' or 'remap', got {illegal_action!r}")
        if isinstance(opponents, str):
            opponents = [opponents]
        opponents = list(opponents)
        if len(opponents) == 1:
            opponents = opponents * (players - 1)
        if len(opponents) != players - 1:
            raise ValueError(
                "opponents: give one agent per other seat "
                f"({players - 1}) or one for all, got {len(opponents)}"
            )
        self.opponent_specs = opponents
        self.opponents = []
        for o in opponents:
            kind, params, label = parse_agent(o)
            if kind not in AGENT_KINDS.values():
                raise ValueError(
                    f"opponent {o!r}: only built-in agents "
                    f"({', '.join(AGENT_KINDS)}) can be opponents here"
                )
            self.opponents.append((int(kind), np.ascontiguousarray(params, np.float64), label))
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = spaces.Box(
            -OBS_BOUND, OBS_BOUND, (self.table.obs.size,), np.float32
        )
        self.action_space = spaces.Discrete(self.table.num_actions)
        self._K = tuple(self.table.spec.kernels)
        self._rngs = []
        self._mask = np.zeros(self.table.num_actions, np.bool_)

    # ------------------------------------------------------------------ helpers
    def _opponent(self, seat: int):
        return self.opponents[seat if seat < self.seat else seat - 1]

    def _play_others(self) -> None:
        t = self.table
        while not t.over and t.current != self.seat:
            p = t.current
            kind, params, _ = self._opponent(p)
            rng = self._rngs[p]
            if kind == RANDOM:
                # as the arena's agents decide (the same draws), without choose_action's entry cost
                a = random_of_legal(self._mask, t.k.legal_mask(t.state, self._mask), rng, 0)
            elif kind == HEURISTIC:
                a = t.k.heuristic(t.state, rng)
            else:
                t.k.legal_mask(t.state, self._mask)
                a = choose_action(self._K, t.state, np.int64(kind), params, rng, self._mask)
            t.apply(int(a))

    def action_masks(self) -> np.ndarray:
        """The learning seat's legal actions (bool)."""
        return self.table.mask().copy()

    def _info(self) -> dict:
        return {"action_mask": self.table.mask().astype(np.int8), "seat": self.seat}

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        t = self.table
        game_seed = int(self.np_random.integers(2**62))
        if self.fixed_seat is None:
            self.seat = int(self.np_random.integers(t.players))
        t.new(game_seed)
        self._rngs = [
            new_rng(hash64(np.int64(game_seed), np.int64(p + 1))) for p in range(t.players)
        ]
        self._play_others()
        return t.tensor(self.seat), self._info()

    def step(self, action):
        t = self.table
        if t.over:
            raise RuntimeError("the episode is over: call reset()")
        t.apply(t.legal_or_remap(action, self.illegal_action))
        self._play_others()
        reward = float(t.final()[self.seat]) if t.over else 0.0
        if self.render_mode == "human":
            print(self.render())
        return t.tensor(self.seat), reward, t.over, False, self._info()

    def render(self):
        return self.table.spec.render(self.table.state)


def make(game: str, **kwargs) -> DynastyEnv:
    """``DynastyEnv(game, **kwargs)``; also registered with Gymnasium as ``dynasty-lab/Dynasty-v0``
    (``gymnasium.make("dynasty-lab/Dynasty-v0", game="goofspiel", ...)``)."""
    return DynastyEnv(game, **kwargs)


if "dynasty-lab/Dynasty-v0" not in gym.registry:
    gym.register("dynasty-lab/Dynasty-v0", entry_point=f"{__name__}:DynastyEnv")
