"""`scontrol top`'s decider: the listed pending jobs go first among their owner's jobs of the same
partition, account and QOS, by nice changes to those jobs; other users' jobs are untouched.
Refusals in Slurm 22.05's words (tests/data/slurm_job_errors/refusals.json holds two)."""
from __future__ import annotations

from pathlib import Path

from pyslurm_common.errors import Strerror
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.job_top import topping
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.events import JobPriorityChanged
from pyslurm_ctld.model.job import JobId
from tests.builders import ALICE, BOB, RAW, ROOT, error_of, make_manager, run_job, schedule, submit


def _priorities(mgr: ClusterState, ids: list[int]) -> list[int]:
    return [mgr.jobs[JobId(i)].priority for i in ids]


def test_the_listed_jobs_go_first_among_the_users_jobs_only(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first, second, third = (submit(mgr).job_id for _ in range(3))
    bobs = submit(mgr, uid=BOB).job_id
    elsewhere = submit(mgr, account="lab").job_id
    before = _priorities(mgr, [first, second, third, bobs, elsewhere])
    assert before[0] > before[1] > before[2]
    for event in topping(mgr, [str(third), str(second)], ALICE, False, True, 300):
        apply(mgr, event)
    after = _priorities(mgr, [first, second, third, bobs, elsewhere])
    assert after[2] > after[1] > after[0] and after[2] >= before[2]   # in the order listed
    assert after[3:] == before[3:]                 # another user's, another account's: untouched
    assert sum(after[:3]) == sum(before[:3])       # what the listed ones gained, the other gave


def test_priorities_move_as_slurm_moves_them(tmp_path: Path) -> None:
    """Real Slurm 22.05.8 (root; benchuser with enable_user_top the same): pending 39, 37, 36 (the
    last digits), `scontrol top` of the 37: 39 with nice -2, then 38 (nice 1), 35 (nice 1); of 44, 43,
    41, topping the 41: 44 (nice -3), 43, 41; of 48, 47, 44, `top <44>,<48>`: 48, 47, then 44."""
    mgr = make_manager(tmp_path)
    jobs = [submit(mgr).job_id for _ in range(3)]
    base = mgr.jobs[JobId(jobs[0])].priority
    for job_id, gap in zip(jobs, (0, 2, 3)):   # 39, 37, 36 as base, base-2, base-3
        apply(mgr, JobPriorityChanged(JobId(job_id), 0, gap - (base - mgr.jobs[JobId(job_id)].priority), 290))
    assert _priorities(mgr, jobs) == [base, base - 2, base - 3]
    nice = [mgr.jobs[JobId(i)].request.nice for i in jobs]
    for event in topping(mgr, [str(jobs[1])], ROOT, True, False, 300):
        apply(mgr, event)
    assert _priorities(mgr, jobs) == [base - 1, base, base - 4]
    # Its nice went down by its gain (below 0 if need be), the others' up by their losses.
    assert [mgr.jobs[JobId(i)].request.nice - n for i, n in zip(jobs, nice)] == [1, -2, 1]
    assert mgr.jobs[JobId(jobs[1])].request.nice < 0
    for event in topping(mgr, [str(jobs[2]), str(jobs[1])], ROOT, True, False, 310):
        apply(mgr, event)
    assert _priorities(mgr, jobs) == [base - 4, base - 1, base]   # in the order listed, the sum kept


def test_a_fixed_priority_listed_takes_the_top_and_nothing_from_the_others(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first, second = submit(mgr).job_id, submit(mgr).job_id
    apply(mgr, JobPriorityChanged(JobId(second), 100, 0, 290))
    before = mgr.jobs[JobId(first)].priority
    for event in topping(mgr, [str(second)], ROOT, True, False, 300):
        apply(mgr, event)
    assert _priorities(mgr, [first, second]) == [before, before]
    assert mgr.jobs[JobId(second)].admin_priority == before


def test_an_operator_tops_anyones_job_users_only_with_enable_user_top(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    older, newer = submit(mgr).job_id, submit(mgr).job_id
    assert error_of(topping, mgr, [str(newer)], ALICE, False, False, 300).strerror == Strerror.ACCESS_DENIED
    assert error_of(topping, mgr, [str(newer)], BOB, False, True, 300).strerror == Strerror.ACCESS_DENIED
    for event in topping(mgr, [str(newer)], ROOT, True, False, 300):
        apply(mgr, event)
    assert mgr.jobs[JobId(newer)].priority > mgr.jobs[JobId(older)].priority


def test_refusals_in_slurms_words(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    running, held, pending = run_job(mgr).job_id, submit(mgr, hold=True).job_id, submit(mgr).job_id
    assert error_of(topping, mgr, ["999999"], ROOT, True, False, 300).strerror == Strerror.INVALID_JOB_ID
    assert error_of(topping, mgr, [str(pending), "999999"], ROOT, True, False, 300).strerror == Strerror.INVALID_JOB_ID
    assert error_of(topping, mgr, [str(running)], ROOT, True, False, 300).strerror == Strerror.NOT_PENDING
    assert error_of(topping, mgr, [str(held)], ROOT, True, False, 300).strerror == Strerror.JOB_HELD
    assert error_of(topping, mgr, [], ROOT, True, False, 300).strerror == Strerror.INVALID_JOB_ID
    # One pending job among them is enough: the others are left out.
    assert topping(mgr, [str(running), str(held), str(pending)], ROOT, True, False, 300) == []


def test_array_tasks_are_named_as_slurm_reads_them(tmp_path: Path) -> None:
    # `12_3`: the task's own record once it started, the array's pending remainder while the task
    # waits in it (topping that moves the remainder); `12_*` is the array's record, as `12`.
    mgr = make_manager(tmp_path)
    earlier = submit(mgr).job_id
    event = submission(mgr, RAW, ALICE, ALICE, "alice", "alice", False, 100, array="0-3")
    apply(mgr, event)
    array = event.job.job_id
    assert mgr.jobs[earlier].priority > mgr.jobs[array].priority
    for named in (f"{array}_2", f"{array}_*"):
        assert error_of(topping, mgr, [named], BOB, False, True, 300).strerror == Strerror.ACCESS_DENIED
    for event in topping(mgr, [f"{array}_2"], ALICE, False, True, 300):
        apply(mgr, event)
    assert mgr.jobs[array].priority > mgr.jobs[earlier].priority
    for unnamed in (f"{array}_9", f"{array}_[1-2]", f"{array}_[2]", f"{earlier}_0", f"{array}_x", "0_1"):
        assert error_of(topping, mgr, [unnamed], ROOT, True, False, 300).strerror == Strerror.INVALID_JOB_ID
    schedule(mgr, 400)
    started = mgr.array_tasks[array]
    assert started, "no task of the array started"
    task, record = next(iter(started.items()))
    assert error_of(topping, mgr, [f"{array}_{task}"], ROOT, True, False, 300).strerror == Strerror.NOT_PENDING
    assert mgr.jobs[record].state.value == "RUNNING"
