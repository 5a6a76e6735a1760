"""Adding machines to a running cluster, each "machine" a network namespace with its own
address (tests/integration/netns.py): a node listed in slurm.conf whose agent runs on the
second host with a copy of the key and configuration, and a dynamic node (`pyslurmd -Z`)
on a third host that the controller reaches at the address its registration came from.
The README's "Adding a second machine" section is this, on real hosts.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import BIN, Cluster, free_port, running_cluster, two_node_spec, wait_for
from .netns import SeparateHost, separate_host

REMOTE_PORT = free_port()


@pytest.fixture(scope="module")
def hosts() -> Iterator[tuple[SeparateHost, SeparateHost]]:
    with separate_host("10.251.77") as second, separate_host("10.251.78") as third:
        yield second, third


@pytest.fixture(scope="module")
def lab(hosts: tuple[SeparateHost, SeparateHost]) -> Iterator[Cluster]:
    second, _ = hosts

    def spec(root: Path, name: str):  # type: ignore[no-untyped-def]
        # The controller listens on every address; the other hosts reach it over their link.
        return dataclasses.replace(two_node_spec(root, name), controller_addr=second.gateway, extra=(
            f"NodeName=remote1 NodeAddr={second.address} CPUs=1 RealMemory=500 Port={REMOTE_PORT}",
            "PartitionName=remote Nodes=remote1",
            "PartitionName=grow Nodes=ALL",
        ))

    with running_cluster(spec, wait_idle=False) as c:
        yield c


def node_states(lab: Cluster) -> dict[str, str]:
    lines = lab.run("sinfo", "-h", "-N", "-o", "%N %t").stdout.split("\n")
    return dict(line.split() for line in lines if line.strip())


def start_agent_on(lab: Cluster, host: SeparateHost, name: str, *args: str) -> None:
    """What an admin does on the new machine: copy the key and the configuration directory,
    start pyslurmd there (here: inside the host's network namespace)."""
    conf_dir = lab.work.parent / f"{name}-etc"
    shutil.copytree(lab.spec.conf_dir, conf_dir)
    conf = conf_dir / "slurm.conf"
    conf.write_text(conf.read_text().replace(str(lab.spec.conf_dir), str(conf_dir)))  # key= path
    log = (lab.spec.log_dir / f"{name}.stderr").open("ab")
    lab.procs[name] = subprocess.Popen(host.command(str(BIN / "pyslurmd"), "-N", name, *args),
                                       env=dict(lab.env, PYSLURM_CONF=str(conf)), stdout=log, stderr=log,
                                       stdin=subprocess.DEVNULL)


def test_a_node_on_a_second_host_registers_and_runs_jobs(lab: Cluster, hosts: tuple[SeparateHost, SeparateHost]) -> None:
    second, _ = hosts
    start_agent_on(lab, second, "remote1")
    wait_for(lambda: node_states(lab) == {"node1": "idle", "node2": "idle", "remote1": "idle"}, timeout=30)
    agent = lab.procs["remote1"].pid
    assert os.readlink(f"/proc/{agent}/ns/net") != os.readlink("/proc/self/ns/net")
    shown = lab.run("scontrol", "show", "node", "remote1").stdout
    assert f"NodeAddr={second.address} " in shown
    job = lab.sbatch("-p", "remote", "-o", "remote.out", "--wrap", "echo $SLURMD_NODENAME", user="alice")
    lab.wait_state(job, "COMPLETED")
    assert lab.job_field(job, "N") == "remote1"
    assert (lab.work_dir("alice") / "remote.out").read_text() == "remote1\n"


def test_srun_on_the_second_host_streams_back_to_this_one(lab: Cluster) -> None:
    """The remote stepd connects back to srun here (at the controller's address, as this srun
    talks to the controller over loopback), both ways: stdin there, stdout here."""
    wait_for(lambda: node_states(lab).get("remote1") == "idle", timeout=30)
    result = lab.run("srun", "-p", "remote", "sh", "-c", "echo $SLURMD_NODENAME; cat", user="alice",
                     input="through the link\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "remote1\nthrough the link\n"


def test_sbcast_copies_a_file_to_every_node_of_the_job_as_its_user(lab: Cluster) -> None:
    """sbcast in an allocation of node1 and remote1 (the second host): one receiving task per
    node, run as alice (the step "sbcast" on both nodes); -f replaces, -p keeps the times, the
    mode is the source's. (The hosts share a filesystem here: the nodes write the same path.)"""
    wait_for(lambda: node_states(lab).get("remote1") == "idle", timeout=30)
    work = lab.work_dir("alice")
    source = work / "tool.sh"
    source.write_text("#!/bin/sh\necho tool\n")
    shutil.chown(source, "alice", "alice")
    os.chmod(source, 0o750)
    os.utime(source, (1_600_000_000, 1_600_000_000))
    dest = f"/tmp/pyslurm-sbcast-{os.getpid()}"
    # Accounting is asynchronous (slurmdbd too is fed by slurmctld's agent queue): the step's record
    # reaches it a moment after sbcast returns, so the script polls sacct for it.
    script = (f"sbcast -f -p -C -F 4 tool.sh {dest} || exit 9; "
              "for _ in $(seq 50); do s=$(sacct -n -P -j $SLURM_JOB_ID.0 -o JobName,NodeList); "
              "[ -n \"$s\" ] && break; sleep 0.1; done; echo \"$s\"; "
              f"srun -N2 --ntasks-per-node=1 sh -c 'echo $SLURMD_NODENAME $(stat -c \"%U %a %Y\" {dest}) $({dest})'")
    try:
        result = lab.run("salloc", "-Q", "-p", "grow", "-w", "node1,remote1", "-N2", "sh", "-c", script,
                         user="alice", timeout=120)
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert lines[0] == "sbcast|node1,remote1", lines
        assert sorted(lines[1:]) == ["node1 alice 750 1600000000 tool", "remote1 alice 750 1600000000 tool"], lines
    finally:
        if os.path.exists(dest):
            os.unlink(dest)


def test_a_dynamic_node_on_a_third_host_is_reached_at_its_own_address(
        lab: Cluster, hosts: tuple[SeparateHost, SeparateHost]) -> None:
    _, third = hosts
    start_agent_on(lab, third, "gpubox", "-Z", "--conf", f"CPUs=1 RealMemory=500 Port={free_port()}")
    wait_for(lambda: node_states(lab).get("gpubox") == "idle", timeout=30)
    assert f"NodeAddr={third.address} " in lab.run("scontrol", "show", "node", "gpubox").stdout
    job = lab.sbatch("-p", "grow", "-N", "4", "-o", "/dev/null", "--wrap", "true", user="bob")
    lab.wait_state(job, "COMPLETED")
    assert lab.job_field(job, "N") == "gpubox,node[1-2],remote1"
    lab.stop("gpubox")
    lab.run("scontrol", "delete", "nodename=gpubox", check=True)
    assert "gpubox" not in node_states(lab)
