"""PettingZoo environments over the dynasty-lab engines.

    >>> from dynasty_lab.envs.pettingzoo import env
    >>> e = env("middle_kingdom", players=4, seed=1)
    >>> e.reset()
    >>> for agent in e.agent_iter():
    ...     obs, reward, terminated, truncated, info = e.last()
    ...     action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
    ...     e.step(action)

An AEC environment: agents ``player_0`` ... ``player_{n-1}`` are the seats; the agent
selected is the seat the engine asks to move, so games where one seat decides several
times in a row, or in a varying order, are played as they are.  Observations are dicts
with ``observation`` (the seat's information-state tensor, float32, fixed shape:
sim.observe, layout tables in docs/games/) and ``action_mask`` (int8, 1 = legal; all 0 for
a seat that is not to move).  Simultaneous secret choices are taken one seat at a time,
hidden until the round is revealed, as in the engine: a seat's tensor never shows another
seat's pending choice.

Rewards are 0 until the end, then each seat's win share (``reward="win"``: 1/k for each of
the k winners, so they sum to 1, or 0 for every seat when Eternal Dynasty's 2-player
Eternal Emperor wins) or its final score from the game's ``returns`` kernel
(``reward="score"``; Goofspiel: OpenSpiel's returns for its ``returns_type``).

``max_cycles`` truncates the game once the seat to move has already made that many
decisions.  An illegal action raises :class:`sim.core.IllegalActionError` naming the legal
ones, unless ``illegal_action="remap"``: then it is replaced by the k-th legal action
(k = action mod the number of legal actions), for libraries that sample without the mask.

:func:`parallel_env` is the parallel API for Goofspiel, where every decision is one of the
round's simultaneous secret bids (every seat bids once per round, in seat order); the
other games mix simultaneous and sequential decisions and have the AEC API only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import conversions

from dynasty_lab.envs._core import Table

OBS_BOUND = float(2 ** 24)  # float32 holds every integer up to here exactly


class DynastyAEC(AECEnv):
    """One dynasty-lab game as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "dynasty_v0", "is_parallelizable": False}

    def __init__(self, game: str, players: int = 2, options: dict[str, Any] | None = None,
                 seed: int | None = None, *, max_cycles: int | None = None, reward: str = "win",
                 illegal_action: str = "raise", render_mode: str | None = None):
        super().__init__()
        if illegal_action not in ("raise", "remap"):
            raise ValueError(f"illegal_action must be 'raise' or 'remap', got {illegal_action!r}")
        self.table = Table(game, players, options, reward)
        self.metadata = dict(self.metadata, name=f"dynasty_{game}_v0", is_parallelizable=(game == "goofspiel"))
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.illegal_action = illegal_action
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        size, n_act = self.table.obs.size, self.table.num_actions
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-OBS_BOUND, OBS_BOUND, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_act,), np.int8)}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n_act, seed=None if seed is None else seed + p)
                              for p, a in enumerate(self.possible_agents)}
        self._rng = np.random.default_rng(seed)
        self.agents = []

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game: its deal is a function of ``seed`` (given one), else of the
        environment's seed and the number of earlier resets.  ``options`` is accepted for the
        API and ignored: the rule options are fixed when the environment is made."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.table.new(int(self._rng.integers(2 ** 62)))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._decisions = np.zeros(len(self.agents), np.int64)
        self.agent_selection = self.possible_agents[self.table.current]

    def observe(self, agent):
        p = self._index[agent]
        t = self.table
        mask = t.mask().astype(np.int8) if (not t.over and t.current == p) else np.zeros(t.num_actions, np.int8)
        return {"observation": t.tensor(p), "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        t = self.table
        p = self._index[agent]
        a = t.legal_or_remap(action, self.illegal_action)
        self._cumulative_rewards[agent] = 0.0
        t.apply(a)
        self._decisions[p] += 1
        self.rewards = {x: 0.0 for x in self.agents}
        if t.over:
            final = t.final()
            for x in self.agents:
                self.rewards[x] = float(final[self._index[x]])
                self.terminations[x] = True
        else:
            nxt = t.current
            if self.max_cycles is not None and self._decisions[nxt] >= self.max_cycles:
                for x in self.agents:
                    self.truncations[x] = True
            else:
                self.agent_selection = self.possible_agents[nxt]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None
        text = self.table.spec.render(self.table.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ extras
    def public_observation(self) -> np.ndarray:
        """The public tensor (the same layout, every seat's private part masked)."""
        return self.table.tensor(-1)

    def observation_text(self, agent) -> str:
        return self.table.obs.string(self.table.state, self._index[agent])


def env(game: str, players: int = 2, options: dict[str, Any] | None = None, seed: int | None = None,
        **kwargs) -> DynastyAEC:
    """A PettingZoo AEC environment of ``game`` (see the module docstring for ``kwargs``)."""
    return DynastyAEC(game, players, options, seed, **kwargs)


def parallel_env(game: str = "goofspiel", players: int = 2, options: dict[str, Any] | None = None,
                 seed: int | None = None, **kwargs):
    """The parallel API (every seat's secret bid of a round in one step): Goofspiel only."""
    if game != "goofspiel":
        raise ValueError(f"{game}: the parallel API is for games whose every decision is a simultaneous "
                         "secret choice (goofspiel); use env() for the AEC API")
    return conversions.aec_to_parallel(env(game, players, options, seed, **kwargs))
