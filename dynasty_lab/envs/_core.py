"""What every adapter shares: a game's kernels, its state, masks, tensors and returns."""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core import H_CURRENT, NO_PLAYER
from sim.registry import get_game

REWARDS = ("win", "score")


class Table:
    """One game of ``game`` at ``players`` seats: the state and the kernels that read it."""

    def __init__(self, game: str, players: int, options: dict[str, Any] | None = None, reward: str = "win"):
        self.spec = get_game(game)
        self.spec.check_players(players, options)
        if self.spec.observation is None:
            raise ValueError(f"{game}: this game has no observation tensor (sim.observe)")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        self.game = game
        self.players = int(players)
        self.options = self.spec.decode_options(self.spec.encode_options(options))
        self.opt = self.spec.encode_options(self.options)
        self.reward = reward
        self.k = self.spec.kernels
        self.obs = self.spec.observation
        self.num_actions = self.spec.num_actions
        self.state = None
        self._legal = None

    def new(self, seed: int) -> None:
        self.state = self.k.new_state(np.int64(seed), np.int64(self.players), self.opt)
        self._legal = None

    # The header says who moves (H_CURRENT, NO_PLAYER exactly when the game is over: sim.core),
    # read directly rather than through a kernel call: adapters ask often.
    @property
    def current(self) -> int:
        return int(self.state[H_CURRENT])

    @property
    def over(self) -> bool:
        return int(self.state[H_CURRENT]) == NO_PLAYER

    def mask(self) -> np.ndarray:
        """Legal actions of the seat to move (bool, all False once over; computed once per
        decision: do not modify)."""
        if self._legal is None:
            m = np.zeros(self.num_actions, np.bool_)
            if not self.over:
                self.k.legal_mask(self.state, m)
            self._legal = m
        return self._legal

    def tensor(self, player: int) -> np.ndarray:
        out = np.zeros(self.obs.size, np.float32)
        self.obs.observe(self.state, np.int64(player), out)
        return out

    def apply(self, action: int) -> None:
        self.k.apply(self.state, np.int64(action))
        self._legal = None

    def legal_or_remap(self, action, illegal: str) -> int:
        """``action`` if legal; otherwise raise (``illegal="raise"``) or take the k-th legal
        action, k = action mod the number of legal actions (``"remap"``)."""
        m = self.mask()
        a = int(action)
        if 0 <= a < self.num_actions and m[a]:
            return a
        if illegal == "remap":
            legal = np.flatnonzero(m)
            return int(legal[a % legal.size])
        from sim.core import IllegalActionError
        legal = ", ".join(f"{int(x)}={self.spec.action_name(self.state, int(x))}" for x in np.flatnonzero(m))
        raise IllegalActionError(f"{self.game}: action {a} is not legal for seat {self.current}; legal: {legal}")

    def final(self) -> np.ndarray:
        """Per-seat final reward: win shares (``reward="win"``) or the game's scores."""
        scores = np.zeros(self.players)
        wins = np.zeros(self.players)
        self.k.returns(self.state, scores, wins)
        return wins if self.reward == "win" else scores


__all__ = ["Table", "NO_PLAYER", "REWARDS"]
