"""scontrol update jobid=N Partition=: pending jobs of the owner (or an operator), each partition
checked as at submission, the change journaled and replayed."""
from __future__ import annotations

from pathlib import Path

from tests.builders import ALICE, BOB, error_of, make_manager, run_job, schedule, submit

from pyslurm_common.errors import Strerror
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.job_updates import hold_change, partition_change
from pyslurm_ctld.model.events import JobPartitionChanged, event_from_dict, event_to_dict
from pyslurm_ctld.model.job import JobId, JobState


def test_owner_moves_a_pending_job_and_it_runs_there(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, hold=True)
    event = partition_change(mgr, job.job_id, ALICE, False, "long")
    assert event == JobPartitionChanged(job.job_id, "long", ())
    assert event_from_dict(event_to_dict(event)) == event
    apply(mgr, event)
    assert mgr.jobs[job.job_id].request.partition == "long"
    apply(mgr, hold_change(mgr, job.job_id, "release", ALICE, now=150))
    schedule(mgr)
    moved = mgr.jobs[job.job_id]
    assert (moved.state, moved.allocation.nodes if moved.allocation else ()) == (JobState.RUNNING, ("n1",))


def test_several_partitions(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, hold=True)
    apply(mgr, partition_change(mgr, job.job_id, ALICE, False, "long,debug"))
    assert (mgr.jobs[job.job_id].request.partition, mgr.jobs[job.job_id].request.partitions) == \
        ("long", ("long", "debug"))


def test_refusals(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, hold=True)
    assert error_of(partition_change, mgr, job.job_id, BOB, False, "long").strerror == Strerror.ACCESS_DENIED
    assert error_of(partition_change, mgr, job.job_id, ALICE, False, "nope").strerror == Strerror.INVALID_PARTITION
    big = submit(mgr, hold=True, cpus_per_task=8)      # only n2 (debug) has 8 CPUs
    assert error_of(partition_change, mgr, big.job_id, ALICE, False, "long").strerror == Strerror.BAD_NODE_CONFIG
    running = run_job(mgr)
    assert error_of(partition_change, mgr, running.job_id, ALICE, False, "long").strerror == Strerror.NOT_PENDING
    assert error_of(partition_change, mgr, 999, ALICE, False, "long").strerror == Strerror.INVALID_JOB_ID
    assert mgr.jobs[JobId(job.job_id)].request.partition == "debug"
