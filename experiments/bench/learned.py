"""Learned agents' speed: decisions per second of ``policy:<model>`` self-play against the
heuristic's and random play's in the same process, and simulations per second of MCTS with the
network (its value head, or rollouts at the leaves) against MCTS without it, for every game.

The network's weights do not change its speed, only its sizes do: without ``--model`` each game
gets a network of ``--hidden`` units with random weights over an encoding fitted to states of
random games (what a trained one of that size computes per decision).  Times are CPU time of
this process; the ratios are the figures to compare across machines.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from agents.arena import play_games
from agents.mcts import search_root
from agents.model import observation_hash, run_nets, save
from agents.net import HINT_ARRAY, LAYER_NAMES, fit_encoding, n_inputs
from agents.spec import parse_agent
from sim import game_names, get_game
from sim.game import Game

PLAYERS = 4


def random_model(
    name: str, players: int, hidden: int, path: Path, seed: int = 0, hint: bool = False
) -> Path:
    """A model file of ``hidden`` units with random weights for game ``name`` (a hint model
    with ``hint``: agents/net.py)."""
    spec = get_game(name)
    rng = np.random.default_rng(seed)
    obs = []
    for s in range(8):
        g = Game(name, players, s)
        while not g.is_over:
            obs.append(spec.observation.tensor(g.state, g.current_player))
            g.apply(int(rng.choice(list(g.legal_actions()))))
    enc = fit_encoding(np.array(obs))
    sizes = {
        "w1": (n_inputs(enc) + (spec.num_actions if hint else 0), hidden),
        "b1": (hidden,),
        "w2": (hidden, hidden),
        "b2": (hidden,),
        "wp": (hidden, spec.num_actions),
        "bp": (spec.num_actions,),
        "wv": (hidden, spec.max_players + 1),
        "bv": (spec.max_players + 1,),
    }
    arrays = {k: (rng.normal(0, 0.1, sizes[k])).astype(np.float32) for k in LAYER_NAMES}
    if hint:
        arrays[HINT_ARRAY] = np.full(spec.num_actions, 4.0, np.float32)
    card = {"game": name, "players": [players], "observation": observation_hash(spec), "hint": hint}
    return save(path, {"enc": enc, **arrays}, card)


def self_play_rate(spec, players: int, labels: list[str], games: int) -> float:
    """Decisions per CPU second of ``games`` games with the agents of ``labels`` (one per seat)."""
    rows = [parse_agent(x) for x in labels]
    kinds = np.array([r[0] for r in rows])
    params, nets = run_nets(spec, players, kinds, np.array([r[1] for r in rows]), labels)
    seat_agent = np.tile(np.arange(players), (games, 1))
    opts = spec.encode_options({})
    play_games(spec, np.arange(2), players, opts, seat_agent[:2], kinds, params, nets=nets)
    timing: dict = {}
    t0 = time.process_time()
    play_games(
        spec, np.arange(games), players, opts, seat_agent, kinds, params, nets=nets, timing=timing
    )
    return float(timing["decisions"].sum()) / (time.process_time() - t0)


def search_rate(spec, players: int, label: str, states: list, model: Path | None) -> float:
    """MCTS simulations per CPU second over ``states`` (one search each)."""
    kind, params, label = parse_agent(label)
    params, nets = run_nets(spec, players, [kind], params[None], [label])
    sims = 0
    search_root(spec, states[0], params[0], 1, nets)
    t0 = time.process_time()
    for i, s in enumerate(states):
        search_root(spec, s, params[0], i, nets)
        sims += int(params[0][0])
    return sims / (time.process_time() - t0)


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench learned``."""
    ap = argparse.ArgumentParser(prog="dynasty bench learned", description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", action="append", help="only these games (default: all)")
    ap.add_argument("--model", help="a model file to time (default: random weights)")
    ap.add_argument("--hidden", type=int, default=128, help="hidden units of the random network")
    ap.add_argument(
        "--hint", action="store_true", help="the random network is a hint model (agents/net.py)"
    )
    ap.add_argument("--games", type=int, default=60, help="self-play games per agent")
    ap.add_argument("--simulations", type=int, default=200, help="simulations per search")
    ap.add_argument("--searches", type=int, default=20, help="searches per MCTS figure")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.games < 1 or args.searches < 1 or args.simulations < 2 or args.hidden < 1:
        ap.error("--games, --searches and --hidden must be at least 1, --simulations at least 2")
    games = args.game or [g for g in game_names() if get_game(g).observation is not None]
    print(
        "game | policy dec/s | heuristic dec/s | random dec/s | policy/heuristic | "
        "us per policy decision | mcts sims/s | mcts+net sims/s | net/plain | "
        "mcts+net,leaf=rollout sims/s | rollout-leaf/plain"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in games:
            spec = get_game(name)
            n = min(max(PLAYERS, spec.min_players), spec.max_players)
            model = Path(args.model) if args.model else None
            if model is None:
                model = random_model(
                    name, n, args.hidden, Path(tmp) / f"{name}.npz", hint=args.hint
                )
            pol = self_play_rate(spec, n, [f"policy:{model}"] * n, args.games)
            heu = self_play_rate(spec, n, ["heuristic"] * n, args.games)
            rnd = self_play_rate(spec, n, ["random"] * n, args.games * 10)
            states = []
            rng = np.random.default_rng(1)
            g = Game(name, n, 5)
            while not g.is_over and len(states) < args.searches:
                states.append(g.state.copy())
                for _ in range(3):
                    if not g.is_over:
                        g.apply(int(rng.choice(list(g.legal_actions()))))
            plain = search_rate(spec, n, f"mcts:{args.simulations}", states, None)
            withnet = search_rate(spec, n, f"mcts:{args.simulations},net={model}", states, model)
            rollout = search_rate(
                spec, n, f"mcts:{args.simulations},net={model},leaf=rollout", states, model
            )
            print(
                f"{name} | {pol:,.0f} | {heu:,.0f} | {rnd:,.0f} | {pol / heu:.2f} | "
                f"{1e6 / pol:.1f} | {plain:,.0f} | {withnet:,.0f} | {withnet / plain:.2f} | "
                f"{rollout:,.0f} | {rollout / plain:.2f}",
                flush=True,
            )
    return 0
