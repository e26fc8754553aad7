"""What every adapter shares: a game's kernels, its state, masks, tensors and returns."""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core import H_CURRENT, NO_PLAYER
from sim.registry import get_game

REWARDS = ("win", "score")


class Table:
    """One game of ``game`` at ``players`` seats: the state and the kernels that read it."""

    def __init__(
        self, game: str, players: int, options: dict[str, Any] | None = None, reward: str = "win"
    ):
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

        legal = ", ".join(
            f"{int(x)}={self.spec.action_name(self.state, int(x))}" for x in np.flatnonzero(m)
        )
        raise IllegalActionError(
            f"{self.game}: action {a} is not legal for seat {self.current}; legal: {legal}"
        )

    def plan_step(self) -> list[tuple[int, np.ndarray]]:
        """The decisions of the next parallel step: ``[(seat, legal mask), ...]`` in the order
        the engine asks them, starting with the seat to move (``[]`` once over).

        A later seat joins the step when it cannot see the earlier choices of the step: the
        engine takes simultaneous secret choices one seat after another, and ``info_key``
        (the seat's information, sim.core) leaves the earlier ones out.  Checked on the
        kernels, not declared per game: after the step's earlier seats choose (each its first
        legal action), the next seat q joins if it is not in the step yet and, for every
        legal choice of every earlier seat (the others keeping theirs), the same seat q is
        asked, with the same ``info_key`` and the same legal actions.  Then q decides on
        exactly what it would know at its own turn, so taking the step's choices together
        is the same game.  Anything else (a seat's second decision in a row, a choice q
        would see, a game that ends) closes the step."""
        if self.over:
            return []
        k = self.k
        seats = [self.current]
        masks = [self.mask().copy()]
        firsts: list[int] = []  # each seat's stand-in choice
        before = [self.state.copy()]  # the probe state at each seat's decision
        m = np.zeros(self.num_actions, np.bool_)
        while True:
            a0 = int(np.flatnonzero(masks[-1])[0])
            nxt = before[-1].copy()
            k.apply(nxt, np.int64(a0))
            q = int(nxt[H_CURRENT])
            if q == NO_PLAYER or q in seats:
                break
            key = k.info_key(nxt, np.int64(q))
            qmask = np.zeros(self.num_actions, np.bool_)
            k.legal_mask(nxt, qmask)
            firsts.append(a0)
            if not self._hidden_from(q, key, qmask, seats, masks, firsts, before, m):
                break
            seats.append(q)
            masks.append(qmask)
            before.append(nxt)
        return list(zip(seats, masks))

    def _hidden_from(self, q, key, qmask, seats, masks, firsts, before, m) -> bool:
        """Whether every other legal choice of each seat of the step (the later ones keeping
        their stand-in choices ``firsts``) leaves seat ``q`` asked next with ``info_key``
        ``key`` and legal actions ``qmask``."""
        k = self.k
        for j in range(len(seats)):
            for a in np.flatnonzero(masks[j]):
                if a == firsts[j]:
                    continue
                t = before[j].copy()
                k.apply(t, np.int64(a))
                for i in range(j + 1, len(seats)):
                    if int(t[H_CURRENT]) != seats[i]:
                        return False
                    k.apply(t, np.int64(firsts[i]))
                if int(t[H_CURRENT]) != q or k.info_key(t, np.int64(q)) != key:
                    return False
                m[:] = False
                k.legal_mask(t, m)
                if not np.array_equal(m, qmask):
                    return False
        return True

    def final(self) -> np.ndarray:
        """Per-seat final reward: win shares (``reward="win"``) or the game's scores."""
        scores = np.zeros(self.players)
        wins = np.zeros(self.players)
        self.k.returns(self.state, scores, wins)
        return wins if self.reward == "win" else scores


__all__ = ["Table", "NO_PLAYER", "REWARDS"]
