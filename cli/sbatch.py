"""sbatch: submit a batch script.

Precedence (lowest to highest): `#SBATCH` directives, SBATCH_* environment
variables, command-line options. Directive arguments are parsed by this same
click command, one directive line at a time, so both spellings accept exactly
the same options.
"""
from __future__ import annotations

import os
import resource
import socket
import sys
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from pyslurm_common import units
from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client
from .app import die, run
from .sbatch_script import LEGACY_WARNING, ScriptError, directive_lines, legacy_directives, validate, wrap

PROG = "sbatch"
# Limits a job inherits from the submitting shell, as Slurm's PropagateResourceLimits=ALL.
RLIMITS = ("CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE", "MEMLOCK", "AS")


def _opt(*decls: str, env: str | None = None, flag: bool = False, **kw: Any):  # type: ignore[no-untyped-def]
    if flag:
        return click.option(*decls, is_flag=True, default=False, envvar=env, **kw)
    return click.option(*decls, default=None, envvar=env, **kw)


OPTIONS = [
    _opt("-J", "--job-name", "job_name", env="SBATCH_JOB_NAME"),
    _opt("-p", "--partition", env="SBATCH_PARTITION"),
    _opt("-A", "--account", env="SBATCH_ACCOUNT"),
    _opt("-q", "--qos", env="SBATCH_QOS"),
    _opt("-N", "--nodes"),
    _opt("-n", "--ntasks"),
    _opt("-c", "--cpus-per-task", "cpus_per_task"),
    _opt("--mem", env="SBATCH_MEM_PER_NODE"),
    _opt("--mem-per-cpu", "mem_per_cpu", env="SBATCH_MEM_PER_CPU"),
    _opt("-t", "--time", env="SBATCH_TIMELIMIT"),
    _opt("-o", "--output", env="SBATCH_OUTPUT"),
    _opt("-e", "--error", env="SBATCH_ERROR"),
    _opt("-i", "--input", env="SBATCH_INPUT"),
    _opt("-D", "--chdir"),
    _opt("--export", env="SBATCH_EXPORT"),
    _opt("--open-mode", "open_mode", env="SBATCH_OPEN_MODE"),
    _opt("--nice"),
    _opt("--wrap"),
    _opt("-H", "--hold", flag=True),
    _opt("--parsable", flag=True),
    _opt("-Q", "--quiet", flag=True),
    _opt("--gres", env="SBATCH_GRES"),
    _opt("-G", "--gpus", env="SBATCH_GPUS"),
    _opt("--gpus-per-node", "gpus_per_node", env="SBATCH_GPUS_PER_NODE"),
    _opt("--gpus-per-task", "gpus_per_task", env="SBATCH_GPUS_PER_TASK"),
    _opt("--signal", env="SBATCH_SIGNAL"),
    _opt("--requeue", flag=True, env="SBATCH_REQUEUE"),
    _opt("--no-requeue", "no_requeue", flag=True, env="SBATCH_NO_REQUEUE"),
]


def _apply_options(func):  # type: ignore[no-untyped-def]
    for option in reversed(OPTIONS):
        func = option(func)
    return func


@click.command(context_settings={"allow_interspersed_args": False, "help_option_names": ["-h", "--help"]})
@_apply_options
@click.version_option("22.05.8", "-V", "--version", message="slurm %(version)s")
@click.argument("script", required=False)
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED)
def sbatch(**cli_values: Any) -> None:
    """Submit a batch script to pyslurm."""
    ctx = click.get_current_context()
    script, script_args = cli_values.pop("script"), list(cli_values.pop("script_args"))
    wrapped = cli_values.get("wrap")
    if wrapped is not None and script is not None:
        die("script argument not permitted with --wrap option")
    try:
        text, command, default_name = _read_script(script, wrapped, cli_values.get("chdir"))
        validate(text)
        if legacy_directives(text):
            print(f"{PROG}: error: {LEGACY_WARNING}", file=sys.stderr)
        values = _merge(ctx, cli_values, directive_lines(text, script or "stdin"))
    except ScriptError as exc:
        die(*exc.lines, exit_code=exc.exit_code, severity=exc.severity)
    desc = _job_desc(values, text, command, default_name, script_args)
    try:
        reply = client.controller("SubmitBatchJob", pb.SubmitRequest(job=desc), pb.SubmitReply)
    except SlurmError as exc:
        lines = ([exc.detail] if exc.detail else []) + [f"Batch job submission failed: {exc.strerror}"]
        die(*lines)
    if values["quiet"]:
        return
    if values["parsable"]:
        click.echo(str(reply.job_id))
    else:
        click.echo(f"Submitted batch job {reply.job_id}")


def _read_script(script: str | None, wrapped: str | None, chdir: str | None) -> tuple[str, str, str]:
    if wrapped is not None:
        return wrap(wrapped), "", "wrap"
    if script is None:
        return sys.stdin.read(), "", "sbatch"
    path = _resolve_script(script, chdir)
    try:
        data = path.read_bytes()
    except OSError:
        raise ScriptError(f"Unable to open file {script}")
    return data.decode(errors="surrogateescape"), str(path), path.name


def _resolve_script(script: str, chdir: str | None) -> Path:
    base = Path(chdir) if chdir else Path.cwd()
    if script.startswith(("/", ".")):
        return base / script if not script.startswith("/") else Path(script)
    if (base / script).exists():
        return base / script
    import shutil  # only for scripts found through $PATH: keeps the common start-up lean

    found = shutil.which(script)
    return Path(found) if found else base / script


def _merge(ctx: click.Context, cli_values: dict[str, Any], directives: list[list[str]]) -> dict[str, Any]:
    """Directives < environment < command line."""
    merged = dict(cli_values)
    from_directives: dict[str, Any] = {}
    for args in directives:
        try:
            dctx = sbatch.make_context(PROG, list(args), resilient_parsing=False)
        except click.ClickException:
            raise ScriptError(f"Invalid directive found in batch script: {args[0]}", exit_code=255)
        if dctx.params.get("script") is not None:
            raise ScriptError(f"Invalid directive found in batch script: {dctx.params['script']}", exit_code=255)
        for name, value in dctx.params.items():
            if dctx.get_parameter_source(name) is ParameterSource.COMMANDLINE:
                from_directives[name] = value
    for name, value in from_directives.items():
        if ctx.get_parameter_source(name) not in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            merged[name] = value
    return merged


def _int(values: dict[str, Any], name: str, flag: str) -> int:
    raw = values.get(name)
    if raw is None:
        return 0
    try:
        number = int(str(raw).split("-")[0])
    except ValueError:
        die(f"Invalid {flag} specification")
    if number < 1:
        die(f"Invalid {flag} specification")
    return number


def _memory(values: dict[str, Any], name: str, flag: str) -> int:
    raw = values.get(name)
    if raw is None:
        return 0
    try:
        return units.parse_memory_mb(str(raw))
    except ValueError:
        die(f"Invalid {flag} specification")


def _export_environment(export: str | None) -> list[str]:
    """The environment the job gets, per --export (ALL, NONE, [ALL,]VAR[=val],...)."""
    env = os.environ
    items = [i for i in (export or "ALL").split(",") if i]
    head = items[0].upper() if items else "ALL"
    if head == "ALL" and len(items) == 1:
        return [f"{k}={v}" for k, v in env.items()]
    keep_all = head == "ALL"
    if head in ("ALL", "NONE"):
        items = items[1:]
    chosen = dict(env) if keep_all else {k: v for k, v in env.items() if k.startswith("SLURM_")}
    for item in items:
        name, sep, value = item.partition("=")
        if sep and keep_all:
            chosen.setdefault(name, value)  # with ALL, the existing environment wins
        elif sep:
            chosen[name] = value
        elif name in env:
            chosen[name] = env[name]
    return [f"{k}={v}" for k, v in chosen.items()]


def _gpu_count(values: dict[str, Any], name: str, flag: str) -> tuple[str, int]:
    """`[type:]N` of the --gpus* options -> (type, N)."""
    raw = values.get(name)
    if raw is None:
        return "", 0
    kind, _, count = str(raw).rpartition(":")
    if not count.isdigit() or int(count) < 1:
        die(f"Invalid {flag} specification")
    return kind, int(count)


def _signal(values: dict[str, Any]) -> tuple[int, int, bool]:
    """--signal=[{R|B}:]<sig>[@<secs>] -> (number, seconds before the limit, batch shell only)."""
    raw = values.get("signal")
    if raw is None:
        return 0, 0, False
    text = str(raw)
    batch_only = False
    if len(text) > 2 and text[1] == ":" and text[0] in "RB":
        batch_only, text = text[0] == "B", text[2:]
    name, _, secs = text.partition("@")
    from .signals import parse_signal  # the signal module's enums cost start-up time otherwise

    try:
        number = parse_signal(name)
        seconds = int(secs) if secs else 60
    except ValueError:
        die("Invalid --signal specification")
    if not 0 <= seconds <= 65535:
        die("Invalid --signal specification")
    return number, seconds, batch_only


def _rlimits() -> list[str]:
    """This shell's resource limits, for the job (PropagateResourceLimits=ALL)."""
    out = []
    for name in RLIMITS:
        soft, hard = resource.getrlimit(getattr(resource, f"RLIMIT_{name}"))
        out.append(f"{name}={soft}:{hard}")
    return out


def _job_desc(values: dict[str, Any], text: str, command: str, default_name: str,
              script_args: list[str]) -> pb.JobDesc:
    if values.get("mem") is not None and values.get("mem_per_cpu") is not None:
        die("--mem and --mem-per-cpu are mutually exclusive.")
    time_limit = 0
    if values.get("time") is not None:
        try:
            time_limit = units.parse_time_limit(str(values["time"]))
        except ValueError:
            die("Invalid --time specification")
    open_mode = values.get("open_mode")
    if open_mode is not None and open_mode not in ("append", "truncate"):
        die("Invalid --open-mode specification")
    nice = 0
    if values.get("nice") is not None:
        try:
            nice = int(values["nice"])
        except ValueError:
            die("Invalid --nice specification")
    cwd = os.getcwd()
    chdir = values.get("chdir")
    work_dir = os.path.normpath(os.path.join(cwd, chdir)) if chdir else cwd
    umask = os.umask(0)
    os.umask(umask)
    requeue_set = bool(values.get("requeue") or values.get("no_requeue"))
    gpu_types = set()
    gpu_counts = {}
    for name, flag in (("gpus", "--gpus"), ("gpus_per_node", "--gpus-per-node"), ("gpus_per_task", "--gpus-per-task")):
        kind, gpu_counts[name] = _gpu_count(values, name, flag)
        if kind:
            gpu_types.add(kind)
    if len(gpu_types) > 1:
        die("Invalid GPU type specification: use one type")
    if gpu_counts["gpus_per_task"] and values.get("ntasks") is None:
        die("--gpus-per-task requires --ntasks")
    signal_number, signal_seconds, signal_batch_only = _signal(values)
    return pb.JobDesc(
        name=values.get("job_name") or default_name,
        partitions=[p for p in (values.get("partition") or "").split(",") if p],
        account=values.get("account") or "", qos=values.get("qos") or "",
        min_nodes=_int(values, "nodes", "--nodes"), num_tasks=_int(values, "ntasks", "--ntasks"),
        cpus_per_task=_int(values, "cpus_per_task", "--cpus-per-task"),
        ntasks_given=values.get("ntasks") is not None,
        cpus_per_task_given=values.get("cpus_per_task") is not None,
        mem_per_node_mb=_memory(values, "mem", "--mem"),
        mem_per_cpu_mb=_memory(values, "mem_per_cpu", "--mem-per-cpu"),
        time_limit_min=time_limit, work_dir=work_dir,
        std_out=values.get("output") or "", std_err=values.get("error") or "",
        std_in=values.get("input") or "", hold=bool(values.get("hold")), script=text,
        environment=_export_environment(values.get("export")), argv=script_args, command=command,
        submit_host=socket.gethostname(), umask=umask, export_env=values.get("export") or "",
        open_mode=open_mode or "truncate", nice=nice, requeue_set=requeue_set,
        requeue=not values.get("no_requeue"), gres=values.get("gres") or "",
        gpus=gpu_counts["gpus"], gpus_per_node=gpu_counts["gpus_per_node"],
        gpus_per_task=gpu_counts["gpus_per_task"], gpu_type=next(iter(gpu_types), ""),
        signal_number=signal_number, signal_seconds=signal_seconds, signal_batch_only=signal_batch_only,
        rlimits=_rlimits(),
    )


def main() -> None:
    run(PROG, sbatch)
