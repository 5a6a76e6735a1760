"""sbatch: submit a batch script.

Precedence (lowest to highest): `#SBATCH` directives, SBATCH_* environment
variables, command-line options. Directive words go through the same getopt table
as the command line (cli/option_tables/sbatch.py), all lines together, as Slurm's.
"""
from __future__ import annotations

import os
import sys

from collections.abc import Sequence

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, job_options
from .app import die, run_as_process
from .cluster_option import check_clusters, this_cluster
from .command_line import OptionValues, collect, command_line, parse_words
from .option_support import refuse_unsupported
from .submit_inputs import add_submission_inputs
from .option_tables import sbatch as spec
from .sbatch_script import LEGACY_WARNING, ScriptError, directive_words, legacy_directives, validate, wrap

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

PROG = "sbatch"
# Beyond the shared allocation options (option_support.JOB_DESC)
ACTED_ON = frozenset({"output", "error", "input", "open_mode", "wrap", "parsable", "requeue", "no_requeue",
                      "array", "exclusive", "verbose", "clusters", "wait", "get_user_env", "test_only",
                      "batch", "umask", "ignore_pbs"})


def sbatch(args: Sequence[str]) -> None:
    """Submit a batch script to pyslurm."""
    cli = command_line(spec, args)
    operands = list(args[cli.operand_index:])
    cli_values = collect(spec, cli, {})
    script = operands[0] if operands else None
    wrapped = cli_values.get("wrap")
    if wrapped is not None and script is not None:
        die("Script arguments not permitted with --wrap option")
    # Bad values are refused now, as Slurm's sbatch refuses them while it parses its command line:
    # not after waiting for a script on stdin that may never come (a terminal, an open pipe).
    _job_desc(collect(spec, cli, os.environ), "", "", PROG, operands[1:])
    try:
        text, command, default_name = _read_script(script, wrapped, cli_values.get("chdir"))
        validate(text)
        if legacy_directives(text):
            print(f"{PROG}: error: {LEGACY_WARNING}", file=sys.stderr)
        directives = _directive_options(directive_words(text, script or "stdin"))
        if ("#PBS" in text or "#BSUB" in text) and not _ignore_pbs(cli_values, directives):
            from .sbatch_xlate import translated_directives

            directives += translated_directives(text, script or "stdin", {
                **dict(directives), "verbose": cli_values.get("verbose") or dict(directives).get("verbose")})
    except ScriptError as exc:
        die(*exc.lines, exit_code=exc.exit_code, severity=exc.severity)
    values = collect(spec, cli, os.environ, directives)
    refuse_unsupported(PROG, spec.OPTIONS, values, ACTED_ON)
    # Command: the script and its arguments, space-separated (a script read from stdin has none)
    desc = _job_desc(values, text, " ".join([command, *operands[1:]]) if command else "", default_name, operands[1:])
    if values.get("clusters") is not None:
        check_clusters(PROG, str(values["clusters"]), this_cluster())
    if values.get("verbose"):
        from .defined_options import defined_options
        from .scheduling_options import implicit_tasks

        if implicit_tasks(values, 0):   # -B without -n, as Slurm's sbatch says it first
            print(f"{PROG}: Number of tasks implicitly set to {desc.num_tasks}.", file=sys.stderr)
        for line in defined_options(spec.OPTIONS, values, desc.work_dir):
            print(f"{PROG}: {line}", file=sys.stderr)
    add_submission_inputs(desc, values, PROG)
    if values.get("test_only"):
        from .test_only import test_only

        test_only(PROG, desc)
    try:
        reply = client.controller("SubmitBatchJob", pb.SubmitRequest(job=desc), pb.SubmitReply)
    except SlurmError as exc:
        lines = ([exc.detail] if exc.detail else []) + [f"Batch job submission failed: {exc.strerror}"]
        die(*lines)
    if not values.get("quiet"):
        _say_submitted(values, reply)
    if values.get("wait"):
        from .sbatch_wait import wait_for_end

        sys.stdout.flush()
        raise SystemExit(wait_for_end(reply.job_id))


def _say_submitted(values: OptionValues, reply: pb.SubmitReply) -> None:
    on_cluster = values.get("clusters") is not None   # -M: the answer names the cluster, as Slurm's
    if values.get("parsable"):
        print(f"{reply.job_id};{reply.cluster}" if on_cluster else reply.job_id)
    else:
        print(f"Submitted batch job {reply.job_id}" + (f" on cluster {reply.cluster}" if on_cluster else ""))


def _ignore_pbs(cli_values: OptionValues, directives: list[tuple[str, Any]]) -> bool:
    """--ignore-pbs on the command line, in SBATCH_IGNORE_PBS or in an #SBATCH line."""
    return bool(cli_values.get("ignore_pbs")) or "SBATCH_IGNORE_PBS" in os.environ or any(
        dest == "ignore_pbs" for dest, _value in directives)


def _directive_options(components: list[list[str]]) -> list[tuple[str, Any]]:
    """The options of the script's directives (its first hetjob component: pyslurm runs no
    heterogeneous jobs, so a script with more is refused rather than run in part)."""
    if len(components) > 1 and any(components[1:]):
        die("Heterogeneous jobs (#SBATCH hetjob) are not supported")
    words = components[0]
    parsed = parse_words(PROG, words, spec.OPTIONS)
    if parsed.operand_index < len(words):
        die(f"Invalid directive found in batch script: {words[parsed.operand_index]}", exit_code=255)
    return parsed.options


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
    # The job's Command, as Slurm's: a path given with / or . as written, a bare name found
    command = script if script.startswith(("/", ".")) else path
    return data.decode(errors="surrogateescape"), command, os.path.basename(path)


def _resolve_script(script: str, chdir: str | None) -> str:
    # os.path, not pathlib: sbatch's start-up is a hot path.
    local = os.path.normpath(os.path.join(chdir or os.getcwd(), script))   # an absolute one stays
    if script.startswith(("/", ".")) or os.path.exists(local):
        return local
    import shutil  # only for scripts found through $PATH: keeps the common start-up lean

    return shutil.which(script) or local


def _job_desc(values: OptionValues, text: str, command: str, default_name: str,
              script_args: list[str]) -> pb.JobDesc:
    job_options.settle_options(PROG, values)
    open_mode = job_options.open_mode(values)
    desc = job_options.job_desc(
        values, default_name, os.environ,
        std_out=values.get("output") or "", std_err=values.get("error") or "",
        std_in=values.get("input") or "", script=text, argv=script_args, command=command,
        open_mode=open_mode or "truncate",
        requeue_set=bool(values.get("requeue") or values.get("no_requeue")),
        requeue=not values.get("no_requeue"), exclusive=values.given("exclusive"), **_array_field(values),
        batch_features=str(values.get("batch") or ""),   # checked against -C by the controller, as Slurm's
    )
    if values.get("umask") is not None:   # PBS -W umask= (cli/sbatch_xlate.py)
        from .sbatch_xlate import pbs_umask

        desc.umask = pbs_umask(str(values["umask"]))
    export_head = str(values.get("export") or "ALL").split(",", 1)[0].upper()
    if values.given("get_user_env") or export_head != "ALL":
        # The node starts the script from the user's login environment (pyslurm_d/user_login_env.py),
        # as Slurm's sbatch asks for with --get-user-env and with --export=NONE or a list.
        desc.environment.append("SLURM_GET_USER_ENV=1")
    return desc


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
    run_as_process(PROG, sbatch)
