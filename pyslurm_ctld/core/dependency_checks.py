"""Read-only questions about job dependencies, over the controller's jobs.

Whether a `--dependency` is valid (parses, no cycle back to the job; a job it names that is not
known is already satisfied, as Slurm accepts `afterok:<unknown id>`), and,
once per scheduling pass, which pending jobs their begin times and dependencies let start:
the events that settle dependency parts or cancel a job whose dependency can never be met,
the pending reasons, and the array indices an aftercorr dependency lets start. Changes
nothing: the core commits what it returns.
"""
from __future__ import annotations

import dataclasses
import operator
from typing import Iterable, Mapping

from pyslurm_common.errors import SlurmError, Strerror

from ..model import dependency as deps
from . import deadlines
from ..model.events import DependencyChanged, Event, JobCancelled, JobDeadlineMissed
from ..model.job import Job, JobId, JobState, Reason

_DEPENDENCY = operator.attrgetter("dependency")


class DependencyChecks:
    def __init__(self, jobs: Mapping[JobId, Job], array_tasks: Mapping[JobId, Mapping[int, JobId]],
                 kill_invalid_depend: bool) -> None:
        self.jobs = jobs
        self.array_tasks = array_tasks
        self.kill_invalid_depend = kill_invalid_depend

    def parsed(self, text: str, job_id: int | None = None) -> deps.Dependency:
        """`--dependency` parsed (Job dependency problem otherwise) and no cycle back to `job_id`
        (Circular job dependency). A part naming a job the controller does not know (never was, or
        purged), or a task it does not have, is fulfilled from the start: Slurm 22.05 accepts
        `afterok:99999`, `afterok:<job>_3` and `afterok:<array>_99` and shows no dependency."""
        try:
            parsed = deps.parse(text)
        except ValueError:
            raise SlurmError(Strerror.INVALID_DEPENDENCY) from None
        parts = []
        for part in parsed.parts:
            if part.kind is deps.DepType.SINGLETON:
                parts.append(part)
                continue
            target = self.jobs.get(JobId(part.job_id))
            if target is None or (part.task_id is not None and not self._has_task(target, part.task_id)):
                parts.append(dataclasses.replace(part, state=deps.PartState.FULFILLED))
                continue
            whole = part.task_id is None and target.array is not None and target.array.array_job_id == target.job_id
            parts.append(dataclasses.replace(part, whole_array=whole))
        if job_id is not None and self._reaches(parsed.targets(), job_id):
            raise SlurmError(Strerror.CIRCULAR_DEPENDENCY)
        return deps.Dependency(tuple(parts), parsed.any_of)

    def _has_task(self, master: Job, task_id: int) -> bool:
        array = master.array
        if array is None or array.array_job_id != master.job_id:
            return False
        return task_id in self.array_tasks.get(master.job_id, {}) or (array.is_remainder and task_id in array.pending)

    def _reaches(self, targets: Iterable[int], job_id: int) -> bool:
        """Whether following dependencies from `targets` leads back to `job_id`."""
        seen: set[int] = set()
        todo = list(targets)
        while todo:
            current = todo.pop()
            if current == job_id:
                return True
            if current in seen:
                continue
            seen.add(current)
            job = self.jobs.get(JobId(current))
            if job is not None and job.dependency is not None and job.state is JobState.PENDING:
                todo.extend(job.dependency.targets())
        return False

    def _view(self, part: deps.DepPart, views: dict[tuple[int, int | None], deps.TargetView]) -> deps.TargetView:
        """`_target_view`, computed once per pass for each job or task named."""
        key = (part.job_id, part.task_id)
        if key not in views:
            views[key] = self._target_view(part)
        return views[key]

    def _target_view(self, part: deps.DepPart) -> deps.TargetView:
        """The job(s) a dependency part names, as they stand now."""
        array_id = JobId(part.job_id)
        members = self.array_tasks.get(array_id, {})
        job = self.jobs.get(array_id)
        if part.task_id is not None:
            record = members.get(part.task_id)
            if record is not None and record in self.jobs:
                records = [self.jobs[record]]
            elif job is not None and job.array is not None and part.task_id in job.array.pending:
                records = [job]          # still pending in the master (or cancelled with it)
            else:
                records = []
        elif job is not None and (job.array is None or job.array.array_job_id != job.job_id):
            records = [job]
        else:   # an array: the master (while known) and every task split off it
            records = [self.jobs[r] for r in {*members.values(), array_id} if r in self.jobs]
        if not records:
            return deps.TargetView(exists=False, all_started=True, last_start=0, all_done=True, any_failed=False)
        finished = [r for r in records if r.state.is_finished]
        return deps.TargetView(
            exists=True,
            all_started=all(r.start_time > 0 for r in records),
            last_start=max(r.start_time for r in records),
            all_done=len(finished) == len(records) and not any(r.completing for r in records),
            any_failed=any(r.state is not JobState.COMPLETED or r.exit_code or r.exit_signal for r in finished),
        )

    def eligibility(self, pending: list[Job], active_names: set[tuple[int, str]],
                     now: int) -> tuple[list[Event], dict[JobId, Reason], dict[JobId, tuple[int, ...]]]:
        """Begin times and dependencies: the reasons pending jobs may not start yet, the array
        indices an aftercorr dependency lets start, and the events that settle dependency parts
        or cancel jobs whose dependency failed."""
        events: list[Event] = []
        ineligible: dict[JobId, Reason] = {}
        eligible_tasks: dict[JobId, tuple[int, ...]] = {}
        views: dict[tuple[int, int | None], deps.TargetView] = {}   # per pass: many jobs may name one array
        # singleton: free when no job of the same (user, name) runs and none submitted earlier pends.
        first_pending: dict[tuple[int, str], JobId] = {}
        if any(depends.has_singleton for depends in filter(None, map(_DEPENDENCY, pending))):   # C-level scan
            for job in pending:
                key = (job.uid, job.request.name)
                first_pending[key] = min(first_pending.get(key, job.job_id), job.job_id)
        for job in pending:
            depends = job.dependency
            if depends is not None:
                settled = depends.resolve(lambda part: self._part_outcome(job, part, views))
                key = (job.uid, job.request.name)
                free = key not in active_names and first_pending.get(key, job.job_id) == job.job_id
                rest, corr = settled.split_corr()
                if corr and job.array is not None and job.array.is_remainder and not settled.any_of:
                    states = self._corr_states(job.array.pending, corr, views)
                    eligible_tasks[job.job_id] = tuple(i for i, s in states.items() if s is deps.PartState.FULFILLED)
                    outcome = rest.outcome(now, singleton_free=free) if rest else deps.PartState.FULFILLED
                    if outcome is deps.PartState.FULFILLED and not eligible_tasks[job.job_id]:
                        outcome = deps.PartState.UNFULFILLED
                    if states and all(s is deps.PartState.FAILED for s in states.values()):
                        # Every index left waits on a counterpart that failed: never satisfied,
                        # shown `aftercorr:<id>_*(failed)` as Slurm does.
                        settled, outcome = settled.corr_failed(), deps.PartState.FAILED
                else:
                    outcome = settled.outcome(now, singleton_free=free)
                if settled != depends:
                    events.append(DependencyChanged(job.job_id, settled, settled=True))
                if outcome is deps.PartState.FAILED:
                    ineligible[job.job_id] = Reason.DEPENDENCY_NEVER_SATISFIED
                    if job.request.kill_on_invalid_dep or self.kill_invalid_depend:
                        # The controller's own cancel: Slurm records no requester (sacct CANCELLED).
                        events.append(JobCancelled(job.job_id, None, now,
                                                   reason=Reason.DEPENDENCY_NEVER_SATISFIED))
                elif outcome is deps.PartState.UNFULFILLED:
                    ineligible[job.job_id] = Reason.DEPENDENCY
            if job.request.begin_time > now:
                ineligible[job.job_id] = Reason.BEGIN_TIME
            if job.request.deadline and deadlines.missed(job, now):   # most jobs have none: no call   # never started: ended as DEADLINE (core/deadlines.py)
                ineligible[job.job_id] = Reason.DEADLINE
                events.append(JobDeadlineMissed(job.job_id, now))
        return events, ineligible, eligible_tasks

    def _part_outcome(self, job: Job, part: deps.DepPart,
                      views: dict[tuple[int, int | None], deps.TargetView]) -> tuple[deps.PartState, int]:
        """How `part` of `job`'s dependency stands. aftercorr pairs array task N with task N of
        the other array: a pending remainder decides it per index (`_corr_tasks`), a task by its
        own index; for a job outside arrays it is afterok."""
        if part.kind is deps.DepType.AFTERCORR and job.array is not None:
            if job.array.is_remainder:
                return deps.PartState.UNFULFILLED, 0
            part = dataclasses.replace(part, task_id=job.array.task_id, whole_array=False)
        return deps.part_outcome(part, self._view(part, views))

    def _corr_states(self, pending: tuple[int, ...], corr: tuple[deps.DepPart, ...],
                     views: dict[tuple[int, int | None], deps.TargetView]) -> dict[int, deps.PartState]:
        """Each pending index by its counterparts (the same index of each aftercorr array):
        fulfilled when all completed OK, failed when one did not, else unfulfilled."""
        def state(index: int, part: deps.DepPart) -> deps.PartState:
            paired = dataclasses.replace(part, task_id=index, whole_array=False)
            return deps.part_outcome(paired, self._view(paired, views))[0]

        return {i: deps.Dependency(tuple(dataclasses.replace(p, state=state(i, p)) for p in corr)).outcome(0, True)
                for i in pending}
