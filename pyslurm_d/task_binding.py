"""Each task's CPU affinity, GPU view and NUMA memory policy, worked out by the stepd before it
forks the tasks.

srun hands --cpu-bind (SLURM_CPU_BIND, which the tasks keep, as in Slurm) and --gpu-bind
(SLURM_GPU_BIND, removed before the tasks see it) over in the step's environment, with -m
(SLURM_DISTRIBUTION) and -c (SLURM_CPUS_PER_TASK); pyslurm_common/cpu_binding.py and
gpu_binding.py decide. The batch step keeps the job's CPUs and GPUs whole. A binding Slurm would
refuse fails the launch (OSError), before any task starts. --mem-bind (SLURM_MEM_BIND, kept by the
tasks) is set by each forked task itself (`bind_memory`), and a NUMA node the machine lacks fails
only that task, as Slurm's task_p_pre_launch. Stdlib only, like stepd.
"""
from __future__ import annotations

import os
import socket
from collections.abc import Sequence
import dataclasses
from dataclasses import dataclass, field

from pyslurm_common import cpu_binding, gpu_binding, mem_binding

from .launch import Launch, Task
from .mempolicy import NumaTopology, read_topology as read_numa, set_policy

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
    memory: mem_binding.MemBind | None = None             # --mem-bind, None: not given
    memory_nodes: frozenset[int] = frozenset()             # the NUMA nodes it binds the task's memory to
    memory_error: str = ""                                 # why it cannot (the stepd's error line)
    all_numa_nodes: frozenset[int] = frozenset({0})        # the policy a task has unbound

    def apply(self, env: dict[str, str]) -> None:
        env.pop("SLURM_GPU_BIND", None)
        env.update(self.environment)

    def report(self, pid: int) -> str:
        """The verbose lines Slurm writes to the task's stderr before it runs."""
        cpu = (cpu_binding.verbose_line(self.cpu_report, self.node, self.rank, self.local_id, pid, self.cpus)
               if self.cpu_report else "")
        return self.gpu_report + cpu

    def bind_memory(self, stepd_name: str, pid: int) -> bool:
        """--mem-bind, in the forked task before exec (Slurm's task_p_pre_launch): set its memory
        policy and write the `verbose` line; False, with Slurm's error lines written, when it
        cannot be set (the task then exits 1)."""
        bind = self.memory
        if bind is None:
            return True
        nodes, error = self.all_numa_nodes, self.memory_error
        if not error and bind.binds:
            try:
                set_policy(self.memory_nodes, bind.prefer)
                nodes = self.memory_nodes
            except OSError as exc:
                error = exc.strerror or str(exc)
        if error:
            os.write(2, f"{stepd_name}: error: {error}\n".encode())
        if bind.verbose:
            host = socket.gethostname().split(".")[0]   # slurmd's conf->hostname, as Slurm prints it
            os.write(2, mem_binding.verbose_line(bind, host, self.rank, self.local_id, pid, nodes).encode())
        if error:
            os.write(2, f"{stepd_name}: error: Failed to invoke task plugins: task_p_pre_launch error\n".encode())
        return not error


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
    mem_bind = mem_binding.from_environment(env)
    numa = read_numa() if mem_bind is not None else None
    out: dict[int, TaskBinding] = {}
    for task in tasks:
        task_env = cpu_bind.environment() if env.get("SLURM_CPU_BIND") else {}
        gpu_report = ""
        if gpu_bind and global_gpus:
            usable = gpu_binding.task_gpus(gpu_bind, len(global_gpus), task.local_id, len(tasks))
            ordinals = ",".join(str(i) for i in usable)
            task_env |= {"CUDA_VISIBLE_DEVICES": ordinals, "GPU_DEVICE_ORDINAL": ordinals}
            gpu_report = gpu_binding.verbose_line(usable, global_gpus) if gpu_bind.verbose else ""
        binding = TaskBinding(tuple(sorted(cpus[task.local_id])), task_env, gpu_report,
                              cpu_bind if cpu_bind.verbose else None, launch.node_name, task.rank, task.local_id)
        if mem_bind is not None and numa is not None:
            binding = _with_memory(binding, mem_bind, numa, len(step_cpus))
        out[task.rank] = binding
    return out


def _with_memory(binding: TaskBinding, bind: mem_binding.MemBind, numa: NumaTopology, step_cpus: int) -> TaskBinding:
    nodes, error = frozenset[int](), ""
    if bind.binds:
        try:
            nodes = mem_binding.task_nodes(bind, binding.local_id, step_cpus, numa.max_node,
                                           numa.nodes_of(binding.cpus or range(os.cpu_count() or 1)))
        except mem_binding.MemBindError as exc:
            error = str(exc)
    return dataclasses.replace(binding, memory=bind, memory_nodes=nodes, memory_error=error,
                               all_numa_nodes=frozenset(numa.cpus_of))
