"""pyslurm_restd.job_fields: TRES names as Slurm 25.11's slurmrestd writes them (its recorded
answer for a --gres=gpu:1 job: ``"tres_per_node": "gres/gpu:1"``)."""
from __future__ import annotations

import json

import pytest

from pyslurm_common.rpc import types_pb2
from pyslurm_restd.job_fields import job_record
from tests import restd_contract as contract


@pytest.mark.parametrize("ours, slurms", [("gres:gpu:1", "gres/gpu:1"), ("", ""),
                                          ("gres:gpu:a100:2,gres:mps:10", "gres/gpu:a100:2,gres/mps:10")])
def test_tres_per_node_is_named_as_25_11_names_it(ours: str, slurms: str) -> None:
    assert job_record(types_pb2.JobInfo(job_id=1, tres_per_node=ours), "c")["tres_per_node"] == slurms


def test_the_recorded_gpu_job_spells_it_so() -> None:
    recorded = contract.recorded("v0.0.44", "slurm-job-gpus-per-node")["jobs"][0]
    ours = job_record(types_pb2.JobInfo(job_id=1, tres_per_node="gres:gpu:1"), "c")
    assert json.dumps(ours["tres_per_node"]) == json.dumps(recorded["tres_per_node"])


def test_job_resources_list_every_core_of_each_node_as_25_11_does() -> None:
    from pyslurm_common.rpc import ctld_pb2

    job = types_pb2.JobInfo(job_id=1, state="RUNNING", node_names=["n1"], cpus_per_node=[3], nodes="n1",
                            node_cpu_ids=["0-2"])
    node = ctld_pb2.NodeInfo(name="n1", sockets=2, cores_per_socket=2, threads_per_core=2)
    sockets = job_record(job, "c", nodes={"n1": node})["job_resources"]["nodes"]["allocation"][0]["sockets"]
    assert [[core["status"][0] for core in s["cores"]] for s in sockets] == [
        ["ALLOCATED", "ALLOCATED"], ["UNALLOCATED", "UNALLOCATED"]]        # CPUs 0-1 core 0, CPU 2 core 1
    recorded = contract.recorded("v0.0.44", "slurm-job-running")["jobs"][0]["job_resources"]
    ours = job_record(job, "c", nodes={"n1": node})["job_resources"]
    assert contract.shape_differences(ours, recorded) == []
    assert job_record(job, "c")["job_resources"]["nodes"]["allocation"][0]["sockets"] == []   # layout unknown
