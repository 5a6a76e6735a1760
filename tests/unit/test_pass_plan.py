"""The scheduling pass as a returned plan (pyslurm_ctld/sched/pass_plan.py, core/scheduling.py): the
plan changes nothing in the state it was given; adopting it keeps the pending reasons and
backfill's expectations and holds the ids its array tasks take."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.scheduling import adopt, pass_snapshot
from pyslurm_ctld.model.events import ArrayTaskStarted, JobStarted
from pyslurm_ctld.model.job import JobState, Reason
from pyslurm_ctld.sched.pass_plan import plan
from tests.builders import ALICE, RAW, make_manager, submit


def test_the_plan_changes_nothing_until_it_is_adopted(tmp_path: Path) -> None:
    state = make_manager(tmp_path)
    big = submit(state, num_tasks=8)         # all of n2
    event = submission(state, dataclasses.replace(RAW), ALICE, ALICE, "alice", "alice", False, 100, array="0-3")
    apply(state, event)
    array = event.job                        # four one-CPU tasks: all of n1
    waiting = submit(state, num_tasks=4)     # nothing left
    records, next_id = dict(state.jobs), state.next_job_id

    decided = plan(pass_snapshot(state, 200))

    assert dict(state.jobs) == records and state.next_job_id == next_id
    assert [e.job_id for e in decided.events if isinstance(e, JobStarted)] == [big.job_id]
    tasks = [(e.task_id, e.job_id) for e in decided.events if isinstance(e, ArrayTaskStarted)]
    assert tasks == [(0, next_id), (1, next_id + 1), (2, next_id + 2), (3, array.job_id)]
    assert decided.next_job_id == next_id + 3
    assert decided.reasons == {waiting.job_id: Reason.RESOURCES}

    events = adopt(state, decided)
    assert events == list(decided.events) and state.jobs[waiting.job_id].reason is Reason.RESOURCES
    assert submit(state).job_id == next_id + 3   # a submission before the starts apply gets a later id
    for event in events:
        apply(state, event)
    assert {state.jobs[job_id].state for _, job_id in tasks} == {JobState.RUNNING}


def test_a_pass_with_nothing_waiting_reads_no_nodes_and_keeps_the_last_expectations(tmp_path: Path) -> None:
    state = make_manager(tmp_path)
    snapshot = pass_snapshot(state, 200)
    decided = plan(snapshot)
    assert snapshot.capacities == {} and decided.events == () and decided.expected is None
