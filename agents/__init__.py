"""Game-agnostic agents: random, the game's own heuristic, and one MCTS for every game."""
