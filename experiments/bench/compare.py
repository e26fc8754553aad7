"""Speed of this tree against a git revision on the same games: the CPU time of each chunk of
games played by both, in turn.

    dynasty bench compare --base REV [--game NAME[:PLAYERS]] [--kind random|heuristic]
                          [--rounds R] [--seconds S]

The revision is checked out in a temporary git worktree with its own numba cache (its first
games compile it).  Two worker processes, one per tree (``_compare_worker.py`` with the tree
on ``PYTHONPATH``), play the same chunks of seeded games, alternating which goes first; a
round's two chunks run within a second of each other, so a shared machine whose speed drifts
moves both alike.  The printed figures are the medians over the rounds of the base's CPU time
over this tree's (above 1: this tree is faster), per chunk and per decision, with the
quartiles of the rounds.  Each chunk's games are fingerprinted in both trees: when they
differ (a change of rules or policy) the line says so, since the chunks then hold different
work, and the ratio per decision is the one to read.  ``--base-tree``
measures an existing tree instead of a revision (its numba cache: ``--base-cache``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("_compare_worker.py")


class Worker:
    """One tree's worker process: :meth:`play` sends a chunk and returns (CPU seconds, fingerprint,
    decisions)."""

    def __init__(self, tree: Path, cache: Path):
        env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(cache))
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tree,
        )
        self.tree = tree

    def play(self, game, n, games, first, kind):
        self.proc.stdin.write(f"{game} {n} {games} {first} {kind}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline().split()
        if len(line) != 3:
            raise RuntimeError(f"the worker of {self.tree} stopped (its error is above)")
        return float(line[0]), line[1], int(line[2])

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def compare(base: Worker, new: Worker, game, n, kind, rounds, seconds):
    """Rounds of one chunk each, the same seeds in both trees (fresh seeds every round); the
    chunk is sized so this tree plays it in about ``seconds / rounds``.  Returns the base's time
    over this tree's per round, the same per decision, whether every chunk's games were the
    same, and the chunk's games."""
    for w in (base, new):  # compile or load both before timing
        w.play(game, n, 1, 0, kind)
    games, t = 1, 0.0
    while t < seconds / rounds / 2:
        games *= 2
        t, _, _ = new.play(game, n, games, 10**6, kind)
    ratios, per_decision, same = [], [], True
    for r in range(rounds):
        first = 10**7 + r * games
        if r % 2:
            tn, fn, dn = new.play(game, n, games, first, kind)
            tb, fb, db = base.play(game, n, games, first, kind)
        else:
            tb, fb, db = base.play(game, n, games, first, kind)
            tn, fn, dn = new.play(game, n, games, first, kind)
        ratios.append(tb / tn)
        per_decision.append(tb / db / (tn / dn))
        same &= fb == fn
    return np.array(ratios), np.array(per_decision), same, games


def _targets(specs):
    """(game, players) for each ``GAME[:PLAYERS]`` (an unknown game: get_game's error, which the
    ``dynasty`` command reports in one line)."""
    from sim import game_names, get_game

    out = []
    for s in specs or game_names():
        name, _, players = s.partition(":")
        spec = get_game(name)
        ns = [int(players)] if players else list(spec.players())
        for n in ns:
            if n not in spec.players():
                raise SystemExit(
                    f"{name} is for {min(spec.players())}-{max(spec.players())} players, not {n}"
                )
            out.append((name, n))
    return out


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench compare``."""
    ap = argparse.ArgumentParser(prog="dynasty bench compare", description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", help="the git revision to compare with (a commit, a tag, HEAD ...)")
    ap.add_argument(
        "--base-tree", type=Path, help="an existing tree to compare with, instead of --base"
    )
    ap.add_argument(
        "--base-cache", type=Path, help="the numba cache of --base-tree (default: its .numba_cache)"
    )
    ap.add_argument(
        "--game",
        action="append",
        help="GAME or GAME:PLAYERS (default: every game and player count)",
    )
    ap.add_argument(
        "--kind", choices=("random", "heuristic"), default="random", help="the agent of every seat"
    )
    ap.add_argument(
        "--rounds", type=int, default=12, help="chunks per game and player count, in each tree"
    )
    ap.add_argument(
        "--seconds", type=float, default=3.0, help="this tree's time per game and player count"
    )
    return ap


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.base and not args.base_tree:
        print("dynasty bench compare: nothing to compare with (give --base REV or --base-tree DIR)")
        return 0
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be at least 1 and --seconds positive")
    targets = _targets(args.game)
    with tempfile.TemporaryDirectory(prefix="dynasty-compare-") as tmp:
        if args.base_tree:
            tree = args.base_tree.resolve()
            cache = (args.base_cache or tree / ".numba_cache").resolve()
            label = str(tree)
        else:
            tree, cache, label = Path(tmp) / "tree", Path(tmp) / "numba_cache", args.base
            r = subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), args.base],
                capture_output=True,
                text=True,
            )
            if r.returncode:
                raise SystemExit(f"cannot check out {args.base!r}: {r.stderr.strip()}")
        new_cache = Path(os.environ.get("NUMBA_CACHE_DIR", ROOT / ".numba_cache")).resolve()
        base, new = Worker(tree, cache), Worker(ROOT, new_cache)
        try:
            print(
                f"base: {label}; this tree: {ROOT} ({args.kind} "
                f"play, {args.rounds} rounds, CPU time)"
            )
            print()
            print(
                "| game | players | games a chunk | base time / this tree's: median (quartiles) "
                "| per decision | same games |"
            )
            print("|---|---|---|---|---|---|")
            for game, n in targets:
                ratios, per_decision, same, games = compare(
                    base, new, game, n, args.kind, args.rounds, args.seconds
                )
                cells = []
                for r in (ratios, per_decision):
                    q1, med, q3 = np.percentile(r, [25, 50, 75])
                    cells.append(f"{med:.3f} ({q1:.3f}-{q3:.3f})")
                print(
                    f"| {game} | {n} | {games:,} | {cells[0]} | "
                    f"{cells[1]} | {'yes' if same else 'NO'} |",
                    flush=True,
                )
        finally:
            base.close()
            new.close()
            if not args.base_tree:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                    capture_output=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
