"""sbatch: submit a batch script.

Precedence (lowest to highest): `#SBATCH` directives, SBATCH_* environment
variables, command-line options. Directive arguments are parsed by this same
click command, one directive line at a time, so both spellings accept exactly
the same options.
"""
from __future__ import annotations

import os
import sys
from typing import Any

import click
from click.core import ParameterSource

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, job_options
from .app import die, run
from .job_options import option
from .sbatch_script import LEGACY_WARNING, ScriptError, directive_lines, legacy_directives, validate, wrap

PROG = "sbatch"
INPUT_ENV = {
    "job_name": "SBATCH_JOB_NAME", "partition": "SBATCH_PARTITION", "account": "SBATCH_ACCOUNT",
    "qos": "SBATCH_QOS", "mem": "SBATCH_MEM_PER_NODE", "mem_per_cpu": "SBATCH_MEM_PER_CPU",
    "time": "SBATCH_TIMELIMIT", "export": "SBATCH_EXPORT", "gres": "SBATCH_GRES", "gpus": "SBATCH_GPUS",
    "gpus_per_node": "SBATCH_GPUS_PER_NODE", "gpus_per_task": "SBATCH_GPUS_PER_TASK",
    "signal": "SBATCH_SIGNAL", "constraint": "SBATCH_CONSTRAINT",
}
OPTIONS = [
    *job_options.shared_options(INPUT_ENV),
    option("-o", "--output", env="SBATCH_OUTPUT"),
    option("-e", "--error", env="SBATCH_ERROR"),
    option("-i", "--input", env="SBATCH_INPUT"),
    option("--open-mode", "open_mode", env="SBATCH_OPEN_MODE"),
    option("--wrap"),
    option("-H", "--hold", flag=True),
    option("--parsable", flag=True),
    option("-Q", "--quiet", flag=True),
    option("--requeue", flag=True, env="SBATCH_REQUEUE"),
    option("--no-requeue", "no_requeue", flag=True, env="SBATCH_NO_REQUEUE"),
    option("-a", "--array", env="SBATCH_ARRAY_INX"),
    option("--exclusive", flag=True, env="SBATCH_EXCLUSIVE"),
]


@click.command(context_settings={"allow_interspersed_args": False, "help_option_names": ["-h", "--help"]})
@job_options.with_options(OPTIONS)
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
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        raise ScriptError(f"Unable to open file {script}")
    return data.decode(errors="surrogateescape"), path, os.path.basename(path)


def _resolve_script(script: str, chdir: str | None) -> str:
    # os.path, not pathlib: sbatch's start-up is a hot path.
    local = os.path.normpath(os.path.join(chdir or os.getcwd(), script))   # an absolute one stays
    if script.startswith(("/", ".")) or os.path.exists(local):
        return local
    import shutil  # only for scripts found through $PATH: keeps the common start-up lean

    return shutil.which(script) or local


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


def _job_desc(values: dict[str, Any], text: str, command: str, default_name: str,
              script_args: list[str]) -> pb.JobDesc:
    open_mode = values.get("open_mode")
    if open_mode is not None and open_mode not in ("append", "truncate"):
        die("Invalid --open-mode specification")
    return job_options.job_desc(
        values, default_name, os.environ,
        std_out=values.get("output") or "", std_err=values.get("error") or "",
        std_in=values.get("input") or "", script=text, argv=script_args, command=command,
        open_mode=open_mode or "truncate",
        requeue_set=bool(values.get("requeue") or values.get("no_requeue")),
        requeue=not values.get("no_requeue"), exclusive=bool(values.get("exclusive")), **_array_field(values),
    )


def _array_field(values: dict[str, Any]) -> dict[str, Any]:
    """--array (syntax checked here; limits by the controller)."""
    array = str(values.get("array") or "")
    if array:
        from pyslurm_common.array_spec import parse_array_spec

        try:
            parse_array_spec(array)
        except ValueError:
            die("Invalid --array specification")
    return {"array": array}


def main() -> None:
    run(PROG, sbatch)
