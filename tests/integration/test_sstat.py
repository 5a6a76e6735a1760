"""sstat against a live cluster: usage measured in the running step's cgroup, for its owner only."""
from __future__ import annotations

import re

from .conftest import Cluster, wait_for

# Holds ~100 MB (filled, so every page is resident) and burns CPU until cancelled.
HOG = """#!/bin/bash
exec python3 -c '
data = b"x" * (100 * 1024 * 1024)
while True:
    sum(range(10000))
'
"""
_SIZE_KB = {"K": 1, "M": 1024, "G": 1024**2, "T": 1024**3}


def _kb(text: str) -> int:
    match = re.fullmatch(r"(\d+)([KMGT]?)", text)
    assert match, f"not a size: {text!r}"
    return int(match.group(1)) * _SIZE_KB.get(match.group(2), 1)


def _seconds(text: str) -> float:
    """sacct-style CPU time: [D-]HH:MM:SS, or MM:SS.mmm below an hour."""
    days, _, rest = text.rpartition("-")
    parts = [float(p) for p in rest.split(":")]
    if "." in rest:
        parts = [0.0, *parts]
    hours, minutes, seconds = parts
    return (int(days or 0) * 24 + hours) * 3600 + minutes * 60 + seconds


def _usage(cluster: Cluster, job_id: int, user: str) -> dict[str, str]:
    out = cluster.run("sstat", "-j", str(job_id), "-P", "-n", "-o",
                      "JobID,MaxRSS,AveRSS,TotalCPU,NTasks,MaxRSSNode", user=user, check=True).stdout
    names = ("JobID", "MaxRSS", "AveRSS", "TotalCPU", "NTasks", "MaxRSSNode")
    [line] = out.splitlines()
    return dict(zip(names, line.split("|")))


def test_sstat_shows_memory_and_cpu_of_a_running_job_to_its_owner(cluster: Cluster) -> None:
    job_id = int(cluster.run("sbatch", "--parsable", "-o", "/dev/null", user="alice", input=HOG,
                             check=True).stdout)
    cluster.wait_state(job_id, "RUNNING")
    node = cluster.job_field(job_id, "N")

    def grown() -> dict[str, str] | None:
        row = _usage(cluster, job_id, "alice")
        return row if _kb(row["MaxRSS"]) >= 95 * 1024 and _seconds(row["TotalCPU"]) > 0.5 else None

    row = wait_for(grown, timeout=30, interval=0.5)
    assert isinstance(row, dict)
    assert row["JobID"] == f"{job_id}.batch"
    assert row["NTasks"] == "1" and row["MaxRSSNode"] == node
    assert _kb(row["MaxRSS"]) < 400 * 1024                   # the job's, not the node's
    assert 90 * 1024 <= _kb(row["AveRSS"]) <= _kb(row["MaxRSS"])

    default = cluster.run("sstat", "-j", f"{job_id}.batch", user="alice", check=True).stdout.splitlines()
    assert default[0].split() == ["JobID", "MaxRSS", "MaxRSSNode", "MaxRSSTask", "AveRSS", "MinCPU",
                                  "MinCPUNode", "MinCPUTask", "AveCPU", "NTasks", "TotalCPU"]
    assert len(default) == 3 and default[2].startswith(f"{job_id}.batch".ljust(12) + " ")
    assert cluster.run("sstat", "-a", "-j", str(job_id), "-n", "-P", "-o", "jobid",
                       check=True).stdout == f"{job_id}.batch\n"     # root may look too

    denied = cluster.run("sstat", "-j", str(job_id), user="bob")
    assert denied.returncode == 1
    assert denied.stderr == f"sstat: error: couldn't get steps for job {job_id}: Access/permission denied\n"
    no_step = cluster.run("sstat", "-j", f"{job_id}.0", "-n", user="alice")
    assert (no_step.returncode, no_step.stdout) == (1, "")
    assert no_step.stderr == f"sstat: error: no steps running for job {job_id}.0\n"

    cluster.run("scancel", str(job_id), user="alice", check=True)
    cluster.wait_state(job_id, "CANCELLED", timeout=30)
    over = cluster.run("sstat", "-j", str(job_id), "-n", user="alice")
    assert (over.returncode, over.stdout) == (1, "")
    assert over.stderr == f"sstat: error: no steps running for job {job_id}\n"
    unknown = cluster.run("sstat", "-j", "999999", "-n", user="alice")
    assert unknown.returncode == 1
    assert unknown.stderr == "sstat: error: couldn't get steps for job 999999: Invalid job id specified\n"
