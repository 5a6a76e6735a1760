"""Turning job changes into notices: watches each job's accounting snapshots (every state
change makes one) and the clock, and says which notices are due (job_mail.py decides what a
change calls for and what the notice says; notifier.py sends them).

Remembers, in memory, each job's last state and run (restarts), the time-limit warnings sent
and the arrays summarised; `baseline` fills it from the recovered jobs after a restart, so what
happened before is not announced again (a time-limit or invalid-dependency notice may be, once).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from pyslurm_common.efficiency import StepFigures, report

from ..translate import convert, job_mail
from ..model.job import Job, JobId, JobState
from .notifier import Notice


class JobNotices:
    def __init__(self, cluster: str) -> None:
        self.cluster = cluster
        self._seen: dict[JobId, Job] = {}                        # each job's last snapshot
        self._sent_once: dict[tuple[JobId, int], set[str]] = {}  # (job, run) -> time/dependency notices sent
        self._arrays_begun: set[int] = set()                     # array job ids with a task started
        self._summarised: set[int] = set()                       # array job ids

    def baseline(self, jobs: Iterable[Job]) -> None:
        for job in jobs:
            self._seen[job.job_id] = job
            if job.array is not None and job.start_time:
                self._arrays_begun.add(job.array.array_job_id)

    def observe(self, job: Job, jobs: Mapping[JobId, Job], now: int) -> list[Notice]:
        """The notices the job's new snapshot calls for (its owner's --mail-type permitting). A
        job not seen before is new: a submission, or an array task split off its pending record."""
        before = self._seen.get(job.job_id)
        self._seen[job.job_id] = job
        asked = job_mail.wanted(job)
        if not asked:
            return []
        state, restarts = (before.state, before.restarts) if before else (JobState.PENDING, job.restarts)
        per_task = job.array is None or "ARRAY_TASKS" in asked
        notices = []
        if job.state is JobState.RUNNING and state is JobState.PENDING:
            first = job.array is None or job.array.array_job_id not in self._arrays_begun
            if job.array is not None:
                self._arrays_begun.add(job.array.array_job_id)
            if "BEGIN" in asked and (per_task or first):
                notices.append(self._notice(job, "BEGIN", now))
        if job.restarts > restarts and before is not None:   # the run that ended is the one before
            ended = dataclasses.replace(before, end_time=now)
            notices += [self._notice(ended, kind, now) for kind in job_mail.ended_kinds(ended, requeued=True)]
        elif job.state.is_finished and not state.is_finished:
            if per_task:
                notices += [self._notice(job, kind, now) for kind in job_mail.ended_kinds(job, requeued=False)]
            else:
                notices += self._array_summary(job, jobs, asked, now)
        return notices

    def periodic(self, jobs: Mapping[JobId, Job], now: int) -> list[Notice]:
        """What the clock makes due, each once per run: TIME_LIMIT_50/80/90 and TIME_LIMIT
        warnings, INVALID_DEPEND for a pending job whose dependency can never be satisfied. What
        is kept about purged jobs goes."""
        for gone in [job_id for job_id in self._seen if job_id not in jobs]:
            del self._seen[gone]
        self._sent_once = {key: sent for key, sent in self._sent_once.items() if key[0] in jobs}
        notices = []
        for job in jobs.values():
            sent = self._sent_once.get((job.job_id, job.restarts), set())
            due = job_mail.time_limit_kinds(job, now, sent)
            if "INVALID_DEPEND" not in sent and "INVALID_DEPEND" in job_mail.wanted(job) \
                    and job_mail.dependency_failed(job, now):
                due.append("INVALID_DEPEND")
            if due:
                self._sent_once[(job.job_id, job.restarts)] = sent | set(due)
                notices += [self._notice(job, kind, now) for kind in due]
        return notices

    def _array_summary(self, job: Job, jobs: Mapping[JobId, Job], asked: frozenset[str], now: int) -> list[Notice]:
        assert job.array is not None
        array_id = job.array.array_job_id
        tasks = [t for t in jobs.values() if t.array is not None and t.array.array_job_id == array_id]
        summary = job_mail.summarize(tasks) if array_id not in self._summarised else None
        if summary is None or any(t.array is not None and t.array.task_id is None for t in tasks):
            return []   # tasks still to start or end
        kind = job_mail.summary_kind(summary, asked)
        self._summarised.add(array_id)
        if kind is None:
            return []
        notice = self._notice(job, kind, now)
        return [Notice(job.job_id, kind, job.user_name, job_mail.summary_subject(summary, kind), notice.body,
                       notice.recipient, notice.environment)]

    def _notice(self, job: Job, kind: str, now: int) -> Notice:
        record = convert.job_record(job, self.cluster)
        steps = [StepFigures.of_step(s) for s in record.steps if s.end_time]
        lines = report(record.job, self.cluster, record.alloc_cpus, steps, now) if kind != "BEGIN" else []
        std_out, std_err, _ = convert.io_paths(job)
        return Notice(job.job_id, kind, job.user_name, job_mail.subject(job, kind, now),
                      job_mail.body(job, lines, std_out, std_err), job.request.mail_user or job.user_name,
                      job_mail.environment(job, kind, now))
