"""`scontrol explain job` text (pyslurm_ctld/rpc/explain.py), from the records a real ClusterState's
pass leaves: the pending reason, backfill's reservation and the job's request."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.usage import node_capacity, node_usage
from pyslurm_ctld.rpc.explain import NodeFree, explain
from pyslurm_ctld.model.job import Job, JobId

from tests.builders import ALICE, BOB, RAW, make_manager, run_job, schedule, submit


@pytest.fixture(autouse=True)
def _utc(utc: None) -> None:
    """Timestamps print in UTC here."""


def lines_of(mgr: ClusterState, job: Job, now: int = 300, dependency: str = "") -> list[str]:
    usage = node_usage(mgr)
    caps = [node_capacity(mgr, name, usage[name]) for name in mgr.nodes]
    free = {c.name: NodeFree(c.usable, c.free_cpus, c.free_memory_mb, len(c.free_gpus)) for c in caps}
    return explain(mgr.jobs[job.job_id], mgr.expected.get(job.job_id), mgr.jobs, mgr.partitions, free,
                   dependency, now)


def test_a_job_waiting_for_resources_names_the_nodes_the_jobs_and_its_expected_start(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)             # n1: 4 CPUs, n2: 8 CPUs; debug: MaxTime 60
    run_job(mgr, cpus_per_task=4, time_limit_min=30, now=200, name="a")
    big = run_job(mgr, cpus_per_task=8, time_limit_min=20, now=200, name="b")
    wide = submit(mgr, cpus_per_task=8, time_limit_min=30, name="wide")
    schedule(mgr, now=300)
    assert lines_of(mgr, wide) == [
        "Job 3 (wide, user alice) is PENDING, reason Resources.",
        "It asks for 1 node with 8 CPUs each, for a time limit of 00:30:00.",
        "It is the job of highest priority waiting for resources in its partition.",
        "It is expected to start 1970-01-01T00:24:00 (in 19:00) in partition debug on n2.",
        "It waits for resources that are busy now:",
        "  n2: needs 8 CPUs (0 free)",
        "Running jobs holding them, and their expected ends (start + time limit):",
        f"  job {big.job_id} (b, alice) ends 1970-01-01T00:23:20 (in 18:20)",
    ]


def test_a_job_behind_a_reservation_says_which_job_reserved_its_nodes_first(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    run_job(mgr, cpus_per_task=4, time_limit_min=30, now=200)
    run_job(mgr, cpus_per_task=8, time_limit_min=20, now=200)
    first = submit(mgr, cpus_per_task=8, time_limit_min=30, name="first")
    second = submit(mgr, cpus_per_task=8, time_limit_min=30, name="second", uid=BOB)
    schedule(mgr, now=300)
    text = lines_of(mgr, second)
    assert text[0] == "Job 4 (second, user bob) is PENDING, reason Priority."
    assert "It is expected to start 1970-01-01T00:54:00 (in 49:00) in partition debug on n2." in text
    assert text[-2:] == ["Jobs of higher priority reserved them first:",
                         f"  job {first.job_id} (first, alice) until 1970-01-01T00:54:00 (in 49:00)"]


def test_holds_begin_times_dependencies_and_partition_limits_are_said_plainly(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    held = submit(mgr, hold=True)
    later = submit(mgr, begin_time=5000)
    event = submission(mgr, dataclasses.replace(RAW, partition="debug"), ALICE, ALICE, "alice", "alice", False, 100,
                           dependency=f"afterok:{held.job_id}")
    apply(mgr, event)
    too_long = submit(mgr, time_limit_min=120)               # debug's MaxTime is 60
    schedule(mgr, now=300)
    assert lines_of(mgr, held)[2] == f"It is held by its user: `scontrol release {held.job_id}` lets it run."
    assert lines_of(mgr, later)[2] == "It may not start before 1970-01-01T01:23:20 (in 1:18:20) (--begin)."
    assert lines_of(mgr, event.job, dependency=f"afterok:{held.job_id}(unfulfilled)")[2] == \
        f"It waits for its dependency: afterok:{held.job_id}(unfulfilled)."
    assert lines_of(mgr, too_long)[0].endswith("reason PartitionTimeLimit.")
    assert lines_of(mgr, too_long)[2] == "Its time limit (02:00:00) is more than partition debug's MaxTime (01:00:00)."


def test_a_running_job_is_not_waiting(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = run_job(mgr)
    assert lines_of(mgr, job) == [f"Job {job.job_id} (job, user alice) is RUNNING on n1: it is not waiting."]
    assert JobId(job.job_id) in mgr.jobs
