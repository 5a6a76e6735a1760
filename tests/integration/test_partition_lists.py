"""`sbatch -p a,b`: the job runs in whichever listed partition can start it first."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, two_node_spec, wait_for


def _spec(root: Path, name: str) -> ClusterSpec:
    spec = two_node_spec(root, name)
    return dataclasses.replace(spec, extra=(*spec.extra, "PartitionName=one Nodes=node1",
                                            "PartitionName=two Nodes=node2"))


@pytest.fixture(scope="module")
def split_cluster() -> Iterator[Cluster]:
    # Every node is in two partitions, so `sinfo -N` lists it twice: wait on one partition's view.
    with running_cluster(_spec, wait_idle=False) as c:
        wait_for(lambda: c.run("sinfo", "-h", "-N", "-p", "debug", "-o", "%t").stdout.split() == ["idle", "idle"], 30)
        yield c


def test_job_runs_in_the_listed_partition_with_room(split_cluster: Cluster) -> None:
    c = split_cluster
    filler = c.sbatch("-p", "one", "-c", "2", "--wrap", "sleep 30", user="alice")
    c.wait_state(filler, "RUNNING")
    held = c.sbatch("-p", "one,two", "--hold", "--wrap", "true", user="alice")
    assert c.job_field(held, "P") == "one,two"
    assert c.run("squeue", "-h", "-p", "two", "-o", "%i", user="alice").stdout.split() == [str(held)]
    job = c.sbatch("-p", "one,two", "-c", "2", "-o", "where-%j.out", "--wrap", "echo $SLURM_JOB_PARTITION",
                   user="alice")
    c.wait_state(job, "COMPLETED")
    assert (c.job_field(job, "P"), c.job_field(job, "N")) == ("two", "node2")
    assert (c.work_dir("alice") / f"where-{job}.out").read_text() == "two\n"
    wait_for(lambda: c.run("sacct", "-n", "-X", "-P", "-j", str(job), "-o", "Partition,State",
                           user="alice").stdout == "two|COMPLETED\n")
    bad = c.run("sbatch", "-p", "one,nosuch", "--wrap", "true", user="alice")
    assert (bad.returncode, bad.stderr) == (1, "sbatch: error: invalid partition specified: nosuch\n"
                                               "sbatch: error: Batch job submission failed: Invalid partition name specified\n")
    c.run("scancel", str(filler), str(held), user="alice", check=True)


def test_scontrol_update_partition_of_a_pending_job(split_cluster: Cluster) -> None:
    c = split_cluster
    job = c.sbatch("-p", "one", "--hold", "-o", "/dev/null", "--wrap", "true", user="alice")
    denied = c.run("scontrol", "update", f"jobid={job}", "Partition=two", user="bob")
    assert (denied.returncode, denied.stderr) == (1, f"Invalid user id for job {job}\n")
    bad = c.run("scontrol", "update", f"jobid={job}", "Partition=nosuch", user="alice")
    assert (bad.returncode, bad.stderr) == (1, f"Invalid partition name specified for job {job}\n")
    c.run("scontrol", "update", f"jobid={job}", "Partition=two", user="alice", check=True)
    assert c.job_field(job, "P") == "two"
    c.run("scontrol", "release", str(job), user="alice", check=True)
    c.wait_state(job, "COMPLETED")
    assert c.job_field(job, "N") == "node2"
    late = c.run("scontrol", "update", f"jobid={job}", "Partition=one", user="alice")
    assert (late.returncode, late.stderr) == (1, f"Job has already finished for job {job}\n")
