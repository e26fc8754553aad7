"""The replay viewer: pages built by `dynasty view`, opened in headless Chromium, stepped
through with the keys, checked for the expected text and for no console errors.

Screenshots: DYNASTY_VIEWER_SCREENSHOTS=docs/img pytest tests/test_viewer.py writes
docs/img/viewer_<game>.png (otherwise they go to the test's temporary folder).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import main
from experiments.view.viewer import hidden_words, masked_text, replay_steps
from sim import Game
from tests.browser import Browser, chromium

# (game, players, options, seed): small but complete games
GAMES = [
    ("goofspiel", 3, {"num_cards": 6}, 4),
    ("middle_kingdom", 2, {}, 5),
    ("ming_dynasty", 2, {}, 6),
    ("emperors_choice", 3, {}, 7),
    ("eternal_dynasty", 2, {}, 8),
]

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="chromium is not installed (.ci/run installs it)"
)


def _replay(tmp: Path, game: str, players: int, options: dict, seed: int) -> Path:
    g = Game(game, players, seed, options)
    g.play_random(np.random.default_rng(seed))
    path = tmp / f"{game}.json"
    g.save_replay(path)
    return path


def test_masked_text_hides_only_the_words_that_differ():
    full = "seat 0: hand {1,2,5}  laid: 3\nseat 1: hand {0,4}"
    others = [
        "seat 0: hand {1,2,5}  laid: 6\nseat 1: hand {0,4}",
        "seat 0: hand {1,2,5}  laid: 3\nseat 1: hand {0,4}",
    ]
    assert masked_text(full, others) == "seat 0: hand {1,2,5}  laid: ?\nseat 1: hand {0,4}"
    assert masked_text(full, [full]) == full


def test_hidden_words_follow_determinize():
    from sim.goofspiel import rules as R

    g = Game("goofspiel", 3, 1, {"num_cards": 6})
    g.apply("bid 6")  # seat 0's secret bid
    h1, _ = hidden_words(g.spec, g.state, 1)
    h0, _ = hidden_words(g.spec, g.state, 0)
    assert h1[R.PENDING + 0] and not h0[R.PENDING + 0]
    g.play_random()
    assert not hidden_words(g.spec, g.state, 1)[0].any()  # over: nothing is hidden


def test_steps_cover_every_decision_and_chance_batch(tmp_path):
    path = _replay(tmp_path, "middle_kingdom", 2, {}, 5)
    rep = json.loads(path.read_text())
    data = replay_steps(rep)
    decisions = [s for s in data["steps"] if s["kind"] == "decision"]
    assert [s["label"] for s in decisions] == [
        f"seat {d['player']}: {d['name']}" for d in rep["decisions"]
    ]
    assert any(s["kind"] == "chance" for s in data["steps"])  # each round's reveal
    assert data["steps"][-1]["scores"] == rep["scores"]  # provisional scores end at the final ones
    assert set(data["steps"][0]["views"]) == {"full", "0", "1"}
    # seat 0's first bid is laid face down: drawn in the full state and seat 0's view,
    # '?' for seat 1
    S, step = data["strings"], data["steps"][1]
    laid = f"laid this round: {rep['decisions'][0]['name'].split()[-1]}"
    assert laid in S[step["views"]["full"][0]] and laid in S[step["views"]["0"][0]]
    assert "laid this round: ?" in S[step["views"]["1"][0]] and laid not in S[step["views"]["1"][0]]


def test_view_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["view", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.json" in err[0] and "not JSON" in err[0]
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something"}))
    assert main(["view", str(other)]) == 2
    assert "'format'" in capsys.readouterr().err
    (tmp_path / "results").mkdir()
    assert main(["view", str(tmp_path / "results")]) == 2
    assert "no replays" in capsys.readouterr().err
    rep = json.loads(_replay(tmp_path, "goofspiel", 2, {"num_cards": 4}, 1).read_text())
    rep["decisions"][0]["name"] = "bid 99"
    other.write_text(json.dumps(rep))
    assert main(["view", str(other)]) == 2
    assert "decision 0" in capsys.readouterr().err


def test_view_results_folder_writes_a_page_per_sample(tmp_path, capsys):
    folder = tmp_path / "run" / "replays"
    folder.mkdir(parents=True)
    for seed in (1, 2):
        p = _replay(tmp_path, "goofspiel", 2, {"num_cards": 4}, seed)
        p.rename(folder / f"game-{seed:09d}.json")
    assert main(["view", str(tmp_path / "run")]) == 0
    assert sorted(p.name for p in folder.glob("*.html")) == [
        "game-000000001.html",
        "game-000000002.html",
    ]


def _js(x: float) -> str:
    """A score as the page prints it (rounded to 0.1, JavaScript's number format)."""
    v = np.floor(x * 10 + 0.5) / 10
    return str(int(v)) if v == int(v) else str(v)


async def _drive(page_url: str, rep: dict, n_steps: int, shot: Path) -> dict:
    out: dict = {}
    async with Browser() as page:
        await page.open(page_url)
        out["start"] = await page.text("#label")
        await page.key("ArrowRight")
        out["one"] = await page.text("#label")
        for _ in range(2):
            await page.key("ArrowRight")
        await page.key("ArrowLeft")
        out["two"] = await page.text("#label")
        out["svg"] = await page.eval("document.querySelectorAll('#board svg').length")
        out["log_rows"] = await page.eval("document.querySelectorAll('#log div').length")
        await page.key("End")
        out["end"] = await page.text("#label")
        out["scores"] = await page.text("#scores")
        await page.key("1")
        out["seat_view"] = await page.text("#viewname")
        await page.key("f")
        out["full_view"] = await page.text("#viewname")
        await page.key("Home")
        for _ in range(max(1, n_steps // 30)):
            await page.key("PageDown")
        out["slider"] = await page.eval("document.getElementById('slider').value")
        await page.screenshot(shot)
        out["errors"] = list(page.errors)
    return out


@needs_chromium
@pytest.mark.parametrize("game,players,options,seed", GAMES, ids=[g[0] for g in GAMES])
def test_viewer_page_in_chromium(tmp_path, game, players, options, seed):
    path = _replay(tmp_path, game, players, options, seed)
    rep = json.loads(path.read_text())
    assert main(["view", str(path), "--out", str(tmp_path / "pages")]) == 0
    html_path = tmp_path / "pages" / f"{game}.html"
    html = html_path.read_text()
    assert (
        "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
    )  # nothing fetched
    n_steps = len(replay_steps(rep)["steps"])
    shots = os.environ.get("DYNASTY_VIEWER_SCREENSHOTS")
    shot = Path(shots) / f"viewer_{game}.png" if shots else tmp_path / f"viewer_{game}.png"
    r = asyncio.run(_drive(html_path.resolve().as_uri(), rep, n_steps, shot))
    assert r["errors"] == []
    assert r["start"].startswith(f"step 0/{n_steps - 1} — setup")
    first = rep["decisions"][0]
    assert r["one"].startswith(f"step 1/{n_steps - 1} — seat {first['player']}: {first['name']}")
    assert r["two"].startswith("step 2/")
    assert r["svg"] == 1 and r["log_rows"] == n_steps
    assert r["end"].startswith(f"step {n_steps - 1}/") and r["end"].endswith("(game over)")
    assert r["scores"] == "scores: " + ", ".join(
        f"seat {p} {_js(s)}" for p, s in enumerate(rep["scores"])
    )
    assert "what seat 1 could see" in r["seat_view"] and r["full_view"].startswith("full state")
    assert int(r["slider"]) == min(10 * max(1, n_steps // 30), n_steps - 1)
    assert shot.stat().st_size > 10_000


@needs_chromium
def test_seat_view_hides_a_secret_bid_in_chromium(tmp_path):
    g = Game("goofspiel", 3, 2, {"num_cards": 4})
    g.apply("bid 3")  # seat 0 bids in secret; seats 1 and 2 have not
    g.play_random()
    path = tmp_path / "g.json"
    g.save_replay(path)
    assert main(["view", str(path)]) == 0

    async def drive():
        async with Browser() as page:
            await page.open(path.with_suffix(".html").resolve().as_uri() + "#1")
            full = await page.text("#board")
            await page.key("1")
            seat1 = await page.text("#board")
            await page.key("0")
            seat0 = await page.text("#board")
            return full, seat1, seat0, page.errors

    full, seat1, seat0, errors = asyncio.run(drive())
    assert "bid laid: 3" in full and "bid laid: 3" in seat0
    assert "bid laid (hidden)" in seat1 and "bid laid: 3" not in seat1
    assert errors == []


def test_report_links_sample_and_notable_games_to_viewer_pages(tmp_path):
    import ray

    from experiments.analysis.report import make_report
    from experiments.run.config import load_config
    from experiments.run.runner import local_ray_options, run

    toml = tmp_path / "g.toml"
    toml.write_text(
        f'name = "g"\ngame = "goofspiel"\nplayers = 2\nagents = ["heuristic", "random"]\n'
        f'seats = "rotate"\ngames = 40\nseed = 3\noutput = "{tmp_path / "out"}"\nreplays = 2\n'
        "[options]\nnum_cards = 5\n"
    )
    ray.init(**local_ray_options(workers=1))
    try:
        run(load_config(toml), workers=1, progress=False)
    finally:
        ray.shutdown()
    paths = make_report(tmp_path / "out")
    md, html = paths["markdown"].read_text(), paths["html"].read_text()
    links = re.findall(r"\]\((viewer/game-\d{9}\.html)\)", md)
    assert len(links) == 4  # 2 samples, the longest game, the biggest upset
    assert "the longest game" in md and "the biggest upset" in md
    for link in links:
        assert (paths["markdown"].parent / link).exists()
        assert f"<a href='{link}'>" in html
