"""A job's efficiency report: the lines of Slurm's contrib `seff`, plus its GPUs.

Layout, figures and rounding as seff 22.05 prints them (Job ID, Array Job ID, Cluster,
User/Group, State with the exit code once ended, Cores or Nodes and Cores per node, CPU Utilized,
CPU Efficiency of the core-walltime, Job Wall-clock time, Memory Utilized, Memory Efficiency of
the requested memory, the RUNNING warning), then what no Slurm seff has: the GPUs, their mean
utilisation, and per GPU its mean and peak utilisation and peak memory, as the node agents
sampled them through NVML.

Used by the `seff` command and by the controller's mails (the body of a job's END/FAIL mail).
The figures come from the accounting record's steps, and for a running job's running steps from
their live usage (sstat's), so the report works while the job runs. Pure.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pyslurm_common.rpc import messages as pb


@dataclass(frozen=True, slots=True)
class StepFigures:
    """What one step used: from its record once ended, from its live usage while running."""

    cpu_usec: int
    max_rss_kb: int
    ntasks: int
    gpus: tuple[pb.GpuUsage, ...] = ()

    @classmethod
    def of_step(cls, step: pb.StepInfo) -> "StepFigures":
        return cls(step.user_cpu_usec + step.system_cpu_usec, step.max_rss_kb, step.num_tasks, tuple(step.gpus))

    @classmethod
    def of_usage(cls, usage: pb.StepUsageInfo) -> "StepFigures":
        return cls(usage.user_cpu_usec + usage.system_cpu_usec, usage.max_rss_kb, usage.ntasks, tuple(usage.gpus))


def time_text(seconds: int) -> str:
    """seff's time: `[D-]HH:MM:SS`."""
    days, rest = divmod(max(0, seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{days}-" * bool(days) + f"{hours:02d}:{minutes:02d}:{secs:02d}"


def kb_text(kb: float) -> str:
    """seff's memory: `0.00 MB` for nothing, else KB, MB, GB ... with two decimals."""
    if kb <= 0:
        return "0.00 MB"
    exponent = min(5, int(math.log(kb) / math.log(1024))) if kb >= 1 else 0
    return f"{kb / 1024 ** exponent:.2f} {'KMGTPE'[exponent]}B"


def per_gpu(steps: Sequence[StepFigures]) -> list[pb.GpuUsage]:
    """A job's GPUs over its steps: one entry per node and GPU, from the step that sampled it
    longest (the batch step holds every GPU of the job for its whole life; srun steps share them)."""
    best: dict[tuple[str, int], pb.GpuUsage] = {}
    for step in steps:
        for g in step.gpus:
            known = best.get((g.node, g.index))
            if known is None or g.samples > known.samples:
                best[(g.node, g.index)] = g
    return [best[key] for key in sorted(best)]


def gpu_lines(gpus: Sequence[pb.GpuUsage], allocated: int) -> list[str]:
    """The GPU lines: how many, the mean utilisation, then each GPU's figures."""
    if not allocated:
        return []
    lines = [f"GPUs: {allocated}"]
    lines += [f"GPU {g.node}:{g.index}: lost (NVML reported the GPU lost)" for g in gpus if g.lost and not g.samples]
    seen = [g for g in gpus if g.samples]
    if not seen:
        return lines + ["GPU Utilization: not sampled (JobAcctGatherFrequency=0, or no NVML on the node)"]
    mean = sum(g.util_ave for g in seen) / len(seen)
    lines.append(f"GPU Utilization: {mean:.2f}% (mean of {len(seen)} GPU{'s' * (len(seen) > 1)})")
    for g in seen:
        lost = " (lost during the job)" if g.lost else ""
        lines.append(f"GPU {g.node}:{g.index}: utilization mean {g.util_ave}%, peak {g.util_max}%, "
                     f"memory peak {kb_text(g.mem_max_bytes / 1024)}{lost}")
        if g.foreign_pids:
            lines.append(f"GPU {g.node}:{g.index}: also used by processes outside the job: "
                         f"{', '.join(str(pid) for pid in g.foreign_pids)}")
    return lines


def report(job: pb.JobInfo, cluster: str, alloc_cpus: int, steps: Sequence[StepFigures], now: int) -> list[str]:
    """The report's lines for a job and the figures of its steps."""
    ncpus = alloc_cpus or job.num_cpus or 1
    nnodes = job.num_nodes or 1
    state = job.state
    lines = [f"Job ID: {job.job_id}"]
    if job.array_job_id:
        lines.append(f"Array Job ID: {job.array_job_id}_{job.array_task_str}")
    lines += [f"Cluster: {cluster}", f"User/Group: {job.user_name}/{job.group_name}"]
    lines.append(f"State: {state}" if state in ("PENDING", "RUNNING") else f"State: {state} (exit code {job.exit_code})")
    lines += [f"Cores: {ncpus}"] if ncpus == 1 else [f"Nodes: {nnodes}", f"Cores per node: {ncpus // nnodes}"]
    if state == "PENDING":
        return lines + ["Efficiency not available for jobs in the PENDING state."]
    if job.mem_per_cpu_mb:
        requested_kb, per_node = job.mem_per_cpu_mb * 1024 * ncpus, False
    else:
        requested_kb, per_node = job.mem_per_node_mb * 1024 * nnodes, True
    end = job.end_time or now
    walltime = max(0, end - job.start_time - job.suspended_secs) if job.start_time else 0
    cput = (sum(s.cpu_usec for s in steps) + 500_000) // 1_000_000
    peak = max(steps, key=lambda s: s.max_rss_kb, default=StepFigures(0, 0, 0))
    corewalltime = walltime * ncpus
    lines += [f"CPU Utilized: {time_text(cput)}",
              f"CPU Efficiency: {cput / corewalltime * 100 if corewalltime else 0.0:.2f}% of "
              f"{time_text(corewalltime)} core-walltime",
              f"Job Wall-clock time: {time_text(walltime)}"]
    estimated = "" if peak.ntasks == 1 else " (estimated maximum)"
    lines.append(f"Memory Utilized: {kb_text(peak.max_rss_kb)}{estimated}")
    efficiency = f"{peak.max_rss_kb / requested_kb * 100 if requested_kb else 0.0:.2f}% of {kb_text(requested_kb)}"
    if peak.ntasks != 1:
        efficiency += (f" ({kb_text(requested_kb / nnodes)}/node)" if per_node
                       else f" ({kb_text(requested_kb / ncpus)}/core)")
    lines.append(f"Memory Efficiency: {efficiency}")
    lines += gpu_lines(per_gpu(steps), job.gpus)
    if state == "RUNNING":
        lines.append(f"WARNING: Efficiency statistics may be misleading for {state} jobs.")
    return lines
