"""dynasty-lab's built-in agents as OpenSpiel bots (``pyspiel.Bot``) for the registered games.

    >>> import numpy as np, pyspiel
    >>> from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
    >>> from dynasty_lab.envs import openspiel as dos
    >>> from dynasty_lab.envs.openspiel_bots import DynastyBot
    >>> game = dos.load("goofspiel", 2, {"num_cards": 5})
    >>> bots = [DynastyBot(game, 0, "heuristic", seed=1), pyspiel.make_uniform_random_bot(1, 2)]
    >>> evaluate_bots(game.new_initial_state(), bots, np.random.default_rng(3))

A bot plays one seat of a game made by :mod:`dynasty_lab.envs.openspiel` with an agent named as
in experiment configs (``"random"``, ``"heuristic"``, ``"mcts:200"``, ``"mcts:50ms,rollout=
heuristic"``, ``"policy:<model>"`` ...), through the arena's own decision kernel
(:func:`agents.decision.choose_action`).

**Only the seat's information.**  The OpenSpiel state holds the engine's true state.  At each
decision the bot copies it and resamples everything its seat cannot see (other hands, the deck
order, another seat's pending secret choice) with the game's ``determinize``, as
``resample_from_infostate`` does; the agent decides on that copy (MCTS then determinizes again at
every simulation, from the same information set).  So the bot's decision depends on the true
state only through what its seat knows.

**Randomness.**  Each bot has two streams derived from its ``seed`` and seat: the agent's RNG
(the words an agent draws in the arena) and the resampling's; the same seed gives the same play.

Not available as bots: user agents (a Python class is already Python: wrap it directly), MCTS
with tree reuse (its tree lives in the arena's game loop) and omniscient MCTS (it reads hidden
information).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from agents.arena import kernels_of_run
from agents.decision import REUSE_ONLY_IN_ARENA, choose_action
from agents.mcts import P_OMNISCIENT, P_REUSE
from agents.model import run_nets
from agents.net import hint_in
from agents.spec import parse_agent
from agents.table import MCTS, PYTHON, USER_KERNEL
from dynasty_lab.envs.openspiel import DynastyState
from sim.core import hash64, new_rng
from sim.registry import get_game

# the bot's two RNG streams: hash64(hash64(seed, seat), stream)
AGENT_STREAM, RESAMPLE_STREAM = 0, 1


class DynastyBot(pyspiel.Bot):
    """Seat ``player_id`` of ``game`` (a game of :mod:`dynasty_lab.envs.openspiel`) played by the
    built-in agent ``agent`` (a name or table as in experiment configs)."""

    def __init__(self, game, player_id: int, agent="heuristic", seed: int = 0):
        pyspiel.Bot.__init__(self)
        name = getattr(game, "spec_name", None)
        if name is None:
            raise TypeError(
                f"{game}: not a dynasty-lab game (make it with dynasty_lab.envs.openspiel)"
            )
        players = game.num_players()
        if not 0 <= int(player_id) < players:
            raise ValueError(f"player_id {player_id}: the game has seats 0..{players - 1}")
        kind, params, label = parse_agent(agent)
        if kind in (USER_KERNEL, PYTHON):
            raise ValueError(
                f"{label}: a user agent is not a built-in agent; call it from Python directly"
            )
        if kind == MCTS and params[P_REUSE] > 0:
            raise ValueError(f"{label}: {REUSE_ONLY_IN_ARENA}")
        if kind == MCTS and params[P_OMNISCIENT] > 0:
            raise ValueError(
                f"{label}: an omniscient search reads what its seat cannot see; a bot sees only "
                "its seat's information"
            )
        self.spec = get_game(name)
        self.player_id = int(player_id)
        self.label = label
        self.kind = np.int64(kind)
        table, self.nets = run_nets(self.spec, players, np.array([kind]), params[None, :], [label])
        self.params = np.ascontiguousarray(table[0])
        self.kernels = kernels_of_run(
            self.spec, [kind], nets=int(self.nets.obs_size) > 0, hint=hint_in(self.nets)
        )  # only the kernels the agent calls are compiled
        base = hash64(np.int64(seed), np.int64(self.player_id))
        self.rng = new_rng(hash64(base, np.int64(AGENT_STREAM)))
        self.resample_rng = new_rng(hash64(base, np.int64(RESAMPLE_STREAM)))
        self.mask = np.zeros(self.spec.num_actions, np.bool_)

    def seen(self, state) -> np.ndarray:
        """A copy of ``state``'s engine state with everything hidden from the bot's seat
        resampled (the copy the agent decides on)."""
        s = state.s.copy()
        self.spec.kernels.determinize(s, np.int64(self.player_id), self.resample_rng)
        return s

    def step(self, state) -> int:
        """The agent's action for the bot's seat in ``state`` (a DynastyState at that seat's
        decision)."""
        if not isinstance(state, DynastyState):
            raise TypeError(
                f"{type(state).__name__}: not a state of a dynasty-lab game "
                "(dynasty_lab.envs.openspiel)"
            )
        if state.current_player() != self.player_id:
            raise ValueError(
                f"{self.label} plays seat {self.player_id}, but seat {state.current_player()} "
                "is to move"
            )
        return int(
            choose_action(
                self.kernels,
                self.seen(state),
                self.kind,
                self.params,
                self.rng,
                self.mask,
                self.nets,
            )
        )

    def restart_at(self, state) -> None:
        """Nothing to reset: the bot keeps no game history (each decision reads the state)."""

    def inform_action(self, state, player_id, action) -> None:
        """Nothing to record: the bot keeps no game history."""
