"""What a job may and may not do on its node: identity, limits, cleanup."""
from __future__ import annotations

import datetime
import os
import pwd
import re
import signal

from .conftest import Cluster, wait_for


def _output(cluster: Cluster, user: str, job_id: int) -> str:
    return (cluster.work_dir(user) / f"slurm-{job_id}.out").read_text()


def test_tasks_run_without_privileges_and_with_the_submitters_umask_and_limits(cluster: Cluster) -> None:
    script = ("#!/bin/bash\ngrep -E '^(CapEff|CapPrm|Uid|Gid):' /proc/self/status\numask\nulimit -n\nulimit -c\n"
              "echo HOME=$HOME USER=$USER LOGNAME=$LOGNAME\n")
    job_id = int(cluster.run("bash", "-c", "umask 0027; ulimit -n 321; ulimit -c 0; exec sbatch --parsable "
                                           "--export=NONE", user="bob", input=script, check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED")
    out = _output(cluster, "bob", job_id)
    bob = pwd.getpwnam("bob")
    assert re.search(r"^CapEff:\s+0+$", out, re.M) and re.search(r"^CapPrm:\s+0+$", out, re.M)
    assert re.search(rf"^Uid:\s+{bob.pw_uid}\s+{bob.pw_uid}\s+{bob.pw_uid}\s+{bob.pw_uid}$", out, re.M)
    assert re.search(rf"^Gid:\s+{bob.pw_gid}\s+{bob.pw_gid}\s+{bob.pw_gid}\s+{bob.pw_gid}$", out, re.M)
    lines = out.splitlines()
    assert lines[-4:] == ["0027", "321", "0", f"HOME={bob.pw_dir} USER=bob LOGNAME=bob"]
    assert (cluster.work_dir("bob") / f"slurm-{job_id}.out").stat().st_mode & 0o777 == 0o640


def test_a_process_that_escapes_with_setsid_is_still_killed(cluster: Cluster) -> None:
    marker = cluster.work_dir("alice") / "escaped.pid"
    script = (f"#!/bin/bash\nsetsid bash -c 'echo $$ > {marker}; trap \"\" TERM; exec sleep 600' &\n"
              f"sleep 1\necho launched\n")
    job_id = int(cluster.run("sbatch", "--parsable", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED", timeout=30)
    pid = int(marker.read_text())
    assert not os.path.exists(f"/proc/{pid}"), "the escaped process survived the end of its job"


def test_an_output_path_the_user_cannot_write_fails_the_job_and_creates_nothing(cluster: Cluster) -> None:
    job_id = cluster.sbatch("-o", "/root/not-yours-%j.out", "--wrap", "echo hi", user="alice")
    cluster.wait_state(job_id, "FAILED")
    assert cluster.job_field(job_id, "r") == "JobLaunchFailure"
    assert not os.path.exists(f"/root/not-yours-{job_id}.out")


def test_jobs_survive_kill_9_of_their_node_agent(cluster: Cluster) -> None:
    script = "#!/bin/bash\nsleep 4\necho survived\n"
    job_id = int(cluster.run("sbatch", "--parsable", "-c", "2", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "RUNNING")
    node = cluster.job_field(job_id, "N")
    cluster.stop(node, signal.SIGKILL)
    cluster.start(node)                      # re-attaches to the running stepd through the spool
    cluster.wait_state(job_id, "COMPLETED", timeout=30)
    assert _output(cluster, "alice", job_id) == "survived\n"
    cluster.wait_idle()


def test_a_job_over_its_memory_is_killed_out_of_memory(cluster: Cluster) -> None:
    script = "#!/bin/bash\n/usr/bin/python3 -c 'b = bytearray(256 << 20); print(len(b))'\n"
    job_id = int(cluster.run("sbatch", "--parsable", "--mem=64M", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "OUT_OF_MEMORY", timeout=30)
    assert cluster.job_field(job_id, "t") == "OOM"
    out = _output(cluster, "alice", job_id)
    assert re.search(rf"slurmstepd-node[12]: error: Detected [1-9]\d* oom-kill event\(s\) in StepId={job_id}\.batch\. "
                     r"Some of your processes may have been killed by the cgroup out-of-memory handler\.", out)
    wait_for(lambda: cluster.run("sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "State,ExitCode",
                                 user="alice").stdout == "OUT_OF_MEMORY|0:125\n")


def test_cpus_are_confined_and_not_shared(cluster: Cluster) -> None:
    script = "#!/bin/bash\ngrep Cpus_allowed_list /proc/self/status\nsleep 3\n"
    jobs = [int(cluster.run("sbatch", "--parsable", "-c", "1", user="alice", input=script, check=True).stdout)
            for _ in range(4)]
    for job_id in jobs:
        cluster.wait_state(job_id, "COMPLETED", timeout=30)
    seen: dict[str, set[str]] = {}
    for job_id in jobs:
        cpus = _output(cluster, "alice", job_id).split()[1]
        assert re.fullmatch(r"\d+", cpus), cpus          # exactly one CPU
        node = cluster.job_field(job_id, "N")
        assert cpus not in seen.setdefault(node, set())   # 4 jobs, 2 nodes x 2 CPUs: all distinct
        seen[node].add(cpus)


def test_signal_before_the_time_limit_then_timeout(cluster: Cluster) -> None:
    # USR1 15 s before the 1-minute limit, timed from the job's start, sent as Slurm sends it: by
    # the controller's warning pass (every 30 s) that comes first in the 30 s before that, so
    # 15-45 s after the start. The script's trap must be set by then (a signal that comes first
    # ends the shell, in Slurm as here), which on a loaded machine can take seconds, so the
    # warning is not asked for in the job's first seconds.
    script = ("#!/bin/bash\ntrap 'echo got USR1 at $EPOCHSECONDS' USR1\n"
              "for i in $(seq 200); do sleep 1; done\n")
    job_id = int(cluster.run("sbatch", "--parsable", "-t", "1", "--signal=B:USR1@15", user="bob",
                             input=script, check=True).stdout)
    cluster.wait_state(job_id, "RUNNING")
    started = datetime.datetime.fromisoformat(cluster.job_field(job_id, "S")).timestamp()
    out_file = cluster.work_dir("bob") / f"slurm-{job_id}.out"
    wait_for(lambda: out_file.exists() and "got USR1" in out_file.read_text(), timeout=60)
    cluster.wait_state(job_id, "TIMEOUT", timeout=75)
    assert cluster.job_field(job_id, "r") == "TimeLimit"
    text = out_file.read_text()
    assert re.search(rf"\*\*\* JOB {job_id} ON node\d CANCELLED AT \S+ DUE TO TIME LIMIT \*\*\*", text), text
    signalled = int(re.search(r"got USR1 at (\d+)", text).group(1))  # type: ignore[union-attr]
    assert 15 - 1 <= signalled - started <= 45 + 5   # (whole seconds), before the limit
    wait_for(lambda: cluster.run("sacct", "-n", "-P", "-j", str(job_id), "-o", "JobID,State",
                                 user="bob").stdout == f"{job_id}|TIMEOUT\n{job_id}.batch|CANCELLED\n")


def test_step_usage_reaches_accounting(cluster: Cluster) -> None:
    script = ("#!/bin/bash\n/usr/bin/python3 -c '\nimport time\nb = bytearray(100 << 20)\n"
              "end = time.process_time() + 1\nwhile time.process_time() < end: pass\n'\n")
    job_id = int(cluster.run("sbatch", "--parsable", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED", timeout=30)

    def batch_row() -> list[str]:
        out = cluster.run("sacct", "-n", "-P", "-j", str(job_id), "-o", "JobID,MaxRSS,TotalCPU,UserCPU",
                          user="alice").stdout
        return next((line.split("|") for line in out.splitlines() if line.endswith(".batch") or ".batch|" in line), [])

    wait_for(lambda: len(batch_row()) == 4 and batch_row()[1] not in ("", "0"))
    _, max_rss, total, user = batch_row()
    number, unit = int(max_rss[:-1]), max_rss[-1]
    assert number * {"K": 1, "M": 1024, "G": 1024 ** 2}[unit] >= 100 * 1024, max_rss
    assert re.fullmatch(r"00:0[1-9]\.\d{3}", total), total             # the loop burns >= 1 s of CPU
    assert re.fullmatch(r"00:0\d\.\d{3}", user) and user != "00:00.000", user
