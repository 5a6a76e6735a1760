"""The cluster state's invariants (pyslurm_ctld/core/invariants.py), which tests/conftest.py
checks after every test: a consistent state has none broken, and each kind of damage is named."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from pyslurm_ctld.core.invariants import violations
from pyslurm_ctld.model.job import JobState
from tests.builders import make_manager, run_job, submit


def test_a_state_built_by_events_is_consistent(tmp_path: Path) -> None:
    state = make_manager(tmp_path)
    run_job(state, num_tasks=2)
    submit(state)
    assert violations(state) == []


def test_each_kind_of_damage_is_reported(tmp_path: Path) -> None:
    state = make_manager(tmp_path)
    first = run_job(state)
    second = run_job(state, now=210)
    pending = submit(state, now=220)
    originals = {job.job_id: job for job in (first, second, pending)}
    assert first.allocation is not None and second.allocation is not None
    try:
        state.jobs[second.job_id] = dataclasses.replace(second, allocation=first.allocation)
        state.jobs[pending.job_id] = dataclasses.replace(pending, allocation=first.allocation)
        state.jobs.active_count += 1
        problems = violations(state)
        node, cpu = first.allocation.nodes[0], first.allocation.cpus_on(0)[0]
        assert f"job={second.job_id} RUNNING: CPU {cpu} of {node} also held by job={first.job_id}" in problems
        assert f"job={pending.job_id} PENDING: pending and allocated" in problems
        assert "active job count 4, recomputed 3" in problems
        state.jobs[second.job_id] = dataclasses.replace(second, allocation=None)
        assert f"job={second.job_id} RUNNING: no allocation" in violations(state)
    finally:   # leave it consistent for the check after the test
        state.jobs.active_count -= 1
        for job in originals.values():
            state.jobs[job.job_id] = job
    assert violations(state) == [] and state.jobs[first.job_id].state is JobState.RUNNING
