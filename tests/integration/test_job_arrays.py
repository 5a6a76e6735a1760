"""Job arrays through the real sbatch, squeue, scancel, scontrol and sacct (two 2-CPU nodes)."""
from __future__ import annotations

import re

from .conftest import Cluster, wait_for

TASK_SCRIPT = """#!/bin/bash
#SBATCH --array=1-4%2
#SBATCH -o arr-%A_%a.out
echo "job=$SLURM_JOB_ID array=$SLURM_ARRAY_JOB_ID task=$SLURM_ARRAY_TASK_ID count=$SLURM_ARRAY_TASK_COUNT \
min=$SLURM_ARRAY_TASK_MIN max=$SLURM_ARRAY_TASK_MAX step=$SLURM_ARRAY_TASK_STEP"
sleep 2
"""


def queue(cluster: Cluster, *args: str) -> list[str]:
    out = cluster.run("squeue", "-h", *args, "-o", "%i %A %F %K %t %r", user="alice")
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_throttled_array_runs_every_task_with_its_variables(cluster: Cluster) -> None:
    cluster.wait_idle()   # two tasks must find room at once
    array_id = int(cluster.run("sbatch", "--parsable", user="alice", input=TASK_SCRIPT, check=True).stdout)

    def two_running() -> list[str] | None:
        lines = queue(cluster, "-j", str(array_id))
        return lines if sum(" R " in line for line in lines) == 2 else None

    lines = wait_for(two_running)
    assert isinstance(lines, list)
    pending = [line for line in lines if " PD " in line]
    assert pending == [f"{array_id}_[3-4%2] {array_id} {array_id} 3-4 PD JobArrayTaskLimit"]
    running = sorted(line.split()[0] for line in lines if " R " in line)
    assert running == [f"{array_id}_1", f"{array_id}_2"]
    expanded = [line.split()[0] for line in queue(cluster, "-r", "-j", str(array_id))]
    assert sorted(expanded) == [f"{array_id}_{t}" for t in (1, 2, 3, 4)]
    show = cluster.run("scontrol", "show", "job", str(array_id), user="alice").stdout
    assert f"JobId={array_id} ArrayJobId={array_id} ArrayTaskId=3-4 ArrayTaskThrottle=2 JobName=" in show

    wait_for(lambda: not queue(cluster, "-j", str(array_id)), timeout=30)
    outputs = {}
    for task in (1, 2, 3, 4):
        text = (cluster.work_dir("alice") / f"arr-{array_id}_{task}.out").read_text()
        match = re.fullmatch(rf"job=(\d+) array={array_id} task={task} count=4 min=1 max=4 step=1\n", text)
        assert match, text
        outputs[task] = int(match.group(1))
    # Tasks split off with new ids; the master record ran last, as the highest index.
    assert outputs[4] == array_id and len(set(outputs.values())) == 4

    def accounted() -> str:
        return cluster.run("sacct", "-n", "-X", "-P", "-j", str(array_id), "-o", "JobID,JobIDRaw,State",
                           user="alice").stdout

    wait_for(lambda: accounted().count("COMPLETED") == 4)
    rows = sorted(accounted().splitlines())
    assert rows == sorted(f"{array_id}_{t}|{outputs[t]}|COMPLETED" for t in (1, 2, 3, 4))
    one = cluster.run("sacct", "-n", "-P", "-j", f"{array_id}_2", "-o", "JobID,State", user="alice").stdout
    assert one == f"{array_id}_2|COMPLETED\n{array_id}_2.batch|COMPLETED\n"


def test_scancel_of_tasks_and_of_the_whole_array(cluster: Cluster) -> None:
    array_id = cluster.sbatch("--hold", "--array=0-9", "--wrap", "true", user="alice")
    assert queue(cluster, "-j", str(array_id)) == [f"{array_id}_[0-9] {array_id} {array_id} 0-9 PD JobHeldUser"]
    one = cluster.run("scancel", f"{array_id}_5", user="alice")
    assert (one.returncode, one.stderr) == (0, "")
    some = cluster.run("scancel", f"{array_id}_[1-3]", user="alice")
    assert (some.returncode, some.stderr) == (0, "")
    assert queue(cluster, "-j", str(array_id)) == [
        f"{array_id}_[0,4,6-9] {array_id} {array_id} 0,4,6-9 PD JobHeldUser"]
    # Slurm 22.05 keeps no record of a task cancelled while pending: not found, no error on a repeat
    gone = cluster.run("squeue", "-h", "-t", "all", "-j", f"{array_id}_[1-3],{array_id}_5", "-o", "%i %t",
                       user="alice")
    assert (gone.returncode, gone.stdout) == (0, "")
    shown = cluster.run("scontrol", "-o", "show", "job", f"{array_id}_5", user="alice")
    assert (shown.returncode, shown.stdout) == (1, f"Job {array_id}_5 not found\n")
    again = cluster.run("scancel", f"{array_id}_5", user="alice")
    assert (again.returncode, again.stderr) == (0, "")
    wait_for(lambda: f"{array_id}_[0,4,6-9]|PENDING" in cluster.run(
        "sacct", "-n", "-X", "-P", "-j", str(array_id), "-o", "JobID,State", user="alice").stdout.splitlines())
    cluster.run("scontrol", "update", f"jobid={array_id}", "ArrayTaskThrottle=3", user="alice", check=True)
    assert queue(cluster, "-j", str(array_id)) == [
        f"{array_id}_[0,4,6-9%3] {array_id} {array_id} 0,4,6-9 PD JobHeldUser"]
    denied = cluster.run("scancel", str(array_id), user="bob")
    assert denied.stderr == f"scancel: error: Kill job error on job id {array_id}: Access/permission denied\n"
    cluster.run("scancel", str(array_id), user="alice", check=True)
    assert queue(cluster, "-j", str(array_id)) == []
    wait_for(lambda: cluster.run("sacct", "-n", "-X", "-P", "-j", str(array_id), "-o", "JobID,State",
                                 user="alice").stdout.count("CANCELLED") == 1)
    rows = cluster.run("sacct", "-n", "-X", "-P", "-j", str(array_id), "-o", "JobID", user="alice").stdout.split()
    assert rows == [f"{array_id}_[0,4,6-9]"]


def test_bad_arrays_are_refused_in_slurm_words(cluster: Cluster) -> None:
    too_big = cluster.run("sbatch", "--array=0-1001", "--wrap", "true", user="alice")
    assert (too_big.returncode, too_big.stderr) == (
        1, "sbatch: error: Batch job submission failed: Invalid job array specification\n")
    malformed = cluster.run("sbatch", "--array=1-x", "--wrap", "true", user="alice")
    assert (malformed.returncode, malformed.stderr) == (1, "sbatch: error: Invalid --array specification\n")
    bad_id = cluster.run("scancel", "12_[x]", user="alice")
    assert (bad_id.returncode, bad_id.stderr) == (1, "scancel: error: Invalid job id 12_[x]\n")
