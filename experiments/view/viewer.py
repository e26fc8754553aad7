"""Replay viewer: one self-contained HTML page per replay (no server, no network).

    dynasty view REPLAY.json [...] [--out DIR]     one page per replay
    dynasty view RESULTS_DIR [--out DIR]           the results folder's sample replays

A page steps through the game: the setup, every decision and every batch of chance
outcomes a decision triggered (slider, arrow keys, Home/End, PageUp/PageDown by 10).
For each step it shows the board as SVG (drawn by the game's ``GameSpec.board``,
``sim/<game>/board.py``, from the game's data files), the state as text (the game's
``render``), the decision names, the scores over time, and the table as each seat saw it
or in full (keys ``f`` and ``0``-``4``).

What a seat could see is derived from the engine, not restated here: the game's
``determinize`` kernel resamples everything a seat cannot see, so the state words that
change under a few determinizations are hidden from that seat; the board drawing shows
them as ``?``, and the text rendering masks the words that differ between the renders
of the determinized states.  The page is built from the replay by re-playing it through
:class:`sim.game.Game` (which checks every decision and the final scores).
"""

from __future__ import annotations

import base64
import difflib
import gzip
import html
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from sim.core import new_rng
from sim.game import Game
from sim.registry import get_game

DETERMINIZATIONS = 4
SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")


class ViewerError(ValueError):
    """A replay that cannot be shown (not a replay, unknown game, does not re-play)."""


def hidden_words(
    spec, state: np.ndarray, seat: int, k: int = DETERMINIZATIONS
) -> tuple[np.ndarray, list[np.ndarray]]:
    """(bool mask of the state words ``seat`` cannot see, the ``k`` determinized states)."""
    hidden = np.zeros(state.shape[0], np.bool_)
    samples = []
    if state[3] < 0:  # the game is over: everything is on the table
        return hidden, samples
    for i in range(k):
        c = state.copy()
        spec.kernels.determinize(c, np.int64(seat), new_rng(np.int64(7919 * i + 17)))
        hidden |= c != state
        samples.append(c)
    hidden[:8] = False  # the header (RNG words, seed) is not part of the table
    return hidden, samples


_TOKEN = re.compile(r"\w+|\W+")


def masked_text(full: str, others: list[str]) -> str:
    """``full`` with every word that is not matched in each of ``others`` replaced by ``?``.

    Lines are compared word by word with difflib's matching blocks (so a hidden hand of
    another length does not shift the rest of the line); a run of hidden words separated
    by spaces becomes one ``?`` (a hidden card name of several words)."""
    lines = full.split("\n")
    alt = [o.split("\n") for o in others]
    out = []
    for i, line in enumerate(lines):
        toks = _TOKEN.findall(line)
        keep = [True] * len(toks)
        for a in alt:
            v = a[i] if i < len(a) else ""
            if v == line:
                continue
            ok = [False] * len(toks)
            for b in difflib.SequenceMatcher(
                None, toks, _TOKEN.findall(v), autojunk=False
            ).get_matching_blocks():
                ok[b.a : b.a + b.size] = [True] * b.size
            keep = [k and o for k, o in zip(keep, ok)]
        text = "".join(t if k or not re.match(r"\w", t) else "?" for t, k in zip(toks, keep))
        out.append(re.sub(r"\?(?: \?)+", "?", text))
    return "\n".join(out)


def _scores(spec, drawing, state: np.ndarray, n: int) -> list[float]:
    """The final scores once the game is over; before, the game's provisional scores."""
    if state[3] < 0:
        sc, wins = np.zeros(n), np.zeros(n)
        spec.kernels.returns(state, sc, wins)
        return [float(x) for x in sc]
    if drawing is not None:
        return [float(x) for x in drawing.provisional(state)]
    return [0.0] * n


def _chance_text(o: Any) -> str:
    if isinstance(o, dict):
        ev = o.get("event", "")
        if "name" in o:
            return f"{ev} {o['name']}"
        rest = ", ".join(f"{k} {v}" for k, v in o.items() if k != "event")
        return f"{ev}: {rest}" if rest else str(ev)
    return str(o)


# --------------------------------------------------------------------------- steps


def replay_steps(replay: dict[str, Any]) -> dict[str, Any]:
    """Re-play ``replay`` and collect every step's drawings, texts and scores (JSON-able)."""
    from sim.registry import UnknownGameError

    try:
        Game.from_replay(replay)  # checks every decision, the chance outcomes and the scores
    except UnknownGameError as e:
        raise ViewerError(f"field 'game': {e}") from None
    except (KeyError, TypeError) as e:
        raise ViewerError(f"not a complete replay (missing or bad field {e})") from None
    except ValueError as e:
        raise ViewerError(str(e)) from None
    spec = get_game(replay["game"])
    n = int(replay["players"])
    opt = spec.encode_options(replay["options"])
    state = spec.state_from_chance(n, opt, replay["chance"])
    g = Game(spec.name, n, int(replay["seed"]), replay["options"], _state=state)
    drawing = spec.board
    strings: list[str] = []
    index: dict[str, int] = {}

    def intern(s: str) -> int:
        if s not in index:
            index[s] = len(strings)
            strings.append(s)
        return index[s]

    def snapshot(kind: str, label: str, seat: int | None) -> dict[str, Any]:
        st = g.state
        full_text = g.render()
        views = {"full": [intern(_svg(drawing, st, None)), intern(full_text)]}
        for p in range(n):
            hidden, samples = hidden_words(spec, st, p)
            text = (
                masked_text(full_text, [spec.render(c) for c in samples])
                if hidden.any()
                else full_text
            )
            views[str(p)] = [intern(_svg(drawing, st, hidden)), intern(text)]
        return {
            "kind": kind,
            "label": label,
            "seat": seat,
            "to_move": g.current_player,
            "scores": _scores(spec, drawing, st, n),
            "views": views,
        }

    seen = len(g.chance_outcomes())
    setup = [_chance_text(o) for o in g.chance_outcomes()]
    steps = [
        snapshot(
            "setup",
            "setup"
            + (": " + "; ".join(setup[:6]) + (" ..." if len(setup) > 6 else "") if setup else ""),
            None,
        )
    ]
    for d in replay["decisions"]:
        g.apply(int(d["action"]))
        steps.append(snapshot("decision", f"seat {d['player']}: {d['name']}", int(d["player"])))
        now = g.chance_outcomes()
        if len(now) > seen:
            new = [_chance_text(o) for o in now[seen:]]
            seen = len(now)
            steps.append(
                snapshot(
                    "chance",
                    "chance: "
                    + "; ".join(new[:8])
                    + (f" ... ({len(new)} outcomes)" if len(new) > 8 else ""),
                    None,
                )
            )
    return {
        "game": spec.name,
        "title": spec.title,
        "players": n,
        "options": replay["options"],
        "seed": replay["seed"],
        "final_scores": replay.get("scores"),
        "win_shares": replay.get("win_shares"),
        "experiment": replay.get("experiment"),
        "play": replay.get("play"),
        "strings": strings,
        "steps": steps,
    }


def _svg(drawing, state: np.ndarray, hidden: np.ndarray | None) -> str:
    if drawing is None:
        return ""
    return drawing.draw(state, hidden)


# --------------------------------------------------------------------------- page

_CSS = """
body{font-family:system-ui,sans-serif;margin:12px;color:#222;background:#fafafa}
h1{font-size:1.3em;margin:0 0 4px}
#meta{font-size:.9em;color:#555;margin-bottom:8px}
#controls{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:6px 0}
#slider{flex:1;min-width:300px}
#label{font-weight:bold;font-family:monospace;font-size:1.05em;margin:4px 0}
#views button{margin-right:4px}
#views button.on{background:#333;color:#fff}
#main{display:flex;gap:12px;align-items:flex-start}
#board{background:#fff;border:1px solid #ccc;min-width:200px}
#side{flex:1;min-width:320px}
pre#text{background:#fff;border:1px solid #ccc;padding:6px;font-size:12px;white-space:pre-wrap;
  max-height:420px;overflow:auto}
#log{font-family:monospace;font-size:12px;max-height:260px;overflow:auto;background:#fff;
  border:1px solid #ccc}
#log div{padding:0 4px;cursor:pointer}
#log div.cur{background:#ffe08a}
#log div.chance{color:#777}
.hint{font-size:.8em;color:#666}
"""

_JS = r"""
async function readData() {
  const b64 = document.getElementById('data').textContent.trim();
  const bin = Uint8Array.from(atob(b64), ch => ch.charCodeAt(0));
  const stream = new Blob([bin]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}
readData().then(start).catch(e => {
  document.getElementById('label').textContent = 'cannot read the replay data: ' + e; throw e;
});
function start(D) {
const S = D.strings, steps = D.steps;
let cur = 0, view = 'full';
const slider = document.getElementById('slider');
slider.max = steps.length - 1;
const log = document.getElementById('log');
steps.forEach((st, i) => {
  const d = document.createElement('div');
  d.textContent = i + '  ' + st.label;
  d.className = st.kind;
  d.id = 'log' + i;
  d.onclick = () => show(i);
  log.appendChild(d);
});
function show(i) {
  cur = Math.max(0, Math.min(steps.length - 1, i));
  const st = steps[cur];
  const v = st.views[view] || st.views.full;
  document.getElementById('board').innerHTML = S[v[0]];
  document.getElementById('text').textContent = S[v[1]];
  document.getElementById('label').textContent =
    'step ' + cur + '/' + (steps.length - 1) + ' \u2014 ' + st.label +
    (st.to_move >= 0 ? '   (next: seat ' + st.to_move + ')' : '   (game over)');
  document.getElementById('scores').textContent =
    'scores: ' + st.scores.map((x, p) => 'seat ' + p + ' ' + (Math.round(x * 10) / 10)).join(', ');
  slider.value = cur;
  const x = document.getElementById('cursor');
  if (x) { const X = D.chart.x0 + D.chart.w * (steps.length > 1 ? cur / (steps.length - 1) : 0);
           x.setAttribute('x1', X); x.setAttribute('x2', X); }
  document.querySelectorAll('#log div.cur').forEach(e => e.classList.remove('cur'));
  const e = document.getElementById('log' + cur);
  if (e) { e.classList.add('cur'); e.scrollIntoView({block: 'nearest'}); }
  document.querySelectorAll('#views button')
    .forEach(b => b.classList.toggle('on', b.dataset.view === view));
  document.getElementById('viewname').textContent =
    view === 'full' ? 'full state (everything, hidden information included)'
                    : 'what seat ' + view + ' could see (? = hidden from this seat)';
}
function setView(v) { if (v === 'full' || steps[0].views[v]) { view = v; show(cur); } }
slider.addEventListener('input', () => show(parseInt(slider.value)));
document.getElementById('prev').onclick = () => show(cur - 1);
document.getElementById('next').onclick = () => show(cur + 1);
document.querySelectorAll('#views button').forEach(b => b.onclick = () => setView(b.dataset.view));
document.addEventListener('keydown', ev => {
  const k = ev.key;
  if (k === 'ArrowRight' || k === 'ArrowDown') show(cur + 1);
  else if (k === 'ArrowLeft' || k === 'ArrowUp') show(cur - 1);
  else if (k === 'PageDown') show(cur + 10);
  else if (k === 'PageUp') show(cur - 10);
  else if (k === 'Home') show(0);
  else if (k === 'End') show(steps.length - 1);
  else if (k === 'f') setView('full');
  else if (/^[0-9]$/.test(k)) setView(k);
  else return;
  ev.preventDefault();
});
const h = parseInt((location.hash || '').replace('#', ''));
show(isNaN(h) ? 0 : h);
document.body.dataset.ready = '1';
}
"""


def _score_chart(steps: list[dict], n: int) -> tuple[str, dict]:
    w, h, x0, y0 = 440, 150, 40, 10
    ys = [s["scores"] for s in steps]
    lo = min(min(y) for y in ys)
    hi = max(max(y) for y in ys)
    if hi == lo:
        hi = lo + 1
    m = max(len(steps) - 1, 1)

    def X(i):
        return x0 + w * i / m

    def Y(v):
        return y0 + h - h * (v - lo) / (hi - lo)

    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" '
        f'width="{x0 + w + 110}" height="{y0 + h + 30}" font-size="11">',
        f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="#fff" stroke="#999"/>',
        f'<text x="2" y="{y0 + 8}">{hi:g}</text><text x="2" y="{y0 + h}">{lo:g}</text>',
        f'<text x="{x0}" y="{y0 + h + 24}">step (decisions and '
        "chance) → ; scores (provisional during the game)</text>",
    ]
    for p in range(n):
        pts = " ".join(f"{X(i):.1f},{Y(y[p]):.1f}" for i, y in enumerate(ys))
        c = SEAT_COLOURS[p % len(SEAT_COLOURS)]
        parts.append(f'<polyline fill="none" stroke="{c}" stroke-width="1.5" points="{pts}"/>')
        parts.append(
            f'<text x="{x0 + w + 6}" y="{y0 + 14 + 14 * p}" '
            f'fill="{c}">seat {p}: {ys[-1][p]:g}</text>'
        )
    parts.append(
        f'<line id="cursor" x1="{x0}" x2="{x0}" y1="{y0}" '
        f'y2="{y0 + h}" stroke="#000" stroke-dasharray="3,2"/>'
    )
    parts.append("</svg>")
    return "".join(parts), {"x0": x0, "w": w}


def page_html(data: dict[str, Any]) -> str:
    """The self-contained page of one replay's steps (from :func:`replay_steps`)."""
    n = data["players"]
    chart, geo = _score_chart(data["steps"], n)
    data = dict(data, chart=geo)
    exp = data.get("experiment") or {}
    agents = exp.get("agents") or (data.get("play") or {}).get(
        "agents"
    )  # dynasty run / dynasty play
    meta = [f"{n} players", f"seed {data['seed']}"]
    if agents:
        meta.append("agents: " + ", ".join(f"seat {p} {a}" for p, a in enumerate(agents)))
    if "game_index" in exp:
        meta.append(
            f"game {exp['game_index']} (deal {exp.get('deal')}, rotation {exp.get('rotation')})"
        )
    if data.get("final_scores") is not None:
        meta.append("final scores " + ", ".join(f"{s:g}" for s in data["final_scores"]))
        wins = data.get("win_shares") or []
        winners = [str(p) for p, w in enumerate(wins) if w > 0]
        meta.append("winner: seat " + ", ".join(winners) if winners else "no seat won")
    opts = ", ".join(f"{k} = {v}" for k, v in data["options"].items())
    buttons = '<button data-view="full">full state (f)</button>' + "".join(
        f'<button data-view="{p}">seat {p} ({p})</button>' for p in range(n)
    )
    raw = json.dumps(data, separators=(",", ":")).encode()
    payload = base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode()
    title = f"{data['title']} replay"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_CSS}</style></head><body>
<h1>{html.escape(title)}</h1>
<div id="meta">{html.escape("; ".join(meta))}<br>\
<span class="hint">options: {html.escape(opts)}</span></div>
<div id="controls"><button id="prev">&#9664;</button>\
<input type="range" id="slider" min="0" value="0">
<button id="next">&#9654;</button><span class="hint">keys: &larr; &rarr; step, \
PageUp/PageDown 10 steps, Home/End, f full state, 0-{n - 1} a seat's view</span></div>
<div id="views">{buttons} <span id="viewname" class="hint"></span></div>
<div id="label"></div>
<div id="main"><div id="board"></div>
<div id="side"><div id="scores"></div>{chart}<div id="log"></div></div></div>
<pre id="text"></pre>
<script type="application/octet-stream" id="data">{payload}</script>
<script>{_JS}</script>
</body></html>
"""


# --------------------------------------------------------------------------- files


def load_replay(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        rep = json.loads(path.read_text())
    except FileNotFoundError:
        raise ViewerError(f"{path}: no such file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ViewerError(f"{path}: not JSON ({e})") from None
    if not isinstance(rep, dict) or rep.get("format") != "dynasty-lab-replay":
        raise ViewerError(f"{path}: field 'format' is not 'dynasty-lab-replay'; is it a replay?")
    return rep


def write_page(replay_path: str | Path, out: str | Path | None = None) -> Path:
    """Write the viewer page of one replay file (default: beside it, ``.html``)."""
    replay_path = Path(replay_path)
    rep = load_replay(replay_path)
    try:
        data = replay_steps(rep)
    except ViewerError as e:
        raise ViewerError(f"{replay_path}: {e}") from None
    out = Path(out) if out else replay_path.with_suffix(".html")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(page_html(data), encoding="utf-8")
    tmp.replace(out)
    return out


def replay_files(target: str | Path) -> list[Path]:
    """The replay files of ``target``: a replay file, or a results folder's ``replays/``."""
    target = Path(target)
    if target.is_dir():
        folder = target / "replays" if (target / "replays").is_dir() else target
        files = sorted(folder.glob("*.json"))
        if not files:
            raise ViewerError(
                f"{target}: no replays here (a results folder keeps them in replays/; "
                "set `replays = N` in the experiment config)"
            )
        return files
    if not target.exists():
        raise ViewerError(f"{target}: no such file or folder")
    return [target]


def write_pages(targets: list[str | Path], out_dir: str | Path | None = None) -> list[Path]:
    """Pages for every replay of ``targets``; into ``out_dir`` if given, else beside each replay."""
    pages = []
    for t in targets:
        for f in replay_files(t):
            pages.append(
                write_page(f, Path(out_dir) / f.with_suffix(".html").name if out_dir else None)
            )
    return pages


# --------------------------------------------------------------------------- report links


def notable_games(res) -> list[tuple[str, int]]:
    """(why, game index) of a run's notable games: the longest, and the biggest upset (the
    winner whose agent has the lowest overall win rate against the best agent at the table)."""
    out = []
    row = res.con.execute(
        "SELECT game_index, length FROM results WHERE seat = 0 "
        "ORDER BY length DESC, game_index LIMIT 1"
    ).fetchone()
    if row:
        out.append((f"the longest game ({int(row[1])} decisions)", int(row[0])))
    row = res.con.execute("""
        WITH r AS (SELECT agent, avg(win) AS rate FROM results GROUP BY agent),
             best AS (SELECT x.game_index, max(r.rate) AS top FROM results x JOIN r USING (agent)
                      GROUP BY x.game_index)
        SELECT w.game_index, best.top - r.rate AS gap, w.agent, r.rate, best.top
        FROM results w JOIN r USING (agent) JOIN best USING (game_index)
        WHERE w.win > 0 ORDER BY gap DESC, w.game_index LIMIT 1""").fetchone()
    if row and row[1] > 0:
        out.append(
            (
                f"the biggest upset: {row[2]} (overall win rate {row[3]:.3f}) "
                f"won at a table with an agent winning {row[4]:.3f} overall",
                int(row[0]),
            )
        )
    return out


MAX_LINEUP_PAGES = 30  # a tournament report links a game of at most this many lineups


def lineup_blocks(lineups, out: Path) -> list:
    """A tournament report's section of viewer pages: the first game (game index 0, the first deal
    in its first rotation) of each lineup that has played it, from the lineup's replay of it if it
    kept one, else re-played from the lineup's run config."""
    from experiments.run import store
    from experiments.run.runner import ChunkContext, job_of

    blocks: list = [(2, "Games to watch: a game of each lineup")]
    lines, folder = [], out / "viewer"
    for x in list(lineups)[:MAX_LINEUP_PAGES]:
        if not any(a == 0 for a, _ in store.done_ranges(x.config.output, x.config.game)):
            continue
        try:
            # the lineup's own replay if it kept one (a Python agent's game, recorded as played)
            saved = x.folder / "replays" / "game-000000000.json"
            rep = (
                json.loads(saved.read_text())
                if saved.exists()
                else ChunkContext(job_of(x.config)).replay(0)
            )
            path = folder / f"lineup-{x.index:03d}-game-000000000.json"
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(rep, indent=1))
            page = write_page(path)
            lines.append(
                f"- [lineup {x.index}: "
                f"{' / '.join(x.labels)}](viewer/{page.name}): {_describe(rep)}"
            )
        except Exception as e:
            # e.g. an agent that fails when its game is played again: say why, keep the report
            lines.append(
                f"- lineup {x.index} ({' / '.join(x.labels)}): no page ({type(e).__name__}: {e})"
            )
    if not lines:
        return blocks + ["No lineup has played its first game yet."]
    more = (
        f"\n(the first {MAX_LINEUP_PAGES} of {len(lineups)} lineups)"
        if len(lineups) > MAX_LINEUP_PAGES
        else ""
    )
    return blocks + [
        "Each page steps through one game (board, decisions, chance, scores, each seat's view; "
        "docs/viewer.md).\n" + "\n".join(lines) + more
    ]


def _describe(rep: dict) -> str:
    agents = (rep.get("experiment") or {}).get("agents") or []
    who = ", ".join(f"seat {p} {a}" for p, a in enumerate(agents))
    scores = ", ".join(f"{s:g}" for s in rep.get("scores") or [])
    return f"{who}; {len(rep['decisions'])} decisions; final scores {scores}"


def report_blocks(res, results, manifest: dict, out: Path) -> list:
    """``dynasty report``'s section of viewer pages: the run's sample replays and its notable
    games (re-played from the config), each page written into ``out/viewer/``."""
    from experiments.run.store import FsPath

    blocks: list = [(2, "Games to watch")]
    if isinstance(results, FsPath) or isinstance(out, FsPath):
        return blocks + [
            "Viewer pages are written for local results folders only; copy the folder and run "
            "`dynasty view RESULTS/replays`."
        ]
    lines, folder = [], out / "viewer"
    try:
        for path in sorted((Path(results) / "replays").glob("*.json")):
            page = write_page(path, folder / path.with_suffix(".html").name)
            lines.append(
                f"- [{path.stem}](viewer/{page.name}): sample game; {_describe(load_replay(path))}"
            )
        picked = notable_games(res)
        if picked:
            from experiments.run.config import load_config
            from experiments.run.runner import ChunkContext, job_of

            cfg = load_config(
                Path(results) / "config.toml"
            )  # the config as given, kept by dynasty run
            ctx = ChunkContext(job_of(cfg))
            for why, i in picked:
                rep = ctx.replay(i)
                path = folder / f"game-{i:09d}.json"
                folder.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(rep, indent=1))
                page = write_page(path)
                lines.append(f"- [game-{i:09d}](viewer/{page.name}): {why}; {_describe(rep)}")
    except Exception as e:  # the report itself must not fail for a page: say why there is none
        lines.append(f"(viewer pages could not be written: {type(e).__name__}: {e})")
    if not lines:
        return blocks + ["This run kept no sample replays (`replays = N` in the config keeps N)."]
    return blocks + [
        "Each page steps through one game (board, decisions, chance, scores, each seat's view; "
        "docs/viewer.md).\n" + "\n".join(lines)
    ]
