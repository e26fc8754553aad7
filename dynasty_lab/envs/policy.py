"""A trained policy as a dynasty-lab agent, so ``dynasty run`` and ``dynasty tournament`` can
play it against the built-in agents (a Python agent class, agents.user).

``TensorPolicy`` acts on the seat's information-state tensor (sim.observe): it scores each
legal action with a fitted action-value model and takes the best.  The policy file
(``joblib.dump`` of a dict) holds ``model``, any object with ``predict(X)`` (a scikit-learn
regressor, say) fitted on rows ``[the named fields of the tensor, one-hot of the action]``
-> return, and ``fields``, the names of the tensor fields it reads (the layout table of
docs/games/<game>.md; None = the whole tensor).  The agent loads it from the file named by
the environment variable ``DYNASTY_LAB_POLICY`` (set it before the run starts its
workers: they inherit it).  Name it in a config's agents or a
tournament's pool as ``"dynasty_lab.envs.policy:TensorPolicy"``.
"""

from __future__ import annotations

import os

import numpy as np

ENV_VAR = "DYNASTY_LAB_POLICY"
_MODELS: dict[str, object] = {}


def select(obs, tensor: np.ndarray, fields=None) -> np.ndarray:
    """The named fields of an observation tensor, concatenated (all of it for None)."""
    if fields is None:
        return tensor
    by = {f.name: f for f in obs.fields}
    return np.concatenate([tensor[by[n].offset : by[n].offset + by[n].length] for n in fields])


def features(tensor: np.ndarray, actions, num_actions: int) -> np.ndarray:
    """The model's input rows: the tensor followed by a one-hot of each action."""
    actions = np.asarray(actions, np.int64)
    x = np.zeros((actions.size, tensor.size + num_actions), np.float32)
    x[:, : tensor.size] = tensor
    x[np.arange(actions.size), tensor.size + actions] = 1.0
    return x


def best_action(model, tensor: np.ndarray, legal, num_actions: int) -> int:
    legal = list(legal)
    q = model.predict(features(tensor, legal, num_actions))
    return int(legal[int(np.argmax(q))])


def load_model(path: str | None = None):
    path = path or os.environ.get(ENV_VAR)
    if not path:
        raise RuntimeError(f"TensorPolicy: set {ENV_VAR} to the file of a fitted model (joblib)")
    if path not in _MODELS:
        import joblib

        _MODELS[path] = joblib.load(path)
    return _MODELS[path]


class TensorPolicy:
    """agents.user Python agent: the best legal action under the fitted model."""

    def __init__(self):
        policy = load_model()
        self.model, self.fields = policy["model"], policy.get("fields")

    def act(self, view, legal_actions):
        obs = view.spec.observation
        t = obs.tensor(view.state, view.seat)  # the resampled state gives the seat's own tensor
        return best_action(
            self.model, select(obs, t, self.fields), legal_actions, view.spec.num_actions
        )
