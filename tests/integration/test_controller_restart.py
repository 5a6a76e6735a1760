"""Restarting the controller (systemctl restart, a crash, an upgrade) keeps running and pending
jobs: the running job goes on in its stepd, the restarted controller replays its journal,
hears from the node agents again and records the job's end; the pending job still waits."""
from __future__ import annotations

import pwd
import signal
import subprocess

from .conftest import BIN, Cluster, wait_for


def test_running_and_pending_jobs_survive_controller_restarts(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")
    go = work / "restart.go"
    running = cluster.sbatch("-o", "restart.out", "--wrap",
                             "while [ ! -e restart.go ]; do sleep 0.2; done; echo finished $SLURM_JOB_ID", user="alice")
    cluster.wait_state(running, "RUNNING")
    node = cluster.job_field(running, "N")
    pending = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "true", user="bob")
    for how in (signal.SIGTERM, signal.SIGKILL):
        cluster.stop("ctld", how)
        cluster.start("ctld")
        wait_for(lambda: cluster.run("squeue", "-h", "-j", f"{running},{pending}", "-o", "%i %T %r %N").stdout ==
                 f"{pending} PENDING JobHeldUser \n{running} RUNNING None {node}\n", timeout=30)
    go.touch()
    cluster.wait_state(running, "COMPLETED", timeout=30)
    assert (work / "restart.out").read_text() == f"finished {running}\n"
    cluster.run("scontrol", "release", str(pending), user="bob", check=True)
    cluster.wait_state(pending, "COMPLETED")
    wait_for(lambda: cluster.run("sacct", "-n", "-X", "-P", "-j", str(running), "-o", "JobID,State,ExitCode",
                                 user="alice").stdout == f"{running}|COMPLETED|0:0\n", timeout=30)
    go.unlink()


def test_an_srun_job_and_its_step_made_in_one_call_survive_a_kill_9_once_srun_has_its_answer(
        cluster: Cluster) -> None:
    """AllocateWithStep journals the submission, the start and the step with one fsync, before it
    answers: once the task runs, a controller killed -9 comes back with the job and its step."""
    alice = pwd.getpwnam("alice")
    work = cluster.work_dir("alice")
    go = work / "srun-restart.go"
    srun = subprocess.Popen([str(BIN / "srun"), "sh", "-c",
                             "echo $SLURM_JOB_ID; while [ ! -e srun-restart.go ]; do sleep 0.2; done; echo done"],
                            env=dict(cluster.env, USER="alice"), cwd=str(work), user=alice.pw_uid,
                            group=alice.pw_gid, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert srun.stdout is not None
        job_id = srun.stdout.readline().strip()   # the task runs: srun had its answer
        cluster.stop("ctld", signal.SIGKILL)
        cluster.start("ctld")
        wait_for(lambda: cluster.run("squeue", "-h", "-s", "-j", job_id, "-o", "%i").stdout == f"{job_id}.0\n",
                 timeout=30)
        go.touch()
        out, err = srun.communicate(timeout=30)
    finally:
        srun.kill()
        go.unlink(missing_ok=True)
    assert (srun.returncode, out) == (0, "done\n"), err
    wanted = [f"{job_id}|COMPLETED|0:0", f"{job_id}.0|COMPLETED|0:0"]
    wait_for(lambda: cluster.run("sacct", "-n", "-P", "-j", job_id, "-o", "JobID,State,ExitCode",
                                 user="alice").stdout.splitlines() == wanted, timeout=30)
