"""What the controller reports: scontrol explain, sdiag, the OpenMetrics sets, sprio, sshare,
scontrol ping and scontrol token."""
from __future__ import annotations

import socket
import time

import grpc

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import ctld_pb2, types_pb2
from pyslurm_common.rpc_auth import caller, translate_errors
from pyslurm_common.users import user_name

from . import auth_tokens, metrics
from ..translate import convert
from ..core.access import is_privileged
from ..core.priorities import fairshare_rows, pending_priority_factors
from ..core.share_run_minutes import tres_run_minutes, zero_run_minutes
from ..core.usage import node_capacity, node_usage
from .explain import NodeFree, explain
from ..model.job import JobId, JobState
from ..model.statistics import ControllerStats
from .servicer_base import ServicerBase


class ReportRpcs(ServicerBase):
    @translate_errors
    async def ExplainJob(self, request: ctld_pb2.JobQuery, context: grpc.aio.ServicerContext) -> ctld_pb2.JobExplanation:
        state = self.state
        job = state.jobs.get(JobId(request.job_ids[0])) if len(request.job_ids) == 1 else None
        if job is None:
            raise SlurmError(Strerror.INVALID_JOB_ID)
        now = int(time.time())
        expected = state.expected.get(job.job_id)
        usage = node_usage(state)
        capacities = [node_capacity(state, name, usage[name]) for name in state.nodes]
        free = {c.name: NodeFree(c.usable, c.free_cpus, c.free_memory_mb, len(c.free_gpus)) for c in capacities}
        dependency = convert.job_info(job, now, expected).dependency
        return ctld_pb2.JobExplanation(lines=explain(job, expected, state.jobs, state.partitions, free,
                                                     dependency, now) + self.ctl.gpu_idle.explain(job, now))

    @translate_errors
    async def CreateToken(self, request: ctld_pb2.TokenRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.TokenReply:
        uid = caller().uid
        return ctld_pb2.TokenReply(token=auth_tokens.issue_token(
            self.ctl.cfg, uid, user_name(uid), request.user_name, request.lifespan,
            is_privileged(self.state, uid), time.time()))

    def _diag(self) -> ctld_pb2.DiagReply:
        stats = self.state.stats
        states = [job.state for job in self.state.jobs.values()]
        now = int(time.time())
        return ctld_pb2.DiagReply(
            now=now, since=stats.since, server_thread_count=self.serving.count,
            agent_queue_size=self.ctl.agent_queue_size, dbd_agent_queue_size=self.ctl.outbox.backlog(),
            jobs_submitted=stats.jobs_submitted, jobs_started=stats.jobs_started,
            jobs_completed=stats.jobs_completed, jobs_canceled=stats.jobs_canceled, jobs_failed=stats.jobs_failed,
            jobs_pending=states.count(JobState.PENDING), jobs_running=states.count(JobState.RUNNING),
            job_states_time=now, schedule_cycle_last_usec=stats.cycle_last_usec,
            schedule_cycle_max_usec=stats.cycle_max_usec, schedule_cycle_count=stats.cycle_count,
            schedule_cycle_sum_usec=stats.cycle_sum_usec, schedule_depth_sum=stats.depth_sum,
            schedule_queue_length=stats.queue_length, schedule_last_cycle_time=stats.last_cycle_time)

    @translate_errors
    async def GetDiag(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.DiagReply:
        return self._diag()

    @translate_errors
    async def ResetDiag(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        """sdiag -r: operators start the counters afresh (Slurm's STAT_COMMAND_RESET)."""
        if not self._operator(caller().uid):
            raise SlurmError(Strerror.ACCESS_DENIED)
        self.state.stats = ControllerStats(since=int(time.time()))
        return types_pb2.Empty()

    @translate_errors
    async def GetMetrics(self, request: ctld_pb2.MetricsRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.MetricsReply:
        uid = caller().uid
        if request.set not in metrics.SETS:
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"unknown metrics set {request.set!r}")
        if not metrics.may_read(self.ctl.cfg, user_name(uid), is_privileged(self.state, uid)):
            raise SlurmError(Strerror.ACCESS_DENIED)
        gauges = metrics.collect(request.set, self.state, self._diag)
        if request.set == "jobs":   # beyond Slurm: the idle-GPU policy's view
            gauges += self.ctl.gpu_idle.gauges(int(time.time()))
        return ctld_pb2.MetricsReply(gauges=gauges)

    @translate_errors
    async def Ping(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.PingReply:
        return ctld_pb2.PingReply(host=self.ctl.cfg.controller_host or socket.gethostname())

    @translate_errors
    async def GetPriorityFactors(self, request: ctld_pb2.PriorityFactorsQuery,
                                 context: grpc.aio.ServicerContext) -> ctld_pb2.PriorityFactorsReply:
        settings = self.state.priorities.settings
        jobs, users = set(request.job_ids), set(request.users)
        return ctld_pb2.PriorityFactorsReply(
            weights=convert.priority_weights(settings), cluster=self.ctl.cfg.cluster_name,
            jobs=[convert.priority_factors_info(f, settings) for f in pending_priority_factors(self.state, int(time.time()))
                  if (not jobs or f.job_id in jobs) and (not users or f.user_name in users)])

    @translate_errors
    async def GetShares(self, request: ctld_pb2.SharesQuery, context: grpc.aio.ServicerContext) -> ctld_pb2.SharesReply:
        accounts, users = set(request.accounts), set(request.users)
        now = int(time.time())
        rows = fairshare_rows(self.state, now)
        run_minutes = tres_run_minutes(self.state.jobs.values(), self.state.associations, now)
        zero = zero_run_minutes()
        # As Slurm: the account filter applies to every row, the user filter to user rows only.
        return ctld_pb2.SharesReply(
            fair_tree=self.state.priorities.settings.fair_tree,
            shares=[convert.share_info(r, run_minutes.get((r.account, r.user, r.partition), zero)) for r in rows
                    if (not accounts or r.account in accounts) and (not r.user or not users or r.user in users)])
