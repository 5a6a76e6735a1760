"""sattach against a live cluster: an srun step's output, labelled and filtered, for its owner only."""
from __future__ import annotations

import os
import pwd
import re
import subprocess

import pytest

from .conftest import Cluster, wait_for

# Two steps one after the other, each of two tasks printing "<rank> <i>" once a second.
SCRIPT = """#!/bin/bash
for step in 0 1; do
    srun -n2 sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do echo $SLURM_PROCID $i; sleep 1; done'
done
"""


def _step_running(cluster: Cluster, job_id: int, step: int) -> bool:
    return cluster.run("sattach", "--layout", f"{job_id}.{step}", user="alice").returncode == 0


def test_sattach_streams_a_running_steps_output_to_its_owner_only(cluster: Cluster) -> None:
    job_id = cluster.sbatch("-n2", "-o", "/dev/null", "--wrap", SCRIPT.split("\n", 1)[1], user="alice")
    assert wait_for(lambda: _step_running(cluster, job_id, 0), timeout=60, interval=0.5)

    layout = cluster.run("sattach", "--layout", f"{job_id}.0", user="alice", check=True).stdout
    lines = layout.splitlines()
    assert lines[0] == "Job step layout:"
    assert re.fullmatch(r"\t2 tasks, [12] nodes \(\S+\)", lines[1]) and lines[2] == ""
    assert re.fullmatch(r"\tNode 0 \(\S+\), [12] task\(s\): 0 (1 )?", lines[3])

    # As Slurm: anyone may see the layout (no PrivateData), but the nodes refuse bob's attach.
    denied = cluster.run("sattach", f"{job_id}.0", user="bob")
    assert (denied.returncode, denied.stdout) == (0, "")
    nodes = [line.split("(")[1].split(")")[0] for line in lines[3:]]
    assert denied.stderr == "".join(f"sattach: Node {node}: no tasks running\n" for node in nodes)
    unknown = cluster.run("sattach", f"{job_id}.7", user="alice")
    assert unknown.returncode == 1
    assert unknown.stderr == "sattach: error: Could not get job step info: Invalid job id specified\n"

    labelled = cluster.run("sattach", "-l", f"{job_id}.0", user="alice", timeout=60)
    assert labelled.returncode == 0, labelled.stderr
    seen = labelled.stdout.splitlines()
    # The stepd replays what the step printed before sattach came (slurmstepd's message cache).
    assert {"0: 0 1", "1: 1 1", "0: 0 10", "1: 1 10"} <= set(seen), labelled.stdout
    assert all(re.fullmatch(r"([01]): \1 \d+", line) for line in seen), labelled.stdout

    assert wait_for(lambda: _step_running(cluster, job_id, 1), timeout=30, interval=0.3)
    with pytest.raises(subprocess.TimeoutExpired):      # a sattach killed midway: the step runs on
        cluster.run("sattach", f"{job_id}.1", user="alice", timeout=2)
    filtered = cluster.run("sattach", "--output-filter=1", f"{job_id}.1", user="alice", timeout=60)
    assert filtered.returncode == 0, filtered.stderr
    assert filtered.stdout.splitlines() == [f"1 {i}" for i in range(1, 11)]
    assert all(line.startswith("1 ") for line in filtered.stdout.splitlines()), filtered.stdout
    cluster.wait_state(job_id, "COMPLETED", timeout=30)


def test_sattach_refuses_what_it_cannot_do_in_slurms_words(cluster: Cluster) -> None:
    no_step = cluster.run("sattach", "5", user="alice")
    assert (no_step.returncode, no_step.stdout) == (1, "Usage: sattach [options] <jobid.stepid>\n")
    assert no_step.stderr == "sattach: error: Failed to parse stepid from command line options\n"
    both = cluster.run("sattach", "-Q", "-v", "5.0", user="alice")
    assert both.stderr == "sattach: error: don't specify both --verbose (-v) and --quiet (-Q)\n"


def _as_alice(cluster: Cluster, *argv: str) -> subprocess.Popen[str]:
    alice = pwd.getpwnam("alice")
    return subprocess.Popen(
        list(argv), env=dict(cluster.env, USER="alice", HOME=alice.pw_dir), cwd=str(cluster.work_dir("alice")),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        user=alice.pw_uid, group=alice.pw_gid, extra_groups=os.getgrouplist("alice", alice.pw_gid))


def test_sattach_input_goes_to_the_task_it_names(cluster: Cluster) -> None:
    """srun's own input stays open and silent; what sattach reads reaches task 1 only, and its
    end closes task 1's input only: task 0 ends when srun's input does."""
    srun = _as_alice(cluster, "srun", "-n2", "-l", "sh", "-c", "read line; echo $SLURM_PROCID got $line")
    sattach = None
    try:
        def step() -> str | None:
            out = cluster.run("squeue", "-h", "-s", "-u", "alice", "-o", "%i", user="alice").stdout.split()
            return out[0] if out else None
        step_id = str(wait_for(step, timeout=60, interval=0.3))
        sattach = _as_alice(cluster, "sattach", "-l", "--input-filter=1", step_id)
        assert sattach.stdin is not None and sattach.stdout is not None and srun.stdin is not None
        sattach.stdin.write("hello\n")
        sattach.stdin.close()
        sattach.stdin = None    # closed: communicate() below has nothing to send
        assert sattach.stdout.readline() == "1: 1 got hello\n"
        srun.stdin.close()
        srun.stdin = None
        attached_rest, attached_err = sattach.communicate(timeout=30)
        srun_out, _ = srun.communicate(timeout=30)
    finally:
        for process in (srun, sattach):
            if process is not None:
                process.kill()
    assert (sattach.returncode, attached_rest) == (0, "0: 0 got\n"), attached_err
    assert sorted(srun_out.splitlines()) == ["0: 0 got", "1: 1 got hello"]


def test_sattach_layout_shows_the_steps_distribution(cluster: Cluster) -> None:
    """--layout prints where each rank runs as the step was laid out (-m cyclic), not block."""
    job_id = cluster.sbatch("-N2", "-n4", "-o", "/dev/null", "--wrap", "srun -m cyclic sleep 60", user="alice")
    try:
        assert wait_for(lambda: _step_running(cluster, job_id, 0), timeout=60, interval=0.5)
        layout = cluster.run("sattach", "--layout", f"{job_id}.0", user="alice", check=True).stdout
        assert layout.splitlines() == ["Job step layout:", "\t4 tasks, 2 nodes (node[1-2])", "",
                                       "\tNode 0 (node1), 2 task(s): 0 2 ", "\tNode 1 (node2), 2 task(s): 1 3 "]
    finally:
        cluster.run("scancel", str(job_id), check=True)
