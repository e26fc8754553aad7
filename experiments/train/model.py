"""The policy-and-value network in PyTorch (the training library), and its arrays for the
numba kernels of agents/net.py, which compute the same function."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.net import LAYER_NAMES


class PolicyValueNet(nn.Module):
    """inputs -> hidden (ReLU) -> hidden (ReLU) -> (policy logits, value logits)."""

    def __init__(self, n_inputs: int, hidden: int, n_actions: int, n_values: int):
        super().__init__()
        self.l1 = nn.Linear(n_inputs, hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.policy = nn.Linear(hidden, n_actions)
        self.value = nn.Linear(hidden, n_values)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.relu(self.l2(torch.relu(self.l1(x))))
        return self.policy(h), self.value(h)

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights as agents/net.py lays them out (float32; weight matrices in x out)."""
        layers = (self.l1, self.l2, self.policy, self.value)
        out = {}
        for (w, b), layer in zip(zip(LAYER_NAMES[::2], LAYER_NAMES[1::2]), layers):
            out[w] = layer.weight.detach().numpy().T.astype(np.float32).copy()
            out[b] = layer.bias.detach().numpy().astype(np.float32).copy()
        return out

    def load_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Set the weights from :meth:`arrays`' layout (a saved model, a warm start)."""
        layers = (self.l1, self.l2, self.policy, self.value)
        with torch.no_grad():
            for (w, b), layer in zip(zip(LAYER_NAMES[::2], LAYER_NAMES[1::2]), layers):
                layer.weight.copy_(torch.from_numpy(np.asarray(arrays[w], np.float32).T))
                layer.bias.copy_(torch.from_numpy(np.asarray(arrays[b], np.float32)))
