"""gRPC Controller service: translate messages, check who is asking, delegate.

Permissions: any authenticated user may submit and read; only the owner or a
privileged user (root, SlurmUser) may cancel, signal or hold a job, or see the live
usage of its steps (sstat); node and
node-agent RPCs are for privileged callers only.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import socket
import time
from pathlib import Path
from typing import Awaitable, Callable, Iterable

import grpc

from pyslurm_common.array_spec import parse_job_spec
from pyslurm_common.bounds import SIGNAL_NUMBER, STEP_ID, STEP_REQUEST, OutOfRange, check_fields
from pyslurm_common.config import ConfigError, parse_node_line
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.gres import GresError, parse_gres
from pyslurm_common.hostlist import HostlistError, compress, expand
from pyslurm_common.multi_prog import MAX_FILE_BYTES as MAX_MULTI_PROG_BYTES
from pyslurm_common.rpc import ctld_pb2, ctld_pb2_grpc, slurmd_pb2, types_pb2
from pyslurm_common.rpc_auth import Serving, caller, translate_errors
from pyslurm_common.units import parse_datetime
from pyslurm_common.users import group_name, user_name

from . import auth_tokens, config_report, metrics
from ..translate import convert
from ..core import node_reconcile, partition_admin
from ..shell.controller import Controller
from ..core import access, job_updates, reservations
from ..core.access import is_privileged
from ..core.admission import submission
from ..core.cancel import cancellation, cancellations, named_records, signalling
from ..core.job_updates import (begin_change, charge_change, cpu_count_change, dependency_change, hold_change,
                                partition_change, priority_change, requeue_request, suspension, throttle_change,
                                time_limit_change)
from ..core.priorities import fairshare_rows, pending_priority_factors
from ..core.share_run_minutes import tres_run_minutes, zero_run_minutes
from ..core.state import ClusterState
from ..core.steps import release, step_creation, step_signalling, step_termination
from ..core.topology import node_creation, node_deletion, node_heartbeat, node_registered, partition_edit
from ..core.usage import node_capacity, node_usage
from ..core.will_run import will_run
from ..model.events import Event, JobIdsUsed, NodeAdminChanged, ReservationSaved, StepFinished
from .explain import NodeFree, explain
from ..model.job import JobId, JobRequest, JobState
from ..translate.job_info_cache import JobInfoCache
from ..core.job_priorities import check_nice
from ..model.statistics import ControllerStats
from ..sched.license_gate import licenses_in_use
from ..shell.node_link import NodeLinkError
from ..model.reservations import node_flags
from ..core.step_layout import StepBusy, StepShape

log = logging.getLogger(__name__)


def _gpu_count(gres: str) -> int:
    try:
        return sum(spec.count for spec in parse_gres(gres) if spec.name == "gpu") if gres else 0
    except GresError:
        return 0


async def _per_job(job_ids: Iterable[int], action: Callable[[int], Awaitable[None]]) -> list[ctld_pb2.SignalResult]:
    """Run `action` for each job; a refusal is that job's result, not the whole call's."""
    results = []
    for job_id in job_ids:
        try:
            await action(job_id)
            results.append(ctld_pb2.SignalResult(job_id=job_id))
        except SlurmError as exc:
            results.append(ctld_pb2.SignalResult(job_id=job_id, error=exc.strerror))
    return results


def _node_names(expressions: Iterable[str]) -> list[str]:
    names: list[str] = []
    for expr in expressions:
        try:
            names += expand(expr)
        except HostlistError as exc:
            raise SlurmError(Strerror.INVALID_NODE_NAME, str(exc)) from exc
    return names


class ControllerServicer(ctld_pb2_grpc.ControllerServicer):
    def __init__(self, ctl: Controller, serving: Serving) -> None:
        self.ctl = ctl
        self.serving = serving    # RPCs in progress (sdiag's server thread count)
        self.job_infos = JobInfoCache()   # GetJobs' messages, per version of each job

    @property
    def state(self) -> ClusterState:
        return self.ctl.state

    def _require_privileged(self) -> None:
        if not is_privileged(self.state, caller().uid):
            raise SlurmError(Strerror.ACCESS_DENIED)

    # ---- users ------------------------------------------------------------------

    @translate_errors
    async def SubmitBatchJob(self, request: ctld_pb2.SubmitRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.SubmitReply:
        who = caller()
        check_nice(request.job.nice, self._operator(who.uid))
        desc = request.job
        uid, gid = access.job_identity(self.state, who.uid, who.gid,   # --uid/--gid: root's
                                desc.run_as_uid if desc.HasField("run_as_uid") else None,
                                desc.run_as_gid if desc.HasField("run_as_gid") else None)
        event = submission(self.state,
            _with_response_port(convert.request_from_desc(request.job, self.ctl.cfg.ctld_settings.job_requeue),
                                request.job.alloc_resp_port, context.peer()), uid=uid, gid=gid,
            user_name=user_name(uid), group_name=group_name(gid),
            hold=request.job.hold, now=int(time.time()), array=request.job.array,
            dependency=request.job.dependency)
        if request.test_only:   # when and where it would start; the id is used up, as Slurm's, nothing queued
            answer = will_run(self.state, event.job, int(time.time()))
            await self.ctl.commit(JobIdsUsed(self.state.next_job_id))
            return ctld_pb2.SubmitReply(job_id=answer.job_id, cluster=self.ctl.cfg.cluster_name,
                                        start_time=answer.start_time, cpus=answer.cpus,
                                        nodes=compress(answer.nodes), partition=answer.partition)
        await self.ctl.commit(event)
        return ctld_pb2.SubmitReply(job_id=event.job.job_id, cluster=self.ctl.cfg.cluster_name)

    @translate_errors
    async def GetJobs(self, request: ctld_pb2.JobQuery, context: grpc.aio.ServicerContext) -> ctld_pb2.JobList:
        jobs = self.state.jobs.values()
        uid = caller().uid
        operator = self._operator(uid)
        if "jobs" in self.ctl.cfg.private_data and not operator:
            # PrivateData=jobs: to anyone but an operator, another user's job is an unknown id
            jobs = [j for j in jobs if j.uid == uid]
        # Hidden partitions' jobs are left out of whole listings only; a job asked for by id is
        # shown (slurmctld's pack_all_jobs against pack_one_job), so sbatch -W and srun find theirs.
        hidden = frozenset() if operator or request.show_all or request.job_ids else frozenset(
            p.name for p in self.state.partitions.values() if p.hidden)
        if hidden:
            jobs = [j for j in jobs if access.job_shown(j, hidden)]
        if request.job_ids:
            # An array id names every record of the array.
            wanted = set(request.job_ids)
            selected = [j for j in jobs
                        if j.job_id in wanted or (j.array is not None and j.array.array_job_id in wanted)]
            if not selected:
                raise SlurmError(Strerror.INVALID_JOB_ID)
        else:
            selected = list(jobs)
        now = int(time.time())
        expected, nodes = self.state.expected, self.state.nodes
        self.job_infos.forget_gone(self.state.jobs)
        return ctld_pb2.JobList(jobs=[self.job_infos.info(j, now, expected.get(j.job_id), tuple(
            n for n in j.request.required_nodes if n in nodes and not nodes[n].usable),
            self.ctl.gpu_idle.idle_seconds(j.job_id, now)) for j in selected], now=now)

    @translate_errors
    async def SignalJobs(self, request: ctld_pb2.SignalRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.SignalReply:
        uid = caller().uid
        now = int(time.time())
        SIGNAL_NUMBER.refuse(request.signal)

        async def one(job_id: int) -> None:
            if request.step:
                step_id = _step_number(request.step)
                self.ctl.perform(step_termination(self.state, job_id, step_id, uid) if request.signal == 0
                                 else step_signalling(self.state, job_id, step_id, uid, request.signal))
            elif request.signal == 0:
                await self.ctl.commit(cancellation(self.state, job_id, uid, now))
            else:
                await self.ctl.signal_now(signalling(self.state, job_id, uid, request.signal,
                                                                  request.batch_only, request.full))

        results = await _per_job(request.job_ids, one)
        staged: list[Awaitable[None]] = []
        try:
            for text in request.job_specs:
                results.append(await self._signal_spec(text, request, uid, now, staged))
        finally:
            await asyncio.gather(*staged)      # what was applied goes to disk, one fsync for all
        return ctld_pb2.SignalReply(results=results)

    async def _signal_spec(self, text: str, request: ctld_pb2.SignalRequest, uid: int, now: int,
                     staged: list[Awaitable[None]]) -> ctld_pb2.SignalResult:
        """Cancel or signal what one typed id names (`123` of an array, `123_5`, `123_[1-3]`);
        cancellations are applied at once, their journaling added to `staged` to await."""
        try:
            spec = parse_job_spec(text)
        except ValueError:
            return ctld_pb2.SignalResult(job_spec=text, error=Strerror.INVALID_JOB_ID)
        try:
            if request.signal == 0:
                for event in cancellations(self.state, spec, uid, now):
                    staged.append(self.ctl.staged(event))
            else:
                records, _ = named_records(self.state, spec, uid)
                running = [r for r in records if r.state is JobState.RUNNING] or records[:1]
                for record in running:
                    await self.ctl.signal_now(signalling(self.state, record.job_id, uid, request.signal,
                                                                      request.batch_only, request.full))
        except SlurmError as exc:
            return ctld_pb2.SignalResult(job_id=spec.job_id, job_spec=text, error=exc.strerror)
        return ctld_pb2.SignalResult(job_id=spec.job_id, job_spec=text)

    @translate_errors
    async def UpdateJobs(self, request: ctld_pb2.JobUpdateRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.JobUpdateReply:
        uid = caller().uid
        now = int(time.time())

        # Every job of one command changes before anything else runs: applied at once, the
        # journal lines awaited together at the end. Awaited one by one, a scheduling pass could
        # start between them: `scontrol release` of 12 jobs of two users once started a job of
        # the lower-priority user whose release came first, before the other user's were
        # released (slurmctld changes them all under one lock).
        staged: list[Awaitable[None]] = []

        async def one(job_id: int) -> None:
            if request.action == "update":
                for event in self._job_update(job_id, request.settings, uid, now):
                    staged.append(self.ctl.staged(event))
            elif request.action in ("requeue", "requeuehold"):
                incomplete = any(s.lower() == "incomplete" for s in request.settings)
                staged.append(self.ctl.staged(requeue_request(self.state,
                    job_id, uid, request.action == "requeuehold", self._operator(uid), incomplete, now)))
            elif request.action in ("suspend", "resume"):
                staged.append(self.ctl.staged(suspension(self.state, job_id, uid, self._operator(uid),
                                                                      request.action == "suspend", now)))
            else:
                staged.append(self.ctl.staged(hold_change(self.state, job_id, request.action, uid, now)))

        try:
            results = await _per_job(request.job_ids, one)
        finally:
            await asyncio.gather(*staged)
        return ctld_pb2.JobUpdateReply(results=results)

    def _operator(self, uid: int) -> bool:
        """root, SlurmUser, or AdminLevel Operator/Administrator in accounting."""
        return is_privileged(self.state, uid) or self.state.associations.is_operator(user_name(uid))

    def _job_update(self, job_id: int, settings: Iterable[str], uid: int, now: int) -> list[Event]:
        """`scontrol update jobid=N Key=Value ...`: Dependency=, ArrayTaskThrottle=, StartTime=,
        Account=, QOS=, Priority=, Nice=, TimeLimit= (and TimeLimit+=/-=), Partition=, NumCPUs=,
        Reservation=, Licenses=.
        Every setting is checked before any is applied."""
        changes = {key.lower(): value for key, _, value in (item.partition("=") for item in settings)}
        unknown = set(changes) - {"dependency", "arraytaskthrottle", "starttime", "account", "qos", "priority",
                                  "nice", "timelimit", "timelimit+", "timelimit-", "partition", "numcpus",
                                  "reservation", "licenses"}
        if unknown:
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"Update of this job field is not supported: {min(unknown)}")
        events: list[Event] = []
        if "dependency" in changes:
            events.append(dependency_change(self.state, job_id, changes["dependency"], uid))
        if "arraytaskthrottle" in changes:
            events.append(throttle_change(self.state, job_id, changes["arraytaskthrottle"], uid))
        if "starttime" in changes:
            try:
                begin = parse_datetime(changes["starttime"], now)
            except ValueError:
                raise SlurmError(Strerror.INVALID_TIME_VALUE) from None
            events.append(begin_change(self.state, job_id, begin, uid))
        if "account" in changes or "qos" in changes:
            events.append(charge_change(self.state, job_id, changes.get("account"), changes.get("qos"), uid,
                                                     self._operator(uid)))
        if "priority" in changes or "nice" in changes:
            events.append(priority_change(self.state, job_id, uid, self._operator(uid), changes.get("priority"),
                                                       changes.get("nice"), now))
        if "numcpus" in changes:
            events.append(cpu_count_change(self.state, job_id, uid, self._operator(uid), changes["numcpus"]))
        if "partition" in changes:
            events.append(partition_change(self.state, job_id, uid, self._operator(uid), changes["partition"]))
        if "licenses" in changes:
            events.append(job_updates.licenses_change(self.state, job_id, uid, self._operator(uid),
                                                      changes["licenses"]))
        if "reservation" in changes:
            events.append(reservations.job_change(self.state, job_id, uid, self._operator(uid),
                                                  changes["reservation"], now))
        for key in ("timelimit", "timelimit+", "timelimit-"):
            if key in changes:
                events.append(time_limit_change(self.state, job_id, uid, self._operator(uid), key[9:],
                                                             changes[key]))
        return events

    @translate_errors
    async def GetNodes(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.NodeList:
        usage = node_usage(self.state)
        reserved = node_flags(self.state.reservations.values(), int(time.time()))
        return ctld_pb2.NodeList(nodes=[convert.node_info(rec, usage[name], reserved.get(name, ()))
                                        for name, rec in self.state.nodes.items()])

    @translate_errors
    async def UpdateNodes(self, request: ctld_pb2.NodeUpdateRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        state = request.state.upper()
        if state not in ("DRAIN", "DOWN", "RESUME", "UNDRAIN"):
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"Invalid node state specified: {request.state}")
        if state in ("DRAIN", "DOWN") and not request.reason:
            raise SlurmError(Strerror.INVALID_ARGUMENT,
                             "You must specify a reason when DOWNING or DRAINING a node. Request denied")
        names = _node_names(request.names)
        unknown = [n for n in names if n not in self.state.nodes]
        if unknown:
            raise SlurmError(Strerror.INVALID_NODE_NAME, f"Invalid node name specified: {unknown[0]}")
        await self.ctl.commit(NodeAdminChanged(tuple(names), state, request.reason, caller().uid, int(time.time())))
        return types_pb2.Empty()

    @translate_errors
    async def DeleteNodes(self, request: ctld_pb2.NodeDeleteRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        event = node_deletion(self.state, _node_names(request.names))
        await self.ctl.commit(event)
        log.info("nodes %s deleted by uid %d", ",".join(event.nodes), caller().uid)
        return types_pb2.Empty()

    @translate_errors
    async def CreateNode(self, request: ctld_pb2.NodeCreateRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        """scontrol create nodename=...: a dynamic node, defined before its pyslurmd -Z starts."""
        self._require_privileged()
        name = request.definition.split(None, 1)[0].partition("=")[2] if request.definition.strip() else ""
        if name in self.state.nodes:
            raise SlurmError(Strerror.INVALID_NODE_NAME, f"Node {name} already exists")
        await self._create_dynamic_node(name, request.definition)
        return types_pb2.Empty()

    @translate_errors
    async def EditPartition(self, request: ctld_pb2.PartitionEdit, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        settings = partition_admin.settings_from_words(request.settings)
        event = partition_edit(self.state, request.action, request.name, settings, caller().uid)
        await self.ctl.commit(event)
        log.info("partition %s: %s %s by uid %d", request.name, request.action, " ".join(request.settings),
                 caller().uid)
        return types_pb2.Empty()

    @translate_errors
    async def GetLicenses(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.LicenseList:
        used = licenses_in_use(self.state.jobs.values())
        now = int(time.time())
        active = [r for r in self.state.reservations.values() if r.licenses and r.active(now)]
        return ctld_pb2.LicenseList(licenses=[
            ctld_pb2.LicenseInfo(name=name, total=total, used=used.get(name, 0),
                                 reserved=sum(r.license_count(name) for r in active))
            for name, total in self.state.cfg.licenses])

    @translate_errors
    async def EditReservation(self, request: ctld_pb2.ReservationEdit,
                              context: grpc.aio.ServicerContext) -> ctld_pb2.ReservationEditReply:
        uid, now = caller().uid, int(time.time())
        operator = self._operator(uid)
        settings = list(request.settings)
        _check_user_names(settings)
        for gone in reservations.expired(self.state, now):
            await self.ctl.commit(gone)
        event: Event
        if request.action == "create":
            event = reservations.creation(self.state, settings, operator, user_name(uid), now)
        elif request.action == "update":
            event = reservations.update(self.state, request.name, settings, operator, now)
        elif request.action == "delete":
            event = reservations.deletion(self.state, request.name, operator, now)
        else:
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"unknown action {request.action}")
        await self.ctl.commit(event)
        name = event.record.name if isinstance(event, ReservationSaved) else event.name
        log.info("reservation %s: %s %s by uid %d", name, request.action, " ".join(settings), uid)
        return ctld_pb2.ReservationEditReply(name=name)

    @translate_errors
    async def GetReservations(self, request: types_pb2.Empty,
                              context: grpc.aio.ServicerContext) -> ctld_pb2.ReservationList:
        now = int(time.time())
        uid = caller().uid
        name, operator = user_name(uid), self._operator(uid)
        return ctld_pb2.ReservationList(reservations=[
            convert.reservation_info(r, self.state.nodes, now)
            for r in sorted(self.state.reservations.values(), key=lambda r: r.window(now)[0])
            if not r.over(now) and reservations.visible(self.state, r, name, operator)])

    @translate_errors
    async def Reconfigure(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        log.info("reconfigure requested by uid %d", caller().uid)
        await self.ctl.reconfigure()
        return types_pb2.Empty()

    @translate_errors
    async def GetPartitions(self, request: ctld_pb2.PartitionQuery,
                            context: grpc.aio.ServicerContext) -> ctld_pb2.PartitionList:
        shown = access.shown_partitions(self.state.partitions.values(), self._operator(caller().uid), request.show_all)
        return ctld_pb2.PartitionList(partitions=[
            convert.partition_info(p, self.state.nodes, self.state.cfg.preempt.mode) for p in shown])

    @translate_errors
    async def GetConfig(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.ConfigDump:
        def entries(pairs: list[tuple[str, str]]) -> list[ctld_pb2.ConfigEntry]:
            return [ctld_pb2.ConfigEntry(key=k, value=v) for k, v in pairs]

        backends = {name: rec.cgroup_backend for name, rec in self.state.nodes.items()}
        return ctld_pb2.ConfigDump(
            entries=entries(config_report.slurm_conf_entries(self.ctl.cfg, self.state.slurm_uid)),
            sections=[ctld_pb2.ConfigSection(title=config_report.CGROUP_TITLE,
                                             entries=entries(config_report.cgroup_entries(self.ctl.cgroup, backends)))],
            read_time=self.ctl.config_read_at)

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
    async def GetStepUsage(self, request: ctld_pb2.StepUsageQuery, context: grpc.aio.ServicerContext) -> types_pb2.StepUsageList:
        try:
            return await self.ctl.step_usage(request.job_id, request.step_id, caller().uid)
        except NodeLinkError as exc:
            log.warning("job=%d step usage: %s", request.job_id, exc)
            raise SlurmError(Strerror.COMM_FAILURE, str(exc)) from exc

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

    # ---- interactive work (srun, salloc) -------------------------------------------

    @translate_errors
    async def WaitAllocation(self, request: ctld_pb2.AllocationWait, context: grpc.aio.ServicerContext) -> ctld_pb2.AllocationState:
        job = await self.ctl.wait_allocation(request.job_id, caller().uid, request.timeout_ms / 1000)
        return ctld_pb2.AllocationState(job=convert.job_info(job))

    @translate_errors
    async def CreateStep(self, request: ctld_pb2.StepRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.StepReply:
        if not request.argv:
            raise SlurmError(Strerror.INVALID_ARGUMENT, "no command to run")
        if len(request.multi_prog) > MAX_MULTI_PROG_BYTES:   # what srun refuses to send
            raise SlurmError(Strerror.INVALID_ARGUMENT, "multi_prog config file is too large")
        check_fields(request, STEP_REQUEST)
        try:
            nodelist = tuple(expand(request.nodelist)) if request.nodelist else ()
        except HostlistError as exc:
            raise SlurmError(Strerror.INVALID_NODE_NAME, str(exc)) from exc
        shape = StepShape(num_tasks=request.num_tasks, min_nodes=request.min_nodes,
                          cpus_per_task=request.cpus_per_task, exact=request.exact, overlap=request.overlap,
                          nodelist=nodelist, distribution=request.distribution)
        name = request.name or os.path.basename(request.argv[0])
        try:
            event = step_creation(self.state, request.job_id, caller().uid, shape, name, tuple(request.argv),
                                  int(time.time()),
                                  request.resv_ports if request.HasField("resv_ports") else None)
        except StepBusy as busy:   # CPUs held by other steps (a node name), or reserved ports (its Strerror)
            why = busy.args[0] if busy.args and isinstance(busy.args[0], Strerror) else Strerror.STEP_NODES_BUSY
            return ctld_pb2.StepReply(job_id=request.job_id, busy=True, busy_reason=str(why))
        spec = slurmd_pb2.TaskLaunch(
            argv=request.argv, environment=request.environment, work_dir=request.work_dir,
            io_host=request.io_host or srun_address(context.peer(), self.ctl.cfg.controller_addr),
            io_port=request.io_port,
            io_key=request.io_key,
            pty=request.pty, pty_rows=request.pty_rows, pty_cols=request.pty_cols, std_out=request.std_out,
            std_err=request.std_err, std_in=request.std_in, input_task=request.input_task,
            rlimits=request.rlimits, umask=request.umask, step_name=name,
            kill_on_bad_exit=request.kill_on_bad_exit, wait_seconds=request.wait_seconds,
            multi_prog=request.multi_prog, preserve_env=request.preserve_env, bcast_staged=request.bcast_staged,
            append=request.open_mode == "append" or (not request.open_mode and self._requeued(request.job_id)))
        step = await self.ctl.start_step(event, spec)
        return ctld_pb2.StepReply(job_id=request.job_id, step_id=step.step_id, nodes=step.nodes,
                                  tasks_per_node=step.tasks_per_node, num_tasks=step.num_tasks)

    @translate_errors
    async def AttachStep(self, request: ctld_pb2.StepAttachRequest,
                         context: grpc.aio.ServicerContext) -> ctld_pb2.StepAttachReply:
        """sattach. The stepds connect back to the address the request came from, never to one the
        caller names; the key (a bounded hex word, it travels in a stepd control line) is theirs."""
        io_port = 0 if request.layout_only else request.io_port
        if io_port and (io_port > 65535 or not 0 < len(request.io_key) <= 64
                        or any(c not in "0123456789abcdef" for c in request.io_key)):
            raise SlurmError(Strerror.INVALID_ARGUMENT, "sattach: bad listener port or key")
        try:
            uid = caller().uid
            private = "jobs" in self.ctl.cfg.private_data and not self._operator(uid)
            step, attached = await self.ctl.attach_step(
                request.job_id, request.step_id, uid, private,
                srun_address(context.peer(), self.ctl.cfg.controller_addr), io_port, request.io_key)
        except NodeLinkError as exc:
            log.warning("job=%d step %d attach: %s", request.job_id, request.step_id, exc)
            raise SlurmError(Strerror.COMM_FAILURE, str(exc)) from exc
        return ctld_pb2.StepAttachReply(nodes=step.nodes, tasks_per_node=step.tasks_per_node, attached=attached,
                                        distribution=step.distribution)

    def _requeued(self, job_id: int) -> bool:
        """A requeued job's steps append to their files by default, as its batch output does."""
        job = self.state.jobs.get(JobId(job_id))
        return job is not None and job.restarts > 0

    @translate_errors
    async def CompleteAllocation(self, request: ctld_pb2.AllocationRelease, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        await self.ctl.commit(release(self.state, request.job_id, caller().uid, request.exit_code,
                                                   request.exit_signal, int(time.time())))
        return types_pb2.Empty()

    # ---- node agents ------------------------------------------------------------

    @translate_errors
    async def RegisterNode(self, request: ctld_pb2.NodeRegistration, context: grpc.aio.ServicerContext) -> ctld_pb2.RegistrationReply:
        self._require_privileged()
        if request.dynamic_conf:
            await self._create_dynamic_node(request.name, request.dynamic_conf)
        rec = node_registered(self.state,
            request.name, time.time(), cpus=request.cpus, real_memory_mb=request.real_memory_mb,
            gpus=_gpu_count(request.gres),
            address=request.address or _peer_host(context.peer()), port=request.port,
            boot_time=request.boot_time, slurmd_start_time=int(time.time()), arch=request.arch,
            os=request.os, cgroup_backend=request.cgroup_backend)
        self.ctl.report_node_changes()    # registration may bring a DOWN node back
        steps = await self._reconcile(rec.name, request)
        self.ctl.wake_scheduler()
        return ctld_pb2.RegistrationReply(accepted=True, reason=rec.reason, steps=steps)

    async def _create_dynamic_node(self, name: str, definition: str) -> None:
        try:
            node = parse_node_line(definition, Path(f"pyslurmd -Z --conf of {name}"))
        except ConfigError as exc:
            raise SlurmError(Strerror.INVALID_ARGUMENT, str(exc)) from exc
        if node.name != name:
            raise SlurmError(Strerror.INVALID_NODE_NAME, f"node {name} sent a definition of {node.name}")
        event = node_creation(self.state, node)
        if event is not None:
            await self.ctl.commit(event)
            log.info("node=%s dynamic node added: %s", name, definition)

    @translate_errors
    async def NodeHeartbeat(self, request: ctld_pb2.Heartbeat,
                            context: grpc.aio.ServicerContext) -> ctld_pb2.StepReconciliation:
        self._require_privileged()
        node_heartbeat(self.state, request.name, time.time(), request.cpu_load, request.free_memory_mb)
        self.ctl.gpu_idle.report(request.name, request.gpu_activity, self.state.jobs)
        return await self._reconcile(request.name, request)

    async def _reconcile(self, node: str, request: ctld_pb2.NodeRegistration | ctld_pb2.Heartbeat
                         ) -> ctld_pb2.StepReconciliation:
        """Record the ends the node reports, then settle what it runs against what it should.
        An agent older than these reports sends none (not an empty one): it runs what it runs."""
        if not request.HasField("steps"):
            return ctld_pb2.StepReconciliation()
        steps, now = request.steps, int(time.time())
        ends, acknowledged = convert.node_step_ends(steps, now)
        for event in ends:
            await self._commit_end(event)
        running = frozenset((step.job_id, step.step) for step in steps.running)
        outcome = node_reconcile.reconcile(self.state.jobs.on_node(node), node, running,
                                           self.state.nodes[node].boot_time, now)
        for event in outcome.events:
            await self.ctl.commit(event)
        return ctld_pb2.StepReconciliation(
            acknowledged=acknowledged,
            kill=[ctld_pb2.NodeStep(job_id=job_id, step=step) for job_id, step in outcome.kill])

    async def _commit_end(self, event: Event) -> None:
        if isinstance(event, StepFinished) and event.kill_task_failed:
            await self.ctl.commit(NodeAdminChanged((event.node,), "DRAIN", "Kill task failed", 0, event.time))
        await self.ctl.commit(event)

    @translate_errors
    async def CompleteBatch(self, request: ctld_pb2.BatchCompletion, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        await self._commit_end(convert.batch_end(request, int(time.time())))
        return types_pb2.Empty()

    @translate_errors
    async def CompleteStep(self, request: ctld_pb2.StepCompletion, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        await self._commit_end(convert.step_end(request, int(time.time())))
        return types_pb2.Empty()


def _step_number(text: str) -> int:
    try:
        return STEP_ID.parse(text)
    except OutOfRange:
        raise SlurmError(Strerror.INVALID_JOB_ID) from None


def srun_address(peer: str, controller_addr: str) -> str:
    """Where a step's nodes reach srun: the address its request came from (through the auth
    agent on srun's host), or, for an srun on the controller's host that came over loopback
    (127.0.1.1 for the host name on Debian), the controller's address, which every node reaches."""
    host = _peer_host(peer)
    if host == "::1" or host.startswith("127."):
        return controller_addr or host
    return host


def _with_response_port(request: JobRequest, port: int, peer: str) -> JobRequest:
    """srun/salloc's allocation response port, on the host its submission came from."""
    if not port or not request.interactive:
        return request
    return dataclasses.replace(request, alloc_resp_host=_peer_host(peer), alloc_resp_port=port)


def _peer_host(peer: str) -> str:
    """The address in a gRPC peer string (`ipv4:10.0.0.5:41234`, `ipv6:[::1]:41234`)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    return "127.0.0.1"


def _check_user_names(settings: list[str]) -> None:
    """Users= of a reservation names users that exist ("Invalid user id" otherwise, as Slurm)."""
    import pwd

    for setting in settings:
        key, _, value = setting.partition("=")
        if len(key) >= 1 and "users".startswith(key.lower()):
            for name in filter(None, value.split(",")):
                try:
                    pwd.getpwnam(name.removeprefix("-"))
                except KeyError:
                    raise SlurmError(Strerror.INVALID_USER_ID) from None
