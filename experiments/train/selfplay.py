"""Self-play games that make training examples: one example per kept decision, the seat's
observation tensor, the legal mask, the target policy, and later the game's outcome.

Generation 0 plays the game's heuristic in every seat (the targets are its choices: the network
starts by cloning it), or MCTS without a network (``warm``, its spec; the targets are its
visit counts).  Later generations play
MCTS guided by the best network so far in every seat (``search``, the training's search spec
with ``net=best``; the targets are the search's visit counts, AlphaZero's expert iteration),
which values new nodes by the network's value head or by rollouts (``leaf=rollout``, of the
spec's rollout policy).  A game's first ``sample_decisions`` decisions are drawn in
proportion to the visit counts, the later ones are the most visited action, so games differ
beyond their deals.

A chunk of games is a pure function of its job (the game seeds come from the master seed, the
generation and the game's index; the search is bounded by simulations, not time), so the data
are the same whatever the number of workers.  Each chunk is one ``.npz`` file (NumPy reads it;
:data:`RECORD_FIELDS` documents its arrays).
"""

from __future__ import annotations

from typing import Any

import numpy as np

RECORD_FIELDS = {
    "obs": "float32 [R, observation size]: the seat's observation tensor before the decision",
    "mask": "bool [R, actions]: the legal actions",
    "policy": "float32 [R, actions]: the target policy (visit share, or 1 for the heuristic's)",
    "value": "float32 [R, max seats + 1]: the game's win shares of seats 0.., then 'no seat'",
    "seat": "int8 [R]: the seat that decided",
    "players": "int8 [R]: the game's seats",
    "game": "int64 [R]: the game's index in its generation",
    "step": "int32 [R]: the decision's number in its game",
    "hint": "int16 [R]: a hint training's hint (the heuristic's action in a world resampled "
    "from the seat's information set, agents.policy.seat_hint); -1 in other trainings",
}
HEAD_FIELDS = {
    "feat": "float32 [H, actions, features]: a linear head's examples (a training with [head], "
    "generation 0): the game's action features in the hint's world (agents.policy.seat_features)",
    "feat_mask": "bool [H, actions]: the legal actions",
    "feat_policy": "float32 [H, actions]: the head's search's visit shares from the true state",
    "feat_seat": "int8 [H]",
    "feat_game": "int64 [H]: the game's index in its generation",
    "feat_step": "int32 [H]: the decision's number in its game",
}
GAME_FIELDS = {
    "game_index": "int64 [G]: the games of the chunk",
    "game_seed": "int64 [G]: their deals",
    "game_players": "int8 [G]",
    "game_wins": "float32 [G, max seats]: win shares",
    "game_scores": "float32 [G, max seats]: scores",
    "game_length": "int32 [G]: decisions",
}
GEN_SALT = 0x5E1F  # the salt of a generation's deals: hash64(hash64(seed, GEN_SALT + gen), i)


def game_seeds(seed: int, gen: int, first: int, count: int) -> np.ndarray:
    from sim.core import game_seed, hash64

    master = int(hash64(np.int64(seed), np.int64(GEN_SALT + gen))) & (2**63 - 1)
    return np.array([game_seed(np.int64(master), np.int64(i)) for i in range(first, first + count)])


def play_chunk(job: dict[str, Any]) -> dict[str, np.ndarray]:
    """Play the games of ``job`` and return their examples (:data:`RECORD_FIELDS`), outcomes
    (:data:`GAME_FIELDS`) and, with ``job["head"]`` (a search spec), the linear head's examples
    (:data:`HEAD_FIELDS`): at a share ``job["head_share"]`` of the decisions where the game gives
    action features, that search's visits from the true state."""
    from agents.mcts import P_NET, search
    from agents.model import load
    from agents.net import nets_of, no_nets
    from agents.policy import features_of, hint_of
    from agents.spec import parse_agent
    from sim.core import hash64, new_rng
    from sim.registry import get_game

    spec = get_game(job["game"])
    K = tuple(spec.kernels)
    k = spec.kernels
    n = int(job["players"])
    opts = spec.encode_options(job["options"])
    num_actions = spec.num_actions
    vslots = spec.max_players + 1
    nets, params = no_nets(), None
    if job.get("model"):
        m = load(job["model"])
        nets = nets_of([{**m.arrays, "all_lose": int(spec.can_all_lose)}], spec.observation.size)
        params = parse_agent(job["search"])[1]  # the training's search with "best" for its net
        params[P_NET] = 1
    elif job.get("warm"):  # generation 0 by MCTS without a network (its spec)
        params = parse_agent(job["warm"])[1]
    head_params = parse_agent(job["head"])[1] if job.get("head") else None
    nf = len(spec.action_features)
    head = {f: [] for f in HEAD_FIELDS}
    feats = np.zeros((num_actions, max(nf, 1)), np.float32)
    hvisits = np.zeros(num_actions, np.int64)
    seeds = game_seeds(job["seed"], job["gen"], job["first"], job["count"])
    obs_l, mask_l, pol_l, seat_l, game_l, step_l, val_game = [], [], [], [], [], [], []
    hint_l = []
    outcome = {f: [] for f in GAME_FIELDS}
    mask = np.zeros(num_actions, np.bool_)
    visits = np.zeros(num_actions, np.int64)
    value = np.zeros(num_actions, np.float64)
    for i, gseed in enumerate(seeds):
        index = job["first"] + i
        state = k.new_state(np.int64(gseed), np.int64(n), opts)
        rng = new_rng(np.int64(hash64(np.int64(gseed), np.int64(7))))
        pick = np.random.default_rng(int(gseed) & (2**63 - 1))
        hint_rng = new_rng(np.int64(hash64(np.int64(gseed), np.int64(11))))
        head_rng = new_rng(np.int64(hash64(np.int64(gseed), np.int64(13))))
        head_pick = np.random.default_rng([int(gseed) & (2**63 - 1), 13])
        step = 0
        first_record = len(seat_l)
        while not k.is_terminal(state):
            p = int(k.current_player(state))
            k.legal_mask(state, mask)
            target = np.zeros(num_actions, np.float32)
            if params is None:
                a = int(k.heuristic(state, rng))
                target[a] = 1.0
            else:
                search(K, nets, state, params, rng, mask, visits, value)
                k.legal_mask(state, mask)
                total = visits.sum()
                if total == 0:  # a single legal action is not searched
                    target[mask] = 1.0 / mask.sum()
                else:
                    target[:] = visits / total
                if step < job["sample_decisions"]:
                    a = int(pick.choice(num_actions, p=target / target.sum()))
                else:
                    best = np.flatnonzero(target == target.max())
                    a = int(best[pick.integers(len(best))])
            if head_params is not None and head_pick.random() < job["head_share"]:
                _, got = features_of(K, state, np.int64(p), head_rng, mask, feats)
                if got == nf > 0:
                    search(K, nets, state, head_params, head_rng, mask, hvisits, value)
                    k.legal_mask(state, mask)
                    for f, x in (
                        ("feat", feats.copy()),
                        ("feat_mask", mask.copy()),
                        ("feat_policy", hvisits / max(1, hvisits.sum())),
                        ("feat_seat", p),
                        ("feat_game", index),
                        ("feat_step", step),
                    ):
                        head[f].append(x)
            if step % job["record_every"] == 0:
                obs_l.append(spec.observation.tensor(state, p))
                mask_l.append(mask.copy())
                pol_l.append(target)
                seat_l.append(p)
                step_l.append(step)
                game_l.append(index)
                hint_l.append(hint_of(K, state, np.int64(p), hint_rng) if job.get("hint") else -1)
            k.apply(state, np.int64(a))
            step += 1
        scores, wins = np.zeros(n), np.zeros(n)
        k.returns(state, scores, wins)
        v = np.zeros(vslots, np.float32)
        v[:n] = wins
        v[-1] = max(0.0, 1.0 - wins.sum())
        val_game += [v] * (len(seat_l) - first_record)
        for f, x in (
            ("game_index", index),
            ("game_seed", gseed),
            ("game_players", n),
            ("game_wins", np.pad(wins, (0, spec.max_players - n))),
            ("game_scores", np.pad(scores, (0, spec.max_players - n))),
            ("game_length", step),
        ):
            outcome[f].append(x)
    size = spec.observation.size
    heads = {}
    if head_params is not None:
        heads = {
            "feat": np.asarray(head["feat"], np.float32).reshape(-1, num_actions, nf),
            "feat_mask": np.asarray(head["feat_mask"], np.bool_).reshape(-1, num_actions),
            "feat_policy": np.asarray(head["feat_policy"], np.float32).reshape(-1, num_actions),
            "feat_seat": np.asarray(head["feat_seat"], np.int8),
            "feat_game": np.asarray(head["feat_game"], np.int64),
            "feat_step": np.asarray(head["feat_step"], np.int32),
        }
    return {
        **heads,
        "obs": np.asarray(obs_l, np.float32).reshape(-1, size),
        "mask": np.asarray(mask_l, np.bool_).reshape(-1, num_actions),
        "policy": np.asarray(pol_l, np.float32).reshape(-1, num_actions),
        "value": np.asarray(val_game, np.float32).reshape(-1, vslots),
        "seat": np.asarray(seat_l, np.int8),
        "players": np.full(len(seat_l), n, np.int8),
        "game": np.asarray(game_l, np.int64),
        "step": np.asarray(step_l, np.int32),
        "hint": np.asarray(hint_l, np.int16),
        "game_index": np.asarray(outcome["game_index"], np.int64),
        "game_seed": np.asarray(outcome["game_seed"], np.int64),
        "game_players": np.asarray(outcome["game_players"], np.int8),
        "game_wins": np.asarray(outcome["game_wins"], np.float32),
        "game_scores": np.asarray(outcome["game_scores"], np.float32),
        "game_length": np.asarray(outcome["game_length"], np.int32),
    }


def chunks(games: int, players: tuple[int, ...], size: int) -> list[tuple[int, int, int]]:
    """(first game, games, players) of each chunk: the player counts take turns by chunk."""
    out = []
    first = 0
    while first < games:
        count = min(size, games - first)
        out.append((first, count, players[len(out) % len(players)]))
        first += count
    return out
