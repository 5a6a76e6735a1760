"""Restarting the controller (systemctl restart, a crash, an upgrade) keeps running and pending
jobs: the running job goes on in its stepd, the restarted controller replays its journal,
hears from the node agents again and records the job's end; the pending job still waits."""
from __future__ import annotations

import signal

from .conftest import Cluster, wait_for


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
