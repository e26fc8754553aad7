"""``dynasty bench heuristic_honesty``: whether a game's heuristic reads only what its seat may
know, the heuristic's action on the true state against its action in a copy resampled from the
mover's information set, with the same RNG words."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from experiments.bench.heuristic_honesty import honesty
from sim import get_game
from sim.core import H_CURRENT, new_rng


@pytest.mark.parametrize("game", ["middle_kingdom", "ming_dynasty", "emperors_choice"])
def test_these_heuristics_read_only_what_their_seat_may_know(game):
    """Every decision of 4-player heuristic self-play, each seat's games played in resampled
    copies: not one action changes, so no game differs and the resample is worth nothing."""
    h = honesty(game, 4, 5, 1)
    assert h.decisions > 300 and h.games == 20
    assert (h.changed, h.differ, h.worth) == (0.0, 0.0, 0.0)


def test_eternal_dynastys_heuristic_reads_hidden_information_in_its_tries():
    """docs/games/eternal_dynasty.md, "What the heuristic reads": its tries complete effects on
    the true state, so a few of its actions (0.2% at 3,000 deals) change with the resample and
    about one game in five differs (3,000 deals: 0.216). On 20 deals (about 6,500 decisions)
    some change, far fewer than 2%, and at least one of the 80 resampled games differs."""
    h = honesty("eternal_dynasty", 4, 20, 1)
    assert h.decisions > 5000 and 0 < h.changed < 0.02 and h.differ > 0, h
    assert h == honesty("eternal_dynasty", 4, 20, 1)


def test_honest_is_the_heuristic_in_a_resampled_copy_the_hint_of_a_hint_model():
    """``sim.eternal_dynasty.heuristic:honest`` resamples the mover's hidden information and
    plays the contract's heuristic there, both from its RNG, as agents.policy.seat_hint makes
    a hint model's hint; it leaves the state as it was."""
    from sim.eternal_dynasty.heuristic import honest

    spec = get_game("eternal_dynasty")
    k = spec.kernels
    s = k.new_state(np.int64(3), np.int64(4), spec.encode_options({}))
    mask = np.zeros(spec.num_actions, np.bool_)
    play = new_rng(np.int64(4))
    for step in range(120):
        k.legal_mask(s, mask)
        r = new_rng(np.int64(100 + step))
        work, r2, before = s.copy(), r.copy(), s.copy()
        k.determinize(work, np.int64(s[H_CURRENT]), r2)
        a = honest(s, mask, r)
        assert a == k.heuristic(work, r2) and mask[a] and np.array_equal(s, before)
        assert np.array_equal(r, r2)
        k.apply(s, k.heuristic(s, play))


def test_the_command_prints_a_row_per_game_and_refuses_bad_input():
    cmd = [sys.executable, "-m", "experiments.cli", "bench", "heuristic_honesty"]
    out = subprocess.run(
        [*cmd, "--game", "middle_kingdom", "--deals", "2", "--players", "2"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out[0].startswith("game | players | decisions | changed when resampled")
    assert out[1].startswith("middle_kingdom | 2 | ") and "| 4 | 0.000 | +0.0000" in out[1]
    for bad, says in (
        (["--game", "nope"], "unknown game 'nope'"),
        (
            ["--game", "ming_dynasty", "--players", "9"],
            "ming_dynasty: 9 players is not allowed (allowed: 2, 3, 4)",
        ),
        (["--deals", "1"], "--deals must be at least 2"),
    ):
        r = subprocess.run([*cmd, *bad], capture_output=True, text=True)
        assert r.returncode == 2 and says in r.stderr, (bad, r.stderr)
