"""The worker of ``dynasty bench compare``, run by path with ``PYTHONPATH`` set to the tree it
measures, so ``sim`` and ``agents`` are that tree's (any revision with ``agents.arena.play_games``).

It reads one chunk a line from stdin, ``GAME PLAYERS GAMES FIRST_SEED KIND`` (KIND ``random`` or
``heuristic``: every seat that agent), plays the chunk and prints the process's CPU time spent
on it, a fingerprint of the games (SHA-1 of their scores, wins and lengths) and the number of
decisions they took."""

import hashlib
import sys
import time

import numpy as np


def main():
    from agents.arena import play_games

    try:
        from agents.table import HEURISTIC, N_AGENT_PARAMS, RANDOM
    except ImportError:  # a revision from before agents.table: the arena defined them
        from agents.arena import HEURISTIC, N_AGENT_PARAMS, RANDOM
    from sim import get_game

    specs = {}
    for line in sys.stdin:
        game, n, games, first, kind = line.split()
        n, games, first = int(n), int(games), int(first)
        if game not in specs:
            spec = get_game(game)
            specs[game] = (spec, spec.encode_options({}))
        spec, opt = specs[game]
        agent = RANDOM if kind == "random" else HEURISTIC
        seeds = np.arange(first, first + games)
        seat_agent = np.zeros((games, n), np.int64)
        t0 = time.process_time()
        scores, wins, _, lengths = play_games(
            spec, seeds, n, opt, seat_agent, np.array([agent]), np.zeros((1, N_AGENT_PARAMS))
        )
        t = time.process_time() - t0
        h = hashlib.sha1()
        for a in (scores, wins, lengths):
            h.update(np.ascontiguousarray(a).tobytes())
        print(t, h.hexdigest()[:16], int(lengths.sum()), flush=True)


if __name__ == "__main__":
    main()
