"""Node administration through the real CLIs: drain/resume/down/undrain with Slurm's rules and
messages, ReturnToService, and dynamic nodes (`pyslurmd -Z --conf`, `scontrol delete nodename=`)
that survive a controller restart.

Spec: cli-squeue-sinfo-scontrol-scancel.md §3.6 (update NodeName), config-slurm-conf.md §3
(ReturnToService), Slurm's dynamic nodes (Nodes=ALL partitions and NodeSets of a feature they
carry take them; only dynamic nodes without jobs can be deleted).
"""
from __future__ import annotations

import dataclasses
import signal
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import BIN, Cluster, free_port, running_cluster, two_node_spec, wait_for


@pytest.fixture(scope="module")
def lab() -> Iterator[Cluster]:
    def spec(root: Path, name: str):  # type: ignore[no-untyped-def]
        # `all` takes every node, dynamic ones included; `debug` only the two configured nodes;
        # `slinky` the nodes with that feature, as Slinky's slurm-operator writes it.
        return dataclasses.replace(two_node_spec(root, name), extra=(
            "PartitionName=all Nodes=ALL", "NodeSet=slinky Feature=slinky", "PartitionName=slinky Nodes=slinky"))

    # sinfo -N lists a node once per partition here, which the fixture's idle check does not expect.
    with running_cluster(spec, wait_idle=False) as c:
        wait_all_idle(c)
        yield c


def wait_all_idle(lab: Cluster) -> None:
    wait_for(lambda: node_states(lab) == {"node1": "idle", "node2": "idle"}, timeout=30)


def node_states(lab: Cluster) -> dict[str, str]:
    lines = lab.run("sinfo", "-h", "-N", "-o", "%N %t").stdout.split("\n")
    return dict(line.split() for line in lines if line.strip())


def show_node(lab: Cluster, name: str) -> str:
    return lab.run("scontrol", "show", "node", name).stdout


def test_drain_needs_a_reason_and_other_refusals_use_slurms_words(lab: Cluster) -> None:
    def update(*words: str, user: str | None = None) -> tuple[int, str]:
        result = lab.run("scontrol", "update", *words, user=user)
        return result.returncode, result.stderr

    reason = "You must specify a reason when DOWNING or DRAINING a node. Request denied\n"
    assert update("nodename=node1", "state=drain") == (1, reason)
    assert update("nodename=node1", "state=down") == (1, reason)
    assert update("nodename=node1") == (1, "No changes specified\n")
    assert update("nodename=node1", "state=sleepy") == (
        1, "Invalid input: State=sleepy\nRequest aborted\nValid states are: DOWN DRAIN RESUME UNDRAIN\n")
    assert update("nodename=nosuch", "state=resume") == (1, "slurm_update error: Invalid node name specified\n")
    assert update("nodename=node1", "state=drain", "reason=x", user="alice") == (
        1, "slurm_update error: Invalid user id\n")
    assert node_states(lab) == {"node1": "idle", "node2": "idle"}


def test_draining_a_busy_node_lets_its_job_finish_and_takes_no_new_ones(lab: Cluster) -> None:
    job = lab.sbatch("-p", "debug", "-N", "2", "-o", "/dev/null", "--wrap", "sleep 300", user="alice")
    lab.wait_state(job, "RUNNING")
    lab.run("scontrol", "update", "nodename=node1", "state=drain", "reason=disk check", check=True)
    assert node_states(lab)["node1"] == "drng"
    assert lab.job_field(job, "T") == "RUNNING"
    shown = show_node(lab, "node1")
    assert "State=MIXED+DRAIN " in shown and "\n   Reason=disk check [root@" in shown
    lab.run("scancel", str(job), check=True)
    wait_for(lambda: node_states(lab)["node1"] == "drain")
    later = lab.sbatch("-p", "debug", "-N", "2", "-o", "/dev/null", "--wrap", "true", user="alice")
    wait_for(lambda: lab.run("squeue", "-h", "-j", str(later), "-o", "%r").stdout.strip() != "None")
    assert lab.job_field(later, "T") == "PENDING"
    lab.run("scontrol", "update", "nodename=node1", "state=undrain", check=True)
    lab.wait_state(later, "COMPLETED")
    assert "Reason=" not in show_node(lab, "node1")


def test_down_ends_the_jobs_there_and_return_to_service_decides_when_it_comes_back(lab: Cluster) -> None:
    job = lab.sbatch("-p", "debug", "-N", "2", "-o", "/dev/null", "--no-requeue", "--wrap", "sleep 300", user="bob")
    lab.wait_state(job, "RUNNING")
    lab.run("scontrol", "update", "nodename=node2", "state=down", "reason=fan failure", check=True)
    lab.wait_state(job, "NODE_FAIL")     # --no-requeue (test_requeue_on_node_failure: the default)
    assert node_states(lab)["node2"] == "down"
    # ReturnToService=1: a node an admin took down stays down when its agent registers again.
    agent_log = lab.spec.log_dir / "pyslurmd-node2.log"
    registrations = agent_log.read_text().count("registered as node2")
    lab.stop("node2")
    lab.start("node2")
    wait_for(lambda: agent_log.read_text().count("registered as node2") > registrations)
    assert node_states(lab)["node2"] == "down" and "Reason=fan failure [root@" in show_node(lab, "node2")
    # ReturnToService=2 (applied by reconfigure): any DOWN node returns once it registers.
    conf = lab.spec.slurm_conf
    original = conf.read_text()
    try:
        conf.write_text(original.replace("ReturnToService=1", "ReturnToService=2"))
        lab.run("scontrol", "reconfigure", check=True)
        wait_for(lambda: node_states(lab)["node2"] == "idle")
    finally:
        conf.write_text(original)
        lab.run("scontrol", "reconfigure", check=True)


def test_resume_brings_a_down_node_back(lab: Cluster) -> None:
    lab.run("scontrol", "update", "nodename=node[1-2]", "state=down", "reason=power work", check=True)
    assert node_states(lab) == {"node1": "down", "node2": "down"}
    lab.run("scontrol", "update", "nodename=node[1-2]", "state=resume", check=True)
    assert node_states(lab) == {"node1": "idle", "node2": "idle"}


# ---- dynamic nodes ------------------------------------------------------------------------------


def start_dynamic(lab: Cluster, name: str, conf: str) -> None:
    lab.node_args[name] = ("-Z", "--conf", conf)
    lab.start(name)


def test_pyslurmd_refuses_bad_dynamic_definitions(lab: Cluster) -> None:
    def start(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "pyslurmd"), *args], env=lab.env, capture_output=True, text=True,
                              timeout=30)

    taken = start("-N", "node1", "-Z", "--conf", "CPUs=1")
    assert taken.returncode == 1
    assert taken.stderr.endswith("pyslurmd: fatal: " f"{lab.spec.slurm_conf}: node node1 is in slurm.conf: "
                                 "start it without -Z\n")
    bad = start("-N", "dyn9", "-Z", "--conf", "RealMemory=lots")
    assert bad.returncode == 1
    assert bad.stderr.endswith("pyslurmd: fatal: --conf:1: invalid RealMemory value 'lots': "
                               "expected a size in MB (or with a K/M/G/T suffix)\n")
    stray = start("-N", "dyn9", "--conf", "CPUs=1")
    assert (stray.returncode, stray.stderr) == (1, "pyslurmd: fatal: --conf is only for dynamic nodes (-Z)\n")


def test_a_dynamic_node_joins_runs_jobs_survives_a_controller_restart_and_can_be_deleted(lab: Cluster) -> None:
    start_dynamic(lab, "dyn1", f"CPUs=1 RealMemory=500 Features=burst Port={free_port()}")
    wait_for(lambda: node_states(lab).get("dyn1") == "idle")
    shown = show_node(lab, "dyn1")
    assert "State=IDLE+DYNAMIC_NORM " in shown and "NodeAddr=127.0.0.1 " in shown
    assert "AvailableFeatures=burst" in shown and "RealMemory=500 " in shown
    parts = lab.run("sinfo", "-h", "-o", "%P %N").stdout.split("\n")
    assert "all dyn1,node[1-2]" in parts and "debug* node[1-2]" in parts
    job = lab.sbatch("-p", "all", "-N", "3", "-o", "/dev/null", "--wrap", "sleep 300", user="alice")
    lab.wait_state(job, "RUNNING")
    assert lab.job_field(job, "N") == "dyn1,node[1-2]"
    denied = lab.run("scontrol", "delete", "nodename=dyn1")
    assert (denied.returncode, denied.stderr) == (
        1, "scontrol: error: Node 'dyn1' can't be delete because it's still in use.\n")
    configured = lab.run("scontrol", "delete", "nodename=node1")
    assert configured.stderr == "scontrol: error: Can't delete non-dynamic node 'node1'.\n"
    assert lab.run("scontrol", "delete", "nodename=dyn1", user="bob").returncode == 1
    lab.run("scancel", str(job), check=True)
    lab.wait_state(job, "CANCELLED")
    wait_for(lambda: node_states(lab).get("dyn1") == "idle")

    # The controller keeps the node across a crash, even while its agent is away.
    lab.stop("dyn1")
    lab.stop("ctld", signal.SIGKILL)
    lab.start("ctld")
    wait_for(lambda: lab.run("scontrol", "ping").returncode == 0)
    assert "State=UNKNOWN+DYNAMIC_NORM+NOT_RESPONDING " in show_node(lab, "dyn1")

    lab.run("scontrol", "delete", "nodename=dyn1", check=True)
    assert "dyn1" not in node_states(lab)
    lab.stop("ctld", signal.SIGKILL)
    lab.start("ctld")
    wait_all_idle(lab)
    assert lab.run("scontrol", "show", "node", "dyn1").stderr == "scontrol: error: Node dyn1 not found\n"


def test_a_dynamic_node_with_a_nodesets_feature_joins_that_partition_and_runs_its_jobs(lab: Cluster) -> None:
    shown = lab.run("scontrol", "show", "partition", "slinky").stdout
    assert "   Nodes=(null)\n" in shown and " TotalNodes=0 " in shown    # as Slurm 22.05 shows an empty NodeSet
    # Slinky starts each slurmd as `slurmd -Z --conf "... Features=<nodeset>"`.
    start_dynamic(lab, "dyn2", f"CPUs=1 RealMemory=500 Features=slinky Port={free_port()}")
    try:
        wait_for(lambda: node_states(lab).get("dyn2") == "idle")
        parts = lab.run("sinfo", "-h", "-o", "%P %N").stdout.split("\n")
        assert "slinky dyn2" in parts and "debug* node[1-2]" in parts
        assert "   Nodes=dyn2\n" in lab.run("scontrol", "show", "partition", "slinky").stdout
        job = lab.sbatch("-p", "slinky", "-o", "/dev/null", "--wrap", "true", user="alice")
        lab.wait_state(job, "COMPLETED")
        assert lab.job_field(job, "N") == "dyn2"
    finally:
        lab.stop("dyn2")
        lab.run("scontrol", "delete", "nodename=dyn2", check=True)
