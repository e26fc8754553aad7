"""Ming Dynasty agents: the heuristic beats random at every player count (fixed seeds)."""

import numpy as np
import pytest
from scipy.stats import binomtest

from agents.arena import play_games
from agents.table import HEURISTIC, N_AGENT_PARAMS, RANDOM
from sim import get_game

SPEC = get_game("ming_dynasty")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_heuristic_beats_random(n):
    games = 600
    seat_agent = np.full((games, n), 1, np.int64)  # agent 1 = random
    seat_agent[np.arange(games), np.arange(games) % n] = 0  # agent 0 = heuristic, rotating seats
    kinds = np.array([HEURISTIC, RANDOM])
    _, wins, _, _ = play_games(
        SPEC,
        np.arange(games) + 700 * n,
        n,
        SPEC.encode_options({}),
        seat_agent,
        kinds,
        np.zeros((2, N_AGENT_PARAMS)),
    )
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


@pytest.mark.parametrize("options", [{}, {"return_choice": "in_commitment"}])
def test_heuristic_returns_a_member_to_a_tied_district_after_round_two_only(options):
    """Province 3: open areas A3 B2 in district 9, A2 C3 in 10, C2 in 11.  After 4.1 A has
    2 city members in section 9 and 1 in section 10, and ties the best rival in both open
    areas (A1 B1, A1 C1); C holds the most city members (4).  After round 2 the heuristic
    sends one member back to each tied district; after round 4 it keeps all; and it never
    returns so many that a city bonus held alone is lost."""
    from sim.core import new_rng
    from sim.ming_dynasty import layout as L
    from sim.ming_dynasty.scenario import position, score_from

    def commit(rnd, open_):
        s = score_from(position(3, round=rnd, start=0, open=open_, options=options))
        assert s[L.G_PROV] == 3 and s[L.G_PHASE] == L.PH_COMMIT and s[3] == 0
        assert [int(s[L.CITY + d * L.N_ENT]) for d in (9, 10)] == [2, 1]
        return SPEC.action_name(s, SPEC.kernels.heuristic(s, new_rng(1)))

    sections = options.get("return_choice") == "in_commitment"
    tie = {9: {0: 3, 1: 2}, 10: {0: 2, 2: 3}, 11: {2: 2}}
    assert commit(2, tie) == (
        "return 1 to district 9, 1 to district 10" if sections else "return 2"
    )
    assert commit(4, tie) == ("return none" if sections else "return 0")
    # without district 11, A holds the bonus alone (3 city members against C's 2): returning
    # even one would give up the sole lead, so A keeps all
    del tie[11]
    assert commit(2, tie) == ("return none" if sections else "return 0")


def test_mcts_plays_complete_games_under_the_section_commitment_and_any_member_dragons():
    """Under ``return_choice = in_commitment`` and ``dragon_payment = any_member`` MCTS (every
    seat, short searches) plays whole games: at each decision, the secret section commitments
    and the dragon purchases paid with a rival's member included, the search's root node
    collects the simulations (``info_key`` stable under ``determinize`` and
    ``rewind_secrets``), and it returns a legal action."""
    from agents.mcts import mcts_params, search_root
    from sim import Game
    from sim.ming_dynasty import layout as L

    options = {"return_choice": "in_commitment", "dragon_payment": "any_member"}
    sims = 8
    seen = {"section commitment": 0, "dragon paid with a rival's member": 0}
    for n, seed in ((2, 11), (3, 12)):
        g = Game("ming_dynasty", players=n, seed=seed, options=options)
        params = mcts_params(sims)
        while not g.is_over:
            legal = g.legal_actions()
            a, visits, _ = search_root(SPEC, g.state, params, seed * 1000 + len(g.history))
            assert a in legal and visits.sum() >= sims - n, g.render()
            seen["section commitment"] += a >= L.A_COMMIT_SEC and g.state[L.G_PHASE] == L.PH_COMMIT
            seen["dragon paid with a rival's member"] += (
                g.state[L.G_PHASE] == L.PH_CARDS
                and L.A_DRAGON_OF <= a < L.A_DRAGON_OF + L.N_PROV * L.MAXP
            )
            g.apply(a)
        assert sum(g.win_shares) == pytest.approx(1.0)
    assert all(v > 0 for v in seen.values()), seen
