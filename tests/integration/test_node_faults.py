"""Faults that used to strand work (issue 12), on a cluster of its own with real daemons, cgroups and
users:

- `kill -9` of the controller while launches (or a terminate) are in flight: every job still
  reaches its final state with its real exit code, accounting agrees, the nodes go idle. The node
  agents report what they run and what ended in every registration and heartbeat, and the
  controller reconciles (pyslurm_ctld/core/node_reconcile.py).
- `kill -9` of a stepd: the job (or the srun step) ends NODE_FAIL (its end is unknown, as Slurm's
  "missing from batch node"), and no process and no cgroup directory of it is left
  (pyslurm_d/cgroup_sweep.py).
- a node agent started over the cgroups of a killed agent and stepd removes them and kills
  what is inside.
"""
from __future__ import annotations

import os
import pwd
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import Cluster, job_cgroups, running_cluster, stepd_pid, two_node_spec, wait_for

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "NODE_FAIL", "TIMEOUT", "OUT_OF_MEMORY"}


@pytest.fixture(scope="module")
def faults() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c


def _states(cluster: Cluster, job_ids: list[int]) -> dict[int, str]:
    out = cluster.run("squeue", "-h", "-t", "all", "-j", ",".join(map(str, job_ids)), "-o", "%i %T").stdout
    return {int(i): state for i, state in (line.split() for line in out.splitlines())}


def _all_final(cluster: Cluster, job_ids: list[int]) -> bool:
    states = _states(cluster, job_ids)
    return len(states) == len(job_ids) and set(states.values()) <= FINAL


def _sacct(cluster: Cluster, job_ids: list[int]) -> dict[int, tuple[str, str]]:
    out = cluster.run("sacct", "-n", "-X", "-P", "-j", ",".join(map(str, job_ids)), "-o", "JobID,State,ExitCode").stdout
    return {int(i): (state, code) for i, state, code in (line.split("|") for line in out.splitlines())}


def _sacct_steps(cluster: Cluster, job_id: int) -> dict[str, str]:
    out = cluster.run("sacct", "-n", "-P", "-j", str(job_id), "-o", "JobID,State").stdout
    return dict(line.split("|") for line in out.splitlines())


def _job_pids(cluster: Cluster, job_id: int) -> set[int]:
    """Every process in the job's cgroups now."""
    return {int(pid) for top in job_cgroups(cluster, job_id) for procs in top.rglob("cgroup.procs")
            for pid in procs.read_text().split()}


def _all_gone(pids: set[int]) -> bool:
    """None of `pids` exists any more, not even as a zombie waiting for its parent."""
    return not any(Path(f"/proc/{pid}").exists() for pid in pids)


def _sleeping(*seconds: int) -> list[int]:
    """The processes running `sleep N` for one of these (unusual) durations."""
    wanted = {f"sleep\0{n}\0".encode() for n in seconds}
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes() in wanted:
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


def _start_controller(cluster: Cluster) -> None:
    cluster.start("ctld")
    wait_for(lambda: cluster.run("squeue", "-h").returncode == 0, timeout=30)


def test_controller_killed_in_the_middle_of_launches_strands_no_job(faults: Cluster) -> None:
    cluster = faults
    expected: dict[int, int] = {}
    for round_number in range(3):
        for index in range(6):
            code = (round_number + index) % 3
            job_id = cluster.sbatch("-o", "/dev/null", "--wrap", f"sleep 0.{index + 2}; exit {code}", user="alice")
            expected[job_id] = code
        time.sleep(0.1 * round_number)         # launches of this round are on their way
        cluster.stop("ctld", signal.SIGKILL)
        time.sleep(1)                          # jobs end on the nodes while no controller listens
        _start_controller(cluster)
    # A scancel whose terminate dies with the controller: the node still runs the script.
    long = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 3061", user="alice")
    cluster.wait_state(long, "RUNNING", timeout=60)
    cluster.run("scancel", str(long), user="alice", check=True)
    cluster.stop("ctld", signal.SIGKILL)
    _start_controller(cluster)
    job_ids = [*expected, long]
    wait_for(lambda: _all_final(cluster, job_ids), timeout=120, interval=0.5)
    states = _states(cluster, job_ids)
    assert {job_id: states[job_id] for job_id in expected} == {
        job_id: "COMPLETED" if code == 0 else "FAILED" for job_id, code in expected.items()}
    assert states[long] == "CANCELLED"
    want = {job_id: ("COMPLETED" if code == 0 else "FAILED", f"{code}:0") for job_id, code in expected.items()}
    want[long] = (f"CANCELLED by {pwd.getpwnam('alice').pw_uid}", "0:15")   # her uid: not 1001 where other users came first
    try:
        wait_for(lambda: _sacct(cluster, job_ids) == want, timeout=60, interval=0.5)
    finally:
        assert _sacct(cluster, job_ids) == want
    cluster.wait_idle()
    assert not _sleeping(3061)


def _script(cluster: Cluster, tag: str, sleeps: tuple[int, int]) -> Path:
    """A job that starts several long-lived processes, then would leave a file behind if they lived."""
    script = cluster.work_dir("alice") / f"{tag}.sh"
    script.write_text(f"#!/bin/bash\n(sleep 4; touch {tag}.after.$SLURM_JOB_ID) &\n"
                      f"sleep {sleeps[0]} & sleep {sleeps[1]} &\ntouch {tag}.started.$SLURM_JOB_ID\nwait\n")
    return script


def test_a_killed_stepd_leaves_no_process_and_no_cgroup(faults: Cluster) -> None:
    cluster = faults
    work = cluster.work_dir("alice")
    sleeps = (3971, 3972)
    script = _script(cluster, "stepdkill", sleeps)
    job_id = cluster.sbatch("-o", "/dev/null", str(script), user="alice")
    wait_for(lambda: (work / f"stepdkill.started.{job_id}").exists(), timeout=30)
    node = cluster.job_field(job_id, "N")
    assert job_cgroups(cluster, job_id) and _sleeping(*sleeps)
    pids = _job_pids(cluster, job_id)
    os.kill(stepd_pid(cluster, node, job_id), signal.SIGKILL)
    cluster.wait_state(job_id, "NODE_FAIL", timeout=30)
    assert cluster.run("squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%r").stdout.strip() == "NodeDown"
    wait_for(lambda: _all_gone(pids) and not job_cgroups(cluster, job_id), timeout=30)
    time.sleep(5)                                           # the script's own timer would have fired by now
    assert not (work / f"stepdkill.after.{job_id}").exists()
    wait_for(lambda: _sacct(cluster, [job_id]).get(job_id, ("",))[0] == "NODE_FAIL", timeout=30)
    cluster.wait_idle()


def test_a_node_agent_removes_the_cgroups_a_killed_agent_and_stepd_left(faults: Cluster) -> None:
    cluster = faults
    work = cluster.work_dir("alice")
    sleeps = (3981, 3982)
    script = _script(cluster, "agentkill", sleeps)
    job_id = cluster.sbatch("-o", "/dev/null", "-w", "node2", str(script), user="alice")
    wait_for(lambda: (work / f"agentkill.started.{job_id}").exists(), timeout=30)
    stepd = stepd_pid(cluster, "node2", job_id)
    cluster.stop("node2", signal.SIGKILL)
    os.kill(stepd, signal.SIGKILL)
    # A cgroup that no spool knows about (an older agent's), with a process inside.
    node_root = Path(f"/sys/fs/cgroup/unified/pyslurm_{cluster.spec.cluster_name}_node2")
    stray_dir = node_root / "job_999999" / "step_batch" / "user" / "task_0"
    stray_dir.mkdir(parents=True)
    alice = pwd.getpwnam("alice")
    stray = subprocess.Popen(["sleep", "3999"], user=alice.pw_uid, group=alice.pw_gid)
    (stray_dir / "cgroup.procs").write_text(str(stray.pid))
    time.sleep(0.5)
    assert _sleeping(*sleeps) and job_cgroups(cluster, job_id)   # what the dead ones left
    pids = _job_pids(cluster, job_id)
    cluster.start("node2")
    assert stray.wait(timeout=30) == -signal.SIGKILL
    wait_for(lambda: _all_gone(pids) and not job_cgroups(cluster, job_id)
             and not (node_root / "job_999999").exists(), timeout=30)
    cluster.wait_state(job_id, "NODE_FAIL", timeout=30)
    assert not (work / f"agentkill.after.{job_id}").exists()
    cluster.wait_idle()


def test_a_killed_srun_step_stepd_ends_the_step_and_srun(faults: Cluster) -> None:
    cluster = faults
    alice = pwd.getpwnam("alice")
    srun = subprocess.Popen([str(Path(sys.executable).parent / "srun"), "-N1", "-w", "node1", "sh", "-c",
                             "sleep 3991 & sleep 3992"], env=dict(cluster.env, USER="alice", HOME=alice.pw_dir),
                            cwd=cluster.work_dir("alice"), user=alice.pw_uid, group=alice.pw_gid,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(_sleeping(3991, 3992)) == 2, timeout=30)
        job_id = int(cluster.run("squeue", "-h", "-u", "alice", "-o", "%i").stdout.split()[0])
        stepd = stepd_pid(cluster, "node1", job_id, "0")
        pids = _job_pids(cluster, job_id) - {stepd}
        os.kill(stepd, signal.SIGKILL)
        _, err = srun.communicate(timeout=60)
    finally:
        if srun.poll() is None:
            srun.kill()
    assert srun.returncode != 0, err
    wait_for(lambda: _all_gone(pids) and not job_cgroups(cluster, job_id), timeout=30)
    wait_for(lambda: _sacct_steps(cluster, job_id).get(f"{job_id}.0") == "NODE_FAIL", timeout=30)
    cluster.wait_idle()


def test_jobs_on_a_node_that_never_returns_after_a_controller_restart_end_node_fail(faults: Cluster) -> None:
    """No node registers with a restarted controller until it is heard from: one whose agent is gone
    is not responding after SlurmdTimeout, and its jobs end instead of staying RUNNING for ever."""
    cluster = faults
    job_id = cluster.sbatch("-o", "/dev/null", "-w", "node2", "--no-requeue", "--wrap", "sleep 3093", user="alice")
    cluster.wait_state(job_id, "RUNNING", timeout=30)
    wait_for(lambda: _sleeping(3093), timeout=30)
    pids = _job_pids(cluster, job_id)
    cluster.stop("ctld", signal.SIGKILL)
    cluster.stop("node2", signal.SIGKILL)
    try:
        _start_controller(cluster)
        cluster.wait_state(job_id, "NODE_FAIL", timeout=30)
        assert "node2 down*" in cluster.run("sinfo", "-h", "-N", "-o", "%N %t").stdout.splitlines()
        assert _sleeping(3093)             # the stepd goes on without its agent ...
    finally:
        cluster.start("node2")             # ... until the agent is back and hears the job is over
    wait_for(lambda: _all_gone(pids) and not job_cgroups(cluster, job_id), timeout=30)
    cluster.wait_idle()
