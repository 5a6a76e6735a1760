"""QOS and association limits (AccountingStorageEnforce=limits): which job may start, which
submission is refused, and why, in Slurm's words.

Two questions, both pure over an `AssociationSnapshot` and the jobs:

* at submission, `submit_refusal`: the jobs a user may have queued (MaxSubmitJobsPerUser/
  PerAccount of the QOS, MaxSubmitJobs and GrpSubmitJobs of the associations) and, for a QOS
  with ``DenyOnLimit``, the per-job limits (MaxWall, MaxTRESPerJob, MaxTRESPerUser): refused with
  `Job violates accounting/QOS policy ...` and the limit's reason name as the detail line;
* at every scheduling pass, `LimitGate.blocked`: the reason a pending job may not start now
  (QOSMaxJobsPerUserLimit, QOSGrpCpuLimit, AssocGrpJobsLimit, AssocMaxWallDurationPerJobLimit,
  ...), counting the running jobs plus those the same pass already started (`started`).

Precedence (spec §5.2): a Max limit set on the job's QOS replaces the association's limit of the
same kind (MaxWall, MaxTRESPerJob per TRES, MaxJobs, MaxSubmitJobs); an association's Max limit
comes from the user's association, else the nearest account above that sets it. Grp limits apply
at every level that sets them: the QOS's over all its jobs, each association's over its subtree.
Checked in Slurm's order: the partition's QOS (slurm.conf ``QOS=``; its limits add to the job
QOS's instead of replacing them, and bind only when the scheduler considers the job), the job's
QOS, then associations from the user's up to root. Limits on decayed usage (GrpTRESMins,
GrpWall) are not enforced.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from pyslurm_common.errors import SlurmError, Strerror

from .association_checks import standing
from ..model.associations import Association, AssociationSnapshot, Qos, Tres
from ..model.job import Job, JobRequest, JobState, Reason

TRES_KINDS = ("cpu", "mem", "node", "gres/gpu")

# Reason names by (scope, TRES): Slurm's spelling is irregular (Cpu/Mem/Memory/GRES).
_QOS_GRP = {"cpu": Reason.QOS_GRP_CPU, "mem": Reason.QOS_GRP_MEM, "node": Reason.QOS_GRP_NODE,
            "gres/gpu": Reason.QOS_GRP_GRES}
_QOS_PER_JOB = {"cpu": Reason.QOS_MAX_CPU_PER_JOB, "mem": Reason.QOS_MAX_MEM_PER_JOB,
                "node": Reason.QOS_MAX_NODE_PER_JOB, "gres/gpu": Reason.QOS_MAX_GRES_PER_JOB}
_QOS_PER_USER = {"cpu": Reason.QOS_MAX_CPU_PER_USER, "mem": Reason.QOS_MAX_MEM_PER_USER,
                 "node": Reason.QOS_MAX_NODE_PER_USER, "gres/gpu": Reason.QOS_MAX_GRES_PER_USER}
_QOS_PER_ACCOUNT = {"cpu": Reason.MAX_CPU_PER_ACCOUNT, "mem": Reason.MAX_MEM_PER_ACCOUNT,
                    "node": Reason.MAX_NODE_PER_ACCOUNT, "gres/gpu": Reason.MAX_GRES_PER_ACCOUNT}
_QOS_MIN = {"cpu": Reason.QOS_MIN_CPU, "mem": Reason.QOS_MIN_MEM, "gres/gpu": Reason.QOS_MIN_GRES}
_ASSOC_GRP = {"cpu": Reason.ASSOC_GRP_CPU, "mem": Reason.ASSOC_GRP_MEM, "node": Reason.ASSOC_GRP_NODE,
              "gres/gpu": Reason.ASSOC_GRP_GRES}
_ASSOC_PER_JOB = {"cpu": Reason.ASSOC_MAX_CPU_PER_JOB, "mem": Reason.ASSOC_MAX_MEM_PER_JOB,
                  "node": Reason.ASSOC_MAX_NODE_PER_JOB, "gres/gpu": Reason.ASSOC_MAX_GRES_PER_JOB}


def job_tres(job: Job) -> dict[str, int]:
    """What a running job holds (its allocation), in TRES names."""
    alloc = job.allocation
    assert alloc is not None
    return {"cpu": alloc.total_cpus, "mem": sum(alloc.memory_mb_per_node), "node": len(alloc.nodes),
            "gres/gpu": alloc.total_gpus}


@dataclass(slots=True)
class _Count:
    jobs: int = 0
    tres: dict[str, int] = field(default_factory=dict)

    def add(self, tres: Mapping[str, int], jobs: int = 1) -> None:
        self.jobs += jobs
        for name, amount in tres.items():
            self.tres[name] = self.tres.get(name, 0) + amount


@dataclass(slots=True)
class Usage:
    """Jobs and TRES counted per QOS, per (QOS, user), per (QOS, account) and per association
    (an association counts its whole subtree)."""

    qos: dict[str, _Count] = field(default_factory=dict)
    qos_user: dict[tuple[str, str], _Count] = field(default_factory=dict)
    qos_account: dict[tuple[str, str], _Count] = field(default_factory=dict)
    assoc: dict[int, _Count] = field(default_factory=dict)

    def add(self, qos: str, user: str, account: str, lineage: Iterable[Association],
            tres: Mapping[str, int], jobs: int = 1) -> None:
        self.qos.setdefault(qos, _Count()).add(tres, jobs)
        self.qos_user.setdefault((qos, user), _Count()).add(tres, jobs)
        self.qos_account.setdefault((qos, account), _Count()).add(tres, jobs)
        for assoc in lineage:
            self.assoc.setdefault(assoc.id, _Count()).add(tres, jobs)

    def of_qos(self, qos: str) -> _Count:
        return self.qos.get(qos, _NOTHING)

    def of_user(self, qos: str, user: str) -> _Count:
        return self.qos_user.get((qos, user), _NOTHING)

    def of_account(self, qos: str, account: str) -> _Count:
        return self.qos_account.get((qos, account), _NOTHING)

    def of_assoc(self, assoc: Association) -> _Count:
        return self.assoc.get(assoc.id, _NOTHING)


_NOTHING = _Count()


def _inherited(lineage: list[Association], pick: Callable[[Association], int | None]) -> tuple[int | None, Association | None]:
    """A Max limit of the user's association, else of the nearest account above that sets it."""
    for assoc in lineage:
        value = pick(assoc)
        if value is not None:
            return value, assoc
    return None, None


def _inherited_tres(lineage: list[Association], name: str) -> int | None:
    for assoc in lineage:
        if name in assoc.limits.max_tres:
            return assoc.limits.max_tres[name]
    return None


def _over(limit: Tres, used: Mapping[str, int], want: Mapping[str, int], reasons: Mapping[str, Reason]) -> Reason | None:
    """The reason for the first TRES of ``limit`` that ``used`` + ``want`` would exceed."""
    for name in TRES_KINDS:
        if name in limit and want.get(name, 0) and used.get(name, 0) + want.get(name, 0) > limit[name]:
            return reasons[name]
    return None


def _wall_over(limit_min: int | None, time_limit_min: int) -> bool:
    return limit_min is not None and (time_limit_min < 0 or time_limit_min > limit_min)


def _per_job_reason(qos: Qos | None, lineage: list[Association], req: JobRequest, tres: Mapping[str, int],
                    with_associations: bool = True) -> Reason | None:
    """MaxWall and MaxTRESPerJob (and the QOS's MinTRES): the QOS's where it sets them, else the
    associations'."""
    qlim = qos.limits if qos is not None else None
    if qlim is not None and _wall_over(qlim.max_wall, req.time_limit_min):
        return Reason.QOS_MAX_WALL
    if qlim is not None:
        reason = _over(qlim.max_tres_per_job, {}, tres, _QOS_PER_JOB)
        if reason is not None:
            return reason
        for name in TRES_KINDS:
            if name in qlim.min_tres_per_job and name in _QOS_MIN and tres.get(name, 0) < qlim.min_tres_per_job[name]:
                return _QOS_MIN[name]
    if not with_associations or not lineage:
        return None
    if qlim is None or qlim.max_wall is None:
        wall, _ = _inherited(lineage, lambda a: a.limits.max_wall)
        if _wall_over(wall, req.time_limit_min):
            return Reason.ASSOC_MAX_WALL
    for name in TRES_KINDS:
        if qlim is not None and name in qlim.max_tres_per_job:
            continue
        limit = _inherited_tres(lineage, name)
        if limit is not None and tres.get(name, 0) > limit:
            return _ASSOC_PER_JOB[name]
    return None


def default_time_limit(snapshot: AssociationSnapshot, enforce: frozenset[str], qos: str,
                       assoc: Association | None, partition_default: int) -> int:
    """The time limit (minutes, -1 unlimited) of a job submitted without --time: the partition's
    default, cut down to the MaxWall its QOS or association holds it to."""
    if "limits" not in enforce or assoc is None:
        return partition_default
    record = snapshot.qos.get(qos)
    wall = record.limits.max_wall if record is not None else None
    if wall is None:
        wall = _inherited(snapshot.lineage(assoc), lambda a: a.limits.max_wall)[0]
    if wall is not None and (partition_default < 0 or partition_default > wall):
        return wall
    return partition_default


def submit_refusal(snapshot: AssociationSnapshot, enforce: frozenset[str], jobs: Iterable[Job], user: str,
                   assoc: Association | None, req: JobRequest, tres: Mapping[str, int], new_jobs: int) -> None:
    """Raise SlurmError (ACCOUNTING_POLICY, the reason name as detail) when accounting refuses
    ``new_jobs`` more jobs of ``user`` under ``assoc`` with ``req`` (its QOS and account
    resolved); ``jobs`` are all known jobs (pending and running ones count)."""
    if "limits" not in enforce or assoc is None:
        return
    qos = snapshot.qos.get(req.qos)
    lineage = snapshot.lineage(assoc)
    reason = None
    if _has_submit_limits(qos, lineage):    # counting means a look at every job: only when it matters
        reason = _submit_count_reason(qos, lineage, _queued(snapshot, jobs), req, user, new_jobs)
    if reason is None and qos is not None and qos.deny_on_limit:
        reason = _per_job_reason(qos, lineage, req, tres, with_associations=False) or \
            _over(qos.limits.max_tres_per_user, {}, tres, _QOS_PER_USER)
    if reason is not None:
        raise SlurmError(Strerror.ACCOUNTING_POLICY, str(reason))


def _has_submit_limits(qos: Qos | None, lineage: list[Association]) -> bool:
    if qos is not None and any(limit is not None for limit in (
            qos.limits.grp_submit, qos.limits.max_submit_per_user, qos.limits.max_submit_per_account)):
        return True
    return any(a.limits.max_submit is not None or a.limits.grp_submit is not None for a in lineage)


def _queued(snapshot: AssociationSnapshot, jobs: Iterable[Job]) -> Usage:
    """Pending and running jobs counted per QOS, user, account and association (array tasks one each)."""
    queued = Usage()
    for job in jobs:
        if not job.state.is_finished:
            other = snapshot.user_association(job.user_name, job.request.account, job.request.partition)
            count = len(job.array.pending) if job.array is not None and job.array.is_remainder else 1
            queued.add(job.request.qos, job.user_name, job.request.account,
                       snapshot.lineage(other) if other is not None else (), {}, count)
    return queued


def _submit_count_reason(qos: Qos | None, lineage: list[Association], queued: Usage, req: JobRequest,
                         user: str, new_jobs: int) -> Reason | None:
    qlim = qos.limits if qos is not None else None
    if qlim is not None:
        for limit, used, reason in (
                (qlim.grp_submit, queued.of_qos(req.qos).jobs, Reason.QOS_GRP_SUBMIT),
                (qlim.max_submit_per_user, queued.of_user(req.qos, user).jobs, Reason.QOS_MAX_SUBMIT_PER_USER),
                (qlim.max_submit_per_account, queued.of_account(req.qos, req.account).jobs,
                 Reason.MAX_SUBMIT_PER_ACCOUNT)):
            if limit is not None and used + new_jobs > limit:
                return reason
    if qlim is None or qlim.max_submit_per_user is None:
        limit, _ = _inherited(lineage, lambda a: a.limits.max_submit)
        if limit is not None and queued.of_assoc(lineage[0]).jobs + new_jobs > limit:
            return Reason.ASSOC_MAX_SUBMIT
    for assoc in lineage:
        grp = assoc.limits.grp_submit
        if grp is not None and queued.of_assoc(assoc).jobs + new_jobs > grp:
            return Reason.ASSOC_GRP_SUBMIT
    return None


@dataclass(frozen=True, slots=True)
class _Standing:
    """What one (user, account, QOS, partition) runs under: looked up once per pass."""

    lineage: list[Association]      # the user's association, then its accounts up to root
    qos: Qos | None
    reason: Reason | None           # InvalidAccount / InvalidQOS


class LimitGate:
    """The limits of one scheduling pass: built from the running jobs, told of each start."""

    def __init__(self, snapshot: AssociationSnapshot, enforce: frozenset[str], running: Iterable[Job],
                 partition_qos: Mapping[str, str] | None = None) -> None:
        """``partition_qos``: partition -> the QOS= of its slurm.conf line, where it has one."""
        self.snapshot = snapshot
        self.enforce = enforce
        self.usage = Usage()
        self._partition_qos = {part: snapshot.qos[name] for part, name in (partition_qos or {}).items()
                               if name in snapshot.qos}
        # Per pass, many pending jobs share an owner and shape: look each up once.
        self._standing: dict[tuple[str, str, str, str], _Standing] = {}
        self._per_job: dict[tuple[object, ...], Reason | None] = {}
        for job in running:
            self.started(job, job.request.partition, job_tres(job))

    def _standing_of(self, job: Job, partition: str) -> _Standing:
        req = job.request
        key = (job.user_name, req.account, req.qos, partition)
        known = self._standing.get(key)
        if known is None:
            assoc, reason = standing(self.snapshot, self.enforce, job.user_name, req.account, req.qos, partition)
            lineage = self.snapshot.lineage(assoc) if assoc is not None else []
            known = self._standing[key] = _Standing(lineage, self.snapshot.qos.get(req.qos), reason)
        return known

    def blocked(self, job: Job, partition: str, tres: Mapping[str, int]) -> Reason | None:
        """Why ``job`` may not start in ``partition`` now with ``tres``, or None."""
        where = self._standing_of(job, partition)
        if where.reason is not None or "limits" not in self.enforce:
            return where.reason
        shape = (job.user_name, job.request.account, job.request.qos, partition, job.request.time_limit_min,
                 *tres.items())
        if shape in self._per_job:
            per_job = self._per_job[shape]
        else:
            per_job = self._per_job[shape] = _per_job_reason(where.qos, where.lineage, job.request, tres)
        return (self._partition_qos_reason(job, partition, tres)
                or per_job
                or (self._qos_reason(where.qos, job, tres) if where.qos is not None else None)
                or self._assoc_reason(where.qos, where.lineage, tres))

    def started(self, job: Job, partition: str, tres: Mapping[str, int]) -> None:
        """A start decided in this pass counts toward the limits of the jobs after it."""
        self.usage.add(job.request.qos, job.user_name, job.request.account,
                       self._standing_of(job, partition).lineage, tres)
        part_qos = self._partition_qos.get(partition)
        if part_qos is not None and part_qos.name != job.request.qos:
            self.usage.add(part_qos.name, job.user_name, job.request.account, (), tres)

    def _partition_qos_reason(self, job: Job, partition: str, tres: Mapping[str, int]) -> Reason | None:
        """The partition QOS's limits, checked first (spec §5.2) with the same reasons; they add
        to the job QOS's rather than replace them."""
        part_qos = self._partition_qos.get(partition)
        if part_qos is None or part_qos.name == job.request.qos:
            return None
        return _per_job_reason(part_qos, [], job.request, tres) or self._qos_reason(part_qos, job, tres)

    def _qos_reason(self, qos: Qos, job: Job, tres: Mapping[str, int]) -> Reason | None:
        lim, req = qos.limits, job.request
        total, mine = self.usage.of_qos(qos.name), self.usage.of_user(qos.name, job.user_name)
        account = self.usage.of_account(qos.name, req.account)
        for limit, used, reason in ((lim.grp_jobs, total.jobs, Reason.QOS_GRP_JOBS),
                                    (lim.max_jobs_per_user, mine.jobs, Reason.QOS_MAX_JOBS_PER_USER),
                                    (lim.max_jobs_per_account, account.jobs, Reason.MAX_JOBS_PER_ACCOUNT)):
            if limit is not None and used + 1 > limit:
                return reason
        return (_over(lim.grp_tres, total.tres, tres, _QOS_GRP)
                or _over(lim.max_tres_per_user, mine.tres, tres, _QOS_PER_USER)
                or _over(lim.max_tres_per_account, account.tres, tres, _QOS_PER_ACCOUNT))

    def _assoc_reason(self, qos: Qos | None, lineage: list[Association], tres: Mapping[str, int]) -> Reason | None:
        if not lineage:
            return None
        if qos is None or qos.limits.max_jobs_per_user is None:
            limit, _ = _inherited(lineage, lambda a: a.limits.max_jobs)
            if limit is not None and self.usage.of_assoc(lineage[0]).jobs + 1 > limit:
                return Reason.ASSOC_MAX_JOBS
        for assoc in lineage:
            used = self.usage.of_assoc(assoc)
            if assoc.limits.grp_jobs is not None and used.jobs + 1 > assoc.limits.grp_jobs:
                return Reason.ASSOC_GRP_JOBS
            reason = _over(assoc.limits.grp_tres, used.tres, tres, _ASSOC_GRP)
            if reason is not None:
                return reason
        return None


def limit_gate(snapshot: AssociationSnapshot, enforce: frozenset[str], jobs: Iterable[Job],
               partition_qos: Mapping[str, str] | None = None) -> LimitGate | None:
    """The gate of one pass, None when accounting enforces nothing (no lookups at all)."""
    if "associations" not in enforce:
        return None
    return LimitGate(snapshot, enforce, (j for j in jobs if j.state in (JobState.RUNNING, JobState.SUSPENDED)
                                         and j.allocation is not None), partition_qos)
