"""Tournaments: a pool of agents in balanced lineups on shared deals, rated with intervals.

``tournament`` (the config, its lineups and their play) and ``report`` (ratings, pairwise
table, alpha-Rank, time per decision).
"""
