"""Experiments: one package per workflow, all on one runner and one results schema.

run/         config -> plan -> Ray runner -> Parquet store (schema, manifest)
analysis/    streamed aggregates (DuckDB), ratings, the run report and its rendering
study/       rule variants and component values compared on shared deals
tournament/  agents rated in balanced lineups on shared deals
tune/        component values or agent parameters searched with Optuna
bench/       benchmarks that print numbers
view/        the replay viewer and terminal play
fuzz/        every invariant after every decision, options drawn at random
cli.py       the ``dynasty`` command
"""
