"""Benchmarks that print numbers (`dynasty bench NAME`); each module here has ``main(argv)``."""
