"""Analysis of results folders: aggregates by DuckDB over the Parquet parts, ratings, reports.

``results`` (:class:`Results`, the one way every report reads a folder), ``ratings`` (Elo /
Bradley-Terry fits, alpha-Rank), ``render`` (the Markdown/HTML/PNG report writer every report
uses) and ``report`` (the win-rate report of ``dynasty report``).  ``Results`` and
``load_results`` are importable from here for notebooks.
"""

from experiments.analysis.results import Results, load_results

__all__ = ["Results", "load_results"]
