"""Job priority: priority/basic (FIFO) and priority/multifactor with every factor kept.

Owns spec scheduling-policy.md §3.1. `job_priority` returns a `PriorityFactors` record: the
normalized factors (each in [0, 1] unless a NO_NORMAL_* flag says otherwise), the weights
that applied and the resulting integer priority. The scheduler orders by that priority, and
sprio and `scontrol show job` (Priority=) print from the same record, so they cannot disagree.

    priority = site + Σ weight_x × factor_x + Σ_tres weight_t × factor_t − nice,
    truncated to an integer and clamped to [1, 2^32 − 1] (0 is reserved for held jobs).

A priority an operator set (`scontrol update priority=`) is used as it is.

Pure: the job, a `PriorityContext` (cluster totals, partition factors, QOS and association
priorities, fairshare factors) and `now` come in; no clock, no I/O.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .fairshare import AssociationKey
from ..model.job import Job, JobRequest, Reason
from ..settings.priority_settings import PrioritySettings

BASIC_PRIORITY_CEILING = 4294901760    # priority/basic: the first job gets this minus its id
MAX_PRIORITY = 0xFFFFFFFF
# Reasons a pending job does not accrue age for (Slurm: not while held, dependent or before --begin).
_NOT_ACCRUING = frozenset({Reason.HELD_USER, Reason.HELD_ADMIN, Reason.DEPENDENCY, Reason.BEGIN_TIME,
                           Reason.DEPENDENCY_NEVER_SATISFIED})


@dataclass(frozen=True, slots=True)
class PriorityContext:
    """What the factors are normalized against, built once per recalculation."""

    total_nodes: int
    total_cpus: int
    partition_factors: Mapping[str, int]                     # PriorityJobFactor of each partition
    qos_priorities: Mapping[str, int] = field(default_factory=dict)
    association_priorities: Mapping[AssociationKey, int] = field(default_factory=dict)  # inherited down
    fairshare: Mapping[AssociationKey, float] = field(default_factory=dict)
    partition_tres: Mapping[str, Mapping[str, float]] = field(default_factory=dict)   # per partition: TRES totals
    association_of: Mapping[tuple[str, str, str], AssociationKey] = field(default_factory=dict)
    # (user, account, partition) -> the association its jobs run under, when not the plain key
    # The highest of each, derived once: every job's factor is normalized against them.
    max_partition_factor: int = field(init=False)
    max_qos_priority: int = field(init=False)
    max_association_priority: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_partition_factor", max(self.partition_factors.values(), default=0))
        object.__setattr__(self, "max_qos_priority", max(self.qos_priorities.values(), default=0))
        object.__setattr__(self, "max_association_priority", max(self.association_priorities.values(), default=0))


@dataclass(frozen=True, slots=True)
class PriorityFactors:
    """One pending job's priority and where it comes from (sprio's row)."""

    job_id: int
    user_name: str
    partition: str
    priority: int
    age: float = 0.0
    assoc: float = 0.0
    fairshare: float = 0.0
    job_size: float = 0.0
    partition_factor: float = 0.0
    qos: float = 0.0
    tres: tuple[tuple[str, float], ...] = ()    # (TRES name, normalized factor)
    site: int = 0
    nice: int = 0
    fixed: bool = False                         # set by an operator, not computed


def basic_priority(job_id: int) -> int:
    """priority/basic: earlier jobs first, just below the ceiling, never below 1."""
    return max(1, BASIC_PRIORITY_CEILING - job_id)


def job_tres(req: JobRequest) -> dict[str, float]:
    """What a pending job asks for, by TRES name (cpu, mem in MB, node, gres/gpu)."""
    nodes = max(1, req.min_nodes)
    cpus = req.total_cpus
    memory = req.mem_per_node_mb * nodes if req.mem_per_node_mb else req.mem_per_cpu_mb * cpus
    return {"cpu": cpus, "mem": memory, "node": nodes, "gres/gpu": req.gpus_per_node * nodes}


def _normalized(value: float, highest: float, raw: bool) -> float:
    if raw:
        return value
    return value / highest if highest > 0 else 0.0


def job_priority(job: Job, settings: PrioritySettings, context: PriorityContext, now: int,
                 admin_priority: int = 0) -> PriorityFactors:
    """The job's priority now with its factors; `admin_priority` (>0) is a fixed priority."""
    req = job.request
    if admin_priority > 0:
        return PriorityFactors(job.job_id, job.user_name, req.partition, min(admin_priority, MAX_PRIORITY),
                               fixed=True)
    flags = settings.flags
    raw_all = "NO_NORMAL_ALL" in flags
    association = context.association_of.get((job.user_name, req.account, req.partition),
                                             (req.account, job.user_name, ""))
    age = _age(job, settings, now)
    size = _job_size(req, settings, context)
    part = _normalized(context.partition_factors.get(req.partition, 0), context.max_partition_factor,
                       raw_all or "NO_NORMAL_PART" in flags)
    qos = _normalized(context.qos_priorities.get(req.qos, 0), context.max_qos_priority,
                      raw_all or "NO_NORMAL_QOS" in flags)
    assoc = _normalized(context.association_priorities.get(association, 0), context.max_association_priority,
                        raw_all or "NO_NORMAL_ASSOC" in flags)
    fairshare = context.fairshare.get(association, 0.0)
    tres = _tres_factors(req, settings, context, raw_all or "NO_NORMAL_TRES" in flags)
    total = (settings.weight_age * age + settings.weight_assoc * assoc + settings.weight_fairshare * fairshare
             + settings.weight_job_size * size + settings.weight_partition * part + settings.weight_qos * qos
             + sum(weight * factor for (_, weight), (_, factor) in zip(settings.weight_tres, tres, strict=True))
             - req.nice)
    priority = int(min(max(total, 1), MAX_PRIORITY))
    return PriorityFactors(job.job_id, job.user_name, req.partition, priority, age=age, assoc=assoc,
                           fairshare=fairshare, job_size=size, partition_factor=part, qos=qos, tres=tres,
                           nice=req.nice)


def _age(job: Job, settings: PrioritySettings, now: int) -> float:
    accruing = "ACCRUE_ALWAYS" in settings.flags or (job.reason not in _NOT_ACCRUING and job.eligible_time)
    if not accruing:
        return 0.0
    since = job.eligible_time or job.submit_time
    if now <= since:
        return 0.0
    if settings.max_age_s <= 0:
        return 1.0
    return min(1.0, (now - since) / settings.max_age_s)


def _job_size(req: JobRequest, settings: PrioritySettings, context: PriorityContext) -> float:
    nodes_total, cpus_total = max(1, context.total_nodes), max(1, context.total_cpus)
    nodes, cpus = max(1, req.min_nodes), req.total_cpus
    if "SMALL_RELATIVE_TO_TIME" in settings.flags:
        minutes = req.time_limit_min if req.time_limit_min > 0 else 1
        size = max(cpus, nodes * cpus_total / nodes_total) / minutes / cpus_total
        size = 1.0 - size if settings.favor_small else size
    elif settings.favor_small:
        size = ((nodes_total - nodes) / nodes_total + (cpus_total - cpus) / cpus_total) / 2
    else:
        size = (nodes / nodes_total + cpus / cpus_total) / 2
    return min(1.0, max(0.0, size))


def _tres_factors(req: JobRequest, settings: PrioritySettings, context: PriorityContext,
                  raw: bool) -> tuple[tuple[str, float], ...]:
    if not settings.weight_tres:
        return ()
    asked = job_tres(req)
    totals = context.partition_tres.get(req.partition, {})
    factors = []
    for name, _ in settings.weight_tres:
        value = asked.get(name, 0.0)
        factors.append((name, min(1.0, _normalized(value, totals.get(name, 0.0), False)) if not raw else value))
    return tuple(factors)


def weighted(factors: PriorityFactors, settings: PrioritySettings) -> dict[str, float]:
    """The weighted value of each factor (sprio's upper-case letters)."""
    weights = dict(settings.weight_tres)
    return {
        "age": settings.weight_age * factors.age, "assoc": settings.weight_assoc * factors.assoc,
        "fairshare": settings.weight_fairshare * factors.fairshare,
        "job_size": settings.weight_job_size * factors.job_size,
        "partition": settings.weight_partition * factors.partition_factor, "qos": settings.weight_qos * factors.qos,
        **{f"tres:{name}": weights.get(name, 0.0) * value for name, value in factors.tres},
    }
