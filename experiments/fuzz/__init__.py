"""Fuzzing: games with every rule option drawn at random, every invariant checked after every
decision (``fuzz``, ``dynasty fuzz``)."""
