"""The training config (``dynasty train TRAIN.toml``), validated into a :class:`TrainConfig`.

::

    name = "middle_kingdom"
    game = "middle_kingdom"
    players = 4                    # or a list: one network for every count listed
    seed = 1
    output = "results/train/middle_kingdom"
    generations = 6                # generation 0 clones the heuristic; 1.. learn by self-play
    [options]                      # rule options, as in a run config
    [network]
    hidden = 128                   # units of each of the two hidden layers
    hint = false                   # a hint model: also reads the heuristic's action
    [warm_start]                   # generation 0: the heuristic's choices and outcomes
    games = 2000
    agent = "heuristic"            # or "search": MCTS without a network (selfplay.simulations),
                                   # or such a search spelled out: "mcts:100,rollout=heuristic"
    [selfplay]                     # generations 1..: the search with the current network
    games = 400                    # games per generation
    simulations = 100              # MCTS simulations per decision (with the network)
    # or the whole search, to which the network is added: "mcts:100,rollout=heuristic"
    # (search = ... gives the simulations; it replaces simulations = ...)
    sample_decisions = 30          # a game's first decisions drawn from the visit counts
    record_every = 1               # keep every k-th decision as a training example
    leaf = "network"               # the search values new nodes by the network, or "rollout"
    net_temp = 1.0                 # the softmax temperature of the network's priors
    [fit]
    epochs = 4
    batch = 256
    lr = 0.001
    weight_decay = 0.0001
    window = 3                     # generations of data a fit reads (the newest ones)
    threads = 1                    # PyTorch threads (the same weights for the same threads)
    target_temperature = 1.0       # < 1 sharpens the search's visit shares before the fit
    [head]                         # a linear head over the game's action features (a hint
                                   # model; agents/net.py): generation 0's games ask this search
    search = "mcts:1600,rollout=heuristic,rollout_depth=20,prior=1"   # at a share of the
    share = 0.35                   # decisions where the game gives features; its visits are
                                   # the head's targets (fitted once, kept by later generations)
    [gate]
    deals = 100                    # shared deals of each gating match
    against = ["best", "heuristic"]   # a candidate is kept if it beats these
    agent = "policy"               # the candidate plays as its policy ("policy") or its search
    both_ways = true               # also the opponent alone against the candidate's copies
    temperature = 0.0              # the policies play greedily (0) or sample at this temperature

Every count and rate is checked; an unknown key, a wrong type or a value out of range is one
line naming the key (:class:`experiments.run.config.ConfigError`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.run.config import MAX_SEED, ConfigError
from sim.core import OptionError
from sim.registry import UnknownGameError, get_game

SECTIONS = {
    "network": {"hidden": (int, 8, 1024, 128)},
    "warm_start": {"games": (int, 10, 10**7, 2000)},
    "selfplay": {
        "games": (int, 1, 10**7, 400),
        "simulations": (int, 2, 100_000, 100),
        "sample_decisions": (int, 0, 10**6, 30),
        "record_every": (int, 1, 10**6, 1),
        "net_temp": (float, 0.05, 100.0, 1.0),
    },
    "fit": {
        "epochs": (int, 1, 1000, 4),
        "batch": (int, 8, 65536, 256),
        "lr": (float, 1e-6, 1.0, 1e-3),
        "weight_decay": (float, 0.0, 1.0, 1e-4),
        "window": (int, 1, 1000, 3),
        "threads": (int, 1, 256, 1),
        "target_temperature": (float, 0.05, 1.0, 1.0),
    },
    "gate": {"deals": (int, 10, 10**6, 100), "temperature": (float, 0.0, 10.0, 0.0)},
    "head": {"share": (float, 0.001, 1.0, 0.35), "l2": (float, 0.0, 1.0, 1e-4)},
}
GATE_AGAINST = ("best", "heuristic", "random")
GATE_AGENTS = ("policy", "search")
LEAVES = ("network", "rollout")
WARM_AGENTS = ("heuristic", "search")
TOP = ("name", "description", "game", "players", "seed", "output", "generations", "options")
REQUIRED = ("game", "players", "seed", "output", "generations")


@dataclass(frozen=True)
class TrainConfig:
    name: str
    game: str
    players: tuple[int, ...]
    seed: int
    output: Path
    generations: int
    options: dict[str, Any]
    hidden: int
    warm_games: int
    warm_agent: str
    selfplay_games: int
    simulations: int
    selfplay_search: str  # the MCTS spec generations 1.. add the net to ("": mcts:<simulations>)
    sample_decisions: int
    record_every: int
    leaf: str
    epochs: int
    batch: int
    lr: float
    weight_decay: float
    window: int
    threads: int
    target_temperature: float
    gate_deals: int
    gate_against: tuple[str, ...]
    gate_agent: str
    gate_both_ways: bool
    gate_temperature: float
    hint: bool = False  # a hint model (agents/net.py): the heuristic's action is an input
    net_temp: float = 1.0  # the self-play search's softmax temperature of the network's priors
    head_search: str = ""  # the search whose visits a linear head is fitted to ("": no head)
    head_share: float = 0.35  # the share of generation 0's decisions with features it searches
    head_l2: float = 1e-4  # the head's L2 penalty
    description: str = ""
    source: str = field(default="", compare=False)

    @property
    def warm_search(self) -> str | None:
        """The MCTS spec generation 0 plays (None: the heuristic)."""
        if self.warm_agent == "heuristic":
            return None
        return f"mcts:{self.simulations}" if self.warm_agent == "search" else self.warm_agent

    @property
    def gates_both_ways(self) -> bool:
        """Whether the gate also plays the opponent alone (``both_ways``, 3-5 players)."""
        return self.gate_both_ways and self.players[0] > 2

    def policy(self, model: str) -> str:
        """The agent spec of ``model``'s policy as the gate plays it."""
        t = self.gate_temperature
        return f"policy:{model}" + (f",temperature={t:g}" if t > 0 else "")

    def gated(self, model: str) -> str:
        """The agent spec the gate plays ``model`` as: its policy or the training's search."""
        return self.policy(model) if self.gate_agent == "policy" else self.search(model)

    def search(self, model: str) -> str:
        """The agent spec of the training's search guided by ``model``."""
        leaf = ",leaf=rollout" if self.leaf == "rollout" else ""
        temp = f",net_temp={self.net_temp:g}" if self.net_temp != 1.0 else ""
        return f"{self.selfplay_search or f'mcts:{self.simulations}'},net={model}{leaf}{temp}"

    def timed_search(self, model: str, ms: float = 5) -> str:
        """:meth:`search` at a budget of ``ms`` per decision instead of its simulations."""
        return f"mcts:{ms:g}ms,{self.search(model).partition(',')[2]}"

    @property
    def spec(self):
        return get_game(self.game)

    def identity(self) -> dict[str, Any]:
        """What determines the training's data and weights (a resumed training must match it;
        ``generations`` may grow)."""
        d = {k: v for k, v in self.__dict__.items() if k not in ("source", "output", "name")}
        d.pop("description", None)
        d.pop("generations", None)
        d["players"] = list(self.players)
        d["gate_against"] = list(self.gate_against)
        return d


# Identity keys added after trainings were made, with what those trainings did.
IDENTITY_SINCE = {
    "gate_both_ways": False,
    "target_temperature": 1.0,
    "gate_temperature": 0.0,
    "selfplay_search": "",
    "hint": False,
    "net_temp": 1.0,
    "head_search": "",
    "head_share": 0.35,
    "head_l2": 1e-4,
}


def stored_identity(identity: dict[str, Any]) -> dict[str, Any]:
    """A recorded identity (train.json, a model's card) with the keys added since it was made."""
    return {**IDENTITY_SINCE, **identity}


def _search_spec(text: Any, fail, where: str = "warm_start.agent") -> tuple[str, int]:
    """The canonical label and the simulations of a warm start's or the self-play's MCTS spec
    (no network, a simulation budget)."""
    from agents.mcts import P_NET, P_SIMULATIONS, P_TIME_MS
    from agents.spec import AgentSpecError, parse_agent
    from agents.table import MCTS

    expected = (
        f"expected one of {', '.join(WARM_AGENTS)} or an MCTS spec such as 'mcts:100'"
        if where == "warm_start.agent"
        else "expected an MCTS spec such as 'mcts:100,rollout=heuristic'"
    )
    if not isinstance(text, str) or not text.startswith("mcts:"):
        raise fail(where, f"{expected}, got {text!r}")
    try:
        kind, params, label = parse_agent(text)
    except AgentSpecError as e:
        raise fail(where, str(e)) from None
    if kind != MCTS or params[P_NET] > 0 or params[P_TIME_MS] > 0:
        raise fail(
            where,
            f"{expected} without a network or a time budget (the data must be reproducible), "
            f"got {text!r}",
        )
    return label, int(params[P_SIMULATIONS])


def load_train(path: str | Path) -> TrainConfig:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    return train_from_dict(data, str(path))


def train_from_dict(data: dict[str, Any], source: str = "train") -> TrainConfig:
    def fail(where: str, msg: str) -> ConfigError:
        return ConfigError(f"{source}: {where}: {msg}")

    unknown = sorted(set(data) - set(TOP) - set(SECTIONS) - {"gate"})
    if unknown:
        raise fail(unknown[0], f"unknown key (allowed: {', '.join(TOP + tuple(SECTIONS))})")
    for k in REQUIRED:
        if k not in data:
            raise ConfigError(f"{source}: missing key {k!r} (required: {', '.join(REQUIRED)})")
    try:
        spec = get_game(data["game"]) if isinstance(data["game"], str) else None
    except UnknownGameError as e:
        raise fail("game", str(e)) from None
    if spec is None:
        raise fail("game", f"expected a game name, got {data['game']!r}")
    if spec.observation is None:
        raise fail("game", f"{spec.name} has no observation tensor: no network can learn it")
    players = data["players"]
    players = tuple(players) if isinstance(players, list) else (players,)
    for n in players:
        if isinstance(n, bool) or not isinstance(n, int) or n not in spec.players():
            raise fail("players", f"{n!r} is not a player count of {spec.name} ({spec.players()})")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise fail("options", "expected a table of option = value")
    try:
        options = spec.decode_options(spec.encode_options(options))
        for n in players:
            spec.check_players(n, options)
    except OptionError as e:
        raise fail("options", str(e)) from None

    def integer(key, value, low, high):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise fail(key, f"expected an integer from {low} to {high}, got {value!r}")
        return value

    seed = integer("seed", data["seed"], 0, MAX_SEED)
    generations = integer("generations", data["generations"], 0, 10_000)
    if not isinstance(data["output"], str) or not data["output"]:
        raise fail("output", "expected a folder")
    values: dict[str, Any] = {}
    for section, keys in SECTIONS.items():
        got = data.get(section, {})
        if not isinstance(got, dict):
            raise fail(section, "expected a table")
        allowed = set(keys) | {
            "gate": {"against", "agent", "both_ways"},
            "network": {"hint"},
            "selfplay": {"leaf", "search"},
            "warm_start": {"agent"},
            "head": {"search"},
        }.get(section, set())
        bad = sorted(set(got) - allowed)
        if bad:
            raise fail(
                f"{section}.{bad[0]}", f"unknown key (allowed: {', '.join(sorted(allowed))})"
            )
        for key, (kind, low, high, default) in keys.items():
            v = got.get(key, default)
            where = f"{section}.{key}"
            if kind is int:
                v = integer(where, v, low, high)
            elif isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high:
                raise fail(where, f"expected a number from {low:g} to {high:g}, got {v!r}")
            values[f"{section}.{key}"] = v
    gate = data.get("gate", {})
    against = gate.get("against", ["best", "heuristic"])
    if not isinstance(against, list) or not against or any(a not in GATE_AGAINST for a in against):
        raise fail("gate.against", f"expected a list of {', '.join(GATE_AGAINST)}")
    agent = gate.get("agent", "policy")
    if agent not in GATE_AGENTS:
        raise fail("gate.agent", f"expected one of {', '.join(GATE_AGENTS)}, got {agent!r}")
    leaf = data.get("selfplay", {}).get("leaf", "network")
    if leaf not in LEAVES:
        raise fail("selfplay.leaf", f"expected one of {', '.join(LEAVES)}, got {leaf!r}")
    search = data.get("selfplay", {}).get("search", "")
    if search != "":
        if "simulations" in data.get("selfplay", {}):
            raise fail("selfplay.search", "gives the simulations: drop selfplay.simulations")
        search, values["selfplay.simulations"] = _search_spec(search, fail, "selfplay.search")
    warm = data.get("warm_start", {}).get("agent", "heuristic")
    if warm not in WARM_AGENTS:
        warm = _search_spec(warm, fail)[0]
    both_ways = gate.get("both_ways", True)
    if not isinstance(both_ways, bool):
        raise fail("gate.both_ways", f"expected true or false, got {both_ways!r}")
    hint = data.get("network", {}).get("hint", False)
    if not isinstance(hint, bool):
        raise fail("network.hint", f"expected true or false, got {hint!r}")
    head = data.get("head", {})
    head_search = ""
    if head:
        if "search" not in head:
            raise fail("head.search", "missing: the search whose visits the head is fitted to")
        head_search = _search_spec(head["search"], fail, "head.search")[0]
        if not hint:
            raise fail("head", "a linear head reads the hint's world: set network.hint = true")
        if not spec.action_features:
            raise fail("head", f"{spec.name} gives no action features (sim.core, action_features)")
    return TrainConfig(
        name=str(data.get("name", Path(data["output"]).name)),
        description=str(data.get("description", "")),
        game=spec.name,
        players=players,
        seed=seed,
        output=Path(data["output"]),
        generations=generations,
        options=dict(options),
        hidden=values["network.hidden"],
        hint=hint,
        net_temp=float(values["selfplay.net_temp"]),
        head_search=head_search,
        head_share=float(values["head.share"]),
        head_l2=float(values["head.l2"]),
        warm_games=values["warm_start.games"],
        warm_agent=warm,
        selfplay_games=values["selfplay.games"],
        simulations=values["selfplay.simulations"],
        selfplay_search=search,
        sample_decisions=values["selfplay.sample_decisions"],
        record_every=values["selfplay.record_every"],
        leaf=leaf,
        epochs=values["fit.epochs"],
        batch=values["fit.batch"],
        lr=float(values["fit.lr"]),
        weight_decay=float(values["fit.weight_decay"]),
        window=values["fit.window"],
        threads=values["fit.threads"],
        target_temperature=float(values["fit.target_temperature"]),
        gate_deals=values["gate.deals"],
        gate_against=tuple(against),
        gate_agent=agent,
        gate_both_ways=both_ways,
        gate_temperature=float(values["gate.temperature"]),
        source=source,
    )
