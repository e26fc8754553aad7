"""A learned agent's model file: the network's arrays (agents/net.py) and its card, in one
``.npz`` file.

The card (JSON, stored in the file as ``card``) says what the model is for and where it came
from: the game, the player counts and rule options it was trained on, the hash of the
observation layout its encoding reads (:func:`observation_hash`), its sizes, the training
config and the hash of its training data, the code's commit, and how long it trained.  A
model is only ever used for the game and the observation layout it was built on: anything
else is refused with one line (:class:`ModelError`).

``policy:<model>`` names a model by path (``policy:models/mk.npz``) or, without a ``/`` or
``.npz``, one of the models shipped with the project (``agents/models/<name>.npz``,
:func:`shipped_models`).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.net import ENC_COLS, HEAD_ARRAY, LAYER_NAMES

SHIPPED = Path(__file__).resolve().parent / "models"
FORMAT = 1


class ModelError(ValueError):
    """A model file that cannot be used here (missing, damaged, built for something else)."""


def observation_hash(spec) -> str:
    """A hash of a game's observation layout: its size and every field's name, offset and length."""
    obs = spec.observation
    if obs is None:
        raise ModelError(f"{spec.name}: the game has no observation tensor; no model can play it")
    text = json.dumps([obs.size] + [[f.name, f.offset, f.length] for f in obs.fields])
    return hashlib.sha1(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Model:
    """A loaded model: its arrays (``enc`` and the layers) and its card."""

    arrays: dict[str, np.ndarray]
    card: dict[str, Any]
    path: Path | None = None

    @property
    def game(self) -> str:
        return self.card["game"]

    @property
    def name(self) -> str:
        return self.card.get("name") or (self.path.stem if self.path else "model")

    def check_for(self, spec, players: int | None = None) -> None:
        """ModelError unless the model was built for ``spec``'s game and observation layout (and,
        if given, for ``players`` seats)."""
        where = self.path or self.name
        if self.card["game"] != spec.name:
            raise ModelError(f"{where}: a model of {self.card['game']}, not of {spec.name}")
        if self.card["observation"] != observation_hash(spec):
            raise ModelError(
                f"{where}: built for another observation layout of {spec.name} "
                f"({self.card['observation']}, the game's is now {observation_hash(spec)}); "
                "train it again"
            )
        if HEAD_ARRAY in self.arrays and self.card.get("action_features") != list(
            spec.action_features
        ):
            raise ModelError(
                f"{where}: its linear head reads other action features than {spec.name} gives "
                "now; train it again"
            )
        if players is not None and players not in self.card["players"]:
            raise ModelError(
                f"{where}: trained for {', '.join(map(str, self.card['players']))} players, "
                f"not {players}"
            )


def save(path: str | Path, arrays: dict[str, np.ndarray], card: dict[str, Any]) -> Path:
    """Write a model file (atomically: a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    card = {"format": FORMAT, **card}
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, card=np.array(json.dumps(card, sort_keys=True)), **arrays)
    tmp.replace(path)
    return path


def resolve(name: str) -> Path:
    """The file a ``policy:`` or ``net=`` argument names: a path, or a shipped model's name."""
    if "/" in name or name.endswith(".npz"):
        return Path(name)
    return SHIPPED / f"{name}.npz"


def load(name: str | Path) -> Model:
    """The model a path or a shipped model's name names; ModelError (one line) otherwise."""
    path = resolve(str(name))
    if not path.is_file():
        known = ", ".join(shipped_models()) or "none"
        raise ModelError(f"{path}: no such model file (shipped models: {known})")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files if k != "card"}
            card = json.loads(str(z["card"]))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        raise ModelError(f"{path}: not a model file (a NumPy .npz archive with a card)") from None
    missing = [k for k in ("enc", *LAYER_NAMES) if k not in arrays]
    if missing or card.get("format") != FORMAT:
        raise ModelError(
            f"{path}: not a model file of this version (missing {missing or 'format'})"
        )
    for k in ("game", "players", "observation"):
        if k not in card:
            raise ModelError(f"{path}: its card lacks {k!r}")
    if arrays["enc"].ndim != 2 or arrays["enc"].shape[1] != ENC_COLS:
        raise ModelError(f"{path}: its encoding is not a table of {ENC_COLS} columns")
    return Model(arrays, card, path)


def shipped_models() -> list[str]:
    """The names of the models shipped with the project."""
    return sorted(p.stem for p in SHIPPED.glob("*.npz")) if SHIPPED.is_dir() else []


def run_nets(spec, players: int, kinds, params, labels, paths=None):
    """``(params, nets)``: the agent table's parameter rows with each learned agent's network
    index set, and the :class:`agents.net.Nets` holding those networks (one per distinct model
    file), for a run of ``players`` seats.  ``paths`` maps a model's name to its file where the
    caller resolved it already (a worker in another folder).  ModelError (one line) for a model
    that is missing or built for something else."""
    from agents import mcts, policy
    from agents.net import nets_of
    from agents.spec import model_name
    from agents.table import MCTS, POLICY

    params = np.array(params, np.float64, copy=True)
    loaded: dict[Path, int] = {}
    models = []
    for a, (kind, label) in enumerate(zip(kinds, labels)):
        name = model_name(int(kind), label)
        if name is None:
            continue
        name = (paths or {}).get(name, name)
        path = resolve(name).resolve()
        if path not in loaded:
            m = load(path)
            m.check_for(spec, players)
            loaded[path] = len(models)
            models.append({**m.arrays, "all_lose": int(spec.can_all_lose)})
        k = loaded[path]
        if kind == POLICY:
            params[a, policy.P_NET] = k
        elif kind == MCTS:
            params[a, mcts.P_NET] = k + 1
            if params[a, mcts.P_HEAD] > 0 and not np.size(models[k].get("wf", ())):
                raise ModelError(f"{label}: the model {name} has no linear head for head to play")
    obs_size = spec.observation.size if models else 0
    return params, nets_of(models, obs_size)


def digest(name: str) -> str:
    """A hash of a model file's bytes (a run records it: a changed model is another run)."""
    return hashlib.sha1(resolve(name).read_bytes()).hexdigest()[:16]
