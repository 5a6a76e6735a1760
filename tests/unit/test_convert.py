"""Wire <-> domain for GPUs and CPU ids (pyslurm_ctld/translate/convert.py, Controller.launch_message).

Spec: cli-sbatch-srun-salloc.md (`--gres`, `--gpus*`, the `Invalid generic resource (gres)
specification` rejection), cli-squeue-sinfo-scontrol-scancel.md (squeue `%b` TRES_PER_NODE,
`TresPerNode=`, `GresUsed=`), daemons-and-cgroups.md §6.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pyslurm_common import job_credential
from pyslurm_common.config import load_config
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import types_pb2
from pyslurm_common.rpc_auth import Signer
from pyslurm_ctld.translate import convert
from pyslurm_ctld.shell.controller import Controller
from pyslurm_ctld.model.job import Allocation, Job, JobId, JobState
from pyslurm_ctld.core.usage import NodeUsage
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.topology import node_registered
from pyslurm_ctld.core.usage import node_usage

CONF = """\
ClusterName=lab
SlurmctldHost=head
StateSaveLocation={state}
NodeName=g1 CPUs=8 RealMemory=8000 Gres=gpu:a100:2,gpu:v100:2
NodeName=c1 CPUs=4 RealMemory=4000
PartitionName=gpu Nodes=g1,c1 Default=YES
"""


def desc(**fields: Any) -> types_pb2.JobDesc:
    return types_pb2.JobDesc(script="#!/bin/sh\ntrue\n", work_dir="/tmp", **fields)


def gpu_fields(**fields: Any) -> tuple[int, str, int, int, bool]:
    req = convert.request_from_desc(desc(**fields))
    return req.gpus_per_node, req.gpu_type, req.gpus, req.gpus_per_task, req.gpus_per_node_given


@pytest.mark.parametrize(("fields", "expected"), [
    ({}, (0, "", 0, 0, False)),
    ({"gres": "gpu:2"}, (2, "", 0, 0, False)),
    ({"gres": "gpu:a100:1"}, (1, "a100", 0, 0, False)),
    ({"gres": "gpu"}, (1, "", 0, 0, False)),
    ({"gres": "none"}, (0, "", 0, 0, False)),
    ({"gpus": 4, "gpu_type": "v100"}, (0, "v100", 4, 0, False)),
    ({"gpus_per_node": 2}, (2, "", 0, 0, True)),
    ({"gpus_per_task": 1, "num_tasks": 2, "ntasks_given": True}, (0, "", 0, 1, False)),
])
def test_request_from_desc_reads_the_gpu_options(fields: dict[str, Any], expected: tuple[Any, ...]) -> None:
    assert gpu_fields(**fields) == expected


@pytest.mark.parametrize("fields", [
    {"gres": "gpu:a100:v100:1"},                     # does not parse
    {"gres": "gpu:-1"},
    {"gres": "nic:1"},                               # only gpu GRES are scheduled
    {"gres": "gpu:a100:1,gpu:v100:1"},               # one GPU type per job
    {"gres": "gpu:1", "gpus_per_node": 1},           # one GPU option at a time
    {"gpus": 2, "gpus_per_task": 1},
    {"gpu_type": "a100"},                            # a type without a count
    {"gpus": 1, "gpu_type": "a 100"},
])
def test_unusable_gpu_requests_are_invalid_gres(fields: dict[str, Any]) -> None:
    with pytest.raises(SlurmError) as info:
        convert.request_from_desc(desc(**fields))
    assert info.value.strerror == Strerror.INVALID_GRES == "Invalid generic resource (gres) specification"


@pytest.fixture
def manager(tmp_path: Path) -> ClusterState:
    path = tmp_path / "slurm.conf"
    path.write_text(CONF.format(state=tmp_path / "state"))
    mgr = ClusterState(load_config(path), slurm_uid=450)
    for name, rec in mgr.nodes.items():
        node_registered(mgr, name, 0.0, cpus=rec.config.cpus, real_memory_mb=rec.config.real_memory_mb,
                            gpus=len(mgr.gpu_types.get(name, {})))
    return mgr


def started_job(mgr: ClusterState, **fields: Any) -> Job:
    event = submission(mgr, convert.request_from_desc(desc(**fields)), 1000, 1000, "alice", "alice", False, 100)
    apply(mgr, event)
    for start in schedule_pass(mgr, 200):
        apply(mgr, start)
    return mgr.jobs[event.job.job_id]


def test_job_info_shows_requested_then_allocated_gpus(manager: ClusterState) -> None:
    job = started_job(manager, gres="gpu:v100:2")
    info = convert.job_info(job)
    assert (info.tres_per_node, info.gpus, info.gpu_indices) == ("gres:gpu:v100:2", 2, "2,3")
    pending = dataclasses.replace(job, state=JobState.PENDING, allocation=None, start_time=0)
    assert (convert.job_info(pending).gpus, convert.job_info(pending).gpu_indices) == (2, "")
    whole_job = started_job(manager, gpus=2, gpu_type="a100")
    info = convert.job_info(whole_job)
    assert (info.tres_per_node, info.gpus, info.gpu_indices) == ("", 2, "0,1")


def test_job_info_of_a_job_without_gpus(manager: ClusterState) -> None:
    info = convert.job_info(started_job(manager))
    assert (info.tres_per_node, info.gpus, info.gpu_indices) == ("", 0, "")


@pytest.mark.parametrize(("fields", "given", "expanded"), [
    # as real Slurm 22.05: squeue --json keeps -o/-e as given, made absolute; scontrol's StdOut/StdErr expand them
    ({"std_out": "out-%j-%x.txt", "std_err": "/tmp/err-%A_%a.txt", "name": "nm"},
     ("/tmp/out-%j-%x.txt", "/tmp/err-%A_%a.txt"), ("/tmp/out-{id}-nm.txt", "/tmp/err-{id}_4294967294.txt")),
    ({}, ("", ""), ("/tmp/slurm-{id}.out", "/tmp/slurm-{id}.out")),
    ({"std_out": "/dev/null"}, ("/dev/null", ""), ("/dev/null", "/dev/null")),
])
def test_job_info_keeps_the_output_patterns_as_given_beside_the_expanded_paths(
        manager: ClusterState, fields: dict[str, Any], given: tuple[str, str], expanded: tuple[str, str]) -> None:
    event = submission(manager, convert.request_from_desc(desc(**fields)), 1000, 1000, "alice", "alice", False, 100)
    info = convert.job_info(event.job)
    assert (info.std_out_given, info.std_err_given) == given
    assert (info.std_out, info.std_err) == tuple(path.format(id=event.job.job_id) for path in expanded)


def test_node_info_gres_and_gres_used(manager: ClusterState) -> None:
    g1 = manager.nodes["g1"]
    idle = convert.node_info(g1, node_usage(manager)["g1"])
    assert (idle.gres, idle.gres_used) == ("gpu:a100:2,gpu:v100:2", "gpu:a100:0,gpu:v100:0")
    started_job(manager, gres="gpu:v100:1")
    started_job(manager, gres="gpu:a100:2")
    busy = convert.node_info(g1, node_usage(manager)["g1"])
    assert busy.gres_used == "gpu:a100:2(IDX:0-1),gpu:v100:1(IDX:2)"
    assert busy.alloc_cpus == 2 and busy.state == "MIXED"
    assert convert.node_info(manager.nodes["c1"], NodeUsage(frozenset(), 0)).gres_used == ""


def test_launch_message_carries_the_batch_hosts_cpu_ids_and_gpus(manager: ClusterState, tmp_path: Path) -> None:
    ctl = Controller(manager.cfg, 450, Signer(b"test-key"))
    job = Job(job_id=JobId(7), request=dataclasses.replace(started_job(manager).request, gpus_per_node=2),
              uid=1000, gid=1000, user_name="alice", group_name="alice", submit_time=1, state=JobState.RUNNING,
              start_time=2, allocation=Allocation(("g1", "g2"), (2, 2), (0, 0), cpu_ids=((4, 5), (0, 1)),
                                                  gpu_ids=((1, 3), (0, 1))))
    launch = ctl.launch_message(job)
    assert (list(launch.cpu_ids), list(launch.gpu_indices), launch.cpus) == ([4, 5], [1, 3], 2)
    env = dict(item.split("=", 1) for item in launch.environment)
    assert (env["SLURM_JOB_GPUS"], env["CUDA_VISIBLE_DEVICES"]) == ("1,3", "0,1")
    plain = ctl.launch_message(started_job(manager))
    assert list(plain.gpu_indices) == [] and len(plain.cpu_ids) == 1
    # the job credential vouches for exactly this launch on the batch host
    job_credential.verify(b"test-key", launch.credential, job_credential.batch_launch(launch, "g1"))
    with pytest.raises(job_credential.CredentialError):
        job_credential.verify(b"test-key", launch.credential, job_credential.batch_launch(launch, "g2"))


def test_submit_line_is_kept_with_the_job_and_its_journal_record(manager: ClusterState) -> None:
    from pyslurm_ctld.model.events import event_from_dict, event_to_dict

    req = convert.request_from_desc(desc(submit_line="sbatch -N 1 job.sh"))
    event = submission(manager, req, 1000, 1000, "alice", "alice", False, 100)
    replayed = event_from_dict(json.loads(json.dumps(event_to_dict(event))))
    assert replayed == event
    apply(manager, replayed)
    info = convert.job_info(manager.jobs[event.job.job_id])
    assert info.submit_line == "sbatch -N 1 job.sh"


def test_a_down_node_that_never_registered_is_down_not_unknown(manager: ClusterState) -> None:
    """A node that never came back to a restarted controller and was declared not responding."""
    rec = manager.nodes["c1"]
    rec.registered, rec.responding, rec.down = False, False, True
    info = convert.node_info(rec, NodeUsage(frozenset(), 0))
    assert (info.state, list(info.flags)) == ("DOWN", ["NOT_RESPONDING"])
    rec.down = False
    assert convert.node_info(rec, NodeUsage(frozenset(), 0)).state == "UNKNOWN"
