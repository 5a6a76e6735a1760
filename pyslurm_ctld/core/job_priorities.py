"""The controller's priorities: each pending job's factors and the fairshare usage behind them.

`JobPriorities` holds, for the core,
* `usage`: the decayed fairshare usage of every association (durable: brought up to date every
  PriorityCalcPeriod, and before finished jobs are purged, as a journaled `UsageRecorded`);
* `factors`: the `PriorityFactors` of each pending job (soft state, recomputed every
  PriorityCalcPeriod and when a job is submitted, released or changed); the job record's
  `priority` is always set from the same record, so sprio and `scontrol show job` agree;
* `shares`: the last fairshare table (sshare's rows).

With priority/basic there are no factors: jobs get `basic_priority` less their nice value.
No I/O and no clock: `now` is an argument; the data comes from the core.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping

from pyslurm_common.bounds import NICE, PRIORITY, OutOfRange
from pyslurm_common.conf_records import PartitionConfig
from pyslurm_common.errors import SlurmError, Strerror

from ..model.associations import EMPTY, AssociationSnapshot
from ..sched.fairshare import (NO_USAGE, AssociationKey, RunningCharge, ShareRow, Usage, charged, factors_by_association,
                               key_of, share_table)
from ..model.events import JobHoldChanged, JobPriorityChanged
from ..model.job import Hold, Job, JobId, JobState
from ..model.nodes import NodeRecord
from ..sched.priority import PriorityContext, PriorityFactors, basic_priority, job_priority
from ..settings.priority_settings import PrioritySettings

# Pending jobs recomputed between two yields to the controller's event loop: at 10-40 µs a job,
# a few milliseconds of RPCs waiting at most.
RECALCULATION_CHUNK = 500


class JobPriorities:
    def __init__(self, settings: PrioritySettings) -> None:
        self.settings = settings
        self.usage: Usage = NO_USAGE
        self.factors: dict[JobId, PriorityFactors] = {}
        self.shares: list[ShareRow] = []
        self._fairshare: dict[AssociationKey, float] = {}
        self._context: tuple[tuple[object, ...], PriorityContext] | None = None

    # ---- one job -----------------------------------------------------------------

    def priority_of(self, job: Job, context: PriorityContext, now: int) -> int:
        """The priority `job` has now (0 held); its factors are kept for sprio."""
        if job.hold.value:
            self.factors.pop(job.job_id, None)
            return 0
        if not self.settings.multifactor:
            return job.admin_priority or max(1, basic_priority(job.job_id) - job.request.nice)
        factors = job_priority(job, self.settings, context, now, job.admin_priority)
        if "INCR_ONLY" in self.settings.flags and job.priority > factors.priority and not factors.fixed:
            factors = dataclasses.replace(factors, priority=job.priority)
        self.factors[job.job_id] = factors
        return factors.priority

    def recalculation(self, jobs: MutableMapping[JobId, Job], context_of: Callable[[], PriorityContext], now: int,
                      chunk: int = RECALCULATION_CHUNK) -> Iterator[int]:
        """Every pending job's priority recomputed in place (soft state, like pending reasons),
        `chunk` jobs at a time: after each chunk it yields how many jobs it has done, so that the
        controller can serve RPCs in between (10k pending jobs took 80-370 ms in one go). A job
        that ended, started or went between chunks is left alone; one submitted meanwhile got its
        priority at submission."""
        self.factors = {}
        pending = [job_id for job_id, job in jobs.items() if job.state is JobState.PENDING]
        for start in range(0, len(pending), chunk):
            context = context_of()     # cached; rebuilt only if something changed between chunks
            for job_id in pending[start:start + chunk]:
                job = jobs.get(job_id)
                if job is not None and job.state is JobState.PENDING:
                    priority = self.priority_of(job, context, now)
                    if priority != job.priority:
                        jobs[job_id] = dataclasses.replace(job, priority=priority)
            yield min(start + chunk, len(pending))

    # ---- the normalization context --------------------------------------------------

    def context(self, nodes: Mapping[str, NodeRecord], partitions: Mapping[str, PartitionConfig],
                gpu_types: Mapping[str, Mapping[int, str]], associations: AssociationSnapshot) -> PriorityContext:
        """What factors are normalized against; rebuilt only when configuration, associations or
        the fairshare table changed (cheap enough to ask for at every submission)."""
        key = (nodes, partitions, gpu_types, associations, self._fairshare)
        if self._context is not None and all(a is b for a, b in zip(self._context[0], key, strict=True)):
            return self._context[1]
        totals: dict[str, dict[str, float]] = {}
        for part in partitions.values():
            members = [nodes[n].config for n in part.nodes if n in nodes]
            totals[part.name] = {"cpu": sum(n.cpus for n in members), "mem": sum(n.real_memory_mb for n in members),
                                 "node": len(members), "gres/gpu": sum(len(gpu_types.get(n.name, ())) for n in members)}
        context = PriorityContext(
            total_nodes=len(nodes), total_cpus=sum(n.config.cpus for n in nodes.values()),
            partition_factors={p.name: p.priority_job_factor for p in partitions.values()},
            qos_priorities={name: qos.priority for name, qos in associations.qos.items()},
            association_priorities=_association_priorities(associations),
            fairshare=self._fairshare, partition_tres=totals,
            association_of=_JobAssociations(associations))
        self._context = (key, context)
        return context

    # ---- fairshare usage ----------------------------------------------------------------

    def usage_update(self, jobs: Iterable[Job], associations: AssociationSnapshot, now: int) -> Usage:
        """Usage brought up to `now`: decayed, plus what jobs ran since the last update (running
        ones until now, finished ones until they ended)."""
        since = self.usage.time
        charges = []
        for job in jobs:
            alloc = job.allocation
            if alloc is None or not job.start_time:
                continue
            if job.state is not JobState.RUNNING and not (job.end_time and job.end_time > since):
                continue
            qos = associations.qos.get(job.request.qos)
            charges.append(RunningCharge(association_key(job, associations), float(alloc.total_cpus),
                                         job.start_time, qos.usage_factor if qos is not None else 1.0,
                                         end_time=0 if job.state is JobState.RUNNING else job.end_time))
        return charged(self.usage, charges, now, self.settings.decay_half_life_s, self.settings.usage_reset_period)

    def install_usage(self, usage: Usage, associations: AssociationSnapshot) -> None:
        """A recorded usage becomes current; the fairshare table follows it."""
        self.usage = usage
        self.refresh_shares(associations)

    def live_shares(self, jobs: Iterable[Job], associations: AssociationSnapshot, now: int) -> list[ShareRow]:
        """The fairshare table with usage as of `now` (sshare), without recording that usage."""
        return share_table(associations.associations, self.usage_update(jobs, associations, now),
                           self.settings.fair_tree, self.settings.dampening_factor)

    def refresh_shares(self, associations: AssociationSnapshot) -> None:
        self.shares = share_table(associations.associations, self.usage, self.settings.fair_tree,
                                  self.settings.dampening_factor)
        self._fairshare = factors_by_association(self.shares)


def priority_update(job: Job, operator: bool, priority: str | None, nice: str | None,
                    now: int) -> JobPriorityChanged | JobHoldChanged:
    """The event of `scontrol update jobid=N [priority=X] [nice=Y]`, with Slurm's rules: a
    pending job only; users may lower their own job's priority, only operators raise it (a
    priority set this way is fixed); priority=0 holds the job; users may set any nice value
    >= 0, a negative one (which raises priority) is for operators."""
    if job.state.is_finished:
        raise SlurmError(Strerror.ALREADY_DONE)
    if job.state is not JobState.PENDING:
        raise SlurmError(Strerror.NOT_PENDING)
    new_priority = job.admin_priority
    if priority is not None:
        try:
            new_priority = PRIORITY.parse(priority)
        except OutOfRange:
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"Invalid priority value: {priority}") from None
        if not operator and new_priority >= job.priority:
            raise SlurmError(Strerror.ACCESS_DENIED)
        if new_priority == 0:
            return JobHoldChanged(job.job_id, Hold.ADMIN if operator else Hold.USER, now)
    new_nice = job.request.nice
    if nice is not None:
        try:
            new_nice = NICE.parse(nice)
        except OutOfRange:
            raise SlurmError(Strerror.INVALID_NICE) from None
        check_nice(new_nice, operator)
    return JobPriorityChanged(job.job_id, new_priority, new_nice, now)


def check_nice(nice: int, operator: bool, refusal: Strerror = Strerror.ACCESS_DENIED) -> None:
    """A nice value (--nice or Nice=) within its bound; below 0 (a raise) for operators only,
    else `refusal`: Slurm refuses a new job's as ESLURM_INVALID_NICE (validate_job_create_req),
    an update's as ESLURM_ACCESS_DENIED."""
    NICE.refuse(nice)
    if nice < 0 and not operator:
        raise SlurmError(refusal)


class _JobAssociations(Mapping[tuple[str, str, str], AssociationKey]):
    """(user, account, partition) -> the association a job runs under, looked up on demand."""

    def __init__(self, associations: AssociationSnapshot) -> None:
        self.associations = associations

    def __getitem__(self, key: tuple[str, str, str]) -> AssociationKey:
        user, account, partition = key
        assoc = self.associations.user_association(user, account or self.associations.default_account(user),
                                                   partition)
        if assoc is None:
            raise KeyError(key)
        return key_of(assoc)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(())

    def __len__(self) -> int:
        return 0


def association_key(job: Job, associations: AssociationSnapshot) -> AssociationKey:
    """The association a job is charged to: of its account, else of the user's default one
    (a job submitted without --account while associations are not enforced)."""
    try:
        return _JobAssociations(associations)[(job.user_name, job.request.account, job.request.partition)]
    except KeyError:
        return (job.request.account, job.user_name, "")


def _association_priorities(associations: AssociationSnapshot) -> dict[AssociationKey, int]:
    """Each user association's Priority, inherited from the nearest account that sets one."""
    result: dict[AssociationKey, int] = {}
    if associations is EMPTY:
        return result
    for assoc in associations.associations:
        if assoc.is_user:
            priority = next((a.priority for a in associations.lineage(assoc) if a.priority is not None), None)
            if priority:
                result[key_of(assoc)] = priority
    return result
