"""The wire form of each job, kept per version of its record, for the job listings (squeue,
scontrol show job, the REST daemon's job list).

Tools poll squeue every few seconds, and building one JobInfo costs about 25 µs (some 75
fields, the expanded output paths): 110 ms of the controller's event loop for 5,000 pending
jobs on every call, against about 10 for copying kept messages. A Job record is frozen and
replaced on every change, so the message built from one record stays right while the same
record comes with the same other inputs (backfill's expected start, the -w nodes that are
unavailable, the GPU idle time). A pending job with a dependency is built afresh every time:
its dependency text depends on the time.

Messages handed out are shared: callers copy them into their reply and change none. The
listing itself takes each job's wire form, kept with its message: copying 5,000 kept messages
into a JobList cost the event loop about 40 ms more (and serializing it 12), joining their bytes
about 1.

squeue's usual listings ask for the brief form (pyslurm_common/job_brief.py): kept too, made from
the full message the first time it is asked for, and made again when the full one is.
"""
from __future__ import annotations

from typing import Collection

from pyslurm_common.job_brief import brief_copy
from pyslurm_common.rpc import ctld_pb2, types_pb2

from . import convert
from ..sched.backfill import Reservation
from ..model.job import Job, JobId, JobState

_Entry = tuple[Job, "Reservation | None", tuple[str, ...], int, types_pb2.JobInfo, bytes]


class JobInfoCache:
    def __init__(self) -> None:
        self._entries: dict[JobId, _Entry] = {}
        self._briefs: dict[JobId, tuple[bytes, bytes]] = {}   # the full listed bytes, the brief ones

    def info(self, job: Job, now: int, expected: Reservation | None, unavailable: tuple[str, ...],
             gpu_idle_seconds: int) -> types_pb2.JobInfo:
        """convert.job_info of these inputs, built again only when one of them changed."""
        return self._entry(job, now, expected, unavailable, gpu_idle_seconds)[4]

    def listed(self, job: Job, now: int, expected: Reservation | None, unavailable: tuple[str, ...],
               gpu_idle_seconds: int, brief: bool = False) -> bytes:
        """The same message as one entry of a JobList on the wire: a JobList's bytes are its
        entries' bytes joined, then its other fields' (protobuf merges concatenated messages).
        *brief*: only the fields of job_brief.BRIEF_FIELDS."""
        entry = self._entry(job, now, expected, unavailable, gpu_idle_seconds)
        if not brief:
            return entry[5]
        kept = self._briefs.get(job.job_id)
        if kept is None or kept[0] is not entry[5]:
            brief_bytes = ctld_pb2.JobList(jobs=[brief_copy(entry[4])]).SerializeToString()
            kept = self._briefs[job.job_id] = (entry[5], brief_bytes)
        return kept[1]

    def _entry(self, job: Job, now: int, expected: Reservation | None, unavailable: tuple[str, ...],
               gpu_idle_seconds: int) -> _Entry:
        entry = self._entries.get(job.job_id)
        if entry is not None and entry[0] is job and entry[1] == expected and entry[2] == unavailable \
                and entry[3] == gpu_idle_seconds:
            return entry
        message = convert.job_info(job, now, expected, unavailable, gpu_idle_seconds)
        entry = (job, expected, unavailable, gpu_idle_seconds, message,
                 ctld_pb2.JobList(jobs=[message]).SerializeToString())
        if job.dependency is None or job.state is not JobState.PENDING:
            self._entries[job.job_id] = entry
        else:
            self._entries.pop(job.job_id, None)
        return entry

    def forget_gone(self, known: Collection[JobId]) -> None:
        """Drop the messages of purged jobs, once they are as many as the jobs still known."""
        if len(self._entries) > 2 * len(known) + 64:
            self._entries = {job_id: entry for job_id, entry in self._entries.items() if job_id in known}
        if len(self._briefs) > 2 * len(known) + 64:
            self._briefs = {job_id: kept for job_id, kept in self._briefs.items() if job_id in known}
