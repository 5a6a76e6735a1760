"""--test-only, --deadline, --time-min, --priority, -B, --contiguous, --cpu-freq, --acctg-freq
through the real commands and daemons: Slurm 22.05's lines, job states and `scontrol show job`
fields (checked on real Slurm), and the variables the job sees."""
from __future__ import annotations

import pwd
import re

from .conftest import Cluster, wait_for

TEST_ONLY = re.compile(r"^(sbatch|srun): Job (\d+) to start at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d using 2 processors "
                       r"on nodes \S+ in partition \S+\n$")


def test_test_only_says_when_and_where_and_queues_nothing(cluster: Cluster) -> None:
    for command in (["sbatch", "--test-only", "-n2", "--wrap", "true"], ["srun", "--test-only", "-n2", "true"]):
        result = cluster.run(*command, user="alice")
        match = TEST_ONLY.match(result.stderr)
        assert result.returncode == 0 and match and result.stdout == "", result
        shown = cluster.run("scontrol", "show", "job", match.group(2), user="alice")
        assert shown.returncode == 1, shown   # never queued
    refused = cluster.run("sbatch", "--test-only", "-p", "bogus", "--wrap", "true", user="alice")
    assert (refused.returncode, refused.stderr) == (
        1, "sbatch: error: invalid partition specified: bogus\nallocation failure: Invalid partition name specified\n")
    next_id = cluster.sbatch("--hold", "--wrap", "true", user="alice")
    assert next_id == int(match.group(2)) + 1   # each test used up its id, as Slurm's


def test_job_fields_in_scontrol_and_the_environment(cluster: Cluster) -> None:
    job_id = cluster.sbatch("--hold", "-t", "10", "--time-min=2", "--deadline=now+1hour", "--contiguous",
                            "--cpu-freq=Low-High:Performance", "--acctg-freq=task=15", "-B", "1:1:1",
                            "--wrap", "true", user="alice")
    shown = cluster.run("scontrol", "show", "job", str(job_id), user="alice", check=True).stdout
    assert "TimeLimit=00:10:00 TimeMin=00:02:00" in shown and re.search(r"Deadline=\d{4}-", shown)
    assert "ReqB:S:C:T=0:0:1:1" in shown and "Socks/Node=1 " in shown and "Contiguous=1 " in shown
    assert "   CPU_min_freq=Low CPU_max_freq=High Governor=Performance \n   Power=" in shown
    cluster.run("scancel", str(job_id), user="alice", check=True)
    for option, shown in (("--exclusive=user", "OverSubscribe=USER"), ("--exclusive=mcs", "OverSubscribe=MCS"),
                          ("-s", "OverSubscribe=YES"), ("--spread-job", "NumNodes=2")):
        held = cluster.sbatch("--hold", "-n2", option, "--wrap", "true", user="alice")
        text = cluster.run("scontrol", "show", "job", str(held), user="alice", check=True).stdout
        assert f"{shown} " in text, option
        cluster.run("scancel", str(held), user="alice", check=True)
    job_id = cluster.sbatch("--cpu-freq=high", "--acctg-freq=5", "--gpu-freq=high", "--wrap", "env", user="alice")
    cluster.wait_state(job_id, "COMPLETED")
    output = (cluster.work_dir("alice") / f"slurm-{job_id}.out").read_text()
    assert "SLURM_CPU_FREQ_REQ=High\n" in output and "SLURM_ACCTG_FREQ=5\n" in output
    assert "SLURM_GPU_FREQ=high\n" in output


def test_exclusive_user_shares_nodes_with_its_user_only(cluster: Cluster) -> None:
    """--exclusive=user, as on real Slurm 22.05: the CPUs asked (not the node), its user's jobs
    beside it, another user's job kept off the node until it ends."""
    owner = cluster.sbatch("-n1", "-w", "node1", "--exclusive=user", "--wrap", "sleep 60", user="alice")
    cluster.wait_state(owner, "RUNNING")
    shown = cluster.run("scontrol", "show", "job", str(owner), user="alice", check=True).stdout
    assert "NumCPUs=1 " in shown and "OverSubscribe=USER " in shown
    alice = pwd.getpwnam("alice").pw_uid
    assert f" Owner=alice({alice}) MCS_label=N/A" in cluster.run("scontrol", "show", "node", "node1").stdout
    assert " Owner=N/A " in cluster.run("scontrol", "show", "node", "node2").stdout
    kept_off = cluster.sbatch("-n1", "-w", "node1", "--wrap", "true", user="bob")
    elsewhere = cluster.sbatch("-n1", "--wrap", "true", user="bob")
    beside = cluster.sbatch("-n1", "-w", "node1", "--wrap", "true", user="alice")
    cluster.wait_state(beside, "COMPLETED")
    assert cluster.job_field(elsewhere, "N") == "node2"
    assert (cluster.job_field(kept_off, "T"), cluster.job_field(kept_off, "r")) == ("PENDING", "Resources")
    cluster.run("scancel", str(owner), user="alice", check=True)
    cluster.wait_state(kept_off, "COMPLETED")
    assert cluster.job_field(kept_off, "N") == "node1"


def test_a_deadline_that_cannot_be_met_ends_the_job_as_deadline(cluster: Cluster) -> None:
    job_id = cluster.sbatch("-t", "5", "--deadline=now+1minute", "--wrap", "true", user="alice")
    cluster.wait_state(job_id, "DEADLINE")
    shown = cluster.run("scontrol", "show", "job", str(job_id), user="alice", check=True).stdout
    assert "JobState=DEADLINE Reason=DeadLine" in shown


def test_priority_is_roots_to_set(cluster: Cluster) -> None:
    fixed = cluster.sbatch("--begin=now+1hour", "--priority=77", "--wrap", "true")
    assert "Priority=77 " in cluster.run("scontrol", "show", "job", str(fixed), check=True).stdout
    ignored = cluster.sbatch("--begin=now+1hour", "--priority=77", "--wrap", "true", user="alice")
    assert "Priority=77 " not in cluster.run("scontrol", "show", "job", str(ignored), check=True).stdout
    refused = cluster.run("sbatch", "-t", "5", "--time-min=10", "--wrap", "true", user="alice")
    assert (refused.returncode, refused.stderr) == (1, "sbatch: error: Batch job submission failed: Invalid "
                                                       "time-min specification (exceeds job's time or other limits)\n")
    for job_id in (fixed, ignored):
        cluster.run("scancel", str(job_id), check=True)
    wait_for(lambda: cluster.job_field(ignored, "T") == "CANCELLED")


def test_root_submits_as_another_user_and_users_may_not(cluster: Cluster) -> None:

    alice = pwd.getpwnam("alice")
    work = cluster.work_dir("alice")
    job_id = int(cluster.run("sbatch", "--parsable", "--uid=alice", "-o", str(work / "as-alice.out"), "--wrap",
                             "id -u", cwd=work, check=True).stdout)
    cluster.wait_state(job_id, "COMPLETED")
    assert (work / "as-alice.out").read_text() == f"{alice.pw_uid}\n"
    shown = cluster.run("scontrol", "show", "job", str(job_id), check=True).stdout
    assert f"UserId=alice({alice.pw_uid}) GroupId=root(0)" in shown
    refused = cluster.run("sbatch", "--uid=bob", "--wrap", "true", user="alice")
    assert (refused.returncode, refused.stderr) == (255, "sbatch: error: --uid only permitted by root user\n")
    unknown = cluster.run("sbatch", "--uid=no-such-user-here", "--wrap", "true")
    assert (unknown.returncode, unknown.stderr) == (255, "sbatch: error: Invalid --uid specification\n")
