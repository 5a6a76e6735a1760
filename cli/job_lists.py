"""Job ids as squeue -j and sacct -j take them: `123`, `123_7`, `123_[1-3]` in a comma list.

Pure. `parse_job_list` raises ValueError(<item>) for an id that does not parse.
"""
from __future__ import annotations

from pyslurm_common.array_spec import JobSpec, format_ranges, parse_indices, parse_job_spec
from pyslurm_common.bounds import STEP_ID
from pyslurm_common.rpc import messages as pb

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Iterable

NAMED_STEPS = ("interactive", "batch", "extern")   # in the order sstat lists them
_ITEM = r"[^,\[]+(?:\[[^\]]*\])?"   # commas inside brackets belong to the item
_PLAIN_LIST = frozenset("0123456789,")   # job ids alone: the items are the pieces between commas


def parse_job_list(text: str) -> list[JobSpec]:
    """`12,13_[1,3],14_2` -> specs (a `.step` suffix, `.0` or `.batch`, is checked and ignored)."""
    return [spec for spec, _ in parse_step_list(text)]


def parse_step_list(text: str) -> list[tuple[JobSpec, str]]:
    """`12,13.1,14_2.batch` -> (spec, step) pairs, step "" where the item names no step."""
    specs = []
    if _PLAIN_LIST.issuperset(text):   # what the pattern finds there, without importing re
        items = [piece for piece in text.split(",") if piece]
    else:
        import re

        items = re.findall(_ITEM, text)
    for item in items:
        job, dot, step = item.partition(".")
        try:
            if dot and not (step in NAMED_STEPS or STEP_ID.accepts(step)):
                raise ValueError(step)
            specs.append((parse_job_spec(job), step))
        except ValueError:
            raise ValueError(item) from None
    return specs


def selected_steps(selection: list[tuple[JobSpec, str]], job: pb.JobInfo) -> set[str] | None:
    """sacct -j: the steps of `job` the items name (`12.1` names step 1 alone), or None where
    an item names the job itself (then every step is shown with it)."""
    steps: set[str] = set()
    for spec, step in selection:
        if names(spec, job):
            if not step:
                return None
            steps.add(step)
    return steps


def names(spec: JobSpec, job: pb.JobInfo) -> bool:
    """Whether `spec` names `job` (an array id names every record of the array)."""
    task = None if job.array_remainder or not job.array_job_id else int(job.array_task_str)
    return spec.matches(job.job_id, job.array_job_id, task)


def expand_array_tasks(jobs: Iterable[pb.JobInfo]) -> list[pb.JobInfo]:
    """Each pending remainder as one record per index (squeue -r); other records as they are."""
    out: list[pb.JobInfo] = []
    for job in jobs:
        if not job.array_remainder or job.state != "PENDING":
            out.append(job)
            continue
        for index in parse_indices(job.array_task_str):
            task = type(job)()   # a JobInfo or, listed briefly, a JobBrief
            task.CopyFrom(job)
            task.array_task_str, task.array_remainder = str(index), False
            out.append(task)
    return out


def named(jobs: Iterable[pb.JobInfo], specs: list[JobSpec]) -> list[pb.JobInfo]:
    """The records `specs` name (every record without specs); a named task still pending in its
    array's remainder gets a record of its own."""
    if not specs:
        return list(jobs)
    if not any(spec.tasks is not None for spec in specs):
        return [j for j in jobs if any(names(spec, j) for spec in specs)]
    return [j for j in expand_array_tasks(jobs) if any(names(spec, j) for spec in specs)]


def combine_pending_tasks(jobs: Iterable[pb.JobInfo]) -> list[pb.JobInfo]:
    """squeue's default (without -r or --array-unique): pending tasks of an array that have
    records of their own (requeued, held apart) are shown in the array's pending record when
    they share its name and partition, their reasons added to its own (Slurm's
    _combine_pending_array_tasks and _merge_job_reason)."""
    listed = list(jobs)
    remainders = {(j.array_job_id, j.name, j.partition): j for j in listed
                  if j.array_remainder and j.state == "PENDING"}
    if not remainders:
        return listed
    merged: dict[tuple[int, str, str], pb.JobInfo] = {}
    tasks: dict[tuple[int, str, str], list[int]] = {}
    out: list[pb.JobInfo] = []
    for job in listed:
        if job.array_job_id and not job.array_remainder and job.state == "PENDING":   # the key only then
            key = (job.array_job_id, job.name, job.partition)
            if key in remainders:
                tasks.setdefault(key, []).append(int(job.array_task_str))
                record = merged.setdefault(key, _copy(remainders[key]))
                if job.reason != record.reason and job.reason not in record.reason.split(","):
                    record.reason = f"{record.reason},{job.reason}"
                continue
        out.append(job)
    if not merged:   # no task was held apart: every record stands as it came
        return out
    for key, indices in tasks.items():
        record = merged[key]
        record.array_task_str = format_ranges(sorted({*parse_indices(record.array_task_str), *indices}))
    return [merged.get((j.array_job_id, j.name, j.partition), j) if j.array_remainder and j.state == "PENDING"
            else j for j in out]


def _copy(job: pb.JobInfo) -> pb.JobInfo:
    copy = type(job)()
    copy.CopyFrom(job)
    return copy
