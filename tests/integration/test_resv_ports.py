"""srun --resv-ports with MpiParams=ports= (a cluster of its own) and without (the shared one):
SLURM_STEP_RESV_PORTS as Slurm's port manager hands them out."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, two_node_spec


def _spec(root: Path, name: str) -> ClusterSpec:
    return dataclasses.replace(two_node_spec(root, name), extra=("MpiParams=ports=12000-12003",))


@pytest.fixture(scope="module")
def ports_cluster() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        yield c


def test_ports_from_the_configured_range(ports_cluster: Cluster) -> None:
    show = ["printenv", "SLURM_STEP_RESV_PORTS"]
    implicit = ports_cluster.run("srun", "-N1", "-n2", *show, user="alice")   # tasks per node + 1
    asked = ports_cluster.run("srun", "--resv-ports=2", *show, user="alice")
    none = ports_cluster.run("srun", "--resv-ports", *show, user="alice")
    assert (implicit.stdout, asked.stdout) == ("12000-12002\n12000-12002\n", "12000-12001\n"), implicit.stderr
    assert (none.returncode, none.stdout) == (1, "")
    too_many = ports_cluster.run("srun", "--resv-ports=5", "true", user="alice")
    assert too_many.returncode == 1
    assert "Requires more ports than can be reserved" in too_many.stderr, too_many.stderr


def test_steps_sharing_a_node_get_different_ports(ports_cluster: Cluster) -> None:
    script = ("srun --overlap --resv-ports=2 sh -c 'echo A $SLURM_STEP_RESV_PORTS; sleep 4' & sleep 2; "
              "srun --overlap --resv-ports=2 sh -c 'echo B $SLURM_STEP_RESV_PORTS'; wait")
    result = ports_cluster.run("salloc", "-N1", "sh", "-c", script, user="bob")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.split("\n")[:2]) == ["A 12000-12001", "B 12002-12003"], result.stdout


def test_a_step_waits_for_ports_held_by_another(ports_cluster: Cluster) -> None:
    script = ("srun --overlap --resv-ports=3 sleep 4 & sleep 2; "
              "srun --overlap --resv-ports=2 printenv SLURM_STEP_RESV_PORTS; wait")
    result = ports_cluster.run("salloc", "-N1", "sh", "-c", script, user="bob")
    assert result.returncode == 0, result.stderr
    assert "step creation temporarily disabled, retrying (Required ports are in use)" in result.stderr, result.stderr
    assert result.stdout == "12000-12001\n", result.stdout   # the first step's ports, once it ended


def test_without_a_range_no_ports_and_slurms_refusal(cluster: Cluster) -> None:
    plain = cluster.run("srun", "printenv", "SLURM_STEP_RESV_PORTS", user="alice")
    assert (plain.returncode, plain.stdout) == (1, "")
    asked = cluster.run("srun", "--resv-ports=1", "true", user="alice")
    assert asked.returncode == 1 and "Requires more ports than can be reserved" in asked.stderr, asked.stderr
