"""`scontrol top` through the real CLI and controller: root moves a user's later job ahead of
the earlier one (squeue's priorities show it); the user may not without enable_user_top."""
from __future__ import annotations

from .conftest import Cluster


def test_root_tops_a_users_later_job_and_the_user_may_not(cluster: Cluster) -> None:
    jobs = [cluster.sbatch("--begin=now+1hour", "-o", "/dev/null", "--wrap", "true", user="alice") for _ in range(2)]
    try:
        def priorities() -> list[int]:
            return [int(cluster.job_field(job, "Q")) for job in jobs]

        assert priorities()[0] > priorities()[1]
        refused = cluster.run("scontrol", "top", str(jobs[1]), user="alice")
        assert (refused.returncode, refused.stderr) == (1, f"Access/permission denied for job {jobs[1]}\n")
        done = cluster.run("scontrol", "top", f"jobid={jobs[1]}")
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        assert priorities()[1] > priorities()[0]
    finally:
        cluster.run("scancel", *map(str, jobs))


def test_an_array_task_id_names_the_task_as_in_slurm(cluster: Cluster) -> None:
    # Slurm 22.05's controller reads `12_1` as array 12's task 1: here still pending in the array's
    # record, which goes ahead of the user's earlier job; a task the array lacks is an invalid id.
    earlier = cluster.sbatch("--begin=now+1hour", "-o", "/dev/null", "--wrap", "true", user="alice")
    array = cluster.sbatch("--begin=now+1hour", "--array=0-1", "-o", "/dev/null", "--wrap", "true", user="alice")
    try:
        assert int(cluster.job_field(earlier, "Q")) > int(cluster.job_field(array, "Q"))
        done = cluster.run("scontrol", "top", f"{array}_1")
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        assert int(cluster.job_field(array, "Q")) > int(cluster.job_field(earlier, "Q"))
        missing = cluster.run("scontrol", "top", f"{array}_7")
        assert (missing.returncode, missing.stderr) == (1, f"Invalid job id specified for job {array}_7\n")
    finally:
        cluster.run("scancel", str(earlier), str(array))
