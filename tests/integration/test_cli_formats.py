"""Output formats that tools parse, checked byte for byte against a live cluster."""
from __future__ import annotations

import os
import pwd
import re
import time

from .conftest import MIN_JOB_AGE, Cluster, wait_for

SQUEUE_HEADER = "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"


def test_squeue_default_listing(cluster: Cluster) -> None:
    held = cluster.sbatch("--hold", "-J", "held", "--wrap", "true", user="alice")
    running = cluster.sbatch("-J", "sleeper", "-o", "/dev/null", "--wrap", "sleep 30", user="alice")
    cluster.wait_state(running, "RUNNING")
    node = cluster.job_field(running, "N")
    out = cluster.run("squeue", "-u", "alice", user="alice").stdout
    assert out.startswith(SQUEUE_HEADER)
    body = out[len(SQUEUE_HEADER):].splitlines()
    assert f"{held:>18}     debug     held    alice PD       0:00      1 (JobHeldUser)" in body
    line = next(b for b in body if b.startswith(f"{running:>18}"))
    assert re.fullmatch(rf"{running:>18}     debug  sleeper    alice  R {'':>6}0:0\d      1 {node}", line)
    assert body.index(next(b for b in body if b.startswith(f"{held:>18}"))) < body.index(line)  # PD first
    custom = cluster.run("squeue", "-h", "-j", str(held), "-o", "%i|%T|%j|%u", user="bob").stdout
    assert custom == f"{held}|PENDING|held|alice\n"
    formatted = cluster.run("squeue", "-h", "-j", str(held), "-O", "JobID:8,State:10,Name", user="bob").stdout
    assert formatted == f"{held:<8}PENDING   held                \n"
    assert cluster.run("squeue", "-h", "-u", "bob", user="bob").stdout == ""
    assert cluster.run("squeue", "-h", "-t", "R", "-u", "alice", "-o", "%i").stdout == f"{running}\n"
    bad = cluster.run("squeue", "-t", "bogus")
    assert bad.returncode == 1 and bad.stderr.startswith("squeue: error: Invalid job state specified: bogus\n")
    cluster.run("scancel", str(held), str(running), user="alice", check=True)


def test_sinfo_default_listing(cluster: Cluster) -> None:
    cluster.wait_idle()
    assert cluster.run("sinfo").stdout == (
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
        "debug*       up   infinite      2   idle node[1-2]\n")


def test_batch_environment_and_io_options(cluster: Cluster) -> None:
    script = ("#!/bin/bash\n#SBATCH -n 2 -c 1 --mem=100M\n"
              "env | grep -E '^(SLURM_|SLURMD_|ENVIRONMENT=|FROM_SUBMIT)' | sort\necho to-stderr >&2\n")
    sub = cluster.work_dir("alice") / "sub"
    sub.mkdir(exist_ok=True)
    alice = pwd.getpwnam("alice")
    os.chown(sub, alice.pw_uid, alice.pw_gid)
    result = cluster.run("env", "FROM_SUBMIT=yes", "sbatch", "--parsable", "-D", "sub", "-e", "err-%j.txt",
                         user="alice", input=script)
    job_id = int(result.stdout)
    cluster.wait_state(job_id, "COMPLETED")
    env = dict(line.split("=", 1) for line in (sub / f"slurm-{job_id}.out").read_text().splitlines())
    assert (sub / f"err-{job_id}.txt").read_text() == "to-stderr\n"
    node = env["SLURMD_NODENAME"]
    expected = {
        "SLURM_JOB_ID": str(job_id), "SLURM_JOBID": str(job_id), "SLURM_JOB_NAME": "sbatch",
        "SLURM_NTASKS": "2", "SLURM_NPROCS": "2", "SLURM_CPUS_PER_TASK": "1",
        "SLURM_JOB_NUM_NODES": "1", "SLURM_NNODES": "1", "SLURM_JOB_NODELIST": node, "SLURM_NODELIST": node,
        "SLURM_JOB_CPUS_PER_NODE": "2", "SLURM_CPUS_ON_NODE": "2", "SLURM_TASKS_PER_NODE": "2",
        "SLURM_MEM_PER_NODE": "100", "SLURM_JOB_PARTITION": "debug", "SLURM_JOB_USER": "alice",
        "SLURM_JOB_UID": str(alice.pw_uid), "SLURM_JOB_GID": str(alice.pw_gid),
        "SLURM_SUBMIT_DIR": str(sub), "SLURM_CLUSTER_NAME": cluster.spec.cluster_name,
        "SLURM_CONF": str(cluster.spec.slurm_conf), "SLURM_NODEID": "0", "SLURM_PROCID": "0",
        "SLURM_LOCALID": "0", "SLURM_GTIDS": "0", "ENVIRONMENT": "BATCH", "FROM_SUBMIT": "yes",
        "SLURM_TOPOLOGY_ADDR_PATTERN": "node",
    }
    assert {k: env.get(k) for k in expected} == expected
    assert env["SLURM_TASK_PID"].isdigit() and "SLURM_SUBMIT_HOST" in env


def test_export_none_passes_only_slurm_variables(cluster: Cluster) -> None:
    job_id = int(cluster.run("env", "FROM_SUBMIT=yes", "sbatch", "--parsable", "--export=NONE", "--wrap",
                             "echo FROM_SUBMIT=${FROM_SUBMIT:-unset}", user="bob").stdout)
    cluster.wait_state(job_id, "COMPLETED")
    assert (cluster.work_dir("bob") / f"slurm-{job_id}.out").read_text() == "FROM_SUBMIT=unset\n"


def test_scontrol_show_job_and_config(cluster: Cluster) -> None:
    job_id = cluster.sbatch("--hold", "-J", "shown", "-t", "90", "--wrap", "true", user="alice")
    out = cluster.run("scontrol", "show", "job", str(job_id), user="alice").stdout
    lines = out.split("\n   ")
    assert lines[0] == f"JobId={job_id} JobName=shown"
    assert lines[3] == "JobState=PENDING Reason=JobHeldUser Dependency=(null)"
    assert lines[5] == "RunTime=00:00:00 TimeLimit=01:30:00 TimeMin=N/A"
    assert f"StdOut={cluster.work_dir('alice')}/slurm-{job_id}.out" in lines
    assert out.endswith("Power=\n   \n\n")
    config = cluster.run("scontrol", "show", "config", user="bob").stdout
    assert re.search(rf"^MinJobAge\s+= {MIN_JOB_AGE} sec$", config, re.M)  # snakemake reads this
    assert re.search(r"^KillWait\s+= 3 sec$", config, re.M)
    cluster.run("scancel", str(job_id), user="alice", check=True)


def test_sacct_filters_and_window(cluster: Cluster) -> None:
    alice_job = cluster.sbatch("-J", "acct-a", "-o", "/dev/null", "--wrap", "true", user="alice")
    bob_job = cluster.sbatch("-J", "acct-b", "-o", "/dev/null", "--wrap", "true", user="bob")
    cluster.wait_state(alice_job, "COMPLETED")
    cluster.wait_state(bob_job, "COMPLETED")

    def ids(*args: str, user: str | None = None) -> set[str]:
        out = cluster.run("sacct", "-X", "-n", "-P", "-o", "JobID", *args, user=user).stdout
        return set(out.split())

    wait_for(lambda: {str(alice_job), str(bob_job)} <= ids())  # root sees everyone, today's window
    assert str(bob_job) not in ids(user="alice")                 # users see their own by default
    assert str(bob_job) in ids("-a", user="alice")               # unless they ask for all (no PrivateData)
    assert ids("-u", "bob") >= {str(bob_job)} and str(alice_job) not in ids("-u", "bob")
    assert ids("--name", "acct-a") == {str(alice_job)}
    assert ids("-S", "now+1hour", "-E", "now+2hours") == set()
    header = cluster.run("sacct", "-j", str(alice_job), "-o", "JobID,State").stdout.splitlines()[:2]
    assert header == ["JobID             State ", "------------ ---------- "]
    bad = cluster.run("sacct", "-o", "NoSuchField")
    assert (bad.returncode, bad.stderr) == (1, 'sacct: error: Invalid field requested: "NoSuchField"\n')


def test_finished_jobs_are_purged_after_min_job_age(cluster: Cluster) -> None:
    job_id = cluster.sbatch("-o", "/dev/null", "--wrap", "true", user="bob")
    cluster.wait_state(job_id, "COMPLETED")
    assert cluster.run("squeue", "-h", "-j", str(job_id)).stdout == ""  # finished: not in the default view
    finished_at = time.monotonic()
    wait_for(lambda: cluster.run("squeue", "-h", "-t", "all", "-j", str(job_id)).returncode == 1,
             timeout=MIN_JOB_AGE + 10, interval=0.5)
    assert time.monotonic() - finished_at >= MIN_JOB_AGE - 3
    assert cluster.run("sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "State").stdout == "COMPLETED\n"
