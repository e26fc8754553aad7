"""Emperor's Choice agents: the heuristic beats random at every player count (fixed seeds),
and MCTS's information-set keys are consistent with ``determinize``."""

import numpy as np
import pytest
from scipy.stats import binomtest

from agents.arena import play_games
from agents.table import HEURISTIC, N_AGENT_PARAMS, RANDOM
from sim import get_game
from sim.core import new_rng
from sim.emperors_choice import layout as L
from sim.emperors_choice.rules import (
    apply,
    determinize,
    info_key,
    is_terminal,
    legal_mask,
    new_state,
)

SPEC = get_game("emperors_choice")


@pytest.mark.parametrize("n", [3, 4, 5])
def test_heuristic_beats_random(n):
    games = 600
    seat_agent = np.full((games, n), 1, np.int64)  # agent 1 = random
    seat_agent[np.arange(games), np.arange(games) % n] = 0  # agent 0 = heuristic, rotating seats
    _, wins, _, _ = play_games(
        SPEC,
        np.arange(games) + 700 * n,
        n,
        SPEC.encode_options({}),
        seat_agent,
        np.array([HEURISTIC, RANDOM]),
        np.zeros((2, N_AGENT_PARAMS)),
    )
    share = wins[np.arange(games), np.arange(games) % n].sum()
    low = binomtest(int(round(share)), games).proportion_ci(method="wilson").low
    assert low > 1 / n, f"{n}p: heuristic wins {share / games:.3f}, interval low {low:.3f}"


def test_determinize_keeps_the_observers_key_and_changes_hidden_cards():
    opts = SPEC.encode_options({})
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    rng = np.random.default_rng(3)
    arng = new_rng(5)
    changed = 0
    for seed in range(10):
        s = new_state(seed, 4, opts)
        while not is_terminal(s):
            for obs in range(4):
                c = s.copy()
                determinize(c, obs, arng)
                assert info_key(c, obs) == info_key(s, obs)
                # the observer's own hand and every known card stay where they are
                own = s[L.LOC : L.LOC + L.MAXC] == L.LOC_HAND + obs
                known = s[L.KNOWN : L.KNOWN + L.MAXC] == 1
                assert (
                    c[L.LOC : L.LOC + L.MAXC][own | known] == s[L.LOC : L.LOC + L.MAXC][own | known]
                ).all()
                changed += int(
                    not np.array_equal(c[L.LOC : L.LOC + L.MAXC], s[L.LOC : L.LOC + L.MAXC])
                )
            legal_mask(s, mask)
            apply(s, int(rng.choice(np.flatnonzero(mask))))
    assert changed > 0


def test_every_search_reaches_the_searchers_own_node():
    """MCTS reads its decision at ``info_key(root, me)``: a key that changed under
    ``determinize`` would make the simulations miss that node."""
    from agents.mcts import mcts_params, search_root
    from sim import Game

    sims = 60
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(2):
        g = Game("emperors_choice", players=3, seed=seed)
        while not g.is_over:
            if rng.random() < 0.05:
                _, visits, _ = search_root(SPEC, g.state, mcts_params(sims), seed)
                assert visits.sum() >= sims - 3, g.render()
                checked += 1
            acts = g.legal_actions()
            g.apply(acts[int(rng.integers(len(acts)))])
    assert checked > 10


def test_mcts_plays_complete_games_choosing_its_reveals():
    """Under ``reveal_mode = optional_subset`` MCTS (every seat, short searches) plays whole
    games: at each decision, the choice of cards to reveal included, the search's root node
    collects the simulations (``info_key`` stable under ``determinize``, which must keep a
    card that has been revealed where it is) and it returns a legal action."""
    from agents.mcts import mcts_params, search_root
    from sim import Game

    sims = 8
    reveals = 0
    for n, seed in ((3, 21), (4, 22)):
        g = Game(
            "emperors_choice", players=n, seed=seed, options={"reveal_mode": "optional_subset"}
        )
        params = mcts_params(sims)
        while not g.is_over:
            legal = g.legal_actions()
            a, visits, _ = search_root(SPEC, g.state, params, seed * 1000 + len(g.history))
            assert a in legal and visits.sum() >= sims - n, g.render()
            reveals += g.state[L.G_DECISION] == L.DK_REVEAL
            g.apply(a)
        assert sum(g.win_shares) == pytest.approx(1.0)
    assert reveals > 0


def test_heuristic_info_key_and_determinize_at_the_ordering_decisions():
    """The two ordering decisions of issue 11: bid-time effects (D-A4) and the immediate
    tiles of a taken set under ``always_instant`` (D-M2).

    Heuristic: at Trust 0 the +1 Trust cards go first (no VP lost to the Eunuch: Trust 0,
    VP 10); at Trust 29 the Eunuch goes first (27, 28, 29), since the Trust cards first would
    overflow (18 after the Eunuch) and cost the bidder 1 Trust more than its rivals.  The
    Royal Seal is resolved last, after the Messenger.  Both decisions are public: every
    seat's key changes with the choice made, and ``determinize`` keeps every seat's key."""
    from sim.emperors_choice.heuristic import heuristic
    from sim.emperors_choice.rules import pb
    from tests.test_emperors_choice_rules import (
        always_instant_seal_and_messenger,
        three_bid_time_cards,
    )

    rng = new_rng(11)
    s, p, (emp, con, eu) = three_bid_time_cards(trust=0)
    a = heuristic(s, rng)
    assert a == L.A_CARD + emp
    apply(s, a)
    apply(s, heuristic(s, rng))
    assert (s[pb(p) + L.F_TRUST], s[pb(p) + L.F_VP]) == (0, 10)
    s, p, (emp, con, eu) = three_bid_time_cards(trust=29)
    assert heuristic(s, rng) == L.A_CARD + eu
    apply(s, L.A_CARD + eu)
    assert s[pb(p) + L.F_TRUST] == 29 and s[L.G_DECISION] != L.DK_ORDER
    s = always_instant_seal_and_messenger()
    assert heuristic(s, rng) == L.A_IMM + L.MESSENGER - L.JADE
    for s in (three_bid_time_cards(trust=0)[0], always_instant_seal_and_messenger()):
        for obs in range(3):
            c = s.copy()
            determinize(c, obs, rng)
            assert info_key(c, obs) == info_key(s, obs)
            mask = np.zeros(L.NUM_ACTIONS, np.bool_)
            legal_mask(s, mask)
            keys = set()
            for a in np.flatnonzero(mask):
                t = s.copy()
                apply(t, int(a))
                keys.add(info_key(t, obs))
            assert len(keys) == mask.sum() and info_key(s, obs) not in keys
