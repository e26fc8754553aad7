"""PettingZoo environments over the dynasty-lab engines.

    >>> from dynasty_lab.envs.pettingzoo import env
    >>> e = env("middle_kingdom", players=4, seed=1)
    >>> e.reset()
    >>> for agent in e.agent_iter():
    ...     obs, reward, terminated, truncated, info = e.last()
    ...     mask = obs["action_mask"]
    ...     action = None if terminated or truncated else e.action_space(agent).sample(mask)
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

``max_cycles`` truncates the game after that many parallel steps (the steps of
:func:`parallel_env`, so both APIs stop at the same point of a game; in Goofspiel a step is
a round).  An illegal action raises :class:`sim.core.IllegalActionError` naming the legal
ones, unless ``illegal_action="remap"``: then it is replaced by the k-th legal action
(k = action mod the number of legal actions), for libraries that sample without the mask.

:func:`parallel_env` is the parallel API of every game, the standard construction for
games that mix simultaneous and sequential decisions: at each parallel step every live
agent sends an action; the seats that decide in this step have their legal actions in
the mask, the others a mask with the single no-op ``WAIT`` (action ``num_actions``, the
last of the action space, which is one larger than the AEC env's).  A step gathers the
decisions the engine asks one seat after another while none of them can be seen by the
later seats (:meth:`dynasty_lab.envs._core.Table.plan_step`): a round of simultaneous
secret choices (Goofspiel's bids, Middle Kingdom's commit, Ming Dynasty's return
commitment, Eternal Dynasty's Aye/Nay picks and bids ...) is one step, and so is a forced
decision (one legal action) followed by the next seat's; any other decision is a step
of its own.  The choices of a step are applied in the engine's order.
:func:`cycle_env` is the parallel env as an AEC env (PettingZoo's ``parallel_to_aec``):
every live agent is selected once per step, the waiting ones with the ``WAIT`` mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import conversions

from dynasty_lab.envs._core import Table
from sim.core import IllegalActionError

OBS_BOUND = float(2**24)  # float32 holds every integer up to here exactly


class _TableViews:
    """What the AEC and the parallel environment show of their ``table`` alike."""

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

    def public_observation(self) -> np.ndarray:
        """The public tensor (the same layout, every seat's private part masked)."""
        return self.table.tensor(-1)


class DynastyAEC(_TableViews, AECEnv):
    """One dynasty-lab game as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "dynasty_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: str,
        players: int = 2,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        *,
        max_cycles: int | None = None,
        reward: str = "win",
        illegal_action: str = "raise",
        render_mode: str | None = None,
    ):
        super().__init__()
        if illegal_action not in ("raise", "remap"):
            raise ValueError(f"illegal_action must be 'raise' or 'remap', got {illegal_action!r}")
        self.table = Table(game, players, options, reward)
        self.metadata = dict(
            self.metadata, name=f"dynasty_{game}_v0", is_parallelizable=(game == "goofspiel")
        )
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.illegal_action = illegal_action
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        size, n_act = self.table.obs.size, self.table.num_actions
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(-OBS_BOUND, OBS_BOUND, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (n_act,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {
            a: spaces.Discrete(n_act, seed=None if seed is None else seed + p)
            for p, a in enumerate(self.possible_agents)
        }
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
        self.table.new(int(self._rng.integers(2**62)))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._cycles = 0
        self._step_seats = self._plan()
        self.agent_selection = self.possible_agents[self.table.current]

    def _plan(self) -> list[int]:
        """The seats still to decide in the current parallel step (only kept with max_cycles)."""
        return [] if self.max_cycles is None else [seat for seat, _ in self.table.plan_step()]

    def observe(self, agent):
        p = self._index[agent]
        t = self.table
        mask = (
            t.mask().astype(np.int8)
            if (not t.over and t.current == p)
            else np.zeros(t.num_actions, np.int8)
        )
        return {"observation": t.tensor(p), "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        t = self.table
        a = t.legal_or_remap(action, self.illegal_action)
        self._cumulative_rewards[agent] = 0.0
        t.apply(a)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if t.over:
            final = t.final()
            for x in self.agents:
                self.rewards[x] = float(final[self._index[x]])
                self.terminations[x] = True
        else:
            nxt = t.current
            if self.max_cycles is not None:
                self._step_seats = self._step_seats[1:]
                if not self._step_seats or self._step_seats[0] != nxt:  # the step is complete
                    self._cycles += 1
                    self._step_seats = [] if self._cycles >= self.max_cycles else self._plan()
            if self.max_cycles is not None and self._cycles >= self.max_cycles:
                for x in self.agents:
                    self.truncations[x] = True
            else:
                self.agent_selection = self.possible_agents[nxt]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ extras
    def observation_text(self, agent) -> str:
        return self.table.obs.string(self.table.state, self._index[agent])


def env(
    game: str,
    players: int = 2,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    **kwargs,
) -> DynastyAEC:
    """A PettingZoo AEC environment of ``game`` (see the module docstring for ``kwargs``)."""
    return DynastyAEC(game, players, options, seed, **kwargs)


class DynastyParallel(_TableViews, ParallelEnv):
    """One dynasty-lab game as a PettingZoo parallel environment (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "dynasty_v0"}

    def __init__(
        self,
        game: str,
        players: int = 2,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        *,
        max_cycles: int | None = None,
        reward: str = "win",
        illegal_action: str = "raise",
        render_mode: str | None = None,
    ):
        if illegal_action not in ("raise", "remap"):
            raise ValueError(f"illegal_action must be 'raise' or 'remap', got {illegal_action!r}")
        self.table = Table(game, players, options, reward)
        self.metadata = dict(self.metadata, name=f"dynasty_{game}_v0")
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.illegal_action = illegal_action
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        self.wait = self.table.num_actions  # the no-op of seats that do not decide in a step
        size, n_act = self.table.obs.size, self.table.num_actions + 1
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(-OBS_BOUND, OBS_BOUND, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (n_act,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {
            a: spaces.Discrete(n_act, seed=None if seed is None else seed + p)
            for p, a in enumerate(self.possible_agents)
        }
        self._rng = np.random.default_rng(seed)
        self.agents = []
        self.plan: list[tuple[int, np.ndarray]] = []

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game (its deal as in the AEC env's reset); returns (observations, infos)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.table.new(int(self._rng.integers(2**62)))
        self.agents = list(self.possible_agents)
        self.cycles = 0
        self.plan = self.table.plan_step()
        return {a: self._observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def _observe(self, agent):
        p = self._index[agent]
        mask = np.zeros(self.table.num_actions + 1, np.int8)
        acting = dict(self.plan)
        if p in acting:
            mask[:-1] = acting[p]
        elif not self.table.over:
            mask[-1] = 1
        return {"observation": self.table.tensor(p), "action_mask": mask}

    def step(self, actions: dict):
        """Every live agent's action: the deciding seats' are applied in the engine's order,
        the others' must be ``WAIT`` (or None; any action with ``illegal_action="remap"``)."""
        t = self.table
        live = list(self.agents)
        acting = {seat for seat, _ in self.plan}
        for agent in live:
            a = actions.get(agent)
            if (
                self._index[agent] not in acting
                and a is not None
                and int(a) != self.wait
                and self.illegal_action == "raise"
            ):
                raise IllegalActionError(
                    f"{t.game}: {agent} does not decide at this step; its action "
                    f"must be {self.wait} (WAIT), got {a}"
                )
        for seat, m in self.plan:
            agent = self.possible_agents[seat]
            if agent not in actions or actions[agent] is None:
                raise ValueError(f"{t.game}: {agent} decides at this step and sent no action")
            if t.current != seat or not np.array_equal(t.mask(), m):
                raise RuntimeError(
                    f"{t.game}: the engine asked seat {t.current}, not {seat} as planned "
                    "for this step (Table.plan_step)"
                )
            t.apply(t.legal_or_remap(actions[agent], self.illegal_action))
        self.cycles += 1
        rewards = dict.fromkeys(live, 0.0)
        terminations = dict.fromkeys(live, False)
        truncations = dict.fromkeys(live, False)
        if t.over:
            final = t.final()
            for a in live:
                rewards[a] = float(final[self._index[a]])
                terminations[a] = True
            self.plan = []
        elif self.max_cycles is not None and self.cycles >= self.max_cycles:
            truncations = dict.fromkeys(live, True)
            self.plan = []
        else:
            self.plan = t.plan_step()
        observations = {a: self._observe(a) for a in live}
        self.agents = [a for a in live if not (terminations[a] or truncations[a])]
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, {a: {} for a in live}


def parallel_env(
    game: str,
    players: int = 2,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    **kwargs,
) -> DynastyParallel:
    """A PettingZoo parallel environment of ``game`` (same ``kwargs`` as :func:`env`)."""
    return DynastyParallel(game, players, options, seed, **kwargs)


def cycle_env(
    game: str,
    players: int = 2,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    **kwargs,
):
    """The parallel environment as an AEC environment (``parallel_to_aec``): every live agent
    is selected once per parallel step, in seat order, and the step is played when the
    last has chosen; seats that do not decide in it send ``WAIT``."""
    return conversions.parallel_to_aec(parallel_env(game, players, options, seed, **kwargs))
