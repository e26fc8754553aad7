"""The Python-facing game: validated, readable, replayable.

    >>> from sim import Game
    >>> g = Game("middle_kingdom", players=4, seed=7)
    >>> while not g.is_over:
    ...     g.apply(g.legal_actions()[0])
    >>> g.scores

It wraps the numba kernels of one game (the same functions the fast paths use), checks
every action before applying it, logs every decision for replays, and renders text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from sim.core import NO_PLAYER, IllegalActionError
from sim.registry import get_game
from sim.replay import REPLAY_FORMAT, REPLAY_VERSION, ReplayError, read_replay, source_name


class Game:
    """One game in progress.

    Parameters
    ----------
    name : registered game id, e.g. ``"middle_kingdom"``.
    players : number of seats.
    seed : the game's seed; the whole game is a function of (seed, options, decisions).
    options : rule options by name; omitted ones take their defaults.
    """

    def __init__(
        self,
        name: str,
        players: int,
        seed: int = 0,
        options: dict[str, Any] | None = None,
        *,
        _state: np.ndarray | None = None,
    ):
        self.spec = get_game(name)
        self.spec.check_players(players, options)
        self.options = self.spec.decode_options(self.spec.encode_options(options))
        self._opt = self.spec.encode_options(self.options)
        self.players = int(players)
        self.seed = int(seed)
        k = self.spec.kernels
        self.state = (
            _state
            if _state is not None
            else k.new_state(np.int64(self.seed), np.int64(players), self._opt)
        )
        self._mask = np.zeros(self.spec.num_actions, np.bool_)
        self.history: list[dict[str, Any]] = []

    # ---------------------------------------------------------------- queries
    @property
    def current_player(self) -> int:
        return int(self.spec.kernels.current_player(self.state))

    @property
    def is_over(self) -> bool:
        return bool(self.spec.kernels.is_terminal(self.state))

    def legal_actions(self) -> list[int]:
        if self.is_over:
            return []
        self.spec.kernels.legal_mask(self.state, self._mask)
        return [int(a) for a in np.flatnonzero(self._mask)]

    def action_name(self, action: int) -> str:
        return self.spec.action_name(self.state, int(action))

    def legal_action_names(self) -> dict[int, str]:
        return {a: self.action_name(a) for a in self.legal_actions()}

    def _returns(self) -> tuple[np.ndarray, np.ndarray]:
        scores = np.zeros(self.players)
        wins = np.zeros(self.players)
        self.spec.kernels.returns(self.state, scores, wins)
        return scores, wins

    @property
    def scores(self) -> list[float]:
        """Final scores by seat (only meaningful once the game is over)."""
        return [float(x) for x in self._returns()[0]]

    @property
    def win_shares(self) -> list[float]:
        """1/k for each of the k winners, 0 for the others."""
        return [float(x) for x in self._returns()[1]]

    def features(self) -> dict[str, list[float]]:
        out = np.zeros((self.players, len(self.spec.feature_names)))
        self.spec.kernels.features(self.state, out)
        return {n: out[:, i].tolist() for i, n in enumerate(self.spec.feature_names)}

    def render(self) -> str:
        return self.spec.render(self.state)

    def __str__(self) -> str:
        return self.render()

    def clone(self) -> Game:
        g = Game(self.spec.name, self.players, self.seed, self.options, _state=self.state.copy())
        g.history = list(self.history)
        return g

    # ---------------------------------------------------------------- moves
    def apply(self, action: int | str) -> None:
        """Apply one decision, given as an action id or its readable name.

        Raises :class:`IllegalActionError` naming the action and the legal ones.
        """
        if self.is_over:
            raise IllegalActionError(f"the game is over; no action can be applied (got {action!r})")
        legal = self.legal_action_names()
        if isinstance(action, str):
            matches = [a for a, n in legal.items() if n == action]
            if not matches:
                raise IllegalActionError(
                    f"{action!r} is not legal for seat {self.current_player}; legal: "
                    f"{', '.join(legal.values())}"
                )
            action = matches[0]
        if (
            isinstance(action, bool)
            or not isinstance(action, (int, np.integer))
            or int(action) not in legal
        ):
            try:
                name = self.action_name(int(action))
            except Exception:
                name = repr(action)
            raise IllegalActionError(
                f"action {action!r} ({name}) is not legal for seat {self.current_player}; "
                f"legal: {', '.join(f'{a}={n}' for a, n in legal.items())}"
            )
        player = self.current_player
        self.history.append({"player": player, "action": int(action), "name": legal[int(action)]})
        self.spec.kernels.apply(self.state, np.int64(action))

    def play_random(self, rng: np.random.Generator | None = None) -> None:
        """Finish the game with uniformly random legal actions (for exploring and tests)."""
        rng = rng or np.random.default_rng(self.seed)
        while not self.is_over:
            acts = self.legal_actions()
            self.apply(acts[int(rng.integers(len(acts)))])

    # ---------------------------------------------------------------- replays
    def chance_outcomes(self) -> list:
        return self.spec.chance_outcomes(self.state)

    def to_replay(self) -> dict[str, Any]:
        """A JSON-able record of the game (format in docs/replay-format.md)."""
        rep = {
            "format": REPLAY_FORMAT,
            "version": REPLAY_VERSION,
            "game": self.spec.name,
            "players": self.players,
            "options": self.options,
            "seed": self.seed,
            "chance": self.chance_outcomes(),
            "decisions": [dict(d) for d in self.history],
        }
        if self.is_over:
            rep["scores"] = self.scores
            rep["win_shares"] = self.win_shares
        return rep

    def save_replay(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_replay(), indent=1))

    @classmethod
    def from_replay(
        cls, replay: dict[str, Any] | str | Path, *, use_seed: bool = False, game: str | None = None
    ) -> Game:
        """Re-play a replay and check it.

        By default the deal is rebuilt from the recorded chance outcomes alone (as another
        engine would); with ``use_seed=True`` from the seed, and the chance outcomes are
        then checked against the recorded ones.  Each decision is checked by seat and name,
        the game's invariants (sim.invariants) after each, and the final scores against the
        recorded ones.  ``game``: the game expected; a replay of another game is refused.

        Every field of the file is validated first (:func:`sim.replay.read_replay`); any
        problem raises :class:`sim.replay.ReplayError` (a ValueError), one line naming the
        field or the decision.
        """
        from sim.invariants import error_name, invariants_of

        where = source_name(replay)
        rep = read_replay(replay, game=game, where=where)

        def fail(msg: str) -> ReplayError:
            return ReplayError(f"{where}: {msg}")

        spec = get_game(rep["game"])
        n = rep["players"]
        if use_seed:
            g = cls(spec.name, n, rep["seed"], rep["options"])
        else:
            opt = spec.encode_options(rep["options"])
            try:
                state = spec.state_from_chance(n, opt, rep["chance"])
            except (ValueError, TypeError, KeyError, IndexError) as e:
                raise fail(
                    f"chance: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
                ) from None
            g = cls(spec.name, n, rep["seed"], rep["options"], _state=state)
        inv = invariants_of(spec)
        memo = np.zeros(inv.memo_size, np.int64)
        stats = np.zeros(inv.stats_size, np.int64)
        mask = np.zeros(spec.num_actions, np.bool_)
        chance = rep["chance"]

        def checked(before, action, i):
            if g.is_over:
                mask[:] = False
            else:
                spec.kernels.legal_mask(g.state, mask)
            e = int(inv.check(g.state, before, np.int64(action), mask, memo, stats))
            at = "the start" if i == 0 else f"decision {i - 1}"
            if e:
                raise fail(
                    f"after {at} the game breaks its invariant {error_name(inv, e)}: the "
                    "chance outcomes "
                    f"or decisions do not describe a game of {spec.name}"
                )
            try:
                played = g.chance_outcomes()
            except ValueError as err:
                raise fail(f"after {at}: {err}") from None
            if played[: len(chance)] != chance[: len(played)]:
                raise fail(
                    f"after {at} the chance outcomes of the re-play differ from the replay's"
                )

        checked(g.state.copy(), -1, 0)
        for i, d in enumerate(rep["decisions"]):
            if g.is_over:
                raise fail(f"decision {i}: the game is already over")
            if g.current_player != d["player"]:
                raise fail(
                    f"decision {i}: seat {g.current_player} is to move, the replay says "
                    f"{d['player']}"
                )
            legal = g.legal_actions()
            if d["action"] not in legal:
                raise fail(f"decision {i}: action {d['action']} is not legal here")
            name = g.action_name(d["action"])
            if name != d["name"]:
                raise fail(
                    f"decision {i}: action {d['action']} is {name!r} here, {d['name']!r} in "
                    "the replay"
                )
            before = g.state.copy()
            g.apply(d["action"])
            checked(before, d["action"], i + 1)
        played = g.chance_outcomes()
        if played != chance[: len(played)] or (g.is_over and played != chance):
            raise fail("the chance outcomes of the re-play differ from the replay's")
        if "scores" in rep and g.scores != [float(s) for s in rep["scores"]]:
            raise fail(f"final scores differ: {g.scores} here, {rep['scores']} in the replay")
        if (
            "win_shares" in rep
            and g.is_over
            and g.win_shares != [float(s) for s in rep["win_shares"]]
        ):
            raise fail(f"win shares differ: {g.win_shares} here, {rep['win_shares']} in the replay")
        return g


__all__ = ["Game", "IllegalActionError", "NO_PLAYER", "ReplayError"]
