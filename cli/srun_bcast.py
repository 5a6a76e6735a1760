"""srun --bcast[=dest]: copy the step's executable to the nodes, then run that copy (srun(1)).

The destination is --bcast's value when it is an absolute path; else the directory of
BcastParameters=DestDir=, else the working directory (--chdir), where each node's copy is named
slurm_bcast_<job>.<step>_<node>, as Slurm names it. The copy is sbcast's (cli/sbcast.py: tasks of
the job write it, as the job's user) with --force and --preserve, to every node of the job. The
controller creates and launches a step in one call, so a copy into a directory is written first
under a name of srun's own (`staged`) and each node's stepd gives it the step's name before the
first task runs it (pyslurm_d/task_exec.py). Outside an allocation the copy is the job's first
step, so srun's job ends when srun gives it back (as salloc's), not with that step.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from pyslurm_common.typed_tuple import NamedTuple

from .app import die

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any


class BcastPlan(NamedTuple):   # a NamedTuple: dataclasses would import inspect into srun
    source: str                # the executable, found as srun finds it
    dest: str                  # a file, or a directory ending in "/"


def executable(name: str, work_dir: str) -> str:
    """The program srun would run: a path as given (relative to --chdir), else the first
    executable of that name in PATH, then in --chdir; Slurm's fatal error otherwise."""
    candidates = [os.path.join(work_dir, name)] if "/" in name else [
        os.path.join(d or ".", name) for d in os.environ.get("PATH", "").split(":")] + [os.path.join(work_dir, name)]
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    die(f"Can not execute {name}", severity="fatal")


def plan(values: Mapping[str, Any], argv: Sequence[str], work_dir: str) -> BcastPlan | None:
    if "bcast" not in values:
        return None
    source = executable(argv[0], work_dir)
    value = str(values["bcast"] or "")
    if value.startswith("/"):
        return BcastPlan(source, value)
    from pyslurm_common.client_settings import conf_value

    for item in conf_value("BcastParameters").split(","):
        key, _, dest_dir = item.partition("=")
        if key.strip().lower() == "destdir" and dest_dir:
            return BcastPlan(source, dest_dir.rstrip("/") + "/")
    return BcastPlan(source, work_dir.rstrip("/") + "/")


def transfer(bcast: BcastPlan, job_id: int, nodes: Sequence[str]) -> tuple[str, str] | None:
    """Copy the executable to `nodes`: (the step's argv[0], the staged name's prefix or ""), None
    when it failed (the receivers said why)."""
    from .sbcast import broadcast

    staged = f"{bcast.dest}.slurm_bcast_{job_id}.{os.getpid()}_" if bcast.dest.endswith("/") else ""
    try:
        with open(bcast.source, "rb") as data:
            status = broadcast(data, staged or bcast.dest, str(job_id), nodes, force=True, preserve=True,
                               node_suffix=bool(staged))
    except OSError:
        return None
    return None if status else (bcast.dest, staged)

