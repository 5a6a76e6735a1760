"""sacct's resource-usage fields: what a step used, read from its finished record.

Owns the usage columns of spec cli-sacct-sacctmgr-sprio-sshare.md §2.4 and the sizes and CPU
times as sacct prints them (``2000K`` stays, ``1024K`` → ``1M``, or as the row's
:class:`~pyslurm_common.units.SizeFormat` asks: ``--noconvert`` bytes, ``--units=M``;
``00:00.004``, ``01:02:03``).

What pyslurm measures is a step's cgroup: its peak memory (and the node where it peaked) and its
user and system CPU time, for all its tasks together. So MaxRSS is the step's peak and AveRSS the
same figure (one measurement per step), AveCPU and MinCPU its CPU time per task, the ``*Task``
fields task 0 and the ``*Node`` fields the node of the peak. Virtual memory, pages, disk I/O,
energy and CPU frequency are not gathered; Slurm prints 0 for data its gatherer does not provide
(sacct(1): "sacct reports values of 0 for this missing data"; cgroup v2 has no VM figures), and
so do we. A requested CPU frequency is never set: ``Unknown``, as Slurm shows for steps without
``--cpu-freq``.

Usage is a step figure: job rows leave these columns blank, except the CPU times (the sum over
the job's steps, as Slurm's job line) and ConsumedEnergy (0). A step still running has no
figures yet. Pure.
"""

from __future__ import annotations

from collections.abc import Callable

from cli import gpu_figures
from pyslurm_common import hostlist, units
from pyslurm_common.rpc import messages as pb

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Protocol

    class UsageRow(Protocol):
        """What the usage fields read of a sacct row (``cli.sacct_fields.SacctRow``)."""

        @property
        def record(self) -> pb.JobRecord: ...

        @property
        def step(self) -> pb.StepInfo | None: ...

        @property
        def sizes(self) -> units.SizeFormat: ...

Value = str | int | None


def format_kb(kb: int) -> str:
    """Sizes as sacct prints them by default: K, promoted to M/G/... only while exactly divisible."""
    return units.SizeFormat()(kb, "K")


def format_cpu_time(usec: int) -> str:
    """TotalCPU/UserCPU/SystemCPU: `MM:SS.mmm` under an hour, else `[D-]HH:MM:SS`."""
    seconds, micro = divmod(usec, 1_000_000)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"
    if hours:
        return f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{minutes:02d}:{secs:02d}.{micro // 1000:03d}"


def _finished_step(r: UsageRow) -> pb.StepInfo | None:
    """The step of a step row once it ended (its figures are final), else None."""
    return r.step if r.step is not None and r.step.end_time else None


def _step_value(get: Callable[[pb.StepInfo], Value]) -> Callable[[UsageRow], Value]:
    """A figure of a finished step; blank on job rows and running steps."""
    def value(r: UsageRow) -> Value:
        step = _finished_step(r)
        return None if step is None else get(step)
    return value


def _step_rss(r: UsageRow) -> Value:
    """A finished step's peak memory; Slurm counts it in bytes (``--noconvert`` prints bytes)."""
    step = _finished_step(r)
    return None if step is None else r.sizes(step.max_rss_kb * 1024)


def _peak_node(step: pb.StepInfo) -> str:
    """Where the step peaked; records from before that was kept: its first node."""
    if step.max_rss_node or not step.nodes:
        return step.max_rss_node
    return hostlist.expand(step.nodes)[0]


def _cpu_usec(step: pb.StepInfo) -> int:
    return int(step.user_cpu_usec + step.system_cpu_usec)


def _per_task_cpu(step: pb.StepInfo) -> str:
    return format_cpu_time(_cpu_usec(step) // max(1, step.num_tasks))


def _cpu_sum(get: Callable[[pb.StepInfo], int]) -> Callable[[UsageRow], Value]:
    """A step's CPU time; the job row shows the sum over its steps."""
    def value(r: UsageRow) -> Value:
        steps = [r.step] if r.step is not None else list(r.record.steps)
        return format_cpu_time(sum(get(s) for s in steps))
    return value


def _tres_in(cpu: Callable[[pb.StepInfo], str], kind: gpu_figures.Kind) -> Callable[[UsageRow], Value]:
    """TRESUsageIn* figures of a finished step: CPU time, memory, its GPUs' gres/gpumem and
    gres/gpuutil (cli/gpu_figures.py); the rest not gathered (0)."""
    def value(r: UsageRow) -> Value:
        s = _finished_step(r)
        if s is None:
            return None
        tres = f"cpu={cpu(s)},energy=0,fs/disk=0,mem={r.sizes(s.max_rss_kb * 1024)},pages=0,vmem=0"
        return gpu_figures.with_gpu_entries(tres, gpu_figures.tres_entries(s.gpus, kind, s.num_tasks, r.sizes))
    return value


def _tres_in_nodes(s: pb.StepInfo) -> str:
    node = _peak_node(s)
    return f"cpu={node},energy={node},fs/disk={node},mem={node},pages={node},vmem={node}"


_TRES_IN_TASKS = "cpu=0,fs/disk=0,mem=0,pages=0,vmem=0"


def _zero(_: pb.StepInfo) -> str:
    return "0"


def _task_zero(_: pb.StepInfo) -> int:
    return 0


def _unknown(_: pb.StepInfo) -> str:
    return "Unknown"


def _tres_in_per_task(s: pb.StepInfo) -> str:
    return units.format_duration_hms(_cpu_usec(s) // max(1, s.num_tasks) // 1_000_000)


def _tres_in_total(s: pb.StepInfo) -> str:
    return units.format_duration_hms(_cpu_usec(s) // 1_000_000)


# name -> (signed default width, getter); widths as Slurm's sacct field table.
FIELDS: dict[str, tuple[int, Callable[[UsageRow], Value]]] = {
    "AveCPU": (10, _step_value(_per_task_cpu)),
    "AveCPUFreq": (10, _step_value(_zero)),
    "AveDiskRead": (14, _step_value(_zero)),
    "AveDiskWrite": (14, _step_value(_zero)),
    "AvePages": (10, _step_value(_zero)),
    "AveRSS": (10, _step_rss),
    "AveVMSize": (10, _step_value(_zero)),
    "ConsumedEnergy": (14, lambda r: "0"),
    "ConsumedEnergyRaw": (17, lambda r: 0),
    "MaxDiskRead": (12, _step_value(_zero)),
    "MaxDiskReadNode": (15, _step_value(_peak_node)),
    "MaxDiskReadTask": (15, _step_value(_task_zero)),
    "MaxDiskWrite": (12, _step_value(_zero)),
    "MaxDiskWriteNode": (16, _step_value(_peak_node)),
    "MaxDiskWriteTask": (16, _step_value(_task_zero)),
    "MaxPages": (8, _step_value(_zero)),
    "MaxPagesNode": (12, _step_value(_peak_node)),
    "MaxPagesTask": (14, _step_value(_task_zero)),
    "MaxRSS": (10, _step_rss),
    "MaxRSSNode": (10, _step_value(_peak_node)),
    "MaxRSSTask": (10, _step_value(_task_zero)),
    "MaxVMSize": (10, _step_value(_zero)),
    "MaxVMSizeNode": (14, _step_value(_peak_node)),
    "MaxVMSizeTask": (14, _step_value(_task_zero)),
    "MinCPU": (10, _step_value(_per_task_cpu)),
    "MinCPUNode": (10, _step_value(_peak_node)),
    "MinCPUTask": (10, _step_value(_task_zero)),
    "ReqCPUFreq": (10, _step_value(_unknown)),
    "ReqCPUFreqGov": (13, _step_value(_unknown)),
    "ReqCPUFreqMax": (13, _step_value(_unknown)),
    "ReqCPUFreqMin": (13, _step_value(_unknown)),
    "SystemCPU": (10, _cpu_sum(lambda s: s.system_cpu_usec)),
    "TotalCPU": (10, _cpu_sum(_cpu_usec)),
    "TRESUsageInAve": (14, _tres_in(_tres_in_per_task, "ave")),
    "TRESUsageInMax": (14, _tres_in(_tres_in_per_task, "max")),
    "TRESUsageInMaxNode": (18, _step_value(_tres_in_nodes)),
    "TRESUsageInMaxTask": (18, _step_value(lambda s: _TRES_IN_TASKS)),
    "TRESUsageInMin": (14, _tres_in(_tres_in_per_task, "min")),
    "TRESUsageInMinNode": (18, _step_value(_tres_in_nodes)),
    "TRESUsageInMinTask": (18, _step_value(lambda s: _TRES_IN_TASKS)),
    "TRESUsageInTot": (14, _tres_in(_tres_in_total, "tot")),
    "TRESUsageOutAve": (15, _step_value(lambda s: "energy=0,fs/disk=0")),
    "TRESUsageOutMax": (15, _step_value(lambda s: "energy=0,fs/disk=0")),
    "TRESUsageOutMaxNode": (19, _step_value(lambda s: f"energy={_peak_node(s)},fs/disk={_peak_node(s)}")),
    "TRESUsageOutMaxTask": (19, _step_value(lambda s: "fs/disk=0")),
    "TRESUsageOutMin": (15, _step_value(lambda s: "energy=0,fs/disk=0")),
    "TRESUsageOutMinNode": (19, _step_value(lambda s: f"energy={_peak_node(s)},fs/disk={_peak_node(s)}")),
    "TRESUsageOutMinTask": (19, _step_value(lambda s: "fs/disk=0")),
    "TRESUsageOutTot": (15, _step_value(lambda s: "energy=0,fs/disk=0")),
    "UserCPU": (10, _cpu_sum(lambda s: s.user_cpu_usec)),
}  # fmt: skip
