"""Backfill through the real CLIs: sbatch, squeue --start, scontrol show job and scontrol explain
job (sched/backfill is the default; spec scheduling-policy.md §2.3, cli-squeue-sinfo-scontrol-
scancel.md §1.1, §3.2; explain is beyond Slurm, README "When will my job start?").

The session cluster has two nodes of two CPUs. A job fills node1 for 5 minutes; a two-node job
then waits for it and is reserved at its end (on the minute grid of bf_resolution=60); a 10
minute job behind it would hold node2 past that time and must wait; a 1 minute job fits before
it and starts at once.
"""
from __future__ import annotations

import math
import time

from .conftest import Cluster, wait_for

START_HEADER = ("             JOBID PARTITION     NAME     USER ST          START_TIME  NODES SCHEDNODES"
                "           NODELIST(REASON)")


def _epoch(text: str) -> int:
    return int(time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S")))


def test_backfill_reserves_the_blocked_job_and_fills_the_gap(cluster: Cluster) -> None:
    cluster.wait_idle()
    first = cluster.sbatch("-J", "first", "-w", "node1", "-n2", "-t", "5", "--wrap", "sleep 300", user="alice")
    cluster.wait_state(first, "RUNNING")
    wide = cluster.sbatch("-J", "wide", "-N2", "-n4", "-t", "5", "--wrap", "true", user="alice")
    long = cluster.sbatch("-J", "long", "-n1", "-t", "10", "--wrap", "true", user="bob")
    short = cluster.sbatch("-J", "short", "-n1", "-t", "1", "--wrap", "sleep 300", user="bob")
    try:
        cluster.wait_state(short, "RUNNING")
        started = _epoch(cluster.job_field(first, "S"))
        reserved = math.ceil((started + 300) / 60) * 60

        def listing() -> list[str]:
            out = cluster.run("squeue", "--start").stdout.splitlines()
            return out if len(out) == 3 and "N/A" not in out[1] else []

        lines = wait_for(listing)
        assert isinstance(lines, list)
        assert lines[0] == START_HEADER
        ids = [int(line.split()[0]) for line in lines[1:]]
        assert ids == [wide, long]                     # pending only, earliest expected start first
        wide_line, long_line = lines[1].split(), lines[2].split()
        assert wide_line[4:] == ["PD", time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(reserved)),
                                 "2", "node[1-2]", "(Resources)"]
        # `long` would still hold node2 when `wide` begins: it waits until `wide` is expected to end.
        assert long_line[4] == "PD" and long_line[-1] == "(Priority)"
        assert _epoch(long_line[5]) == reserved + 300
        show = cluster.run("scontrol", "show", "job", str(wide), check=True).stdout
        expected = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(reserved))
        assert f"StartTime={expected} " in show
        assert "NodeList= SchedNodeList=node[1-2]" in show
        running = cluster.run("squeue", "--start", "-j", str(short)).stdout.splitlines()
        assert running == [START_HEADER]                 # --start lists pending jobs only

        explained = cluster.run("scontrol", "explain", "job", str(wide), user="bob", check=True).stdout.splitlines()
        assert explained[0] == f"Job {wide} (wide, user alice) is PENDING, reason Resources."
        assert explained[1] == "It asks for 2 nodes with 2 CPUs each, for a time limit of 00:05:00."
        assert explained[3].startswith(f"It is expected to start {expected} (in ")
        assert explained[3].endswith(") in partition debug on node[1-2].")
        assert "  node1: needs 2 CPUs (0 free)" in explained and "  node2: needs 2 CPUs (1 free)" in explained
        ending = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started + 300))
        assert any(line.startswith(f"  job {first} (first, alice) ends {ending} (in ") for line in explained)
        assert any(line.startswith(f"  job {short} (short, bob) ends ") for line in explained)
        behind = cluster.run("scontrol", "explain", "job", str(long), check=True).stdout.splitlines()
        assert behind[0] == f"Job {long} (long, user bob) is PENDING, reason Priority."
        assert f"  job {wide} (wide, alice) until " in "\n".join(behind)
        missing = cluster.run("scontrol", "explain", "job", "999999")
        assert (missing.returncode, missing.stderr) == (1, "slurm_load_jobs error: Invalid job id specified\n")
    finally:
        cluster.run("scancel", str(first), str(wide), str(long), str(short))
        cluster.wait_idle()


def test_a_constraint_naming_an_unknown_feature_is_refused(cluster: Cluster) -> None:
    """sbatch -C (cli-sbatch-srun-salloc.md): the session cluster's nodes have no features."""
    result = cluster.run("sbatch", "-C", "nvme&ib", "--wrap", "true", user="alice")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "sbatch: error: Batch job submission failed: Invalid feature specification\n"


def test_an_exclusive_job_gets_its_whole_node(cluster: Cluster) -> None:
    """sbatch --exclusive: every CPU of the node, no job beside it (cli-sbatch-srun-salloc.md)."""
    cluster.wait_idle()
    whole = cluster.sbatch("--exclusive", "-n1", "-t", "5", "--wrap", "sleep 300", user="alice")
    try:
        cluster.wait_state(whole, "RUNNING")
        assert cluster.job_field(whole, "C") == "2"
        show = cluster.run("scontrol", "show", "job", str(whole), check=True).stdout
        assert "NumCPUs=2 " in show and "OverSubscribe=NO " in show
        node = cluster.job_field(whole, "N")
        beside = cluster.sbatch("-n1", "-w", node, "-t", "5", "--wrap", "true", user="bob")
        time.sleep(2)
        assert cluster.job_field(beside, "T") == "PENDING"
        assert cluster.job_field(beside, "r") == "Resources"
    finally:
        cluster.run("scancel", "-u", "alice")
        cluster.run("scancel", "-u", "bob")
        cluster.wait_idle()
