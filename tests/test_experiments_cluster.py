"""A run on a two-node local Ray cluster (ray.cluster_utils.Cluster) gives the same rows as
one process without Ray, and uses both nodes."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.analysis.results import load_results
from experiments.run.config import from_dict
from experiments.run.runner import ChunkContext, job_of, run


@pytest.fixture(scope="module")
def two_nodes():
    import ray
    from ray.cluster_utils import Cluster

    if ray.is_initialized():  # another module's session: this test needs its own cluster
        ray.shutdown()
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="WARNING")
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def test_two_node_cluster_gives_the_same_rows(two_nodes, tmp_path):
    cfg = from_dict(
        {
            "game": "goofspiel",
            "players": 4,
            "agents": ["heuristic", "random", "heuristic", "random"],
            "seats": "rotate",
            "games": 800,
            "seed": 99,
            "output": str(tmp_path / "c"),
            "options": {"num_cards": 5},
        },
        "cluster.toml",
    )
    s = run(cfg, workers=2, chunk_size=75, progress=False)
    assert s.status == "complete" and s.workers == 2 and s.nodes == 2
    df = load_results(cfg.output).drop(
        columns=["game", "agent_ms"]
    )  # agent time: measured, differs per run
    ctx = ChunkContext(job_of(cfg))
    ref = ctx.table.fill(ctx.play(0, cfg.games)).to_pandas()
    assert len(df) == 800 * 4
    pd.testing.assert_frame_equal(
        df.astype({"agent": str}).reset_index(drop=True),
        ref.astype({"agent": str})[df.columns],
        check_categorical=False,
    )
