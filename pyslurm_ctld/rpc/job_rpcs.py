"""Jobs over the wire: sbatch (SubmitBatchJob), squeue (GetJobs), scancel (SignalJobs) and
scontrol update/hold/release/requeue/suspend (UpdateJobs), scontrol notify (NotifyJob), scontrol top (TopJobs). Each parses the message, asks one core
decider, commits what it returns and replies."""
from __future__ import annotations

import asyncio
import dataclasses
import time
from signal import SIGKILL
from typing import Awaitable, Callable, Iterable, Mapping

import grpc

from pyslurm_common.array_spec import parse_job_spec
from pyslurm_common.bounds import SIGNAL_NUMBER, STEP_ID, OutOfRange
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.hostlist import compress
from pyslurm_common.rpc import ctld_pb2, types_pb2
from pyslurm_common.rpc_auth import caller, translate_errors
from pyslurm_common.users import group_name, user_name

from ..translate import convert
from ..core import access
from ..core.admission import submission
from ..core.cancel import cancellation, cancellations, named_records, signalling
from ..core.job_notify import notify
from ..core.job_top import topping
from ..core.job_updates import hold_change, job_update, requeue_request, suspension
from ..core.steps import step_signalling, step_termination
from ..core.will_run import ids_spent, will_run
from ..model.events import JobSubmitted
from ..model.job import JobRequest, JobState
from ..model.nodes import NodeRecord
from ..core.job_priorities import check_nice
from .servicer_base import ServicerBase, peer_host


class JobRpcs(ServicerBase):
    @translate_errors
    async def SubmitBatchJob(self, request: ctld_pb2.SubmitRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.SubmitReply:
        event = self._submission(request.job, context)
        if request.test_only:   # when and where it would start; the id is used up, as Slurm's, nothing queued
            answer = will_run(self.state, event.job, int(time.time()))
            await self.ctl.commit(ids_spent(self.state))
            return ctld_pb2.SubmitReply(job_id=answer.job_id, cluster=self.ctl.cfg.cluster_name,
                                        start_time=answer.start_time, cpus=answer.cpus,
                                        nodes=compress(answer.nodes), partition=answer.partition)
        await self.ctl.commit(event)
        return ctld_pb2.SubmitReply(job_id=event.job.job_id, cluster=self.ctl.cfg.cluster_name)

    def _submission(self, desc: types_pb2.JobDesc, context: grpc.aio.ServicerContext) -> JobSubmitted:
        """The caller's job as admission takes it, or its refusal (SlurmError); nothing committed."""
        who = caller()
        check_nice(desc.nice, self._operator(who.uid), Strerror.INVALID_NICE)
        uid, gid = access.job_identity(self.state, who.uid, who.gid,   # --uid/--gid: root's
                                desc.run_as_uid if desc.HasField("run_as_uid") else None,
                                desc.run_as_gid if desc.HasField("run_as_gid") else None)
        return submission(self.state,
            _with_response_port(convert.request_from_desc(desc, self.ctl.cfg.ctld_settings.job_requeue),
                                desc.alloc_resp_port, context.peer()), uid=uid, gid=gid,
            user_name=user_name(uid), group_name=group_name(gid),
            hold=desc.hold, now=int(time.time()), array=desc.array,
            dependency=desc.dependency)

    @translate_errors
    async def GetJobs(self, request: ctld_pb2.JobQuery, context: grpc.aio.ServicerContext) -> bytes:
        """The JobList in its wire form, joined from each job's kept bytes (job_info_cache)."""
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
        listed, idle_seconds, brief = self.job_infos.listed, self.ctl.gpu_idle.idle_seconds, request.brief
        return b"".join([*(listed(j, now, expected.get(j.job_id), _unavailable(j.request.required_nodes, nodes),
                                  idle_seconds(j.job_id, now), brief) for j in selected),
                         ctld_pb2.JobList(now=now).SerializeToString()])

    @translate_errors
    async def SignalJobs(self, request: ctld_pb2.SignalRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.SignalReply:
        uid = caller().uid
        now = int(time.time())
        SIGNAL_NUMBER.refuse(request.signal)
        coordinated, operator = self._coordinated(uid), self._operator(uid)
        # SIGKILL to a whole job (not --batch) ends it, as slurmctld's job_signal does: a cancel
        cancels = request.signal == 0 or (request.signal == SIGKILL and not request.batch_only)

        async def one(job_id: int) -> None:
            if request.step:
                step_id = _step_number(request.step)
                self.ctl.perform(step_termination(self.state, job_id, step_id, uid, operator) if request.signal == 0
                                 else step_signalling(self.state, job_id, step_id, uid, request.signal, operator))
            elif cancels:
                await self.ctl.commit(cancellation(self.state, job_id, uid, now, coordinated, operator))
            else:
                await self.ctl.signal_now(signalling(self.state, job_id, uid, request.signal,
                                                     request.batch_only, request.full, now, coordinated, operator))

        results = await _per_job(request.job_ids, one)
        staged: list[Awaitable[None]] = []
        try:
            for text in request.job_specs:
                results.append(await self._signal_spec(text, request, cancels, uid, now, staged, coordinated, operator))
        finally:
            await asyncio.gather(*staged)      # what was applied goes to disk, one fsync for all
        return ctld_pb2.SignalReply(results=results)

    async def _signal_spec(self, text: str, request: ctld_pb2.SignalRequest, cancels: bool, uid: int, now: int,
                           staged: list[Awaitable[None]], coordinated: frozenset[str],
                           operator: bool) -> ctld_pb2.SignalResult:
        """Cancel or signal what one typed id names (`123` of an array, `123_5`, `123_[1-3]`);
        cancellations are applied at once, their journaling added to `staged` to await."""
        try:
            spec = parse_job_spec(text)
        except ValueError:
            return ctld_pb2.SignalResult(job_spec=text, error=Strerror.INVALID_JOB_ID)
        try:
            if cancels:
                for event in cancellations(self.state, spec, uid, now, coordinated, operator):
                    staged.append(self.ctl.staged(event))
            else:
                records, _ = named_records(self.state, spec, uid, coordinated, operator)
                running = [r for r in records if r.state is JobState.RUNNING] or records[:1]
                for record in running:
                    await self.ctl.signal_now(signalling(self.state, record.job_id, uid, request.signal,
                                                         request.batch_only, request.full, now, coordinated,
                                                         operator))
        except SlurmError as exc:
            return ctld_pb2.SignalResult(job_id=spec.job_id, job_spec=text, error=exc.strerror)
        return ctld_pb2.SignalResult(job_id=spec.job_id, job_spec=text)

    @translate_errors
    async def UpdateJobs(self, request: ctld_pb2.JobUpdateRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.JobUpdateReply:
        uid = caller().uid
        now = int(time.time())
        coordinated, operator = self._coordinated(uid), self._operator(uid)

        # Every job of one command changes before anything else runs: applied at once, the
        # journal lines awaited together at the end. Awaited one by one, a scheduling pass could
        # start between them: `scontrol release` of 12 jobs of two users once started a job of
        # the lower-priority user whose release came first, before the other user's were
        # released (slurmctld changes them all under one lock).
        staged: list[Awaitable[None]] = []

        async def one(job_id: int) -> None:
            if request.action == "update":
                for event in job_update(self.state, job_id, request.settings, uid, operator, now, coordinated):
                    staged.append(self.ctl.staged(event))
            elif request.action in ("requeue", "requeuehold"):
                incomplete = any(s.lower() == "incomplete" for s in request.settings)
                staged.append(self.ctl.staged(requeue_request(self.state,
                    job_id, uid, request.action == "requeuehold", operator, incomplete, now, coordinated)))
            elif request.action in ("suspend", "resume"):
                staged.append(self.ctl.staged(suspension(self.state, job_id, uid, operator,
                                                                      request.action == "suspend", now)))
            else:
                staged.append(self.ctl.staged(hold_change(self.state, job_id, request.action, uid, now,
                                                          coordinated, operator)))

        try:
            results = await _per_job(request.job_ids, one)
        finally:
            await asyncio.gather(*staged)
        return ctld_pb2.JobUpdateReply(results=results)

    @translate_errors
    async def NotifyJob(self, request: ctld_pb2.JobNotification, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        """The reply waits for the node agents, so the line is written when scontrol exits."""
        uid = caller().uid
        messages = notify(self.state, request.job_id, request.text, uid, self._operator(uid), self._coordinated(uid))
        await asyncio.gather(*(self.ctl.tell(message) for message in messages))
        return types_pb2.Empty()

    @translate_errors
    async def TopJobs(self, request: ctld_pb2.TopJobsRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        uid = caller().uid
        events = topping(self.state, list(request.job_specs), uid, self._operator(uid),
                         self.state.options.user_top, int(time.time()))
        await asyncio.gather(*(self.ctl.staged(event) for event in events))   # all at once, as UpdateJobs
        return types_pb2.Empty()


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


def _unavailable(required: tuple[str, ...], nodes: Mapping[str, NodeRecord]) -> tuple[str, ...]:
    """The nodes of -w that cannot be used now (shown in the reason); most jobs name none."""
    return tuple(n for n in required if n in nodes and not nodes[n].usable) if required else ()


def _step_number(text: str) -> int:
    try:
        return STEP_ID.parse(text)
    except OutOfRange:
        raise SlurmError(Strerror.INVALID_JOB_ID) from None


def _with_response_port(request: JobRequest, port: int, peer: str) -> JobRequest:
    """srun/salloc's allocation response port, on the host its submission came from."""
    if not port or not request.interactive:
        return request
    return dataclasses.replace(request, alloc_resp_host=peer_host(peer), alloc_resp_port=port)
