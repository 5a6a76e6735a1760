"""Dependencies and begin times (cli-sbatch-srun-salloc.md §2.5, scheduling-policy.md §8, §9).

pyslurm_ctld/model/dependency.py (syntax, parts, outcomes) and how the core settles parts in
its scheduling pass, reports Dependency / DependencyNeverSatisfied / BeginTime, and cancels
jobs whose dependency failed when told to.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from test_job_arrays import submit_array, tasks_of
from tests.builders import ALICE, BOB, RAW, ROOT, USERS, error_of, finish, make_manager, schedule

from pyslurm_common.errors import Strerror
from pyslurm_ctld.translate import convert
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.job_updates import begin_change, dependency_change, hold_change
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.dependency import DepPart, DepType, Dependency, PartState, parse
from pyslurm_ctld.model.events import DependencyChanged, JobsPurged
from pyslurm_ctld.model.job import Job, JobState, Reason


def submit(mgr: ClusterState, dependency: str = "", now: int = 100, uid: int = ALICE, **request: Any) -> Job:
    event = submission(mgr, dataclasses.replace(RAW, **request), uid, uid, USERS[uid], USERS[uid], False, now,
                           dependency=dependency)
    apply(mgr, event)
    return mgr.jobs[event.job.job_id]


def state(mgr: ClusterState, job: Job) -> tuple[JobState, Reason]:
    current = mgr.jobs[job.job_id]
    return current.state, current.reason


# ---- syntax --------------------------------------------------------------------------------------


def test_parts_and_separators() -> None:
    dep = parse("afterok:12:13_2,after:14+5")
    assert not dep.any_of
    assert dep.parts == (DepPart(DepType.AFTEROK, 12), DepPart(DepType.AFTEROK, 13, 2),
                         DepPart(DepType.AFTER, 14, delay_min=5))
    assert parse("afterany:1?afternotok:2").any_of
    assert parse("singleton").parts == (DepPart(DepType.SINGLETON),)
    assert parse("15").parts == (DepPart(DepType.AFTERANY, 15),)        # no type: afterany


@pytest.mark.parametrize("text", ["", "afterok", "afterok:", "afterok:x", "before:1", "afterok:1,afterany:2?after:3",
                                  "afterok:1+5", "singleton:3", "afterok:1,,afterok:2"])
def test_bad_dependencies(text: str) -> None:
    with pytest.raises(ValueError):
        parse(text)


def test_outcome_and_remaining_text() -> None:
    ok, waiting, failed = (DepPart(DepType.AFTEROK, 1, state=PartState.FULFILLED), DepPart(DepType.AFTEROK, 2),
                           DepPart(DepType.AFTERNOTOK, 3, whole_array=True, state=PartState.FAILED))
    both = Dependency((ok, waiting))
    assert both.outcome(0, True) is PartState.UNFULFILLED
    assert both.remaining_text(0, True) == "afterok:2(unfulfilled)"
    assert Dependency((ok, failed)).outcome(0, True) is PartState.FAILED
    assert Dependency((waiting, failed), any_of=True).remaining_text(0, True) == \
        "afterok:2(unfulfilled)?afternotok:3_*(failed)"
    assert Dependency((ok, failed), any_of=True).outcome(0, True) is PartState.FULFILLED
    assert Dependency((failed,), any_of=True).outcome(0, True) is PartState.FAILED
    later = DepPart(DepType.AFTER, 4, delay_min=2, state=PartState.FULFILLED, ready_at=500)
    assert Dependency((later,)).outcome(499, True) is PartState.UNFULFILLED
    assert Dependency((later,)).outcome(500, True) is PartState.FULFILLED
    assert Dependency((DepPart(DepType.SINGLETON),)).remaining_text(0, False) == "singleton(unfulfilled)"


# ---- the core -----------------------------------------------------------------------------


def test_bad_syntax_is_a_dependency_problem(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    for text in ("afterok:x", "singleton:99", "afterok:1,afterok:2?afterok:3"):
        assert error_of(submit, mgr, text).strerror == Strerror.INVALID_DEPENDENCY == "Job dependency problem"


def test_a_job_not_known_is_a_dependency_already_met(tmp_path: Path) -> None:
    """Real Slurm 22.05.8 accepts these: `afterok:99999`, `afterany:99999`, `afterok:99999_3`, a task a
    job does not have (`afterok:<job>_3`, `afterok:<array 0-2>_99`) show Dependency=(null) and the job
    runs; `afterok:<held>:99999` shows `afterok:<held>(unfulfilled)`; `afterok:99999?afterany:<held>`
    is met."""
    mgr = make_manager(tmp_path)
    held = submit(mgr)
    apply(mgr, hold_change(mgr, held.job_id, "hold", ALICE, 101))
    array = submit_array(mgr, "0-2")
    free = [submit(mgr, text) for text in ("afterok:99999", "afterany:99999", "afterok:99999_3",
                                           f"afterok:{held.job_id}_3", f"afterok:{array.job_id}_99",
                                           f"afterok:99999?afterany:{held.job_id}")]
    waiting = submit(mgr, f"afterok:{held.job_id}:99999")
    assert [convert.job_info(mgr.jobs[job.job_id]).dependency for job in free] == [""] * 6
    assert convert.job_info(mgr.jobs[waiting.job_id]).dependency == f"afterok:{held.job_id}(unfulfilled)"
    schedule(mgr)
    assert [state(mgr, job)[0] for job in free] == [JobState.RUNNING] * 6
    assert state(mgr, waiting) == (JobState.PENDING, Reason.DEPENDENCY)


def test_afterok_waits_then_runs(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr, cpus_per_task=4)
    second = submit(mgr, f"afterok:{first.job_id}")
    schedule(mgr)
    assert state(mgr, first) == (JobState.RUNNING, Reason.NONE)
    assert state(mgr, second) == (JobState.PENDING, Reason.DEPENDENCY)
    assert convert.job_info(mgr.jobs[second.job_id]).dependency == f"afterok:{first.job_id}(unfulfilled)"
    finish(mgr, first.job_id, now=300)
    schedule(mgr, now=301)
    assert state(mgr, second)[0] is JobState.RUNNING


@pytest.mark.parametrize(("kind", "exit_code", "runs"), [
    ("afterok", 0, True), ("afterok", 1, False), ("afternotok", 1, True), ("afternotok", 0, False),
    ("afterany", 1, True), ("after", 1, True),
])
def test_dependency_types(tmp_path: Path, kind: str, exit_code: int, runs: bool) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr)
    second = submit(mgr, f"{kind}:{first.job_id}")
    schedule(mgr)
    finish(mgr, first.job_id, now=300, exit_code=exit_code)
    schedule(mgr, now=301)
    expected = (JobState.RUNNING, Reason.NONE) if runs else (JobState.PENDING, Reason.DEPENDENCY_NEVER_SATISFIED)
    assert state(mgr, second) == expected


def test_a_failed_part_stays_failed_and_is_shown(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr)
    second = submit(mgr, f"afterok:{first.job_id}")
    schedule(mgr)
    finish(mgr, first.job_id, now=300, exit_code=2)
    for event in schedule_pass(mgr, 301):
        apply(mgr, event)
    apply(mgr, JobsPurged((first.job_id,)))   # gone from memory: a settled failure does not lift
    schedule(mgr, now=400)
    assert state(mgr, second) == (JobState.PENDING, Reason.DEPENDENCY_NEVER_SATISFIED)
    assert convert.job_info(mgr.jobs[second.job_id]).dependency == f"afterok:{first.job_id}(failed)"


def test_a_purged_job_lifts_an_unsettled_dependency(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr)
    apply(mgr, hold_change(mgr, first.job_id, "hold", ALICE, 101))
    second = submit(mgr, f"afterany:{first.job_id}")
    apply(mgr, JobsPurged((first.job_id,)))
    schedule(mgr)
    assert state(mgr, second)[0] is JobState.RUNNING


@pytest.mark.parametrize(("extra", "flag"), [("DependencyParameters=kill_invalid_depend\n", False), ("", True)])
def test_kill_invalid_depend_cancels(tmp_path: Path, extra: str, flag: bool) -> None:
    mgr = make_manager(tmp_path, extra)
    first = submit(mgr)
    second = submit(mgr, f"afterok:{first.job_id}", kill_on_invalid_dep=flag)
    schedule(mgr)
    finish(mgr, first.job_id, now=300, exit_code=1)
    schedule(mgr, now=301)
    # As real Slurm 22.05.8 (--kill-on-invalid-dep=yes, afterok on a job that exited 1): scontrol
    # JobState=CANCELLED Reason=DependencyNeverSatisfied Dependency=afterok:<id>(failed); sacct
    # CANCELLED, no requester ("CANCELLED by 0" is a user's scancel).
    assert state(mgr, second) == (JobState.CANCELLED, Reason.DEPENDENCY_NEVER_SATISFIED)
    info = convert.job_info(mgr.jobs[second.job_id])
    assert (info.dependency, info.cancelled) == (f"afterok:{first.job_id}(failed)", False)
    # sacct (accounting's record): Start None, Reason Dependency, as Slurm records it.
    record = convert.job_record(mgr.jobs[second.job_id], "lab").job
    assert (record.start_time, record.reason, record.state) == (0, "Dependency", "CANCELLED")


def test_kill_invalid_depend_under_scheduler_parameters_is_not_acted_on(tmp_path: Path) -> None:
    """Real Slurm 22.05.8 with SchedulerParameters=kill_invalid_depend (its old place): the job stays
    PENDING, DependencyNeverSatisfied."""
    mgr = make_manager(tmp_path, "SchedulerParameters=kill_invalid_depend\n")
    first = submit(mgr)
    second = submit(mgr, f"afterok:{first.job_id}")
    schedule(mgr)
    finish(mgr, first.job_id, now=300, exit_code=1)
    schedule(mgr, now=301)
    assert state(mgr, second) == (JobState.PENDING, Reason.DEPENDENCY_NEVER_SATISFIED)


def test_or_needs_one_part(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    held = submit(mgr)
    apply(mgr, hold_change(mgr, held.job_id, "hold", ALICE, 101))
    quick = submit(mgr)
    either = submit(mgr, f"afterok:{held.job_id}?afterok:{quick.job_id}")
    schedule(mgr)
    assert state(mgr, either) == (JobState.PENDING, Reason.DEPENDENCY)
    finish(mgr, quick.job_id, now=300)
    schedule(mgr, now=301)
    assert state(mgr, either)[0] is JobState.RUNNING


def test_after_with_a_delay_counts_minutes_from_the_start(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr)
    second = submit(mgr, f"after:{first.job_id}+2")
    schedule(mgr, now=200)
    schedule(mgr, now=319)
    assert state(mgr, second) == (JobState.PENDING, Reason.DEPENDENCY)
    schedule(mgr, now=320)
    assert state(mgr, second)[0] is JobState.RUNNING


def test_singleton_runs_one_job_of_a_name_at_a_time_oldest_first(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr, "singleton", name="solo")
    second = submit(mgr, "singleton", name="solo")
    other_user = submit(mgr, "singleton", name="solo", uid=BOB)
    schedule(mgr)
    assert state(mgr, first)[0] is JobState.RUNNING
    assert state(mgr, second) == (JobState.PENDING, Reason.DEPENDENCY)
    assert convert.job_info(mgr.jobs[second.job_id]).dependency == "singleton(unfulfilled)"
    assert state(mgr, other_user)[0] is JobState.RUNNING
    finish(mgr, first.job_id, now=300)
    schedule(mgr, now=301)
    assert state(mgr, second)[0] is JobState.RUNNING


def test_array_dependencies_wait_for_every_task_or_one(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    array = submit_array(mgr, "1-3", cpus_per_task=4)
    on_all = submit(mgr, f"afterok:{array.job_id}")
    on_two = submit(mgr, f"afterany:{array.job_id}_2")
    assert mgr.jobs[on_all.job_id].dependency.parts[0].whole_array   # type: ignore[union-attr]
    schedule(mgr)
    tasks = tasks_of(mgr, array.job_id)
    finish(mgr, tasks[2].job_id, now=300)
    schedule(mgr, now=301)
    assert state(mgr, on_two)[0] is JobState.RUNNING
    assert state(mgr, on_all) == (JobState.PENDING, Reason.DEPENDENCY)
    assert convert.job_info(mgr.jobs[on_all.job_id]).dependency == f"afterok:{array.job_id}_*(unfulfilled)"
    for task in (1, 3):
        finish(mgr, tasks[task].job_id, now=310)
    schedule(mgr, now=311)
    assert state(mgr, on_all)[0] is JobState.RUNNING


def test_afterok_on_an_array_fails_when_one_task_fails(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    array = submit_array(mgr, "1-2")
    after = submit(mgr, f"afterok:{array.job_id}")
    schedule(mgr)
    tasks = tasks_of(mgr, array.job_id)
    finish(mgr, tasks[1].job_id, now=300, exit_code=1)
    finish(mgr, tasks[2].job_id, now=300)
    schedule(mgr, now=301)
    assert state(mgr, after) == (JobState.PENDING, Reason.DEPENDENCY_NEVER_SATISFIED)


def test_update_replaces_or_clears_a_dependency(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr)
    apply(mgr, hold_change(mgr, first.job_id, "hold", ALICE, 101))
    second = submit(mgr, f"afterok:{first.job_id}")
    assert error_of(dependency_change, mgr, second.job_id, "", BOB).strerror == Strerror.ACCESS_DENIED
    assert error_of(dependency_change, mgr, first.job_id, f"afterok:{second.job_id}", ALICE).strerror == \
        Strerror.CIRCULAR_DEPENDENCY
    assert error_of(dependency_change, mgr, second.job_id, "afterok:x", ALICE).strerror == Strerror.INVALID_DEPENDENCY
    event = dependency_change(mgr, second.job_id, "", ROOT)
    assert event == DependencyChanged(second.job_id, None)
    apply(mgr, event)
    schedule(mgr)
    assert state(mgr, second)[0] is JobState.RUNNING
    assert error_of(dependency_change, mgr, second.job_id, "", ALICE).strerror == Strerror.NOT_PENDING


def test_a_settlement_for_replaced_parts_is_ignored(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr)
    second = submit(mgr, f"afterany:{first.job_id}")
    stale = DependencyChanged(second.job_id, parse(f"afterok:{first.job_id}"), settled=True)
    apply(mgr, stale)
    assert mgr.jobs[second.job_id].dependency.parts[0].kind is DepType.AFTERANY   # type: ignore[union-attr]


def test_begin_time_holds_a_job_without_blocking_others(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    later = submit(mgr, begin_time=1000, cpus_per_task=4)
    assert mgr.jobs[later.job_id].eligible_time == 1000
    now_job = submit(mgr, cpus_per_task=4)
    schedule(mgr, now=200)
    assert state(mgr, later) == (JobState.PENDING, Reason.BEGIN_TIME)
    assert state(mgr, now_job)[0] is JobState.RUNNING
    schedule(mgr, now=1000)
    assert state(mgr, later)[0] is JobState.RUNNING


def test_singleton_also_waits_for_an_earlier_pending_job_of_the_name(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    blocker = submit(mgr)
    earlier = submit(mgr, f"afterany:{blocker.job_id}", name="solo")
    solo = submit(mgr, "singleton", name="solo")
    schedule(mgr)
    assert state(mgr, solo) == (JobState.PENDING, Reason.DEPENDENCY)
    finish(mgr, blocker.job_id, now=300)
    schedule(mgr, now=301)
    assert state(mgr, earlier)[0] is JobState.RUNNING
    assert state(mgr, solo) == (JobState.PENDING, Reason.DEPENDENCY)


def test_aftercorr_pairs_task_indices(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit_array(mgr, "1-3", cpus_per_task=2)
    schedule(mgr)
    paired = submit_array(mgr, "1-4", now=150)
    apply(mgr, dependency_change(mgr, paired.job_id, f"aftercorr:{first.job_id}", ALICE))
    schedule(mgr, now=201)
    # Task 4 has no counterpart: nothing to wait for. The others wait for theirs.
    assert sorted(tasks_of(mgr, paired.job_id)) == [4]
    firsts = tasks_of(mgr, first.job_id)
    finish(mgr, firsts[2].job_id, now=300)
    finish(mgr, firsts[1].job_id, now=300, exit_code=1)
    schedule(mgr, now=301)
    started = tasks_of(mgr, paired.job_id)
    assert sorted(started) == [2, 4]
    assert paired.job_id not in {j.job_id for j in started.values()}   # the master runs last
    finish(mgr, firsts[3].job_id, now=310)
    schedule(mgr, now=311)
    assert sorted(tasks_of(mgr, paired.job_id)) == [2, 3, 4]
    assert state(mgr, paired) == (JobState.PENDING, Reason.DEPENDENCY)   # until the pass after task 3's start
    schedule(mgr, now=312)
    # Task 1's pair failed, the only index left: never satisfied, as real Slurm 22.05.8 shows it
    # (DependencyNeverSatisfied, aftercorr:<first>_*(failed)).
    assert state(mgr, paired) == (JobState.PENDING, Reason.DEPENDENCY_NEVER_SATISFIED)
    assert mgr.jobs[paired.job_id].array.pending == (1,)                   # type: ignore[union-attr]
    assert convert.job_info(mgr.jobs[paired.job_id]).dependency == f"aftercorr:{first.job_id}_*(failed)"


def test_start_time_update_moves_the_begin_time(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    later = submit(mgr, begin_time=5000)
    schedule(mgr, now=200)
    assert state(mgr, later) == (JobState.PENDING, Reason.BEGIN_TIME)
    assert error_of(begin_change, mgr, later.job_id, 0, BOB).strerror == Strerror.ACCESS_DENIED
    apply(mgr, begin_change(mgr, later.job_id, 201, ALICE))
    assert mgr.jobs[later.job_id].eligible_time == 201
    schedule(mgr, now=201)
    assert state(mgr, later)[0] is JobState.RUNNING
    assert error_of(begin_change, mgr, later.job_id, 300, ALICE).strerror == Strerror.NOT_PENDING
