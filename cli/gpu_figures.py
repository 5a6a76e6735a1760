"""A step's GPU figures in sacct's and sstat's TRES lists: `gres/gpuutil` and `gres/gpumem`.

What the node agents recorded (types.proto GpuUsage) is per GPU: mean and peak utilisation %
and memory used, over samples taken every JobAcctGatherFrequency. Slurm's figure for a task is
the sum over the GPUs it uses (utilisation can read 200 for two busy GPUs) and its
TRESUsageInTot the sum over tasks; pyslurm samples GPUs, not tasks, so a step's total is the sum
over its GPUs: `gres/gpuutil` of their mean utilisation (Ave, Min, Tot; per task for Ave and
Min, as the CPU figure beside it) or peak (Max), `gres/gpumem` of their peak memory. A step
whose GPUs were never sampled (no GPUs, sampling off, NVML unavailable) shows no gres entries,
as Slurm without a GPU gathering plugin. Pure.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from pyslurm_common.rpc import messages as pb

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Literal

    Kind = Literal["ave", "max", "min", "tot"]


def sampled(gpus: Sequence[pb.GpuUsage]) -> list[pb.GpuUsage]:
    return [g for g in gpus if g.samples]


def totals(gpus: Sequence[pb.GpuUsage], kind: Kind, tasks: int) -> tuple[int, int] | None:
    """(gpumem bytes, gpuutil %) of a TRESUsageIn<kind> figure; None when unsampled."""
    seen = sampled(gpus)
    if not seen:
        return None
    per = max(1, tasks) if kind in ("ave", "min") else 1
    util = sum(g.util_max if kind == "max" else g.util_ave for g in seen) // per
    return sum(g.mem_max_bytes for g in seen) // per, util


def tres_entries(gpus: Sequence[pb.GpuUsage], kind: Kind, tasks: int, size: Callable[[int], str]) -> list[str]:
    """`gres/gpumem=...` and `gres/gpuutil=...` for a TRESUsageIn<kind> list; [] when unsampled."""
    figures = totals(gpus, kind, tasks)
    if figures is None:
        return []
    return [f"gres/gpumem={size(figures[0])}", f"gres/gpuutil={figures[1]}"]


def with_gpu_entries(tres: str, entries: list[str]) -> str:
    """Insert the gres entries into an alphabetical TRES list (`...,fs/disk=0,<here>,mem=...`)."""
    if not entries:
        return tres
    items = tres.split(",") + entries
    return ",".join(sorted(items, key=lambda item: item.partition("=")[0]))
