"""The wire form of each job, kept per version of its record, for the job listings (squeue,
scontrol show job, the REST daemon's job list).

Tools poll squeue every few seconds, and building one JobInfo costs about 25 µs (some 75
fields, the expanded output paths): 110 ms of the controller's event loop for 5,000 pending
jobs on every call, against about 10 for copying kept messages. A Job record is frozen and
replaced on every change, so the message built from one record stays right while the same
record comes with the same other inputs (backfill's expected start, the -w nodes that are
unavailable, the GPU idle time). A pending job with a dependency is built afresh every time:
its dependency text depends on the time.

Messages handed out are shared: callers copy them into their reply and change none.
"""
from __future__ import annotations

from typing import Collection

from pyslurm_common.rpc import types_pb2

from . import convert
from ..sched.backfill import Reservation
from ..model.job import Job, JobId, JobState

_Entry = tuple[Job, "Reservation | None", tuple[str, ...], int, types_pb2.JobInfo]


class JobInfoCache:
    def __init__(self) -> None:
        self._entries: dict[JobId, _Entry] = {}

    def info(self, job: Job, now: int, expected: Reservation | None, unavailable: tuple[str, ...],
             gpu_idle_seconds: int) -> types_pb2.JobInfo:
        """convert.job_info of these inputs, built again only when one of them changed."""
        entry = self._entries.get(job.job_id)
        if entry is not None and entry[0] is job and entry[1] == expected and entry[2] == unavailable \
                and entry[3] == gpu_idle_seconds:
            return entry[4]
        message = convert.job_info(job, now, expected, unavailable, gpu_idle_seconds)
        if job.dependency is None or job.state is not JobState.PENDING:
            self._entries[job.job_id] = (job, expected, unavailable, gpu_idle_seconds, message)
        else:
            self._entries.pop(job.job_id, None)
        return message

    def forget_gone(self, known: Collection[JobId]) -> None:
        """Drop the messages of purged jobs, once they are as many as the jobs still known."""
        if len(self._entries) > 2 * len(known) + 64:
            self._entries = {job_id: entry for job_id, entry in self._entries.items() if job_id in known}
