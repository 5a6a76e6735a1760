"""Requeue on node failure and `scontrol requeue`, side by side with real Slurm 22.05.8 (the
transcripts and how they were made: tests/data/slurm_requeue/).

A batch job that may be requeued (JobRequeue=1, slurm.conf's default, unless --no-requeue; or
--requeue) whose node fails (its agent killed with kill -9, or `scontrol update state=down`) is
requeued, as Slurm's kill_running_job_by_node_name does: the run is logged NODE_FAIL 0:0, what is
left of it is killed (`*** ... DUE TO NODE FAILURE ... ***`), and the job pends again with the same
id, a new submit time, Reason=BeginTime for cred_expire + 1 s, Restarts=1. Plain sacct shows the
new (pending) record; sacct -D both. A --no-requeue job (or any with JobRequeue=0 and no --requeue)
ends NODE_FAIL.

The job records are compared with the oracle's row for row, and the kill banners' words. The steps'
rows, and which of the script's `*** JOB ... ***` and its step's `*** STEP ... ***` banner is
written, are not: whether the script or its step hears the kill before the other (through srun)
ends it is a race, which Slurm, whose srun asks slurmctld to end the step, rarely loses.
"""
from __future__ import annotations

import re
import signal
from datetime import datetime
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

ORACLE = Path(__file__).resolve().parents[1] / "data/slurm_requeue"
REQUEUE_DELAY = 121        # cred_expire (120 s by default) + 1, as Slurm's batch_requeue_fini


@pytest.fixture(scope="module")
def lab() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c


def oracle_rows(transcript: str, label: str) -> list[tuple[str, str, str]]:
    """The `sacct -D` rows (JobID less the job id, State, ExitCode) of one snapshot of a transcript."""
    section = (ORACLE / transcript).read_text().split(f"===== {label} ")[1]
    rows = []
    for line in section.split("--- sacct -D\n")[1].splitlines()[1:]:
        if not line[:1].isdigit():      # the next command's output
            break
        job_id, state, code = line.split("|")[:3]
        rows.append((job_id.partition(".")[1] + job_id.partition(".")[2], state, code))
    return rows


def our_rows(lab: Cluster, job_id: int) -> list[tuple[str, str, str]]:
    out = lab.run("sacct", "-D", "-n", "-P", "-j", str(job_id), "-o", "JobID,State,ExitCode").stdout
    rows = []
    for line in out.splitlines():
        jid, state, code = line.split("|")
        rows.append((jid.partition(".")[1] + jid.partition(".")[2], state, code))
    return rows


def job_level(row: tuple[str, str, str]) -> bool:
    return row[0] == ""


def assert_rows(lab: Cluster, job_id: int, expected: list[tuple[str, str, str]]) -> None:
    """sacct -D shows `expected` for the job's records (not its steps), once accounting caught up."""
    try:
        wait_for(lambda: [row for row in our_rows(lab, job_id) if job_level(row)] == expected)
    except AssertionError:
        rows = [row for row in our_rows(lab, job_id) if job_level(row)]
        assert rows == expected, controller_log(lab, job_id)
        raise


def controller_log(lab: Cluster, job_id: int) -> str:
    """The daemons' log lines of one job, for a failure's message."""
    return "\n".join(f"{path.name}: {line}" for path in sorted(lab.spec.log_dir.iterdir())
                     for line in path.read_text(errors="replace").splitlines() if f"job={job_id} " in line)


def start_srun_job(lab: Cluster, seconds: int, tasks: int, *args: str) -> tuple[int, Path]:
    """A batch job whose script runs `srun sleep <seconds>` (a duration no other test uses), once
    its `tasks` sleeps run: a node failed before srun's launch reached it would fail the step
    instead (in Slurm too), and a requeue before the tasks run would find no step to cancel."""
    out = lab.work_dir("alice") / "requeue-%j.out"
    job_id = lab.sbatch(*args, "-o", str(out), "--wrap", f"echo start $SLURM_RESTART_COUNT; srun sleep {seconds}",
                        user="alice")
    wait_for(lambda: len(_sleeping(seconds)) == tasks, timeout=60)
    return job_id, Path(str(out).replace("%j", str(job_id)))


def _sleeping(seconds: int) -> list[int]:
    """The processes running `sleep <seconds>`."""
    wanted, found = f"sleep\0{seconds}\0".encode(), []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes() == wanted:
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


def show_job(lab: Cluster, job_id: int) -> dict[str, str]:
    text = lab.run("scontrol", "show", "job", str(job_id)).stdout
    return dict(re.findall(r"(\w+)=(\S*)", text))


def assert_requeued(lab: Cluster, job_id: int) -> None:
    """As Slurm's after a requeue: PENDING (BeginTime), Restarts=1, eligible 121 s after its new submit time."""
    try:
        lab.wait_state(job_id, "PENDING", timeout=60)
    except AssertionError as timed_out:
        state = lab.run("squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%T %r %N")
        nodes = lab.run("sinfo", "-h", "-N", "-o", "%N %t").stdout
        raise AssertionError(f"job {job_id}: {state}; nodes {nodes}; controller log:\n"
                             f"{controller_log(lab, job_id)}") from timed_out
    shown = show_job(lab, job_id)
    assert (shown["JobState"], shown["Reason"], shown["Restarts"], shown["Requeue"], shown["ExitCode"]) == (
        "PENDING", "BeginTime", "1", "1", "0:0")
    submit, eligible = (datetime.fromisoformat(shown[key]) for key in ("SubmitTime", "EligibleTime"))
    # Eligible 121 s after the requeue, submitted at it, or a second later when that is the second
    # the job was first submitted in (as Slurm's, for a record of its own).
    assert (eligible - submit).total_seconds() in (REQUEUE_DELAY, REQUEUE_DELAY - 1)
    assert lab.job_field(job_id, "r") == "BeginTime"
    # Plain sacct: the current (pending) record only.
    wait_for(lambda: lab.run("sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", "State").stdout.split() == ["PENDING"])


def cancel_and_settle(lab: Cluster, job_id: int) -> None:
    lab.run("scancel", str(job_id), check=True)
    lab.wait_idle()


def test_kill_9_of_a_second_nodes_agent_requeues_the_job(lab: Cluster) -> None:
    job_id, out = start_srun_job(lab, 3201, 2, "-N", "2")
    lab.stop("node2", signal.SIGKILL)
    try:
        assert_requeued(lab, job_id)
        expected = oracle_rows("kill_other_node.txt", "after-fail+5")
        assert expected == [("", "NODE_FAIL", "0:0"), (".batch", "CANCELLED", "0:15"), (".0", "CANCELLED", "0:15"),
                            ("", "PENDING", "0:0")]
        assert_rows(lab, job_id, [row for row in expected if job_level(row)])
        assert re.search(rf"\*\*\* (JOB {job_id}|STEP {job_id}.0) ON node1 CANCELLED AT \S+ DUE TO NODE FAILURE, SEE SLURMCTLD LOG "
                         r"FOR DETAILS \*\*\*", out.read_text())
        assert "node2" in lab.run("sinfo", "-h", "-t", "down", "-N", "-o", "%N").stdout
    finally:
        lab.start("node2")      # the agent that comes back kills what the killed one left running
    cancel_and_settle(lab, job_id)


def test_kill_9_of_the_batch_hosts_agent_requeues_the_job(lab: Cluster) -> None:
    job_id, _ = start_srun_job(lab, 3202, 2, "-N", "2")
    lab.stop("node1", signal.SIGKILL)
    try:
        assert_requeued(lab, job_id)
        expected = [row for row in oracle_rows("batch_host_down_and_requeue.txt", "B-after-fail") if job_level(row)]
        assert expected == [("", "NODE_FAIL", "0:0"), ("", "PENDING", "0:0")]
        assert_rows(lab, job_id, expected)
    finally:
        lab.start("node1")
    cancel_and_settle(lab, job_id)


def test_a_node_set_down_requeues_the_job_and_no_requeue_ends_it_node_fail(lab: Cluster) -> None:
    job_id, out = start_srun_job(lab, 3203, 2, "-N", "2")
    lab.run("scontrol", "update", "nodename=node2", "state=down", "reason=fan", check=True)
    try:
        assert_requeued(lab, job_id)
        expected = [row for row in oracle_rows("batch_host_down_and_requeue.txt", "C-down-n2") if job_level(row)]
        assert expected == [("", "NODE_FAIL", "0:0"), ("", "PENDING", "0:0")]
        assert_rows(lab, job_id, expected)
        # Banners from the first node only (a step of two nodes writes one line), as Slurm's.
        assert set(re.findall(r"\*\*\* (?:JOB|STEP) \S+ ON (\S+) CANCELLED AT", out.read_text())) == {"node1"}
    finally:
        lab.run("scontrol", "update", "nodename=node2", "state=resume", check=True)
    cancel_and_settle(lab, job_id)

    kept, _ = start_srun_job(lab, 3204, 2, "-N", "2", "--no-requeue")
    lab.run("scontrol", "update", "nodename=node2", "state=down", "reason=fan", check=True)
    try:
        lab.wait_state(kept, "NODE_FAIL", timeout=60)
        shown = show_job(lab, kept)
        assert (shown["Reason"], shown["Restarts"], shown["Requeue"]) == ("NodeDown", "0", "0")
        # As the oracle's F: the record is 0:0, whatever the script's status (scontrol shows that).
        expected = [row for row in oracle_rows("batch_host_down_and_requeue.txt", "F-norequeue-after-fail")
                    if job_level(row)]
        assert expected == [("", "NODE_FAIL", "0:0")]
        assert_rows(lab, kept, expected)
    finally:
        lab.run("scontrol", "update", "nodename=node2", "state=resume", check=True)
    lab.wait_idle()


def test_job_requeue_0_makes_only_requeue_jobs_requeueable(lab: Cluster) -> None:
    conf = lab.spec.slurm_conf
    original = conf.read_text()
    conf.write_text(original + "JobRequeue=0\n")
    try:
        lab.run("scontrol", "reconfigure", check=True)
        plain, _ = start_srun_job(lab, 3205, 1, "-w", "node2")
        asked, _ = start_srun_job(lab, 3206, 1, "-w", "node1", "--requeue")
        assert show_job(lab, plain)["Requeue"] == "0" and show_job(lab, asked)["Requeue"] == "1"
        lab.run("scontrol", "update", "nodename=node[1-2]", "state=down", "reason=power", check=True)
        try:
            lab.wait_state(plain, "NODE_FAIL", timeout=60)
            assert_requeued(lab, asked)
        finally:
            lab.run("scontrol", "update", "nodename=node[1-2]", "state=resume", check=True)
    finally:
        conf.write_text(original)
        lab.run("scontrol", "reconfigure", check=True)
    cancel_and_settle(lab, asked)


def test_scontrol_requeue_of_a_running_job_and_of_a_pending_one(lab: Cluster) -> None:
    job_id, out = start_srun_job(lab, 3207, 1, "-N", "1")
    lab.run("scontrol", "requeue", str(job_id), user="alice", check=True)
    assert_requeued(lab, job_id)
    expected = oracle_rows("batch_host_down_and_requeue.txt", "D-requeue")
    assert expected == [("", "REQUEUED", "0:0"), (".batch", "CANCELLED", "0:15"), (".0", "CANCELLED", "0:15"),
                        ("", "PENDING", "0:0")]
    assert_rows(lab, job_id, [row for row in expected if job_level(row)])
    # The script's or its step's banner, in Slurm's words (which of them is written is the race
    # the module's docstring describes: a single-node srun step often ends before it is told).
    assert re.search(rf"\*\*\* (JOB {job_id}|STEP {job_id}.0) ON node1 CANCELLED AT \S+ DUE TO JOB REQUEUE \*\*\*",
                     out.read_text()), controller_log(lab, job_id)
    # A pending job, held or not, is refused as Slurm refuses it (batch_host_down_and_requeue.txt, E).
    for command in ("requeuehold", "requeue", "hold-then-requeuehold"):
        if command.startswith("hold-"):
            lab.run("scontrol", "hold", str(job_id), user="alice", check=True)
            command = "requeuehold"
        refused = lab.run("scontrol", command, str(job_id), user="alice")
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            1, "", f"Job is pending execution for job {job_id}\n")
    unknown = lab.run("scontrol", "requeuehold", "99999", user="alice")
    assert (unknown.returncode, unknown.stderr) == (1, "Invalid job id specified for job 99999\n")
    cancel_and_settle(lab, job_id)
