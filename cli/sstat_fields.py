"""sstat's job step ids, step choice and field table over live usage (``pb.StepUsageInfo``).

Rows are rendered with the print_fields renderer of sacct (spec cli-sacct-sacctmgr-sprio-sshare.md
§1); sizes and CPU times print as sacct prints them (§2.4: ``102660K``, ``1M``; ``00:01.234``,
``01:02:03``). One row per running step, JobID ``<job>.<step>`` (``123.batch``).

What a step's cgroup can tell is what we show: its peak and current memory and its CPU time, for
all its tasks together. So MaxRSS is the step's peak, AveRSS its current memory per task, AveCPU
and MinCPU its CPU time per task, and the ``*Node``/``*Task`` fields name the node and task 0.
Slurm's VM size, pages, disk, energy and CPU frequency fields are not kept; ``TotalCPU`` (user +
system, as in sacct) is ours.

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
from cli.sacct_usage import format_cpu_time, format_kb
from pyslurm_common.rpc import messages as pb

__all__ = ["DEFAULT_FIELDS", "FormatError", "JobStep", "help_format", "parse_fields",
           "parse_job_steps", "render_sstat", "row_values", "select_steps"]

StepUsageInfo = pb.StepUsageInfo

DEFAULT_FIELDS = ("JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MinCPU,MinCPUNode,MinCPUTask,"
                  "AveCPU,NTasks,TotalCPU")
# Slurm's ids of the named steps sort after every numbered one, in this order.
_NAMED_STEPS = ("interactive", "batch", "extern")


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
        if not job.isdigit() or int(job) == 0 or (dot and not (step.isdigit() or step in _NAMED_STEPS)):
            raise ValueError(f"Invalid job id: {item}")
        found.append(JobStep(int(job), (str(int(step)) if step.isdigit() else step) if dot else None))
    return found


def _step_order(step: StepUsageInfo) -> tuple[int, int]:
    if step.step_id.isdigit():
        return (0, int(step.step_id))
    named = _NAMED_STEPS.index(step.step_id) if step.step_id in _NAMED_STEPS else len(_NAMED_STEPS)
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
