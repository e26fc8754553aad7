"""``dynasty bench search_by_decision`` and the games' ``decision_kind``: where a search's
strength over the heuristic lies, by kind of decision."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from experiments.bench.search_by_decision import (
    EVERY,
    OTHER,
    agent_of,
    by_decision,
    main,
    paired_game,
)
from sim import get_game
from sim.core import new_rng

SEED_GAMES = {  # a kind each game's 4-player (Emperor's Choice: 3) heuristic self-play asks for
    "middle_kingdom": (4, "bid"),
    "ming_dynasty": (4, "place"),
    "emperors_choice": (3, "bid"),
    "eternal_dynasty": (4, "action"),
}


@pytest.mark.parametrize("game", sorted(SEED_GAMES))
def test_every_decision_of_a_seed_game_has_a_kind_named_by_the_engine(game):
    """Each decision of a heuristic self-play game gets a name from the engine's own constants
    (no '?' or number), the game's main kind among them, and several kinds."""
    players, main = SEED_GAMES[game]
    spec = get_game(game)
    k = spec.kernels
    s = k.new_state(np.int64(3), np.int64(players), spec.encode_options({}))
    rng = new_rng(np.int64(1))
    seen = set()
    while not k.is_terminal(s):
        kind = spec.decision_kind(s)
        assert isinstance(kind, str) and kind.isidentifier() and kind.islower(), kind
        seen.add(kind)
        k.apply(s, k.heuristic(s, rng))
    assert main in seen and len(seen) >= 3, seen


def test_eternal_dynastys_kind_is_its_top_task():
    from experiments.bench.eternal_dynasty_heuristic import kind_names
    from sim.eternal_dynasty import layout as L
    from sim.eternal_dynasty import rules as R

    spec = get_game("eternal_dynasty")
    k = spec.kernels
    s = k.new_state(np.int64(5), np.int64(3), spec.encode_options({}))
    rng = new_rng(np.int64(2))
    names = kind_names()
    while not k.is_terminal(s):
        assert spec.decision_kind(s) == names[int(s[R.top(s)])]
        assert s[L.G_SP] > 0
        k.apply(s, k.heuristic(s, rng))


def test_a_seat_that_never_searches_plays_the_all_heuristic_game():
    """With no kind searched the game is heuristic self-play from the same per-seat streams: the
    seat's win share is that of the plain game, and its decisions with a choice are counted by
    kind."""
    spec = get_game("middle_kingdom")
    agent = agent_of(spec, "mcts:10", 4)
    counts: dict[str, int] = {}
    wins = [paired_game(spec, 77, 4, seat, lambda kind: False, agent, counts) for seat in range(4)]
    assert [n for _, n in wins] == [0, 0, 0, 0]
    assert sum(w for w, _ in wins) == pytest.approx(1.0)  # the same game seen from each seat
    assert "bid" in counts and sum(counts.values()) > 0


def test_rows_are_a_function_of_the_arguments_and_pool_the_rare_kinds():
    rows = by_decision("middle_kingdom", "mcts:10", 4, 12, 3, 0.05, progress=False)
    assert rows == by_decision("middle_kingdom", "mcts:10", 4, 12, 3, 0.05, progress=False)
    assert rows[-1].kind == EVERY and rows[-1].share == 1.0
    assert sum(r.share for r in rows[:-1]) == pytest.approx(1.0)
    assert all(r.share >= 0.05 for r in rows[:-1] if r.kind != OTHER)
    shares = [r.share for r in rows[:-1] if r.kind != OTHER]
    assert shares == sorted(shares, reverse=True)
    for r in rows:
        assert r.worth == pytest.approx(r.searched - r.plain) and r.low <= r.worth <= r.high
        assert r.plain == rows[0].plain  # one set of all-heuristic games for every row
    assert rows[-1].searches > max(r.searches for r in rows[:-1]) > 0
    # the search changes games: a 10-simulation search is not the heuristic
    assert any(r.worth != 0 for r in rows)


def test_with_no_kind_of_its_own_the_pooled_row_is_the_every_kind_row():
    """At --min-share 1 no kind has a row: "other" pools them all and searches where "every
    kind" does, so the two rows play the same games."""
    rows = by_decision("middle_kingdom", "mcts:10", 2, 10, 4, 1.0, progress=False)
    assert [r.kind for r in rows] == [OTHER, EVERY]
    other, every = rows
    assert (other.searches, other.searched) == (every.searches, every.searched)


def test_asked_kinds_get_the_same_rows_and_workers_change_no_figure():
    """--kinds keeps the rows of those kinds and the every-kind row, each as it is without
    --kinds; two Ray workers give the same rows as this process alone (the deals are played in
    chunks, each from its own seeds); a kind the games never ask for is refused with the kinds
    they do ask for."""
    args = ("middle_kingdom", "mcts:10", 4, 8, 5, 0.05)
    rows = by_decision(*args, progress=False)
    asked = by_decision(*args, progress=False, kinds=["pick", "bid"])
    assert [r.kind for r in asked] == ["bid", "pick", EVERY]
    assert asked == [r for r in rows if r.kind in ("bid", "pick", EVERY)]
    assert by_decision(*args, progress=False, workers=2) == rows
    with pytest.raises(ValueError, match=r"no decision of kind 'nope' .*\(kinds: bid, "):
        by_decision(*args, progress=False, kinds=["bid", "nope"])


def test_a_learned_policy_takes_the_seats_decisions_of_a_kind():
    """--agent policy:<model>: the shipped policy decides where a search would; its rows are a
    function of the arguments, and the policy is not the heuristic (some game changes)."""
    rows = by_decision("middle_kingdom", "policy:middle_kingdom", 4, 6, 2, 0.05, progress=False)
    assert rows == by_decision(
        "middle_kingdom", "policy:middle_kingdom", 4, 6, 2, 0.05, progress=False
    )
    assert rows[-1].kind == EVERY and rows[-1].searches > 0
    assert any(r.worth != 0 for r in rows)


def test_the_command_prints_its_table_and_refuses_bad_input(capsys):
    cmd = [sys.executable, "-m", "experiments.cli", "bench", "search_by_decision"]
    out = subprocess.run(
        [*cmd, "--game", "middle_kingdom", "--deals", "4", "--search", "mcts:5"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out[0].startswith(
        "game | kind of decision | share of decisions | decisions by the agent"
    )
    assert out[1].startswith("middle_kingdom | bid | ")
    assert out[-1].startswith(f"middle_kingdom | {EVERY} | 1.000 | ")
    for bad, says in (
        (["--game", "nope"], "unknown game 'nope'"),
        (["--game", "goofspiel"], "goofspiel names no kinds of decision"),
        (["--game", "ming_dynasty", "--players", "9"], "ming_dynasty: 9 players is not allowed"),
        (["--agent", "mcts:10,reuse"], "plays whole games in the arena only"),
        (["--agent", "sim.eternal_dynasty.heuristic:honest"], "a built-in agent is needed here"),
        (["--agent", "nope"], "unknown agent 'nope'"),
        (["--agent", "policy:middle_kingdom"], "a model of middle_kingdom, not of eternal_dynasty"),
        (["--deals", "1"], "--deals must be at least 2"),
        (["--min-share", "0"], "--min-share in (0, 1]"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--kinds", " , "], "--kinds names no kind"),
        (["--game", "middle_kingdom", "--deals", "2", "--kinds", "vote"], "kind 'vote'"),
    ):  # the command's own main, in this process (the CLI hands it its arguments)
        with pytest.raises(SystemExit) as stop:
            main(bad)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and says in err.splitlines()[-1], (bad, err)
