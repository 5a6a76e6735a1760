"""sstat's job step ids, step choice and field table over live usage (``pb.StepUsageInfo``).

Rows are rendered with the print_fields renderer of sacct (spec cli-sacct-sacctmgr-sprio-sshare.md
§1); sizes and CPU times print as sacct prints them (§2.4: ``102660K``, ``1M``; ``00:01.234``,
``01:02:03``). One row per running step, JobID ``<job>.<step>`` (``123.batch``).

What a step's cgroup can tell is what we show: its peak and current memory and its CPU time, for
all its tasks together. So MaxRSS is the step's peak, AveRSS its current memory per task, AveCPU
and MinCPU its CPU time per task, and the ``*Node``/``*Task`` fields name the node and task 0.
The TRESUsageIn Ave/Max/Min/Tot lists add the step's GPUs as sampled so far (``gres/gpumem``,
``gres/gpuutil``). Slurm's VM size, pages, disk, energy and CPU frequency fields are not kept;
``TotalCPU`` (user + system, as in sacct) is ours.

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

from cli.print_fields import (Column, FormatError, Value, help_columns, parse_field_list, record_values,
                              render_records)
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


FIELDS: dict[str, SstatField] = {
    "AveCPU": SstatField(10, lambda s: format_cpu_time(_per_task(_cpu_usec(s), s))),
    "AveRSS": SstatField(10, lambda s: format_kb(_per_task(s.current_rss_kb, s))),
    "JobID": SstatField(-12, lambda s: f"{s.job_id}.{s.step_id}"),
    "MaxRSS": SstatField(10, lambda s: format_kb(s.max_rss_kb)),
    "MaxRSSNode": SstatField(10, lambda s: s.node),
    "MaxRSSTask": SstatField(10, lambda s: 0),
    "MinCPU": SstatField(10, lambda s: format_cpu_time(_per_task(_cpu_usec(s), s))),
    "MinCPUNode": SstatField(10, lambda s: s.node),
    "MinCPUTask": SstatField(10, lambda s: 0),
    "Nodelist": SstatField(20, lambda s: s.node),
    "NTasks": SstatField(8, lambda s: s.ntasks),
    "TotalCPU": SstatField(10, lambda s: format_cpu_time(_cpu_usec(s))),
    "TRESUsageInAve": SstatField(14, _tres_in("ave")),
    "TRESUsageInMax": SstatField(14, _tres_in("max")),
    "TRESUsageInMin": SstatField(14, _tres_in("min")),
    "TRESUsageInTot": SstatField(14, _tres_in("tot")),
}  # fmt: skip

WIDTHS: dict[str, int] = {name: f.width for name, f in FIELDS.items()}


def parse_fields(spec: str | Sequence[str] = DEFAULT_FIELDS) -> list[Column]:
    """Resolve a ``-o/--format`` list against the sstat field table."""
    return parse_field_list(spec, WIDTHS)


def help_format() -> list[str]:
    """``-e/--helpformat``: the field names, alphabetically, in columns."""
    return help_columns(FIELDS)


def row_values(columns: Sequence[Column], step: StepUsageInfo) -> list[Value]:
    """The cell values of one step's row for *columns*."""
    return record_values(FIELDS, columns, step)


def render_sstat(columns: Sequence[Column], steps: Iterable[StepUsageInfo], **options: Any) -> list[str]:
    """All sstat output lines (no newlines); options as print_fields.render (parsable, delimiter, header)."""
    return render_records(FIELDS, columns, steps, **options)
