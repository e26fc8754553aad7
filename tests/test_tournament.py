"""dynasty tournament: the balanced schedule, config errors, a run that is stopped and resumed,
results every lineup's `dynasty report` reads, and ratings with known answers on real games
(copies equal, a Goofspiel ladder's order recovered)."""

import itertools
import json
import math
from collections import Counter

import numpy as np
import pytest

from experiments.cli import main
from experiments.run.config import ConfigError
from experiments.tournament.tournament import (
    lineup_count,
    load_tournament,
    run_tournament,
    schedule,
    tournament_from_dict,
)
from tests.toml_files import write_toml


def base(tmp_path, **kw):
    d = {
        "game": "goofspiel",
        "players": [2, 3],
        "deals": 30,
        "seed": 11,
        "output": str(tmp_path / "t"),
        "pool": ["random", "heuristic", {"kind": "heuristic", "label": "heuristic-b"}],
        "options": {"num_cards": 5},
    }
    d.update(kw)
    return d


@pytest.mark.parametrize("kind", ["combinations", "permutations"])
@pytest.mark.parametrize("k, n", [(4, 2), (5, 3), (5, 4), (6, 5), (5, 5)])
def test_schedule_is_balanced(kind, k, n):
    lineups = schedule(k, n, kind)
    assert len(lineups) == lineup_count(k, n, kind) and len(set(lineups)) == len(lineups)
    seats, pairs, follows = Counter(), Counter(), Counter()
    for lu in lineups:
        assert len(set(lu)) == n
        for r in range(n):  # the run plays every cyclic rotation of the lineup on each deal
            rot = [lu[(p + r) % n] for p in range(n)]
            for p, a in enumerate(rot):
                seats[a, p] += 1
            for a, b in itertools.permutations(rot, 2):
                pairs[a, b] += 1
            for p in range(n):
                follows[rot[p], rot[(p + 1) % n]] += 1
    assert (
        len(set(seats.values())) == 1 and len(seats) == k * n
    )  # every agent, every seat, equally often
    # every opponent equally often
    assert len(set(pairs.values())) == 1 and len(pairs) == k * (k - 1)
    if kind == "permutations" or n == 2:
        # circular orders: every agent follows every other equally often
        assert len(set(follows.values())) == 1 and len(follows) == k * (k - 1)


@pytest.mark.parametrize(
    "change, msg",
    [
        ({"pool": ["random", "alphazero"]}, "pool[1]: unknown agent 'alphazero'"),
        ({"pool": ["random", "random"]}, "pool[1]: 'random' is in the pool twice"),
        (
            {"players": [2, 4], "pool": ["random", "heuristic", "mcts:10"]},
            "players: 4 players need a pool of at least 4",
        ),
        ({"players": 7}, "players: goofspiel: 7 players is not allowed"),
        ({"schedule": "swiss"}, "schedule: 'swiss' is not allowed"),
        ({"deals": 0}, "deals: expected a positive integer"),
        ({"round_deals": 0}, "round_deals: expected a positive integer"),
        ({"rounds": 3}, "unknown key 'rounds'"),
        (
            {"pool": ["random", "no_such_module_xyz:agent"]},
            "pool[1]: user agent 'no_such_module_xyz:agent': module",
        ),
    ],
)
def test_config_errors_name_the_field(tmp_path, change, msg, capsys):
    import re

    with pytest.raises(ConfigError, match="^" + re.escape(f"t.toml: {msg}")):
        tournament_from_dict(base(tmp_path, **change), "t.toml")
    path = write_toml(tmp_path / "bad.toml", base(tmp_path, **change))
    assert main(["tournament", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"dynasty: error: {path}: ")


def test_lineup_runs_are_ordinary_configs(tmp_path):
    t = tournament_from_dict(base(tmp_path), "t.toml")
    assert [x.players for x in t.lineups] == [2, 2, 2, 3]
    for x in t.lineups:
        assert (
            x.config.seats == "rotate" and x.config.seed == 11 and x.config.games == 30 * x.players
        )
        assert x.folder.parent == tmp_path / "t" / "lineups"
    assert t.pool == ("random", "heuristic", "heuristic-b")


# --------------------------------------------------------------------------- with Ray


RAY_WORKERS = 1  # the module's Ray session (tests/conftest.py, ray_session)


def test_tournament_resumes_reports_and_rates(ray_session, tmp_path, capsys):
    from experiments.analysis.report import make_report
    from experiments.analysis.results import load_results
    from experiments.run import store
    from experiments.tournament.report import tournament_tables

    path = write_toml(tmp_path / "t.toml", base(tmp_path))
    t = load_tournament(path)
    s = run_tournament(t, workers=1, progress=False, stop_after_lineups=2)
    # rounds of 8 deals (a quarter of 30, rounded up): the first two lineups played 8 deals each
    assert s.status == "interrupted" and s.games == 2 * 8 * 2 and t.round_deals == 8
    assert main(["tournament", str(path), "--workers", "1", "--quiet", "--anchor", "random"]) == 0
    assert "4 lineups, 270 games in all (238 played now)" in capsys.readouterr().out
    m = json.loads((tmp_path / "t" / "tournament.json").read_text())
    assert m["complete"] and [x["status"] for x in m["sessions"]] == ["interrupted", "complete"]
    for x in t.lineups:
        df = load_results(x.folder)
        assert (
            len(df) == x.config.games * x.players
            and not df.duplicated(["game_index", "seat"]).any()
        )
        assert (df["decisions"] > 0).all() and (df["agent_ms"] >= 0).all()
    from experiments.run.config import load_config

    for x in t.lineups:  # each lineup keeps its run config, as dynasty run does
        assert load_config(x.folder / "config.toml").identity() == x.config.identity()
    paths = make_report(t.lineups[-1].folder)  # an ordinary results folder: the run report reads it
    assert paths["markdown"].exists()
    assert (tmp_path / "t" / "report" / "report.md").exists()
    md = (tmp_path / "t" / "report" / "report.md").read_text()
    assert "## 2 players: ratings" in md and "## 3 players: ratings" in md and "ms / decision" in md
    from experiments.analysis.ratings import alpharank_missing

    if alpharank_missing() is None:
        # OpenSpiel (the dev or alpharank extra): alpha-Rank with its plot
        for n in (2, 3):
            assert f"### {n} players: alpha-Rank" in md and f"(alpharank_{n}p.png)" in md
            assert (tmp_path / "t" / "report" / f"alpharank_{n}p.png").stat().st_size > 0
    else:
        assert "alpha-Rank needs OpenSpiel" in md and "alpharank_2p.png" not in md
    # a game of each lineup (each agent pair at 2 players) linked to its viewer page, which exists
    watch = md.split("## Games to watch: a game of each lineup")[1].split("## About this report")[0]
    assert watch.count("- [lineup ") == len(t.lineups)
    for x in t.lineups:
        page = tmp_path / "t" / "report" / "viewer" / f"lineup-{x.index:03d}-game-000000000.html"
        assert page.exists() and f"(viewer/{page.name})" in watch and " / ".join(x.labels) in watch

    tabs = tournament_tables(t, bootstrap=300)
    for n in (2, 3):
        r = tabs[n]["ratings"]
        _, lo, hi = r.difference("heuristic", "heuristic-b")
        assert lo <= 0 <= hi  # copies: equal within the interval
        assert r.deals == 30
    # a known gap in 2 players; with 3, the two copies of the heuristic bid alike, tie for every
    # prize card (tied bids win nothing in Goofspiel) and leave the game to the random seat
    assert tabs[2]["ratings"].difference("heuristic", "random")[1] > 0
    assert tabs[3]["ratings"].difference("random", "heuristic")[1] > 0
    # the same command again has nothing to play; another config for the same folder is refused
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    assert "(0 played now)" in capsys.readouterr().out
    other = write_toml(tmp_path / "t2.toml", base(tmp_path, deals=40))
    assert main(["tournament", str(other), "--quiet"]) == 2
    assert "deals" in capsys.readouterr().err
    assert main(["tournament", str(path), "--report-only", "--anchor", "alphago"]) == 2
    assert "--anchor: 'alphago' is not in the pool" in capsys.readouterr().err
    assert store.read_manifest(t.lineups[0].folder)["complete"]


def test_goofspiel_ladder_order_is_recovered(ray_session, tmp_path):
    """random < mcts:10 < mcts:200 on 6-card Goofspiel (known from docs/mcts.md:
    more simulations win)."""
    from experiments.tournament.report import _same_time, ladder_markdown, tournament_tables

    t = tournament_from_dict(
        {
            "game": "goofspiel",
            "players": 2,
            "deals": 40,
            "seed": 3,
            "output": str(tmp_path / "ladder"),
            "pool": ["mcts:200", "random", "mcts:10"],
            "options": {"num_cards": 6},
        },
        "ladder.toml",
    )
    assert run_tournament(t, workers=1, progress=False).status == "complete"
    r = tournament_tables(t, bootstrap=300)[2]["ratings"]
    order = [r.agents[i] for i in np.argsort(r.rating)]
    assert order == ["random", "mcts:10", "mcts:200"], r.table()
    assert r.difference("mcts:200", "random")[1] > 0
    # the docs' ladder table: a difference says "same time per decision" only where it is so
    md = ladder_markdown(t, anchor="random", compare=[("mcts:200", "random")], bootstrap=300)
    assert "| `mcts:200` |" in md and "`mcts:200` minus `random`: +" in md
    assert _same_time(5.16, 5.17) and not _same_time(0.0365, 5.16)
    assert not _same_time(math.nan, 1.0)


def test_plot_labels_break_long_agent_labels():
    """Plot axes get agent labels broken after commas, an overlong part (a path) shortened;
    the tables keep the whole label."""
    from experiments.analysis.render import axis_label

    assert axis_label("random") == "random"
    assert axis_label("mcts:5ms,net=middle_kingdom,leaf=rollout") == (
        "mcts:5ms,net=middle_kingdom,\nleaf=rollout"
    )
    label = axis_label("mypkg.agents:Policy,path=/" + "a" * 80 + "/policy.joblib")
    assert all(len(line) <= 31 for line in label.splitlines()) and "…" in label
    assert label.startswith("mypkg.agents:Policy,\npath=/") and label.endswith("policy.joblib")
