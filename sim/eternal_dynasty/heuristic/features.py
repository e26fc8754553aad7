"""The contract's ``action_features``: per-action features of the main action for a learned
agent's linear head (agents/net.py, ``wf``).

At a main action with a choice, in the state resampled from the seat's information set that
the caller gives, every legal action is tried as the heuristic's exhaustive one-ply search
tries it (``work_space_search`` with ``EXHAUSTIVE``: the value of the own provisional score
minus the best opponent's after the action, plan item 5), and each action gets
:data:`ACTION_FEATURES`: its gap to the best try (over 8 points, and whether it is 0, 1 or 2
points), its block (a military or political placement, a card, passing), the block at the
best try and shared among the tied best, the province of a placement, the block in each
Generation, and whether it is the heuristic's action (the hint).  A head fitted to a search's
visits learns when to leave the best try for a card (docs/games/eternal_dynasty.md,
"Learned players").  Elsewhere: no features (the network decides).
"""

import numba as nb
import numpy as np

from sim.eternal_dynasty.heuristic.search import (
    EXHAUSTIVE,
    F_WORDS,
    LW_WORDS,
    M_WORDS,
    cw_words,
    work_space_search,
)
from sim.eternal_dynasty.layout import A_CARD, A_PQ, A_SKIP, G_GEN, HAND_MAX, N_PROV
from sim.eternal_dynasty.rules import TK_ACTION, top

N_GEN = 5  # Generations 1-5 told apart (the last bin also takes any later one)
N_BLOCKS = 4  # military placement, political placement, card, pass
GAP_CLIP = 8.0
F_GAP, F_GAP0, F_BLOCK, F_BLOCK_BEST, F_PROV, F_HINT = 0, 1, 4, 8, 12, 12 + N_PROV
F_GEN = F_HINT + 1
F_BLOCK_TIED = F_GEN + N_GEN * N_BLOCKS
N_FEATURES = F_BLOCK_TIED + N_BLOCKS
BLOCKS = ("military", "political", "card", "pass")
ACTION_FEATURES = (
    ("gap/8", "gap=0", "gap=-1", "gap=-2")
    + tuple(f"block:{b}" for b in BLOCKS)
    + tuple(f"best:{b}" for b in BLOCKS)
    + tuple(f"province:{q}" for q in range(N_PROV))
    + ("hint",)
    + tuple(f"generation:{g + 1}:{b}" for g in range(N_GEN) for b in BLOCKS)
    + tuple(f"tied:{b}" for b in BLOCKS)
)
assert len(ACTION_FEATURES) == N_FEATURES


@nb.njit(cache=True, inline="always")
def block_of(a):
    """The action's block (0 military placement, 1 political placement, 2 card, 3 pass; -1
    none)."""
    if A_PQ <= a < A_PQ + 2 * N_PROV:
        return (a - A_PQ) % 2
    if A_CARD <= a < A_CARD + HAND_MAX:
        return 2
    if a == A_SKIP:
        return 3
    return -1


@nb.njit(cache=True)
def action_features(state, player, hint, mask, rng, out):
    """The contract's ``action_features`` (module doc): :data:`N_FEATURES` per action at a main
    action with a choice, else 0."""
    if state[top(state)] != TK_ACTION or out.shape[1] < N_FEATURES:
        return np.int64(0)
    n = 0
    for a in range(mask.shape[0]):
        n += mask[a]
    if n < 2:
        return np.int64(0)
    buf = np.empty(LW_WORDS + F_WORDS + cw_words(state) + M_WORDS, np.int64)
    work_space_search(state, player, mask.copy(), rng, EXHAUSTIVE, buf)
    tv = buf[LW_WORDS : LW_WORDS + F_WORDS].view(np.float64)
    best = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and tv[a] > best:
            best = tv[a]
    tied_n = 0
    for a in range(mask.shape[0]):
        if mask[a] and tv[a] == best:
            tied_n += 1
    gen = min(max(state[G_GEN] - 1, 0), N_GEN - 1)  # Generation 1 (G_GEN counts from 1): bin 0
    for a in range(mask.shape[0]):
        row = out[a]
        row[:N_FEATURES] = 0
        if not mask[a]:
            continue
        gap = max(tv[a] - best, -GAP_CLIP)
        row[F_GAP] = gap / GAP_CLIP
        row[F_GAP0] = np.float32(gap == 0)
        row[F_GAP0 + 1] = np.float32(gap == -1)
        row[F_GAP0 + 2] = np.float32(gap == -2)
        b = block_of(a)
        if b >= 0:
            row[F_BLOCK + b] = 1
            row[F_BLOCK_BEST + b] = np.float32(gap == 0)
            row[F_GEN + N_BLOCKS * gen + b] = 1
            if gap == 0:
                row[F_BLOCK_TIED + b] = np.float32(1.0 / tied_n)
        if b == 0 or b == 1:
            row[F_PROV + (a - A_PQ) // 2] = 1
        row[F_HINT] = np.float32(a == hint)
    return np.int64(N_FEATURES)
