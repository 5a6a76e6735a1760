"""Expansion of -o/-e/-i filename patterns (%j %x %u %A %a %N %n %s %t %J %%).

A number between `%` and the letter zero-pads numeric values, to 10 digits at most (Slurm's
documented cap: `%20j` pads as `%10j`); a backslash
anywhere in the pattern disables substitution (and is removed). Relative
results are joined to the job's working directory by the caller.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

NO_VAL = 4294967294
MAX_PADDING = 10
_TOKEN = re.compile(r"%(\d*)([%AaJjNnstux])")


@dataclass(frozen=True, slots=True)
class PatternContext:
    job_id: int
    job_name: str
    user_name: str
    node_name: str = ""
    array_job_id: int | None = None
    array_task_id: int | None = None
    step: str = "batch"
    task_rank: int = 0
    node_index: int = 0


def step_array_ids(job_id: int, environment: Mapping[str, str]) -> dict[str, int]:
    """%A and %a of a step inside an array task, from the task's SLURM_ARRAY_* variables (as
    Slurm's stepd reads them from the step's environment); none when they name another job."""
    array_job, array_task = environment.get("SLURM_ARRAY_JOB_ID", ""), environment.get("SLURM_ARRAY_TASK_ID", "")
    if environment.get("SLURM_JOB_ID") != str(job_id) or not (array_job.isdigit() and array_task.isdigit()):
        return {}
    return {"array_job_id": min(int(array_job), NO_VAL), "array_task_id": min(int(array_task), NO_VAL)}


def expand(pattern: str, ctx: PatternContext) -> str:
    if "\\" in pattern:
        return pattern.replace("\\", "")

    def numeric(width: str, value: int) -> str:
        return str(value).zfill(min(int(width), MAX_PADDING)) if width else str(value)

    def substitute(match: re.Match[str]) -> str:
        width, letter = match.groups()
        if letter == "%":
            return "%"
        if letter == "j":
            return numeric(width, ctx.job_id)
        if letter == "A":
            return numeric(width, ctx.array_job_id if ctx.array_job_id is not None else ctx.job_id)
        if letter == "a":
            return numeric(width, ctx.array_task_id if ctx.array_task_id is not None else NO_VAL)
        if letter == "J":
            return numeric(width, ctx.job_id) if ctx.step == "batch" else f"{numeric(width, ctx.job_id)}.{ctx.step}"
        if letter == "s":
            return ctx.step
        if letter == "t":
            return numeric(width, ctx.task_rank)
        if letter == "n":
            return numeric(width, ctx.node_index)
        if letter == "N":
            return ctx.node_name
        if letter == "u":
            return ctx.user_name
        return ctx.job_name  # %x

    return _TOKEN.sub(substitute, pattern)


def resolve(pattern: str, ctx: PatternContext, work_dir: str) -> str:
    path = expand(pattern, ctx)
    if path.startswith("/"):
        return path
    return f"{work_dir.rstrip('/')}/{path}"
