"""The gauntlet: lineups of one focus agent and a combination of baselines, balanced over seats and
combinations for 2-5 players; config errors in one line; a user agent against four baselines at 2
and 4 players through `dynasty tournament`, stopped, resumed and reported; and anchors from an
earlier tournament's ratings.csv held exactly, the newcomer's interval finite."""

import itertools
import json
import math
import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from experiments.cli import main
from experiments.run.config import ConfigError
from experiments.run.plan import rotations_of
from experiments.tournament.tournament import (
    lineup_count,
    load_tournament,
    run_tournament,
    schedule,
    tournament_from_dict,
)
from tests.toml_files import write_toml

FOCUS = "agents.examples:OnePlyEvaluate"  # a Python agent: the slow path of user agents
BASELINES = ["random", "heuristic", "mcts:10", "agents.examples:lowest_legal"]


def config(tmp_path, **kw):
    d = {
        "game": "goofspiel",
        "players": [2, 4],
        "deals": 8,
        "seed": 7,
        "output": str(tmp_path / "g"),
        "pool": [FOCUS, *BASELINES],
        "schedule": "gauntlet",
        "focus": [FOCUS],
        "round_deals": 4,
        "options": {"num_cards": 5},
    }
    d.update(kw)
    return {k: v for k, v in d.items() if v is not None}


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("k, focus", [(5, (0,)), (6, (0, 3)), (7, (2, 4, 6))])
def test_gauntlet_schedule_is_balanced(n, k, focus):
    lineups = schedule(k, n, "gauntlet", focus)
    baselines = [a for a in range(k) if a not in focus]
    combos = list(itertools.combinations(baselines, n - 1))
    assert len(lineups) == lineup_count(k, n, "gauntlet", len(focus)) == len(focus) * len(combos)
    assert len(set(lineups)) == len(lineups)
    seats, against, base_seats, meets = Counter(), Counter(), Counter(), Counter()
    for lu in lineups:
        # exactly one focus agent per lineup, with n-1 distinct baselines
        assert len(set(lu)) == n and sum(a in focus for a in lu) == 1
        f = next(a for a in lu if a in focus)
        others = tuple(sorted(a for a in lu if a != f))
        for rot in rotations_of(lu, True):  # what the run plays on every deal
            p = rot.index(f)
            seats[f, p] += 1
            against[f, others, p] += 1
            for q, b in enumerate(rot):
                if b != f:
                    base_seats[b, q] += 1
                    meets[f, b] += 1
    # every focus agent in every seat equally often: once per baseline combination
    assert seats == {(f, p): len(combos) for f in focus for p in range(n)}
    # against every combination of baselines equally often, from every seat
    assert against == {(f, c, p): 1 for f in focus for c in combos for p in range(n)}
    # every baseline in every seat equally often, and every focus agent meets every baseline
    # equally often (in C(B-1, n-2) lineups, n seatings each)
    assert len(base_seats) == len(baselines) * n and len(set(base_seats.values())) == 1
    per_pair = math.comb(len(baselines) - 1, n - 2) * n
    assert meets == {(f, b): per_pair for f in focus for b in baselines}


def test_gauntlet_lineups_and_identity(tmp_path):
    t = tournament_from_dict(config(tmp_path), "g.toml")
    assert t.focus == (FOCUS,) and t.anchors == {}
    assert [len(t.lineups_of(n)) for n in (2, 4)] == [4, 4]
    for x in t.lineups:
        assert x.labels[0] == FOCUS and FOCUS not in x.labels[1:]
        assert x.config.seats == "rotate" and x.config.games == 8 * x.players
    assert t.identity()["focus"] == [FOCUS]
    # anchors change the report only: the same games, the same folder
    anchored = tournament_from_dict(config(tmp_path, anchors={"random": 0.0}), "g.toml")
    assert anchored.identity() == t.identity() and anchored.anchors == {
        2: {"random": 0.0},
        4: {"random": 0.0},
    }
    # other schedules keep their identity (existing tournament folders still resume)
    plain = tournament_from_dict(config(tmp_path, schedule=None, focus=None), "g.toml")
    assert "focus" not in plain.identity() and plain.focus == ()


@pytest.mark.parametrize(
    "change, msg",
    [
        ({"focus": None}, 'focus: schedule = "gauntlet" needs focus = [the pool agents to rate]'),
        ({"schedule": None}, 'focus: only a gauntlet has focus agents (schedule = "gauntlet")'),
        ({"focus": ["alphago"]}, "focus[0]: 'alphago' is not in the pool (pool: "),
        ({"focus": FOCUS}, "focus: expected a list of names of pool agents"),
        ({"focus": [FOCUS, FOCUS]}, f"focus[1]: {FOCUS!r} is listed twice"),
        (
            {"pool": [FOCUS, "random", "heuristic"]},
            "players: a gauntlet of 4 players needs at least 3 baselines (the pool has 2",
        ),
        ({"anchors": {"alphago": 1.0}}, "anchors: 'alphago' is not in the pool (pool: "),
        ({"anchors": {FOCUS: 1.0}}, f"anchors: {FOCUS!r} is a focus agent; the gauntlet rates it"),
        ({"anchors": {"random": "low"}}, "anchors: 'random': expected a rating (a number)"),
        ({"anchors": 3}, "anchors: expected a ratings CSV"),
        ({"anchors": "no_such_dir/ratings.csv"}, "anchors: cannot read no_such_dir/ratings.csv"),
        (
            {"schedule": None, "focus": None, "anchors": dict.fromkeys([FOCUS, *BASELINES], 0)},
            "anchors: every agent of the pool is anchored: none is left to rate",
        ),
    ],
)
def test_config_errors_name_the_field(tmp_path, change, msg, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="^" + re.escape(f"g.toml: {msg}")):
        tournament_from_dict(config(tmp_path, **change), "g.toml")
    path = write_toml(tmp_path / "bad.toml", config(tmp_path, **change))
    assert main(["tournament", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"dynasty: error: {path}: {msg[:20]}")


def test_anchor_csv_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("name,elo\nrandom,0\n")
    with pytest.raises(ConfigError, match=r"^g\.toml: anchors: .*bad\.csv has no rows with col"):
        tournament_from_dict(config(tmp_path, anchors=str(bad)), "g.toml")
    other = tmp_path / "other.csv"  # rates the baselines at 2 players only
    other.write_text("players,agent,rating\n2,random,-100\n2,heuristic,abc\n")
    with pytest.raises(ConfigError, match=r"other\.csv line 3: rating 'abc' is not a number"):
        tournament_from_dict(config(tmp_path, anchors=str(other)), "g.toml")
    other.write_text("players,agent,rating\n2,random,-100\n2,mcts:10,50\n")
    with pytest.raises(ConfigError, match=r"other\.csv rates none of random, .* at 4 players"):
        tournament_from_dict(config(tmp_path, anchors=str(other)), "g.toml")
    t = tournament_from_dict(config(tmp_path, anchors=str(other), players=2), "g.toml")
    assert t.anchors == {2: {"random": -100.0, "mcts:10": 50.0}}


# --------------------------------------------------------------------------- with Ray


RAY_WORKERS = 1  # the module's Ray session (tests/conftest.py, ray_session)


def test_gauntlet_runs_resumes_and_reports_on_anchors(ray_session, tmp_path, capsys):
    from experiments.analysis.results import load_results
    from experiments.tournament.report import tournament_tables

    # an earlier tournament of the baselines gives the anchor table
    ladder = write_toml(
        tmp_path / "ladder.toml",
        config(tmp_path, schedule=None, focus=None, pool=BASELINES, output=str(tmp_path / "l")),
    )
    assert main(["tournament", str(ladder), "--workers", "1", "--quiet"]) == 0
    table = pd.read_csv(tmp_path / "l" / "report" / "ratings.csv")
    assert set(table["players"]) == {2, 4} and len(table) == 8 and not table["anchored"].any()

    path = write_toml(
        tmp_path / "g.toml", config(tmp_path, anchors=str(tmp_path / "l/report/ratings.csv"))
    )
    t = load_tournament(path)
    s = run_tournament(t, workers=1, progress=False, stop_after_lineups=3)
    # rounds of 4 deals: three lineups (2 players) played the first round's 8 games each
    assert s.status == "interrupted" and s.games == 3 * 4 * 2
    capsys.readouterr()
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "8 lineups, 192 games in all (168 played now)" in out  # 4 x 16 + 4 x 32
    m = json.loads((tmp_path / "g" / "tournament.json").read_text())
    assert m["complete"] and [x["status"] for x in m["sessions"]] == ["interrupted", "complete"]

    # the games played: the focus agent in every seat, against every combination, equally often
    rows = pd.concat(
        [load_results(x.folder).assign(lineup=x.index, players=x.players) for x in t.lineups]
    )
    assert not rows.duplicated(["lineup", "game_index", "seat"]).any()
    focus = rows[rows["agent"] == FOCUS]
    for n in (2, 4):
        per_seat = focus[focus["players"] == n].groupby("seat").size()
        assert list(per_seat.index) == list(range(n))
        assert set(per_seat) == {math.comb(4, n - 1) * 8}  # every combination, every deal
        per_lineup = focus[focus["players"] == n].groupby(["lineup", "seat"]).size()
        assert set(per_lineup) == {8}  # every lineup: each seat once per deal
    assert rows.groupby("lineup").size().to_dict() == {x.index: 8 * x.players**2 for x in t.lineups}

    # the report: the baselines keep the anchor table's ratings exactly; the newcomer's interval
    got = pd.read_csv(tmp_path / "g" / "report" / "ratings.csv")
    for n in (2, 4):
        old = table[table["players"] == n].set_index("agent")["rating"]
        new = got[got["players"] == n].set_index("agent")
        for b in BASELINES:
            assert new.loc[b, "rating"] == old[b] and new.loc[b, "anchored"]
            assert new.loc[b, "ci_low"] == new.loc[b, "ci_high"] == old[b]
        f = new.loc[FOCUS]
        assert not f["anchored"] and np.isfinite([f["ci_low"], f["ci_high"]]).all()
        assert f["ci_low"] < f["rating"] < f["ci_high"]
    md = (tmp_path / "g" / "report" / "report.md").read_text()
    assert "**Focus:** agents.examples:OnePlyEvaluate" in md and "**Anchors:** " in md
    assert md.count(f"**{FOCUS}** (focus): rating ") == 2 and "95% CI" in md
    assert md.count("| anchored |") == 8 and "held at their given ratings" in md
    assert "a gauntlet's baselines do not all meet" in md

    # without anchors: the same games, rated on the pool's own scale
    import dataclasses

    free = tournament_tables(dataclasses.replace(t, anchors={}), bootstrap=200)
    for n in (2, 4):
        r = free[n]["ratings"]
        assert not r.fixed and abs(r.rating.mean()) < 1e-6
        i = r.agents.index(FOCUS)
        assert r.low[i] < r.rating[i] < r.high[i]
    # nothing left to play; --anchor does not mix with an anchor table
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    assert "(0 played now)" in capsys.readouterr().out
    assert main(["tournament", str(path), "--report-only", "--anchor", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--anchor: the anchors of" in err[0]
