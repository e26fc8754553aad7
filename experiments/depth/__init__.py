"""Skill depth: a ladder of agents (a search at doubling budgets above random), each step head
to head against the step below on shared deals; the range of skill, how much the deal decides,
ratings against the budget.

``depth`` (the config, its lineups, played by the tournament runner) and ``report`` (the
statistics and the report).
"""
