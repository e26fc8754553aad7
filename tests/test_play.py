"""`dynasty play` driven through a pseudo-terminal (pexpect) as a person would: scripted
answers, wrong ones among them, a whole game of each game against agents, Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from pathlib import Path

import pexpect
import pytest

from sim import Game

ROOT = Path(__file__).resolve().parent.parent
PROMPT = re.compile(r"seat (\d+), your move \[1-(\d+) or a name\]: ")
LEGAL = re.compile(r"^\s+(\d+)\) (.+?)\s*$", re.M)

# (game, players, seat, opponents, options)
GAMES = [
    ("goofspiel", 3, 1, "mcts:20,random", ["num_cards=6"]),
    ("middle_kingdom", 2, 1, "heuristic", []),
    ("ming_dynasty", 2, 0, "heuristic", []),
    ("emperors_choice", 3, 2, "heuristic,random", []),
    ("eternal_dynasty", 2, 1, "heuristic", []),
]


def spawn(*args: str, timeout: float = 300) -> pexpect.spawn:
    env = dict(
        os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
    )
    return pexpect.spawn(
        sys.executable,
        ["-m", "experiments.cli", *args],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=timeout,
        dimensions=(50, 200),
        # Ctrl-C reaches the program as at a terminal, even where the tests were started in the
        # background of a shell without job control (which ignores SIGINT for its children)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def answer_until_done(child: pexpect.spawn, max_turns: int = 2000) -> tuple[int, list[str]]:
    """Answer every prompt: the first with two wrong answers, then alternately a number and a
    name of a legal action; returns (human turns, re-ask messages seen)."""
    turns, reasks = 0, []
    while turns < max_turns:
        i = child.expect([PROMPT, r"replay saved in", pexpect.EOF])
        if i != 0:
            return turns, reasks
        legal = LEGAL.findall(child.before)
        n = int(child.match.group(2))
        assert legal and int(legal[-1][0]) == n, child.before[-500:]
        if turns == 0:
            for wrong in ("0", "no such move"):
                child.sendline(wrong)
                child.expect(PROMPT)
                reasks.append(child.before)
        turns += 1
        number, name = legal[(turns * 7) % n]
        child.sendline(name.upper() if turns % 2 else number)  # names are case-insensitive
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game,players,seat,opponents,options", GAMES, ids=[g[0] for g in GAMES])
def test_play_a_whole_game_from_scripted_input(tmp_path, game, players, seat, opponents, options):
    out = tmp_path / "game.json"
    args = [
        "play",
        game,
        "--players",
        str(players),
        "--seat",
        str(seat),
        "--opponents",
        opponents,
        "--seed",
        "11",
        "--out",
        str(out),
    ]
    for o in options:
        args += ["--option", o]
    child = spawn(*args)
    turns, reasks = answer_until_done(child)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert turns > 0
    assert all("not a legal action" in r and "Legal: 1)" in r for r in reasks) and len(reasks) == 2
    rep = json.loads(out.read_text())
    assert rep["play"]["human_seat"] == seat and rep["play"]["agents"][seat] == "you"
    assert sum(d["player"] == seat for d in rep["decisions"]) == turns
    g = Game.from_replay(rep)  # the saved game re-plays, decisions and final scores checked
    assert g.is_over and rep["scores"] == g.scores


def test_hidden_information_only_for_the_humans_seat(tmp_path):
    child = spawn(
        "play",
        "goofspiel",
        "--players",
        "3",
        "--seat",
        "1",
        "--opponents",
        "random",
        "--seed",
        "3",
        "--option",
        "num_cards=4",
        "--out",
        str(tmp_path / "g.json"),
    )
    child.expect(PROMPT)
    before = child.before
    # seat 0 bid before the human: its card is not named; the human's own hand is listed
    assert "seat 0 (random): makes a secret choice" in before
    assert re.search(r"seat 0 \(random\): bid \d", before) is None
    child.sendline("1")
    child.expect(PROMPT)
    # seat 2 bid last, so the round was revealed: its bid is named
    assert re.search(r"seat 2 \(random\): bid \d", child.before)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()


def test_ctrl_c_saves_the_game_so_far(tmp_path):
    out = tmp_path / "partial.json"
    child = spawn(
        "play",
        "middle_kingdom",
        "--players",
        "3",
        "--seat",
        "0",
        "--opponents",
        "heuristic",
        "--seed",
        "4",
        "--out",
        str(out),
    )
    for _ in range(3):
        child.expect(PROMPT)
        child.sendline("1")
    child.expect(PROMPT)
    child.sendintr()
    child.expect("the game so far is saved in")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    rep = json.loads(out.read_text())
    assert "scores" not in rep and sum(d["player"] == 0 for d in rep["decisions"]) == 3
    g = Game.from_replay(rep)  # a partial replay re-plays too
    assert not g.is_over and g.current_player == 0


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--seat", "4"], "--seat: 4 is not a seat"),
        (["--opponents", "nobody"], "--opponents"),
        (["--players", "9"], "9 players is not allowed"),
        (["--option", "num_cards"], "expected NAME=VALUE"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, args, needle):
    import io
    from contextlib import redirect_stderr

    from experiments.cli import main

    err = io.StringIO()
    with redirect_stderr(err):
        rc = main(["play", "goofspiel", "--players", "2", *args, "--out", str(tmp_path / "x.json")])
    assert rc == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], lines
