"""sstat's job step ids, step choice and field table over live usage (``pb.StepUsageInfo``).

Rows are rendered with the print_fields renderer of sacct (spec cli-sacct-sacctmgr-sprio-sshare.md
§1); sizes and CPU times print as sacct prints them (§2.4: ``102660K``, ``1M``; ``00:01.234``,
``01:02:03``). One row per running step, JobID ``<job>.<step>`` (``123.batch``).

What a step's cgroup can tell is what we show: its peak and current memory and its CPU time, for
all its tasks together. So MaxRSS is the step's peak, AveRSS its current memory per task, AveCPU
and MinCPU its CPU time per task, and the ``*Node``/``*Task`` fields name the node and task 0.
The TRESUsageIn Ave/Max/Min/Tot lists add the step's GPUs as sampled so far (``gres/gpumem``,
``gres/gpuutil``). Slurm's VM size, pages, disk, energy and CPU frequency are not gathered (no
jobacct_gather or acct_gather_energy plugin): those fields print 0, and ReqCPUFreq* Slurm's
"Unknown" of a step without --cpu-freq. ``TotalCPU`` (user + system, as in sacct) is ours.

Which steps: ``-j 123.batch`` that step; ``-j 123 -a`` every running step; ``-j 123`` the lowest
running step, numbered steps first, then interactive, batch, extern (Slurm's ``-j 123`` takes only
numbered steps, which shows nothing for a plain batch job: we fall back to the batch step).

Pure. Errors: :class:`cli.print_fields.FormatError` for an unknown field, :class:`ValueError`
(message ``Invalid job id: <item>``) from :func:`parse_job_steps`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any
from dataclasses import dataclass

from cli.print_fields import Column, FormatError, Value, parse_field_list, record_values, render_records
from cli import gpu_figures
from cli.job_lists import NAMED_STEPS
from cli.sacct_usage import format_cpu_time, format_kb
from pyslurm_common.bounds import JOB_ID, STEP_ID
from pyslurm_common.rpc import messages as pb
from pyslurm_common.units import SizeFormat, format_duration_hms

__all__ = ["DEFAULT_FIELDS", "FormatError", "JobStep", "help_format", "parse_fields",
           "parse_job_steps", "render_sstat", "row_values", "select_steps"]

StepUsageInfo = pb.StepUsageInfo

DEFAULT_FIELDS = ("JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MinCPU,MinCPUNode,MinCPUTask,"
                  "AveCPU,NTasks,TotalCPU")


@dataclass(frozen=True, slots=True)
class JobStep:
    """One ``-j`` item: a job and optionally one of its steps (``None``: not given)."""

    job_id: int
    step: str | None = None


def parse_job_steps(items: Iterable[str]) -> list[JobStep]:
    """``-j 123,124.batch -j 125.0`` → job steps, in the order given."""
    found: list[JobStep] = []
    for item in (part.strip() for text in items for part in text.split(",")):
        if not item:
            continue
        job, dot, step = item.partition(".")
        if not JOB_ID.accepts(job) or (dot and not (STEP_ID.accepts(step) or step in NAMED_STEPS)):
            raise ValueError(f"Invalid job id: {item}")
        found.append(JobStep(int(job), (str(int(step)) if step.isdigit() else step) if dot else None))
    return found


def _step_order(step: StepUsageInfo) -> tuple[int, int]:
    if step.step_id.isdigit():
        return (0, int(step.step_id))
    named = NAMED_STEPS.index(step.step_id) if step.step_id in NAMED_STEPS else len(NAMED_STEPS)
    return (1, named)


def select_steps(steps: Iterable[StepUsageInfo], wanted: str | None, all_steps: bool) -> list[StepUsageInfo]:
    """The steps to print for one ``-j`` item (see the module docstring)."""
    if wanted is not None:
        return [s for s in steps if s.step_id == wanted]
    ordered = sorted(steps, key=_step_order)
    return ordered if all_steps else ordered[:1]


# ----------------------------------------------------------------------------- values


def _cpu_usec(s: StepUsageInfo) -> int:
    return int(s.user_cpu_usec + s.system_cpu_usec)


def _per_task(total: int, s: StepUsageInfo) -> int:
    return total // max(1, s.ntasks)


def _tres_in(kind: gpu_figures.Kind) -> Callable[[StepUsageInfo], Value]:
    """TRESUsageIn<kind> so far: CPU time (per task but for Tot), peak memory, and the step's
    GPUs (gres/gpumem, gres/gpuutil; cli/gpu_figures.py); what is not gathered is 0."""
    def value(s: StepUsageInfo) -> Value:
        seconds = _cpu_usec(s) // 1_000_000
        cpu = format_duration_hms(seconds if kind == "tot" else seconds // max(1, s.ntasks))
        tres = f"cpu={cpu},energy=0,fs/disk=0,mem={format_kb(s.max_rss_kb)},pages=0,vmem=0"
        sizes = SizeFormat()
        return gpu_figures.with_gpu_entries(tres, gpu_figures.tres_entries(s.gpus, kind, s.ntasks, sizes))
    return value


@dataclass(frozen=True, slots=True)
class SstatField:
    """Default signed width and value getter of one field."""

    width: int
    get: Callable[[StepUsageInfo], Value]


_NOT_GATHERED = SstatField(10, lambda s: 0)   # VM size, pages, disk, energy, CPU frequency (see above)


def _where(s: StepUsageInfo) -> str:
    return s.node


def _first_task(s: StepUsageInfo) -> int:
    return 0


def _tres_at(kind: str, get: Callable[[StepUsageInfo], Value]) -> Callable[[StepUsageInfo], Value]:
    """TRESUsageIn/Out*Node and *Task: each TRES's node or task (the one node, task 0)."""
    names = "cpu,energy,fs/disk,mem,pages,vmem" if kind == "in" else "energy,fs/disk"
    return lambda s: ",".join(f"{name}={get(s)}" for name in names.split(","))


# Slurm 22.05's sstat fields in its own order (what -e lists), then TotalCPU (ours, as sacct's).
FIELDS: dict[str, SstatField] = {
    "AveCPU": SstatField(10, lambda s: format_cpu_time(_per_task(_cpu_usec(s), s))),
    "AveCPUFreq": _NOT_GATHERED,
    "AveDiskRead": _NOT_GATHERED,
    "AveDiskWrite": _NOT_GATHERED,
    "AvePages": _NOT_GATHERED,
    "AveRSS": SstatField(10, lambda s: format_kb(_per_task(s.current_rss_kb, s))),
    "AveVMSize": _NOT_GATHERED,
    "ConsumedEnergy": SstatField(14, lambda s: 0),
    "ConsumedEnergyRaw": SstatField(15, lambda s: 0),
    "JobID": SstatField(-12, lambda s: f"{s.job_id}.{s.step_id}"),
    "MaxDiskRead": SstatField(12, lambda s: 0),
    "MaxDiskReadNode": SstatField(15, _where),
    "MaxDiskReadTask": SstatField(15, _first_task),
    "MaxDiskWrite": SstatField(12, lambda s: 0),
    "MaxDiskWriteNode": SstatField(16, _where),
    "MaxDiskWriteTask": SstatField(16, _first_task),
    "MaxPages": _NOT_GATHERED,
    "MaxPagesNode": SstatField(12, _where),
    "MaxPagesTask": SstatField(12, _first_task),
    "MaxRSS": SstatField(10, lambda s: format_kb(s.max_rss_kb)),
    "MaxRSSNode": SstatField(10, _where),
    "MaxRSSTask": SstatField(10, _first_task),
    "MaxVMSize": _NOT_GATHERED,
    "MaxVMSizeNode": SstatField(14, _where),
    "MaxVMSizeTask": SstatField(14, _first_task),
    "MinCPU": SstatField(10, lambda s: format_cpu_time(_per_task(_cpu_usec(s), s))),
    "MinCPUNode": SstatField(10, _where),
    "MinCPUTask": SstatField(10, _first_task),
    "Nodelist": SstatField(20, _where),
    "NTasks": SstatField(8, lambda s: s.ntasks),
    "Pids": SstatField(20, lambda s: ""),   # the node agent reports no task pids
    "ReqCPUFreq": SstatField(13, lambda s: "Unknown"),   # no --cpu-freq: Slurm's word for unset
    "ReqCPUFreqMin": SstatField(13, lambda s: "Unknown"),
    "ReqCPUFreqMax": SstatField(13, lambda s: "Unknown"),
    "ReqCPUFreqGov": SstatField(13, lambda s: "Unknown"),
    "TRESUsageInAve": SstatField(14, _tres_in("ave")),
    "TRESUsageInMax": SstatField(14, _tres_in("max")),
    "TRESUsageInMaxNode": SstatField(18, _tres_at("in", _where)),
    "TRESUsageInMaxTask": SstatField(18, _tres_at("in", _first_task)),
    "TRESUsageInMin": SstatField(14, _tres_in("min")),
    "TRESUsageInMinNode": SstatField(18, _tres_at("in", _where)),
    "TRESUsageInMinTask": SstatField(18, _tres_at("in", _first_task)),
    "TRESUsageInTot": SstatField(14, _tres_in("tot")),
    "TRESUsageOutAve": SstatField(15, lambda s: "energy=0,fs/disk=0"),
    "TRESUsageOutMax": SstatField(15, lambda s: "energy=0,fs/disk=0"),
    "TRESUsageOutMaxNode": SstatField(19, _tres_at("out", _where)),
    "TRESUsageOutMaxTask": SstatField(19, _tres_at("out", _first_task)),
    "TRESUsageOutMin": SstatField(15, lambda s: "energy=0,fs/disk=0"),
    "TRESUsageOutMinNode": SstatField(19, _tres_at("out", _where)),
    "TRESUsageOutMinTask": SstatField(19, _tres_at("out", _first_task)),
    "TRESUsageOutTot": SstatField(15, lambda s: "energy=0,fs/disk=0"),
    "TotalCPU": SstatField(10, lambda s: format_cpu_time(_cpu_usec(s))),
}  # fmt: skip
SLURM_FIELDS = tuple(FIELDS)[:-1]   # the 51 of Slurm's -e

WIDTHS: dict[str, int] = {name: f.width for name, f in FIELDS.items()}
PID_FIELDS = "JobID,Nodelist,Pids"   # -i/--pidformat


def parse_fields(spec: str | Sequence[str] = DEFAULT_FIELDS) -> list[Column]:
    """Resolve a ``-o/--format`` list against the sstat field table."""
    return parse_field_list(spec, WIDTHS)


def help_format() -> list[str]:
    """``-e/--helpformat``: Slurm's fields in its order, four to a line, each 19 wide and a space
    between (so each line but the last ends in padding, as Slurm's)."""
    rows = [SLURM_FIELDS[i:i + 4] for i in range(0, len(SLURM_FIELDS), 4)]
    return [" ".join(f"{name:<19}" for name in row) for row in rows]


def row_values(columns: Sequence[Column], step: StepUsageInfo) -> list[Value]:
    """The cell values of one step's row for *columns*."""
    return record_values(FIELDS, columns, step)


def fields_keeping_units() -> dict[str, SstatField]:
    """--noconvert: the RSS sizes stay in K (2048K, not 2M)."""
    keep = SizeFormat(convert=False)
    return {**FIELDS, "AveRSS": SstatField(10, lambda s: keep(_per_task(s.current_rss_kb, s), "K")),
            "MaxRSS": SstatField(10, lambda s: keep(s.max_rss_kb, "K"))}


def render_sstat(columns: Sequence[Column], steps: Iterable[StepUsageInfo],
                 fields: dict[str, SstatField] = FIELDS, **options: Any) -> list[str]:
    """All sstat output lines (no newlines); options as print_fields.render (parsable, delimiter, header)."""
    return render_records(fields, columns, steps, **options)
