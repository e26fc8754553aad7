"""A trained policy as a dynasty-lab agent, so ``dynasty run`` and ``dynasty tournament`` can
play it against the built-in agents (a Python agent class, agents.user).

``TensorPolicy`` acts on the seat's information-state tensor (sim.observe), the one the
PettingZoo and Gymnasium adapters give (``view.observation``): it scores each legal action with
a fitted action-value model and takes the best.  The policy file (``joblib.dump`` of a dict)
holds ``model``, any object with ``predict(X)`` (a scikit-learn regressor, say) fitted on rows
``[the named fields of the tensor, one-hot of the action]`` -> return, and ``fields``, the names
of the tensor fields it reads (the layout table of docs/games/<game>.md; None = the whole
tensor).  The file is the agent's parameter ``path``, so one run or tournament can hold several
policies::

    pool = ["random", { kind = "dynasty_lab.envs.policy:TensorPolicy",
                        params = { path = "results/rl/goofspiel/policy.joblib" } }]

A relative path is read from the folder the workers run in (the command's, on a local Ray);
give an absolute one on a cluster.
"""

from __future__ import annotations

import numpy as np

_MODELS: dict[str, object] = {}  # policy files loaded in this process, by path


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


def load_model(path: str):
    """The policy file at ``path`` (loaded once per process)."""
    if path not in _MODELS:
        import joblib

        _MODELS[path] = joblib.load(path)
    return _MODELS[path]


class TensorPolicy:
    """agents.user Python agent: the best legal action under the fitted model of the policy
    file ``path``."""

    def __init__(self, path: str):
        policy = load_model(str(path))
        self.model, self.fields = policy["model"], policy.get("fields")

    def act(self, view, legal_actions):
        t = select(view.spec.observation, view.observation, self.fields)
        return best_action(self.model, t, legal_actions, view.spec.num_actions)
