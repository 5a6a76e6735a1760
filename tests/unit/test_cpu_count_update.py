"""scontrol update jobid=N NumCPUs=: pending jobs of the owner (or an operator), spread evenly
over the tasks, refused when no node of the partition could hold it."""
from __future__ import annotations

from pathlib import Path

from tests.builders import ALICE, BOB, error_of, make_manager, run_job, schedule, submit

from pyslurm_common.errors import Strerror
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.job_updates import cpu_count_change, hold_change
from pyslurm_ctld.model.events import JobCpusChanged, event_from_dict, event_to_dict
from pyslurm_ctld.model.job import JobState


def test_owner_resizes_a_pending_job_and_it_starts_with_that_many_cpus(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, hold=True, num_tasks=2)
    event = cpu_count_change(mgr, job.job_id, ALICE, False, "6")
    assert event == JobCpusChanged(job.job_id, 3)
    assert event_from_dict(event_to_dict(event)) == event
    apply(mgr, event)
    assert mgr.jobs[job.job_id].request.total_cpus == 6
    apply(mgr, hold_change(mgr, job.job_id, "release", ALICE, now=150))
    schedule(mgr)
    started = mgr.jobs[job.job_id]
    assert started.state is JobState.RUNNING and started.allocation is not None
    assert started.allocation.total_cpus == 6


def test_refusals(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, hold=True, num_tasks=2)
    assert error_of(cpu_count_change, mgr, job.job_id, BOB, False, "2").strerror == Strerror.ACCESS_DENIED
    for text in ("0", "3", "x", "-2"):
        assert error_of(cpu_count_change, mgr, job.job_id, ALICE, False, text).strerror == Strerror.INVALID_CPU_COUNT
    assert error_of(cpu_count_change, mgr, job.job_id, ALICE, False, "64").strerror == Strerror.BAD_NODE_CONFIG
    running = run_job(mgr)
    assert error_of(cpu_count_change, mgr, running.job_id, ALICE, False, "1").strerror == Strerror.NOT_PENDING
    assert mgr.jobs[job.job_id].request.total_cpus == 2
