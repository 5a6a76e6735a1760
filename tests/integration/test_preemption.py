"""Preemption on a real cluster (PreemptType=preempt/partition_prio): a job of the high-tier
partition takes node1 from a low-tier job, which is requeued (same id, SLURM_RESTART_COUNT=1
in its next run), cancelled (PREEMPTED), or suspended (its processes really stop, and go on
once the preemptor ended). Spec: scheduling-policy.md §1.3 and §6."""
from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec
from pyslurm_d.cgroup import CgroupError, find_v2_mount, own_v2_path

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

CRED_EXPIRE = 4   # a requeued job is eligible again CRED_EXPIRE + 1 s later
GRACE = 4         # GraceTime of the `grace` partition


def _spec(root: Path, name: str) -> ClusterSpec:
    spec = two_node_spec(root, name)
    return dataclasses.replace(spec, cred_expire=CRED_EXPIRE, extra=(
        *spec.extra,
        "PreemptType=preempt/partition_prio",
        "PreemptMode=SUSPEND,GANG",
        "PartitionName=requeue Nodes=node1,node2 PriorityTier=1 PreemptMode=REQUEUE",
        "PartitionName=cancel Nodes=node1,node2 PriorityTier=1 PreemptMode=CANCEL",
        "PartitionName=suspend Nodes=node1,node2 PriorityTier=1",
        f"PartitionName=grace Nodes=node1,node2 PriorityTier=1 PreemptMode=CANCEL GraceTime={GRACE}",
        "PartitionName=high Nodes=node1,node2 PriorityTier=10",
    ))


@pytest.fixture(scope="module")
def tiered() -> Iterator[Cluster]:
    with running_cluster(_spec, wait_idle=False) as c:
        wait_for(lambda: c.run("sinfo", "-h", "-N", "-p", "debug", "-o", "%t").stdout.split() == ["idle", "idle"], 30)
        yield c


def _low(c: Cluster, partition: str, *extra: str, command: str = "sleep 300") -> int:
    """A low-tier job holding both CPUs of node1."""
    job = c.sbatch("-p", partition, "-w", "node1", "-c", "2", "-o", "low-%j.out", *extra,
                   "--wrap", f"echo start ${{SLURM_RESTART_COUNT:-0}}; {command}", user="alice")
    c.wait_state(job, "RUNNING")
    return job


def _high(c: Cluster, seconds: int) -> int:
    return c.sbatch("-p", "high", "-w", "node1", "-c", "2", "-o", "/dev/null", "--wrap", f"sleep {seconds}",
                    user="bob")


def _show(c: Cluster, job: int, key: str) -> str:
    out = c.run("scontrol", "show", "job", str(job)).stdout
    match = re.search(rf"\b{key}=(\S+)", out)
    assert match, out
    return match.group(1)


def _sacct_states(c: Cluster, job: int) -> list[str]:
    return c.run("sacct", "-D", "-X", "-n", "-P", "-j", str(job), "-o", "State").stdout.split()


def test_requeue_mode_requeues_the_victim_with_the_same_id(tiered: Cluster) -> None:
    c = tiered
    low = _low(c, "requeue")
    high = _high(c, 3)
    c.wait_state(high, "RUNNING", timeout=30)
    # The victim's processes were gone before the preemptor started: never both on node1's CPUs.
    assert c.job_field(low, "T") == "PENDING"
    assert _show(c, low, "Restarts") == "1"
    c.wait_state(high, "COMPLETED", timeout=30)
    c.wait_state(low, "RUNNING", timeout=30)
    assert c.job_field(low, "N") == "node1"
    out = c.work_dir("alice") / f"low-{low}.out"
    wait_for(lambda: "start 1" in out.read_text())
    text = out.read_text()
    assert text.startswith("start 0\n")                      # the first run's output is kept (appended)
    # Slurm 22.05's stepd names its node: slurmstepd-<node>
    assert re.search(rf"^slurmstepd-node1: error: \*\*\* JOB {low} ON node1 CANCELLED AT \S+ DUE TO PREEMPTION \*\*\*$",
                     text, re.M), text
    wait_for(lambda: _sacct_states(c, low) == ["PREEMPTED", "RUNNING"])
    c.run("scancel", str(low), user="alice", check=True)
    c.wait_state(low, "CANCELLED")


def test_no_requeue_jobs_are_cancelled_instead(tiered: Cluster) -> None:
    c = tiered
    low = _low(c, "requeue", "--no-requeue")
    high = _high(c, 1)
    c.wait_state(low, "PREEMPTED", timeout=30)
    c.wait_state(high, "COMPLETED", timeout=30)
    assert _show(c, low, "Restarts") == "0"


def test_cancel_mode_ends_the_victim_preempted(tiered: Cluster) -> None:
    c = tiered
    low = _low(c, "cancel")
    high = _high(c, 1)
    c.wait_state(low, "PREEMPTED", timeout=30)
    c.wait_state(high, "COMPLETED", timeout=30)
    wait_for(lambda: _sacct_states(c, low) == ["PREEMPTED"])
    assert c.job_field(low, "T") == "PREEMPTED"
    shown = {name: c.run("scontrol", "show", "partition", name).stdout for name in ("cancel", "suspend")}
    assert "PreemptMode=CANCEL" in shown["cancel"] and "PreemptMode=SUSPEND,GANG" in shown["suspend"]


def _job_processes(job: int) -> dict[int, tuple[str, bool]]:
    """pid -> (/proc state letter, whether its cgroup is frozen) of every process in the job's cgroups."""
    mount = find_v2_mount(Path("/proc/self/mountinfo").read_text())
    assert mount is not None
    found = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            path = own_v2_path((proc / "cgroup").read_text())
            if f"/job_{job}/" not in path or "/user" not in path:
                continue
            state = re.search(r"^State:\s+(\S)", (proc / "status").read_text(), re.MULTILINE)
            events = (mount / path.lstrip("/") / "cgroup.events").read_text()
        except (OSError, CgroupError):
            continue
        if state:
            found[int(proc.name)] = (state.group(1), "frozen 1" in events)
    return found


def _in_step_cgroup(job: int, step: str) -> bool:
    """Whether a process of the job runs in the cgroup of step `step` (the srun step started)."""
    for pid in _job_processes(job):
        try:
            if f"/job_{job}/step_{step}/" in (Path("/proc") / str(pid) / "cgroup").read_text():
                return True
        except OSError:   # the process ended meanwhile
            continue
    return False


def _stopped(job: int) -> bool:
    processes = _job_processes(job)
    return bool(processes) and all(state == "T" or frozen for state, frozen in processes.values())


def _ticks(path: Path) -> int:
    return len(path.read_text().split()) if path.exists() else 0


def test_suspend_mode_stops_the_victim_until_the_preemptor_ends(tiered: Cluster) -> None:
    c = tiered
    low = _low(c, "suspend", command="while true; do echo tick >> ticks-$SLURM_JOB_ID; sleep 0.2; done")
    ticks = c.work_dir("alice") / f"ticks-{low}"
    wait_for(lambda: _ticks(ticks) > 2)
    high = _high(c, 6)
    c.wait_state(low, "SUSPENDED", timeout=30)
    c.wait_state(high, "RUNNING", timeout=30)
    # Every process of the victim is stopped (SIGSTOP, cgroup freezer), and it makes no progress.
    wait_for(lambda: _stopped(low))
    before = _ticks(ticks)
    time.sleep(1.5)
    assert _ticks(ticks) == before and c.job_field(low, "T") == "SUSPENDED"
    assert _show(c, low, "SuspendTime") != "None"
    c.wait_state(high, "COMPLETED", timeout=30)
    c.wait_state(low, "RUNNING", timeout=30)
    wait_for(lambda: _ticks(ticks) > before + 2)         # it goes on where it stopped
    assert not any(state == "T" or frozen for state, frozen in _job_processes(low).values())
    c.run("scancel", str(low), user="alice", check=True)
    c.wait_state(low, "CANCELLED")


def test_scontrol_suspend_resume_and_requeue(tiered: Cluster) -> None:
    c = tiered
    job = c.sbatch("-w", "node2", "-o", "ctl-%j.out", "--wrap",
                   "echo run ${SLURM_RESTART_COUNT:-0}; while true; do echo tick >> ctl-ticks-$SLURM_JOB_ID; sleep 0.2; done",
                   user="alice")
    c.wait_state(job, "RUNNING")
    ticks = c.work_dir("alice") / f"ctl-ticks-{job}"
    wait_for(lambda: _ticks(ticks) > 2)
    denied = c.run("scontrol", "suspend", str(job), user="alice")
    assert (denied.returncode, denied.stderr) == (1, f"Access/permission denied for job {job}\n")
    c.run("scontrol", "suspend", str(job), check=True)
    c.wait_state(job, "SUSPENDED")
    wait_for(lambda: _stopped(job))
    again = c.run("scontrol", "suspend", str(job))
    assert (again.returncode, again.stderr) == (1, f"Job is not running for job {job}\n")
    c.run("scontrol", "resume", str(job), check=True)
    c.wait_state(job, "RUNNING")
    resumed_at = _ticks(ticks)
    wait_for(lambda: _ticks(ticks) > resumed_at + 2)
    other = c.run("scontrol", "requeue", str(job), user="bob")
    assert (other.returncode, other.stderr) == (1, f"Access/permission denied for job {job}\n")
    c.run("scontrol", "requeue", str(job), user="alice", check=True)
    wait_for(lambda: c.job_field(job, "T") in ("PENDING", "RUNNING"))
    out = c.work_dir("alice") / f"ctl-{job}.out"
    wait_for(lambda: "run 1" in out.read_text(), timeout=30)
    assert re.search(rf"\*\*\* JOB {job} ON node2 CANCELLED AT \S+ DUE TO JOB REQUEUE \*\*\*", out.read_text())
    assert _show(c, job, "Restarts") == "1"
    wait_for(lambda: _sacct_states(c, job) == ["REQUEUED", "RUNNING"])
    c.run("scancel", str(job), user="alice", check=True)
    c.wait_state(job, "CANCELLED")


def test_a_suspended_job_can_be_cancelled(tiered: Cluster) -> None:
    c = tiered
    job = c.sbatch("-w", "node2", "-o", "/dev/null", "--wrap", "sleep 302", user="alice")
    c.wait_state(job, "RUNNING")
    wait_for(lambda: _job_processes(job))
    c.run("scontrol", "suspend", str(job), check=True)
    wait_for(lambda: _stopped(job))
    c.run("scancel", str(job), user="alice", check=True)
    c.wait_state(job, "CANCELLED")       # thawed first, so SIGTERM could end it
    wait_for(lambda: not _job_processes(job))


def test_grace_time_warns_the_steps_then_preempts(tiered: Cluster) -> None:
    c = tiered
    low = _low(c, "grace", command="srun bash -c 'trap \"echo step got TERM\" TERM; while true; do sleep 0.2; done'")
    out = c.work_dir("alice") / f"low-{low}.out"
    wait_for(lambda: _in_step_cgroup(low, "0"))
    submitted = time.monotonic()
    high = _high(c, 1)
    wait_for(lambda: "step got TERM" in out.read_text())
    assert c.job_field(low, "T") == "RUNNING"        # warned, not yet preempted
    c.wait_state(high, "RUNNING", timeout=30)
    # Whole seconds, as slurmctld's time_t: warned at second T, preempted once the clock reads
    # T + GraceTime, which can be up to a second sooner than GraceTime after the warning.
    assert time.monotonic() - submitted >= GRACE - 1
    c.wait_state(low, "PREEMPTED", timeout=30)
    c.wait_state(high, "COMPLETED", timeout=30)
