"""Human play in the terminal against the agents.

    dynasty play GAME [--players N] [--seat K] [--opponents heuristic,mcts:500] [--seed S]
                      [--option NAME=VALUE ...] [--out REPLAY.json]

The table is the game's own text rendering (``render``) as the human's seat sees it: the
words the game's ``determinize`` resamples for that seat are shown as ``?`` (the same
rule as the replay viewer, experiments/view/viewer.py).  An opponent's decision is printed by
name unless the human could not tell it from another of its legal decisions (the game's
``info_key`` for the human's seat is the same after either): a secret bid is "a secret
choice" until the reveal shows it.  On the human's turn the legal actions are numbered
and named; the answer is a number or a name (case-insensitive); anything else re-asks
with the legal ones.  Ctrl-C (or the end of the input) saves the replay so far and exits
with code 130; a finished game is saved as a replay (docs/replay-format.md) with a
``play`` field naming the human's seat and the agents.  Every rule comes from the engine
through :class:`sim.game.Game`; agents choose through the arena's ``choose_action``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from sim.core import hash64, rng_seed
from sim.game import Game
from sim.registry import get_game

EXIT_INTERRUPTED = 130


class PlayError(ValueError):
    """Bad arguments for ``dynasty play`` (one line, exit code 2)."""


def parse_opponents(text: str, n_opponents: int) -> list[tuple[int, np.ndarray, str]]:
    """Agents for the other seats, in seat order after the human's; the list is repeated as
    needed."""
    from agents.spec import parse_agent
    from agents.table import HEURISTIC, MCTS, POLICY, RANDOM

    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise PlayError("--opponents: give at least one agent, e.g. heuristic or mcts:500")
    out = []
    for name in names:
        try:
            kind, params, label = parse_agent(name)
        except ValueError as e:
            raise PlayError(f"--opponents: {e}") from None
        if int(kind) not in (RANDOM, HEURISTIC, MCTS, POLICY):
            raise PlayError(
                f"--opponents: {name!r}: only random, heuristic, mcts and policy agents can "
                "play here"
            )
        out.append((int(kind), np.asarray(params, np.float64), label))
    return [out[i % len(out)] for i in range(n_opponents)]


def seat_view(g: Game, seat: int) -> str:
    """The table as ``seat`` sees it (hidden words as ``?``)."""
    from experiments.view.viewer import hidden_words, masked_text

    text = g.render()
    hidden, samples = hidden_words(g.spec, g.state, seat)
    if not hidden.any():
        return text
    return masked_text(text, [g.spec.render(c) for c in samples])


def is_secret(g: Game, action: int, observer: int) -> bool:
    """True if ``observer`` could not tell ``action`` from another legal action of another name."""
    k = g.spec.kernels
    try:
        names = g.legal_action_names()
        after = g.state.copy()
        k.apply(after, np.int64(action))
        key = k.info_key(after, np.int64(observer))
        for a, name in names.items():
            if a == action or name == names[action]:
                continue
            alt = g.state.copy()
            k.apply(alt, np.int64(a))
            if k.info_key(alt, np.int64(observer)) == key:
                return True
    except Exception:  # a game without info_key: its decisions are public
        return False
    return False


def default_out(game: str, seed: int) -> Path:
    return Path(f"dynasty-play-{game}-{seed}.json")


def play(
    game: str,
    players: int,
    seat: int,
    opponents: str,
    seed: int | None = None,
    options: dict | None = None,
    out: str | Path | None = None,
    *,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> int:
    """Play one game with a person at ``seat``; returns the exit code (0, or 130 if stopped)."""
    from agents.decision import choose_action

    spec = get_game(game)
    spec.check_players(players, options)
    if not 0 <= seat < players:
        raise PlayError(
            f"--seat: {seat} is not a seat of a {players}-player game (0..{players - 1})"
        )
    seed = int(seed) if seed is not None else int(time.time()) % 1_000_000
    g = Game(game, players, seed, options)
    agents = parse_opponents(opponents, players - 1)
    by_seat: dict[int, tuple[int, np.ndarray, str]] = {}
    for i, a in enumerate(agents):
        by_seat[(seat + 1 + i) % players] = a
    labels = ["you" if p == seat else by_seat[p][2] for p in range(players)]
    rngs = np.zeros((players, 2), np.int32)
    for p in range(players):
        rng_seed(rngs[p], 0, hash64(np.int64(seed), np.int64(1000 + p)))
    mask = np.zeros(spec.num_actions, np.bool_)
    out = Path(out) if out else default_out(game, seed)
    K = tuple(spec.kernels)
    from agents.model import ModelError, run_nets

    try:
        params_of, nets = run_nets(
            spec, players, [a[0] for a in agents], [a[1] for a in agents], [a[2] for a in agents]
        )
    except ModelError as e:
        raise PlayError(f"--opponents: {e}") from None
    for i in range(len(agents)):
        by_seat[(seat + 1 + i) % players] = (agents[i][0], params_of[i], agents[i][2])

    def save() -> None:
        rep = g.to_replay()
        rep["play"] = {"human_seat": seat, "agents": labels}
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rep, indent=1))

    say(
        f"{spec.title}, {players} players, seed {seed}; you are seat {seat}; "
        + ", ".join(f"seat {p}: {labels[p]}" for p in range(players))
    )
    say(
        "Answer with the number or the name of a legal "
        "action; Ctrl-C saves the game so far and stops."
    )
    try:
        while not g.is_over:
            p = g.current_player
            if p != seat:
                kind, params, label = by_seat[p]
                a = int(choose_action(K, g.state, np.int64(kind), params, rngs[p], mask, nets))
                name = g.action_name(a)
                secret = is_secret(g, a, seat)
                g.apply(a)
                say(f"seat {p} ({label}): " + ("makes a secret choice" if secret else name))
                continue
            legal = g.legal_action_names()
            say("")
            say(seat_view(g, seat))
            say("your legal actions:")
            items = list(legal.items())
            for i, (_, name) in enumerate(items, 1):
                say(f"  {i:3d}) {name}")
            while True:
                raw = ask(f"seat {seat}, your move [1-{len(items)} or a name]: ").strip()
                choice = _match(raw, items)
                if choice is not None:
                    break
                say(
                    f"not a legal action: {raw!r}. Legal: "
                    + "; ".join(f"{i}) {name}" for i, (_, name) in enumerate(items, 1))
                )
            g.apply(choice)
    except (KeyboardInterrupt, EOFError):
        save()
        say(f"\nstopped after {len(g.history)} decisions; the game so far is saved in {out}")
        return EXIT_INTERRUPTED
    save()
    say("")
    say(g.render())
    scores, wins = g.scores, g.win_shares
    say(
        "final scores: "
        + ", ".join(f"seat {p} ({labels[p]}) {scores[p]:g}" for p in range(players))
    )
    winners = [p for p in range(players) if wins[p] > 0]
    say(
        "winner: "
        + (", ".join(f"seat {p} ({labels[p]})" for p in winners) if winners else "no seat won")
    )
    say(f"replay saved in {out} (view it: dynasty view {out})")
    return 0


def _match(raw: str, items: list[tuple[int, str]]) -> int | None:
    if not raw:
        return None
    if raw.isdigit():
        i = int(raw)
        return items[i - 1][0] if 1 <= i <= len(items) else None
    low = raw.lower()
    for a, name in items:
        if name.lower() == low:
            return a
    return None


def parse_options(pairs: list[str] | None) -> dict:
    """``NAME=VALUE`` pairs into an options dict (integers where the value is one)."""
    opts: dict = {}
    for pair in pairs or []:
        name, eq, value = pair.partition("=")
        if not eq or not name:
            raise PlayError(f"--option: expected NAME=VALUE, got {pair!r}")
        opts[name.strip()] = int(value) if value.strip().lstrip("-").isdigit() else value.strip()
    return opts


def main_args(args) -> int:
    return play(
        args.game,
        args.players,
        args.seat,
        args.opponents,
        args.seed,
        parse_options(args.option),
        args.out,
    )
