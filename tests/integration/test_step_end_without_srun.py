"""A cancelled step ends on every node within KillWait and a few seconds whatever its srun does:
stopped with the stream full, or killed. Every stepd of it exits, its cgroups go (v2 and v1), the
nodes are released.

In CI a cancelled MPI step's stepd once sat 30 s after its tasks had gone, waiting for srun to
acknowledge its last bytes: srun had been killed with them unread, the connection was reset, and
the kernel counts bytes lost that way as unacknowledged for ever. The stepd answered no terminate
meanwhile and its node stayed held. Before that wait, its final flush to an srun that did not read
could block another 30 s. Both now happen inside stepd's loop and are bounded
(pyslurm_d/stepd.py, _hand_over_the_rest). A cluster of its own: a step that does not end would
hold the nodes of a shared one.
"""
from __future__ import annotations

import os
import pwd
import signal
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import BIN, KILL_WAIT, Cluster, job_cgroups, running_cluster, stepd_pid, two_node_spec, wait_for

# KillWait for the tasks, the stepd's 2 s wind-down once told to end, the report to the controller;
# with room for a loaded two-core machine. The defect took 30 s and more.
BOUND = KILL_WAIT + 9


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c


def _flooding_srun(cluster: Cluster) -> tuple[subprocess.Popen[bytes], int, list[int]]:
    """srun -N2 -n2 of a task that writes without end, as alice: the process, its job id and the
    step's stepds (one per node), once both tasks run."""
    alice = pwd.getpwnam("alice")
    srun = subprocess.Popen([str(BIN / "srun"), "-N2", "-n2", "yes", "flood"],
                            env=dict(cluster.env, USER="alice", HOME=alice.pw_dir), cwd=cluster.work_dir("alice"),
                            user=alice.pw_uid, group=alice.pw_gid, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    job_id = int(wait_for(lambda: cluster.run("squeue", "-h", "-u", "alice", "-o", "%i").stdout.strip(), timeout=30))
    stepds = [stepd_pid(cluster, node, job_id, "0") for node in ("node1", "node2")]
    wait_for(lambda: len(_yes_processes()) == 2, timeout=30)
    return srun, job_id, stepds


def _yes_processes() -> list[int]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes() == b"yes\0flood\0":
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


def _gone(pids: list[int]) -> bool:
    return not any(Path(f"/proc/{pid}").exists() for pid in pids)


def _step_over(cluster: Cluster, job_id: int, stepds: list[int]) -> bool:
    return _gone(stepds) and not _yes_processes() and not job_cgroups(cluster, job_id)


def test_scancel_ends_a_step_whose_srun_stopped_reading(cluster: Cluster) -> None:
    srun, job_id, stepds = _flooding_srun(cluster)
    try:
        os.kill(srun.pid, signal.SIGSTOP)   # ^Z: srun reads nothing more; the stream fills up
        time.sleep(1)
        started = time.monotonic()
        cluster.run("scancel", str(job_id), user="alice", check=True)
        wait_for(lambda: _step_over(cluster, job_id, stepds), timeout=BOUND)
        wait_for(cluster.nodes_idle, timeout=BOUND - (time.monotonic() - started))
        assert cluster.job_field(job_id, "T") == "CANCELLED"
    finally:
        srun.kill()
        srun.wait(timeout=10)


def test_a_killed_srun_ends_its_step(cluster: Cluster) -> None:
    srun, job_id, stepds = _flooding_srun(cluster)
    try:
        srun.kill()   # kill -9 in the middle of the output: the stepds end the step themselves
        srun.wait(timeout=10)
        wait_for(lambda: _step_over(cluster, job_id, stepds), timeout=BOUND)
    finally:
        cluster.run("scancel", str(job_id), user="alice")   # srun's allocation outlives it, as in Slurm
    cluster.wait_state(job_id, "CANCELLED", timeout=BOUND)
    wait_for(cluster.nodes_idle, timeout=BOUND)
