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
