"""Batch jobs end to end through the real CLIs, daemons, cgroups and users."""
from __future__ import annotations

import os
import pwd
import re
import time

from .conftest import KILL_WAIT, Cluster, wait_for


def test_sbatch_prints_the_submission_line(cluster: Cluster) -> None:
    result = cluster.run("sbatch", "--hold", "--wrap", "true", user="alice")
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"Submitted batch job \d+\n", result.stdout)
    job_id = int(result.stdout.split()[-1])
    assert cluster.job_field(job_id, "r") == "JobHeldUser"
    cluster.run("scancel", str(job_id), user="alice", check=True)


def test_job_runs_as_submitter_and_completes(cluster: Cluster) -> None:
    script = "#!/bin/bash\n#SBATCH -J whoami\nid -u\nid -G\necho cwd=$PWD\necho job=$SLURM_JOB_ID node=$SLURMD_NODENAME\nsleep 1\n"
    job_id = int(cluster.run("sbatch", "--parsable", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "RUNNING")
    cluster.wait_state(job_id, "COMPLETED")
    alice = pwd.getpwnam("alice")
    out_file = cluster.work_dir("alice") / f"slurm-{job_id}.out"
    lines = out_file.read_text().splitlines()
    assert lines[0] == str(alice.pw_uid)
    assert set(lines[1].split()) == {str(g) for g in os.getgrouplist("alice", alice.pw_gid)}
    assert lines[2] == f"cwd={cluster.work_dir('alice')}"
    assert re.fullmatch(rf"job={job_id} node=node[12]", lines[3])
    assert out_file.stat().st_uid == alice.pw_uid
    assert cluster.job_field(job_id, "j") == "whoami"

    def accounted() -> str:
        return cluster.run("sacct", "-n", "-P", "-j", str(job_id), "-o", "JobID,JobName,State,ExitCode",
                           user="alice").stdout

    wait_for(lambda: "COMPLETED" in accounted())
    assert accounted() == f"{job_id}|whoami|COMPLETED|0:0\n{job_id}.batch|batch|COMPLETED|0:0\n"


def test_failing_script_is_failed_with_its_exit_code(cluster: Cluster) -> None:
    job_id = cluster.sbatch("--wrap", "exit 3", user="bob")
    cluster.wait_state(job_id, "FAILED")
    assert cluster.job_field(job_id, "r") == "NonZeroExitCode"
    wait_for(lambda: "FAILED" in cluster.run("sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "State",
                                             user="bob").stdout)
    out = cluster.run("sacct", "-n", "-P", "-j", str(job_id), "-o", "JobID,State,ExitCode", user="bob").stdout
    assert out == f"{job_id}|FAILED|3:0\n{job_id}.batch|FAILED|3:0\n"


def test_directives_lose_to_the_command_line(cluster: Cluster) -> None:
    script = "#!/bin/sh\n#SBATCH -J fromscript\n#SBATCH -o custom-%j-%x.log\n\necho hi\n#SBATCH -J ignored\n"
    job_id = int(cluster.run("sbatch", "--parsable", "-J", "fromcli", user="alice", input=script,
                             check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED")
    assert cluster.job_field(job_id, "j") == "fromcli"
    assert (cluster.work_dir("alice") / f"custom-{job_id}-fromcli.log").read_text() == "hi\n"


def test_bad_scripts_are_refused_in_slurm_words(cluster: Cluster) -> None:
    no_shebang = cluster.run("sbatch", user="alice", input="echo hi\n")
    assert no_shebang.returncode == 1
    assert no_shebang.stderr == (
        "sbatch: error: This does not look like a batch script.  The first\n"
        "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
        "sbatch: error: For instance: #!/bin/sh\n")
    bad_partition = cluster.run("sbatch", "-p", "nosuch", "--wrap", "true", user="alice")
    assert bad_partition.returncode == 1
    assert bad_partition.stderr == ("sbatch: error: invalid partition specified: nosuch\n"
                                    "sbatch: error: Batch job submission failed: Invalid partition name specified\n")
    bad_time = cluster.run("sbatch", "-t", "1:2:3:4", "--wrap", "true", user="alice")
    assert (bad_time.returncode, bad_time.stderr) == (255, "sbatch: error: Invalid --time specification\n")
    # Within the partition's 4 CPUs but on no one node (more than that pends, as in Slurm).
    too_big = cluster.run("sbatch", "-c", "3", "--wrap", "true", user="alice")
    assert too_big.stderr.endswith("Batch job submission failed: Requested node configuration is not available\n")
    assert "Traceback" not in no_shebang.stderr + bad_partition.stderr + bad_time.stderr + too_big.stderr


def test_scancel_of_a_job_ignoring_sigterm_kills_everything_after_killwait(cluster: Cluster) -> None:
    script = "#!/bin/bash\ntrap '' TERM\nsleep 600 &\necho started\nwait\n"
    job_id = int(cluster.run("sbatch", "--parsable", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "RUNNING")
    out_file = cluster.work_dir("alice") / f"slurm-{job_id}.out"
    wait_for(lambda: out_file.exists() and "started" in out_file.read_text())
    node = cluster.job_field(job_id, "N")
    node_root = f"pyslurm_{cluster.spec.cluster_name}_{node}"
    cgroup = next(p for p in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")
                  if os.path.isdir(f"{p}/{node_root}")) + f"/{node_root}/job_{job_id}"
    pids = open(f"{cgroup}/step_batch/user/task_0/cgroup.procs").read().split()
    assert len(pids) == 2  # the shell and its sleep
    started = time.monotonic()
    cluster.run("scancel", str(job_id), user="alice", check=True)
    answered = time.monotonic()
    assert cluster.job_field(job_id, "t") == "CG"
    # Timed on the processes themselves (polled in /proc, no command in between): SIGKILL comes
    # KillWait after the SIGTERM that followed scancel's request, so no earlier than KillWait after
    # scancel started, and not much later than KillWait after it answered (its own start-up, up
    # to a second or two on a loaded machine, is not part of the promise).
    wait_for(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in pids), timeout=KILL_WAIT + 10,
             interval=0.02)
    gone = time.monotonic()
    assert KILL_WAIT - 0.5 <= gone - started and gone - answered <= KILL_WAIT + 2.0, (gone - started, gone - answered)
    wait_for(lambda: cluster.run("squeue", "-h", "-j", str(job_id)).stdout == "")
    assert not os.path.exists(cgroup)
    assert re.search(rf"slurmstepd-{node}: error: \*\*\* JOB {job_id} ON {node} CANCELLED AT \S+ \*\*\*",
                     out_file.read_text())
    alice_uid = pwd.getpwnam("alice").pw_uid
    wait_for(lambda: f"CANCELLED by {alice_uid}" in cluster.run(
        "sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "State", user="alice").stdout)


def test_users_cannot_cancel_each_others_jobs(cluster: Cluster) -> None:
    job_id = cluster.sbatch("--hold", "--wrap", "true", user="alice")
    denied = cluster.run("scancel", str(job_id), user="bob")
    assert denied.returncode == 210   # Slurm's ESLURM_ACCESS_DENIED (2002) as an exit status, as scancel exits
    assert denied.stderr == f"scancel: error: Kill job error on job id {job_id}: Access/permission denied\n"
    assert cluster.job_field(job_id, "T") == "PENDING"
    by_root = cluster.run("scancel", str(job_id))
    assert by_root.returncode == 0, by_root.stderr
    assert cluster.job_field(job_id, "T") == "CANCELLED"


def test_hold_and_release(cluster: Cluster) -> None:
    job_id = cluster.sbatch("--hold", "--wrap", "true", user="bob")
    assert cluster.job_field(job_id, "r") == "JobHeldUser"
    cluster.run("scontrol", "release", str(job_id), user="bob", check=True)
    cluster.wait_state(job_id, "COMPLETED")


def test_unknown_and_malformed_ids(cluster: Cluster) -> None:
    assert cluster.run("scancel", "999999", user="alice").returncode == 0
    bad = cluster.run("scancel", "abc", user="alice")
    assert (bad.returncode, bad.stderr) == (1, "scancel: error: Invalid job id abc\n")
    unknown = cluster.run("squeue", "-j", "999999", user="alice")
    assert (unknown.returncode, unknown.stderr) == (1, "slurm_load_jobs error: Invalid job id specified\n")


def test_comment_and_mail_options_reach_scontrol_show_job(cluster: Cluster) -> None:
    script = "#!/bin/sh\n#SBATCH --mail-type=end,fail --comment\n#SBATCH 'two words'\ntrue\n"
    job_id = int(cluster.run("sbatch", "--parsable", "--hold", user="alice", input=script, check=True).stdout)
    shown = cluster.run("scontrol", "show", "job", str(job_id), user="alice", check=True).stdout
    assert "\n   Comment=two words \n" in shown
    assert "\n   MailUser=alice MailType=END,FAIL\n" in shown
    cluster.run("scancel", str(job_id), user="alice", check=True)


def test_scancel_signal_to_a_job_not_started_yet_is_retried_not_lost(cluster: Cluster) -> None:
    """Slurm 22.05: slurmctld answers a signal for a pending job "Job can not be altered now,
    try again later" and scancel asks again after 5 s, 6 s, ... ("Job is in transitional state,
    retrying" with -v); released meanwhile, the job gets the signal once its script runs."""
    import subprocess
    work = cluster.work_dir("alice")
    job_id = cluster.sbatch("--hold", "-o", "usr1.out", "--wrap",
                            "trap 'echo got USR1; exit 0' USR1; for i in $(seq 60); do sleep 1; done", user="alice")
    pw = pwd.getpwnam("alice")
    scancel = subprocess.Popen(["scancel", "-v", "--batch", "--signal=USR1", str(job_id)], env=dict(cluster.env, USER="alice"),
                               cwd=work, user=pw.pw_uid, group=pw.pw_gid, stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    cluster.run("scontrol", "release", str(job_id), user="alice", check=True)
    _, stderr = scancel.communicate(timeout=30)
    assert scancel.returncode == 0, stderr
    assert stderr.startswith(f"scancel: Signal 10 to batch job {job_id}\n"
                             "scancel: Job is in transitional state, retrying\n"), stderr
    # The script traps USR1 and ends at once; a signal that came before its trap was set ends
    # it too (killed by USR1). Lost, the job would run its 60 s.
    wait_for(lambda: cluster.job_field(job_id, "T") in ("COMPLETED", "FAILED"), 20)
    if cluster.job_field(job_id, "T") == "COMPLETED":
        assert (work / "usr1.out").read_text() == "got USR1\n"
    # a finished job: the quiet "already completed" of Slurm, no retries
    done = cluster.run("scancel", "--signal=USR1", str(job_id), user="alice")
    assert (done.returncode, done.stderr) == (0, "")
