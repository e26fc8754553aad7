"""Environments over the dynasty-lab engines for reinforcement-learning and game-theory libraries.

- :mod:`dynasty_lab.envs.pettingzoo`: PettingZoo AEC environments with action masks (and a
  parallel-API wrapper for Goofspiel, whose every decision is a simultaneous secret bid);
- :mod:`dynasty_lab.envs.openspiel`: the games registered as OpenSpiel Python games, and
  :mod:`dynasty_lab.envs.openspiel_bots`: the built-in agents as OpenSpiel bots;
- :mod:`dynasty_lab.envs.gymnasium`: a single-agent Gymnasium environment, the other seats
  played by dynasty-lab agents.

They need the optional extra ``rl`` (``pip install -e ".[rl]"``); OpenSpiel comes with ``dev``.
See docs/adapters.md.
"""
