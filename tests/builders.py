"""Builders shared by the unit and simulation tests: a job request with every field set, and a
controller state (ClusterState over a small slurm.conf) with helpers that submit, schedule and finish jobs.

Tests change what they care about (`job_request(name="sim", time_limit_min=60)`) instead of
copying the 26-field literal, so a new request field is added here once.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from pyslurm_common.config import load_config
from pyslurm_common.errors import SlurmError
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.topology import node_registered
from pyslurm_ctld.model.events import Account, BatchFinished, Effect
from pyslurm_ctld.model.job import Job, JobId, JobRequest, JobState
from pyslurm_ctld.model.nodes import NodeRecord

_BASE_REQUEST = JobRequest(
    name="job", partition="", account="", qos="", min_nodes=1, num_tasks=1, cpus_per_task=1,
    ntasks_given=False, cpus_per_task_given=False, mem_per_node_mb=0, mem_per_cpu_mb=0,
    time_limit_min=0, work_dir="/tmp", std_out="slurm-%j.out", std_err="slurm-%j.out",
    std_in="/dev/null", script="#!/bin/sh\ntrue\n", environment=(), argv=(), command="",
    submit_host="login", umask=0o022, export_env="", append_output=False, nice=0, requeue=True,
)


def job_request(**changes: Any) -> JobRequest:
    """A one-task, one-CPU batch request in the default partition, with `changes` applied."""
    return dataclasses.replace(_BASE_REQUEST, **changes)


ROOT, SLURM_UID, ALICE, BOB = 0, 450, 1000, 1001
USERS = {ROOT: "root", SLURM_UID: "slurm", ALICE: "alice", BOB: "bob"}

# n1: 4 CPUs / 4000 MB, n2: 8 CPUs / 8000 MB and two GPUs (an a100, index 0, and a v100, index
# 1). `debug` (default, MaxTime 60) has both; `long` (no MaxTime, DefaultTime 120) only the small
# node, so a request can exceed the partition but not the cluster.
CONF = """\
ClusterName=lab
SlurmctldHost=head
MinJobAge=300
SlurmdTimeout=300
NodeName=n1 CPUs=4 RealMemory=4000
NodeName=n2 CPUs=8 RealMemory=8000 Gres=gpu:a100:1,gpu:v100:1
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=60
PartitionName=long Nodes=n1 DefaultTime=120
"""

RAW = job_request(environment=("HOME=/home/alice",), argv=("a",), command="/home/alice/job.sh",
                  work_dir="/home/alice")


def register_node(mgr: ClusterState, name: str, now: float, **reported: Any) -> NodeRecord:
    """A node agent's registration, reporting exactly the configured hardware unless told otherwise."""
    configured = mgr.nodes[name].config if name in mgr.nodes else None
    reported.setdefault("cpus", configured.cpus if configured else 1)
    reported.setdefault("real_memory_mb", configured.real_memory_mb if configured else 1)
    reported.setdefault("gpus", len(mgr.gpu_types.get(name, {})))
    return node_registered(mgr, name, now, **reported)


def make_manager(tmp_path: Path, extra: str = "", conf: str = CONF, register: bool = True) -> ClusterState:
    path = tmp_path / "slurm.conf"
    path.write_text(conf + extra)
    mgr = ClusterState(load_config(path), slurm_uid=SLURM_UID)
    if register:
        for name in mgr.nodes:
            register_node(mgr, name, now=0.0)
    return mgr


def submit(mgr: ClusterState, now: int = 100, uid: int = ALICE, hold: bool = False, **request: Any) -> Job:
    event = submission(mgr, dataclasses.replace(RAW, **request), uid, uid, USERS[uid], USERS[uid], hold, now)
    assert apply(mgr, event) == [Account(event.job)]
    return mgr.jobs[event.job.job_id]


def error_of(call: Any, *args: Any, **kwargs: Any) -> SlurmError:
    with pytest.raises(SlurmError) as info:
        call(*args, **kwargs)
    return info.value


def schedule(mgr: ClusterState, now: int = 200) -> list[Effect]:
    effects: list[Effect] = []
    for event in schedule_pass(mgr, now):
        effects += apply(mgr, event)
    return effects


def run_job(mgr: ClusterState, now: int = 200, **request: Any) -> Job:
    job = submit(mgr, now=now - 1, **request)
    schedule(mgr, now)
    running = mgr.jobs[job.job_id]
    assert running.state is JobState.RUNNING, running
    return running


def finish(mgr: ClusterState, job_id: int, now: int = 300, exit_code: int = 0, exit_signal: int = 0,
           oom: bool = False, launch_failed: bool = False) -> list[Effect]:
    return apply(mgr, BatchFinished(JobId(job_id), exit_code, exit_signal, oom, launch_failed, now))
