"""Where a search's strength over the heuristic lies, by kind of decision: one seat searches at
the decisions of one kind and plays the heuristic at the others, among heuristic opponents,
paired with the all-heuristic game of the same deal.

The agent that takes the seat's decisions of a kind is an MCTS by default; any built-in agent
(``--agent``: a search with or without a network, ``policy:<model>``, random play) can take
them, to show where a learned policy gains or loses against the heuristic it replaces.

The kinds are the game's own (``GameSpec.decision_kind``: Eternal Dynasty's task kinds, the
decision or phase word of the others). On each of ``--deals`` deals the searching seat is the
deal's number modulo the players, so every seat takes its turn. The all-heuristic games give
each kind's share of that seat's decisions with a choice; every kind with at least
``--min-share`` of them has a row, the rest are pooled as ``other``, and a last row searches at
every kind. In a row's games the seat searches at the decisions of its kinds that have a choice
and plays the heuristic elsewhere; every seat's heuristic draws from its own stream, so a game is
the all-heuristic game until the search first departs from it. A row's *worth* is the seat's win
share minus its win share in the all-heuristic game, with the 95% bootstrap interval over deals.

A learned policy that is to play like the search needs to learn it where the worth is; where a
row's worth is negative, the search does worse than the heuristic it replaces. The rows need not
sum to the last one: decisions of different kinds interact. ``--kinds`` asks for the rows of
those kinds only (and the every-kind row). Everything is a function of the arguments, whatever
``--workers`` (a search by simulations, not by time, is needed for that): the deals are played
in chunks on a local Ray's workers, or a cluster's (``--address``), each deal from its own seeds.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from agents.decision import REUSE_ONLY_IN_ARENA, choose_action
from agents.mcts import P_REUSE, search_root
from agents.spec import AgentSpecError, parse_agent
from agents.table import HEURISTIC, MCTS, POLICY, RANDOM
from sim import get_game
from sim.core import GameSpec, hash64, new_rng

GAMES = ["eternal_dynasty"]
SEARCH = "mcts:100,rollout=heuristic,rollout_depth=20,prior=1"
SEARCH_KEY = 0x5BD  # a deal's agent decisions: hash64(hash64(deal seed, SEARCH_KEY), number)
EVERY = "every kind"
OTHER = "other"


@dataclass(frozen=True)
class KindRow:
    """One row: the ``kind`` (or ``other``, ``every kind``), its ``share`` of the searching
    seat's decisions with a choice in the all-heuristic games, the decisions the agent took
    (``searches``), the seat's mean win share with them (``searched``) and without (``plain``),
    and their difference (``worth``) with its 95% interval over deals (``low``, ``high``)."""

    kind: str
    share: float
    searches: int
    searched: float
    plain: float
    worth: float
    low: float
    high: float


@dataclass(frozen=True)
class Agent:
    """The built-in agent that takes the searching seat's decisions: its ``kind`` and ``params``
    (agents.table), the networks of a learned one (``nets``), its ``label``."""

    kind: int
    params: np.ndarray
    nets: object
    label: str

    def decide(self, spec: GameSpec, s: np.ndarray, seed: int, mask: np.ndarray) -> int:
        """The agent's action in ``s``, from a fresh RNG of ``seed`` (a search: as
        agents.mcts.search_root takes it)."""
        if self.kind == MCTS:
            return search_root(spec, s, self.params, seed, self.nets)[0]
        return int(
            choose_action(
                tuple(spec.kernels),
                s,
                np.int64(self.kind),
                self.params,
                new_rng(np.int64(seed)),
                mask,
                self.nets,
            )
        )


def agent_of(spec: GameSpec, label: str, players: int) -> Agent:
    """The :class:`Agent` of ``label`` for ``players`` seats of ``spec``'s game;
    :class:`AgentSpecError` (or agents.model.ModelError) for one that cannot take single
    decisions here (a user agent, an MCTS with tree reuse) or a model built for another game."""
    from agents.model import run_nets

    kind, params, name = parse_agent(label)
    if kind not in (MCTS, POLICY, RANDOM, HEURISTIC):
        raise AgentSpecError(
            f"{label!r}: a built-in agent is needed here (a search, policy:<model>, random or "
            "heuristic); a user agent does not take single decisions outside its run"
        )
    if kind == MCTS and params[P_REUSE] > 0:
        raise AgentSpecError(f"{label!r}: {REUSE_ONLY_IN_ARENA}")
    rows, nets = run_nets(spec, players, [kind], [params], [name])
    return Agent(int(kind), rows[0], nets, name)


@dataclass(frozen=True)
class Rule:
    """Where the searching seat searches: at the decisions whose kind is in ``kinds``, or
    (``inverse``) at every other kind. ``Rule()`` never searches, ``Rule(inverse=True)``
    always."""

    kinds: frozenset[str] = field(default_factory=frozenset)
    inverse: bool = False

    def __call__(self, kind: str) -> bool:
        return (kind in self.kinds) != self.inverse


def play_deals(
    game: str, players: int, label: str, rule: Rule, deals: Sequence[tuple[int, int]], count: bool
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """:func:`paired_game` on each ``(number, seed)`` of ``deals``, the seat searching by
    ``rule`` being the number modulo ``players`` (one task of a worker): the seat's win shares,
    the searches made, and (``count``) the kinds of its decisions with a choice."""
    spec = get_game(game)
    agent = agent_of(spec, label, players)
    counts: dict[str, int] = {}
    wins, made = np.zeros(len(deals)), np.zeros(len(deals), np.int64)
    for i, (d, deal) in enumerate(deals):
        wins[i], made[i] = paired_game(
            spec, deal, players, d % players, rule, agent, counts if count else None
        )
    return wins, made, counts


def _play_all(
    game: str,
    players: int,
    label: str,
    jobs: list[tuple[Rule, bool, list[tuple[int, int]]]],
    workers: int,
    address: str | None,
    bar,
) -> list[tuple[np.ndarray, np.ndarray, dict[str, int]]]:
    """:func:`play_deals` on each job ``(rule, count, deals)``, in order: in this process with one
    worker and no ``address``, else as Ray tasks (at most two per CPU waiting)."""
    if workers == 1 and address is None:
        out = []
        for rule, count, deals in jobs:
            out.append(play_deals(game, players, label, rule, deals, count))
            bar.update(len(deals))
        return out
    import ray

    task = ray.remote(num_cpus=1)(play_deals)
    slots = max(1, int(ray.cluster_resources().get("CPU", 1))) * 2
    done: dict[int, tuple[np.ndarray, np.ndarray, dict[str, int]]] = {}
    pending: dict = {}
    queue = list(enumerate(jobs))
    try:
        while queue or pending:
            while queue and len(pending) < slots:
                i, (rule, count, deals) = queue.pop(0)
                pending[task.remote(game, players, label, rule, deals, count)] = i
            ready, _ = ray.wait(list(pending), num_returns=1)
            i = pending.pop(ready[0])
            done[i] = ray.get(ready[0])
            bar.update(len(jobs[i][2]))
    finally:
        for ref in pending:
            ray.cancel(ref)
    return [done[i] for i in range(len(jobs))]


def paired_game(
    spec: GameSpec,
    deal: int,
    players: int,
    seat: int,
    searches_here: Callable[[str], bool],
    agent: Agent,
    counts: dict[str, int] | None = None,
) -> tuple[float, int]:
    """Play ``deal`` with the heuristic in every seat, except that ``agent`` decides for
    ``seat`` at its decisions with a choice whose kind ``searches_here`` accepts; count those
    decisions' kinds in ``counts``. Returns the seat's win share and the agent's decisions."""
    k = spec.kernels
    s = k.new_state(np.int64(deal), np.int64(players), spec.encode_options({}))
    rngs = [new_rng(np.int64(hash64(deal, q + 1))) for q in range(players)]
    key = hash64(deal, SEARCH_KEY)
    mask = np.zeros(spec.num_actions, np.bool_)
    searches = 0
    while not k.is_terminal(s):
        p = int(k.current_player(s))
        a = -1
        if p == seat:
            k.legal_mask(s, mask)
            if mask.sum() > 1:
                kind = spec.decision_kind(s)
                if counts is not None:
                    counts[kind] = counts.get(kind, 0) + 1
                if searches_here(kind):
                    a = agent.decide(spec, s, int(hash64(key, searches)), mask)
                    searches += 1
        if a < 0:
            a = int(k.heuristic(s, rngs[p]))
        k.apply(s, np.int64(a))
    scores, wins = np.zeros(players), np.zeros(players)
    k.returns(s, scores, wins)
    return float(wins[seat]), searches


def by_decision(
    game: str,
    label: str = SEARCH,
    players: int = 4,
    deals: int = 400,
    seed: int = 1,
    min_share: float = 0.05,
    progress: bool = True,
    kinds: Sequence[str] | None = None,
    workers: int = 1,
    address: str | None = None,
) -> list[KindRow]:
    """The rows of the table (module docstring), the most frequent kind first; with ``kinds``
    only theirs and the every-kind row. ``workers`` above 1 or an ``address`` plays the deals on
    Ray (a local Ray with that many workers, or the cluster at ``address``)."""
    spec = get_game(game)
    spec.check_players(players)
    if spec.decision_kind is None:
        raise ValueError(f"{game} names no kinds of decision (GameSpec.decision_kind)")
    agent_of(spec, label, players)
    if workers == 1 and address is None:
        return _rows(game, label, players, deals, seed, min_share, progress, kinds, 1, None)
    from experiments.run import runner

    with runner.ray_session(address, workers, None):
        return _rows(
            game, label, players, deals, seed, min_share, progress, kinds, workers, address
        )


def _rows(game, label, players, deals, seed, min_share, progress, kinds, workers, address):
    """:func:`by_decision` once its arguments are checked (and its Ray session, if any, is up)."""
    from experiments.train.gate import bootstrap_interval

    seeds = [(d, int(hash64(seed, d))) for d in range(deals)]
    size = max(1, min(25, deals // (4 * workers)))
    chunks = [seeds[i : i + size] for i in range(0, deals, size)]
    bar = tqdm(total=deals, desc=f"{game}: {label}", unit="game", disable=not progress, leave=False)
    plain_parts = _play_all(
        game, players, label, [(Rule(), True, c) for c in chunks], workers, address, bar
    )
    plain = np.concatenate([w for w, _, _ in plain_parts])
    counts: dict[str, int] = {}
    for _, _, part in plain_parts:
        for kind, n in part.items():
            counts[kind] = counts.get(kind, 0) + n
    total = max(sum(counts.values()), 1)
    order = sorted(counts, key=lambda kind: (-counts[kind], kind))
    if kinds is not None:
        unseen = [kind for kind in kinds if kind not in counts]
        if unseen:
            bar.close()
            raise ValueError(
                f"{game}: no decision of kind {', '.join(map(repr, unseen))} in these games "
                f"(kinds: {', '.join(order)})"
            )
        main = [kind for kind in order if kind in kinds]
        rest: list[str] = []
    else:
        main = [kind for kind in order if counts[kind] / total >= min_share]
        rest = [kind for kind in order if kind not in main]
    groups = [(kind, counts[kind] / total, Rule(frozenset([kind]))) for kind in main]
    if rest:
        groups.append((OTHER, sum(counts[k] for k in rest) / total, Rule(frozenset(main), True)))
    groups.append((EVERY, 1.0, Rule(inverse=True)))
    bar.total = deals * (1 + len(groups))
    bar.refresh()
    jobs = [(rule, False, c) for _, _, rule in groups for c in chunks]
    parts = iter(_play_all(game, players, label, jobs, workers, address, bar))
    bar.close()
    rows = []
    for name, share, _ in groups:
        got = [next(parts) for _ in chunks]
        searched = np.concatenate([w for w, _, _ in got])
        worth = searched - plain
        low, high = bootstrap_interval(worth, seed)
        rows.append(
            KindRow(
                name,
                share,
                int(sum(int(m.sum()) for _, m, _ in got)),
                float(searched.mean()),
                float(plain.mean()),
                float(worth.mean()),
                low,
                high,
            )
        )
    return rows


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench search_by_decision``."""
    ap = argparse.ArgumentParser(
        prog="dynasty bench search_by_decision", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--game", action="append", help=f"only these games (default: {', '.join(GAMES)})"
    )
    ap.add_argument(
        "--agent",
        "--search",
        dest="agent",
        default=SEARCH,
        help="the built-in agent that takes the seat's decisions of a kind: a search with or "
        f"without a network, policy:<model>, random (default {SEARCH})",
    )
    ap.add_argument("--players", type=int, default=4, help="players")
    ap.add_argument("--deals", type=int, default=400, help="deals per game")
    ap.add_argument(
        "--min-share",
        type=float,
        default=0.05,
        help="a kind's least share of the decisions for a row of its own (default 0.05)",
    )
    ap.add_argument(
        "--kinds",
        help="comma-separated kinds of decision: only their rows and the every-kind row",
    )
    ap.add_argument("--seed", type=int, default=1, help="master seed")
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="Ray workers (default 1: no Ray, this process plays every game)",
    )
    ap.add_argument("--address", help="play on this Ray cluster instead of a local Ray")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.deals < 2 or not 0 < args.min_share <= 1:
        ap.error("--deals must be at least 2 and --min-share in (0, 1]")
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    kinds = None if args.kinds is None else [k.strip() for k in args.kinds.split(",") if k.strip()]
    if kinds is not None and not kinds:
        ap.error("--kinds names no kind")
    try:
        parse_agent(args.agent)
    except AgentSpecError as e:
        ap.error(str(e))
    print(
        "game | kind of decision | share of decisions | decisions by the agent "
        "| win share with the agent | without | worth (95% CI)"
    )
    for game in args.game or GAMES:
        try:
            rows = by_decision(
                game,
                args.agent,
                args.players,
                args.deals,
                args.seed,
                args.min_share,
                kinds=kinds,
                workers=args.workers,
                address=args.address,
            )
        except (KeyError, ValueError) as e:
            ap.error(str(e))
        for r in rows:
            print(
                f"{game} | {r.kind} | {r.share:.3f} | {r.searches:,} | {r.searched:.3f} | "
                f"{r.plain:.3f} | {r.worth:+.3f} [{r.low:+.3f}, {r.high:+.3f}]",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
