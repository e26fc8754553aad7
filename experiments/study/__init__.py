"""Balance studies: rule options, component values, player counts and lineups compared on shared
deals.

``study`` (the config, its cells, the sequential stop), ``stats`` (paired effects, design
metrics, intervals), ``tiers`` (findings per skill level: the cells played by several lineups)
and ``report`` (``dynasty study``'s report).
"""
