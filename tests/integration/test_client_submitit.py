"""submitit (PyPI) driving a real cluster as the ordinary user alice: what its Slurm executor
sends (`#SBATCH --wckey`, `--signal=USR2@<delay>`, `--open-mode=append`, `srun --unbuffered
--output ... --error ...`, arrays `0-N%P`) and parses (`sacct -o JobID,State,NodeList
--parsable2`), and its signal protocol: `scancel --signal`, then `scontrol requeue` from inside
the job for a checkpointable callable."""
from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import BIN, Cluster, running_cluster, two_node_spec

pytest.importorskip("submitit")
pytestmark = pytest.mark.real_client


def _spec(root: Path, name: str) -> ClusterSpec:
    # A requeued job waits cred_expire + 1 s before it may start again (Slurm's default 121 s).
    return dataclasses.replace(two_node_spec(root, name), cred_expire=2)


@pytest.fixture(scope="module")
def submitit_cluster() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        yield c


def drive(c: Cluster, body: str, timeout: int = 120) -> str:
    """Run a submitit program as alice in her work directory; returns its standard output.

    Its log folder is a plain directory, as in submitit's README. A folder named per job
    ("logs/%j") is one submitit creates only after sbatch has answered; pyslurm starts a job
    within some 30 ms of that answer where Slurm takes about a second, so such a job can find
    no directory for its output and fail to launch (JobLaunchFailure, in Slurm as well)."""
    program = textwrap.dedent("""\
        import sys, time
        import submitit
        executor = submitit.AutoExecutor(folder="logs")
        assert executor.cluster == "slurm", executor.cluster
        executor.update_parameters(timeout_min=2, slurm_partition="debug", mem_gb=0.1)

        def final_state(job):
            while job.watcher.get_state(job.job_id, mode="force") in ("UNKNOWN", "PENDING", "RUNNING", "REQUEUED"):
                time.sleep(0.5)
            return job.state
        """) + textwrap.dedent(body)
    result = c.run(str(BIN / "python"), "-c", program, user="alice", timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr + daemon_errors(c)
    return result.stdout


def daemon_errors(c: Cluster) -> str:
    """The daemons' error lines, for a failure's message."""
    lines = [f"{log.name}: {line}" for log in sorted(c.spec.log_dir.glob("*.log"))
             for line in log.read_text(errors="replace").splitlines() if "error" in line]
    return "\n".join(["daemon errors:", *lines[-40:]])


def test_functions_and_sacct_states(submitit_cluster: Cluster) -> None:
    out = drive(submitit_cluster, """
        job = executor.submit(pow, 2, 10)
        print("result", job.result())
        print("state", final_state(job))
        failing = executor.submit(int, "not a number")
        try:
            failing.result()
        except submitit.core.utils.FailedJobError as error:
            print("failed", "invalid literal" in str(error))
        print("failed state", final_state(failing))
        """)
    assert "result 1024" in out
    assert "state COMPLETED" in out
    assert "failed True" in out
    assert "failed state FAILED" in out


def test_jobs_watched_together_are_all_seen_to_end(submitit_cluster: Cluster) -> None:
    """submitit's watcher asks about all its jobs in one `sacct -j A -j B ...`: each -j adds jobs,
    as in Slurm (with only the last one answered, the others would never be seen to end)."""
    out = drive(submitit_cluster, """
        jobs = [executor.submit(pow, 2, n) for n in (3, 4, 5)]
        print("results", [job.result() for job in jobs])
        print("states", [job.watcher.get_state(job.job_id, mode="force") for job in jobs])
        """, timeout=90)
    assert "results [8, 16, 32]" in out
    assert "states ['COMPLETED', 'COMPLETED', 'COMPLETED']" in out


def test_map_array_runs_every_task_with_its_array_variables(submitit_cluster: Cluster) -> None:
    out = drive(submitit_cluster, """
        import os
        def task(x):
            env = submitit.JobEnvironment()
            return x * x, env.array_task_id, os.environ["SLURM_ARRAY_JOB_ID"]
        executor.update_parameters(slurm_array_parallelism=2)
        jobs = executor.map_array(task, [1, 2, 3, 4])
        results = [job.result() for job in jobs]
        print("squares", [r[0] for r in results])
        print("task ids", [r[1] for r in results])
        print("one array", len({r[2] for r in results}) == 1 and results[0][2] == jobs[0].job_id.split("_")[0])
        print("ids", [job.job_id.split("_")[1] for job in jobs])
        print("states", sorted({final_state(job) for job in jobs}))
        """)
    assert "squares [1, 4, 9, 16]" in out
    assert "task ids ['0', '1', '2', '3']" in out
    assert "one array True" in out
    assert "ids ['0', '1', '2', '3']" in out
    assert "states ['COMPLETED']" in out


def test_cancel_a_running_job(submitit_cluster: Cluster) -> None:
    out = drive(submitit_cluster, """
        job = executor.submit(time.sleep, 300)
        while job.watcher.get_state(job.job_id, mode="force") != "RUNNING":
            time.sleep(0.5)
        job.cancel(check=True)
        print("state", final_state(job))
        """)
    assert "state CANCELLED" in out


def test_timeout_signal_ends_a_job_that_cannot_checkpoint(submitit_cluster: Cluster) -> None:
    # Slurm sends USR2 signal_delay_s before the time limit (--signal=USR2@45) to the processes
    # of the job's steps at that moment; submitit's handler then ends the job as timed out,
    # without a requeue. That handler exists only once submitit's Python runs inside the srun
    # step, which on a loaded machine took longer than the 15 s a 1-minute job leaves (CI: the
    # warning fell due before the step was up and reached no one, as it would in Slurm, which
    # even sends it up to a minute early). So the job starts with a long limit and, once its
    # function runs (the handlers are set before it is called), alice shortens the limit to one
    # minute, as a user may: the warning is then due at once or 15 s after the start.
    out = drive(submitit_cluster, """
        import pathlib, subprocess
        def sleeper(marker):
            pathlib.Path(marker).touch()
            time.sleep(300)
        marker = pathlib.Path("sleeping").absolute()
        marker.unlink(missing_ok=True)
        executor.update_parameters(timeout_min=5, slurm_signal_delay_s=45)
        job = executor.submit(sleeper, str(marker))
        while not marker.exists():
            time.sleep(0.5)
        subprocess.run(["scontrol", "update", f"JobId={job.job_id}", "TimeLimit=1"], check=True)
        try:
            job.result()
        except submitit.core.utils.UncompletedJobError as error:
            print("uncompleted", error)
        print("state", final_state(job))
        """, timeout=110)
    assert "Job not requeued because: timed-out and not checkpointable" in out
    assert "state FAILED" in out     # it ended on the warning, before its time limit


def test_checkpoint_and_requeue(submitit_cluster: Cluster) -> None:
    # A preemption (SIGTERM then USR2, submitit's own _interrupt) makes the checkpointable callable
    # save its state and `scontrol requeue` its job from inside; the job starts again from the
    # checkpoint and finishes.
    out = drive(submitit_cluster, """
        import os, pathlib
        class Counter(submitit.helpers.Checkpointable):
            def __init__(self):
                self.restarts = 0
            def __call__(self, marker):
                self.restarts += 1
                if self.restarts == 1:
                    pathlib.Path(marker).touch()
                    time.sleep(300)
                return self.restarts, os.environ["SLURM_RESTART_COUNT"]
        marker = pathlib.Path("started").absolute()
        marker.unlink(missing_ok=True)
        job = executor.submit(Counter(), str(marker))
        while not marker.exists():
            time.sleep(0.5)
        time.sleep(1)
        job._interrupt()
        print("result", job.result())
        print("state", final_state(job))
        """, timeout=110)
    assert "result (2, '1')" in out
    assert "state COMPLETED" in out


def test_multi_task_job(submitit_cluster: Cluster) -> None:
    out = drive(submitit_cluster, """
        def rank():
            env = submitit.JobEnvironment()
            return env.global_rank, env.local_rank, env.num_tasks, env.num_nodes
        executor.update_parameters(tasks_per_node=2, cpus_per_task=1)
        job = executor.submit(rank)
        print("results", sorted(job.results()))
        """)
    assert "results [(0, 0, 2, 1), (1, 1, 2, 1)]" in out
