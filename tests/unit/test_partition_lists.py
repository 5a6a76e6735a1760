"""`-p a,b`: a job runs in whichever listed partition can start it first (scheduling-policy.md §2.1)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.builders import ALICE, CONF, RAW, USERS, error_of, make_manager, schedule
from test_scheduler import node, partition

from pyslurm_common.errors import Strerror
from pyslurm_ctld.translate import convert
from pyslurm_ctld.sched import scheduler
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.model.job import Job, JobId, JobState, Reason

# `small` has n1 only, `big` n2 only.
TWO_PARTS = CONF.replace("PartitionName=long Nodes=n1 DefaultTime=120\n",
                         "PartitionName=small Nodes=n1\nPartitionName=big Nodes=n2\n")


def pending(job_id: int, partitions: tuple[str, ...], cpus: int = 1) -> Job:
    request = dataclasses.replace(RAW, partition=partitions[0], partitions=partitions, cpus_per_task=cpus,
                                  time_limit_min=5)
    return Job(JobId(job_id), request, ALICE, ALICE, "alice", "alice", job_id, priority=100 - job_id)


def test_the_job_starts_in_the_first_partition_that_has_room() -> None:
    nodes = {"a": node("a", 4, free_cpus=0), "b": node("b", 4)}
    parts = {"pa": partition("pa", ("a",)), "pb": partition("pb", ("b",))}
    decisions = scheduler.schedule([pending(1, ("pa", "pb"))], nodes, parts)
    assert [(d.allocation.nodes, d.partition) for d in decisions if isinstance(d, scheduler.Start)] == [(("b",), "pb")]


def test_a_job_that_fits_nowhere_waits_for_resources_and_blocks_each_partition() -> None:
    nodes = {"a": node("a", 4, free_cpus=0), "b": node("b", 4, free_cpus=1)}
    parts = {"pa": partition("pa", ("a",)), "pb": partition("pb", ("b",))}
    decisions = scheduler.schedule([pending(1, ("pa", "pb"), cpus=2), pending(2, ("pb",))], nodes, parts)
    assert decisions == [scheduler.Pend(JobId(1), Reason.RESOURCES), scheduler.Pend(JobId(2), Reason.PRIORITY)]


def test_a_partition_that_can_never_run_it_is_skipped() -> None:
    nodes = {"a": node("a", 2), "b": node("b", 8)}
    parts = {"pa": partition("pa", ("a",)), "pb": partition("pb", ("b",))}
    decisions = scheduler.schedule([pending(1, ("pa", "pb"), cpus=4)], nodes, parts)
    assert [d.partition for d in decisions if isinstance(d, scheduler.Start)] == ["pb"]
    decisions = scheduler.schedule([pending(1, ("pa",), cpus=4)], nodes, parts)
    assert decisions == [scheduler.Pend(JobId(1), Reason.PARTITION_CONFIG)]


def test_submitted_to_two_partitions_runs_in_the_free_one(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=TWO_PARTS)
    filler = dataclasses.replace(RAW, partition="small", cpus_per_task=4)
    apply(mgr, submission(mgr, filler, ALICE, ALICE, "alice", "alice", False, 100))
    raw = dataclasses.replace(RAW, partition="small", partitions=("small", "big"))
    event = submission(mgr, raw, ALICE, ALICE, USERS[ALICE], USERS[ALICE], False, 101)
    assert event.job.request.partitions == ("small", "big")
    apply(mgr, event)
    assert convert.job_info(mgr.jobs[event.job.job_id]).partition == "small,big"
    schedule(mgr)
    job = mgr.jobs[event.job.job_id]
    assert job.state is JobState.RUNNING and job.request.partition == "big"
    assert job.allocation is not None and job.allocation.nodes == ("n2",)
    assert convert.job_info(job).partition == "big"


def test_every_listed_partition_must_exist(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, conf=TWO_PARTS)
    raw = dataclasses.replace(RAW, partition="small", partitions=("small", "nosuch"))
    error = error_of(submission, mgr, raw, ALICE, ALICE, "alice", "alice", False, 1)
    assert (error.strerror, error.detail) == (Strerror.INVALID_PARTITION, "invalid partition specified: nosuch")
