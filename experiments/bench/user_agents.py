"""User-agent overhead: CPU time per decision of the fast path (a numba kernel in the arena) and
of the slow path (a Python class, games played decision by decision), against the arena alone.

    dynasty bench user_agents [--game NAME] [--players N] [--games N]

Rows: the arena with built-in random agents; the arena with the example kernel
``agents.examples:random_legal`` in every seat (fast path); the slow path with the same kernel
(every decision called from Python); and a trivial Python agent (returns the first legal action)
in every seat, whose time includes the seat's view (a determinized, read-only copy of the state).
Times are CPU time of this process's thread per decision, so they compare on a loaded machine.

Then a mixed lineup: the heuristic in seat 0, ``agents.examples:OnePlyEvaluate`` (a Python agent
that does real work) in seat 1, random agents in the others, against the baseline with a random
agent in seat 1 (played in the arena): each built-in agent's recorded time per decision
(``agent_ns / decisions``, as the results' ``agent_ms``) with and without the Python agent in
the game, and the ratio.  A built-in agent's own work is the same in both, so a ratio far above
1 means the Python loop charges it for something else.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.arena import play_games
from agents.spec import parse_agent
from sim import get_game


class FirstLegal:
    """The cheapest Python agent: the first legal action."""

    def act(self, view, legal_actions):
        return legal_actions[0]


def _measure(spec, players, games, agent, user, python_path=False):
    kind, params, _ = parse_agent(agent) if isinstance(agent, str) else agent
    seeds = np.arange(games, dtype=np.int64) + 10**6
    seats = np.zeros((games, players), np.int64)
    kinds, table = np.array([kind]), params[None, :]
    opt = spec.encode_options({})
    timing: dict = {}
    if python_path:
        from agents.user import play_python

        def outputs(g):
            return [
                np.zeros((g, players)),
                np.zeros((g, players)),
                np.zeros((g, players, len(spec.feature_names))),
                np.zeros(g, np.int64),
                np.zeros((g, players), np.int64),
                np.zeros((g, players), np.int64),
            ]

        from agents.arena import user_table

        _, table2 = user_table(kinds, table, [user] if kind == 3 else None)
        play_python(
            spec, seeds[:2], seeds[:2], players, opt, seats[:2], kinds, table2, [user], *outputs(2)
        )
        out = outputs(games)
        t0 = time.thread_time()
        play_python(spec, seeds, seeds, players, opt, seats, kinds, table2, [user], *out)
        dt = time.thread_time() - t0
        decisions = int(out[4].sum())
    else:
        play_games(spec, seeds[:2], players, opt, seats[:2], kinds, table, user_agents=[user])
        t0 = time.thread_time()
        play_games(
            spec, seeds, players, opt, seats, kinds, table, user_agents=[user], timing=timing
        )
        dt = time.thread_time() - t0
        decisions = int(timing["decisions"].sum())
    return dt / decisions * 1e6, decisions


def _recorded(spec, players, games, agents, users):
    """Each seat's recorded time per decision (us) in ``games`` games of ``agents``, seats fixed."""
    parsed = [parse_agent(a) for a in agents]
    kinds = np.array([k for k, _, _ in parsed])
    table = np.array([p for _, p, _ in parsed])
    seeds = np.arange(games, dtype=np.int64) + 10**6
    seats = np.tile(np.arange(players), (games, 1))
    opt = spec.encode_options({})
    play_games(spec, seeds[:1], players, opt, seats[:1], kinds, table, user_agents=users)
    timing: dict = {}
    play_games(spec, seeds, players, opt, seats, kinds, table, user_agents=users, timing=timing)
    return timing["agent_ns"].sum(0) / timing["decisions"].sum(0) / 1e3


def mixed_lineup(spec, players, games) -> list[tuple[int, str, float, float]]:
    """(seat, agent, us per decision without, with the Python agent in seat 1) for each other
    seat."""
    from agents import examples

    python = "agents.examples:OnePlyEvaluate"
    base = ["heuristic"] + ["random"] * (players - 1)
    mixed = ["heuristic", python] + ["random"] * (players - 2)
    users = [None, examples.OnePlyEvaluate] + [None] * (players - 2)
    without = _recorded(spec, players, games, base, [None] * players)
    with_py = _recorded(spec, players, games, mixed, users)
    return [(p, base[p], without[p], with_py[p]) for p in range(players) if p != 1]


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench user_agents``."""
    ap = argparse.ArgumentParser(
        prog="dynasty bench user_agents", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--game", default="goofspiel", help="the game (default goofspiel)")
    ap.add_argument("--players", type=int, default=2, help="seats (default 2)")
    ap.add_argument("--games", type=int, default=300, help="games per agent kind (default 300)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    spec = get_game(args.game)
    from agents import examples
    from agents.table import N_AGENT_PARAMS, PYTHON

    py = (PYTHON, np.zeros(N_AGENT_PARAMS), "FirstLegal")
    rows = [
        ("arena, built-in random", "random", None, False),
        (
            "arena, user kernel random_legal (fast path)",
            "agents.examples:random_legal",
            examples.random_legal,
            False,
        ),
        (
            "Python loop, user kernel random_legal",
            "agents.examples:random_legal",
            examples.random_legal,
            True,
        ),
        ("Python loop, Python agent FirstLegal (slow path)", py, FirstLegal, True),
    ]
    print(f"{spec.name}, {args.players} players, {args.games} games; CPU time per decision")
    base = None
    for name, agent, user, slow in rows:
        us, n = _measure(spec, args.players, args.games, agent, user, slow)
        base = base or us
        print(
            f"  {name:<52} {us:10.2f} us  ({n:,} decisions; {us / base:,.0f}x the arena's random)"
        )
    print(
        "mixed lineup: recorded time per decision of the built-in agents, without / with "
        "agents.examples:OnePlyEvaluate in seat 1"
    )
    for p, name, without, with_py in mixed_lineup(spec, args.players, args.games // 10 or 1):
        print(
            f"  seat {p} {name:<10} {without:8.2f} us / {with_py:8.2f} us"
            f"  ({with_py / without:.1f}x)"
        )
    return 0
