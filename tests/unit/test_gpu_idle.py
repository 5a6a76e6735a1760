"""The idle-GPU policy's setting (settings/gpu_idle_settings.py), its decider (core/gpu_idle.py) and the controller's watch over it
(gpu_idle_actions.py), on jobs of a real ClusterState."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from pyslurm_common.config import ConfigError, load_config
from pyslurm_common.rpc import ctld_pb2
from pyslurm_ctld.core import gpu_idle
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.model.events import JobCancelled, JobRequeueRequested
from pyslurm_ctld.core.gpu_idle import Act, Warn
from pyslurm_ctld.core.reconfigure import load_checked
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.settings.gpu_idle_settings import IdleGpuPolicy, PolicyError, parse_policy
from pyslurm_ctld.shell.gpu_idle_actions import GpuIdleWatch
from pyslurm_ctld.model.job import Job, JobState, Reason

from tests.builders import CONF, make_manager, schedule, submit

POLICY = IdleGpuPolicy(limit_s=3600, warn_s=1800, threshold=5)


def test_the_setting_in_slurm_style() -> None:
    assert parse_policy(None) is None and parse_policy("") is None
    assert parse_policy("limit=60") == IdleGpuPolicy(3600, 1800)
    policy = parse_policy("threshold=10,warn=20,limit=45,action=requeue,exempt_partitions=viz:debug,"
                          "exempt_qos=Long,interactive=act")
    assert policy == IdleGpuPolicy(2700, 1200, 10, "requeue", frozenset({"viz", "debug"}), frozenset({"long"}), True)
    assert parse_policy("warn=10s,limit=0") == IdleGpuPolicy(0, 10)   # warn only
    assert parse_policy("limit=90s,warn=30s").describe() == "below 5% utilisation: warned at 30 s, then cancels at 1 min"


@pytest.mark.parametrize("text", ["warn=10", "limit=x", "limit=60,action=kill", "limit=60,threshold=0",
                                  "limit=60,warn=60", "limit=60,limit=30", "limit=60,colour=red", "limit",
                                  "limit=60,interactive=maybe", "limit=99999999999"])
def test_bad_settings_are_refused_with_the_item(text: str) -> None:
    with pytest.raises(PolicyError, match="^GpuIdleParameters: "):
        parse_policy(text)


def test_a_bad_setting_stops_the_controller_with_the_file(tmp_path: Path) -> None:
    path = tmp_path / "slurm.conf"
    path.write_text(CONF + "GpuIdleParameters=limit=soon\n")
    with pytest.raises(ConfigError, match="slurm.conf.*GpuIdleParameters: limit=soon"):
        load_checked(path)


def test_idle_counts_from_the_first_idle_sample_and_any_busy_node_resets_it() -> None:
    track = gpu_idle.observe(None, "n1", 0, 100, 5)
    track = gpu_idle.observe(track, "n2", 3, 160, 5)
    assert track.idle_since == 100
    busy = gpu_idle.observe(gpu_idle.warned(track), "n2", 50, 200, 5)
    assert busy.idle_since is None and not busy.warned
    assert gpu_idle.observe(busy, "n1", 0, 260, 5).idle_since is None   # n2 still busy
    assert gpu_idle.observe(gpu_idle.observe(busy, "n2", 0, 300, 5), "n1", 0, 320, 5).idle_since == 300


def _running(tmp_path: Path, **request: Any) -> tuple[Any, Job]:
    mgr = make_manager(tmp_path)
    job = submit(mgr, gpus_per_node=1, **request)
    schedule(mgr)
    running = mgr.jobs[job.job_id]
    assert running.state is JobState.RUNNING and running.allocation and running.allocation.total_gpus
    return mgr, running


def test_warn_then_act_and_nothing_for_busy_or_gpu_less_jobs(tmp_path: Path) -> None:
    mgr, job = _running(tmp_path)
    cpu_only = submit(mgr, now=150)
    schedule(mgr, 210)
    tracks = {job.job_id: gpu_idle.observe(None, "n2", 0, 1000, 5),
              cpu_only.job_id: gpu_idle.observe(None, "n1", 0, 1000, 5)}
    assert gpu_idle.decide(mgr.jobs.values(), tracks, POLICY, 1000 + 1799) == []
    assert gpu_idle.decide(mgr.jobs.values(), tracks, POLICY, 1000 + 1800) == [Warn(job.job_id, 1800)]
    tracks[job.job_id] = gpu_idle.warned(tracks[job.job_id])
    assert gpu_idle.decide(mgr.jobs.values(), tracks, POLICY, 1000 + 3599) == []
    assert gpu_idle.decide(mgr.jobs.values(), tracks, POLICY, 1000 + 3600) == [Act(job.job_id, "cancel", 3600)]


@pytest.mark.parametrize(("request_", "policy"), [
    ({"partition": "debug"}, IdleGpuPolicy(3600, 1800, exempt_partitions=frozenset({"debug"}))),
    ({"qos": "long"}, IdleGpuPolicy(3600, 1800, exempt_qos=frozenset({"long"}))),
])
def test_exempt_partitions_and_qos_are_left_alone(tmp_path: Path, request_: dict[str, str],
                                                 policy: IdleGpuPolicy) -> None:
    mgr, job = _running(tmp_path, **request_)
    tracks = {job.job_id: gpu_idle.observe(None, "n2", 0, 0, 5)}
    assert gpu_idle.decide(mgr.jobs.values(), tracks, policy, 10_000) == []


def test_interactive_allocations_are_only_warned_unless_act(tmp_path: Path) -> None:
    mgr, job = _running(tmp_path, launcher="salloc")
    tracks = {job.job_id: gpu_idle.observe(None, "n2", 0, 0, 5)}
    assert gpu_idle.decide(mgr.jobs.values(), tracks, POLICY, 10_000) == [Warn(job.job_id, 10_000)]
    acting = IdleGpuPolicy(3600, 1800, act_on_interactive=True)
    assert gpu_idle.decide(mgr.jobs.values(), tracks, acting, 10_000) == [Act(job.job_id, "cancel", 10_000)]


def _watch(tmp_path: Path, setting: str) -> GpuIdleWatch:
    path = tmp_path / "watch.conf"
    path.write_text(CONF + f"GpuIdleParameters={setting}\n")
    return GpuIdleWatch(ClusterState(load_config(path), slurm_uid=64030))


def _activity(job: Job, util: int, at: int) -> list[ctld_pb2.JobGpuActivity]:
    return [ctld_pb2.JobGpuActivity(job_id=job.job_id, util_percent=util, sampled_at=at)]


def test_the_watch_warns_in_the_output_and_by_notice_then_cancels_with_the_reason(tmp_path: Path) -> None:
    mgr, job = _running(tmp_path, name="train", mail_type="END")
    watch = _watch(tmp_path, "warn=1,limit=2")
    watch.report("n2", _activity(job, 2, 1000), mgr.jobs)
    assert watch.idle_seconds(job.job_id, 1030) == 30
    assert watch.due(mgr.jobs, 1059).events == []
    warned = watch.due(mgr.jobs, 1060)
    [message] = warned.messages
    assert (message.node, message.step) == ("n2", "batch")
    assert message.text == "GPUs idle (below 5%) for 1 min; it will be cancelled at 2 min"
    [notice] = warned.notices
    assert (notice.kind, notice.recipient) == ("IDLE_GPU_WARNING", "alice")
    assert notice.subject == f"Slurm Job_id={job.job_id} Name=train GPUs idle (below 5%) for 1 min; " \
                             "it will be cancelled at 2 min"
    assert watch.due(mgr.jobs, 1100).messages == []   # warned once
    assert watch.explain(job, 1100) == ["Its GPUs have been idle for 1 min; the idle-GPU policy acts on GPUs "
                                        "below 5% utilisation: warned at 1 min, then cancels at 2 min."]
    acted = watch.due(mgr.jobs, 1120)
    assert acted.events == [JobCancelled(job.job_id, 64030, 1120, "GpuIdleLimit")]
    assert acted.messages[0].text == "GPUs idle (below 5%) for 2 min: cancelled by the idle-GPU policy"
    apply(mgr, acted.events[0])
    ended = mgr.jobs[job.job_id]
    assert (ended.state, ended.reason, ended.cancelled_by) == (JobState.CANCELLED, Reason.GPU_IDLE, 64030)
    assert watch.explain(ended, 1130) == ["The idle-GPU policy (GpuIdleParameters) ended this run: its GPUs were "
                                          "idle too long."]


def test_the_watch_requeues_when_asked_and_busy_jobs_are_never_touched(tmp_path: Path) -> None:
    mgr, job = _running(tmp_path)
    watch = _watch(tmp_path, "warn=30s,limit=1,action=requeue")
    watch.report("n2", _activity(job, 80, 1000), mgr.jobs)
    assert watch.due(mgr.jobs, 5000).events == [] and watch.idle_seconds(job.job_id, 5000) == 0
    watch.report("n2", _activity(job, 0, 5000), mgr.jobs)
    watch.due(mgr.jobs, 5030)
    [event] = watch.due(mgr.jobs, 5060).events
    assert event == JobRequeueRequested(job.job_id, 64030, event.hold, 5060, "GpuIdleLimit")
    apply(mgr, event)
    assert (mgr.jobs[job.job_id].state, mgr.jobs[job.job_id].reason) == (JobState.REQUEUED, Reason.GPU_IDLE)
    pending = dataclasses.replace(mgr.jobs[job.job_id], state=JobState.PENDING, reason=Reason.BEGIN_TIME)
    [line] = watch.explain(pending, 5100)
    assert line.startswith("The idle-GPU policy (GpuIdleParameters) requeued it at ") and line.endswith(
        ": its GPUs had been idle for 1 min.")


def test_metrics_count_idle_jobs_and_their_idle_time(tmp_path: Path) -> None:
    mgr, job = _running(tmp_path)
    watch = _watch(tmp_path, "limit=60")
    assert [(g.name, g.value) for g in watch.gauges(1000)] == [("jobs_gpu_idle", 0.0)]
    watch.report("n2", _activity(job, 1, 1000), mgr.jobs)
    gauges = watch.gauges(1090)
    assert [(g.name, g.label, g.label_value, g.value) for g in gauges] == [
        ("jobs_gpu_idle", "", "", 1.0), ("job_gpu_idle_seconds", "jobid", str(job.job_id), 90.0)]


def test_a_node_that_stops_reporting_a_job_leaves_no_idle_time_behind(tmp_path: Path) -> None:
    mgr, job = _running(tmp_path)
    watch = _watch(tmp_path, "warn=1,limit=2")
    watch.report("n2", _activity(job, 0, 1000), mgr.jobs)
    assert watch.idle_seconds(job.job_id, 1100) == 100
    watch.report("n2", [], mgr.jobs)     # NVML went away on n2: no figures for the job any more
    assert watch.idle_seconds(job.job_id, 5000) == 0 and watch.due(mgr.jobs, 5000).events == []


def test_a_job_that_may_not_be_requeued_is_cancelled_instead(tmp_path: Path) -> None:
    mgr, job = _running(tmp_path, requeue=False)
    watch = _watch(tmp_path, "warn=30s,limit=1,action=requeue")
    watch.report("n2", _activity(job, 0, 1000), mgr.jobs)
    watch.due(mgr.jobs, 1030)
    acted = watch.due(mgr.jobs, 1060)
    assert acted.events == [JobCancelled(job.job_id, 64030, 1060, "GpuIdleLimit")]
    assert acted.messages[0].text.endswith(": cancelled by the idle-GPU policy")
    assert acted.notices[0].kind == "IDLE_GPU_CANCELLED"
