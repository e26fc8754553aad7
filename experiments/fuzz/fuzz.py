"""``dynasty fuzz``: many games with every invariant checked after every decision.

    dynasty fuzz GAME --games N [--players P] [--seed S] [--mcts-share F] [--out DIR]
                      [--time-limit S] [--quiet]

Each game draws its player count (unless ``--players``), every rule option value (uniformly
from the game's declared options, redrawn until the game's own player constraints accept
the combination, as configs and the property tests' hypothesis mixes do) and its agents:
all random, all heuristic, a mix seat by seat, or, in a share of games (``--mcts-share``),
one seat played by a short-budget MCTS.  One compiled loop (:func:`fuzz_chunk`) plays a
chunk of games and calls the game's invariant check (``sim.<game>.invariants``, shared with
its property tests; protocol in :mod:`sim.invariants`) on the start state and after every
decision, plus the invariants every game keeps (legal-mask count, header, length, legal
agent actions, win shares, finite scores).

The first broken invariant stops the run: the game is re-played through :class:`sim.Game`
and its replay (docs/replay-format.md, with a ``fuzz`` field naming the invariant) is
written to ``--out``; the command exits with code 1 and one line naming the game, the
invariant and the file.  Everything is a function of ``--seed``: the same command finds the
same game.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numba as nb
import numpy as np

from agents.mcts import mcts_act
from agents.net import NETS_T, no_nets
from agents.spec import parse_agent
from sim.core import (
    H_CURRENT,
    NO_PLAYER,
    as_kernels,
    entry,
    hash64,
    missing_info_key,
    random_of_legal,
    rng_seed,
)
from sim.invariants import (
    CHECK_T,
    G_HEADER,
    G_ILLEGAL,
    G_MASK_COUNT,
    G_NO_LEGAL,
    G_SCORES,
    G_SHARES,
    G_TOO_LONG,
    Invariants,
    error_name,
    invariants_of,
)
from sim.registry import get_game

RANDOM, HEURISTIC, MCTS = 0, 1, 2
KIND_NAMES = ("random", "heuristic")
MODES = ("random", "heuristic", "mixed")
DEFAULT_MCTS = "mcts:8,rollout_depth=4"
DEFAULT_MCTS_SHARE = 0.02
MAX_SEATS = 8
# result[:] of a chunk: the failing game's position in the chunk, the decisions applied
# before the broken invariant was seen, its error code
R_GAME, R_PLY, R_ERROR = 0, 1, 2


class FuzzError(ValueError):
    """A fuzz request that cannot run (bad game, player count or argument)."""


@nb.njit(cache=True)
def _generic(G, state, n, k, mask):
    """The invariants every game keeps at a state: header, and a legal mask whose count is
    what ``legal_mask`` returned, non-empty until the end."""
    cur = state[H_CURRENT]
    over = cur == NO_PLAYER
    if (
        G.is_terminal(state) != over
        or G.current_player(state) != cur
        or (not over and not 0 <= cur < n)
    ):
        return G_HEADER
    if over:
        return 0
    if k <= 0:
        return G_NO_LEGAL
    c = 0
    for i in range(mask.shape[0]):
        c += mask[i]
    if c != k:
        return G_MASK_COUNT
    return 0


@nb.njit(cache=True)
def _fill_mask(G, state, mask):
    if state[H_CURRENT] == NO_PLAYER:
        mask[:] = False
        return np.int64(0)
    return G.legal_mask(state, mask)


@nb.njit(cache=True)
def _fuzz_chunk(
    G,
    N,
    check,
    seeds,
    players,
    options,
    kinds,
    mcts_params,
    num_actions,
    max_decisions,
    memo_size,
    can_all_lose,
    stats,
    actions,
    result,
):
    mask = np.zeros(num_actions, np.bool_)
    scratch = np.zeros(num_actions, np.bool_)
    memo = np.zeros(memo_size, np.int64)
    rngs = np.zeros(2 * MAX_SEATS, np.int32)
    for g in range(seeds.shape[0]):
        n = players[g]
        state = G.new_state(seeds[g], n, options[g])
        for p in range(n):
            rng_seed(rngs, 2 * p, hash64(seeds[g], p + 1))
        memo[:] = 0
        before = state.copy()
        ply = 0
        k = _fill_mask(G, state, mask)
        e = _generic(G, state, n, k, mask)
        if e == 0:
            e = check(state, before, -1, mask, memo, stats)
        while e == 0 and state[H_CURRENT] != NO_PLAYER:
            p = state[H_CURRENT]
            kind = kinds[g, p]
            rng = rngs[2 * p : 2 * p + 2]
            if kind == RANDOM:
                a = random_of_legal(mask, k, rngs, 2 * p)
            elif kind == HEURISTIC:
                a = G.heuristic(state, rng)
            else:
                scratch[:] = mask
                a = mcts_act(G, N, state, mcts_params, rng, scratch)
            if ply >= actions.shape[0]:
                e = G_TOO_LONG
                break
            actions[ply] = a
            if a < 0 or a >= num_actions or not mask[a]:
                e = G_ILLEGAL
                break
            before[:] = state
            G.apply(state, a)
            ply += 1
            if ply > max_decisions:
                e = G_TOO_LONG
                break
            k = _fill_mask(G, state, mask)
            e = _generic(G, state, n, k, mask)
            if e == 0:
                e = check(state, before, a, mask, memo, stats)
        if e == 0:
            scores = np.zeros(n)
            wins = np.zeros(n)
            G.returns(state, scores, wins)
            total = 0.0
            for p in range(n):
                if not np.isfinite(scores[p]):
                    e = G_SCORES
                if not 0.0 <= wins[p] <= 1.0:
                    e = G_SHARES
                total += wins[p]
            if abs(total - 1.0) > 1e-9 and not (can_all_lose and total == 0.0):
                e = G_SHARES
        if e != 0:
            result[R_GAME] = g
            result[R_PLY] = ply
            result[R_ERROR] = e
            return g
    return seeds.shape[0]


@entry(
    NETS_T,
    CHECK_T,
    nb.int64[::1],
    nb.int64[::1],
    nb.int32[:, ::1],
    nb.int64[:, ::1],
    nb.float64[::1],
    nb.int64,
    nb.int64,
    nb.int64,
    nb.boolean,
    nb.int64[::1],
    nb.int64[::1],
    nb.int64[::1],
    returns=nb.int64,
)
def fuzz_chunk(
    K,
    N,
    check,
    seeds,
    players,
    options,
    kinds,
    mcts_params,
    num_actions,
    max_decisions,
    memo_size,
    can_all_lose,
    stats,
    actions,
    result,
):
    """Entry: play ``len(seeds)`` games of the game whose kernels are ``K`` (``players[g]`` seats,
    option array ``options[g]``, agent kind ``kinds[g, p]`` per seat), calling ``check`` on every
    state.  Returns the games finished; at the first broken invariant ``result`` holds the game's
    position, the decisions applied and the error, and ``actions[:ply + 1]`` the game's actions."""
    return _fuzz_chunk(
        as_kernels(K),
        N,
        check,
        seeds,
        players,
        options,
        kinds,
        mcts_params,
        num_actions,
        max_decisions,
        memo_size,
        can_all_lose,
        stats,
        actions,
        result,
    )


@dataclass
class Draw:
    """The games of one chunk: seeds, player counts, option arrays and agents per seat."""

    seeds: np.ndarray
    players: np.ndarray
    codes: np.ndarray  # [games, options] option codes
    kinds: np.ndarray  # [games, MAX_SEATS]


class Sampler:
    """Draws games: player counts, option values (constraints respected) and agents."""

    def __init__(self, spec, players: int | None, seed: int, mcts_share: float):
        self.spec = spec
        self.players = players
        self.seed = seed
        self.mcts_share = mcts_share if spec.kernels.info_key is not missing_info_key else 0.0
        self.sizes = [
            len(o.choices) if o.choices is not None else o.high - o.low + 1 for o in spec.options
        ]
        self.lows = [0 if o.choices is not None else o.low for o in spec.options]
        self._ok: dict[tuple, bool] = {}

    def allowed(self, n: int, codes: np.ndarray) -> bool:
        key = (n, codes.tobytes())
        ok = self._ok.get(key)
        if ok is None:
            opts = self.decode(codes)
            ok = self._ok[key] = not self.spec.player_constraints(n, opts)
        return ok

    def decode(self, codes) -> dict:
        return {
            o.name: (o.choices[int(c)] if o.choices is not None else int(c) + self.lows[i])
            for i, (o, c) in enumerate(zip(self.spec.options, codes))
        }

    def draw(self, chunk_index: int, games: int) -> Draw:
        rng = np.random.default_rng([self.seed, chunk_index])
        seeds = rng.integers(0, 2**62, size=games, dtype=np.int64)
        allowed = np.array(self.spec.players(), np.int64)
        players = (
            np.full(games, self.players, np.int64)
            if self.players
            else rng.choice(allowed, size=games)
        )
        n_opt = len(self.sizes)
        codes = np.zeros((games, n_opt), np.int64)
        for i, size in enumerate(self.sizes):
            codes[:, i] = rng.integers(0, size, size=games)
        for g in range(games):
            tries = 0
            while not self.allowed(int(players[g]), codes[g]):
                tries += 1
                for i, size in enumerate(self.sizes):
                    codes[g, i] = rng.integers(0, size)
                if tries > 1000:  # no option mix for this count is drawn: the defaults
                    codes[g] = [
                        self.spec.options[i].encode(o.default) - self.lows[i]
                        for i, o in enumerate(self.spec.options)
                    ]
                    break
        mode = rng.integers(0, len(MODES), size=games)
        kinds = np.where(mode[:, None] == 0, RANDOM, HEURISTIC) * np.ones((1, MAX_SEATS), np.int64)
        mixed = mode == 2
        kinds[mixed] = rng.integers(0, 2, size=(int(mixed.sum()), MAX_SEATS))
        if self.mcts_share > 0:
            with_mcts = np.flatnonzero(rng.random(games) < self.mcts_share)
            seat = rng.integers(0, 1 << 30, size=len(with_mcts)) % players[with_mcts]
            kinds[with_mcts, seat] = MCTS
        return Draw(seeds, players, codes + np.array(self.lows, np.int64), kinds.astype(np.int64))

    def option_arrays(self, d: Draw) -> np.ndarray:
        data = self.spec.data.astype(np.int32)
        out = np.empty((len(d.seeds), d.codes.shape[1] + len(data)), np.int32)
        out[:, : d.codes.shape[1]] = d.codes
        out[:, d.codes.shape[1] :] = data
        return out


@dataclass
class Failure:
    game_index: int
    players: int
    seed: int
    options: dict
    agents: list[str]
    decision: int
    code: int
    invariant: str
    replay: Path | None = None

    def line(self, game: str) -> str:
        return (
            f"{game} game {self.game_index} ({self.players} players, seed {self.seed}, "
            f"agents {','.join(self.agents)}) broke an invariant after {self.decision} "
            f"decisions: {self.invariant} (code {self.code}); replay: {self.replay}"
        )


@dataclass
class FuzzResult:
    game: str
    games: int  # games played without a broken invariant
    seconds: float
    stats: np.ndarray
    failure: Failure | None = None
    by_players: dict = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("nan")


def _agent_label(kind: int, mcts: str) -> str:
    return mcts if kind == MCTS else KIND_NAMES[kind]


def fuzz(
    game: str,
    games: int,
    players: int | None = None,
    seed: int = 0,
    *,
    mcts_share: float = DEFAULT_MCTS_SHARE,
    mcts: str = DEFAULT_MCTS,
    out: str | Path = ".",
    chunk: int = 2000,
    progress=None,
    invariants: Invariants | None = None,
    time_limit: float | None = None,
) -> FuzzResult:
    """Play ``games`` fuzz games of ``game``; stop at the first broken invariant and write its
    replay into ``out``.  ``progress(done, games, seconds)`` is called after each chunk; with
    ``time_limit`` (seconds) the run also ends after the first chunk that passes it
    (``FuzzResult.games`` says how many were played)."""
    spec = get_game(game)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise FuzzError(f"--games: expected a positive integer, got {games!r}")
    if players is not None and players not in spec.players():
        raise FuzzError(
            f"--players: {game} is played by "
            f"{', '.join(map(str, spec.players()))} players, not {players}"
        )
    if max(spec.players()) > MAX_SEATS:
        raise FuzzError(f"{game}: more than {MAX_SEATS} seats")
    if not 0.0 <= mcts_share <= 1.0:
        raise FuzzError(f"--mcts-share: expected a fraction from 0 to 1, got {mcts_share}")
    kind, params, label = parse_agent(mcts)
    inv = invariants or invariants_of(spec)
    sampler = Sampler(spec, players, seed, mcts_share)
    K = tuple(spec.kernels)
    stats = np.zeros(inv.stats_size, np.int64)
    actions = np.zeros(spec.max_decisions + 1, np.int64)
    result = np.zeros(3, np.int64)
    by_players: dict[int, int] = {}
    done = 0
    t0 = time.perf_counter()
    ci = 0
    while done < games:
        size = min(chunk, games - done)
        d = sampler.draw(ci, size)
        opts = sampler.option_arrays(d)
        finished = fuzz_chunk(
            K,
            no_nets(),
            inv.check,
            d.seeds,
            d.players,
            opts,
            d.kinds,
            params,
            np.int64(spec.num_actions),
            np.int64(spec.max_decisions),
            np.int64(inv.memo_size),
            spec.can_all_lose,
            stats,
            actions,
            result,
        )
        for n, c in zip(*np.unique(d.players[:finished], return_counts=True)):
            by_players[int(n)] = by_players.get(int(n), 0) + int(c)
        done += int(finished)
        if finished < size:
            g = int(result[R_GAME])
            n = int(d.players[g])
            f = Failure(
                game_index=done,
                players=n,
                seed=int(d.seeds[g]),
                options=sampler.decode(d.codes[g] - sampler.lows),
                agents=[_agent_label(int(k), label) for k in d.kinds[g, :n]],
                decision=int(result[R_PLY]),
                code=int(result[R_ERROR]),
                invariant=error_name(inv, int(result[R_ERROR])),
            )
            f.replay = write_replay(spec, f, actions[: f.decision + 1], Path(out), fuzz_seed=seed)
            return FuzzResult(game, done, time.perf_counter() - t0, stats, f, by_players)
        ci += 1
        if progress is not None:
            progress(done, games, time.perf_counter() - t0)
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            break
    return FuzzResult(game, done, time.perf_counter() - t0, stats, None, by_players)


def write_replay(spec, f: Failure, actions: np.ndarray, out: Path, *, fuzz_seed: int) -> Path:
    """Re-play the failing game through :class:`sim.Game` (every action checked for legality) and
    write its replay, with a ``fuzz`` field naming the invariant."""
    from sim.game import Game

    g = Game(spec.name, f.players, f.seed, f.options)
    for a in actions[: f.decision]:
        g.apply(int(a))
    rep = g.to_replay()
    rep["fuzz"] = {
        "invariant": f.invariant,
        "code": f.code,
        "decision": f.decision,
        "agents": f.agents,
        "fuzz_seed": int(fuzz_seed),
        "game_index": f.game_index,
    }
    if f.decision < len(actions):
        rep["fuzz"]["next_action"] = int(actions[f.decision])
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"fuzz-{spec.name}-{f.game_index}.json"
    path.write_text(json.dumps(rep, indent=1))
    return path


def recheck(replay, invariants: Invariants | None = None) -> tuple[int, int] | None:
    """Re-play a replay's decisions with the game's invariant check (and the generic header and
    mask checks) after each: ``(decisions applied, error code)`` of the
    first broken one, or None."""
    from sim.game import Game

    rep = replay if isinstance(replay, dict) else json.loads(Path(replay).read_text())
    g = Game(rep["game"], rep["players"], rep["seed"], rep["options"])
    inv = invariants or invariants_of(g.spec)
    G = g.spec.kernels
    memo = np.zeros(inv.memo_size, np.int64)
    stats = np.zeros(inv.stats_size, np.int64)
    mask = np.zeros(g.spec.num_actions, np.bool_)

    def at(before, action, ply):
        if g.is_over:
            mask[:] = False
        else:
            G.legal_mask(g.state, mask)
        e = int(inv.check(g.state, before, np.int64(action), mask, memo, stats))
        return (ply, e) if e else None

    bad = at(g.state.copy(), -1, 0)
    for i, d in enumerate(rep["decisions"]):
        if bad:
            return bad
        before = g.state.copy()
        g.apply(int(d["action"]))
        bad = at(before, d["action"], i + 1)
    return bad


def main_args(args) -> int:
    quiet = args.quiet
    last = [0.0]

    def progress(done, total, seconds):
        if quiet or seconds - last[0] < 10 and done < total:
            return
        last[0] = seconds
        print(
            f"fuzz {args.game}: {done:,} of {total:,} games, {done / seconds:,.0f} games/s, "
            f"no invariant broken",
            file=sys.stderr,
            flush=True,
        )

    r = fuzz(
        args.game,
        args.games,
        args.players,
        args.seed,
        mcts_share=args.mcts_share,
        out=args.out or ".",
        progress=progress,
        time_limit=args.time_limit,
    )
    if r.failure is not None:
        print(f"dynasty fuzz: {r.failure.line(args.game)}", file=sys.stderr)
        return 1
    counts = ", ".join(f"{n} players: {c:,}" for n, c in sorted(r.by_players.items()))
    if r.games < args.games:
        print(f"time limit: {r.games:,} of {args.games:,} games played", file=sys.stderr)
    print(
        f"{args.game}: {r.games:,} games, every invariant held after every "
        f"decision; {r.seconds:.1f} s, {r.rate:,.0f} games/s ({counts})"
    )
    return 0
