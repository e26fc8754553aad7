# %% [markdown]
# # Training one Goofspiel seat with a standard library, evaluated in a tournament
#
# A small worked example of the RL adapters (docs/adapters.md): one seat of 2-player
# Goofspiel (6 cards) learns through the Gymnasium wrapper (`dynasty_lab.envs.gymnasium`)
# against a random opponent, by Monte Carlo control with a scikit-learn neural network as
# the action-value function (rows: the seat's information-state tensor and the action;
# target: the final win share), a few rounds of epsilon-greedy play and refitting.  Then
# `dynasty tournament` plays the learned policy (`dynasty_lab.envs.policy:TensorPolicy`, its
# file a parameter of the agent) against `random` and `heuristic` on the same deals and rates
# all three.
#
# Run: `python notebooks/goofspiel_rl.py [OUT] [EPISODES_PER_ROUND] [DEALS]`
# (defaults results/rl/goofspiel, 2000, 200; the test suite runs a tiny version).
# Needs the `rl` extra: `pip install -e ".[rl]"`.

# %%
import json
import os
import sys
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # a small network: threads only contend

import numpy as np  # noqa: E402  (after the thread limits above, which numpy reads at import)

from dynasty_lab.envs.gymnasium import DynastyEnv  # noqa: E402  (likewise)
from dynasty_lab.envs.policy import best_action, features, select  # noqa: E402  (likewise)

OPTIONS = {"num_cards": 6}
# The fields of the tensor the policy reads (docs/games/goofspiel.md, "Observation tensor"):
# the point card up, every hand, the scores, the cards won so far and whose seat it is.
FIELDS = ["observer", "prize", "hands", "points", "prizes_won"]


def collect(model, episodes, epsilon, seed):
    """Episodes of the learning seat (either seat, drawn per episode) against random."""
    env = DynastyEnv("goofspiel", 2, seat=None, opponents="random", options=OPTIONS)
    rng = np.random.default_rng(seed)
    xs, ys, returns = [], [], []
    for e in range(episodes):
        obs, info = env.reset(seed=int(seed * 1_000_003 + e))
        rows = []
        while True:
            obs = select(env.table.obs, obs, FIELDS)
            legal = np.flatnonzero(info["action_mask"])
            if model is None or rng.random() < epsilon:
                a = int(rng.choice(legal))
            else:
                a = best_action(model, obs, legal, env.action_space.n)
            rows.append(features(obs, [a], env.action_space.n)[0])
            obs, r, term, trunc, info = env.step(a)
            if term or trunc:
                break
        xs.extend(rows)
        ys.extend([r] * len(rows))
        returns.append(r)
    return np.array(xs), np.array(ys), float(np.mean(returns))


def train(episodes=2000, rounds=3, seed=0):
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor

    warnings.filterwarnings("ignore", category=ConvergenceWarning)

    model, X, Y, curve = None, [], [], []
    for i in range(rounds):
        x, y, mean_return = collect(
            model, episodes, epsilon=0.3 if model is not None else 1.0, seed=seed + i
        )
        curve.append(mean_return)
        X.append(x)
        Y.append(y)
        model = MLPRegressor(hidden_layer_sizes=(32,), max_iter=100, random_state=seed)
        model.fit(np.vstack(X), np.concatenate(Y))
    _, _, greedy = collect(model, max(episodes // 4, 50), epsilon=0.0, seed=seed + 99)
    return model, curve, greedy


def evaluate(policy_file, out, deals):
    """dynasty tournament: the learned policy, random and the heuristic on the same deals."""
    config = out / "tournament.toml"
    # the policy file is the agent's parameter, by absolute path (read in every worker)
    policy = (
        '{ kind = "dynasty_lab.envs.policy:TensorPolicy", '
        f"params = {{ path = {json.dumps(str(Path(policy_file).resolve()))} }} }}"
    )
    description = (
        "A learned Goofspiel policy (notebooks/goofspiel_rl.py) against random and the heuristic"
    )
    config.write_text(f'''name = "goofspiel_rl"
description = "{description}"
game = "goofspiel"
players = 2
options = {{ num_cards = 6 }}
pool = ["random", "heuristic", {policy}]
deals = {deals}
seed = 7
output = "{out / "tournament"}"
''')
    from experiments.cli import main as dynasty

    code = dynasty(["tournament", str(config), "--workers", "1", "--quiet"])
    return code, out / "tournament" / "report" / "report.md"


def main(out="results/rl/goofspiel", episodes=2000, deals=200, rounds=3):
    """Train, save the policy, rate it in a tournament; returns the learning curve, the greedy
    policy's mean win share against random, the tournament's exit code and report path."""
    import joblib

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model, curve, greedy = train(episodes, rounds)
    policy_file = out / "policy.joblib"
    joblib.dump({"model": model, "fields": FIELDS}, policy_file)
    print(
        "mean win share against random while learning (epsilon-greedy), by round: "
        + ", ".join(f"{c:.3f}" for c in curve)
        + f"; greedy: {greedy:.3f} ({max(episodes // 4, 50)} games)"
    )
    code, report = evaluate(policy_file, out, deals)
    print(f"dynasty tournament exit code {code}; report: {report}")
    return {"curve": curve, "greedy": greedy, "code": code, "report": report}


# %%
if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        args[0] if args else "results/rl/goofspiel",
        int(args[1]) if len(args) > 1 else 2000,
        int(args[2]) if len(args) > 2 else 200,
    )
