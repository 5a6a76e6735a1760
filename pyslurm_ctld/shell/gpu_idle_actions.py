"""The idle-GPU policy in the controller: keeps each running job's idle track from the node
agents' heartbeats, and turns gpu_idle.py's decisions into what the controller does: a line in
the job's output and a notice for a warning; a cancellation or requeue event (reason
GpuIdleLimit) and a notice for the action. Also answers squeue's idle time and explain's lines.

Tracks live in memory: after a controller restart the count starts again from the next reports
(a job gets more time, never less).
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pyslurm_common.rpc import ctld_pb2
from pyslurm_common.units import format_timestamp

from ..translate import convert, job_mail
from ..core import gpu_idle
from ..model.events import Event, JobCancelled, JobRequeueRequested
from ..core.gpu_idle import Act, IdleTrack, Warn
from ..core.job_notify import JobMessage, message_targets
from ..core.state import ClusterState
from ..model.job import Hold, Job, JobId, JobState, Reason
from ..settings.gpu_idle_settings import DEFAULT_THRESHOLD, IdleGpuPolicy, span
from .notifier import Notice

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IdleActions:
    events: list[Event]
    messages: list[JobMessage]
    notices: list[Notice]


class GpuIdleWatch:
    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self.tracks: dict[JobId, IdleTrack] = {}
        self.requeued: dict[JobId, tuple[int, int]] = {}   # requeued by the policy: when, idle seconds

    @property
    def policy(self) -> IdleGpuPolicy | None:
        """The configuration in force's (parsed with it: a reconfigure changes it here too)."""
        return self.state.gpu_idle_policy

    @property
    def slurm_uid(self) -> int:
        return self.state.slurm_uid

    def report(self, node: str, activity: Iterable[ctld_pb2.JobGpuActivity], jobs: Mapping[JobId, Job]) -> None:
        """One heartbeat's GPU activity (the busiest GPU of each job on that node)."""
        threshold = self.policy.threshold if self.policy else DEFAULT_THRESHOLD
        activity = list(activity)
        reported = {JobId(item.job_id) for item in activity}
        for job_id, track in list(self.tracks.items()):   # no figures from this node any more: no data
            if node in track.utilization and job_id not in reported:
                rest = gpu_idle.without_node(track, node)
                if rest is None:
                    del self.tracks[job_id]
                else:
                    self.tracks[job_id] = rest
        for item in activity:
            job = jobs.get(JobId(item.job_id))
            if job is not None and job.state is JobState.RUNNING:
                self.tracks[job.job_id] = gpu_idle.observe(self.tracks.get(job.job_id), node, item.util_percent,
                                                           item.sampled_at, threshold)

    def idle_seconds(self, job_id: JobId, now: int) -> int:
        track = self.tracks.get(job_id)
        return max(0, now - track.idle_since) if track and track.idle_since is not None else 0

    def due(self, jobs: Mapping[JobId, Job], now: int) -> IdleActions:
        """What the policy does now; tracks of jobs no longer running go."""
        for gone in [job_id for job_id in self.tracks if job_id not in jobs or jobs[job_id].state is not JobState.RUNNING]:
            del self.tracks[gone]
        self.requeued = {job_id: seen for job_id, seen in self.requeued.items()
                         if job_id in jobs and not jobs[job_id].state.is_finished}
        result = IdleActions([], [], [])
        if self.policy is None:
            return result
        for decision in gpu_idle.decide(jobs.values(), self.tracks, self.policy, now):
            job = jobs[decision.job_id]
            text, kind = self._act(job, decision, now, result) if isinstance(decision, Act) else self._warn(job, decision)
            log.info("job=%d %s", job.job_id, text)
            result.messages.extend(message_targets(job, text))
            result.notices.append(_notice(job, kind, text))
        return result

    def _action(self, job: Job) -> str:
        """What the policy does to this job: requeued, or cancelled (as asked, or --no-requeue)."""
        assert self.policy is not None
        return "requeued" if self.policy.action == "requeue" and job.request.requeue else "cancelled"

    def _act(self, job: Job, decision: Act, now: int, result: IdleActions) -> tuple[str, str]:
        assert self.policy is not None
        action = self._action(job)
        result.events.append(
            JobRequeueRequested(job.job_id, self.slurm_uid, Hold.NONE, now, str(Reason.GPU_IDLE))
            if action == "requeued" else JobCancelled(job.job_id, self.slurm_uid, now, str(Reason.GPU_IDLE)))
        del self.tracks[job.job_id]
        if action == "requeued":
            self.requeued[job.job_id] = (now, decision.idle_s)
        idle = span(decision.idle_s)
        return (f"GPUs idle (below {self.policy.threshold}%) for {idle}: {action} by the idle-GPU policy",
                f"IDLE_GPU_{action.upper()}")

    def _warn(self, job: Job, decision: Warn) -> tuple[str, str]:
        assert self.policy is not None
        policy = self.policy
        then = (f"; it will be {self._action(job)} at {span(policy.limit_s)}"
                if policy.limit_s and (policy.act_on_interactive or not job.request.interactive) else "")
        self.tracks[job.job_id] = gpu_idle.warned(self.tracks[job.job_id])
        return f"GPUs idle (below {policy.threshold}%) for {span(decision.idle_s)}{then}", "IDLE_GPU_WARNING"

    def gauges(self, now: int) -> list[ctld_pb2.Gauge]:
        """For the jobs metrics set: how many jobs have idle GPUs, and for how long each has."""
        idle = {job_id: self.idle_seconds(job_id, now) for job_id in sorted(self.tracks)}
        idle = {job_id: seconds for job_id, seconds in idle.items() if seconds}
        return [ctld_pb2.Gauge(name="jobs_gpu_idle", value=float(len(idle))),
                *(ctld_pb2.Gauge(name="job_gpu_idle_seconds", label="jobid", label_value=str(job_id),
                                 value=float(seconds)) for job_id, seconds in idle.items())]

    def explain(self, job: Job, now: int) -> list[str]:
        """`scontrol explain`'s lines about the policy and this job."""
        if job.reason is Reason.GPU_IDLE:
            return ["The idle-GPU policy (GpuIdleParameters) ended this run: its GPUs were idle too long."]
        if job.state is JobState.PENDING and job.job_id in self.requeued:
            when, idle_s = self.requeued[job.job_id]
            return [f"The idle-GPU policy (GpuIdleParameters) requeued it at {format_timestamp(when)}: its GPUs "
                    f"had been idle for {span(idle_s)}."]
        idle = self.idle_seconds(job.job_id, now)
        if self.policy is None or job.state is not JobState.RUNNING or not idle:
            return []
        if gpu_idle.exempt(job, self.policy):
            return [f"Its GPUs have been idle for {span(idle)}; its partition or QOS is exempt from the "
                    "idle-GPU policy."]
        return [f"Its GPUs have been idle for {span(idle)}; the idle-GPU policy acts on GPUs "
                f"{self.policy.describe()}."]


def _notice(job: Job, kind: str, text: str) -> Notice:
    subject = f"Slurm Job_id={job.job_id} Name={job.request.name} {text}"
    recipient = (job.request.mail_user or job.user_name) if job_mail.wanted(job) else ""
    std_out, _, _ = convert.io_paths(job)
    return Notice(job.job_id, kind, job.user_name, subject, f"{text}.\nOutput: {std_out}\n", recipient,
                  {"SLURM_JOB_ID": str(job.job_id), "SLURM_JOB_NAME": job.request.name,
                   "SLURM_JOB_USER": job.user_name, "SLURM_JOB_MAIL_TYPE": "Idle GPU"})
