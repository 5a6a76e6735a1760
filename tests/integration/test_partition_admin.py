"""scontrol create/update/delete partition and scontrol create nodename= against the real
daemons: administrators only (Slurm's refusals for everyone else), journaled so a controller
restart keeps them, and honoured by the scheduler at once."""
from __future__ import annotations

import signal
from typing import Iterator

import pytest

from .conftest import Cluster, free_port, running_cluster, two_node_spec, wait_for


@pytest.fixture(scope="module")
def lab() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c


def partitions(lab: Cluster) -> dict[str, str]:
    """sinfo's partitions: name (default marked *) -> availability."""
    lines = lab.run("sinfo", "-h", "-o", "%P %a").stdout.split("\n")
    return dict(line.split() for line in lines if line.strip())


@pytest.mark.parametrize(("words", "refusal"), [
    (("update", "partitionname=debug", "state=down"), "slurm_update error: Invalid user id"),
    (("create", "partition=mine", "nodes=node1"), "Error creating the partition: Invalid user id"),
    (("delete", "partitionname=debug"), "delete_partition partitionname=debug: Invalid user id"),
    (("create", "nodename=box9", "cpus=1"), "Error creating the node(s): Invalid user id"),
])
def test_users_may_not_change_partitions_or_nodes(lab: Cluster, words: tuple[str, ...], refusal: str) -> None:
    result = lab.run("scontrol", *words, user="alice")
    assert (result.stderr, result.returncode) == (refusal + "\n", 1)
    assert partitions(lab) == {"debug*": "up"}


def test_partition_changes_take_effect_and_survive_a_restart(lab: Cluster) -> None:
    lab.run("scontrol", "create", "partitionname=short", "nodes=node2", "maxtime=5", check=True)
    lab.run("scontrol", "update", "partitionname=debug", "state=down", check=True)
    assert partitions(lab) == {"debug*": "down", "short": "up"}
    shown = lab.run("scontrol", "show", "partition", "short").stdout
    assert "MaxTime=00:05:00 " in shown and "   Nodes=node2\n" in shown
    waiting = lab.sbatch("-o", "/dev/null", "--wrap", "true", user="alice")
    wait_for(lambda: lab.job_field(waiting, "r") == "PartitionDown")
    too_long = lab.sbatch("-p", "short", "-t", "10", "--wrap", "true", user="alice")
    wait_for(lambda: lab.job_field(too_long, "r") == "PartitionTimeLimit")
    lab.run("scancel", str(too_long), user="alice", check=True)
    lab.stop("ctld", signal.SIGKILL)
    lab.start("ctld")
    wait_for(lambda: partitions(lab) == {"debug*": "down", "short": "up"}, timeout=30)
    assert lab.job_field(waiting, "r") == "PartitionDown"
    short = lab.sbatch("-p", "short", "-o", "/dev/null", "--wrap", "true", user="bob")
    lab.wait_state(short, "COMPLETED")
    assert lab.job_field(short, "N") == "node2"
    lab.run("scontrol", "update", "partitionname=debug", "state=up", check=True)
    lab.wait_state(waiting, "COMPLETED")


def test_a_partition_in_use_is_not_deleted(lab: Cluster) -> None:
    held = lab.sbatch("-p", "short", "--hold", "-o", "/dev/null", "--wrap", "true", user="bob")
    result = lab.run("scontrol", "delete", "partitionname=short")
    assert (result.stderr, result.returncode) == ("delete_partition partitionname=short: Partition is in use\n", 1)
    lab.run("scancel", str(held), user="bob", check=True)
    lab.run("scontrol", "delete", "partitionname=short", check=True)
    assert partitions(lab) == {"debug*": "up"}
    result = lab.run("scontrol", "update", "partitionname=short", "state=up")
    assert (result.stderr, result.returncode) == ("slurm_update error: Invalid partition name specified\n", 1)


def test_bad_partition_settings_are_refused_with_the_reason(lab: Cluster) -> None:
    result = lab.run("scontrol", "update", "partitionname=debug", "nodes=node7")
    assert (result.stderr, result.returncode) == (
        "scontrol: error: Invalid node name specified: node7\nslurm_update error: Invalid node name specified\n", 1)
    result = lab.run("scontrol", "update", "partitionname=debug", "colour=blue")
    assert result.stderr == ("scontrol: error: Update of this parameter is not supported: colour=blue\n"
                             "scontrol: error: Request aborted\nslurm_update error: Invalid argument\n")


def test_an_admin_creates_a_dynamic_node_before_its_agent_starts(lab: Cluster) -> None:
    port = free_port()
    lab.run("scontrol", "create", "partitionname=grow", "nodes=ALL", check=True)
    lab.run("scontrol", "create", "nodename=box9", "cpus=1", "realmemory=500", f"port={port}", check=True)
    assert "NodeName=box9 " in lab.run("scontrol", "show", "node", "box9").stdout
    again = lab.run("scontrol", "create", "nodename=box9", "cpus=1")
    assert again.returncode == 1 and again.stderr.endswith("Error creating the node(s): Invalid node name specified\n")
    lab.node_args["box9"] = ("-Z", "--conf", f"CPUs=1 RealMemory=500 Port={port}")
    lab.start("box9")
    wait_for(lambda: "box9 idle" in lab.run("sinfo", "-h", "-N", "-p", "grow", "-o", "%N %t").stdout, timeout=30)
    job = lab.sbatch("-p", "grow", "-w", "box9", "-o", "/dev/null", "--wrap", "true", user="alice")
    lab.wait_state(job, "COMPLETED")
    lab.stop("box9")
    lab.run("scontrol", "delete", "nodename=box9", check=True)
    lab.run("scontrol", "delete", "partitionname=grow", check=True)
    assert partitions(lab) == {"debug*": "up"}
