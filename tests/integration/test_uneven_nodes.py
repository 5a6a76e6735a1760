"""A job over nodes of different sizes: -N2 -n3 on a 1-CPU and a 2-CPU node runs at once, its
tasks following each node's CPUs (1 and 2), as Slurm's cons_tres and block layout place them;
it pended for ever when every node had to hold the largest share (2)."""
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
    return dataclasses.replace(base, nodes=(dataclasses.replace(first, cpus=1), second))


@pytest.fixture(scope="module")
def uneven() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        yield c


def test_three_tasks_on_a_one_and_a_two_cpu_node(uneven: Cluster) -> None:
    result = uneven.run("srun", "-N2", "-n3", "-l", "sh", "-c", "echo $SLURMD_NODENAME $SLURM_TASKS_PER_NODE",
                        user="alice", timeout=60)
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == [
        "0: node1 1,2", "1: node2 1,2", "2: node2 1,2"], result.stdout
    batch = uneven.sbatch("-N2", "-n3", "-o", "tpn.out", "--wrap", "echo $SLURM_TASKS_PER_NODE; srun hostname | wc -l",
                          user="alice")
    uneven.wait_state(batch, "COMPLETED", timeout=60)
    assert (uneven.work_dir("alice") / "tpn.out").read_text() == "1,2\n3\n"
