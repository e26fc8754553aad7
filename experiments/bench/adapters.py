"""The RL adapters against the raw engine, and our MCTS against OpenSpiel's ISMCTSBot.

    .venv/bin/python -m experiments.bench.adapters         # the figures of docs/performance.md
    dynasty bench adapters --seconds 1 --match-games 20    # a quicker run

**Speed.**  Decisions per second of uniformly random play, one game after another, for
each game at one player count, through: the arena (``play_games`` with random agents: the
whole game in one compiled call); the engine's kernels called from Python (``legal_mask``
and ``apply`` per decision, as any Python wrapper must); the same plus the seat's
observation tensor per decision (what every adapter computes); the PettingZoo AEC
environment (``last()`` and ``step``); the Gymnasium environment (random opponents: the
figure counts every seat's decisions); the OpenSpiel Python game (``legal_actions``,
``information_state_tensor`` and ``apply_action``).  Each figure runs for ``--seconds``.

**Strength and speed side by side.**  Our MCTS (``mcts:N``, the arena's agent, through
``choose_action``) against OpenSpiel's ``ISMCTSBot`` (Python; random rollouts, ``uct_c = 2``,
the same N simulations per decision) on Goofspiel through our OpenSpiel registration,
``--match-games`` games with the seats alternated; reported: our mean win share with a 95%
interval, and each bot's mean time per decision.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

GAMES = (
    ("goofspiel", 2),
    ("middle_kingdom", 4),
    ("ming_dynasty", 3),
    ("emperors_choice", 4),
    ("eternal_dynasty", 4),
)


def _timed(fn, seconds):
    """Run ``fn()`` (which returns decisions made) until ``seconds`` pass; decisions per second."""
    n, t0 = 0, time.perf_counter()
    while True:
        n += fn()
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n / dt


def speeds(game, players, seconds):
    from agents.arena import play_games
    from agents.table import RANDOM
    from sim.registry import get_game

    spec = get_game(game)
    k = spec.kernels
    opt = spec.encode_options()
    rng = np.random.default_rng(0)
    mask = np.zeros(spec.num_actions, np.bool_)
    seed = [0]
    out = {}

    def arena():
        seeds = np.arange(seed[0], seed[0] + 200, dtype=np.int64)
        seed[0] += 200
        _, _, _, lengths = play_games(
            spec,
            seeds,
            players,
            opt,
            np.zeros((200, players), np.int64),
            np.array([RANDOM], np.int64),
            np.zeros((1, 8)),
        )
        return int(np.asarray(lengths).sum())

    def python(observe=False):
        def run():
            s = k.new_state(np.int64(rng.integers(2**40)), np.int64(players), opt)
            t = np.zeros(spec.observation.size, np.float32)
            n = 0
            while not k.is_terminal(s):
                p = k.current_player(s)
                if observe:
                    spec.observation.observe(s, p, t)
                c = k.legal_mask(s, mask)
                k.apply(s, np.int64(np.flatnonzero(mask)[rng.integers(c)]))
                n += 1
            return n

        return run

    def pettingzoo():
        from dynasty_lab.envs.pettingzoo import env

        e = env(game, players, seed=int(rng.integers(2**31)))
        e.reset()
        n = 0
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(legal.size)]))
            n += 1
        return n

    from dynasty_lab.envs.gymnasium import DynastyEnv

    gym_env = DynastyEnv(game, players, seat=0, opponents="random")

    def gym():
        e = gym_env
        obs, info = e.reset(seed=int(rng.integers(2**31)))
        term = False
        while not term:
            legal = np.flatnonzero(info["action_mask"])
            obs, _, term, _, info = e.step(int(legal[rng.integers(legal.size)]))
        return int(e.table.state[4])  # H_PLY: every seat's decisions

    def openspiel():
        from dynasty_lab.envs import openspiel as dos

        g = dos.load(game, players)
        s = g.new_initial_state()
        n = 0
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(int(rng.integers(256)))
                continue
            s.information_state_tensor(s.current_player())
            legal = s.legal_actions()
            s.apply_action(legal[rng.integers(len(legal))])
            n += 1
        return n

    try:
        arena()
        out["arena (compiled)"] = _timed(arena, seconds)
    except Exception as e:  # the arena's result layout is the lead's; report, do not fail
        out["arena (compiled)"] = float("nan")
        print(f"  arena: {type(e).__name__}: {e}")
    for name, fn in (
        ("kernels from Python", python(False)),
        ("kernels + tensor", python(True)),
        ("PettingZoo AEC", pettingzoo),
        ("Gymnasium", gym),
        ("OpenSpiel Python game", openspiel),
    ):
        fn()  # warm up (compile, load caches)
        out[name] = _timed(fn, seconds)
    return out


def match(games, sims, seed=0):
    """Our MCTS against OpenSpiel's ISMCTSBot on 2-player Goofspiel (13 cards)."""
    import pyspiel  # noqa: F401  (only checks that OpenSpiel is installed)
    from open_spiel.python.algorithms import ismcts, mcts

    from agents.decision import choose_action
    from agents.spec import parse_agent
    from dynasty_lab.envs import openspiel as dos
    from sim.core import new_rng

    g = dos.load("goofspiel", 2)
    spec = dos.get_game("goofspiel")
    K = tuple(spec.kernels)
    kind, params, label = parse_agent(f"mcts:{sims}")
    params = np.ascontiguousarray(params, np.float64)
    mask = np.zeros(spec.num_actions, np.bool_)
    rng = np.random.default_rng(seed)
    shares, t_ours, t_theirs, n_ours, n_theirs = [], 0.0, 0.0, 0, 0
    for i in range(games):
        ours = i % 2
        bot = ismcts.ISMCTSBot(
            g,
            mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed + i)),
            uct_c=2.0,
            max_simulations=sims,
            random_state=np.random.RandomState(seed + i),
        )
        agent_rng = new_rng(np.int64(seed * 1000 + i))
        s = g.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(int(rng.integers(256)))
                continue
            t0 = time.perf_counter()
            if s.current_player() == ours:
                spec.kernels.legal_mask(s.s, mask)
                a = int(choose_action(K, s.s, np.int64(kind), params, agent_rng, mask))
                t_ours += time.perf_counter() - t0
                n_ours += 1
            else:
                a = bot.step(s)
                t_theirs += time.perf_counter() - t0
                n_theirs += 1
            s.apply_action(a)
        shares.append(s.returns()[ours])
    m = float(np.mean(shares))
    half = (
        1.96 * float(np.std(shares, ddof=1)) / math.sqrt(len(shares))
        if len(shares) > 1
        else float("nan")
    )
    return {
        "games": games,
        "sims": sims,
        "ours": m,
        "half": half,
        "ms_ours": 1000 * t_ours / max(n_ours, 1),
        "ms_theirs": 1000 * t_theirs / max(n_theirs, 1),
    }


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench adapters``."""
    ap = argparse.ArgumentParser(
        prog="dynasty bench adapters", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--seconds", type=float, default=3.0, help="timing budget per measurement")
    ap.add_argument("--match-games", type=int, default=100, help="games of the match")
    ap.add_argument(
        "--match-sims", type=int, default=200, help="MCTS simulations per decision in the match"
    )
    ap.add_argument("--games", default=",".join(g for g, _ in GAMES), help="comma-separated games")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    wanted = set(a.games.split(","))
    print("| game | players | path | decisions/s | vs kernels from Python |")
    print("| --- | ---: | --- | ---: | ---: |")
    for game, players in GAMES:
        if game not in wanted:
            continue
        r = speeds(game, players, a.seconds)
        base = r["kernels from Python"]
        for name, v in r.items():
            print(f"| {game} | {players} | {name} | {v:,.0f} | {v / base:.2f} |", flush=True)
    if a.match_games > 0:
        m = match(a.match_games, a.match_sims)
        print(
            f"\nGoofspiel (13 cards, 2 players), mcts:{m['sims']} against ISMCTSBot "
            f"({m['sims']} simulations), {m['games']} games: our mean win share "
            f"{m['ours']:.3f} +- {m['half']:.3f} (95%); time per decision ours "
            f"{m['ms_ours']:.2f} ms, ISMCTSBot {m['ms_theirs']:.2f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
