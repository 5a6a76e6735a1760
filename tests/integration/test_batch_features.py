"""sbatch --batch=<features>: the batch script runs on the first node of the allocation with
those features (a subset of -C), else on the first node; refused in Slurm's words otherwise."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, two_node_spec


def _spec(root: Path, name: str) -> ClusterSpec:
    base = two_node_spec(root, name)
    first, second = base.nodes
    return dataclasses.replace(base, nodes=(dataclasses.replace(first, features="knl,fast"),
                                            dataclasses.replace(second, features="haswell,fast")))


@pytest.fixture(scope="module")
def feature_cluster() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        yield c


def test_batch_script_runs_on_the_node_with_the_features(feature_cluster: Cluster) -> None:
    c = feature_cluster
    out = c.work_dir("alice") / "where.out"
    job = c.sbatch("-N2", "-C", "knl|haswell", "--batch=haswell", "-o", str(out), "--wrap", "echo $SLURMD_NODENAME",
                   user="alice")
    c.wait_state(job, "COMPLETED", timeout=30)
    assert out.read_text() == "node2\n"
    shown = c.run("scontrol", "show", "job", str(job)).stdout
    assert "   BatchFeatures=haswell BatchHost=node2\n" in shown, shown
    either = c.sbatch("-N2", "-C", "knl|haswell", "--batch=knl|haswell", "--wrap", "true", user="alice")
    c.wait_state(either, "COMPLETED", timeout=30)
    assert "BatchFeatures=knl|haswell BatchHost=node1" in c.run("scontrol", "show", "job", str(either)).stdout


@pytest.mark.parametrize("options", [["--batch=haswell"], ["-C", "knl", "--batch=haswell"],
                                     ["-C", "fast", "--batch=bogus"], ["-C", "fast", "--batch=haswell"]])
def test_batch_features_outside_the_constraint_are_refused(feature_cluster: Cluster, options: list[str]) -> None:
    refused = feature_cluster.run("sbatch", *options, "--wrap", "true", user="alice")
    assert (refused.returncode, refused.stderr) == (1, "sbatch: error: Batch job submission failed: Job --batch "
                                                       "option is invalid or not a subset of --constraints\n")
