"""The ``dynasty`` command: run experiments, write reports, run benchmarks, list games.

    dynasty run CONFIG.toml [--address ADDR] [--workers N] [--chunk-size N] [--niceness N] [--quiet]
    dynasty report RESULTS_DIR [--out DIR]
    dynasty study STUDY.toml [--workers N] [--address ADDR] [--niceness N] [--quiet] [--report-only]
    dynasty interventions STUDY.toml [--workers N] [--address ADDR] [--niceness N] [--quiet]
                                     [--report-only]
    dynasty tournament T.toml [--workers N] [--address ADDR] [--niceness N] [--quiet]
                              [--report-only]
    dynasty depth DEPTH.toml [--workers N] [--address ADDR] [--niceness N] [--quiet]
                             [--report-only]
    dynasty tune TUNE.toml [--workers N] [--address ADDR] [--niceness N] [--quiet] [--report-only]
    dynasty train TRAIN.toml [--workers N] [--address ADDR] [--niceness N] [--quiet] [--report-only]
    dynasty bench [NAME [ARGS ...]]      (no NAME: every benchmark; --list: their names)
    dynasty games
    dynasty view REPLAY.json|RESULTS_DIR ... [--out DIR]   (replay viewer pages, docs/viewer.md)
    dynasty play GAME [--players N] [--seat K] [--opponents heuristic,mcts:500] [--seed S]
                      [--out FILE]
    dynasty fuzz GAME --games N [--players P] [--seed S] [--mcts-share F] [--out DIR]
                      [--time-limit S] [--quiet]

Bad input (config, results folder, arguments) ends with one line on stderr and exit code 2, as
does a user's agent that fails during a run (agents.user); an interrupted run ends with exit
code 130 and keeps every finished game.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import signal
import sys

import experiments.bench
from agents.model import ModelError, load, shipped_models
from agents.table import AGENT_KINDS
from experiments.analysis.report import make_report
from experiments.depth.depth import load_depth, run_depth
from experiments.depth.report import make_depth_report
from experiments.fuzz import fuzz
from experiments.run import store
from experiments.run.config import ConfigError, load_config
from experiments.run.plan import missing_ranges
from experiments.run.runner import RunError, end_process, run
from experiments.run.store import ResultsError
from experiments.study.interventions import load_interventions, make_intervention_report
from experiments.study.report import make_study_report
from experiments.study.study import load_study, run_study
from experiments.tournament.report import make_tournament_report
from experiments.tournament.tournament import load_tournament, run_tournament
from experiments.train.config import load_train
from experiments.train.report import make_train_report
from experiments.train.train import run_train
from experiments.tune.report import make_tune_report
from experiments.tune.tune import load_tune, run_tune
from experiments.view import play, viewer
from sim.core import OptionError
from sim.registry import GameContractError, UnknownGameError, game_names, get_game

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _fail(msg: str) -> int:
    print(f"dynasty: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v


def _niceness(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer from -20 to 19, got {text!r}"
        ) from None
    if not -20 <= v <= 19:
        raise argparse.ArgumentTypeError(f"expected an integer from -20 to 19, got {v}")
    return v


def _sigterm_as_interrupt(signum, frame):
    raise KeyboardInterrupt


def cmd_run(args) -> int:

    cfg = load_config(args.config)
    signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    s = run(
        cfg,
        address=args.address,
        workers=args.workers,
        chunk_size=args.chunk_size,
        progress=not args.quiet,
        niceness=args.niceness,
    )
    t = s.timings
    if s.status == "interrupted":
        left = sum(
            b - a for a, b in missing_ranges(store.done_ranges(cfg.output, cfg.game), cfg.games)
        )
        print(
            f"interrupted: {cfg.games - left:,} of {cfg.games:,} games are saved in {cfg.output}; "
            f"run the same command to continue",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if s.played == 0:
        print(f"{cfg.output}: all {cfg.games:,} games were already played; nothing to do")
    else:
        rate = s.played / t["total_s"] if t.get("total_s") else float("nan")
        print(
            f"{cfg.output}: {s.played:,} games played ({cfg.games:,} in the "
            f"results) by {_count(s.workers, 'worker')} on {_count(s.nodes, 'node')}, chunks "
            f"of {s.chunk_size:,}; {t['total_s']:.1f} s in all (start-up "
            f"{t['startup_s']:.1f} s, play {t['play_wall_s']:.1f} s, "
            f"writing {t['write_s']:.1f} s), {rate:,.0f} games/s end to end"
        )
    print(f"report: dynasty report {cfg.output}")
    return 0


def _wrote(paths: dict) -> int:
    print(f"wrote {paths['markdown']} and {paths['html']} ({len(paths) - 2} plots)")
    return 0


def cmd_report(args) -> int:
    return _wrote(make_report(args.results, args.out))


def _resumable(args, run, cfg, saved, finished=None) -> int | None:
    """Run a resumable command's session (study, tournament, tune, train) unless
    ``--report-only``: a SIGTERM stops it as Ctrl-C does; an interruption says what is saved
    (``saved(summary)``) and gives EXIT_INTERRUPTED, a finished session prints
    ``finished(summary)``.  None: go on to the report."""
    if args.report_only:
        return None
    signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    s = run(
        cfg,
        workers=args.workers,
        address=args.address,
        niceness=args.niceness,
        progress=not args.quiet,
    )
    if s.status == "interrupted":
        print(f"interrupted: {saved(s)}; run the same command to continue", file=sys.stderr)
        return EXIT_INTERRUPTED
    if finished is not None:
        print(finished(s))
    return None


def cmd_study(args) -> int:
    study = load_study(args.config)
    code = _resumable(
        args,
        run_study,
        study,
        lambda s: f"the finished games of every cell are saved in {study.output}",
        lambda s: (
            f"{study.output}: {len(study.cells)} cells, "
            f"{sum(s.games.values()):,} games in all; {s.stopped_by}"
        ),
    )
    return code if code is not None else _wrote(make_study_report(study))


def cmd_interventions(args) -> int:
    s = load_interventions(args.config)
    study = s.study
    code = _resumable(
        args,
        run_study,
        study,
        lambda r: f"the finished games of every cell are saved in {study.output}",
        lambda r: (
            f"{study.output}: {len(study.cells)} cells, "
            f"{sum(r.games.values()):,} games in all; {r.stopped_by}"
        ),
    )
    if code is not None:
        return code
    _wrote(make_study_report(study))
    print(f"wrote {make_intervention_report(s)['interventions']} (and .html)")
    return 0


def _lineup_messages(output):
    """What a stopped and a finished tournament (or depth ladder) say of their lineups."""
    return (
        lambda s: f"{s.games:,} games of {s.lineups} lineups are saved in {output}",
        lambda s: (
            f"{output}: {s.lineups} lineups, {s.games:,} games in all ({s.played:,} played now)"
        ),
    )


def cmd_tournament(args) -> int:
    t = load_tournament(args.config)
    code = _resumable(args, run_tournament, t, *_lineup_messages(t.output))
    return code if code is not None else _wrote(make_tournament_report(t, anchor=args.anchor))


def cmd_depth(args) -> int:
    d = load_depth(args.config)
    code = _resumable(args, run_depth, d, *_lineup_messages(d.output))
    return code if code is not None else _wrote(make_depth_report(d))


def cmd_tune(args) -> int:
    tune = load_tune(args.config)
    code = _resumable(
        args,
        run_tune,
        tune,
        lambda s: f"{s.trials} finished trials and every finished game are saved in {tune.output}",
    )
    return code if code is not None else _wrote(make_tune_report(tune))


def cmd_train(args) -> int:
    cfg = load_train(args.config)
    code = _resumable(
        args,
        run_train,
        cfg,
        lambda s: (
            f"{s.generations} finished generations and every finished step are saved in "
            f"{cfg.output}"
        ),
        lambda s: f"{cfg.output}: {s.generations} generations; best: generation {s.best}",
    )
    return code if code is not None else _wrote(make_train_report(cfg))


def bench_names() -> list[str]:

    return sorted(
        m.name
        for m in pkgutil.iter_modules(experiments.bench.__path__)
        if not m.name.startswith("_")
    )


def cmd_bench(args) -> int:
    names = bench_names()
    if args.list:
        print("\n".join(names) if names else "no benchmarks")
        return 0
    if args.name is None:
        rc = 0
        for name in names:
            print(f"== dynasty bench {name}", flush=True)
            rc = max(rc, int(importlib.import_module(f"experiments.bench.{name}").main([]) or 0))
        return rc
    if args.name not in names:
        return _fail(f"unknown benchmark {args.name!r} (known: {', '.join(names) or 'none'})")
    return int(importlib.import_module(f"experiments.bench.{args.name}").main(list(args.args)) or 0)


def cmd_view(args) -> int:

    try:
        pages = viewer.write_pages(args.replays, args.out)
    except viewer.ViewerError as e:
        return _fail(str(e))
    for page in pages:
        print(f"wrote {page}")
    return 0


def cmd_play(args) -> int:

    try:
        return play.main_args(args)
    except play.PlayError as e:
        return _fail(str(e))


def cmd_fuzz(args) -> int:

    try:
        return fuzz.main_args(args)
    except fuzz.FuzzError as e:
        return _fail(str(e))


def _fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to 1, got {text!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a fraction from 0 to 1, got {v}")
    return v


def cmd_games(args) -> int:

    for name in game_names():
        try:
            spec = get_game(name)
        except Exception as e:  # a game folder that does not load yet: say so, list the rest
            print(f"{name}: does not load ({type(e).__name__}: {e})\n")
            continue
        print(f"{spec.name} — {spec.title}; players: {', '.join(map(str, spec.players()))}")
        for o in spec.options:
            allowed = ", ".join(o.choices) if o.choices is not None else f"{o.low}..{o.high}"
            print(f"  option {o.name} = {o.default!r}  ({allowed}) {o.doc}")
        if spec.feature_names:
            print(f"  features: {', '.join(spec.feature_names)}")
        print()
    print(
        "agents: "
        + ", ".join(sorted(AGENT_KINDS))
        + "  (e.g. 'random', 'heuristic', 'mcts:1000', 'mcts:50ms', 'policy:middle_kingdom', "
        "'mcts:5ms,net=middle_kingdom'), or your own by module path, 'mypkg.agents:greedy', "
        "with parameters 'mypkg.agents:greedy,depth=2' (docs/agents.md)"
    )
    models = shipped_models()
    print("models: " + ("none shipped" if not models else ""))
    for name in models:
        card = load(name).card
        leaf = ",leaf=rollout" if card.get("training", {}).get("leaf") == "rollout" else ""
        hint = ", reads the heuristic's action" if card.get("hint") else ""
        print(
            f"  {name}: {card['game']}, {', '.join(map(str, sorted(card['players'])))} players"
            f"{hint}, generation {card.get('generation', '?')}, trained "
            f"{card.get('train_s', 0) / 3600:.1f} h  (policy:{name}, mcts:5ms,net={name}{leaf})"
        )
    return 0


def _add_session_flags(p: argparse.ArgumentParser) -> None:
    """The flags of the commands that play many runs in one Ray session
    (study, tournament, tune)."""
    p.add_argument(
        "--address", help="join this Ray cluster (default: RAY_ADDRESS, else a local Ray)"
    )
    p.add_argument(
        "--workers", type=_positive, help="worker processes (default: every CPU of the cluster)"
    )
    p.add_argument("--niceness", type=_niceness, help="run a local Ray's workers at this niceness")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument(
        "--report-only",
        action="store_true",
        help="only write the report of the games already played",
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dynasty", description="dynasty-lab: seeded self-play experiments"
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    r = sub.add_parser("run", help="play an experiment's games (continues an interrupted run)")
    r.add_argument("config", help="experiment config (TOML)")
    r.add_argument(
        "--address", help="join this Ray cluster (default: RAY_ADDRESS, else a local Ray)"
    )
    r.add_argument(
        "--workers", type=_positive, help="worker processes (default: every CPU of the cluster)"
    )
    r.add_argument("--chunk-size", type=_positive, help="games per Ray task (default: automatic)")
    r.add_argument(
        "--niceness",
        type=_niceness,
        help="run a local Ray's workers at this niceness, e.g. 10 to yield "
        "to other work (default: the niceness of this command; a cluster keeps its own setting)",
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_run)

    rep = sub.add_parser(
        "report", help="write the Markdown/HTML win-rate report of a results folder"
    )
    rep.add_argument("results", help="output folder of `dynasty run`")
    rep.add_argument("--out", help="report folder (default: RESULTS/report)")
    rep.set_defaults(func=cmd_report)

    st = sub.add_parser(
        "study", help="play a balance study's cells on shared deals and write its comparison report"
    )
    st.add_argument("config", help="study config (TOML, docs/studies.md)")
    _add_session_flags(st)
    st.set_defaults(func=cmd_study)

    iv = sub.add_parser(
        "interventions",
        help="weaken each card of a game's component data in its own study cell and rank the "
        "paired effects",
    )
    iv.add_argument("config", help="interventions study config (TOML, docs/studies.md)")
    _add_session_flags(iv)
    iv.set_defaults(func=cmd_interventions)

    tn = sub.add_parser(
        "tournament", help="play a pool of agents in balanced lineups and write the ratings report"
    )
    tn.add_argument("config", help="tournament config (TOML, docs/agents.md)")
    _add_session_flags(tn)
    tn.add_argument(
        "--anchor", help="agent whose rating is 0 (default: ratings centred on the pool's mean)"
    )
    tn.set_defaults(func=cmd_tournament)

    dp = sub.add_parser(
        "depth",
        help="play a ladder of agents (a search at doubling budgets) step against step on shared "
        "deals and write the skill-depth report",
    )
    dp.add_argument("config", help="depth config (TOML, docs/studies.md)")
    _add_session_flags(dp)
    dp.set_defaults(func=cmd_depth)

    tu = sub.add_parser(
        "tune",
        help="search component values for a design objective, or an MCTS agent's parameters for "
        "its edge over a yardstick (Optuna), the best re-checked on fresh deals",
    )
    tu.add_argument("config", help="tuning config (TOML, docs/studies.md)")
    _add_session_flags(tu)
    tu.set_defaults(func=cmd_tune)

    tr = sub.add_parser(
        "train",
        help="train a learned agent by self-play (expert iteration) and write its report",
    )
    tr.add_argument("config", help="training config (TOML, docs/training.md)")
    _add_session_flags(tr)
    tr.set_defaults(func=cmd_train)

    b = sub.add_parser(
        "bench", help="run a benchmark from experiments/bench (all of them without NAME)"
    )
    b.add_argument("name", nargs="?", help="benchmark name")
    b.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the benchmark")
    b.add_argument("--list", action="store_true", help="list the benchmarks")
    b.set_defaults(func=cmd_bench)

    v = sub.add_parser(
        "view", help="write the HTML viewer page of replays (a file, or a results folder's samples)"
    )
    v.add_argument(
        "replays", nargs="+", help="replay JSON files or results folders (their replays/)"
    )
    v.add_argument("--out", help="folder for the pages (default: beside each replay)")
    v.set_defaults(func=cmd_view)

    pl = sub.add_parser("play", help="play a game in the terminal against agents")
    pl.add_argument("game", help="game id (see `dynasty games`)")
    pl.add_argument("--players", type=_positive, default=2, help="number of seats (default 2)")
    pl.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0)")
    pl.add_argument(
        "--opponents",
        default="heuristic",
        help="agents of the other seats in seat order after yours, "
        "comma-separated, repeated as needed (default heuristic; e.g. heuristic,mcts:500)",
    )
    pl.add_argument("--seed", type=int, help="the deal's seed (default: from the clock, printed)")
    pl.add_argument(
        "--option", action="append", metavar="NAME=VALUE", help="a rule option (repeatable)"
    )
    pl.add_argument("--out", help="replay file (default dynasty-play-GAME-SEED.json)")
    pl.set_defaults(func=cmd_play)

    fz = sub.add_parser(
        "fuzz",
        help="play random, heuristic, mixed and MCTS games with every rule option drawn at "
        "random, checking every invariant after every decision (docs/reliability.md)",
    )
    fz.add_argument("game", help="game id (see `dynasty games`)")
    fz.add_argument("--games", type=_positive, required=True, help="number of games")
    fz.add_argument(
        "--players", type=_positive, help="seats in every game (default: drawn per game)"
    )
    fz.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    fz.add_argument(
        "--mcts-share",
        type=_fraction,
        default=0.02,
        help="share of games with one short-budget MCTS seat (default 0.02)",
    )
    fz.add_argument(
        "--out", help="folder for the replay of a game that breaks an invariant (default: here)"
    )
    fz.add_argument(
        "--time-limit",
        type=float,
        help="stop after this many seconds (the games played are reported)",
    )
    fz.add_argument("--quiet", action="store_true", help="no progress lines")
    fz.set_defaults(func=cmd_fuzz)

    g = sub.add_parser("games", help="list games, player counts, options and agents")
    g.set_defaults(func=cmd_games)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    try:
        return args.func(args)
    except (
        ConfigError,
        ResultsError,
        RunError,
        OptionError,
        UnknownGameError,
        GameContractError,
        ModelError,
    ) as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def entry() -> None:
    """The ``dynasty`` command: :func:`main`, then the process ends
    (:func:`experiments.run.runner.end_process`)."""
    code = main()

    end_process(code)


if __name__ == "__main__":
    entry()
