"""The query commands' options against a live cluster with a Hidden=YES partition: what squeue,
sinfo, scancel, sprio and sdiag show and refuse, as Slurm 22.05 does (checked on the oracle)."""
from __future__ import annotations

import dataclasses
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, two_node_spec, wait_for


def _spec(root: Path, name: str) -> ClusterSpec:
    spec = two_node_spec(root, name)
    return dataclasses.replace(spec, extra=(*spec.extra, "PartitionName=secret Nodes=node2 Hidden=YES"))


@pytest.fixture(scope="module")
def hidden_cluster() -> Iterator[Cluster]:
    # node2 is in two partitions, so `sinfo -N` lists it twice: wait on one partition's view.
    with running_cluster(_spec, wait_idle=False) as c:
        wait_for(lambda: c.run("sinfo", "-h", "-N", "-p", "debug", "-o", "%t").stdout.split() == ["idle", "idle"], 30)
        yield c


def _ids(c: Cluster, *args: str, user: str = "alice") -> list[str]:
    result = c.run("squeue", "-h", "-o", "%i", *args, user=user)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_hidden_partitions_jobs_only_with_all(hidden_cluster: Cluster) -> None:
    c = hidden_cluster
    job = str(c.sbatch("-p", "secret", "--hold", "--wrap", "true", user="alice"))
    shown = str(c.sbatch("--hold", "--wrap", "true", user="alice"))
    assert _ids(c) == [shown]
    assert sorted(_ids(c, "-a")) == sorted([job, shown])
    assert sorted(_ids(c, "--all")) == sorted([job, shown])
    assert _ids(c, "-a", "--hide") == [shown]
    assert _ids(c, "-p", "secret") == [job]                         # -p shows what it names
    assert _ids(c, "-j", job) == [job]                              # asked for by id: shown (pack_one_job)
    assert _ids(c, "-j", f"{job},{shown}") == [shown]              # a list loads every job: hidden again
    unknown = c.run("squeue", "-j", "99998,99999", user="alice")
    assert (unknown.returncode, unknown.stdout.split()[0], unknown.stderr) == (0, "JOBID", "")
    assert f"JobId={job} " in c.run("scontrol", "show", "job", job, user="alice").stdout
    assert sorted(_ids(c, user="root")) == sorted([job, shown])    # operators see every partition
    parts = c.run("sinfo", "-h", "-o", "%P", user="alice").stdout.split()
    assert parts == ["debug*"]
    assert sorted(c.run("sinfo", "-h", "-a", "-o", "%P", user="alice").stdout.split()) == ["debug*", "secret"]
    assert sorted(c.run("sinfo", "-h", "-o", "%P").stdout.split()) == ["debug*", "secret"]
    hidden = c.run("scontrol", "show", "partition", "secret", user="alice")
    assert hidden.returncode == 1 and "Partition secret not found" in hidden.stderr
    listed = c.run("scontrol", "-a", "show", "partition", "secret", user="alice").stdout
    assert "PartitionName=secret" in listed and " Hidden=YES\n" in listed
    c.run("scancel", job, shown, user="alice", check=True)


def test_filters_by_qos_reservation_licenses_and_nodes(hidden_cluster: Cluster) -> None:
    c = hidden_cluster
    job = str(c.sbatch("--hold", "-J", "Mixed", "--wrap", "true", user="alice"))
    qos = c.run("squeue", "-h", "-j", job, "-o", "%q").stdout.strip()
    if qos:   # without accounting QOS a job has none, and `-q ''` lists nothing (as in Slurm)
        assert _ids(c, "-q", qos.upper()) == [job]
    account = c.run("squeue", "-h", "-j", job, "-o", "%a").stdout.strip()
    if account:
        assert _ids(c, "-A", account.upper()) == [job]   # accounts without regard to case
    assert _ids(c, "--accounts=nosuchaccount") == []
    assert _ids(c, "--qos=nosuchqos") == []
    assert _ids(c, "-n", "mixed") == [job]                   # names without regard to case
    assert _ids(c, "-R", "maint") == []
    assert _ids(c, "-L", "matlab") == []
    assert _ids(c, "-w", "node1") == []                       # pending: on no node
    assert _ids(c, "--jobs", job) == [job] and _ids(c, "-j", job) == [job]
    c.run("scancel", job, user="alice", check=True)


def test_iterate_repeats_with_the_date_line(hidden_cluster: Cluster) -> None:
    c = hidden_cluster
    proc = subprocess.Popen(["squeue", "-i", "1"], env=c.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(2.6)
    proc.send_signal(signal.SIGINT)
    out, _err = proc.communicate(timeout=10)
    blocks = [b for b in out.split("\n\n") if b.strip()]
    assert len(blocks) >= 2
    for block in blocks:
        date, header = block.splitlines()[:2]
        assert re.fullmatch(r"\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4}", date)
        assert header.split()[0] == "JOBID"


def test_clusters_names_this_cluster_or_fails(hidden_cluster: Cluster) -> None:
    c = hidden_cluster
    name = c.spec.cluster_name
    ours = c.run("squeue", "-M", name)
    assert ours.returncode == 0 and ours.stdout.splitlines()[0] == f"CLUSTER: {name}"
    other = c.run("squeue", "--clusters=elsewhere")
    assert other.returncode == 1 and other.stderr == (
        "squeue: error: No cluster 'elsewhere' known by database.\n"
        "squeue: error: 'elsewhere' can't be reached now, or it is an invalid entry for --cluster.  "
        "Use 'sacctmgr list clusters' to see available clusters.\n")
    assert os.environ.get("SLURM_CLUSTERS") is None


def test_scancel_filters_interactive_and_sibling(hidden_cluster: Cluster) -> None:
    c = hidden_cluster
    job = str(c.sbatch("--hold", "-J", "victim", "--wrap", "true", user="alice"))
    for words in (["-q", "nosuchqos"], ["-R", "maint"], ["-w", "node1"], ["--wckey=w"], ["-n", "other"]):
        result = c.run("scancel", "-u", "alice", *words, user="alice")
        assert result.returncode == 0, (words, result.stderr)
    assert _ids(c) == [job]
    quiet = c.run("scancel", "-v", "-u", "alice", "-R", "maint", user="alice")
    assert "No active jobs match ALL job filters, including: reservation=maint user_name=alice \n" in quiet.stderr
    sibling = c.run("scancel", "--sibling=elsewhere", job, user="alice")
    assert (sibling.returncode, sibling.stderr) == (
        191, f"scancel: error: Kill job error on job id {job}: Not a valid federated job\n")
    kept = c.run("scancel", "-i", job, user="alice", input="n\n")
    assert kept.stdout == f"Cancel job_id={job} name=victim partition=debug [y/n]? " and _ids(c) == [job]
    other = c.run("scancel", "-M", "elsewhere", job, user="alice")
    assert other.returncode == 1 and _ids(c) == [job]
    gone = c.run("scancel", "-i", "-M", c.spec.cluster_name, job, user="alice", input="y\n")
    assert gone.returncode == 0 and _ids(c) == []


def test_sdiag_reset_is_for_operators(hidden_cluster: Cluster) -> None:
    c = hidden_cluster
    c.run("scancel", str(c.sbatch("--hold", "--wrap", "true", user="alice")), user="alice", check=True)
    denied = c.run("sdiag", "-r", user="alice")
    assert (denied.returncode, denied.stderr) == (255, "slurm_reset_statistics: Access/permission denied\n")
    assert c.run("sdiag", "--reset").stdout == "Reset scheduling statistics\n"
    assert "Jobs submitted: 0\n" in c.run("sdiag", "-a", user="alice").stdout


def test_sacct_record_filters_and_stored_texts(hidden_cluster: Cluster) -> None:
    c = hidden_cluster
    job = c.sbatch("-N", "2", "-c", "1", "-t", "7", "--wrap", "true", user="alice")
    c.wait_state(job, "COMPLETED")

    def listed(*words: str) -> list[str]:
        result = c.run("sacct", "-X", "-n", "-P", "-o", "JobID", "-j", str(job), *words, user="alice")
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    wait_for(lambda: listed() == [str(job)], 30)
    assert listed("-i", "2") == [str(job)] and listed("--nnodes=1") == []
    assert listed("-I", "2") == [str(job)] and listed("--ncpus=3-8") == []
    assert listed("-k", "7") == [str(job)] and listed("--timelimit-min=8", "-K", "9") == []
    assert listed("-F", "SchedMain") == [str(job)] and listed("--flags=SchedBackfill") == []
    assert listed("-W", "any") == [] and listed("-L") == [str(job)]
    script = c.run("sacct", "-B", "-j", str(job), user="alice").stdout
    assert script == f"Batch Script for {job}\n{'-' * 80}\nNONE\n\n"
    refused = c.run("sacct", "-F", "bogus", user="alice")
    assert (refused.returncode, refused.stderr) == (1, "sacct: error: str_2_job_flags: Invalid job flag bogus\n")
