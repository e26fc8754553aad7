"""Tuning: component values (a design objective) or an MCTS agent's parameters (its edge over a
yardstick) searched with Optuna, the best re-checked on fresh deals.

``tune`` (the config, the trials and the re-check) and ``report``.
"""
