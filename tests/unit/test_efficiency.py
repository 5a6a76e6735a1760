"""seff's report (pyslurm_common/efficiency.py): Slurm contrib seff 22.05's lines and rounding,
plus the GPU lines."""
from __future__ import annotations

from pyslurm_common.efficiency import StepFigures, kb_text, report, time_text
from pyslurm_common.rpc import messages as pb

GIB = 2**30


def _job(**values: object) -> pb.JobInfo:
    fields: dict[str, object] = dict(job_id=12, user_name="alice", group_name="lab", state="COMPLETED",
                                     num_cpus=1, num_nodes=1, start_time=1000, end_time=1600, mem_per_node_mb=1024)
    fields.update(values)
    return pb.JobInfo(**fields)  # type: ignore[arg-type]


def test_sizes_and_times_as_seff_prints_them() -> None:
    assert [kb_text(0), kb_text(1), kb_text(1536), kb_text(3 * 1024**2)] == ["0.00 MB", "1.00 KB", "1.50 MB",
                                                                            "3.00 GB"]
    assert [time_text(59), time_text(3 * 86400 + 3723)] == ["00:00:59", "3-01:02:03"]


def test_a_finished_one_core_job() -> None:
    steps = [StepFigures(cpu_usec=299_600_000, max_rss_kb=204_800, ntasks=1)]
    assert report(_job(), "lab", 1, steps, now=5000) == [
        "Job ID: 12", "Cluster: lab", "User/Group: alice/lab", "State: COMPLETED (exit code 0)", "Cores: 1",
        "CPU Utilized: 00:05:00", "CPU Efficiency: 50.00% of 00:10:00 core-walltime",
        "Job Wall-clock time: 00:10:00", "Memory Utilized: 200.00 MB", "Memory Efficiency: 19.53% of 1.00 GB"]


def test_a_running_multi_node_job_with_gpus() -> None:
    busy = pb.GpuUsage(node="gpu1", index=0, samples=10, util_ave=93, util_max=100, mem_max_bytes=30 * GIB)
    idle = pb.GpuUsage(node="gpu1", index=1, samples=10, util_ave=0, util_max=2, mem_max_bytes=512 * 2**20,
                       foreign_pids=[4242, 4243])
    shorter = pb.GpuUsage(node="gpu1", index=0, samples=3, util_ave=50, util_max=60, mem_max_bytes=GIB)
    steps = [StepFigures(60_000_000, 2 * 1024**2, 1, (busy, idle)), StepFigures(0, 1024, 4, (shorter,))]
    job = _job(state="RUNNING", num_cpus=8, num_nodes=2, end_time=0, mem_per_node_mb=0, mem_per_cpu_mb=512,
               gpus=2, array_job_id=10, array_task_str="3")
    assert report(job, "lab", 8, steps, now=1100) == [
        "Job ID: 12", "Array Job ID: 10_3", "Cluster: lab", "User/Group: alice/lab", "State: RUNNING",
        "Nodes: 2", "Cores per node: 4", "CPU Utilized: 00:01:00",
        "CPU Efficiency: 7.50% of 00:13:20 core-walltime", "Job Wall-clock time: 00:01:40",
        "Memory Utilized: 2.00 GB", "Memory Efficiency: 50.00% of 4.00 GB",
        "GPUs: 2", "GPU Utilization: 46.50% (mean of 2 GPUs)",
        "GPU gpu1:0: utilization mean 93%, peak 100%, memory peak 30.00 GB",
        "GPU gpu1:1: utilization mean 0%, peak 2%, memory peak 512.00 MB",
        "GPU gpu1:1: also used by processes outside the job: 4242, 4243",
        "WARNING: Efficiency statistics may be misleading for RUNNING jobs."]


def test_gpus_never_sampled_or_lost_say_so() -> None:
    lost = pb.GpuUsage(node="n1", index=2, lost=True)
    lines = report(_job(gpus=1), "lab", 1, [StepFigures(0, 0, 1, (lost,))], now=2000)
    assert lines[-3:] == ["GPUs: 1", "GPU n1:2: lost (NVML reported the GPU lost)",
                          "GPU Utilization: not sampled (JobAcctGatherFrequency=0, or no NVML on the node)"]


def test_a_pending_job_has_no_figures() -> None:
    lines = report(_job(state="PENDING", start_time=0, end_time=0, num_cpus=4, num_nodes=1), "lab", 0, [], 0)
    assert lines[-3:] == ["Nodes: 1", "Cores per node: 4", "Efficiency not available for jobs in the PENDING state."]
