"""``dynasty depth``: the skill depth of a game -- a ladder of agents in increasing skill order
(typically a search at doubling budgets above random), each step played head to head against
the step below on shared deals, beside fixed agents (the heuristic, a learned policy).

A depth config (TOML)::

    name = "goofspiel_depth"
    game = "goofspiel"
    players = [2, 3]                  # one player count or several
    ladder = ["random"]               # the bottom of the ladder, in increasing skill order
    budgets = [1, 2, 4, 8, 16]        # then the search at each budget: simulations, or "2ms"
    search = "mcts:{}"                # the search ({} = the budget); the default
    beside = ["heuristic"]            # optional: agents played against every step of the ladder
    pairs = "adjacent"                # or "all": every pair of ladder steps; or k: each step
                                      # against the k steps below it
    deals = 100                       # deals every lineup plays (each in all its seat rotations)
    seed = 2026
    output = "results/depth/goofspiel"
    threshold = 0.75                  # optional: the range of skill's win share
    round_deals = 25                  # optional, as in a tournament
    [options]
    num_cards = 8

The ladder is ``ladder`` followed by ``search`` at each of ``budgets`` (either may be empty, not
both; at least 2 steps).  **Pairs.**  With ``pairs = "adjacent"`` (the default) each step plays
the step directly below it; with ``"all"``, every pair of steps; with an integer ``k``, each
step the ``k`` steps below it (fewer near the bottom; 1 is ``"adjacent"``).  Every ``beside``
agent plays every step of the ladder.  **Lineups of a pair** (``a`` below ``b``): for 2
players, ``(b, a)`` in both seats of every deal; for ``n >= 3`` players, two lineups, one seat
of ``b`` against ``n-1`` seats of ``a`` and one seat of ``a`` against ``n-1`` of ``b``, each in
its ``n`` rotations on every deal.  So on every deal both agents sit in every seat, in both roles.

**Win share of b against a** (:mod:`experiments.depth.report`): per game, the share of the
pairs (seat of ``b``, seat of ``a``) in which ``b``'s seat has the better rank (a shared rank
counts one half), averaged over the games of the pair's lineups.  For 2 players this is ``b``'s
win share (the ``win`` column: 1, 1/2 for a tie, 0); for more it is the pairwise breaking of
the ranks the tournament ratings use (experiments/analysis/ratings.py), and the win shares of
``a`` and ``b`` add up to 1.

A depth folder is a tournament folder (:mod:`experiments.tournament.tournament`) whose schedule
is these lineups: ``OUT/lineups/p<n>-<NNN>/`` ordinary results folders, all with the master seed
(deal ``d`` is the same game seed in every lineup), played in rounds, and ``OUT/tournament.json``
recording it; running the same config again resumes it, and a folder made by another config is
refused.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from experiments.run.config import ConfigError
from experiments.tournament.tournament import (
    Lineup,
    Tournament,
    TournamentSummary,
    agent_labels,
    check_keys,
    deal_fields,
    make_lineup,
    player_counts,
    run_tournament,
)

REQUIRED = ("game", "players", "deals", "seed", "output")
OPTIONAL = (
    "name",
    "description",
    "options",
    "ladder",
    "budgets",
    "search",
    "beside",
    "pairs",
    "threshold",
    "chunk_size",
    "round_deals",
)
PAIRS = ("adjacent", "all")
THRESHOLD = 0.75  # Zinkevich, Bowling and Burch's range of skill
_MS = re.compile(r"^\d+(\.\d+)?ms$")


@dataclass(frozen=True)
class Depth(Tournament):
    """A tournament whose lineups are the pairs of a ladder (and of the agents beside it)."""

    ladder: tuple[str, ...] = ()  # labels, in increasing skill order
    beside: tuple[str, ...] = ()  # labels
    pairs: str | int = "adjacent"
    # (lower, upper) pool indices of every pair played; beside pairs: (ladder step, beside agent)
    matches: tuple[tuple[int, int], ...] = ()
    budgets: tuple[tuple[str, float], ...] = ()  # (label, budget) of the search steps
    budget_unit: str = "simulations"  # or "ms"
    threshold: float = THRESHOLD
    kind: ClassVar[str] = "depth"

    def identity(self) -> dict[str, Any]:
        ident = super().identity()
        ident.update(ladder=list(self.ladder), beside=list(self.beside), pairs=self.pairs)
        return ident


def _fail(source: str, msg: str) -> ConfigError:
    return ConfigError(f"{source}: {msg}")


def load_depth(path: str | Path) -> Depth:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the depth config ({e.strerror or e})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    return depth_from_dict(data, str(path))


def _budgets(data: dict, source: str) -> tuple[list[str], str]:
    """The search entries of ``budgets`` and their unit ("simulations" or "ms")."""
    budgets = data.get("budgets", [])
    search = data.get("search", "mcts:{}")
    if not isinstance(search, str) or search.count("{}") != 1:
        raise _fail(
            source, f"search: expected an agent with one {{}} for the budget, got {search!r}"
        )
    if not isinstance(budgets, list):
        raise _fail(source, f"budgets: expected a list of budgets, got {budgets!r}")
    unit = None
    for i, b in enumerate(budgets):
        if isinstance(b, int) and not isinstance(b, bool) and b >= 1:
            kind = "simulations"
        elif isinstance(b, str) and _MS.match(b):
            kind = "ms"
        else:
            raise _fail(
                source,
                f"budgets[{i}]: expected a number of simulations (a positive integer) or a time "
                f'such as "2ms", got {b!r}',
            )
        if unit is not None and kind != unit:
            raise _fail(source, f"budgets[{i}]: {b!r}: budgets mix simulations and times")
        unit = kind
    return [search.replace("{}", str(b)) for b in budgets], unit or "simulations"


def depth_from_dict(data: dict[str, Any], source: str = "depth") -> Depth:
    """Validate a depth table; :class:`ConfigError` naming the file and field if bad."""
    check_keys(data, source, REQUIRED, OPTIONAL)
    players = player_counts(data, source)
    deals, round_deals, seed, out = deal_fields(data, source)
    name = data.get("name", out.name or "depth")
    pairs = data.get("pairs", "adjacent")
    if pairs not in PAIRS and (isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1):
        raise _fail(
            source,
            f"pairs: {pairs!r} is not allowed (allowed: {', '.join(PAIRS)}, or a number k >= 1 "
            "of steps below each step)",
        )
    threshold = data.get("threshold", THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        threshold = None
    if threshold is None or not 0.5 < threshold <= 1:
        raise _fail(
            source,
            f"threshold: expected a win share above 0.5, at most 1, got {data['threshold']!r}",
        )
    for key in ("ladder", "beside"):
        if not isinstance(data.get(key, []), list):
            raise _fail(source, f"{key}: expected a list of agents, got {data[key]!r}")
    searches, unit = _budgets(data, source)
    ladder_raw = list(data.get("ladder", ["random"] if "budgets" in data else [])) + searches
    beside_raw = list(data.get("beside", []))
    if len(ladder_raw) < 2:
        raise _fail(
            source,
            "ladder: the ladder needs at least 2 steps (ladder = [agents in increasing skill "
            "order], and/or budgets = [1, 2, 4, ...] for the search at each budget)",
        )
    # every agent once through an ordinary run config: its label, or the field that is wrong
    where_of = [f"ladder[{i}]" for i in range(len(ladder_raw) - len(searches))]
    where_of += [f"budgets[{i}]" for i in range(len(searches))]
    where_of += [f"beside[{i}]" for i in range(len(beside_raw))]
    entries = list(zip(where_of, ladder_raw + beside_raw))
    labels = agent_labels(data, entries, players[0], source, "listed")
    k = len(ladder_raw)
    pool = ladder_raw + beside_raw
    below = 1 if pairs == "adjacent" else k if pairs == "all" else pairs
    matches = [(i, j) for j in range(1, k) for i in range(max(0, j - below), j)]
    matches += [(i, b) for b in range(k, len(pool)) for i in range(k)]

    lineups: list[Lineup] = []
    for n in players:
        for lo, hi in matches:
            seats = [(hi, lo)] if n == 2 else [(hi,) + (lo,) * (n - 1), (lo,) + (hi,) * (n - 1)]
            for agents in seats:
                idx = len(lineups)
                about = f"lineup {idx} of depth {name}: {labels[hi]} against {labels[lo]}"
                lineups.append(
                    make_lineup(data, source, idx, n, agents, pool, deals, seed, name, about)
                )
    budgets = tuple(
        (labels[k - len(searches) + i], float(str(b).removesuffix("ms")))
        for i, b in enumerate(data.get("budgets", []))
    )
    return Depth(
        name=name,
        description=data.get("description", ""),
        game=data["game"],
        players=tuple(players),
        pool=tuple(labels),
        deals=deals,
        seed=seed,
        output=out,
        schedule="depth",
        options=dict(lineups[0].config.options),
        lineups=tuple(lineups),
        source=source,
        round_deals=min(round_deals, deals),
        ladder=tuple(labels[:k]),
        beside=tuple(labels[k:]),
        pairs=pairs,
        matches=tuple(matches),
        budgets=budgets,
        budget_unit=unit,
        threshold=float(threshold),
    )


def run_depth(d: Depth, **kw) -> TournamentSummary:
    """Play every lineup's missing games (:func:`run_tournament`: in rounds, resumable)."""
    return run_tournament(d, **kw)
