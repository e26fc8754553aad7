"""dynasty-lab's adapters to other research code (``dynasty_lab.envs``): PettingZoo, OpenSpiel
and Gymnasium.  The engines themselves live in ``sim``; see docs/adapters.md."""
