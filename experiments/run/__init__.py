"""Runs: an experiment config becomes a plan of chunks, played by Ray workers and stored as Parquet.

``config`` reads and validates the TOML file, ``plan`` splits the games into seeded chunks,
``runner`` plays them (``run``, and the Ray session other workflows share: ``ray_session``),
``store`` writes the part files and the manifest, ``schema`` defines the results table.
"""
