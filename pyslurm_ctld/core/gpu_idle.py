"""The idle-GPU policy's decisions: which running jobs hold GPUs they do not use, and what to do.

Configured in slurm.conf, off unless set:

    GpuIdleParameters=threshold=5,warn=30,limit=60,action=cancel,exempt_partitions=viz:debug,exempt_qos=long,interactive=warn

* `threshold` (%, default 5): a job's GPUs are idle while every one of them, on every node,
  samples below it (the node agents sample every JobAcctGatherFrequency through NVML and
  report the busiest GPU of each job in their heartbeats);
* `warn` (minutes, or seconds as `90s`; default `limit` / 2): idle this long, the job is warned once (a line in its
  output and a notice to its --mail-user and the webhook); busy again, the count restarts;
* `limit` (minutes, required; 0 warns only): idle this long, the job is cancelled (`action=cancel`,
  the default) or requeued (`action=requeue`; a --no-requeue job is cancelled), with reason GpuIdleLimit (squeue, sacct,
  scontrol show job and explain);
* `exempt_partitions`, `exempt_qos` (`:`-separated names): jobs there are left alone;
* `interactive` (`warn`, the default, or `act`): allocations made by srun or salloc (a user may
  be sitting at them) are only warned unless `act`.

A job with no samples (no GPUs, sampling off, NVML missing on its node) is never idle: no data,
no action; a node that stops reporting a job takes its part of the track with it. Pure: folding reports into per-job tracks, deciding (the parsing: settings/gpu_idle_settings.py); the controller's
gpu_idle_actions.py turns decisions into events and notices.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..model.job import Job, JobId, JobState
from ..settings.gpu_idle_settings import IdleGpuPolicy


@dataclass(frozen=True, slots=True)
class IdleTrack:
    """One running job's GPUs as the node agents last reported them."""

    utilization: Mapping[str, int]     # node -> its busiest GPU of the job, latest sample
    idle_since: int | None = None      # when they all went below the threshold; None: busy
    warned: bool = False


def observe(track: IdleTrack | None, node: str, utilization: int, sampled_at: int, threshold: int) -> IdleTrack:
    """A track with one node's report folded in."""
    nodes = {**(track.utilization if track else {}), node: utilization}
    if max(nodes.values()) >= threshold:
        return IdleTrack(nodes)
    since = track.idle_since if track and track.idle_since is not None else sampled_at
    return IdleTrack(nodes, since, track.warned if track else False)


def without_node(track: IdleTrack, node: str) -> IdleTrack | None:
    """The track once `node` stopped reporting the job (its sampling stopped): what the other
    nodes say, None when no node is left (no data: not idle)."""
    nodes = {name: util for name, util in track.utilization.items() if name != node}
    return dataclasses.replace(track, utilization=nodes) if nodes else None


@dataclass(frozen=True, slots=True)
class Warn:
    job_id: JobId
    idle_s: int


@dataclass(frozen=True, slots=True)
class Act:
    job_id: JobId
    action: str        # cancel | requeue
    idle_s: int


def exempt(job: Job, policy: IdleGpuPolicy) -> bool:
    return job.request.partition in policy.exempt_partitions or job.request.qos.lower() in policy.exempt_qos


def decide(jobs: Iterable[Job], tracks: Mapping[JobId, IdleTrack], policy: IdleGpuPolicy,
           now: int) -> list[Warn | Act]:
    """What is due for each running job with GPUs whose GPUs are idle."""
    decisions: list[Warn | Act] = []
    for job in jobs:
        track = tracks.get(job.job_id)
        if (track is None or track.idle_since is None or job.state is not JobState.RUNNING or job.completing
                or job.allocation is None or not job.allocation.total_gpus or exempt(job, policy)):
            continue
        idle = now - track.idle_since
        may_act = policy.limit_s and (policy.act_on_interactive or not job.request.interactive)
        if may_act and idle >= policy.limit_s:
            decisions.append(Act(job.job_id, policy.action, idle))
        elif idle >= policy.warn_s and not track.warned:
            decisions.append(Warn(job.job_id, idle))
    return decisions


def warned(track: IdleTrack) -> IdleTrack:
    return dataclasses.replace(track, warned=True)
