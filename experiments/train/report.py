"""The report of ``dynasty train``: per generation the gate's win shares with their intervals,
the fit's losses, the policy's entropy, the value's calibration and the time each step took
(Markdown, HTML and PNG, from ``OUT/train.json``)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.ticker import MaxNLocator

from experiments.analysis.render import Image, Table, html_page, markdown, pyplot
from experiments.train.config import TrainConfig
from experiments.train.train import model_path, read_manifest


def make_train_report(cfg: TrainConfig) -> dict[str, Path]:
    m = read_manifest(cfg)
    gens = [g for g in m["generations"] if g.get("status") == "done"]
    out = cfg.output / "report"
    out.mkdir(parents=True, exist_ok=True)
    plt = pyplot()
    paths: dict[str, Path] = {}
    blocks: list = [(1, f"Training: {cfg.name}")]
    if cfg.description:
        blocks.append(cfg.description)
    best = m.get("best")
    blocks.append(
        f"Game **{cfg.game}**, {', '.join(map(str, cfg.players))} players; {len(gens)} "
        f"generations finished; best network: generation {best} (`{cfg.output / 'best.npz'}`). "
        f"Generation 0 clones `{cfg.warm_agent}` from {cfg.warm_games:,} games; each later "
        f"one plays {cfg.selfplay_games:,} games of `{cfg.search('<best>')}` (the best network), "
        f"fits on the newest {cfg.window} generations' examples, and is kept if it beats "
        f"{', '.join(cfg.gate_against)} on {cfg.gate_deals} shared deals: alone against the "
        "opponent's copies, its 95% bootstrap interval over deals above parity"
        + (
            "; and its lone win share minus the opponent's alone against its copies, an "
            "interval above 0."
            if cfg.gates_both_ways
            else "."
        )
    )
    both = cfg.gates_both_ways
    # the fit's shares of held-out decisions: (train.json key, column)
    shares = [("policy_agreement", "agrees with the search")]
    if cfg.hint:
        shares += [
            ("search_departs", "search departs from the hint"),
            ("follows_departure", "follows the departures"),
        ]
    rows = []
    for g in gens:
        fit = g.get("fit", {})
        gate = g.get("gate", {})
        rows.append(
            [g["generation"]]
            + [
                f"{gate[o]['win_share']:.3f} [{gate[o]['low']:.3f}, {gate[o]['high']:.3f}]"
                if o in gate
                else "–"
                for o in cfg.gate_against
            ]
            + [
                f"{gate[o]['opponent_alone']:.3f} "
                f"[{gate[o]['opponent_low']:.3f}, {gate[o]['opponent_high']:.3f}]"
                if o in gate and "opponent_alone" in gate[o]
                else "–"
                for o in (cfg.gate_against if both else ())
            ]
            + [
                "yes" if g.get("kept") else "no",
                fit.get("examples", 0),
                fit.get("held_out_policy_loss", float("nan")),
                fit.get("held_out_value_loss", float("nan")),
                fit.get("policy_entropy", float("nan")),
            ]
            + [_share(fit.get(key)) for key, _ in shares]
            + [
                g.get("selfplay_s", 0.0) / 60,
                fit.get("fit_s", 0.0) / 60,
                g.get("gate_s", 0.0) / 60,
            ]
        )
    blocks.append((2, "Generations"))
    blocks.append(
        Table(
            ["generation"]
            + [f"win share vs {o}" for o in cfg.gate_against]
            + [f"{o} alone against it" for o in (cfg.gate_against if both else ())]
            + [
                "kept",
                "examples",
                "held-out policy loss",
                "held-out value loss",
                "policy entropy",
            ]
            + [column for _, column in shares]
            + [
                "self-play min",
                "fit min",
                "gate min",
            ],
            rows,
            "per generation: the gate's win share of the new network with its 95% interval "
            f"(parity {1 / cfg.players[0]:.3f}), the fit on held-out games (how often the "
            "network's first choice is the search's most visited action, where there is a "
            "choice"
            + (
                "; how often that action is not the hint's, and how often the network then "
                "follows the search"
                if cfg.hint
                else ""
            )
            + "), time per step",
        )
    )
    if gens:
        fig, ax = plt.subplots(figsize=(7, 4))
        gated: list[int] = []
        for o in cfg.gate_against:
            xs = [g["generation"] for g in gens if o in g.get("gate", {})]
            gated += xs
            r = [g["gate"][o] for g in gens if o in g.get("gate", {})]
            if not xs:
                continue
            ys = [x["win_share"] for x in r]
            err = [[y - x["low"] for y, x in zip(ys, r)], [x["high"] - y for y, x in zip(ys, r)]]
            ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=3, label=f"vs {o}")
            # the other match beside it, not on top of it
            x2 = [x + 0.1 for x, y in zip(xs, r) if "opponent_alone" in y]
            r2 = [y for y in r if "opponent_alone" in y]
            if r2:
                y2 = [x["opponent_alone"] for x in r2]
                e2 = [
                    [y - x["opponent_low"] for y, x in zip(y2, r2)],
                    [x["opponent_high"] - y for y, x in zip(y2, r2)],
                ]
                ax.errorbar(x2, y2, yerr=e2, fmt="s--", capsize=3, label=f"{o} alone against it")
        ax.axhline(1 / cfg.players[0], color="grey", lw=1, ls="--", label="parity")
        ax.set_xlabel("generation")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if gated:  # whole generations on the axis, even when one is gated
            ax.set_xticks(sorted(set(gated)))
            ax.set_xlim(min(gated) - 0.5, max(gated) + 0.6)
        ax.set_ylabel("win share (95% interval)")
        ax.set_title(f"{cfg.name}: the new network against its opponents")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "gate.png", dpi=110)
        plt.close(fig)
        paths["gate"] = out / "gate.png"
        blocks.append(Image("gate.png", "win share per generation"))

        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        xs = [g["generation"] for g in gens]
        for key, label in (("held_out_policy_loss", "policy"), ("held_out_value_loss", "value")):
            axes[0].plot(
                xs, [g.get("fit", {}).get(key, float("nan")) for g in gens], "o-", label=label
            )
        axes[0].set_xlabel("generation")
        axes[0].xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[1].xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[0].set_ylabel("held-out loss")
        axes[0].legend(fontsize=8)
        axes[1].plot(xs, [g.get("fit", {}).get("policy_entropy", float("nan")) for g in gens], "o-")
        axes[1].set_xlabel("generation")
        axes[1].set_ylabel("policy entropy (nats)")
        fig.tight_layout()
        fig.savefig(out / "fit.png", dpi=110)
        plt.close(fig)
        paths["fit"] = out / "fit.png"
        blocks.append(Image("fit.png", "losses and policy entropy per generation"))

        last = gens[-1].get("fit", {}).get("calibration")
        if last:
            pts = [c for c in last if c["n"]]
            fig, ax = plt.subplots(figsize=(4.5, 4.5))
            ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--")
            ax.scatter(
                [c["predicted"] for c in pts],
                [c["observed"] for c in pts],
                s=[10 + 200 * c["n"] / max(c["n"] for c in pts) for c in pts],
            )
            ax.set_xlabel("predicted win share of the seat to move")
            ax.set_ylabel("observed win share")
            ax.set_title(f"value calibration, generation {gens[-1]['generation']}")
            fig.tight_layout()
            fig.savefig(out / "calibration.png", dpi=110)
            plt.close(fig)
            paths["calibration"] = out / "calibration.png"
            blocks.append(Image("calibration.png", "value calibration on held-out games"))

        fig, ax = plt.subplots(figsize=(7, 3.5))
        bottom = [0.0] * len(gens)
        for key, label in (("selfplay_s", "self-play"), ("fit_s", "fit"), ("gate_s", "gate")):
            vals = [
                (g.get("fit", {}).get(key, 0.0) if key == "fit_s" else g.get(key, 0.0)) / 60
                for g in gens
            ]
            ax.bar(xs, vals, bottom=bottom, label=label)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xlabel("generation")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("minutes")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "time.png", dpi=110)
        plt.close(fig)
        paths["time"] = out / "time.png"
        blocks.append(Image("time.png", "time per generation"))
    if best is not None:
        blocks.append(
            f"The best network is `{model_path(cfg, best)}`, copied to "
            f"`{cfg.output / 'best.npz'}`; "
            f"play it with `{cfg.policy(str(cfg.output / 'best.npz'))}` (as the gate played it) or "
            f"`{cfg.timed_search(str(cfg.output / 'best.npz'))}` (the training's search at 5 ms a "
            "decision)."
        )
    md, html_path = out / "report.md", out / "report.html"
    md.write_text(markdown(blocks))
    html_path.write_text(html_page(f"Training: {cfg.name}", blocks))
    return {"markdown": md, "html": html_path, **paths}


def _share(x: float | None) -> str:
    """A share of decisions for the generations table; "–" where the fit did not measure it."""
    return "–" if x is None else f"{x:.3f}"
