"""Experiments: config -> plan -> Ray tasks -> Parquet -> analysis -> report; the `dynasty` CLI."""
