"""Job notices: which changes of a real ClusterState's jobs call for which mails (job_notices.py),
with Slurm 22.05's subjects and MailProg environment (job_mail.py) and a body that carries the
efficiency report."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from pyslurm_common import mail_types
from pyslurm_ctld.translate import job_mail
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.events import Account, BatchFinished, Effect, JobRequeued
from pyslurm_ctld.model.job import GpuUsage, Hold, Job, JobId, JobRequest, StepUsage
from pyslurm_ctld.shell.job_notices import JobNotices
from pyslurm_ctld.shell.notifier import Notice

from test_job_arrays import submit_array
from tests.builders import RAW, finish, make_manager, schedule, submit


def _notices(mgr: ClusterState, watcher: JobNotices, effects: list[Effect], now: int) -> list[Notice]:
    found = []
    for effect in effects:
        if isinstance(effect, Account):
            found += watcher.observe(effect.job, mgr.jobs, now)
    return found


def _job(request: JobRequest) -> Job:
    return Job(JobId(1), request, 1000, 1000, "alice", "alice", 0)


def _started(tmp_path: Path, now: int = 200, **request: Any) -> tuple[ClusterState, JobNotices, Job, list[Notice]]:
    mgr = make_manager(tmp_path)
    watcher = JobNotices("lab")
    job = submit(mgr, now=now - 101, **request)
    watcher.baseline(mgr.jobs.values())
    began = _notices(mgr, watcher, schedule(mgr, now), now)
    return mgr, watcher, mgr.jobs[job.job_id], began


def test_the_kinds_a_job_asked_for() -> None:
    job = dataclasses.replace(RAW, mail_type="END,TIME_LIMIT_80")
    assert job_mail.wanted(_job(job)) == {"END", "TIME_LIMIT_80"}
    assert job_mail.wanted(_job(dataclasses.replace(RAW, mail_type="all"))) == frozenset(mail_types.ALL)
    assert job_mail.wanted(_job(RAW)) == frozenset()


def test_begin_and_end_mails_carry_slurms_subjects_and_a_useful_body(tmp_path: Path) -> None:
    mgr, watcher, job, began = _started(tmp_path, mail_type="BEGIN,END", mail_user="alice@lab.example",
                                        name="train")
    [begin] = began
    assert begin.subject == f"Slurm Job_id={job.job_id} Name=train Began, Queued time 00:01:41"
    assert (begin.kind, begin.recipient, begin.user) == ("BEGIN", "alice@lab.example", "alice")
    assert begin.environment["SLURM_JOB_MAIL_TYPE"] == "Began"
    assert begin.environment["SLURM_JOB_QUEUED_TIME"] == "00:01:41"
    assert begin.body == f"Output: /home/alice/slurm-{job.job_id}.out\n"
    [end] = _notices(mgr, watcher, finish(mgr, job.job_id, now=3865), 3865)
    assert end.subject == f"Slurm Job_id={job.job_id} Name=train Ended, Run time 01:01:05, COMPLETED, ExitCode 0"
    assert end.environment["SLURM_JOB_EXIT_CODE_MAX"] == "0" and end.environment["SLURM_JOB_STATE"] == "COMPLETED"
    lines = end.body.splitlines()
    assert lines[:4] == [f"Job ID: {job.job_id}", "Cluster: lab", "User/Group: alice/alice",
                         "State: COMPLETED (exit code 0)"]
    assert "Job Wall-clock time: 01:01:05" in lines
    assert lines[-2:] == ["Exit code: 0:0", f"Output: /home/alice/slurm-{job.job_id}.out"]


def test_a_failed_job_mails_fail_but_end_alone_stays_quiet(tmp_path: Path) -> None:
    mgr, watcher, job, began = _started(tmp_path, mail_type="END")
    assert began == [] and _notices(mgr, watcher, finish(mgr, job.job_id, exit_code=3), 300) == []
    (tmp_path / "2").mkdir()
    mgr, watcher, job, _ = _started(tmp_path / "2", mail_type="FAIL,END")
    [fail] = _notices(mgr, watcher, finish(mgr, job.job_id, exit_code=3), 300)
    assert fail.subject == f"Slurm Job_id={job.job_id} Name=job Failed, Run time 00:01:40, FAILED, ExitCode 3"


def test_no_mail_type_no_notice(tmp_path: Path) -> None:
    mgr, watcher, job, began = _started(tmp_path)
    assert began == [] and _notices(mgr, watcher, finish(mgr, job.job_id), 300) == []


def test_a_requeue_mails_requeue(tmp_path: Path) -> None:
    mgr, watcher, job, _ = _started(tmp_path, mail_type="REQUEUE,END")
    effects = apply(mgr, JobRequeued(job.job_id, Hold.NONE, "", "", 260))
    [requeued] = _notices(mgr, watcher, effects, 260)
    assert requeued.subject == f"Slurm Job_id={job.job_id} Name=job Requeued, Run time 00:01:00"


def test_time_limit_warnings_are_sent_once_each(tmp_path: Path) -> None:
    mgr, watcher, job, _ = _started(tmp_path, mail_type="TIME_LIMIT_50,TIME_LIMIT_80,TIME_LIMIT", time_limit_min=10)
    assert watcher.periodic(mgr.jobs, 200 + 299) == []
    [half] = watcher.periodic(mgr.jobs, 200 + 300)
    assert half.subject == f"Slurm Job_id={job.job_id} Name=job Reached 50% of time limit, Run time 00:05:00"
    assert watcher.periodic(mgr.jobs, 200 + 301) == []
    late = watcher.periodic(mgr.jobs, 200 + 600)
    assert [n.kind for n in late] == ["TIME_LIMIT", "TIME_LIMIT_80"]
    assert late[0].subject.endswith("Reached time limit, Run time 00:10:00")


def test_an_array_mails_one_summary_when_its_last_task_ends(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    watcher = JobNotices("lab")
    array = submit_array(mgr, "1-2", now=100, mail_type="BEGIN,FAIL,END", name="sweep")
    watcher.baseline(mgr.jobs.values())
    began = _notices(mgr, watcher, schedule(mgr, 200), 200)
    assert [n.kind for n in began] == ["BEGIN"]   # the first task only
    assert began[0].subject.startswith(f"Slurm Array Task Job_id={array.job_id}_1 (")
    tasks = sorted((j for j in mgr.jobs.values() if j.array is not None), key=lambda j: j.job_id)
    assert _notices(mgr, watcher, finish(mgr, tasks[0].job_id, now=300, exit_code=0), 300) == []
    [summary] = _notices(mgr, watcher, finish(mgr, tasks[1].job_id, now=310, exit_code=2), 310)
    assert summary.subject == f"Slurm Array Summary Job_id={array.job_id}_* ({array.job_id}) Name=sweep Failed, " \
                              "Mixed, ExitCode [0-2]"


def test_per_task_mails_with_array_tasks(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    watcher = JobNotices("lab")
    array = submit_array(mgr, "1-2", now=100, mail_type="BEGIN,ARRAY_TASKS")
    watcher.baseline(mgr.jobs.values())
    assert len(_notices(mgr, watcher, schedule(mgr, 200), 200)) == 2


def test_the_end_mail_reports_the_gpus_of_the_job(tmp_path: Path) -> None:
    mgr, watcher, job, _ = _started(tmp_path, mail_type="END", gpus_per_node=1)
    step_usage = StepUsage(1024, 50_000_000, 0, "n2", (GpuUsage("n2", 0, 10, 12, 40, 2**30, 2**31),))
    effects = apply(mgr, BatchFinished(job.job_id, 0, 0, False, False, 300, usage=step_usage))
    [end] = _notices(mgr, watcher, effects, 300)
    assert "GPUs: 1" in end.body and "GPU n2:0: utilization mean 12%, peak 40%, memory peak 2.00 GB" in end.body


def test_a_restarted_controller_does_not_announce_the_past(tmp_path: Path) -> None:
    mgr, _, job, _ = _started(tmp_path, mail_type="BEGIN,END")
    fresh = JobNotices("lab")
    fresh.baseline(mgr.jobs.values())
    assert fresh.observe(mgr.jobs[job.job_id], mgr.jobs, 250) == []   # still RUNNING: no second BEGIN
    assert [n.kind for n in _notices(mgr, fresh, finish(mgr, job.job_id), 300)] == ["END"]


def test_a_dependency_that_can_never_be_satisfied_mails_invalid_dependency_once(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    watcher = JobNotices("lab")
    first = submit(mgr, now=100)
    event = submission(mgr, dataclasses.replace(RAW, mail_type="INVALID_DEPEND", name="after"), 1000, 1000, "alice",
                           "alice", False, 100, dependency=f"afterok:{first.job_id}")
    apply(mgr, event)
    watcher.baseline(mgr.jobs.values())
    schedule(mgr, 200)
    finish(mgr, first.job_id, now=250, exit_code=1)
    for later in schedule_pass(mgr, 260):   # the pass settles the dependency: it failed
        apply(mgr, later)
    [notice] = watcher.periodic(mgr.jobs, 270)
    assert notice.subject == f"Slurm Job_id={event.job.job_id} Name=after Invalid dependency"
    assert watcher.periodic(mgr.jobs, 280) == []


def test_one_line_makes_every_control_character_a_space() -> None:
    from pyslurm_ctld.translate.job_mail import one_line

    assert one_line("a\nb\r\nc\td\x00e\x7ff\x85g\u2028h\u2029i") == "a b  c d e f g h i"
    assert one_line("plain ü text") == "plain ü text"
