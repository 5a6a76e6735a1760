"""srun's options and what they become: the JobDesc of its own allocation, the StepRequest.

Pure but for reading the given environment mapping: spec cli-sbatch-srun-salloc.md §3.1-3.3.
Inside an allocation the step sizes default to the job's (SLURM_NTASKS, SLURM_NNODES and
SRUN_CPUS_PER_TASK read as input variables of -n, -N and -c); command-line options win.
"""
from __future__ import annotations

import os
import re
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import click
from click.core import ParameterSource

from pyslurm_common.rpc import messages as pb

from . import job_options
from .job_options import option
from .step_layout import INPUT_ALL, INPUT_NONE

INPUT_ENV: dict[str, str | list[str]] = {
    "partition": "SLURM_PARTITION", "account": "SLURM_ACCOUNT", "qos": "SLURM_QOS",
    "mem": "SLURM_MEM_PER_NODE", "mem_per_cpu": "SLURM_MEM_PER_CPU", "time": "SLURM_TIMELIMIT",
    "export": ["SRUN_EXPORT_ENV", "SLURM_EXPORT_ENV"], "gres": "SLURM_GRES", "gpus": "SLURM_GPUS",
    "gpus_per_node": "SLURM_GPUS_PER_NODE", "gpus_per_task": "SLURM_GPUS_PER_TASK",
    "ntasks": "SLURM_NTASKS", "nodes": "SLURM_NNODES", "cpus_per_task": "SRUN_CPUS_PER_TASK",
    "ntasks_per_node": "SLURM_NTASKS_PER_NODE",
}
OPTIONS = [
    *job_options.shared_options(INPUT_ENV),  # type: ignore[arg-type]
    option("--jobid"),
    option("-o", "--output", env="SLURM_STDOUTMODE"),
    option("-e", "--error", env="SLURM_STDERRMODE"),
    option("-i", "--input", env="SLURM_STDINMODE"),
    option("-l", "--label", flag=True, env="SLURM_LABELIO"),
    option("-u", "--unbuffered", flag=True, env="SLURM_UNBUFFEREDIO"),
    option("--pty", flag=True),
    option("-K", "--kill-on-bad-exit", "kill_on_bad_exit", flag=True, env="SLURM_KILL_BAD_EXIT"),
    option("-W", "--wait", type=click.IntRange(min=0), env="SLURM_WAIT"),
    option("-X", "--disable-status", "disable_status", flag=True, env="SLURM_DISABLE_STATUS"),
    option("--quit-on-interrupt", "quit_on_interrupt", flag=True),
    option("--exact", flag=True, env="SLURM_EXACT"),
    option("--overlap", flag=True, env="SLURM_OVERLAP"),
    option("--mpi", type=click.Choice(["none", "pmi2", "pmix"], case_sensitive=False)),
    option("-Q", "--quiet", flag=True),
]
# Written glued (`-K1`, `--kill-on-bad-exit=0`), as srun requires for its optional values.
_KILL_ON_BAD_EXIT = re.compile(r"^(?:-K|--kill-on-bad-exit=)([01])$")


def normalize_args(command: click.Command, args: Sequence[str]) -> list[str]:
    """`-K1`/`-K0` (and the long `=` forms) before the program become the -K flag or nothing."""
    takes_value = {name for p in command.params if isinstance(p, click.Option) and not p.is_flag
                   for name in p.opts}
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--" or not arg.startswith("-") or arg == "-":
            return out + list(args[i:])
        match = _KILL_ON_BAD_EXIT.match(arg)
        if match:
            out += ["-K"] if match.group(1) == "1" else []
        else:
            out.append(arg)
            if arg in takes_value and i + 1 < len(args):
                out.append(args[i + 1])
                i += 1
        i += 1
    return out


@dataclass(frozen=True, slots=True)
class StreamSpec:
    """One of -o/-e/-i: `all` (stream everything), `none`, one task rank, or a file pattern."""
    mode: str                  # "all", "none", "rank", "file"
    rank: int = 0
    pattern: str = ""

    @property
    def on_node(self) -> bool:
        """Per-task or per-node files are opened by the stepd; the others by srun."""
        return self.mode == "file" and bool(re.search(r"%\d*[tnN]", self.pattern)) and "\\" not in self.pattern


def stream_spec(value: str | None) -> StreamSpec:
    if value is None or value.lower() == "all":
        return StreamSpec("all")
    if value.lower() == "none":
        return StreamSpec("none")
    if value.isdigit():
        return StreamSpec("rank", rank=int(value))
    return StreamSpec("file", pattern=value)


def input_task(spec: StreamSpec, pty: bool) -> int:
    """StepRequest.input_task: -1 every task, -2 none, else the rank that gets stdin."""
    if pty:
        return 0
    if spec.mode == "file":
        return INPUT_NONE if spec.on_node else INPUT_ALL  # a local file is streamed like srun's own stdin
    return {"all": INPUT_ALL, "none": INPUT_NONE, "rank": spec.rank}[spec.mode]


def step_sizes(values: Mapping[str, Any], source: Callable[[str], ParameterSource | None]) -> tuple[int, int, int]:
    """(tasks, nodes, cpus per task) of the step; 0 = the controller's default.

    A node count inherited from the job (SLURM_NNODES) gives way to a smaller task count
    from the command line, as Slurm's srun does (`srun -n1` in a two-node job); a task count
    inherited from the job (SLURM_NTASKS) gives way to --ntasks-per-node on the command line."""
    tasks = job_options.task_count(values)
    nodes = job_options.positive_int(values, "nodes", "--nodes")
    cpus = job_options.positive_int(values, "cpus_per_task", "--cpus-per-task")
    if (source("ntasks") is ParameterSource.ENVIRONMENT
            and source("ntasks_per_node") is ParameterSource.COMMANDLINE):
        tasks = job_options.positive_int(values, "ntasks_per_node", "--ntasks-per-node") * max(1, nodes)
    if (tasks and nodes > tasks and source("nodes") is ParameterSource.ENVIRONMENT
            and source("ntasks") is ParameterSource.COMMANDLINE):
        nodes = tasks
    return tasks, nodes, cpus


def step_environment(values: Mapping[str, Any], environ: Mapping[str, str], work_dir: str, umask: int) -> list[str]:
    """The tasks' environment before the controller's SLURM_* step variables (§3.3)."""
    env = dict(item.split("=", 1) for item in
               job_options.export_environment(values.get("export"), environ, none_keeps_slurm=False))
    env["SLURM_SUBMIT_DIR"] = work_dir
    env["SLURM_SUBMIT_HOST"] = socket.gethostname()
    env["SLURM_UMASK"] = f"{umask:04o}"
    env["SRUN_DEBUG"] = "3"
    env.setdefault("TMPDIR", "/tmp")
    if values.get("label"):
        env["SLURM_LABELIO"] = "1"
    if values.get("unbuffered") or values.get("pty"):
        env["SLURM_UNBUFFEREDIO"] = "1"
    if values.get("kill_on_bad_exit"):
        env["SLURM_KILL_BAD_EXIT"] = "1"
    return [f"{k}={v}" for k, v in env.items()]


def step_request(values: Mapping[str, Any], source: Callable[[str], ParameterSource | None],
                 argv: Sequence[str], environ: Mapping[str, str], job_id: int, io_port: int,
                 io_key: str, pty_size: tuple[int, int]) -> pb.StepRequest:
    tasks, nodes, cpus = step_sizes(values, source)
    out, err, inp = (stream_spec(values.get(k)) for k in ("output", "error", "input"))
    pty = bool(values.get("pty"))
    work_dir = job_options.work_dir(values)
    umask = job_options.current_umask()
    return pb.StepRequest(
        job_id=job_id, name=values.get("job_name") or os.path.basename(argv[0]),
        num_tasks=tasks, min_nodes=nodes, cpus_per_task=cpus,
        exact=bool(values.get("exact")) or cpus > 0,
        overlap=bool(values.get("overlap")), nodelist=values.get("nodelist") or "",
        argv=list(argv), environment=step_environment(values, environ, work_dir, umask),
        work_dir=work_dir, io_port=io_port, io_key=io_key, pty=pty,
        std_out=out.pattern if out.on_node else "", std_err=err.pattern if err.on_node else "",
        std_in=inp.pattern if inp.on_node else "", input_task=input_task(inp, pty),
        kill_on_bad_exit=bool(values.get("kill_on_bad_exit")), umask=umask,
        rlimits=job_options.rlimits(), pty_rows=pty_size[0] if pty else 0, pty_cols=pty_size[1] if pty else 0,
        wait_seconds=values.get("wait") or 0, unbuffered=bool(values.get("unbuffered")) or pty,
    )


def allocation_desc(values: Mapping[str, Any], argv: Sequence[str], environ: Mapping[str, str]) -> pb.JobDesc:
    """The job srun creates outside an allocation: named after the program unless -J."""
    return job_options.job_desc(values, os.path.basename(argv[0]), environ, launcher="srun", script="",
                                argv=list(argv))
