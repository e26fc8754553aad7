"""dynasty depth: the ladder's lineups, config errors (one line, exit 2), a run that is stopped and
resumed without playing a game twice, and the report's numbers -- per-step win shares and
intervals, the range of skill, the deal share -- against hand computations from the Parquet
with DuckDB."""

from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pytest

from experiments.cli import main
from experiments.depth.depth import depth_from_dict, load_depth, run_depth
from experiments.depth.report import depth_tables, make_depth_report, skill_chain
from experiments.run.config import ConfigError
from tests.toml_files import write_toml


def base(tmp_path, **kw):
    d = {
        "game": "goofspiel",
        "players": [2, 3],
        "budgets": [1, 2, 4],
        "deals": 10,
        "seed": 5,
        "output": str(tmp_path / "d"),
        "options": {"num_cards": 4},
    }
    d.update(kw)
    return d


def test_lineups_of_the_ladder(tmp_path):
    d = depth_from_dict(base(tmp_path, beside=["heuristic"]), "d.toml")
    assert d.ladder == ("random", "mcts:1", "mcts:2", "mcts:4") and d.beside == ("heuristic",)
    assert d.budgets == (("mcts:1", 1.0), ("mcts:2", 2.0), ("mcts:4", 4.0))
    # adjacent steps, then the heuristic against every step
    assert d.matches == ((0, 1), (1, 2), (2, 3), (0, 4), (1, 4), (2, 4), (3, 4))
    two = [x.agents for x in d.lineups_of(2)]
    assert two == [(hi, lo) for lo, hi in d.matches]
    three = [x.agents for x in d.lineups_of(3)]
    assert three[:2] == [(1, 0, 0), (0, 1, 1)]  # one seat of each against two of the other
    for x in d.lineups:
        assert x.config.seats == "rotate" and x.config.games == 10 * x.players
        assert x.config.seed == 5
    d = depth_from_dict(base(tmp_path, pairs="all", players=2, ladder=["random", "heuristic"]))
    assert d.ladder == ("random", "heuristic", "mcts:1", "mcts:2", "mcts:4")
    assert len(d.lineups) == 10 and d.budget_unit == "simulations"
    # pairs = k: each step against the k steps below it (fewer near the bottom)
    d = depth_from_dict(base(tmp_path, pairs=2, players=2, ladder=["random", "heuristic"]))
    assert d.matches[:7] == ((0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4))
    assert len(d.matches) == 7 and d.pairs == 2
    assert (
        depth_from_dict(base(tmp_path, pairs=1)).matches
        == depth_from_dict(base(tmp_path, pairs="adjacent")).matches[:3]
    )
    d = depth_from_dict(base(tmp_path, budgets=["1ms", "2ms"], players=2))
    assert d.ladder == ("random", "mcts:1ms", "mcts:2ms") and d.budget_unit == "ms"
    d = depth_from_dict(base(tmp_path, budgets=[8, 16], search="mcts:{},rollout=heuristic"))
    assert d.ladder[1:] == ("mcts:8,rollout=heuristic", "mcts:16,rollout=heuristic")


@pytest.mark.parametrize(
    "change, msg",
    [
        ({"budgets": [1, "x"]}, "budgets[1]: expected a number of simulations"),
        ({"budgets": [1, "2ms"]}, "budgets[1]: '2ms': budgets mix simulations and times"),
        ({"budgets": [], "ladder": ["random"]}, "ladder: the ladder needs at least 2 steps"),
        ({"ladder": ["random", "alphago"]}, "ladder[1]: "),
        ({"beside": ["random"]}, "beside[0]: 'random' is listed twice"),
        ({"pairs": "some"}, "pairs: 'some' is not allowed"),
        ({"pairs": 0}, "pairs: 0 is not allowed (allowed: adjacent, all, or a number k >= 1"),
        ({"threshold": 0.4}, "threshold: expected a win share above 0.5"),
        ({"search": "mcts"}, "search: expected an agent with one {}"),
        ({"deals": 0}, "deals: expected a positive integer"),
        ({"pool": ["random"]}, "unknown key 'pool'"),
    ],
)
def test_config_errors_name_the_field(tmp_path, change, msg, capsys):
    with pytest.raises(ConfigError, match="^" + re.escape(f"d.toml: {msg}")):
        depth_from_dict(base(tmp_path, **change), "d.toml")
    path = write_toml(tmp_path / "bad.toml", base(tmp_path, **change))
    assert main(["depth", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"dynasty: error: {path}: ")


def _brute_chain(ladder, shares, threshold):
    """The longest chain by trying every subsequence of the ladder, longest first."""
    for length in range(len(ladder), 0, -1):
        for combo in itertools.combinations(ladder, length):
            if all(shares.get((b, a), -1) >= threshold for a, b in zip(combo, combo[1:])):
                return length
    return 0


def test_skill_chain_is_the_longest_subsequence():
    rng = np.random.default_rng(3)
    ladder = list("abcdefg")
    for _ in range(200):
        shares = {
            (ladder[j], ladder[i]): float(rng.uniform(0.3, 1.0))
            for j in range(len(ladder))
            for i in range(j)
            if rng.random() < 0.7
        }
        chain = skill_chain(ladder, shares, 0.75)
        assert len(chain) == _brute_chain(ladder, shares, 0.75)
        assert all(shares[(b, a)] >= 0.75 for a, b in zip(chain, chain[1:]))
        assert [ladder.index(a) for a in chain] == sorted(ladder.index(a) for a in chain)


# --------------------------------------------------------------------------- with Ray


RAY_WORKERS = 1  # the module's Ray session (tests/conftest.py, ray_session)


def _hand(con, d, n):
    """Per pair (upper, lower) at ``n`` players, straight from the lineups' Parquet: games G,
    sum of shares S, deals D, and the ANOVA sums."""
    parts = []
    for x in d.lineups_of(n):
        glob = str(x.folder / "data" / "game=*" / "part-*.parquet")
        parts.append(f"SELECT {x.index} AS lu, * FROM read_parquet('{glob}', hive_partitioning=1)")
    con.execute("CREATE OR REPLACE VIEW g AS " + " UNION ALL BY NAME ".join(parts))
    if n == 2:  # the upper agent's own win column (1, 1/2, 0)
        per_game = (
            "SELECT a.lu, a.game_index // 2 AS deal, a.win AS y, a.agent AS up, b.agent AS low "
            "FROM g a JOIN g b ON a.lu = b.lu AND a.game_index = b.game_index AND a.seat <> b.seat"
        )
    else:  # share of the (upper seat, lower seat) pairs won
        per_game = (
            "SELECT a.lu, any_value(a.game_index) // 3 AS deal, "
            "avg(CASE WHEN a.rank < b.rank THEN 1 WHEN a.rank = b.rank THEN 0.5 ELSE 0 END) AS y, "
            "a.agent AS up, b.agent AS low FROM g a JOIN g b ON a.lu = b.lu "
            "AND a.game_index = b.game_index AND a.agent <> b.agent "
            "GROUP BY a.lu, a.game_index, a.agent, b.agent"
        )
    con.execute(f"CREATE OR REPLACE VIEW pg AS {per_game}")
    return con.execute(
        "WITH dd AS (SELECT up, low, deal, count(*) AS nd, avg(y) AS md, "
        "  sum(y * y) AS s2 FROM pg GROUP BY up, low, deal) "
        "SELECT up, low, sum(nd) AS G, sum(nd * md) AS S, count(*) AS D, sum(nd * nd) AS sn2, "
        "  sum(s2) AS ss, sum(nd * md * md) AS smd2, stddev_samp(md) AS spread "
        "FROM dd GROUP BY up, low"
    ).df()


def test_depth_resumes_and_matches_hand_computations(ray_session, tmp_path, capsys):
    import duckdb

    from experiments.analysis.results import load_results

    cfg = base(tmp_path, pairs="all", threshold=0.6, beside=["heuristic"])
    path = write_toml(tmp_path / "d.toml", cfg)
    d = load_depth(path)
    assert len(d.lineups) == 10 + 20  # 6 ladder pairs and 4 beside, 1 or 2 lineups each
    s = run_depth(d, workers=1, progress=False, stop_after_lineups=3)
    # rounds of 3 deals (a quarter of 10, rounded up): the first three lineups (2 players) played
    assert s.status == "interrupted" and s.games == 3 * 3 * 2
    # the report of a stopped run: what is played, the rest not rated yet
    md = make_depth_report(d, bootstrap=20)["markdown"].read_text()
    assert "(not complete; run it again)" in md and "## 3 players" not in md
    assert "not rated yet (no games link them to random): mcts:4, heuristic" in md
    assert main(["depth", str(path), "--workers", "1", "--quiet"]) == 0
    total = 10 * (10 * 2 + 20 * 3)
    assert f"30 lineups, {total:,} games in all ({total - 18:,} played now)" in (
        capsys.readouterr().out
    )
    for x in d.lineups:  # nothing played twice, nothing missing
        df = load_results(x.folder, columns=["game_index", "seat"])
        assert len(df) == x.config.games * x.players
        assert not df.duplicated(["game_index", "seat"]).any()
    m = json.loads((tmp_path / "d" / "tournament.json").read_text())
    assert m["complete"] and [x["status"] for x in m["sessions"]] == ["interrupted", "complete"]
    assert main(["depth", str(path), "--workers", "1", "--quiet"]) == 0
    assert "(0 played now)" in capsys.readouterr().out
    md = (tmp_path / "d" / "report" / "report.md").read_text()
    for n in (2, 3):
        assert f"## {n} players: beside the ladder" in md and "`heuristic`: rating" in md
        assert f"## {n} players: the ladder" in md and f"(rating_budget_{n}p.png)" in md
        assert (tmp_path / "d" / "report" / f"rating_budget_{n}p.png").stat().st_size > 0
    other = write_toml(tmp_path / "d2.toml", base(tmp_path, pairs="adjacent"))
    assert main(["depth", str(other), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "pool: the depth folder" in err and "made by another depth config" in err

    tabs = depth_tables(d, bootstrap=50)
    con = duckdb.connect()
    z = 1.959963984540054
    for n in (2, 3):
        t = tabs[n]["pairs"].set_index(["agent", "opponent"])
        h = _hand(con, d, n).set_index(["up", "low"])
        assert len(t) == 10 and (t["kind"] == "beside").sum() == 4
        shares = {}
        for (up, low), r in t.iterrows():
            hr = h.loc[(up, low)]
            G, S, D = int(hr["G"]), float(hr["S"]), int(hr["D"])
            assert (r["games"], r["deals"]) == (G, D) == (10 * n * (1 if n == 2 else 2), 10)
            p = S / G
            assert r["share"] == pytest.approx(p, abs=1e-12)
            # the step below's share is the complement
            assert float(h.loc[(low, up), "S"]) == pytest.approx(G - S)
            # Wilson by hand
            c, half = p + z * z / (2 * G), z * math.sqrt(p * (1 - p) / G + z * z / (4 * G * G))
            assert r["ci_low"] == pytest.approx((c - half) / (1 + z * z / G), abs=1e-9)
            assert r["ci_high"] == pytest.approx((c + half) / (1 + z * z / G), abs=1e-9)
            # one-way ANOVA over deals by hand: SSB = sum nd md^2 - G p^2, SSW = sum y^2 - ...
            ssb = float(hr["smd2"]) - G * p * p
            ssw = float(hr["ss"]) - float(hr["smd2"])
            msb, msw = ssb / (D - 1), ssw / (G - D)
            n0 = (G - float(hr["sn2"]) / G) / (D - 1)
            sb = max(0.0, (msb - msw) / n0)
            if sb + msw > 1e-12:
                assert r["deal_share"] == pytest.approx(sb / (sb + msw), abs=1e-9)
            else:
                assert math.isnan(r["deal_share"])
            assert r["spread"] == pytest.approx(float(hr["spread"]), abs=1e-9)
            shares[(up, low)] = p
        chain = tabs[n]["chain"]
        ladder = {k: v for k, v in shares.items() if "heuristic" not in k}
        assert len(chain) == _brute_chain(list(d.ladder), ladder, 0.6)
        assert all(shares[(b, a)] >= 0.6 for a, b in zip(chain, chain[1:]))
        assert "**Range of skill**" in md and f"**{len(chain)}**" in md
        # each link of the list with its win share and interval
        for a, b in zip(chain, chain[1:]):
            r = t.loc[(b, a)]
            assert f"`{b}` ({r['share']:.3f}, CI {r['ci_low']:.3f} – {r['ci_high']:.3f})" in md
    con.close()
