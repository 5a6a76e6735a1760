"""Licenses in a scheduling pass: a job that asks for more of a license than is free pends with
reason `Licenses` and blocks nobody (as in Slurm, where license waits skip the job).

What is in use is never stored: it is the sum of the licenses of the jobs that hold an
allocation (running, suspended or completing), so after a restart the journal's jobs give the
same counts. `LicenseGate` is a `scheduler.LimitGate`: it wraps the accounting gate of the
pass (if any), so a start earlier in the pass takes its licenses from the jobs behind it.

Reservations' Licenses= are held from every job but their own (slurmctld's job_test_lic_resv):
a job waits when what it asks, plus what is in use, plus what reservations other than its own
hold at any time during its time limit, exceeds the total (so, as in Slurm, a reservation's own
jobs count twice for the others: once in use, once reserved).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from pyslurm_common.licenses import parse_licenses

from ..model.job import Job, JobState, Reason
from ..model.reservations import ReservationRecord
from .scheduler import LimitGate

_FOREVER = 1 << 62


def holds_licenses(job: Job) -> bool:
    """Whether the job's licenses count as used: from its start until its allocation is gone."""
    return job.allocation is not None and (job.state in (JobState.RUNNING, JobState.SUSPENDED) or job.completing)


def licenses_in_use(jobs: Iterable[Job]) -> dict[str, int]:
    """License name -> count held by the jobs holding allocations."""
    used: dict[str, int] = {}
    for job in jobs:
        if job.request.licenses and holds_licenses(job):
            for name, count in parse_licenses(job.request.licenses).items():
                used[name] = used.get(name, 0) + count
    return used


class LicenseGate:
    """The licenses free during one pass, in front of the accounting limits (`inner`)."""

    def __init__(self, configured: Mapping[str, int], jobs: Iterable[Job], inner: LimitGate | None,
                 reservations: Iterable[ReservationRecord] = (), now: int = 0) -> None:
        used = licenses_in_use(jobs)
        self.free = {name: total - used.get(name, 0) for name, total in configured.items()}
        self.inner = inner
        self.holding = [r for r in reservations if r.licenses and not r.over(now)]
        self.now = now

    def _reserved(self, job: Job, name: str) -> int:
        """What reservations other than the job's hold of license `name` during its time limit."""
        limit = job.request.time_limit_min
        finish = _FOREVER if limit < 0 else self.now + max(1, limit) * 60
        return sum(r.license_count(name) for r in self.holding
                   if r.name != job.request.reservation and r.holds_nodes_during(self.now, finish))

    def blocked(self, job: Job, partition: str, tres: Mapping[str, int]) -> Reason | None:
        if job.request.licenses:
            wanted = parse_licenses(job.request.licenses)
            if any(count + self._reserved(job, name) > self.free.get(name, 0) for name, count in wanted.items()):
                return Reason.LICENSES
        return None if self.inner is None else self.inner.blocked(job, partition, tres)

    def started(self, job: Job, partition: str, tres: Mapping[str, int]) -> None:
        for name, count in parse_licenses(job.request.licenses).items():
            self.free[name] = self.free.get(name, 0) - count
        if self.inner is not None:
            self.inner.started(job, partition, tres)


def license_gate(configured: Mapping[str, int], jobs: Iterable[Job], inner: LimitGate | None,
                 reservations: Iterable[ReservationRecord] = (), now: int = 0) -> LimitGate | None:
    """The pass's gate: `inner` alone when no license is configured (no job can hold one)."""
    return LicenseGate(configured, jobs, inner, reservations, now) if configured else inner
