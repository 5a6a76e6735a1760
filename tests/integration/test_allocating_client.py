"""srun killed while its job pends: when the allocation is granted the controller finds nobody at
srun's allocation response port and ends the job (FAILED 1:0), as slurmctld's "Killing interactive
JobId=N: Communication connection failure" does, instead of holding the nodes until the time
limit (pyslurm_ctld/shell/allocating_client.py)."""
from __future__ import annotations

import pwd
import re
import subprocess

from .conftest import BIN, Cluster, wait_for


def test_an_srun_killed_while_pending_gives_its_allocation_back_once_granted(cluster: Cluster) -> None:
    blocker = cluster.sbatch("-N2", "-n4", "--wrap", "sleep 300", user="bob")
    cluster.wait_state(blocker, "RUNNING")
    alice = pwd.getpwnam("alice")
    srun = subprocess.Popen([str(BIN / "srun"), "-N2", "-t", "10", "true"], env=dict(cluster.env, USER="alice"),
                            cwd=str(cluster.work_dir("alice")), user=alice.pw_uid, group=alice.pw_gid,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert srun.stderr is not None
        queued = srun.stderr.readline()
        match = re.fullmatch(r"srun: job (\d+) queued and waiting for resources\n", queued)
        assert match, queued
        job_id = int(match.group(1))
    finally:
        srun.kill()
        srun.wait(timeout=10)
    cluster.run("scancel", str(blocker), user="bob", check=True)
    cluster.wait_state(job_id, "FAILED", timeout=40)
    assert cluster.run("squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%r").stdout.strip() == "NonZeroExitCode"
    wait_for(lambda: cluster.run("sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "State,ExitCode").stdout.strip()
             == "FAILED|1:0", timeout=30)
    cluster.wait_idle()
