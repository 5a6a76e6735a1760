"""sacct ReqTRES/AllocTRES: names in alphabetical order, memory with its unit, GPUs as gres/gpu."""

from __future__ import annotations

from cli import sacct_fields
from pyslurm_common.rpc import messages as pb


def _values(job: "pb.JobInfo", alloc_cpus: int = 0) -> list[object]:
    row = sacct_fields.SacctRow(pb.JobRecord(cluster="lab", job=job, alloc_cpus=alloc_cpus), None, 100)
    return sacct_fields.row_values(sacct_fields.parse_fields("ReqTRES,AllocTRES"), row)


def test_cpu_only_job() -> None:
    job = pb.JobInfo(job_id=1, num_cpus=1, num_nodes=1, mem_per_node_mb=1024, start_time=10)
    assert _values(job, alloc_cpus=1) == ["billing=1,cpu=1,mem=1G,node=1"] * 2


def test_gpu_job_with_and_without_a_type() -> None:
    job = pb.JobInfo(job_id=2, num_cpus=4, num_nodes=1, mem_per_cpu_mb=100, gpus=2, tres_per_node="gres:gpu:2")
    assert _values(job) == ["billing=4,cpu=4,gres/gpu=2,mem=400M,node=1", ""]  # pending: nothing allocated
    typed = pb.JobInfo(job_id=3, num_cpus=2, num_nodes=1, gpus=1, tres_per_node="gres:gpu:a100:1", start_time=5)
    assert _values(typed, alloc_cpus=2) == ["billing=2,cpu=2,gres/gpu:a100=1,gres/gpu=1,node=1"] * 2
