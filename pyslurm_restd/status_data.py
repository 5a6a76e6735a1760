"""What the status page shows, gathered through the same calls the CLIs make, as the viewer.

The viewer is the user of a JWT kept in the page's cookie (set by the /login form), else
pyslurmrestd's own unprivileged user. Visibility is PrivateData's: with ``PrivateData=jobs`` an
ordinary viewer sees only their own jobs in the queue and the recent list, as squeue and sacct
would show them; root, SlurmUser and AdminLevel Operator/Administrator see everything. Finished
jobs come from accounting (sacct's query), each pending job's reason from ``scontrol explain``'s
records (the first EXPLAINED ones; the rest keep their reason code).
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from pyslurm_common.job_states import ACTIVE_STATES
from pyslurm_common.rpc import ctld_pb2, dbd_pb2, types_pb2

from .upstream import ACCOUNTING, CONTROLLER, Caller, Upstream, UpstreamError

EXPLAINED = 30          # pending jobs whose reason is spelled out (one ExplainJob each)
RECENT = 50             # finished jobs listed (the page says how many more there are)
RECENT_WINDOW = 24 * 3600
_OPERATOR_LEVELS = ("Operator", "Administrator")


@dataclass(frozen=True, slots=True)
class FinishedJob:
    record: types_pb2.JobInfo
    cpu_seconds: float          # user + system of its steps
    max_rss_kb: int


SECTIONS = ("pending", "running", "finished")


@dataclass(frozen=True, slots=True)
class JobFilter:
    """The page's filters (its form's query): one user, one partition, one section of jobs."""

    user: str = ""
    partition: str = ""
    section: str = ""           # "" every section, else one of SECTIONS

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> "JobFilter":
        section = query.get("state", "").lower()
        return cls(user=query.get("user", "").strip()[:256], partition=query.get("partition", "").strip()[:256],
                   section=section if section in SECTIONS else "")

    def accepts(self, job: types_pb2.JobInfo) -> bool:
        return ((not self.user or job.user_name == self.user)
                and (not self.partition or self.partition in job.partition.split(",")))

    def shows(self, section: str) -> bool:
        return not self.section or self.section == section


def job_label(job: types_pb2.JobInfo) -> str:
    """The id squeue prints: 397_0 for an array task, 397_[1-9] for its pending remainder."""
    if not job.array_job_id or not job.array_task_str:
        return str(job.job_id)
    task = f"[{job.array_task_str}]" if job.array_remainder else job.array_task_str
    return f"{job.array_job_id}_{task}"


@dataclass(slots=True)
class ClusterView:
    viewer: str
    anonymous: bool
    cluster: str
    now: int
    nodes: list[ctld_pb2.NodeInfo] = field(default_factory=list)
    partitions: list[ctld_pb2.PartitionInfo] = field(default_factory=list)
    pending: list[types_pb2.JobInfo] = field(default_factory=list)
    running: list[types_pb2.JobInfo] = field(default_factory=list)
    explanations: dict[int, str] = field(default_factory=dict)
    finished: list[FinishedJob] = field(default_factory=list)
    finished_total: int = 0     # before the list was cut to RECENT
    filters: JobFilter = JobFilter()
    shares: list[ctld_pb2.ShareInfo] = field(default_factory=list)
    shares_note: str = ""
    problems: list[str] = field(default_factory=list)


def private_jobs(private_data: str) -> bool:
    return "jobs" in [w.strip().lower() for w in private_data.split(",")]


async def _operator(upstream: Upstream, caller: Caller, privileged_users: set[str]) -> bool:
    if caller.user_name in privileged_users:
        return True
    try:
        users = await upstream.call(caller, ACCOUNTING + "ShowAssociations", dbd_pb2.AssociationShow(entity="user"),
                                    dbd_pb2.AssociationEntities)
    except UpstreamError:
        return False
    return any(u.name == caller.user_name and u.admin_level in _OPERATOR_LEVELS for u in users.users)


async def gather(upstream: Upstream, caller: Caller, anonymous: bool, cluster: str, private_data: str,
                 privileged_users: set[str], filters: JobFilter = JobFilter()) -> ClusterView:
    view = ClusterView(viewer=caller.user_name, anonymous=anonymous, cluster=cluster, now=int(time.time()),
                       filters=filters)

    async def ask(method: str, request, reply_type):  # type: ignore[no-untyped-def]
        try:
            return await upstream.call(caller, method, request, reply_type)
        except UpstreamError as exc:
            view.problems.append(f"{method.rsplit('/', 1)[1]}: {exc.strerror}")
            return reply_type()

    nodes, parts, jobs, records, shares = await asyncio.gather(
        ask(CONTROLLER + "GetNodes", types_pb2.Empty(), ctld_pb2.NodeList),
        ask(CONTROLLER + "GetPartitions", ctld_pb2.PartitionQuery(), ctld_pb2.PartitionList),
        ask(CONTROLLER + "GetJobs", ctld_pb2.JobQuery(), ctld_pb2.JobList),
        ask(ACCOUNTING + "QueryJobs", dbd_pb2.AccountingQuery(all_users=True, start_time=view.now - RECENT_WINDOW),
            dbd_pb2.JobRecordBatch),
        upstream.call(caller, CONTROLLER + "GetShares", ctld_pb2.SharesQuery(), ctld_pb2.SharesReply),
        return_exceptions=True)
    view.nodes, view.partitions = list(nodes.nodes), list(parts.partitions)
    if isinstance(shares, UpstreamError):
        view.shares_note = f"Fair-share: {shares.strerror} (it needs PriorityType=priority/multifactor)."
    elif isinstance(shares, ctld_pb2.SharesReply):
        view.shares = [s for s in shares.shares if not s.user]
    mine_only = private_jobs(private_data) and not await _operator(upstream, caller, privileged_users)

    def visible(job: types_pb2.JobInfo) -> bool:
        return (not mine_only or job.user_name == caller.user_name) and filters.accepts(job)

    for job in jobs.jobs:
        if not visible(job):
            continue
        if job.state == "PENDING" and filters.shows("pending"):
            view.pending.append(job)
        elif (job.state in ("RUNNING", "SUSPENDED") or job.completing) and filters.shows("running"):
            view.running.append(job)
    view.pending.sort(key=lambda j: (-j.priority, j.job_id))
    view.running.sort(key=lambda j: j.job_id)
    finished = [r for r in records.records if r.job.state and r.job.state not in ACTIVE_STATES
                and visible(r.job) and filters.shows("finished")]
    finished.sort(key=lambda r: (-r.job.end_time, -r.job.job_id))
    view.finished_total = len(finished)
    view.finished = [FinishedJob(r.job, sum(s.user_cpu_usec + s.system_cpu_usec for s in r.steps) / 1e6,
                                 max((s.max_rss_kb for s in r.steps), default=0)) for r in finished[:RECENT]]
    explained = await asyncio.gather(*(upstream.call(caller, CONTROLLER + "ExplainJob",
                                                     ctld_pb2.JobQuery(job_ids=[j.job_id]), ctld_pb2.JobExplanation)
                                       for j in view.pending[:EXPLAINED]), return_exceptions=True)
    for job, reply in zip(view.pending, explained):
        if isinstance(reply, ctld_pb2.JobExplanation):
            view.explanations[job.job_id] = " ".join(reply.lines[1:])
    return view
