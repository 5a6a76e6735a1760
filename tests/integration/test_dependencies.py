"""Dependencies and --begin through the real sbatch, squeue, scontrol and scancel."""
from __future__ import annotations

from .conftest import Cluster, wait_for


def test_afterok_chain_runs_in_order_and_a_failure_is_never_satisfied(cluster: Cluster) -> None:
    # held until the dependents are looked at: on a loaded machine a running one could end first
    first = cluster.sbatch("--hold", "--wrap", "sleep 1; exit 3", user="alice")
    ok = cluster.sbatch(f"--dependency=afterok:{first}", "--wrap", "true", user="alice")
    not_ok = cluster.sbatch("-d", f"afternotok:{first}", "--wrap", "true", user="alice")
    either = cluster.sbatch("-d", f"afterok:{first}?afterany:{first}", "--wrap", "true", user="alice")
    assert cluster.job_field(ok, "r") == "Dependency"
    assert cluster.job_field(ok, "E") == f"afterok:{first}(unfulfilled)"
    cluster.run("scontrol", "release", str(first), user="alice", check=True)
    cluster.wait_state(first, "FAILED")
    cluster.wait_state(not_ok, "COMPLETED")
    cluster.wait_state(either, "COMPLETED")
    wait_for(lambda: cluster.job_field(ok, "r") == "DependencyNeverSatisfied")
    assert cluster.job_field(ok, "T") == "PENDING"
    assert cluster.job_field(ok, "E") == f"afterok:{first}(failed)"
    show = cluster.run("scontrol", "show", "job", str(ok), user="alice").stdout
    assert f"Reason=DependencyNeverSatisfied Dependency=afterok:{first}(failed)" in show
    # Fixed by the owner: the dependency is replaced, then the job runs.
    denied = cluster.run("scontrol", "update", f"jobid={ok}", "dependency=", user="bob")
    assert (denied.returncode, denied.stderr) == (1, f"Invalid user id for job {ok}\n")
    cluster.run("scontrol", "update", f"jobid={ok}", f"dependency=afterany:{first}", user="alice", check=True)
    cluster.wait_state(ok, "COMPLETED")


def test_kill_on_invalid_dep_cancels(cluster: Cluster) -> None:
    first = cluster.sbatch("--wrap", "exit 1", user="bob")
    doomed = cluster.sbatch(f"--dependency=afterok:{first}", "--kill-on-invalid-dep=yes", "--wrap", "true", user="bob")
    cluster.wait_state(doomed, "CANCELLED")
    assert cluster.job_field(doomed, "r") == "DependencyNeverSatisfied"
    # As real Slurm 22.05.8: the dependency is still shown, and sacct names no requester.
    assert cluster.job_field(doomed, "E") == f"afterok:{first}(failed)"
    wait_for(lambda: cluster.run("sacct", "-n", "-X", "-j", str(doomed), "-o", "state%20,start,reason%20",
                                 user="bob").stdout.split() == ["CANCELLED", "None", "Dependency"])


def test_array_dependency_and_singleton(cluster: Cluster) -> None:
    array = cluster.sbatch("--hold", "--array=1-3", "--wrap", "sleep 1", user="alice")
    after_all = cluster.sbatch(f"--dependency=afterok:{array}", "-J", "solo", "--wrap", "sleep 8", user="alice")
    second_solo = cluster.sbatch("--dependency=singleton", "-J", "solo", "--wrap", "true", user="alice")
    assert cluster.job_field(after_all, "E") == f"afterok:{array}_*(unfulfilled)"
    cluster.run("scontrol", "release", str(array), user="alice", check=True)
    cluster.wait_state(after_all, "RUNNING", timeout=30)
    assert all(line.endswith("COMPLETED") for line in cluster.run(
        "squeue", "-h", "-t", "all", "-j", str(array), "-o", "%i %T", user="alice").stdout.splitlines())
    assert cluster.job_field(second_solo, "T") == "PENDING"
    assert cluster.job_field(second_solo, "E") == "singleton(unfulfilled)"
    cluster.wait_state(second_solo, "COMPLETED")


def test_bad_dependencies_and_begin_times(cluster: Cluster) -> None:
    # Real Slurm 22.05.8 takes a job it does not know as done: accepted, Dependency=(null), runs.
    unknown = cluster.sbatch("--dependency=afterok:999999", "--wrap", "true", user="alice")
    assert cluster.job_field(unknown, "E") == "(null)"
    cluster.wait_state(unknown, "COMPLETED")
    bad = cluster.run("sbatch", "--dependency=singleton:99", "--wrap", "true", user="alice")
    assert (bad.returncode, bad.stderr) == (1, "sbatch: error: Batch job submission failed: Job dependency problem\n")
    bad_begin = cluster.run("sbatch", "--begin=someday", "--wrap", "true", user="alice")
    assert (bad_begin.returncode, bad_begin.stderr) == (1, "sbatch: error: Invalid --begin specification\n")
    later = cluster.sbatch("--begin=now+3", "--wrap", "true", user="alice")
    assert cluster.job_field(later, "r") == "BeginTime"
    cluster.wait_state(later, "COMPLETED", timeout=15)
    tomorrow = cluster.sbatch("--begin=tomorrow", "--wrap", "true", user="alice")
    wait_for(lambda: cluster.job_field(tomorrow, "r") == "BeginTime")
    cluster.run("scontrol", "update", f"jobid={tomorrow}", "StartTime=now", user="alice", check=True)
    cluster.wait_state(tomorrow, "COMPLETED")


def test_aftercorr_pairs_array_tasks(cluster: Cluster) -> None:
    first = cluster.sbatch("--array=1-2", "--wrap", "exit $((SLURM_ARRAY_TASK_ID - 1))", user="bob")
    paired = cluster.sbatch("--array=1-2", f"--dependency=aftercorr:{first}", "--wrap", "true", user="bob")

    def states() -> dict[str, str]:
        out = cluster.run("squeue", "-h", "-t", "all", "-r", "-j", str(paired), "-o", "%i %T %r", user="bob").stdout
        return {line.split()[0]: " ".join(line.split()[1:]) for line in out.splitlines()}

    wait_for(lambda: states().get(f"{paired}_1") == "COMPLETED None", timeout=30)
    # Its pair failed: never satisfied (real Slurm 22.05.8: DependencyNeverSatisfied).
    wait_for(lambda: states().get(f"{paired}_2") == "PENDING DependencyNeverSatisfied")
    cluster.run("scancel", str(paired), user="bob", check=True)
