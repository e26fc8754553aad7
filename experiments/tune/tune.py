"""``dynasty tune``: search component values for a design objective with Optuna, each trial an
ordinary run on shared deals, the best candidates re-checked on fresh deals.

A tuning config (TOML)::

    name = "mk_goal_vp"
    output = "results/tune/mk_goal_vp"
    objective = "seat_gap"        # a design metric to minimise
                                  # (experiments.study.stats.design_metrics)
    trials = 24                   # Optuna trials (TPE, seeded)
    games = 20000                 # games per trial, on the same deals for every trial
    recheck = 3                   # best candidates re-played on fresh deals ...
    recheck_games = 100000        # ... with this many games, against the printed values
    min_skill_gap = 0.05          # optional constraint: trials whose skill gap is below it
                                  # are penalised
    [base]                        # an experiment config without output and games
    game = "middle_kingdom"
    players = 2
    agents = ["random"]
    seed = 1
    [search]                      # component paths with their search range
                                  # (inside the declared one)
    "goal_cards[*].vp" = [2, 8]

**An agent's parameters.**  With ``objective = "agent_edge"`` the search is over one MCTS agent's
parameters instead of component values: the keys name the agent by its place in ``base.agents``
and the parameter, and the tuned agent plays the others of the lineup (usually the same search
with its default parameters, on the same time budget per decision)::

    objective = "agent_edge"      # the tuned agent's win rate minus the other agents', maximised
    [base]
    game = "ming_dynasty"
    players = 2
    agents = ["mcts:2ms", "mcts:2ms"]
    seed = 1
    [search]
    "agents[0].uct_c" = [0.1, 2.0]        # a float range
    "agents[0].rollout_depth" = [0, 60]   # an integer range (0 = to the end)
    "agents[0].rollout" = ["random", "heuristic"]   # a choice

Tunable: ``uct_c`` and ``prior`` (float ranges), ``rollout_depth`` and ``simulations`` (integer
ranges), ``rollout`` (a list of choices).  The tuned agent is labelled ``tuned <its parameters>``
in the results, so it stays apart from an identical opponent; the re-check's "printed" run is the
tuned agent with the base parameters, whose edge is the control (about 0 against a copy).  With a
time budget (``mcts:2ms``) every candidate gets the same CPU time per decision, so the tuning
compares strength at equal cost; a timed search is not a pure function of the seed (its number of
simulations depends on the machine), so neither is such a tuning.

**Noise.**  Every trial's objective is a measured value with an interval (n = deals); Optuna
sees the point estimate, and because every trial plays the same deals (one master seed), the
differences between trials are paired: the noise that is common to all of them cancels out of
the ranking.  What remains (the selection of the luckiest trial, the "winner's curse") is why the
``recheck`` best trials are played again on fresh deals (another master seed, more games), next
to the printed values on the same fresh deals, and only those numbers are reported as the result.

The folder holds the tuning's config (``tune.toml``), one results folder per trial
(``trials/<values>``, its run config in its manifest) and per re-check (``recheck/``), Optuna's
study in ``optuna.db`` (so a stopped tuning resumes: finished trials are kept, a trial stopped
mid-run is asked again with the same values and its run continues) and ``report/`` (Markdown, HTML,
the plot of the search).
"""

from __future__ import annotations

import copy
import json
import math
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from experiments.run.config import ConfigError, ExperimentConfig, from_dict

REQUIRED = ("base", "output", "search", "trials", "games")
OPTIONAL = ("name", "description", "objective", "recheck", "recheck_games", "min_skill_gap", "seed")
OBJECTIVES = {
    "seat_gap": "largest seat gap (best seat's win rate - worst seat's), minimised",
    "tie_rate": "share of games with tied winners, minimised",
    "no_winner_rate": "share of games no seat won, minimised",
    "agent_edge": "the tuned agent's win rate minus the other agents', maximised",
}
MAXIMISED = ("agent_edge",)  # Optuna minimises -value for these
AGENT_KEY = re.compile(r"^agents\[(\d+)\]\.([a-z_]+)$")
AGENT_PARAMS = {
    "uct_c": float,
    "prior": float,
    "rollout_depth": int,
    "simulations": int,
    "rollout": str,
}
TUNED = "tuned "  # the tuned agent's label: TUNED + its canonical label
RECHECK_SALT = 0x726563686B  # "rechk": the fresh deals' master seed is hash64(seed, this)


@dataclass(frozen=True)
class Tune:
    name: str
    description: str
    output: Path
    base: dict[str, Any]
    search: dict[
        str, tuple
    ]  # path -> (low, high) (int, or float for a float agent parameter), or a tuple of choices
    trials: int
    games: int
    objective: str = "seat_gap"
    recheck: int = 3
    recheck_games: int = 0
    min_skill_gap: float | None = None
    seed: int = 0
    source: str = ""

    @property
    def agent(self) -> int | None:
        """The index in ``base.agents`` of the agent whose parameters are searched
        (None: component values)."""
        for k in self.search:
            m = AGENT_KEY.match(k)
            if m:
                return int(m[1])
        return None

    def identity(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "search": {k: list(v) for k, v in self.search.items()},
            "games": self.games,
            "objective": self.objective,
            "min_skill_gap": self.min_skill_gap,
            "seed": self.seed,
        }


def load_tune(path: str | Path) -> Tune:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the tuning config ({e.strerror or e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    return tune_from_dict(data, str(path))


def tune_from_dict(data: dict[str, Any], source: str = "tune") -> Tune:
    from sim.components import ComponentError, range_of, validate
    from sim.registry import UnknownGameError, get_game

    def fail(where: str, msg: str) -> ConfigError:
        return ConfigError(f"{source}: {where}: {msg}")

    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise fail(unknown[0], f"unknown key (allowed: {', '.join(REQUIRED + OPTIONAL)})")
    for k in REQUIRED:
        if k not in data:
            raise ConfigError(f"{source}: missing key {k!r} (required: {', '.join(REQUIRED)})")
    base = data["base"]
    if not isinstance(base, dict):
        raise fail("base", "expected a table: an experiment config without output and games")
    for k in ("output", "games", "replays"):
        if k in base:
            raise fail(f"base.{k}", "set by the tuning config, not the base")
    game = base.get("game")
    search = data["search"]
    if not isinstance(search, dict) or not search:
        raise fail("search", "empty search: give at least one component path = [low, high]")
    ranges: dict[str, tuple] = {}
    agent_keys = [k for k in search if isinstance(k, str) and k.startswith("agents[")]
    if agent_keys and len(agent_keys) != len(search):
        other = next(k for k in search if k not in agent_keys)
        raise fail(
            f"search.{other}",
            'objective "agent_edge" searches one agent\'s parameters only '
            "(agents[i].<parameter>); tune component values in another tuning",
        )
    if agent_keys:
        ranges.update(_agent_ranges(base, {k: search[k] for k in agent_keys}, fail))
    for path, rng in search.items():
        if path in ranges:
            continue
        if (
            not isinstance(rng, list)
            or len(rng) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) for v in rng)
            or rng[0] >= rng[1]
        ):
            raise fail(
                f"search.{path}", f"expected [low, high] integers with low < high, got {rng!r}"
            )
        try:
            spec = get_game(str(game))
        except UnknownGameError as e:
            raise fail("base.game", str(e)) from None
        try:
            validate(spec, {path: rng[0]})
            validate(spec, {path: rng[1]})
        except ComponentError as e:
            raise fail(f"search.{path}", str(e)) from None
        decl = range_of(spec, path)
        ranges[path] = (rng[0], rng[1])
        assert decl.low <= rng[0] and rng[1] <= decl.high
    for k in ("trials", "games"):
        if isinstance(data[k], bool) or not isinstance(data[k], int) or data[k] < 1:
            raise fail(k, f"expected a positive integer, got {data[k]!r}")
    objective = data.get("objective", "agent_edge" if agent_keys else "seat_gap")
    if objective not in OBJECTIVES:
        raise fail("objective", f"{objective!r} is not known (known: {', '.join(OBJECTIVES)})")
    if agent_keys and objective != "agent_edge":
        raise fail(
            "objective",
            f"a search over an agent's parameters ({agent_keys[0]}) needs objective = "
            f'"agent_edge", got {objective!r}',
        )
    if objective == "agent_edge" and not agent_keys:
        raise fail(
            "objective",
            '"agent_edge" tunes an agent: search its parameters (agents[i].<parameter>)',
        )
    if objective == "agent_edge" and data.get("min_skill_gap") is not None:
        raise fail("min_skill_gap", 'not used with objective "agent_edge"')
    recheck = data.get("recheck", 3)
    if (
        isinstance(recheck, bool)
        or not isinstance(recheck, int)
        or not 0 <= recheck <= data["trials"]
    ):
        raise fail("recheck", f"expected 0..{data['trials']} candidates, got {recheck!r}")
    recheck_games = data.get("recheck_games", 5 * data["games"])
    if isinstance(recheck_games, bool) or not isinstance(recheck_games, int) or recheck_games < 1:
        raise fail("recheck_games", f"expected a positive integer, got {recheck_games!r}")
    msg = data.get("min_skill_gap")
    if msg is not None and (isinstance(msg, bool) or not isinstance(msg, (int, float))):
        raise fail("min_skill_gap", f"expected a number, got {msg!r}")
    output = Path(str(data["output"]))
    probe = dict(copy.deepcopy(base), output=str(output / "probe"), games=60)
    comps = {p: r[0] for p, r in ranges.items() if not AGENT_KEY.match(p)}
    if comps:
        probe.setdefault("components", {}).update(comps)
    from_dict(probe, f"{source}: base")
    return Tune(
        name=data.get("name", output.name),
        description=data.get("description", ""),
        output=output,
        base=copy.deepcopy(base),
        search=ranges,
        trials=data["trials"],
        games=data["games"],
        objective=objective,
        recheck=recheck,
        recheck_games=recheck_games,
        min_skill_gap=None if msg is None else float(msg),
        seed=int(data.get("seed", 0)),
        source=source,
    )


def _agent_ranges(base: dict[str, Any], keys: dict[str, Any], fail) -> dict[str, tuple]:
    """Validated search ranges of one MCTS agent's parameters (``agents[i].<parameter>``)."""
    from agents.spec import AgentSpecError, parse_agent

    agents, players = base.get("agents"), base.get("players")
    index = None
    out: dict[str, tuple] = {}
    for key, rng in keys.items():
        m = AGENT_KEY.match(key)
        if not m:
            raise fail(
                f"search.{key}", "expected agents[<index>].<parameter>, e.g. agents[0].uct_c"
            )
        i, param = int(m[1]), m[2]
        if not isinstance(agents, list) or len(agents) != players:
            raise fail(
                f"search.{key}",
                f"base.agents must list one agent per seat ({players}) so that agents[{i}] "
                f"names one of them, got {agents!r}",
            )
        if i >= len(agents):
            raise fail(
                f"search.{key}",
                f"base.agents has {len(agents)} agents (agents[0]..agents[{len(agents) - 1}])",
            )
        if index is not None and i != index:
            raise fail(f"search.{key}", f"one agent is tuned at a time (agents[{index}] already)")
        index = i
        if not _is_mcts(agents[i]):
            raise fail(
                f"search.{key}",
                f"agents[{i}] is {agents[i]!r}; only an MCTS agent has parameters to tune",
            )
        if param not in AGENT_PARAMS:
            raise fail(
                f"search.{key}",
                f"{param!r} is not a tunable MCTS parameter (tunable: {', '.join(AGENT_PARAMS)})",
            )
        kind = AGENT_PARAMS[param]
        if kind is str:
            if (
                not isinstance(rng, list)
                or len(rng) < 2
                or len(set(map(str, rng))) != len(rng)
                or not all(isinstance(v, str) for v in rng)
            ):
                raise fail(
                    f"search.{key}",
                    f"expected a list of at least two distinct choices, got {rng!r}",
                )
            ends = list(rng)
            out[key] = tuple(rng)
        else:
            num = (int,) if kind is int else (int, float)
            if (
                not isinstance(rng, list)
                or len(rng) != 2
                or any(isinstance(v, bool) or not isinstance(v, num) for v in rng)
                or rng[0] >= rng[1]
            ):
                what = "integers" if kind is int else "numbers"
                raise fail(
                    f"search.{key}", f"expected [low, high] {what} with low < high, got {rng!r}"
                )
            ends = list(rng)
            out[key] = (kind(rng[0]), kind(rng[1]))
        for v in ends:
            try:
                parse_agent(tuned_spec(agents[i], {param: v}))
            except AgentSpecError as e:
                raise fail(f"search.{key}", str(e)) from None
    return out


def _is_mcts(spec: Any) -> bool:
    if isinstance(spec, str):
        return spec.strip().partition(":")[0] == "mcts"
    return isinstance(spec, dict) and spec.get("kind") == "mcts"


def tuned_spec(spec: str | dict, values: dict[str, Any]) -> dict[str, Any]:
    """The agent table of MCTS agent ``spec`` with ``values`` for some of its parameters, labelled
    ``tuned <canonical label>`` (so it stays apart from an opponent with the same parameters)."""
    from agents.spec import mcts_args, parse_agent

    if isinstance(spec, str):
        args = mcts_args(spec.strip().partition(":")[2]) if ":" in spec else {}
    else:
        args = {k: v for k, v in spec.items() if k not in ("kind", "label")}
    args.update(values)
    _, _, label = parse_agent({"kind": "mcts", **args})
    return {"kind": "mcts", **args, "label": TUNED + label}


def slug(values: dict[str, Any]) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9=,._+-]+", "_", ",".join(f"{k}={v}" for k, v in values.items()))[:80]


def cell_config(
    tune: Tune,
    values: dict[str, int],
    folder: Path,
    games: int,
    seed: int | None = None,
    name: str = "",
) -> ExperimentConfig:
    d = copy.deepcopy(tune.base)
    d.setdefault("score_trace", True)  # every design metric can be the objective or reported
    if tune.agent is not None:  # an agent's parameters (the printed run: its base parameters)
        d["agents"][tune.agent] = tuned_spec(
            d["agents"][tune.agent], {AGENT_KEY.match(k)[2]: v for k, v in values.items()}
        )
        values = {}
    d.setdefault("components", {}).update(values)
    if not d["components"]:
        del d["components"]
    label = name or slug(values) or "printed"
    d.update(output=str(folder), games=games, name=label)
    if seed is not None:
        d["seed"] = seed
    # Not the tuning's file as source: the runner keeps a config file it is given in the folder, and
    # the tuning's file is not this run's config (the manifest records it, as for a study's cells).
    source = f"{tune.source}: {label}"
    cfg = from_dict(dict(d, games=60), source)
    from experiments.study.study import round_games

    return from_dict(dict(d, games=round_games(games, cfg)), source)


def measure(cfg: ExperimentConfig, objective: str, alpha: float = 0.05) -> dict[str, Any]:
    """The design metrics of one finished run (the objective's ``value``, ``low``, ``high``, ``n``),
    and ``agent_edge`` when one of its agents is a tuned one."""
    from experiments.analysis.results import Results
    from experiments.study.stats import agent_edge, design_metrics

    with Results(cfg.output) as res:
        out = design_metrics(res, "results", cfg.players, cfg.games, alpha)
        tuned = [a.label for a in cfg.agents if a.label.startswith(TUNED)]
        if tuned:
            out["agent_edge"] = agent_edge(res, "results", tuned[0], cfg.games, alpha)
        return out


def better(objective: str, a: float, b: float) -> bool:
    """Whether objective value ``a`` is better than ``b``."""
    return a > b if objective in MAXIMISED else a < b


def objective_value(metrics: dict[str, Any], tune: Tune) -> float:
    v = metrics[tune.objective]["value"]
    if tune.objective in MAXIMISED:
        return -float(v)
    if tune.min_skill_gap is not None:
        sg = metrics.get("skill_gap", {}).get("value", -math.inf)
        if sg < tune.min_skill_gap:
            v += 1.0 + (
                tune.min_skill_gap - sg
            )  # constraint violated: worse than any feasible value
    return float(v)


def search(
    tune: Tune,
    evaluate: Callable[[dict[str, int]], float],
    storage: str | None = None,
    study_name: str = "tune",
):
    """Optuna's TPE search (seeded) over the ranges of ``tune.search``, resumable from ``storage``:
    finished trials are kept, and a trial that did not finish (left running by a killed process,
    or failed by an interrupt) is asked again with its values, once.

    The sampler's seed is ``tune.seed`` plus the number of trials already stored, so a resumed
    search goes on from where it stopped instead of drawing its first random samples again, and
    stays a pure function of the config and the stored trials."""
    import optuna

    # ERROR: a trial that fails (a run's error, an interruption) is Optuna's warning with a
    # traceback; the command reports it in one line instead
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(
        study_name=study_name, storage=storage, direction="minimize", load_if_exists=True
    )
    stored = study.get_trials(deepcopy=False)
    study.sampler = optuna.samplers.TPESampler(
        seed=tune.seed + len(stored), n_startup_trials=min(8, max(2, tune.trials // 3))
    )
    S = optuna.trial.TrialState
    settled = {
        json.dumps(trial_values(t.params), sort_keys=True)
        for t in stored
        if t.state in (S.COMPLETE, S.WAITING)
    }
    for t in stored:
        if t.state == S.RUNNING:  # its process was killed mid-trial
            study.tell(t.number, state=S.FAIL)
        if t.state in (S.RUNNING, S.FAIL) and len(t.params) == len(tune.search):
            key = json.dumps(trial_values(t.params), sort_keys=True)
            if key not in settled:  # not finished under any trial: ask its values again
                study.enqueue_trial(t.params)
                settled.add(key)
    done = len([t for t in study.trials if t.state == S.COMPLETE])

    def suggest(trial, p, rng):
        if isinstance(rng[0], str):
            return trial.suggest_categorical(p, list(rng))
        if isinstance(rng[0], float):
            return _round(trial.suggest_float(p, rng[0], rng[1]))
        return trial.suggest_int(p, rng[0], rng[1])

    def obj(trial):
        return evaluate({p: suggest(trial, p, rng) for p, rng in tune.search.items()})

    if done < tune.trials:
        study.optimize(obj, n_trials=tune.trials - done)
    return study


def _round(v: Any) -> Any:
    return (
        round(v, 4) if isinstance(v, float) else v
    )  # 4 digits: part of an agent's label and a folder's name


def trial_values(params: dict[str, Any]) -> dict[str, Any]:
    """The values a trial played (Optuna keeps float parameters unrounded)."""
    return {k: _round(v) for k, v in params.items()}


def best_candidates(study, k: int) -> list:
    """The ``k`` best finished trials with distinct values (the ones re-checked on fresh deals)."""
    import optuna

    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    unique = {
        json.dumps(trial_values(t.params), sort_keys=True): t
        for t in sorted(done, key=lambda t: -t.value)
    }
    return sorted(unique.values(), key=lambda t: t.value)[:k]


@dataclass
class TuneSummary:
    output: Path
    status: str  # "complete" | "interrupted"
    trials: int  # finished trials


def _open_output(tune: Tune) -> None:
    """Claim ``tune.output`` for this tuning (its identity in tune.json), or refuse a folder made
    by another config."""
    from experiments.run.store import ResultsError, atomic_write

    out = tune.output
    out.mkdir(parents=True, exist_ok=True)
    ident_file = out / "tune.json"
    ident = json.loads(json.dumps(tune.identity()))
    if ident_file.exists():
        if json.loads(ident_file.read_text()).get("identity") != ident:
            raise ResultsError(
                f"{tune.source}: output: {out} was made by "
                "another tuning config; choose another output"
            )
    elif any(out.iterdir()):
        raise ResultsError(
            f"{tune.source}: output: {out} is not empty "
            "and holds no tune.json; choose another output"
        )
    atomic_write(ident_file, (json.dumps({"identity": ident}, indent=1) + "\n").encode())
    if tune.source and Path(tune.source).is_file():  # as studies and tournaments keep theirs
        atomic_write(out / "tune.toml", Path(tune.source).read_bytes())


def _storage(tune: Tune) -> str:
    return f"sqlite:///{tune.output / 'optuna.db'}"


def recheck_configs(
    tune: Tune, study
) -> tuple[ExperimentConfig, list[tuple[Any, ExperimentConfig]]]:
    """The re-check on fresh deals: the printed (or base) values' run, and (trial, run) of each
    of the best distinct trials."""
    from sim.core import hash64

    seed = int(hash64(np.int64(tune.base["seed"]), np.int64(RECHECK_SALT))) & (2**63 - 1)
    printed = cell_config(
        tune,
        {},
        tune.output / "recheck" / "printed",
        tune.recheck_games,
        seed,
        "base parameters" if tune.agent is not None else "printed values",
    )
    best = []
    for t in best_candidates(study, tune.recheck):
        values = trial_values(t.params)
        folder = tune.output / "recheck" / slug(values)
        best.append((t, cell_config(tune, values, folder, tune.recheck_games, seed)))
    return printed, best


def run_tune(
    tune: Tune,
    *,
    workers: int | None = None,
    address: str | None = None,
    niceness: int | None = None,
    progress: bool = True,
) -> TuneSummary:
    """Search (resuming the trials stored in the output folder), then re-check the best candidates
    on fresh deals beside the printed values.  One Ray session serves every run."""
    from experiments.run import runner

    _open_output(tune)
    status = "complete"
    study = None
    try:
        with runner.ray_session(address, workers, niceness):

            def evaluate(values: dict[str, int]) -> float:
                cfg = cell_config(tune, values, tune.output / "trials" / slug(values), tune.games)
                if runner.run(cfg, workers=workers, progress=progress).status != "complete":
                    raise KeyboardInterrupt  # Optuna records the trial as failed: asked again
                return objective_value(measure(cfg, tune.objective), tune)

            study = search(tune, evaluate, storage=_storage(tune))
            printed, best = recheck_configs(tune, study)
            for cfg in [printed] + [cfg for _, cfg in best]:
                if runner.run(cfg, workers=workers, progress=progress).status != "complete":
                    raise KeyboardInterrupt
    except KeyboardInterrupt:
        status = "interrupted"
    return TuneSummary(tune.output, status, finished_trials(study) if study is not None else 0)


def finished_trials(study) -> int:
    import optuna

    return len([t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE])


@dataclass
class TuneResults:
    """What the report of a tuning shows, measured from its folder."""

    study: Any  # the Optuna study
    trials: dict[str, dict[str, Any]]  # slug -> {"values", "metrics"} of every finished trial
    rechecks: list[dict[str, Any]]  # the best trials re-played on fresh deals
    printed: ExperimentConfig  # the printed (or base) values' re-check run
    printed_metrics: dict[str, Any]


def tune_results(tune: Tune) -> TuneResults:
    """The finished trials and re-checks of ``tune``'s folder, measured (ResultsError if the
    search or its re-check has not finished: run ``dynasty tune`` again to go on)."""
    import optuna

    from experiments.run.store import ResultsError

    if not (tune.output / "optuna.db").is_file():
        raise ResultsError(f"{tune.output}: no trials yet; run `dynasty tune` first")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(study_name="tune", storage=_storage(tune))
    finished = finished_trials(study)  # a value asked twice is two trials, one folder
    if finished < tune.trials:
        raise ResultsError(
            f"{tune.output}: {finished} of {tune.trials} trials finished; run `dynasty tune` "
            "again to go on"
        )
    trials = {}
    for t in study.trials:
        if t.state == optuna.trial.TrialState.COMPLETE:
            values = trial_values(t.params)
            if slug(values) not in trials:
                cfg = cell_config(tune, values, tune.output / "trials" / slug(values), tune.games)
                trials[slug(values)] = {"values": values, "metrics": measure(cfg, tune.objective)}
    printed, best = recheck_configs(tune, study)
    for cfg in [printed] + [cfg for _, cfg in best]:
        if not _complete(cfg):
            raise ResultsError(
                f"{cfg.output}: the re-check has not finished; run `dynasty tune` again to go on"
            )
    rechecks = [
        {
            "values": trial_values(t.params),
            "search_value": t.value,
            "metrics": measure(cfg, tune.objective),
            "config": cfg,
        }
        for t, cfg in best
    ]
    return TuneResults(study, trials, rechecks, printed, measure(printed, tune.objective))


def _complete(cfg: ExperimentConfig) -> bool:
    from experiments.run import store
    from experiments.run.plan import missing_ranges

    return not missing_ranges(store.done_ranges(cfg.output, cfg.game), cfg.games)
