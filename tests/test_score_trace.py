"""The score trace of every game (lead changes, when the winner is decided; agents/trace.py).

The arena's numbers are checked against a second computation written from the definition:
the same random games re-played here decision by decision in Python (the random agent's
draws reproduced from its RNG words), the provisional leader taken at every change of the
game's round word with numpy, and the two statistics computed from the list of leaders.
"""

import numpy as np
import pytest

from agents.arena import play_games
from agents.table import N_AGENT_PARAMS, RANDOM
from agents.trace import TRACE_COLUMNS, TRACE_WORDS, trace_finish, trace_point, trace_start
from sim import get_game
from sim.core import H_CURRENT, NO_PLAYER, hash64, random_of_legal, rng_seed


def _run(leaders, wins):
    tr = np.zeros(TRACE_WORDS, np.int64)
    trace_start(tr)
    for leader in leaders:
        trace_point(tr, leader)
    out = np.zeros(len(TRACE_COLUMNS), np.int64)
    trace_finish(tr, np.asarray(wins, np.float64), len(wins), out)
    return tuple(int(x) for x in out)


@pytest.mark.parametrize(
    "leaders, wins, expected",
    [
        ([0, 0, 0], [1, 0], (0, 1, 4)),  # led from the first round's end to the win
        ([0, 0, 1], [0, 1], (1, 3, 4)),  # took the lead at round 3 and kept it
        ([0, 0, 0], [0, 1], (1, 4, 4)),  # only the final scoring decided it
        (
            [0, -1, 0],
            [1, 0],
            (0, 3, 4),
        ),  # a shared lead is no change, but the winner led alone again only from 3
        ([0, 1, 0, 1], [0, 1], (3, 4, 5)),
        ([1, 0], [0.5, 0.5], (1, -1, 3)),  # a shared win: no sole winner, not decided
        ([], [0, 0, 1], (0, 1, 1)),  # no round end before the result
    ],
)
def test_trace_rule_on_hand_made_leader_sequences(leaders, wins, expected):
    assert _run(leaders, wins) == expected


def _from_definition(leaders: list[int], winner: int) -> tuple[int, int, int]:
    points = leaders + [winner]
    changes, last = 0, -1
    for x in points:
        if x >= 0:
            changes += last >= 0 and x != last
            last = x
    if winner < 0:
        return changes, -1, len(points)
    t = len(points)
    while t > 0 and points[t - 1] == winner:
        t -= 1
    return changes, t + 1, len(points)


def _replay_here(spec, seed, agent_seed, n, options):
    """Re-play the arena's random game ``seed`` in Python;
    (leaders at the round ends, scores, wins)."""
    K = spec.kernels
    state = K.new_state(np.int64(seed), np.int64(n), options)
    rngs = np.zeros(2 * n, np.int32)
    for p in range(n):
        rng_seed(rngs, 2 * p, hash64(np.int64(agent_seed), np.int64(p)))
    mask = np.zeros(spec.num_actions, np.bool_)
    values = np.zeros(n)
    leaders, rnd = [], int(state[spec.round_word])
    while state[H_CURRENT] != NO_PLAYER:
        if int(state[spec.round_word]) != rnd:
            rnd = int(state[spec.round_word])
            K.evaluate(state, values)
            top = np.flatnonzero(values == values.max())
            leaders.append(int(top[0]) if len(top) == 1 else -1)
        p = int(state[H_CURRENT])
        count = K.legal_mask(state, mask)
        K.apply(state, random_of_legal(mask, count, rngs, 2 * p))
    scores, wins = np.zeros(n), np.zeros(n)
    K.returns(state, scores, wins)
    return leaders, scores, wins


@pytest.mark.parametrize(
    "name, n, games",
    [
        ("goofspiel", 3, 30),
        ("middle_kingdom", 4, 20),
        ("ming_dynasty", 3, 12),
        ("emperors_choice", 2, 8),
        ("eternal_dynasty", 2, 6),
        ("eternal_dynasty", 4, 4),
    ],
)
def test_arena_trace_equals_the_definition(name, n, games):
    spec = get_game(name)
    assert spec.round_word >= 0
    options = spec.encode_options({})
    seeds = np.arange(games) + 41
    trace = {}
    scores, wins, _, _ = play_games(
        spec,
        seeds,
        n,
        options,
        np.zeros((games, n), np.int64),
        [RANDOM],
        np.zeros((1, N_AGENT_PARAMS)),
        trace=trace,
    )
    changes = decided_early = 0
    for g, seed in enumerate(seeds):
        leaders, sc, w = _replay_here(spec, seed, seed, n, options)
        assert np.array_equal(sc, scores[g]) and np.array_equal(w, wins[g]), "not the arena's game"
        winner = int(np.flatnonzero(w == 1.0)[0]) if (w == 1.0).sum() == 1 else -1
        expected = _from_definition(leaders, winner)
        got = tuple(int(trace[c][g]) for c in TRACE_COLUMNS)
        assert got == expected, (g, leaders, winner)
        assert len(leaders) >= 1  # the game has round ends before its result
        changes += got[0]
        decided_early += 0 < got[1] < got[2]
    assert changes > 0  # the trace sees leads change in random games ...
    assert decided_early > 0  # ... and winners that led before the final scoring
    again = play_games(
        spec,
        seeds,
        n,
        options,
        np.zeros((games, n), np.int64),
        [RANDOM],
        np.zeros((1, N_AGENT_PARAMS)),
    )
    assert np.array_equal(again[0], scores) and np.array_equal(
        again[1], wins
    )  # the trace changes no game


def test_runs_keep_the_trace_only_when_asked(tmp_path):
    """score_trace = false (the default) leaves the columns at 0 (trace_points 0: not traced); true
    fills them; a value that is not a boolean is one line naming the key."""
    from experiments.run.config import ConfigError, from_dict
    from experiments.run.runner import ChunkContext, job_of

    d = {
        "game": "goofspiel",
        "players": 2,
        "agents": ["random"],
        "games": 40,
        "seed": 3,
        "output": str(tmp_path),
    }
    off = ChunkContext(job_of(from_dict(d))).play(0, 40)
    on = ChunkContext(job_of(from_dict(dict(d, score_trace=True)))).play(0, 40)
    assert not off["trace_points"].any() and not off["lead_changes"].any()
    assert (on["trace_points"] > 1).all() and np.array_equal(on["scores"], off["scores"])
    assert from_dict(dict(d, score_trace=True)).identity()["score_trace"] is True
    assert (
        "score_trace" not in from_dict(d).identity()
    )  # folders made before the option keep their identity
    with pytest.raises(ConfigError, match="score_trace: expected true or false, got 'yes'"):
        from_dict(dict(d, score_trace="yes"))
