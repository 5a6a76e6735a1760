"""`scontrol notify` writes its line to a running batch job's error file (Slurm's stepd writes
it to the batch step's stderr), not to its output file, and leaves the job running."""
from __future__ import annotations

from .conftest import Cluster, wait_for


def test_notify_writes_the_line_to_a_running_batch_jobs_error_file(cluster: Cluster) -> None:
    work = cluster.work_dir("alice")
    job = cluster.sbatch("-o", "notify-out.txt", "-e", "notify-err.txt", "--wrap", "echo started; sleep 60",
                         user="alice")
    try:
        cluster.wait_state(job, "RUNNING", 60)
        wait_for(lambda: (work / "notify-out.txt").exists() and "started" in (work / "notify-out.txt").read_text(), 30)
        done = cluster.run("scontrol", "notify", str(job), "checkpoint", "soon", user="alice")
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        wait_for(lambda: "checkpoint soon" in (work / "notify-err.txt").read_text(), 20)
        assert "checkpoint soon" not in (work / "notify-out.txt").read_text()
        assert cluster.job_field(job, "T") == "RUNNING"
    finally:
        cluster.run("scancel", str(job))
