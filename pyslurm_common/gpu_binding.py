"""srun --gpu-bind (and what --gpus-per-task and --ntasks-per-gpu imply): which of the step's GPUs
each task sees, as Slurm's gres/gpu sets CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL per task.

GPU numbers in map_gpu/mask_gpu are the zero-based indexes among the step's GPUs (the task/cgroup
with ConstrainDevices case of Slurm's man page), and so are the ordinals a task gets: the step's
device cgroup shows it only the job's GPUs, the variables pick among those. gres.conf names no
Cores= here, so every GPU is equally close to every task: `closest` leaves a task all of them and
`single:N` deals them out N tasks to a GPU in block order. With one task on the node nothing is
bound, as in Slurm.

srun checks the option (`parse`, `implied`) and hands it to the stepd as SLURM_GPU_BIND in the
step's environment; the stepd removes that variable and sets each task's. Pure; stdlib only.
"""
from __future__ import annotations

from collections.abc import Sequence

from .typed_tuple import NamedTuple

MAX_LIST = 4096
# Compiled (and cached by re) on the first --gpu-bind, not on every import: 1 M instructions
_TYPE = r"(?i)(closest|none|single:\d+|per_task:\d+|map_gpu:[0-9x*,]+|mask_gpu:[0-9a-fA-Fx*,]+)$"


class GpuBindError(ValueError):
    """An unreadable --gpu-bind: the text is Slurm's message."""


class GpuBind(NamedTuple):   # a NamedTuple: CLIs import it, and dataclasses would import inspect
    verbose: bool = False
    mode: str = ""                    # "", none, closest, single, per_task, map_gpu, mask_gpu
    count: int = 0                    # single:N tasks per GPU, per_task:N GPUs per task
    items: tuple[int, ...] = ()       # map_gpu: indexes, mask_gpu: bit masks (repetitions expanded)


def _expand(listed: str, hexadecimal: bool) -> tuple[int, ...]:
    out: list[int] = []
    for item in listed.split(","):
        value, star, count = item.partition("*")
        times = max(1, int(count)) if star and count.isdigit() else 1
        try:
            number = int(value, 16) if hexadecimal else int(value, 0 if value.lower().startswith("0x") else 10)
        except ValueError:
            raise GpuBindError(item) from None
        if len(out) + times > MAX_LIST or number.bit_length() > MAX_LIST:
            raise GpuBindError(item)
        out.extend([number] * times)
    return tuple(out)


def parse(text: str) -> GpuBind:
    """--gpu-bind=[verbose,]<type>; raises GpuBindError with Slurm's message."""
    verbose = text.lower().startswith("verbose,")
    kind = text[len("verbose,"):] if verbose else text
    import re   # here, not at the top: sbatch and srun import this module for every call

    if not re.match(_TYPE, kind):
        raise GpuBindError(f"Invalid --gpu-bind argument: gpu:{text}")
    mode, _, listed = kind.lower().partition(":")
    try:
        if mode in ("single", "per_task"):
            count = int(listed)
            if not 0 < count < 65536:
                raise GpuBindError(listed)
            return GpuBind(verbose, mode, count)
        if mode in ("map_gpu", "mask_gpu"):
            return GpuBind(verbose, mode, 0, _expand(listed, mode == "mask_gpu"))
    except GpuBindError:
        raise GpuBindError(f"Invalid --gpu-bind argument: gpu:{text}") from None
    return GpuBind(verbose, mode)


def implied(explicit: str, gpus_per_task: int, ntasks_per_gpu: int) -> str:
    """The binding a step gets: --gpu-bind as given, else per_task:N of --gpus-per-task, else
    single:N of --ntasks-per-gpu (Slurm's implicit bindings), else none."""
    if explicit:
        return explicit
    if gpus_per_task:
        return f"per_task:{gpus_per_task}"
    if ntasks_per_gpu:
        return f"single:{ntasks_per_gpu}"
    return ""


def task_gpus(bind: GpuBind, gpus: int, local_id: int, tasks: int) -> list[int]:
    """The step-local GPU indexes task `local_id` of the node's `tasks` may use."""
    every = list(range(gpus))
    if gpus == 0 or tasks < 2 or bind.mode in ("", "none", "closest"):
        return every
    if bind.mode == "single":
        return [every[(local_id // bind.count) % gpus]]
    if bind.mode == "per_task":
        return [every[(local_id * bind.count + i) % gpus] for i in range(min(bind.count, gpus))]
    item = bind.items[local_id % len(bind.items)]
    chosen = [item] if bind.mode == "map_gpu" else [i for i in every if item >> i & 1]
    # Slurm binds to the first GPU of the allocation when the list names none of the step's.
    return [i for i in chosen if 0 <= i < gpus] or [0]


def _hex(indexes: Sequence[int]) -> str:
    return hex(sum(1 << i for i in indexes))


def verbose_line(usable: Sequence[int], global_ids: Sequence[str]) -> str:
    """What Slurm's gres/gpu prints to the task's stderr for `verbose`."""
    return (f"gpu-bind: usable_gres={_hex(usable)}; bit_alloc={_hex(range(len(global_ids)))}; "
            f"local_inx={len(global_ids)}; global_list={','.join(global_ids[i] for i in usable)}; "
            f"local_list={','.join(str(i) for i in usable)}\n")
