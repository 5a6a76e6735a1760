"""scontrol update jobid=N TimeLimit= through the real CLIs: the owner lowers, root raises."""
from __future__ import annotations

from .conftest import Cluster


def test_time_limit_of_a_running_job(cluster: Cluster) -> None:
    job = cluster.sbatch("-t", "10", "--wrap", "sleep 300", user="alice")
    cluster.wait_state(job, "RUNNING")
    cluster.run("scontrol", "update", f"jobid={job}", "TimeLimit=5", user="alice", check=True)
    assert cluster.job_field(job, "l") == "5:00"
    denied = cluster.run("scontrol", "update", f"jobid={job}", "TimeLimit+=5", user="alice")
    assert (denied.returncode, denied.stderr) == (1, f"Access/permission denied for job {job}\n")
    cluster.run("scontrol", "update", f"jobid={job}", "TimeLimit+=55", user="root", check=True)
    assert "TimeLimit=01:00:00" in cluster.run("scontrol", "show", "job", str(job), user="alice").stdout
    bad = cluster.run("scontrol", "update", f"jobid={job}", "TimeLimit=soon", user="root")
    assert (bad.returncode, bad.stderr) == (1, "scontrol: error: Invalid TimeLimit value\n")   # scontrol's own check
    cluster.run("scancel", str(job), user="alice", check=True)


def test_num_cpus_of_a_pending_job(cluster: Cluster) -> None:
    job = cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "nproc", user="alice")
    cluster.run("scontrol", "update", f"jobid={job}", "NumCPUs=2", user="alice", check=True)
    assert cluster.job_field(job, "C") == "2"
    bad = cluster.run("scontrol", "update", f"jobid={job}", "NumCPUs=0", user="alice")
    assert (bad.returncode, bad.stderr) == (1, "scontrol: error: Invalid NumCPUs value: 0\n")   # scontrol's own check
    cluster.run("scontrol", "release", str(job), user="alice", check=True)
    cluster.wait_state(job, "COMPLETED")
    assert "NumCPUs=2 " in cluster.run("scontrol", "show", "job", str(job), user="alice").stdout


def test_releasing_many_jobs_in_one_command_starts_them_by_priority(cluster: Cluster) -> None:
    """12 held jobs of two users released by one `scontrol release`: alice's, submitted first,
    rank above bob's, so alice's take the 4 CPUs, whatever order the command names them in.
    (Released one commit after another, a scheduling pass ran between and started bob's,
    named first.)"""
    from .conftest import wait_for
    cluster.wait_idle()
    alice = [cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "sleep 60", user="alice") for _ in range(6)]
    bob = [cluster.sbatch("--hold", "-o", "/dev/null", "--wrap", "sleep 60", user="bob") for _ in range(6)]
    try:
        cluster.run("scontrol", "release", ",".join(map(str, bob + alice)), check=True)
        wait_for(lambda: len(cluster.run("squeue", "-h", "-t", "R", "-o", "%i").stdout.split()) == 4)
        running = {int(i) for i in cluster.run("squeue", "-h", "-t", "R", "-o", "%i").stdout.split()}
        assert running == set(alice[:4]), (running, alice, bob)
    finally:
        cluster.run("scancel", *map(str, alice + bob))
        cluster.wait_idle()


def test_hold_of_a_running_job(cluster: Cluster) -> None:
    """As real Slurm 22.05 (checked on it): the hold is taken, exit 0 and silent, the job runs
    on with priority 0 and the hold's reason; a finished job's hold fails in Slurm's words."""
    job = cluster.sbatch("-o", "/dev/null", "--wrap", "sleep 300", user="alice")
    cluster.wait_state(job, "RUNNING")
    other = cluster.run("scontrol", "release", str(job), user="bob")
    assert (other.returncode, other.stderr) == (1, f"Invalid user id for job {job}\nslurm_suspend error: Invalid user id\n")
    held = cluster.run("scontrol", "hold", str(job), user="alice")
    assert (held.returncode, held.stdout, held.stderr) == (0, "", "")
    assert cluster.run("squeue", "-h", "-j", str(job), "-o", "%T %r %Q").stdout == "RUNNING JobHeldUser 0\n"
    cluster.run("scontrol", "release", str(job), user="alice", check=True)
    assert cluster.run("squeue", "-h", "-j", str(job), "-o", "%T %r").stdout == "RUNNING None\n"
    cluster.run("scancel", str(job), user="alice", check=True)
    cluster.wait_state(job, "CANCELLED")
    late = cluster.run("scontrol", "hold", f"{job},999999", user="alice")
    assert (late.returncode, late.stderr) == (1, f"Job has already finished for job {job}\n"
                                                 "Invalid job id specified for job 999999\n"
                                                 "slurm_suspend error: Invalid job id specified\n")
