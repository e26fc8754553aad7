"""Ming Dynasty property tests over many random games (every player count).

Invariants are checked after every decision by an independent numba checker (members,
tiles and cards conserved; hands of 5 after phase 2; sections and cities; princes).  Every
scoring of rounds 2, 4 and 6 of every game is replayed by ``recount``, a numba kernel
written from spec 4.1-4.4 that shares no code with the engine's scoring: it reads only the
position before the scoring (open areas, monasteries, tiles, tile supply, scores, options,
point values) and the decisions taken in it, and must reach the engine's scores.  On a
sample of games the same scorings are also replayed by ``rescore``, a plain-Python
transcription of the spec's reference pseudo-code, which must agree with both.
"""

import itertools

import numba as nb
import numpy as np
import pytest

from sim.core import random_legal, rng_seed
from sim.ming_dynasty import SPEC
from sim.ming_dynasty import layout as L

# The invariants and the numba recount of every scoring live in the game's package, shared
# with ``dynasty fuzz``: sim/ming_dynasty/invariants.py.
from sim.ming_dynasty.invariants import M_DEC, M_DONE, M_LI, M_SNAP, MEMO_SIZE, check
from sim.ming_dynasty.rules import apply, is_terminal, legal_mask, new_state, pb

K = SPEC.kernels


@nb.njit(cache=True)
def play_checked(seeds, n, options, finals, snaps, logs, stats):
    """Random games; returns (game index, ply, error) of the first broken invariant or -1s.

    ``check`` (sim.ming_dynasty.invariants) runs after every decision: the state's
    invariants, and every scoring of every game recounted by ``recount`` when it ends (error
    E_RECOUNT if the recount differs); ``stats[0]`` counts the provinces where the neutral
    kept a tie won on the section tie-break.  For the first ``snaps.shape[0]`` games also keep
    the state before each scoring (snaps[g, round // 2 - 1]) and the decisions taken during it
    (logs[g, j, :], -1 padded) for the plain-Python recount.
    """
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    rng = np.zeros(2, np.int32)
    memo = np.zeros(MEMO_SIZE, np.int64)
    for g in range(seeds.shape[0]):
        s = new_state(seeds[g], n, options)
        rng_seed(rng, 0, seeds[g] + 1)
        ply = 0
        memo[:] = 0
        before = s.copy()
        k = legal_mask(s, mask)
        e = check(s, before, -1, mask, memo, stats)
        if e != 0:
            return g, ply, e
        while not is_terminal(s):
            if k == 0:
                return g, ply, 99
            a = random_legal(mask, rng, 0)
            before[:] = s
            apply(s, a)
            ply += 1
            if is_terminal(s):
                mask[:] = False
            else:
                k = legal_mask(s, mask)
            e = check(s, before, a, mask, memo, stats)
            if e != 0:
                return g, ply, e
            j = memo[M_DONE]
            if j >= 0 and g < snaps.shape[0]:
                snaps[g, j, :] = memo[M_SNAP : M_SNAP + L.STATE_SIZE]
                li = memo[M_LI]
                logs[g, j, :li] = memo[M_DEC : M_DEC + li]
            if ply > 1500:
                return g, ply, 98
        finals[g, :] = s
    return -1, -1, 0


# ------------------------------------------------------------------ independent scoring


def _majority(counts):
    """4.1 for one district: {entity: members moved} (spec's reference pseudo-code)."""
    if not counts:
        return {}
    m1 = max(counts.values())
    t1 = [e for e in counts if counts[e] == m1]
    if len(t1) == 1:
        out = {t1[0]: min(2, m1)}
        rest = {e: c for e, c in counts.items() if e != t1[0]}
        if rest:
            m2 = max(rest.values())
            t2 = [e for e in rest if rest[e] == m2]
            if len(t2) == 1:
                out[t2[0]] = 1
        return out
    if len(t1) >= 4:
        return {}
    return dict.fromkeys(t1, 1)


def _bonus_winners(rem, ents, fullest):
    """4.2 step 6 (the spec's ``city_bonus``, both D19 readings): the entities that share it."""
    tot = {e: sum(v) for e, v in rem.items() if sum(v) > 0}
    if not tot:
        return []
    m = max(tot.values())
    t = [e for e in tot if tot[e] == m]
    if len(t) > 1:
        if not fullest:
            key = {e: max(rem[e]) for e in t}
        else:
            full = [sum(rem[e][j] for e in ents) for j in range(3)]
            key = {e: max(rem[e][j] for j in range(3) if full[j] == max(full)) for e in t}
        best = max(key.values())
        t = [e for e in t if key[e] == best]
    return t


def _neutral_can_win(rem, ents, keep, fullest):
    """Some ``keep`` of the neutral's city members (sections ``rem[4]``) win the bonus alone."""
    for v in itertools.product(*(range(c + 1) for c in rem[4])):
        if sum(v) == keep and _bonus_winners({**rem, 4: list(v)}, ents, fullest) == [4]:
            return True
    return False


def rescore(s: np.ndarray, decisions: list[int]) -> list[int]:
    """Play one whole scoring (4.1-4.3, and 4.4 in round 6) from state ``s`` in plain Python.

    ``s`` is the state before the last phase-3 decision, ``decisions[0]`` that decision (a
    PASS), the rest the COMMIT / RETURN_FROM decisions taken in the scoring, in order.
    """
    n = int(s[2])
    ents = list(range(n)) + ([4] if n == 2 else [])
    r = int(s[L.G_ROUND])
    st = int(s[L.G_START])
    open_ = {(d, e): int(s[L.OPEN + d * 5 + e]) for d in range(18) for e in ents}
    tiles = [[int(s[pb(p) + L.F_TILES + c]) for c in range(6)] for p in range(n)]
    supply = [int(s[L.TILE_SUPPLY + c]) for c in range(6)]
    score = [int(s[pb(p) + L.F_SCORE]) for p in range(n)]
    set6 = [int(x) for x in s[L.S_SET6 : L.S_SET6 + 3]][r // 2 - 1]
    per = [int(x) for x in s[L.S_MEMBER : L.S_MEMBER + 3]][r // 2 - 1]
    dec = iter(decisions[1:])
    order = [(st + i) % n for i in range(n)]
    fullest = s[L.O_BONUS_TIE] == 1
    for prov in range(6):
        city = {(d, e): 0 for d in range(3 * prov, 3 * prov + 3) for e in ents}
        for d in range(3 * prov, 3 * prov + 3):
            moved = _majority({e: open_[d, e] for e in ents if open_[d, e] > 0})
            for e, k in moved.items():
                open_[d, e] -= k
                city[d, e] += k
            for p in order:
                for _ in range(moved.get(p, 0)):
                    if supply[prov] > 0:
                        supply[prov] -= 1
                        tiles[p][prov] += 1
                        while min(tiles[p]) > 0:
                            for c in range(6):
                                tiles[p][c] -= 1
                                supply[c] += 1
                            score[p] += set6
        tot = {e: sum(city[d, e] for d in range(3 * prov, 3 * prov + 3)) for e in ents}
        pre = max(tot[p] for p in range(n))
        sole = n == 2 and tot[4] > pre
        commits = {}
        for p in order:
            if tot[p] > 0:
                commits[p] = next(dec)
        for p in order:
            a = commits.get(p, L.A_COMMIT)
            if a >= L.A_COMMIT_SEC:  # return_choice = in_commitment: the sections were committed
                code = a - L.A_COMMIT_SEC
                for d in range(3 * prov, 3 * prov + 3):
                    city[d, p] -= code % 3
                    open_[d, p] += code % 3
                    code //= 3
                continue
            k = a - L.A_COMMIT
            while k > 0:
                secs = [d for d in range(3 * prov, 3 * prov + 3) if city[d, p] > 0]
                if k == sum(city[d, p] for d in secs) or len(secs) == 1:
                    d = secs[0]  # no choice left: the engine returns them without a decision
                else:
                    d = next(dec) - L.A_DIST
                city[d, p] -= 1
                open_[d, p] += 1
                k -= 1
        if n == 2:
            secs3 = range(3 * prov, 3 * prov + 3)
            nn = sum(city[d, 4] for d in secs3)
            tie = False
            if not sole:
                k = nn
            else:
                h = (
                    pre
                    if s[L.O_NEUTRAL_KEEP] == 1
                    else max(sum(city[d, p] for d in secs3) for p in range(n))
                )
                keep = h + 1
                if s[L.O_NEUTRAL_KEEP] == 2:
                    # tie_on_tiebreak: h members, if some h of them win the tie
                    rem = {e: [city[d, e] for d in secs3] for e in ents}
                    tie = _neutral_can_win(rem, ents, h, fullest)
                    keep = h if tie else h + 1
                k = nn - keep
            while k > 0:
                secs = [d for d in secs3 if city[d, 4] > 0]
                # sections whose member may go: under a kept tie, the rest must still win it
                ok = []
                for d in secs:
                    rem = {e: [city[x, e] - (e == 4 and x == d) for x in secs3] for e in ents}
                    if not tie or _neutral_can_win(rem, ents, keep, fullest):
                        ok.append(d)
                if k == sum(city[d, 4] for d in secs) or len(secs) == 1:
                    d = secs[0]
                elif len(ok) == 1:
                    d = ok[0]
                else:
                    d = next(dec) - L.A_DIST
                    assert d in ok, f"the neutral's member from district {d} gives up the tie-break"
                city[d, 4] -= 1
                open_[d, 4] += 1
                k -= 1
        rem = {e: [city[d, e] for d in range(3 * prov, 3 * prov + 3)] for e in ents}
        for p in range(n):
            score[p] += sum(rem[p]) * per
        t = _bonus_winners(rem, ents, fullest)
        for e in t:
            if e != 4:
                score[e] += int(s[L.S_BONUS]) // len(t)
    for d in range(18):
        if s[L.MONK + d] >= 0:
            score[int(s[L.MONK + d])] += int(s[L.S_MONK])
    assert next(dec, None) is None, "decisions left over"
    if r == 6:
        for p in range(n):
            score[p] += final_tile_points(tiles[p], int(s[L.S_SET5]), int(s[L.S_TILE_PT]))
    return score


def final_tile_points(t, set5=10, tile=1):
    """4.4 on the tiles held before it: 10 per 5-colour set, then 1 per remaining tile."""
    t = sorted(t, reverse=True)
    sets = 0
    while len(t) >= 5 and t[4] > 0:
        for i in range(5):
            t[i] -= 1
        sets += 1
        t.sort(reverse=True)
    return sets * set5 + sum(t) * tile


GAMES = 10000
RESCORED = 50  # games whose scorings are also replayed by the plain-Python ``rescore``


def python_recount(snaps, logs, finals, n):
    for gi in range(snaps.shape[0]):
        for j in range(3):
            got = rescore(snaps[gi, j], [int(a) for a in logs[gi, j] if a >= 0])
            nxt = snaps[gi, j + 1] if j < 2 else finals[gi]
            # scores are unchanged between the end of one scoring and the start of the next
            assert got == [int(nxt[pb(p) + L.F_SCORE]) for p in range(n)], (
                f"game {gi}, scoring {j}: recount {got}"
            )


def check_finals(finals, n):
    scores = np.zeros(n)
    wins = np.zeros(n)
    for s in finals:
        K.returns(s, scores, wins)
        for p in range(n):
            b = pb(p)
            # 4.4: the 5-colour sets were returned (no 5 colours are left together), the
            # tiles left are what scored 1 point each
            tiles = [int(x) for x in s[b + L.F_TILES : b + L.F_TILES + 6]]
            assert sum(t > 0 for t in tiles) < 5 and s[b + L.F_VP_TILES] == sum(tiles)
            assert s[b + L.F_SUPPLY] == 0  # 30 members = 6 rounds x 5 placements
        monks = [int((s[L.MONK : L.MONK + 18] == p).sum()) for p in range(n)]
        best = max(zip(scores.tolist(), monks))
        winners = [p for p in range(n) if (scores[p], monks[p]) == best]
        assert wins.tolist() == [1 / len(winners) if p in winners else 0.0 for p in range(n)]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_invariants_and_recount_over_random_games(n):
    seeds = np.arange(GAMES, dtype=np.int64) + 100_000 * n
    finals = np.zeros((GAMES, L.STATE_SIZE), np.int32)
    snaps = np.zeros((RESCORED, 3, L.STATE_SIZE), np.int32)
    logs = np.full((RESCORED, 3, 64), -1, np.int64)
    stats = np.zeros(1, np.int64)
    g, ply, err = play_checked(
        seeds, np.int64(n), SPEC.encode_options({}), finals, snaps, logs, stats
    )
    assert err == 0, f"game {g} (seed {seeds[g]}), decision {ply}: invariant {err} broken"
    check_finals(finals, n)
    python_recount(snaps, logs, finals, n)
    assert stats[0] == 0  # by default the neutral never keeps a mere tie
    # by default a dragon is paid with the taker's own member and never enters the deck
    boxed = finals[:, L.BOXED : L.BOXED + n]
    kept = finals[:, [pb(p) + L.F_KEPT for p in range(n)]]
    bought = finals[:, [pb(p) + L.F_DRAGONS_BOUGHT for p in range(n)]]
    assert (boxed == kept + bought).all()
    assert not (finals[:, L.LOG : L.LOG + L.MAX_DRAWS] == 3).any()


# Every value of every rule option other than its default is played in at least 10,000
# random games below, and each 2-player-only value (neutral_pool, neutral_keep) in at least
# 10,000 two-player games; the defaults are the 10,000 games per player count above.
# Runs: the options (some alone, some together) and the games at each player count.
# docs/games/ming_dynasty.md lists the coverage.
OPTION_RUNS = [
    (
        {"city_bonus_tiebreak": "fullest_section", "neutral_keep": "before_returns"},
        {2: 5000, 3: 1000, 4: 1000},
    ),
    ({"neutral_pool": "strict_31", "start_player": "seat0"}, {2: 5000, 3: 1000, 4: 1000}),
    ({"return_choice": "in_commitment"}, {2: 1000, 3: 1000, 4: 1000}),
    ({"stay_dragon": "discard_pile"}, {2: 1000, 3: 1000, 4: 1000}),
    ({"dragon_payment": "any_member"}, {2: 1000, 3: 1000, 4: 1000}),
    ({"neutral_keep": "tie_on_tiebreak"}, {2: 5000, 3: 500, 4: 500}),
    (
        {
            "neutral_keep": "tie_on_tiebreak",
            "city_bonus_tiebreak": "fullest_section",
            "neutral_pool": "strict_31",
        },
        {2: 5000, 3: 500, 4: 500},
    ),
    (
        {
            "return_choice": "in_commitment",
            "stay_dragon": "discard_pile",
            "dragon_payment": "any_member",
            "city_bonus_tiebreak": "fullest_section",
        },
        {2: 2000, 3: 2000, 4: 2000},
    ),
    (
        {
            "neutral_keep": "before_returns",
            "start_player": "seat0",
            "return_choice": "in_commitment",
            "stay_dragon": "discard_pile",
            "dragon_payment": "any_member",
        },
        {2: 5000, 3: 2000, 4: 2000},
    ),
]
TWO_PLAYER_ONLY = ("neutral_pool", "neutral_keep")
RUN_CASES = [(o, n, games) for o, per_n in OPTION_RUNS for n, games in per_n.items()]


def test_every_rule_option_value_is_played_in_10000_random_games():
    for opt in SPEC.options:
        for value in opt.choices:
            if value == opt.default:
                continue  # the default run: 10,000 games at each player count
            games = sum(
                g
                for o, n, g in RUN_CASES
                if o.get(opt.name) == value and (opt.name not in TWO_PLAYER_ONLY or n == 2)
            )
            assert games >= 10_000, f"{opt.name} = {value}: {games} games"


@pytest.mark.parametrize(
    "options,n,games",
    RUN_CASES,
    ids=["+".join(f"{k}={v}" for k, v in o.items()) + f"-{n}p" for o, n, _ in RUN_CASES],
)
def test_invariants_under_rule_options(options, n, games):
    seeds = np.arange(games, dtype=np.int64) + 77
    finals = np.zeros((games, L.STATE_SIZE), np.int32)
    snaps = np.zeros((20, 3, L.STATE_SIZE), np.int32)
    logs = np.full((20, 3, 64), -1, np.int64)
    stats = np.zeros(1, np.int64)
    g, ply, err = play_checked(
        seeds, np.int64(n), SPEC.encode_options(options), finals, snaps, logs, stats
    )
    assert err == 0, f"game {g}, decision {ply}: invariant {err} broken"
    check_finals(finals, n)
    python_recount(snaps, logs, finals, n)
    if options.get("start_player") == "seat0":
        assert (finals[:, L.G_FIRST_START] == 0).all()
    # a 2-player neutral keeps a tie it wins on the section tie-break under tie_on_tiebreak only
    assert (stats[0] > 0) == (n == 2 and options.get("neutral_keep") == "tie_on_tiebreak")
    # the options take effect in random play: dragons reshuffled into the deck and drawn,
    # dragons paid with other seats' members
    # (only after a reshuffle: about 1 random 4-player game in 3 reaches one, almost no
    # 2- or 3-player game; a dragon is then drawn in about 1 game in 9)
    drawn_dragons = (finals[:, L.LOG : L.LOG + L.MAX_DRAWS] == 3).any(axis=1)
    if options.get("stay_dragon") != "discard_pile":
        assert not drawn_dragons.any()
    elif n == 4:
        assert drawn_dragons.any()
    boxed = finals[:, L.BOXED : L.BOXED + n]
    own_paid = boxed == (
        finals[:, [pb(p) + L.F_KEPT for p in range(n)]]
        + finals[:, [pb(p) + L.F_DRAGONS_BOUGHT for p in range(n)]]
    )
    assert own_paid.all() == (options.get("dragon_payment") != "any_member")


def test_kernel_games_are_deterministic_by_seed():
    seeds = np.arange(200, dtype=np.int64)
    f1 = np.zeros((200, L.STATE_SIZE), np.int32)
    f2 = np.zeros((200, L.STATE_SIZE), np.int32)
    e = (
        np.zeros((0, 3, L.STATE_SIZE), np.int32),
        np.zeros((0, 3, 64), np.int64),
        np.zeros(1, np.int64),
    )
    opt = SPEC.encode_options({})
    play_checked(seeds, np.int64(3), opt, f1, *e)
    play_checked(seeds, np.int64(3), opt, f2, *e)
    assert np.array_equal(f1, f2)
    assert len({tuple(r) for r in f1[:, L.LOG : L.LOG + 20]}) > 190
