"""Each task's CPU affinity and GPU view, worked out by the stepd before it forks the tasks.

srun hands --cpu-bind (SLURM_CPU_BIND, which the tasks keep, as in Slurm) and --gpu-bind
(SLURM_GPU_BIND, removed before the tasks see it) over in the step's environment, with -m
(SLURM_DISTRIBUTION) and -c (SLURM_CPUS_PER_TASK); pyslurm_common/cpu_binding.py and
gpu_binding.py decide. The batch step keeps the job's CPUs and GPUs whole. A binding Slurm would
refuse fails the launch (OSError), before any task starts. Stdlib only, like stepd.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from pyslurm_common import cpu_binding, gpu_binding

from .launch import Launch, Task

CPU_BIND_ERROR = "Unable to satisfy cpu bind request"


@dataclass(frozen=True, slots=True)
class TaskBinding:
    cpus: tuple[int, ...]                                  # the task's affinity; () leaves it as inherited
    environment: dict[str, str] = field(default_factory=dict)
    gpu_report: str = ""                                   # --gpu-bind=verbose line
    cpu_report: cpu_binding.CpuBind | None = None          # --cpu-bind=verbose: printed with the task's pid
    node: str = ""
    rank: int = 0
    local_id: int = 0

    def apply(self, env: dict[str, str]) -> None:
        env.pop("SLURM_GPU_BIND", None)
        env.update(self.environment)

    def report(self, pid: int) -> str:
        """The verbose lines Slurm writes to the task's stderr before it runs."""
        cpu = (cpu_binding.verbose_line(self.cpu_report, self.node, self.rank, self.local_id, pid, self.cpus)
               if self.cpu_report else "")
        return self.gpu_report + cpu


def _number(env: dict[str, str], name: str, default: int) -> int:
    text = env.get(name, "")
    return min(int(text), 65535) if text.isdigit() and int(text) > 0 else default


def plan(launch: Launch, tasks: Sequence[Task]) -> dict[int, TaskBinding]:
    """Every task's binding, by rank; OSError when the requested CPU binding cannot be met."""
    step_cpus = tuple(launch.cpu_ids) or tuple(sorted(os.sched_getaffinity(0)))
    if launch.is_batch:
        return {task.rank: TaskBinding(tuple(launch.cpu_ids)) for task in tasks}
    env = dict(item.split("=", 1) for item in launch.environment if "=" in item)
    cpu_bind = cpu_binding.from_environment(env)
    try:
        cpus = cpu_binding.task_cpus(cpu_bind, step_cpus, cpu_binding.read_topology(), len(tasks),
                                     _number(env, "SLURM_CPUS_PER_TASK", 1), env.get("SLURM_DISTRIBUTION", ""))
    except cpu_binding.BindError as exc:
        raise OSError(0, f"{CPU_BIND_ERROR}: {exc}") from exc
    try:
        gpu_bind = gpu_binding.parse(env.get("SLURM_GPU_BIND", "")) if env.get("SLURM_GPU_BIND") else None
    except gpu_binding.GpuBindError:
        gpu_bind = None
    global_gpus = [g for g in env.get("SLURM_STEP_GPUS", "").split(",") if g]
    out: dict[int, TaskBinding] = {}
    for task in tasks:
        task_env = cpu_bind.environment() if env.get("SLURM_CPU_BIND") else {}
        gpu_report = ""
        if gpu_bind and global_gpus:
            usable = gpu_binding.task_gpus(gpu_bind, len(global_gpus), task.local_id, len(tasks))
            ordinals = ",".join(str(i) for i in usable)
            task_env |= {"CUDA_VISIBLE_DEVICES": ordinals, "GPU_DEVICE_ORDINAL": ordinals}
            gpu_report = gpu_binding.verbose_line(usable, global_gpus) if gpu_bind.verbose else ""
        out[task.rank] = TaskBinding(tuple(sorted(cpus[task.local_id])), task_env, gpu_report,
                                     cpu_bind if cpu_bind.verbose else None, launch.node_name, task.rank,
                                     task.local_id)
    return out
