"""Ming Dynasty agents: the heuristic beats random at every player count (fixed seeds)."""

import numpy as np
import pytest
from scipy.stats import binomtest

from agents.arena import HEURISTIC, N_AGENT_PARAMS, RANDOM, play_games
from sim import get_game

SPEC = get_game("ming_dynasty")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_heuristic_beats_random(n):
    games = 600
    seat_agent = np.full((games, n), 1, np.int64)  # agent 1 = random
    seat_agent[np.arange(games), np.arange(games) % n] = 0  # agent 0 = heuristic, rotating seats
    kinds = np.array([HEURISTIC, RANDOM])
    _, wins, _, _ = play_games(SPEC, np.arange(games) + 700 * n, n, SPEC.encode_options({}), seat_agent,
                               kinds, np.zeros((2, N_AGENT_PARAMS)))
    share = wins[np.arange(games), np.arange(games) % n].sum()
    # the 95% Wilson interval of the heuristic's win rate must exclude parity (1/n)
    low = binomtest(int(round(share)), games).proportion_ci(method="wilson").low
    assert low > 1 / n, f"{n}p: heuristic wins {share / games:.3f}, interval low {low:.3f}"


def test_secret_commitment_is_hidden_from_later_choosers():
    """info_key of the next committer ignores an earlier commitment; determinize keeps the key;
    rewind_secrets takes the commitment back."""
    from sim.core import H_CURRENT, H_PLY, new_rng
    from sim.ming_dynasty import layout as L
    from sim.ming_dynasty.scenario import act, position, score_from

    k = SPEC.kernels
    s = score_from(position(3, round=2, start=0, open={9: {0: 3, 1: 2}, 10: {2: 2}}))
    assert s[L.G_PHASE] == L.PH_COMMIT and s[H_CURRENT] == 0
    keys = set()
    for commit in ("return 0", "return 1", "return 2"):
        t = s.copy()
        act(t, 0, commit)
        assert t[H_CURRENT] == 1
        keys.add(k.info_key(t, 1))
        u = t.copy()
        k.determinize(u, 1, new_rng(4))
        assert k.info_key(u, 1) == k.info_key(t, 1)
        k.rewind_secrets(t, 1)
        assert t[H_CURRENT] == 0 and t[H_PLY] == s[H_PLY] and np.array_equal(t, s)
    assert len(keys) == 1


@pytest.mark.parametrize("n", [2, 4])
def test_every_search_reaches_the_searchers_own_node(n):
    """At every secret commitment (and at a sample of other decisions) the search's root node
    ``info_key(root, me)`` collects the simulations: the key must not change under
    ``determinize`` nor after ``rewind_secrets`` and re-choosing (see docs/mcts.md)."""
    from agents.mcts import mcts_params, search_root
    from sim import Game
    from sim.ming_dynasty import layout as L

    sims = 30
    rng = np.random.default_rng(n)
    commits = 0
    for seed in range(2):
        g = Game("ming_dynasty", players=n, seed=seed)
        while not g.is_over:
            at_commit = g.state[L.G_PHASE] == L.PH_COMMIT
            if at_commit or rng.random() < 0.02:
                _, visits, _ = search_root(SPEC, g.state, mcts_params(sims), seed)
                assert visits.sum() >= sims - n, g.render()
                commits += at_commit
            acts = g.legal_actions()
            g.apply(acts[int(rng.integers(len(acts)))])
    assert commits > 5
