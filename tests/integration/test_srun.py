"""srun and salloc end to end: real daemons on two nodes, real users, the real CLIs.

Spec cli-sbatch-srun-salloc.md §3 (srun), §4 (salloc), §5 (steps in accounting) and
cli-squeue-sinfo-scontrol-scancel.md (squeue -s, scontrol show step, scancel J.S).
"""
from __future__ import annotations

import os
import pty
import pwd
import re
import select
import signal
import subprocess
import time

import pytest

from .conftest import BIN, KILL_WAIT, Cluster, wait_for


def _running_steps(cluster: Cluster, user: str) -> list[str]:
    return cluster.run("squeue", "-s", "-h", "-o", "%i", user=user).stdout.split()


def test_srun_runs_a_command_and_streams_its_output(cluster: Cluster) -> None:
    result = cluster.run("srun", "echo", "hello", user="alice")
    assert (result.returncode, result.stdout, result.stderr) == (0, "hello\n", "")


def test_labels_are_rank_prefixes(cluster: Cluster) -> None:
    result = cluster.run("srun", "-n2", "-l", "echo", "hi", user="alice")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == ["0: hi", "1: hi"]


def test_exit_code_propagates_with_slurms_error_line(cluster: Cluster) -> None:
    result = cluster.run("srun", "-n2", "-N1", "sh", "-c", 'exit $((SLURM_PROCID + 3))', user="bob")
    assert result.returncode == 4
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    assert re.fullmatch(r"srun: error: node[12]: task 0: Exited with exit code 3", lines[0])
    assert re.fullmatch(r"srun: error: node[12]: task 1: Exited with exit code 4", lines[1])
    killed = cluster.run("srun", "sh", "-c", "kill -9 $$", user="bob")
    assert killed.returncode == 128 + 9
    assert re.fullmatch(r"srun: error: node[12]: task 0: Killed\n", killed.stderr)


def test_task_environment_follows_block_distribution(cluster: Cluster) -> None:
    result = cluster.run("srun", "-N2", "-n4", "-l", "sh", "-c",
                         "echo $SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURMD_NODENAME $SLURM_NTASKS "
                         "$SLURM_STEP_ID $SLURM_LABELIO", user="alice")
    assert result.returncode == 0, result.stderr
    rows = {}
    for line in result.stdout.splitlines():
        rank, _, values = line.partition(": ")
        rows[int(rank)] = values.split()
    assert sorted(rows) == [0, 1, 2, 3]
    for rank, (procid, localid, nodeid, node, ntasks, step, labelio) in rows.items():
        assert (procid, localid, nodeid, ntasks, step, labelio) == (str(rank), str(rank % 2), str(rank // 2),
                                                                  "4", "0", "1")
    assert rows[0][3] == rows[1][3] != rows[2][3] == rows[3][3]


def test_tasks_without_a_node_count_spread_over_the_fewest_nodes(cluster: Cluster) -> None:
    """-n3 without -N on two 2-CPU nodes: Slurm's node range is 1 to unbounded, cons_tres gives
    the job both nodes (2 CPUs and 1), and the tasks run in blocks, 2 on the first node, 1 on the
    second; salloc and sbatch get the same two nodes, and srun -n3 inside them works."""
    show = 'echo "$SLURMD_NODENAME $SLURM_NNODES $SLURM_TASKS_PER_NODE $SLURM_JOB_CPUS_PER_NODE"'
    result = cluster.run("srun", "-n3", "-l", "sh", "-c", show, user="alice")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == ["0: node1 2 2,1 2,1", "1: node1 2 2,1 2,1",
                                                 "2: node2 2 2,1 2,1"]
    inside = cluster.run("salloc", "-n3", "srun", "-l", "sh", "-c", show, user="bob")
    assert inside.returncode == 0, inside.stderr
    assert sorted(inside.stdout.splitlines()) == ["0: node1 2 2,1 2,1", "1: node1 2 2,1 2,1",
                                                 "2: node2 2 2,1 2,1"]
    job_id = cluster.sbatch("-n3", "-o", "spread.out", "--wrap", f"srun sh -c '{show}'", user="alice")
    cluster.wait_state(job_id, "COMPLETED")
    assert cluster.job_field(job_id, "D") == "2" and cluster.job_field(job_id, "N") == "node[1-2]"
    assert sorted((cluster.work_dir("alice") / "spread.out").read_text().splitlines()) == [
        "node1 2 2,1 2,1", "node1 2 2,1 2,1", "node2 2 2,1 2,1"]


@pytest.mark.parametrize(("size", "reason"), [("-n5", "PartitionConfig"), ("-N3", "PartitionNodeLimit")])
def test_more_than_the_partition_has_pends_as_in_slurm(cluster: Cluster, size: str, reason: str) -> None:
    """-n5 on 2x2 CPUs, -N3 on 2 nodes: Slurm 22.05 (EnforcePartLimits=NO) accepts them and they pend
    with PartitionConfig, PartitionNodeLimit; srun says so in Slurm's words before it waits (checked
    against real srun and sbatch: -N2 on one node)."""
    alice = pwd.getpwnam("alice")
    proc = subprocess.Popen([str(BIN / "srun"), size, "true"], env=dict(cluster.env, USER="alice"),
                            cwd=str(cluster.work_dir("alice")), user=alice.pw_uid, group=alice.pw_gid,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        said = proc.stderr.readline()
        queued = proc.stderr.readline()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert said == "srun: Requested partition configuration not available now\n"
    match = re.fullmatch(r"srun: job (\d+) queued and waiting for resources\n", queued)
    assert match, queued
    cluster.wait_state(int(match.group(1)), "CANCELLED")
    batch = cluster.run("sbatch", "--parsable", size, "--wrap", "true", user="alice")
    assert batch.returncode == 0, batch.stderr
    job_id = int(batch.stdout)
    wait_for(lambda: cluster.run("squeue", "-h", "-j", str(job_id), "-o", "%T %r").stdout == f"PENDING {reason}\n")
    cluster.run("scancel", str(job_id), user="alice", check=True)
    cluster.wait_state(job_id, "CANCELLED")


def test_stdin_reaches_the_task(cluster: Cluster) -> None:
    result = cluster.run("srun", "cat", user="alice", input="line one\nline two\n")
    assert (result.returncode, result.stdout) == (0, "line one\nline two\n")
    to_rank = cluster.run("srun", "-n2", "-l", "--input=1", "cat", user="alice", input="only one\n")
    assert to_rank.stdout == "1: only one\n"


def test_steps_inside_a_batch_job_are_accounted(cluster: Cluster) -> None:
    script = "#!/bin/sh\nsrun -J first printenv SLURMD_NODENAME\nsrun true\n"
    job_id = int(cluster.run("sbatch", "--parsable", "-N2", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED")
    out = (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text()
    assert sorted(out.split()) == ["node1", "node2"]

    def accounted() -> str:
        return cluster.run("sacct", "-n", "-P", "-j", str(job_id), "-o", "JobID,JobName,State",
                           user="alice").stdout

    # squeue shows the end before the accounting daemon has the last record: wait for that record.
    wait_for(lambda: f"{job_id}.1|true|COMPLETED" in accounted().splitlines())
    assert f"{job_id}.0|first|COMPLETED" in accounted().splitlines()


def test_exact_steps_run_in_parallel(cluster: Cluster) -> None:
    # Each step waits for the other's file: the job only completes if both steps run at once.
    script = ("#!/bin/sh\n"
              "srun -n1 --exact sh -c 'touch a.$SLURM_JOB_ID; while [ ! -e b.$SLURM_JOB_ID ]; do sleep 0.1; done' &\n"
              "srun -n1 --exact sh -c 'touch b.$SLURM_JOB_ID; while [ ! -e a.$SLURM_JOB_ID ]; do sleep 0.1; done' &\n"
              "wait\n")
    job_id = int(cluster.run("sbatch", "--parsable", "-n2", "-N1", "-t", "1", user="alice", input=script,
                             check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED", timeout=40)
    out = (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text()
    assert "step creation temporarily disabled" not in out


def test_scancel_of_one_step_leaves_the_job_running(cluster: Cluster) -> None:
    script = "#!/bin/sh\nsrun sleep 100\necho after-step\n"
    job_id = int(cluster.run("sbatch", "--parsable", user="alice", input=script, check=True).stdout)
    wait_for(lambda: f"{job_id}.0" in _running_steps(cluster, "alice"))
    steps_view = cluster.run("squeue", "-s", user="alice").stdout.splitlines()
    assert steps_view[0] == "         STEPID     NAME PARTITION     USER      TIME NODELIST"
    assert any(re.fullmatch(rf"\s+{job_id}\.0\s+sleep\s+\S+\s+alice\s+\S+ node[12]", line) for line in steps_view)
    shown = cluster.run("scontrol", "show", "step", f"{job_id}.0", user="alice").stdout
    assert shown.startswith(f"StepId={job_id}.0 UserId={pwd.getpwnam('alice').pw_uid} ")
    assert "\n   State=RUNNING " in shown and " Name=sleep " in shown
    denied = cluster.run("scancel", f"{job_id}.0", user="bob")
    assert (denied.returncode, denied.stderr) == (
        218, f"scancel: error: Kill job error on job step id {job_id}: Invalid user id\n")   # as 22.05 words it
    cluster.run("scancel", f"{job_id}.0", user="alice", check=True)
    cluster.wait_state(job_id, "COMPLETED", timeout=30)
    assert "after-step" in (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text()


def test_another_user_cannot_create_steps_in_a_job(cluster: Cluster) -> None:
    job_id = cluster.sbatch("--wrap", "sleep 60", user="alice")
    cluster.wait_state(job_id, "RUNNING")
    result = cluster.run("srun", "--jobid", str(job_id), "true", user="bob")
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "", f"srun: error: Unable to create step for job {job_id}: Access/permission denied\n")
    cluster.run("scancel", str(job_id), user="alice", check=True)


def test_salloc_runs_srun_in_the_allocation(cluster: Cluster) -> None:
    result = cluster.run("salloc", "-N2", "srun", "printenv", "SLURMD_NODENAME", user="alice")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.split()) == ["node1", "node2"], result
    # Granted at once: no Pending/queued lines (Slurm prints those only when the job has to wait).
    match = re.fullmatch(r"salloc: Granted job allocation (\d+)\n"
                         r"salloc: Relinquishing job allocation \1\n", result.stderr)
    assert match, result.stderr
    job_id = match.group(1)
    wait_for(lambda: cluster.job_field(int(job_id), "T") == "COMPLETED")
    status = cluster.run("salloc", "sh", "-c", "exit 7", user="alice")
    assert status.returncode == 7


def test_srun_waits_for_resources_with_slurms_messages(cluster: Cluster) -> None:
    blocker = cluster.sbatch("-N2", "-n4", "--wrap", "sleep 3", user="bob")
    cluster.wait_state(blocker, "RUNNING")
    result = cluster.run("srun", "true", user="alice")
    cluster.wait_state(blocker, "COMPLETED")
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"srun: job (\d+) queued and waiting for resources\n"
                        r"srun: job \1 has been allocated resources\n", result.stderr), result.stderr


def test_salloc_that_waits_says_pending_queued_allocated_granted(cluster: Cluster) -> None:
    blocker = cluster.sbatch("-N2", "-n4", "--wrap", "sleep 3", user="bob")
    cluster.wait_state(blocker, "RUNNING")
    result = cluster.run("salloc", "true", user="alice")
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"salloc: Pending job allocation (\d+)\n"
                        r"salloc: job \1 queued and waiting for resources\n"
                        r"salloc: job \1 has been allocated resources\n"
                        r"salloc: Granted job allocation \1\n"
                        r"salloc: Relinquishing job allocation \1\n", result.stderr), result.stderr


def test_ctrl_c_twice_aborts_the_step(cluster: Cluster) -> None:
    alice = pwd.getpwnam("alice")
    proc = subprocess.Popen([str(BIN / "srun"), "sh", "-c", "echo started; exec sleep 100"],
                            env=dict(cluster.env, USER="alice"),
                            cwd=str(cluster.work_dir("alice")), user=alice.pw_uid, group=alice.pw_gid,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "started\n"  # the task runs: srun is in its I/O loop
        proc.send_signal(signal.SIGINT)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    lines = err.splitlines()
    assert len(lines) >= 5, err
    assert lines[0] == "srun: interrupt (one more within 1 sec to abort)"
    assert re.fullmatch(r"srun: StepId=\d+\.0 task 0: running", lines[1])
    assert re.fullmatch(r"srun: sending Ctrl-C to StepId=\d+\.0", lines[2])
    assert lines[3] == "srun: forcing job termination"
    assert lines[4] == f"srun: Job step aborted: Waiting up to {KILL_WAIT + 2} seconds for job step to finish."
    for line in lines[5:]:  # the stepd's cancel banner, the task's end as the signal that ended it
        assert re.fullmatch(r"slurmstepd-(node[12]): error: \*\*\* STEP \d+\.0 ON \1 CANCELLED AT \S+ \*\*\*|"
                            r"srun: error: node[12]: task 0: (Interrupt|Terminated|Killed)", line), err
    assert proc.returncode in (128 + signal.SIGINT, 128 + signal.SIGTERM, 128 + signal.SIGKILL)


def _as_user(name: str) -> None:
    user = pwd.getpwnam(name)
    os.setgroups(os.getgrouplist(name, user.pw_gid))
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)


def _read_until(fd: int, wanted: bytes, timeout: float = 30.0) -> bytes:
    """What the terminal shows until `wanted` appears (or EOF / timeout)."""
    output = b""
    deadline = time.monotonic() + timeout
    while wanted not in output and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    return output


def test_pty_runs_an_interactive_shell(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")  # made (as root) before the child drops to alice
    pid, fd = pty.fork()
    if pid == 0:  # the child: alice typing `srun --pty bash` at her terminal
        try:
            _as_user("alice")
            os.chdir(work)
            env = dict(cluster.env, USER="alice", HOME=pwd.getpwnam("alice").pw_dir, TERM="dumb", PS1="$ ")
            os.execve(str(BIN / "srun"), ["srun", "--pty", "bash", "--norc", "-i"], env)
        finally:
            os._exit(127)
    os.write(fd, b"echo pty=$(tty | cut -c1-8) rows=$(tput lines); echo sleep-$((6*7)); sleep 100\n")
    shown = _read_until(fd, b"sleep-42")
    os.write(fd, b"\x03")  # Ctrl-C reaches the remote foreground job through the pty, not srun
    os.write(fd, b"echo survived-$?; exit 5\n")
    shown += _read_until(fd, b"\0")  # to the end
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    text = shown.decode(errors="replace")
    assert "pty=/dev/pts" in text, text
    assert "survived-130" in text, text
    assert os.waitstatus_to_exitcode(status) == 5, text


def test_output_files_on_this_host_and_per_task_on_the_nodes(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")
    local = cluster.run("srun", "-n2", "-o", "local-%j.%s.out", "sh", "-c", "echo out$SLURM_PROCID; echo err >&2",
                        user="alice")
    assert (local.returncode, local.stdout, local.stderr) == (0, "", "")
    written = sorted(p for p in work.glob("local-*.0.out"))
    assert len(written) == 1
    assert sorted(written[0].read_text().split()) == ["err", "err", "out0", "out1"]
    assert written[0].stat().st_uid == pwd.getpwnam("alice").pw_uid
    per_task = cluster.run("srun", "-n2", "-o", "task-%j-%t.out", "sh", "-c", "echo rank$SLURM_PROCID",
                           user="alice")
    assert (per_task.returncode, per_task.stdout) == (0, "")
    files = sorted(work.glob("task-*-*.out"))
    assert [f.read_text() for f in files] == ["rank0\n", "rank1\n"]


def test_kill_on_bad_exit_ends_the_other_tasks(cluster: Cluster) -> None:
    result = cluster.run("srun", "-n2", "-K1", "sh", "-c", '[ "$SLURM_PROCID" = 1 ] && exit 2; exec sleep 60',
                         user="alice")
    assert result.returncode != 0
    assert re.search(r"srun: error: node[12]: task 1: Exited with exit code 2\n", result.stderr), result.stderr
    assert re.search(r"srun: error: node[12]: task 0: (Terminated|Killed)\n", result.stderr), result.stderr


def test_sigterm_to_srun_reaches_the_tasks(cluster: Cluster) -> None:
    alice = pwd.getpwnam("alice")
    proc = subprocess.Popen([str(BIN / "srun"), "sh", "-c", "trap 'echo got-term; exit 9' TERM; echo ready; "
                             "while true; do sleep 0.1; done"], env=dict(cluster.env, USER="alice"),
                            cwd=str(cluster.work_dir("alice")), user=alice.pw_uid, group=alice.pw_gid,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert out == "got-term\n"
    assert proc.returncode == 9, err


def test_srun_with_only_the_job_id_finds_its_job(cluster: Cluster) -> None:
    # Tools that scrub the environment keep SLURM_JOB_ID alone (issue 4, point 8).
    script = ("#!/bin/sh\nfor v in $(env | grep '^SLURM_' | cut -d= -f1); do\n"
              "  [ \"$v\" = SLURM_JOB_ID ] || unset \"$v\"\ndone\nsrun printenv SLURM_STEP_ID SLURM_JOB_ID\n")
    job_id = int(cluster.run("sbatch", "--parsable", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED")
    assert (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text() == f"0\n{job_id}\n"


def test_salloc_no_shell_then_srun_jobid(cluster: Cluster) -> None:
    granted = cluster.run("salloc", "--no-shell", "-N1", user="alice")
    assert granted.returncode == 0
    match = re.fullmatch(r"salloc: Granted job allocation (\d+)\n", granted.stderr)
    assert match, granted.stderr
    job_id = int(match.group(1))
    assert cluster.job_field(job_id, "T") == "RUNNING"
    step = cluster.run("srun", "--jobid", str(job_id), "printenv", "SLURM_JOB_ID", user="alice")
    assert (step.returncode, step.stdout) == (0, f"{job_id}\n")
    assert cluster.job_field(job_id, "T") == "RUNNING", "a step does not end a salloc job"
    cluster.run("scancel", str(job_id), user="alice", check=True)
    cluster.wait_state(job_id, "CANCELLED")


def test_interrupt_while_pending_revokes_the_allocation(cluster: Cluster) -> None:
    blocker = cluster.sbatch("-N2", "-n4", "--wrap", "sleep 30", user="bob")
    cluster.wait_state(blocker, "RUNNING")
    alice = pwd.getpwnam("alice")
    proc = subprocess.Popen([str(BIN / "srun"), "true"], env=dict(cluster.env, USER="alice"),
                            cwd=str(cluster.work_dir("alice")), user=alice.pw_uid, group=alice.pw_gid,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        queued = proc.stderr.readline()
        match = re.fullmatch(r"srun: job (\d+) queued and waiting for resources\n", queued)
        assert match, queued
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        cluster.run("scancel", str(blocker), user="bob")
        cluster.wait_state(blocker, "CANCELLED")
        cluster.wait_idle()
    job_id = match.group(1)
    assert err == f"srun: Job allocation {job_id} has been revoked\nsrun: Force Terminated JobId={job_id}\n"
    assert proc.returncode == 1
    cluster.wait_state(int(job_id), "CANCELLED")


def test_scancel_signal_reaches_the_tasks_of_one_step(cluster: Cluster) -> None:
    script = ("#!/bin/sh\n"
              "srun sh -c 'trap \"echo step-got-usr1; exit 0\" USR1; touch ready.$SLURM_JOB_ID; "
              "while true; do sleep 0.1; done'\n"
              "echo step-status-$?\n")
    job_id = int(cluster.run("sbatch", "--parsable", user="alice", input=script, check=True).stdout)
    wait_for(lambda: (cluster.work_dir("alice") / f"ready.{job_id}").exists())
    cluster.run("scancel", "-s", "USR1", f"{job_id}.0", user="alice", check=True)
    cluster.wait_state(job_id, "COMPLETED")
    lines = (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text().splitlines()
    # (the task's `sleep` gets the signal too, and its shell may say so)
    assert "step-got-usr1" in lines and lines[-1] == "step-status-0", lines


def test_ntasks_per_node_spreads_tasks(cluster: Cluster) -> None:
    result = cluster.run("srun", "-N2", "--ntasks-per-node=2", "-l", "printenv", "SLURMD_NODENAME", user="bob")
    assert result.returncode == 0, result.stderr
    by_rank = dict(line.split(": ") for line in result.stdout.splitlines())
    assert sorted(by_rank) == ["0", "1", "2", "3"]
    assert by_rank["0"] == by_rank["1"] != by_rank["2"] == by_rank["3"]


def test_a_step_waits_while_the_allocation_is_busy(cluster: Cluster) -> None:
    script = ("#!/bin/sh\n"
              "srun -n2 sh -c 'touch busy.$SLURM_JOB_ID; sleep 3' &\n"
              "while [ ! -e busy.$SLURM_JOB_ID ]; do sleep 0.1; done\n"
              "srun -n1 echo second-step\nwait\n")
    job_id = int(cluster.run("sbatch", "--parsable", "-n2", "-N1", user="alice", input=script, check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED", timeout=40)
    lines = (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text().splitlines()
    assert lines[0] == f"srun: Job {job_id} step creation temporarily disabled, retrying (Requested nodes are busy)"
    assert all(line == f"srun: Job {job_id} step creation still disabled, retrying (Requested nodes are busy)"
               for line in lines[1:-2]), lines
    assert lines[-2:] == [f"srun: Step created for job {job_id}", "second-step"]


def test_salloc_interactive_shell_through_a_pty(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")
    pid, fd = pty.fork()
    if pid == 0:  # alice typing `salloc -N2` at her terminal: she gets her shell with the allocation
        try:
            _as_user("alice")
            os.chdir(work)
            env = dict(cluster.env, USER="alice", HOME=pwd.getpwnam("alice").pw_dir, TERM="dumb",
                       SHELL="/bin/bash")
            os.execve(str(BIN / "salloc"), ["salloc", "-N2"], env)
        finally:
            os._exit(127)
    shown = _read_until(fd, b"Granted job allocation")
    os.write(fd, b"srun -l printenv SLURMD_NODENAME | sort; sleep 30 & jobs; kill %1; echo status-$((40+2))\n")
    shown += _read_until(fd, b"status-42")
    os.write(fd, b"exit 3\n")
    shown += _read_until(fd, b"\0")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    text = shown.decode(errors="replace").replace("\r\n", "\n")
    assert "0: node1\n1: node2\n" in text, text
    assert re.search(r"\[1\]\+ +Running +sleep 30 &", text), text  # job control in the shell
    assert re.search(r"salloc: Relinquishing job allocation \d+\n", text), text
    assert os.waitstatus_to_exitcode(status) == 3, text


def test_node_lists_place_jobs_and_srun_allocations(cluster: Cluster) -> None:
    """-w/--nodelist and -x/--exclude for srun's own allocation and for sbatch."""
    placed = cluster.run("srun", "-w", "node2", "printenv", "SLURMD_NODENAME", user="alice")
    assert (placed.returncode, placed.stdout) == (0, "node2\n"), placed.stderr
    avoided = cluster.run("srun", "-x", "node1", "printenv", "SLURMD_NODENAME", user="alice")
    assert (avoided.returncode, avoided.stdout) == (0, "node2\n"), avoided.stderr
    job = cluster.sbatch("-w", "node2", "-o", "/dev/null", "--wrap", "true", user="alice")
    cluster.wait_state(job, "COMPLETED")
    assert cluster.job_field(job, "N") == "node2"
    shown = cluster.run("scontrol", "show", "job", str(job)).stdout
    assert "ReqNodeList=node2 ExcNodeList=(null)" in shown
    refused = cluster.run("sbatch", "-w", "nosuch", "--wrap", "true", user="alice")
    assert refused.returncode == 1
    assert refused.stderr == "sbatch: error: Batch job submission failed: Invalid node name specified\n"


def test_srun_and_salloc_take_dependency_and_begin(cluster: Cluster) -> None:
    first = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 2", user="alice")
    after = cluster.run("srun", "-d", f"afterok:{first}", "true", user="alice")
    assert after.returncode == 0, after.stderr
    assert cluster.job_field(first, "T") == "COMPLETED"     # srun's job started only after it
    assert "queued and waiting for resources" in after.stderr
    later = cluster.run("salloc", "--begin", "now+2", "true", user="alice")
    assert later.returncode == 0, later.stderr
    assert re.search(r"salloc: Pending job allocation (\d+)\n", later.stderr), later.stderr
    refused = cluster.run("srun", "-d", "afterok:nosuch", "true", user="alice")
    assert refused.returncode == 1
    assert "Job dependency problem" in refused.stderr
