"""Job arrays (spec scheduling-policy.md §7, cli-sbatch-srun-salloc.md §2.5, squeue/scancel specs).

The array is one pending record (its master) until tasks start; each task is split off under a
new job id, lowest index first, and the master itself runs last as the highest index.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ALICE, BOB, RAW, ROOT, USERS, error_of, finish, make_manager, schedule

from cli import sacct_fields, scontrol_show, squeue_format
from pyslurm_common.array_spec import JobSpec, format_ranges, parse_array_spec, parse_job_spec
from pyslurm_common.errors import Strerror
from pyslurm_common.rpc import messages as pb
from pyslurm_ctld.translate import convert
from pyslurm_ctld.sched import scheduler
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.cancel import cancellations
from pyslurm_ctld.core.job_updates import hold_change, throttle_change
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.events import Account, ArrayTasksCancelled, Launch
from pyslurm_ctld.model.job import Job, JobId, JobState, Reason
from pyslurm_ctld.translate.job_env import batch_environment


def submit_array(mgr: ClusterState, array: str, uid: int = ALICE, now: int = 100, **request: Any) -> Job:
    event = submission(mgr, dataclasses.replace(RAW, **request), uid, uid, USERS[uid], USERS[uid], False, now,
                           array=array)
    apply(mgr, event)
    return mgr.jobs[event.job.job_id]


def tasks_of(mgr: ClusterState, array_id: int) -> dict[int, Job]:
    """Started (split-off) records of the array by task index."""
    return {j.array.task_id: j for j in mgr.jobs.values()
            if j.array is not None and j.array.array_job_id == array_id and j.array.task_id is not None}


# ---- the index syntax --------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "indices", "throttle"), [
    ("0-3", (0, 1, 2, 3), 0),
    ("0-15:4", (0, 4, 8, 12), 0),
    ("1-7:2", (1, 3, 5, 7), 0),
    ("0,6,16-18", (0, 6, 16, 17, 18), 0),
    ("5", (5,), 0),
    ("1-10%4", tuple(range(1, 11)), 4),
    ("3,1,2,3", (1, 2, 3), 0),
])
def test_array_spec_syntax(text: str, indices: tuple[int, ...], throttle: int) -> None:
    spec = parse_array_spec(text)
    assert (spec.indices, spec.throttle) == (indices, throttle)


@pytest.mark.parametrize("text", ["", "a", "1-", "-3", "5-2", "1-5:0", "1-5%", "1-5%x", "1,,2", "1.5"])
def test_bad_array_specs_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_array_spec(text)


def test_ranges_are_printed_as_runs() -> None:
    assert format_ranges([1, 2, 3, 5, 7, 8]) == "1-3,5,7-8"
    assert format_ranges([4]) == "4"
    assert format_ranges([]) == ""


@pytest.mark.parametrize(("text", "spec"), [
    ("123", JobSpec(123)), ("123_*", JobSpec(123)), ("123_5", JobSpec(123, (5,))),
    ("123_[1-3]", JobSpec(123, (1, 2, 3))), ("123_[1,3,5-7]", JobSpec(123, (1, 3, 5, 6, 7))),
])
def test_job_id_forms(text: str, spec: JobSpec) -> None:
    assert parse_job_spec(text) == spec


@pytest.mark.parametrize("text", ["abc", "123_", "123_x", "_5", "123_[", "123.0"])
def test_bad_job_id_forms(text: str) -> None:
    with pytest.raises(ValueError):
        parse_job_spec(text)


# ---- submission --------------------------------------------------------------------------------


def test_an_array_is_one_pending_record(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit_array(mgr, "1-7:2%3")
    assert list(mgr.jobs) == [job.job_id]
    assert job.array is not None
    assert (job.array.array_job_id, job.array.task_id, job.array.pending, job.array.throttle) == (
        job.job_id, None, (1, 3, 5, 7), 3)
    assert (job.array.task_count, job.array.task_min, job.array.task_max, job.array.task_step) == (4, 1, 7, 2)


@pytest.mark.parametrize(("extra", "array"), [
    ("", "0-1001"),                                  # MaxArraySize default 1001: indices 0..1000
    ("MaxArraySize=10\n", "10"),
    ("SchedulerParameters=max_array_tasks=3\n", "1-4"),
    ("", "x-y"),
])
def test_arrays_over_the_limits_are_refused(tmp_path: Path, extra: str, array: str) -> None:
    mgr = make_manager(tmp_path, extra)
    assert error_of(submit_array, mgr, array).strerror == Strerror.INVALID_ARRAY == "Invalid job array specification"


def test_max_array_size_allows_the_highest_index(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, "MaxArraySize=10\n")
    assert submit_array(mgr, "0-9").array.pending[-1] == 9   # type: ignore[union-attr]


def test_each_pending_task_counts_against_max_job_count(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, "MaxJobCount=5\n")
    submit_array(mgr, "1-4")
    assert error_of(submit_array, mgr, "1-2").strerror == Strerror.TOO_MANY_JOBS
    submit_array(mgr, "1")


# ---- scheduling --------------------------------------------------------------------------------


def test_tasks_split_off_lowest_first_and_the_master_runs_last(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)          # 12 CPUs: three 4-CPU tasks at a time
    master = submit_array(mgr, "1-5", cpus_per_task=4)
    effects = schedule(mgr, now=200)
    running = tasks_of(mgr, master.job_id)
    assert sorted(running) == [1, 2, 3]
    assert [running[t].job_id for t in (1, 2, 3)] == [master.job_id + 1, master.job_id + 2, master.job_id + 3]
    assert {e.job.job_id for e in effects if isinstance(e, Launch)} == {j.job_id for j in running.values()}
    remainders = [e.job.array.pending for e in effects if isinstance(e, Account) and e.job.job_id == master.job_id]
    assert remainders[-1] == (4, 5)   # accounting follows the remainder
    pending = mgr.jobs[master.job_id]
    assert pending.state is JobState.PENDING and pending.array.pending == (4, 5)   # type: ignore[union-attr]
    assert pending.reason is Reason.RESOURCES
    for task in running.values():
        finish(mgr, task.job_id, now=250)
    schedule(mgr, now=260)
    assert mgr.jobs[master.job_id].state is JobState.RUNNING
    assert mgr.jobs[master.job_id].array.task_id == 5            # type: ignore[union-attr]
    assert tasks_of(mgr, master.job_id)[4].job_id == master.job_id + 4


def test_throttle_limits_running_tasks(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    master = submit_array(mgr, "0-9%2")
    schedule(mgr)
    assert sorted(tasks_of(mgr, master.job_id)) == [0, 1]
    assert mgr.jobs[master.job_id].reason is Reason.ARRAY_TASK_LIMIT
    finish(mgr, tasks_of(mgr, master.job_id)[0].job_id)
    schedule(mgr, now=400)
    running = [t for t, j in tasks_of(mgr, master.job_id).items() if j.state is JobState.RUNNING]
    assert sorted(running) == [1, 2]


def test_a_throttled_array_does_not_block_the_jobs_behind_it(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    master = submit_array(mgr, "0-9%1", now=100)
    other = submit_array(mgr, "1", now=101)
    schedule(mgr)
    schedule(mgr, now=201)
    assert mgr.jobs[master.job_id].reason is Reason.ARRAY_TASK_LIMIT
    assert mgr.jobs[other.job_id].state is JobState.RUNNING


def test_a_pass_over_a_large_array_considers_one_record() -> None:
    """The scheduler never expands the pending remainder: its work is the tasks that start."""
    from test_scheduler import node, partition

    master = Job(JobId(7), dataclasses.replace(RAW, partition="p", time_limit_min=5), ALICE, ALICE, "alice",
                 "alice", 1, priority=10, array=parse_master(7, "1-500"))
    decisions = scheduler.schedule([master], {"a": node("a", 2), "b": node("b", 2)},
                                   {"p": partition("p", ("a", "b"))})
    starts = [d for d in decisions if isinstance(d, scheduler.Start)]
    assert [d.array_task_id for d in starts] == [1, 2, 3, 4]
    assert decisions[-1] == scheduler.Pend(JobId(7), Reason.RESOURCES)


def parse_master(job_id: int, text: str) -> Any:
    from pyslurm_ctld.core.admission import _array_info

    spec = parse_array_spec(text)
    return _array_info(JobId(job_id), spec.indices, spec.throttle)


# ---- cancelling ----------------------------------------------------------------------------------


def test_cancelling_the_array_id_cancels_every_task(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    master = submit_array(mgr, "1-20", cpus_per_task=4)
    schedule(mgr)
    for event in cancellations(mgr, JobSpec(master.job_id), ALICE, 300):
        apply(mgr, event)
    records = [j for j in mgr.jobs.values() if j.array and j.array.array_job_id == master.job_id]
    assert len(records) == 4 and all(j.state is JobState.CANCELLED for j in records)
    assert mgr.jobs[master.job_id].array.pending == tuple(range(4, 21))   # type: ignore[union-attr]


def test_cancelled_pending_tasks_leave_the_array_without_a_record(tmp_path: Path) -> None:
    """Slurm 22.05: after `scancel 128_7` on a pending array, `scontrol show job 128_7` says
    "Job 128_7 not found" and sacct lists only 128_[1-6,8-10]."""
    mgr = make_manager(tmp_path)
    master = submit_array(mgr, "1-6")
    apply(mgr, hold_change(mgr, master.job_id, "hold", ALICE, 101))
    events = cancellations(mgr, parse_job_spec(f"{master.job_id}_[2-3]"), ALICE, 150)
    assert events == [ArrayTasksCancelled(master.job_id, (2, 3), (), ALICE, 150, "JobHeldUser")]
    effects = apply(mgr, events[0])
    assert tasks_of(mgr, master.job_id) == {}
    assert [e.job.job_id for e in effects if isinstance(e, Account)] == [master.job_id]
    assert mgr.jobs[master.job_id].array.pending == (1, 4, 5, 6)   # type: ignore[union-attr]
    assert mgr.jobs[master.job_id].state is JobState.PENDING
    assert error_of(lambda: cancellations(mgr, parse_job_spec(f"{master.job_id}_2"), ALICE, 160)) \
        .strerror == Strerror.INVALID_JOB_ID


def test_cancelling_every_pending_task_cancels_the_master_as_the_bare_array_id(tmp_path: Path) -> None:
    """Slurm 22.05: `scancel 129_[2-3]; scancel 129_1 129_4` leaves one CANCELLED record, 129,
    its ArrayTaskId NO_VAL, squeue and sacct print `129`."""
    mgr = make_manager(tmp_path)
    master = submit_array(mgr, "1-4")
    apply(mgr, hold_change(mgr, master.job_id, "hold", ALICE, 101))
    for spec in (f"{master.job_id}_[2-3]", f"{master.job_id}_[1,4]"):
        for event in cancellations(mgr, parse_job_spec(spec), ALICE, 150):
            apply(mgr, event)
    assert tasks_of(mgr, master.job_id) == {}
    record = mgr.jobs[master.job_id]
    assert record.state is JobState.CANCELLED and record.array is not None and record.array.pending == ()
    info = convert.job_info(record)
    assert info.array_job_id == 0 and info.job_id == master.job_id


def test_one_running_task_is_cancelled_by_its_array_name(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    master = submit_array(mgr, "1-3")
    schedule(mgr)
    for event in cancellations(mgr, parse_job_spec(f"{master.job_id}_2"), ALICE, 300):
        apply(mgr, event)
    states = {t: j.state for t, j in tasks_of(mgr, master.job_id).items()}
    assert states == {1: JobState.RUNNING, 2: JobState.CANCELLED, 3: JobState.RUNNING}


def test_array_task_names_are_checked(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    master = submit_array(mgr, "1-3")
    plain = submit_array(mgr, "")
    assert plain.array is None
    assert error_of(cancellations, mgr, parse_job_spec(f"{master.job_id}_9"), ALICE, 1).strerror == Strerror.INVALID_JOB_ID
    assert error_of(cancellations, mgr, parse_job_spec(f"{plain.job_id}_1"), ALICE, 1).strerror == Strerror.INVALID_JOB_ID
    assert error_of(cancellations, mgr, parse_job_spec(f"{master.job_id}_1"), BOB, 1).strerror == Strerror.ACCESS_DENIED
    assert cancellations(mgr, parse_job_spec(f"{master.job_id}_1"), ROOT, 1)


# ---- what a task sees and how it is shown ----------------------------------------------------


def test_task_environment_and_default_output_names(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    desc = pb.JobDesc(array="4-8:2")
    raw = convert.request_from_desc(desc)
    assert raw.std_out == raw.std_err == "slurm-%A_%a.out"
    master = submit_array(mgr, "4-8:2", std_out=raw.std_out, std_err=raw.std_err,
                          environment=("SLURM_ARRAY_TASK_ID=99", "KEEP=1"))
    schedule(mgr)
    task = tasks_of(mgr, master.job_id)[6]
    env = batch_environment(task, "lab", "/etc/slurm.conf", "head", 6817)
    assert {k: v for k, v in env.items() if k.startswith("SLURM_ARRAY")} == {
        "SLURM_ARRAY_JOB_ID": str(master.job_id), "SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_COUNT": "3",
        "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_STEP": "2"}
    assert env["SLURM_JOB_ID"] == str(task.job_id)
    assert convert.io_paths(task)[0] == f"/home/alice/slurm-{master.job_id}_6.out"
    plain = submit_array(mgr, "")
    schedule(mgr)
    assert not [k for k in batch_environment(mgr.jobs[plain.job_id], "lab", "c", "h", 1) if k.startswith("SLURM_ARRAY")]


def info(job_id: int, array_job_id: int = 0, task: str = "", remainder: bool = False, throttle: int = 0,
         state: str = "PENDING") -> pb.JobInfo:
    return pb.JobInfo(job_id=job_id, array_job_id=array_job_id, array_task_str=task, array_remainder=remainder,
                      array_throttle=throttle, state=state)


def test_squeue_array_ids() -> None:
    fmt = squeue_format.parse_format("%i|%A|%F|%K")
    rows = [info(123, 123, "5-100", True, 4), info(130, 123, "7", state="RUNNING"), info(140)]
    assert [squeue_format.job_line(fmt, j, 0) for j in rows] == [
        "123_[5-100%4]|123|123|5-100", "123_7|130|123|7", "140|140|140|N/A"]


def test_squeue_r_expands_the_pending_remainder_only() -> None:
    rows = [info(123, 123, "5-6,9", True), info(130, 123, "7", state="RUNNING"),
            info(123, 123, "1-3", True, state="CANCELLED")]
    from cli.job_lists import expand_array_tasks

    expanded = expand_array_tasks(rows)
    assert [squeue_format.job_id_text(j) for j in expanded] == ["123_5", "123_6", "123_9", "123_7", "123_[1-3]"]


def test_sacct_names_tasks_by_array_and_index() -> None:
    record = pb.JobRecord(job=info(130, 123, "7", state="COMPLETED"), steps=[pb.StepInfo(step_id="batch")])
    rows = sacct_fields.rows([record], now=0)
    assert [sacct_fields.FIELDS["JobID"].get(r) for r in rows] == ["123_7", "123_7.batch"]
    assert [sacct_fields.FIELDS["JobIDRaw"].get(r) for r in rows] == ["130", "130.batch"]
    remainder = sacct_fields.SacctRow(pb.JobRecord(job=info(123, 123, "8-9", True, state="CANCELLED")), None, 0)
    assert sacct_fields.FIELDS["JobID"].get(remainder) == "123_[8-9]"


def test_scontrol_shows_array_ids() -> None:
    lines = scontrol_show.job_lines(info(123, 123, "5-10", True, 2), 0)
    assert lines[0].startswith("JobId=123 ArrayJobId=123 ArrayTaskId=5-10 ArrayTaskThrottle=2 JobName=")
    lines = scontrol_show.job_lines(info(130, 123, "7", state="RUNNING"), 0)
    assert lines[0].startswith("JobId=130 ArrayJobId=123 ArrayTaskId=7 JobName=")


def test_job_lists_name_records_of_arrays() -> None:
    from cli.job_lists import names, parse_job_list

    specs = parse_job_list("12,13_[1,3],14_2.batch")
    assert specs == [JobSpec(12), JobSpec(13, (1, 3)), JobSpec(14, (2,))]
    with pytest.raises(ValueError, match="x_1"):
        parse_job_list("12,x_1")
    task, remainder, other = info(20, 13, "3", state="RUNNING"), info(13, 13, "4-9", True), info(12)
    assert [names(specs[1], j) for j in (task, remainder, other)] == [True, False, False]
    assert [names(JobSpec(13), j) for j in (task, remainder, other)] == [True, True, False]
    assert names(specs[0], other) and not names(specs[0], task)
    from cli.job_lists import named

    picked = named([task, remainder, other], [JobSpec(13, (3, 5))])
    assert [(j.job_id, j.array_task_str) for j in picked] == [(20, "3"), (13, "5")]
    assert named([task, other], [JobSpec(12)]) == [other]   # plain ids pick their jobs (squeue -j 12,14 loads all)
    assert named([task, other], []) == [task, other]          # no ids: as returned


def test_throttle_can_be_changed_by_the_owner(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    master = submit_array(mgr, "1-6%1")
    plain = submit_array(mgr, "")
    schedule(mgr)
    assert len(tasks_of(mgr, master.job_id)) == 1
    assert error_of(throttle_change, mgr, master.job_id, "3", BOB).strerror == Strerror.ACCESS_DENIED
    assert error_of(throttle_change, mgr, plain.job_id, "3", ALICE).strerror == Strerror.INVALID_ARGUMENT
    assert error_of(throttle_change, mgr, master.job_id, "x", ALICE).strerror == Strerror.INVALID_ARGUMENT
    apply(mgr, throttle_change(mgr, master.job_id, "3", ALICE))
    schedule(mgr, now=201)
    assert len(tasks_of(mgr, master.job_id)) == 3
    assert all(j.array.throttle == 3 for j in mgr.jobs.values() if j.array)   # type: ignore[union-attr]
