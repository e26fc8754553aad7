"""Fitting the policy-and-value network to self-play examples with PyTorch on the CPU.

The loss is the policy's cross-entropy against the target policy over the legal actions plus
the value's cross-entropy against the game's win shares over the seats of the game (and the
"no seat" slot where every seat can lose).  With a ``target_temperature`` below 1 the target
policy is the search's visit shares sharpened to the power ``1 / target_temperature`` (a
greedy policy plays the argmax, so a flat target teaches it little).  A tenth of the games (by
index) is held out: the fit reports their losses, the policy's entropy and the value's
calibration.

Reproducible: the seed fixes the initial weights, the held-out games and the order of the
batches; PyTorch runs with ``threads`` threads and its deterministic algorithms, so the same
examples, config and seed give the same weights on one machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.net import encode_dense, n_inputs

HOLD_OUT = 10  # every HOLD_OUT-th game (by index) is held out
CALIBRATION_BINS = 10


def load_examples(files: list[Path]) -> dict[str, np.ndarray]:
    """The examples of chunk files, concatenated (sorted by file name: a fixed order)."""
    parts: dict[str, list[np.ndarray]] = {}
    keys = ("obs", "mask", "policy", "value", "seat", "players", "game")
    for f in sorted(files):
        with np.load(f) as z:
            for k in keys:
                parts.setdefault(k, []).append(z[k])
            hint = z["hint"] if "hint" in z.files else np.full(len(z["seat"]), -1, np.int16)
            parts.setdefault("hint", []).append(hint)
    return {k: np.concatenate(v) for k, v in parts.items()} if parts else {}


def sharpen(policy: np.ndarray, temperature: float) -> np.ndarray:
    """Target policies to the power ``1 / temperature``, renormalised (1: unchanged)."""
    if temperature == 1.0:
        return policy
    p = policy.astype(np.float64) ** (1.0 / temperature)
    total = p.sum(1, keepdims=True)
    return (p / np.where(total > 0, total, 1.0)).astype(policy.dtype)


def _value_mask(players: np.ndarray, slots: int, all_lose: bool) -> np.ndarray:
    seats = np.arange(slots)[None, :] < players[:, None]
    if all_lose:
        seats[:, -1] = True
    return seats


def fit(
    examples: dict[str, np.ndarray],
    enc: np.ndarray,
    hidden: int,
    num_actions: int,
    all_lose: bool,
    *,
    epochs: int,
    batch: int,
    lr: float,
    weight_decay: float,
    seed: int,
    threads: int,
    target_temperature: float = 1.0,
    init: dict[str, np.ndarray] | None = None,
    progress=None,
    hint: bool = False,
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The fitted network's arrays (agents.net's layout) and the fit's history; ``hint``: a
    hint model, fed each example's ``hint`` (the heuristic's action)."""
    import torch

    from experiments.train.model import PolicyValueNet

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    slots = examples["value"].shape[1]
    model = PolicyValueNet(n_inputs(enc), hidden, num_actions, slots, hint=hint)
    if init is not None:
        model.load_arrays(init)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    held = examples["game"] % HOLD_OUT == 0
    train_idx, test_idx = np.flatnonzero(~held), np.flatnonzero(held)
    if len(train_idx) == 0:
        train_idx = test_idx
    order_rng = np.random.default_rng(seed)
    vmask_all = _value_mask(examples["players"].astype(np.int64), slots, all_lose)
    targets = sharpen(examples["policy"], target_temperature)

    def losses(idx: np.ndarray, train: bool):
        x = torch.from_numpy(encode_dense(enc, examples["obs"][idx]))
        mask = torch.from_numpy(examples["mask"][idx])
        target = torch.from_numpy(targets[idx])
        vtarget = torch.from_numpy(examples["value"][idx])
        vmask = torch.from_numpy(vmask_all[idx])
        hints = torch.from_numpy(examples["hint"][idx].astype(np.int64)) if hint else None
        logits, vlogits = model(x, hints)
        logp = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
        lp = -(target * logp).sum(1).mean()
        logv = torch.log_softmax(vlogits.masked_fill(~vmask, -1e9), dim=1)
        lv = -(vtarget * logv.masked_fill(~vmask, 0.0)).sum(1).mean()
        return lp, lv, logp, logv

    history: dict[str, Any] = {"epochs": []}
    for epoch in range(epochs):
        model.train()
        perm = train_idx[order_rng.permutation(len(train_idx))]
        tot_p = tot_v = 0.0
        nb = 0
        for s in range(0, len(perm), batch):
            idx = np.sort(perm[s : s + batch])
            lp, lv, _, _ = losses(idx, True)
            opt.zero_grad()
            (lp + lv).backward()
            opt.step()
            tot_p += lp.item()
            tot_v += lv.item()
            nb += 1
        history["epochs"].append(
            {"epoch": epoch, "policy_loss": tot_p / max(nb, 1), "value_loss": tot_v / max(nb, 1)}
        )
        if progress is not None:
            progress(epoch, history["epochs"][-1])
    history.update(_held_out(model, losses, test_idx, examples, slots, all_lose))
    history.update(examples=len(examples["seat"]), held_out=len(test_idx))
    return model.arrays(), history


def _held_out(model, losses, idx, examples, slots, all_lose) -> dict[str, Any]:
    """Held-out losses, the policy's mean entropy and the value's calibration."""
    import torch

    if len(idx) == 0:
        return {}
    model.eval()
    with torch.no_grad():
        lp, lv, logp, logv = losses(idx, False)
    p = logp.exp().numpy()
    entropy = float(-(p * np.where(p > 0, logp.numpy(), 0.0)).sum(1).mean())
    pred = logv.exp().numpy()
    seat = examples["seat"][idx].astype(np.int64)
    mine = pred[np.arange(len(idx)), seat]
    won = examples["value"][idx][np.arange(len(idx)), seat]
    bins = np.minimum((mine * CALIBRATION_BINS).astype(int), CALIBRATION_BINS - 1)
    calibration = [
        {
            "bin": b,
            "n": int((bins == b).sum()),
            "predicted": float(mine[bins == b].mean()) if (bins == b).any() else None,
            "observed": float(won[bins == b].mean()) if (bins == b).any() else None,
        }
        for b in range(CALIBRATION_BINS)
    ]
    out = {
        "held_out_policy_loss": float(lp),
        "held_out_value_loss": float(lv),
        "policy_entropy": entropy,
        "calibration": calibration,
    }
    out.update(_agreement(p.argmax(1), examples, idx))
    return out


def _agreement(net_top: np.ndarray, examples, idx: np.ndarray) -> dict[str, Any]:
    """How often the network's most likely action is the search's most visited one, over
    held-out decisions with a choice; for a hint model also how often the search's differs
    from the hint (``search_departs``) and how often the network follows it there
    (``follows_departure``): a hint model that never follows the departures is the heuristic."""
    choice = examples["mask"][idx].sum(1) > 1
    if not choice.any():
        return {}
    search_top = examples["policy"][idx].argmax(1)
    same = net_top == search_top
    out: dict[str, Any] = {"policy_agreement": float(same[choice].mean())}
    hint = examples["hint"][idx]
    if (hint >= 0).all():
        departs = choice & (search_top != hint)
        out["search_departs"] = float(departs.sum() / choice.sum())
        out["follows_departure"] = float(same[departs].mean()) if departs.any() else None
    return out


def load_head_examples(files: list[Path]) -> dict[str, np.ndarray]:
    """A linear head's examples (experiments.train.selfplay.HEAD_FIELDS) of chunk files,
    concatenated in file-name order (empty without any)."""
    parts: dict[str, list[np.ndarray]] = {}
    for f in sorted(files):
        with np.load(f) as z:
            if "feat" in z.files:
                for k in ("feat", "feat_mask", "feat_policy", "feat_game"):
                    parts.setdefault(k, []).append(z[k])
    return {k: np.concatenate(v) for k, v in parts.items()} if parts else {}


def fit_head(
    examples: dict[str, np.ndarray], *, l2: float, threads: int, max_iter: int = 200
) -> tuple[np.ndarray, dict[str, Any]]:
    """The linear head's weights (agents/net.py ``wf``) fitted to the search's visit shares at
    the examples' decisions: a conditional logit (the softmax over the legal actions of their
    features times the weights), by L-BFGS from zero on the cross-entropy plus ``l2`` times the
    squared weights; and the fit's history: the examples' number, the held-out games'
    cross-entropy and how often the head's most likely action there is the search's most
    visited one.  Deterministic: full-batch, no random draws."""
    import torch

    from experiments.train.model import LinearHead

    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    feats = torch.from_numpy(examples["feat"])
    mask = torch.from_numpy(examples["feat_mask"])
    target = torch.from_numpy(examples["feat_policy"])
    held = examples["feat_game"] % HOLD_OUT == 0
    train = torch.from_numpy(np.flatnonzero(~held) if (~held).any() else np.flatnonzero(held))
    head = LinearHead(feats.shape[2])
    opt = torch.optim.LBFGS(head.parameters(), max_iter=max_iter, line_search_fn="strong_wolfe")

    def loss_of(idx):
        logp = torch.log_softmax(head(feats[idx]).masked_fill(~mask[idx], -1e9), dim=1)
        return -(target[idx] * logp).sum(1).mean(), logp

    def closure():
        opt.zero_grad()
        loss = loss_of(train)[0] + l2 * (head.wf**2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    history: dict[str, Any] = {"head_examples": int(len(held)), "head_held_out": int(held.sum())}
    if held.any():
        idx = torch.from_numpy(np.flatnonzero(held))
        with torch.no_grad():
            loss, logp = loss_of(idx)
        top = examples["feat_policy"][held].argmax(1)
        history["head_held_out_loss"] = float(loss)
        history["head_agreement"] = float((logp.numpy().argmax(1) == top).mean())
    return head.wf.detach().numpy().astype(np.float32).copy(), history
