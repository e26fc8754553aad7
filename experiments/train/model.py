"""The policy-and-value network in PyTorch (the training library), and its arrays for the
numba kernels of agents/net.py, which compute the same function."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.net import HINT_ARRAY, LAYER_NAMES

HINT_START = 4.0  # a hint model's first skip weight: the hint's logit starts 4 above the rest


class PolicyValueNet(nn.Module):
    """inputs -> hidden (ReLU) -> hidden (ReLU) -> (policy logits, value logits).

    With ``hint``, a hint model (agents/net.py): the inputs end with the one-hot of the
    heuristic's action, and a skip weight per action is added to that action's logit."""

    def __init__(
        self, n_inputs: int, hidden: int, n_actions: int, n_values: int, hint: bool = False
    ):
        super().__init__()
        self.n_actions = n_actions
        self.hint = hint
        self.l1 = nn.Linear(n_inputs + (n_actions if hint else 0), hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.policy = nn.Linear(hidden, n_actions)
        self.value = nn.Linear(hidden, n_values)
        if hint:
            self.wk = nn.Parameter(torch.full((n_actions,), HINT_START))

    def forward(
        self, x: torch.Tensor, hint: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits of ``x`` (inputs [B, n_inputs]) and, for a hint model, ``hint`` (int64 [B],
        the heuristic's action, -1: none)."""
        onehot = None
        if self.hint:
            onehot = torch.zeros(x.shape[0], self.n_actions)
            if hint is not None:
                rows = torch.nonzero(hint >= 0).flatten()
                onehot[rows, hint[rows]] = 1.0
            x = torch.cat([x, onehot], dim=1)
        h = torch.relu(self.l2(torch.relu(self.l1(x))))
        logits = self.policy(h)
        if onehot is not None:
            logits = logits + onehot * self.wk
        return logits, self.value(h)

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights as agents/net.py lays them out (float32; weight matrices in x out)."""
        layers = (self.l1, self.l2, self.policy, self.value)
        out = {}
        for (w, b), layer in zip(zip(LAYER_NAMES[::2], LAYER_NAMES[1::2]), layers):
            out[w] = layer.weight.detach().numpy().T.astype(np.float32).copy()
            out[b] = layer.bias.detach().numpy().astype(np.float32).copy()
        if self.hint:
            out[HINT_ARRAY] = self.wk.detach().numpy().astype(np.float32).copy()
        return out

    def load_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Set the weights from :meth:`arrays`' layout (a saved model, a warm start)."""
        layers = (self.l1, self.l2, self.policy, self.value)
        with torch.no_grad():
            for (w, b), layer in zip(zip(LAYER_NAMES[::2], LAYER_NAMES[1::2]), layers):
                layer.weight.copy_(torch.from_numpy(np.asarray(arrays[w], np.float32).T))
                layer.bias.copy_(torch.from_numpy(np.asarray(arrays[b], np.float32)))
            if self.hint:
                self.wk.copy_(torch.from_numpy(np.asarray(arrays[HINT_ARRAY], np.float32)))


class LinearHead(nn.Module):
    """A linear head (agents/net.py ``wf``): an action's logit is its features times one weight
    per feature, from zero."""

    def __init__(self, n_features: int):
        super().__init__()
        self.wf = nn.Parameter(torch.zeros(n_features))

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        """Logits [B, actions] of features [B, actions, n_features]."""
        return feats @ self.wf
