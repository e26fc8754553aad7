"""Hidden information, for search: ``determinize`` (resample the supply order and other
seats' secret return commitments), ``masked_state``, ``info_key`` and ``rewind_secrets``.
"""

import numba as nb
import numpy as np

from sim.core import H_PLY, hash_words, kernel, rng_below, shuffle_range
from sim.ming_dynasty.layout import (
    CITY,
    COMMIT_SEC_BASE,
    DECK,
    DPP,
    F_COMMIT,
    F_COMMIT_SEC,
    F_COMMITTED,
    G_DECK_N,
    G_DECK_PTR,
    G_LOG_N,
    G_PHASE,
    G_PROV,
    G_SCRIPT_N,
    LOG,
    MAX_DRAWS,
    N_CARD_KINDS,
    N_ENT,
    O_RETURN_CHOICE,
    PH_COMMIT,
)
from sim.ming_dynasty.rules.helpers import city_count, n_players, pb
from sim.ming_dynasty.rules.machine import advance


@kernel
def determinize(s, observer, rng):
    """Resample what ``observer`` cannot see: the supply order and other seats' pending commits."""
    s[G_SCRIPT_N] = s[G_LOG_N]  # a scripted replay's future draws are not known either
    shuffle_range(s, DECK + s[G_DECK_PTR], DECK + s[G_DECK_N], rng, 0)
    if s[G_PHASE] != PH_COMMIT:
        return
    prov = s[G_PROV]
    for q in range(n_players(s)):
        if q != observer and s[pb(q) + F_COMMITTED] == 1:
            if s[O_RETURN_CHOICE] == 1:  # uniform over the legal section vectors
                code = 0
                w = 1
                k = 0
                for j in range(DPP):
                    r = rng_below(
                        rng, 0, min(s[CITY + (prov * DPP + j) * N_ENT + q], COMMIT_SEC_BASE - 1) + 1
                    )
                    code += r * w
                    w *= COMMIT_SEC_BASE
                    k += r
                s[pb(q) + F_COMMIT_SEC] = code
                s[pb(q) + F_COMMIT] = k
            else:
                s[pb(q) + F_COMMIT] = rng_below(rng, 0, city_count(s, prov, q) + 1)


@nb.njit(cache=True)
def masked_state(s, player):
    """The state with what ``player`` cannot see masked (-1: for every seat): what
    :func:`info_key` hashes and the observation tensors (observe.py) show."""
    c = s.copy()
    c[0] = 0
    c[1] = 0
    c[5] = 0
    c[6] = 0
    c[G_SCRIPT_N] = 0
    for i in range(c[G_LOG_N], MAX_DRAWS):
        c[LOG + i] = 0
    cnt = np.zeros(N_CARD_KINDS, np.int64)
    for i in range(s[G_DECK_PTR], s[G_DECK_N]):
        cnt[s[DECK + i]] += 1
    k = s[G_DECK_PTR]
    for sym in range(N_CARD_KINDS):
        for _ in range(cnt[sym]):
            c[DECK + k] = sym
            k += 1
    if s[G_PHASE] == PH_COMMIT:
        for q in range(n_players(s)):
            if q != player:
                c[pb(q) + F_COMMIT] = 0
                c[pb(q) + F_COMMIT_SEC] = 0
    return c


@nb.njit(cache=True)
def info_key(s, player):
    """A 64-bit key of what ``player`` knows (sim.core contract).

    Hashes the state with the hidden parts masked: the RNG and seed words, the order of the
    undrawn supply (its composition is public), the future of a scripted replay, and,
    during the commitment step, the other seats' commitments, with their sections under
    ``return_choice = in_commitment`` (only *that* they committed is public).
    """
    return hash_words(masked_state(s, player), player)


@kernel
def rewind_secrets(s, observer):
    """Take back the commitments other seats made earlier in this province's commitment step
    (contract: see sim.core); they choose again, the observer's own stays; the ply counter
    drops by the decisions taken back."""
    if s[G_PHASE] != PH_COMMIT:
        return
    undone = 0
    for q in range(n_players(s)):
        if q != observer and s[pb(q) + F_COMMITTED] == 1:
            s[pb(q) + F_COMMITTED] = 0
            s[pb(q) + F_COMMIT] = 0
            s[pb(q) + F_COMMIT_SEC] = 0
            undone += 1
    s[H_PLY] -= undone
    advance(s)
