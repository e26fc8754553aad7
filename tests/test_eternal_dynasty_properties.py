"""Eternal Dynasty property tests over many random games (every player count and variant).

Invariants are checked after every decision by an independent numba checker (token,
Leader and Structure supplies, quarantine, every card in exactly one place, bonus pools,
Rulers never chosen twice, Coin values against what left the bag); at each decision of a
Ruler ability the issue-11 rulings are checked against their own reading of the spec (Zeng's
placements are the provinces within 2 steps of his Influence and his Home, Dong's gain is
offered with a skip and only when he qualifies, Xun's next roll is not made while he chooses
for the current one); each Generation's scoring is recounted in plain Python from the
board as it stood at scoring (not from the engine's running counters).  With 2 players the
Eternal Emperor is one more colour (layout.EE): its tokens are checked like a player's, it
never holds Leaders, cards or a bonus pool, Dynasty Influence never goes negative, and the
recount scores it like a player.
"""

import json

import numba as nb
import numpy as np
import pytest

from sim.core import random_legal, rng_seed
from sim.eternal_dynasty import SPEC
from sim.eternal_dynasty import layout as L

# The invariants live in the game's package, shared with ``dynasty fuzz``.
from sim.eternal_dynasty.invariants import check_decision
from sim.eternal_dynasty.invariants import check_state as check
from sim.eternal_dynasty.options import DATA_FILE
from sim.eternal_dynasty.rules import apply, is_terminal, legal_mask, new_state, pb

K = SPEC.kernels
COMP = json.loads(DATA_FILE.read_text())
SNAP_SIZE = L.LOG - L.SNAP_BOARD


@nb.njit(cache=True)
def play_checked(seeds, n, options, snaps, n_snap_games):
    """Random games; returns (game index, ply, error) of the first broken invariant or -1s.
    The first ``n_snap_games`` games store the board at each scoring and the engine's
    per-Generation points and Coin awards in ``snaps``."""
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    rng = np.zeros(2, np.int32)
    for g in range(seeds.shape[0]):
        s = new_state(seeds[g], n, options)
        rng_seed(rng, 0, seeds[g] + 1)
        ply = 0
        gen = s[L.G_GEN]
        while True:
            e = check(s)
            if e != 0:
                return g, ply, e
            if s[L.G_GEN] != gen:
                if gen >= 1 and g < n_snap_games:
                    snaps[g, gen - 1, :SNAP_SIZE] = s[L.SNAP_BOARD : L.LOG]
                gen = s[L.G_GEN]
            if is_terminal(s):
                break
            if legal_mask(s, mask) == 0:
                return g, ply, 99
            e = check_decision(s, mask)
            if e != 0:
                return g, ply, e
            apply(s, random_legal(mask, rng, 0))
            ply += 1
            if ply > 6000:
                return g, ply, 98
        if g < n_snap_games:
            for gg in range(L.MAX_GENS):
                for p in range(n + 1 if n == 2 else n):
                    snaps[g, gg, SNAP_SIZE + p * 2] = s[pb(p) + L.F_GEN_PTS + gg]
                    snaps[g, gg, SNAP_SIZE + p * 2 + 1] = s[pb(p) + L.F_GEN_COINS + gg]
            snaps[g, 0, SNAP_SIZE + 12] = s[L.G_NGEN]
    return -1, -1, 0


RULERS = COMP["rulers"]
ADJ = {(a - 1, b - 1) for a, b in COMP["adjacency_edges"]} | {
    (b - 1, a - 1) for a, b in COMP["adjacency_edges"]
}
SC = COMP["rules_constants"]["scoring"]


def recount_generation(snap: np.ndarray, n: int) -> tuple[list[int], list[int]]:
    """Spec 7.1 from the board at scoring: (points, Coin awards) per colour (``n`` colours:
    the seats, and with 2 players the Eternal Emperor, which has no Ruler)."""
    tok = snap[: L.NCOL * L.N_PROV * 2].reshape(L.NCOL, L.N_PROV, 2)
    lead = snap[L.LEAD - L.TOK : L.LEAD - L.TOK + L.NCOL * L.N_PROV * 2].reshape(
        L.NCOL, L.N_PROV, 2
    )
    struct = snap[L.STRUCT - L.TOK : L.STRUCT - L.TOK + L.N_PROV * 2].reshape(L.N_PROV, 2)
    mark = snap[L.MARK - L.TOK : L.MARK - L.TOK + L.N_PROV]
    quar = snap[L.QUAR - L.TOK : L.QUAR - L.TOK + L.N_PROV]
    rulers = snap[L.SNAP_RULERS - L.SNAP_BOARD : L.SNAP_RULERS - L.SNAP_BOARD + L.NCOL]
    abil = [
        RULERS[int(rulers[p])]["ability"] if rulers[p] >= 0 else {"kind": None} for p in range(n)
    ]
    home = [RULERS[int(rulers[p])]["home"] - 1 if rulers[p] >= 0 else -1 for p in range(n)]
    pts = [0] * n
    coins = [0] * n
    for q in range(L.N_PROV):
        if quar[q]:
            continue
        first = {}
        for t, leader in ((0, "GENERAL"), (1, "MAGISTRATE")):
            st = []
            for p in range(n):
                v = int(tok[p, q, t])
                if lead[p, q, t]:
                    a = abil[p]
                    v += (
                        a["strength"]
                        if a["kind"] == "LEADER_STRENGTH" and a["leader"] == leader
                        else 2
                    )
                st.append(float(v))
            best = max(st)
            if best <= 0:
                first[t] = None
                continue
            tied = [p for p in range(n) if st[p] == best]
            cao = [
                p
                for p in tied
                if abil[p]["kind"] == "WIN_TIES" and (home[p] == q or (home[p], q) in ADJ)
            ]
            if len(tied) > 1 and cao:
                st[cao[0]] += 0.5
                tied = [cao[0]]
            if len(tied) == 2:
                for p in tied:
                    pts[p] += SC["two_way_tie_first_each"]
                first[t] = None
                continue
            if len(tied) >= 3:
                first[t] = None
                continue
            f = tied[0]
            first[t] = f
            pts[f] += SC["first"]
            rest = [st[p] for p in range(n) if p != f and st[p] > 0]
            if rest and rest.count(max(rest)) == 1:
                pts[[p for p in range(n) if p != f and st[p] == max(rest)][0]] += SC["second"]
        if struct[q, 0] and first[0] is not None:
            pts[first[0]] += SC["fortress_bonus"]
        if struct[q, 1] and first[1] is not None:
            pts[first[1]] += SC["palace_bonus"]
        if first[0] is not None and first[0] == first[1]:
            coins[first[0]] += SC["coin_for_both_firsts"]
        if mark[q] & L.MK_SACRED:
            tot = []
            for p in range(n):
                v = int(tok[p, q].sum())
                for t, leader in ((0, "GENERAL"), (1, "MAGISTRATE")):
                    if lead[p, q, t]:
                        a = abil[p]
                        v += (
                            a["strength"]
                            if a["kind"] == "LEADER_STRENGTH" and a["leader"] == leader
                            else 2
                        )
                tot.append(v)
            if max(tot) > 0 and tot.count(max(tot)) == 1:
                coins[tot.index(max(tot))] += 1
    for p in range(n):
        if abil[p]["kind"] == "SCORE_PER_REPRESENTED":
            pts[p] += int((tok[p].sum(axis=1) > 0).sum()) // abil[p]["divisor"]
    return pts, coins


CONFIGS = [
    (3, {}),
    (4, {}),
    (5, {}),
    (3, {"length": "long3"}),
    (5, {"length": "short5"}),
    (4, {"events": "minor_only"}),
    (4, {"events": "none"}),
    (3, {"coins": "off"}),
    (5, {"adjacency": "qing"}),
    (4, {"enforce_token_limits": "false"}),
    (4, {"ruler_draft": "true"}),
    (2, {}),
    (2, {"coins": "off", "events": "minor_only"}),
    (3, {"coin_draw": "at_reveal"}),
]
GAMES = 10_000
RECOUNT = 300


@pytest.mark.parametrize("n,options", CONFIGS, ids=lambda x: str(x))
def test_invariants_and_recount_over_random_games(n, options):
    seeds = np.arange(GAMES, dtype=np.int64) + 100_000 * n + 7 * len(options)
    snaps = np.zeros((RECOUNT, L.MAX_GENS, SNAP_SIZE + 13), np.int32)
    g, ply, err = play_checked(seeds, np.int64(n), SPEC.encode_options(options), snaps, RECOUNT)
    assert err == 0, f"game {g} (seed {seeds[g]}), decision {ply}: invariant {err} broken"
    nc = n + 1 if n == 2 else n  # the Eternal Emperor is recounted like a player
    for g in range(RECOUNT):
        for gen in range(int(snaps[g, 0, SNAP_SIZE + 12])):
            pts, coins = recount_generation(snaps[g, gen], nc)
            engine_pts = [int(snaps[g, gen, SNAP_SIZE + 2 * p]) for p in range(nc)]
            engine_coins = [int(snaps[g, gen, SNAP_SIZE + 2 * p + 1]) for p in range(nc)]
            assert engine_pts == pts and engine_coins == coins, f"game {g}, Generation {gen + 1}"


def test_kernel_games_are_deterministic_by_seed():
    seeds = np.arange(100, dtype=np.int64)
    opt = SPEC.encode_options({})
    a = np.zeros((100, L.MAX_GENS, SNAP_SIZE + 13), np.int32)
    b = np.zeros_like(a)
    play_checked(seeds, np.int64(4), opt, a, 100)
    play_checked(seeds, np.int64(4), opt, b, 100)
    assert np.array_equal(a, b)
    assert len({a[i].tobytes() for i in range(100)}) == 100


def test_adjacency_bits_follow_the_matrix():
    """ADJB, the bit sets the rules read for LEGAL(p) and moves, is the adjacency matrix in play:
    after setup with the 3-player quarantine (its provinces' rows and columns cleared), on the
    Qing map, in scenario positions (which lift the quarantine), and the invariant notices a
    wrong bit."""
    from sim.eternal_dynasty.invariants import E_ADJB
    from sim.eternal_dynasty.scenario import position

    quarantined = 0
    for n, opts in ((3, {}), (4, {"adjacency": "qing"}), (2, {}), (5, {})):
        for seed in range(10):
            s = new_state(np.int64(seed), np.int64(n), SPEC.encode_options(opts))
            assert check(s) == 0
            for q in np.flatnonzero(s[L.QUAR : L.QUAR + L.N_PROV]):
                assert s[L.ADJB + q] == 0
                quarantined += 1
    assert quarantined >= 10
    s = position(3, seed=3)  # a position's Rulers need not pass the other invariants
    adj = s[L.ADJ : L.ADJ + L.N_PROV**2].reshape(L.N_PROV, L.N_PROV)
    assert s[L.QUAR : L.QUAR + L.N_PROV].sum() == 0 and adj.sum() > 0
    assert [int(s[L.ADJB + q]) for q in range(L.N_PROV)] == [
        int((adj[q] << np.arange(L.N_PROV)).sum()) for q in range(L.N_PROV)
    ]
    s = new_state(np.int64(1), np.int64(4), SPEC.encode_options({}))
    s[L.ADJB + 4] ^= 1 << 9
    assert check(s) == E_ADJB
