"""dynasty fuzz: games of every kind with every invariant after every decision; the first
broken invariant stops the run and writes the replay that breaks it.

``test_fuzz_games_keep_every_invariant`` is the CI run: FUZZ_GAMES games per game (player
counts and every rule option drawn per game, random, heuristic and mixed seats and a share
of short-budget MCTS games).  Larger runs and their rates: docs/reliability.md.
"""

import json

import numba as nb
import numpy as np
import pytest

from experiments.cli import main
from experiments.fuzz import fuzz as F
from sim import Game
from sim.core import H_PLY
from sim.invariants import CHECK_SIG, Invariants, invariants_of
from sim.registry import game_names, get_game

# games per game in CI: 10,000 each (from 0.2 s for Goofspiel to about 30 s for Eternal
# Dynasty, whose games run to thousands of decisions, on one core of the 2-core machine when
# it is not shared; docs/reliability.md)
FUZZ_GAMES = {
    "goofspiel": 10_000,
    "middle_kingdom": 10_000,
    "ming_dynasty": 10_000,
    "emperors_choice": 10_000,
    "eternal_dynasty": 10_000,
}


@pytest.mark.parametrize("game", game_names())
def test_fuzz_games_keep_every_invariant(game, tmp_path):
    r = F.fuzz(game, FUZZ_GAMES[game], seed=18, out=tmp_path, chunk=1000)
    assert r.failure is None, r.failure.line(game)
    assert r.games == FUZZ_GAMES[game]
    assert sorted(r.by_players) == list(get_game(game).players())
    assert not list(tmp_path.iterdir())


@nb.njit(CHECK_SIG, cache=True)
def breaks_after_seven(s, before, action, mask, memo, stats):
    """A planted bug: any 3-player game breaks 'E_SEVEN' after its 7th decision."""
    memo[0] += 1
    if s[2] == 3 and s[H_PLY] == 7:
        return 3
    return 0


PLANTED = Invariants(breaks_after_seven, 1, 1, ("", "E_ONE", "E_TWO", "E_SEVEN"))


def first_planted(seed, games):
    """Where the planted bug must show: the first drawn 3-player game with 7 decisions or more."""
    d = F.Sampler(get_game("goofspiel"), None, seed, F.DEFAULT_MCTS_SHARE).draw(0, games)
    for g in range(games):
        nc = int(d.codes[g, 0])
        if d.players[g] == 3 and (nc - 1) * 3 >= 7:
            return g
    raise AssertionError("no such game drawn")


def test_the_first_broken_invariant_stops_the_run_and_writes_its_replay(tmp_path):
    r = F.fuzz("goofspiel", 500, seed=4, out=tmp_path, invariants=PLANTED)
    f = r.failure
    assert f is not None and f.game_index == first_planted(4, 500) and r.games == f.game_index
    assert (f.players, f.decision, f.code, f.invariant) == (3, 7, 3, "E_SEVEN")
    assert f.replay == tmp_path / f"fuzz-goofspiel-{f.game_index}.json"
    rep = json.loads(f.replay.read_text())
    assert rep["fuzz"]["invariant"] == "E_SEVEN" and len(rep["decisions"]) == 7
    # the replay re-plays (the game's real invariants hold) and the planted check breaks on it again
    g = Game.from_replay(f.replay, game="goofspiel")
    assert g.seed == f.seed and g.options == f.options
    assert F.recheck(f.replay, PLANTED) == (7, 3)
    assert F.recheck(f.replay) is None
    # the same seed finds the same game
    again = F.fuzz("goofspiel", 500, seed=4, out=tmp_path / "again", invariants=PLANTED).failure
    assert (again.game_index, again.seed, again.options, again.agents) == (
        f.game_index,
        f.seed,
        f.options,
        f.agents,
    )


def test_cli_exits_non_zero_with_one_line_naming_the_replay(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(F, "invariants_of", lambda game: PLANTED)
    assert (
        main(
            [
                "fuzz",
                "goofspiel",
                "--games",
                "300",
                "--seed",
                "4",
                "--out",
                str(tmp_path),
                "--quiet",
            ]
        )
        == 1
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1
        and "E_SEVEN" in err[0]
        and f"fuzz-goofspiel-{first_planted(4, 300)}.json" in err[0]
    )
    monkeypatch.setattr(F, "invariants_of", invariants_of)
    assert (
        main(
            ["fuzz", "goofspiel", "--games", "300", "--players", "2", "--out", str(tmp_path / "ok")]
        )
        == 0
    )
    out = capsys.readouterr()
    assert "300 games, every invariant held" in out.out and "2 players: 300" in out.out
    assert main(["fuzz", "goofspiel", "--games", "3", "--players", "7"]) == 2
    assert "--players: goofspiel is played by 2, 3, 4 players, not 7" in capsys.readouterr().err
    assert main(["fuzz", "chess", "--games", "3"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_draws_cover_every_option_value_and_respect_player_constraints():
    for game in ("middle_kingdom", "eternal_dynasty", "ming_dynasty"):
        spec = get_game(game)
        s = F.Sampler(spec, None, 1, 0.05)
        d = s.draw(0, 4000)
        for i, o in enumerate(spec.options):
            assert len(np.unique(d.codes[:, i])) == len(o.choices), (game, o.name)
        for g in range(len(d.seeds)):
            assert not spec.player_constraints(int(d.players[g]), s.decode(d.codes[g]))
        # random, heuristic, mixed seats and a share of games with one MCTS seat
        k = np.where(np.arange(F.MAX_SEATS)[None, :] < d.players[:, None], d.kinds, -1)
        mcts = (k == F.MCTS).sum(axis=1)
        assert mcts.max() == 1 and 0.03 < (mcts == 1).mean() < 0.07
        seats = [{int(x) for x in row if x >= 0} for row in k[mcts == 0]]
        assert {frozenset(x) for x in seats} >= {frozenset({0}), frozenset({1}), frozenset({0, 1})}
    # a player count given: every game has it, and options that need another are never drawn
    s = F.Sampler(get_game("middle_kingdom"), 4, 2, 0.0)
    d = s.draw(0, 500)
    assert (d.players == 4).all() and "advanced" not in {s.decode(c)["variant"] for c in d.codes}
    assert np.array_equal(
        s.draw(3, 50).seeds, F.Sampler(get_game("middle_kingdom"), 4, 2, 0.0).draw(3, 50).seeds
    )
