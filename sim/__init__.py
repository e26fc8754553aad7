"""Game engines: one package per game, plus the contract they share (``sim.core``)."""

from sim import compile_cache  # noqa: F401  (must precede every numba kernel definition)
from sim.game import Game
from sim.registry import game_names, get_game

__all__ = ["Game", "game_names", "get_game"]
