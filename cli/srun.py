"""srun: run parallel tasks as a job step, streaming their I/O (spec cli-sbatch-srun-salloc.md §3).

Outside an allocation srun first creates a job (launcher "srun", ended by its step 0);
inside one (SLURM_JOB_ID or --jobid) it adds a step. The step's stepds connect back to
srun's listener (pyslurm_common/step_io.py); cli/step_session.py runs that conversation.
"""
from __future__ import annotations

import contextlib
import os
import socket
import sys
import time
from collections.abc import Iterator, Sequence

from pyslurm_common.bounds import JOB_ID
from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import allocation, client, job_options, srun_bcast, srun_scripts, srun_step_options, verbose_lines
from .app import die, run_as_process
from .cluster_option import check_clusters, this_cluster
from .command_line import COMMAND_LINE, collect, command_line
from .option_support import refuse_unsupported
from .submit_inputs import add_submission_inputs
from .option_tables import srun as spec
from .srun_options import (StreamSpec, allocation_desc, binding_environment, check_step_gres, mpi_type, step_request,
                           multi_prog_config, step_sizes, stream_spec, wait_seconds)
from .step_layout import INPUT_NONE, StepLayout
from .terminal import terminal_size

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import IO, Any

PROG = "srun"
# Beyond the shared allocation options (option_support.JOB_DESC)
ACTED_ON = frozenset({"jobid", "output", "error", "input", "label", "unbuffered", "pty", "kill_on_bad_exit", "wait",
                      "disable_status", "quit_on_interrupt", "exact", "overlap", "mpi", "clusters", "open_mode",
                      "verbose", "exclusive", "immediate", "cpu_bind", "mem_bind", "multi_prog",
                      "threads", "whole", "het_group", "x11", "no_allocate", "prolog", "epilog",
                      "preserve_env", "bcast", "relative", "resv_ports", "accel_bind",
                      "task_prolog", "task_epilog", "test_only", "slurmd_debug"})
DEFAULT_KILL_WAIT = 30
MAX_RETRY_DELAY = 5.0


def srun(args: Sequence[str]) -> None:
    """Run parallel jobs."""
    cli = command_line(spec, args)
    values = collect(spec, cli, os.environ)
    refuse_unsupported(PROG, spec.OPTIONS, values, ACTED_ON)
    job_options.settle_options(PROG, values)
    if values.get("clusters") is not None:
        check_clusters(PROG, str(values["clusters"]), this_cluster())
    if (mpi := mpi_type(values)) != "none":
        values["mpi"] = mpi   # MpiDefault, so the step environment names it
    argv = list(args[cli.operand_index:])
    if not argv:
        die("No command given to execute.", severity="fatal")
    multi_prog = multi_prog_config(values, argv) if values.get("multi_prog") else None
    _check_input_rank(values)
    listener = socket.create_server(("0.0.0.0", 0), backlog=64)
    io_key = os.urandom(16).hex()  # what secrets.token_hex does, without its import cost
    job_text = values.get("jobid") or os.environ.get("SLURM_JOB_ID") or os.environ.get("SLURM_JOBID")
    made_job = not job_text
    if job_text and not JOB_ID.accepts(job_text):
        die(f"Invalid job id specified: {job_text}")
    job_id = int(job_text or 0)
    verbose = bool(values.get("verbose"))
    step_sizes(values)   # counts are checked before -v shows them, as srun does
    if not made_job:
        check_step_gres(values)
    srun_step_options.check_threads(values)
    srun_step_options.check_whole(values)
    relative = srun_step_options.check_relative(values)
    resv_ports = srun_step_options.resv_port_count(values)
    srun_step_options.check_no_allocate(values)
    srun_step_options.slurmd_debug(values)
    srun_step_options.check_x11(values, os.environ, made_job)
    srun_step_options.check_het_group(values, made_job)
    if multi_prog and "bcast" in values:
        die("--bcast with --multi-prog is not supported by pyslurm")
    bcast = srun_bcast.plan(values, argv, job_options.work_dir(values))
    wait_seconds(values)
    binding_environment(values)   # --cpu-bind/--gpu-bind are checked before any job is made
    if verbose:
        verbose_lines.say(PROG, verbose_lines.options_block(spec, values))
    if relative is not None and made_job:
        die("--relative option invalid for job allocation request", severity="fatal")
    if multi_prog and values.get("ntasks") is None:   # the file's ranks set the count (not shown by -v)
        values.set_from(COMMAND_LINE, [("ntasks", str(multi_prog[1]))])
    if values.get("test_only"):   # a job of its own is tested, as Slurm's srun does, even inside one
        from .test_only import test_only

        test_only(PROG, allocation_desc(values, argv, os.environ))
    request = step_request(values, argv, os.environ, job_id,
                           listener.getsockname()[1], io_key, terminal_size())
    if multi_prog:
        request.multi_prog = multi_prog[0]
    if resv_ports is not None:
        request.resv_ports = resv_ports
    if not request.pty and _background_terminal():
        request.input_task = INPUT_NONE  # reading the terminal from the background would stop srun (SIGTTIN)
    first_step: pb.StepAllocationReply | None = None   # the controller's answer to the step made with the job, if it was
    if made_job:
        desc = allocation_desc(values, argv, os.environ)
        if bcast:   # the copy is a step of its own, and a job srun makes ends with its first step:
            desc.launcher = "salloc"   # this one ends when srun gives it back, as salloc's does
        add_submission_inputs(desc, values, PROG)
        quiet, immediate = bool(values.get("quiet")), allocation.immediate_seconds(values)
        if bcast or srun_scripts.script_path(values, "prolog", "SrunProlog"):   # both run before the step
            job_id = allocation.submit(PROG, desc).job_id
            job = allocation.wait_until_started(PROG, job_id, quiet, immediate=immediate)
        else:
            from .srun_allocation import allocate_with_step

            job, first_step = allocate_with_step(desc, request, quiet, immediate, meanwhile=_load_step_modules)
            job_id = job.job_id
        request.job_id = job_id
        job_nodes = (job.nodes, len(job.node_names))
        if verbose:
            from pyslurm_common.hostlist import compress_counts   # it imports re: only for -v

            verbose_lines.say(PROG, [verbose_lines.allocation_line(
                job_id, job.nodes, len(job.node_names), compress_counts(list(job.cpus_per_node)))])
    else:
        count = os.environ.get("SLURM_JOB_NUM_NODES", "")
        job_nodes = (os.environ.get("SLURM_JOB_NODELIST", ""), int(count) if count.isdigit() and len(count) < 10 else 0)
        if verbose and "SLURM_JOB_NODELIST" in os.environ:   # inside the allocation: from its variables
            env = os.environ
            verbose_lines.say(PROG, [verbose_lines.allocation_line(
                job_id, env["SLURM_JOB_NODELIST"], int(env.get("SLURM_JOB_NUM_NODES", "1") or 1),
                env.get("SLURM_JOB_CPUS_PER_NODE", ""))])
    if relative is not None:
        from pyslurm_common.hostlist import expand

        request.nodelist = ",".join(srun_step_options.relative_nodes(
            relative, expand(job_nodes[0]), request.min_nodes, values.source("nodes") == COMMAND_LINE))
    if bcast and not _broadcast(bcast, request, job_nodes[0]):
        if made_job:
            allocation.release(job_id, exit_code=1)
        die(f"Failed to broadcast '{bcast.source}'. Step launch aborted.", severity="fatal")
    if not srun_scripts.run_prolog(values, argv, srun_scripts.job_variables(job_id, *job_nodes, request.num_tasks)):
        if made_job:
            allocation.release(job_id, exit_code=1)
        raise SystemExit(1)
    reply = _create_step(request, made_job, quiet=bool(values.get("quiet")), first=first_step)
    if verbose:
        layout = StepLayout(tuple(reply.nodes), tuple(reply.tasks_per_node), request.distribution)
        verbose_lines.say(PROG, verbose_lines.launch_lines(f"{job_id}.{reply.step_id}", reply.nodes,
                                                           [layout.ranks_of(i) for i in range(len(reply.nodes))]))
    code = _run_step(values, request, reply, listener, io_key)
    if made_job and bcast:
        allocation.release(job_id, exit_code=code)
    srun_scripts.run_epilog(values, argv, srun_scripts.job_variables(job_id, *job_nodes, reply.num_tasks, reply.step_id))
    raise SystemExit(code)


def _broadcast(bcast: srun_bcast.BcastPlan, request: pb.StepRequest, job_nodes: str) -> bool:
    """--bcast: the executable copied to the job's nodes; the step runs the copy."""
    from pyslurm_common.hostlist import expand

    done = srun_bcast.transfer(bcast, request.job_id, expand(job_nodes))
    if done is None:
        return False
    request.argv[0], request.bcast_staged = done
    return True


def _check_input_rank(values: dict[str, Any]) -> None:
    """`--input=N` names a task of the step (checked before any job is made)."""
    spec = stream_spec(values.get("input"))
    if spec.mode != "rank" or values.get("ntasks") is None:
        return  # without -n the controller decides the task count; a missing rank gets no input
    tasks = job_options.positive_int(values, "ntasks", "--ntasks")
    if spec.rank >= tasks:
        die(f"Invalid --input specification: task {spec.rank} of {tasks}")


def _background_terminal() -> bool:
    """Whether stdin is a terminal whose foreground is another process group (`srun cmd &`)."""
    try:
        return os.isatty(0) and os.tcgetpgrp(0) != os.getpgrp()
    except OSError:
        return False


# The controller's word for a node that refused its part of the step (controller.start_step),
# matched only when a step failed: re is not imported by every srun (issue 18).
_LAUNCH_FAILED = r"launch of step (\d+\.\d+) on (\S+) failed: (.+)"


def _launch_failed(detail: str) -> None:
    """A node refused to start the step's tasks (a CPU binding it cannot meet, a stepd that
    could not start): Slurm's two lines, with the node's reason."""
    import re

    failed = re.match(_LAUNCH_FAILED, detail)
    if failed:
        step, node, why = failed.groups()
        print(f"srun: error: Task launch for StepId={step} failed on node {node}: {why}", file=sys.stderr)
        die(f"Application launch failed: {why}")


def _create_step(request: pb.StepRequest, made_job: bool, quiet: bool,
                 first: pb.StepAllocationReply | None = None) -> pb.StepReply:
    """CreateStep, retrying while the job's resources are busy with other steps; `first`: the
    answer the controller gave with the job (srun_allocation.py), taken as the first try's.

    A signal meanwhile ends srun; a job srun made for this step is given back first."""
    job_id, tries, delay = request.job_id, 0, 1.0
    say = allocation.informer(PROG, quiet)
    try:
        with allocation.signals_interrupt():
            while True:
                try:
                    if first is not None:
                        from .srun_allocation import step_answer

                        answer, first = first, None
                        reply = step_answer(answer)
                    else:
                        call = client.controller_started("CreateStep", request)
                        _load_step_modules()
                        reply = call.reply(pb.StepReply)
                except SlurmError as exc:
                    if made_job:
                        allocation.release(job_id, exit_code=1)
                    _launch_failed(exc.detail)
                    die(f"Unable to create step for job {job_id}: {exc.strerror}")
                if not reply.busy:
                    break
                how = "temporarily disabled" if tries == 0 else "still disabled"
                say(f"Job {job_id} step creation {how}, retrying ({reply.busy_reason})")
                tries += 1
                time.sleep(delay)
                delay = min(delay * 1.5, MAX_RETRY_DELAY)
    except allocation.Interrupted:
        if made_job:
            allocation.release(job_id, exit_code=1)
        raise SystemExit(1)
    if tries:
        say(f"Step created for job {job_id}")
    return reply


def _writer(stream: IO[bytes]) -> Any:
    def write(data: bytes) -> None:
        stream.write(data)
        stream.flush()
    return write


@contextlib.contextmanager
def _output_routes(values: dict[str, Any], request: pb.StepRequest, step_id: int) -> Iterator[tuple[Any, Any]]:
    """OutputRoutes for stdout and stderr per -o/-e; local files are opened here."""
    from .step_stream import OutputRoute

    out_spec = stream_spec(values.get("output"))
    err_spec = stream_spec(values.get("error")) if values.get("error") is not None else out_spec
    with contextlib.ExitStack() as stack:
        opened: dict[str, IO[bytes]] = {}

        def route(spec: StreamSpec, terminal: IO[bytes]) -> OutputRoute:
            if spec.mode == "none" or spec.on_node:
                return OutputRoute(None)
            if spec.mode == "rank":
                return OutputRoute(_writer(terminal), only_rank=spec.rank)
            if spec.mode == "all":
                return OutputRoute(_writer(terminal))
            import pwd

            from pyslurm_common.filename_pattern import PatternContext, resolve, step_array_ids

            path = resolve(spec.pattern, PatternContext(
                job_id=request.job_id, job_name=request.name, user_name=pwd.getpwuid(os.getuid()).pw_name,
                step=str(step_id), **step_array_ids(request.job_id, os.environ)), request.work_dir)
            if path not in opened:
                try:
                    opened[path] = stack.enter_context(open(path, "ab" if _appends(request) else "wb"))
                except OSError as exc:
                    die(f"Could not open stdout file {path}: {exc.strerror}")
            return OutputRoute(_writer(opened[path]))

        yield route(out_spec, sys.stdout.buffer), route(err_spec, sys.stderr.buffer)


def _appends(request: pb.StepRequest) -> bool:
    """Files srun opens itself follow --open-mode; without it a requeued job's steps append."""
    if request.open_mode:
        return request.open_mode == "append"
    return os.environ.get("SLURM_RESTART_COUNT", "0") not in ("", "0")


def _redirect_stdin(values: dict[str, Any], request: pb.StepRequest) -> None:
    """`-i file` opened on this host: the file takes the place of srun's stdin."""
    spec = stream_spec(values.get("input"))
    if spec.mode != "file" or spec.on_node:
        return
    path = os.path.join(request.work_dir, spec.pattern)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        die(f"Could not open stdin file {path}: {exc.strerror}")
    os.dup2(fd, 0)
    os.close(fd)


def _load_step_modules() -> None:
    """Import what _run_step needs ahead of it, while the controller creates the step (their
    import took a quarter of srun's own time after the step had started)."""
    from . import step_session, step_stream, task_report, terminal  # noqa: F401 - loaded, used later


def _run_step(values: dict[str, Any], request: pb.StepRequest, reply: pb.StepReply,
              listener: socket.socket, io_key: str) -> int:
    from . import task_report
    from .step_session import SessionOptions, StepSession
    from .step_stream import StreamConsumer
    from .terminal import raw_terminal

    job_id, step = request.job_id, f"{request.job_id}.{reply.step_id}"
    layout = StepLayout(tuple(reply.nodes), tuple(reply.tasks_per_node), request.distribution)
    _redirect_stdin(values, request)
    with _output_routes(values, request, reply.step_id) as (out_route, err_route):
        consumer = StreamConsumer(layout, out_route, err_route, labelled=bool(values.get("label")))
        session = StepSession(
            listener, layout, consumer,
            SessionOptions(step=step, io_key=io_key, input_task=request.input_task,
                           disable_status=bool(values.get("disable_status")),
                           quit_on_interrupt=bool(values.get("quit_on_interrupt")), pty=request.pty,
                           wait_seconds=wait_seconds(values)),
            step_gone=lambda: _step_gone(job_id, str(reply.step_id)), kill_wait=_kill_wait)
        with raw_terminal() if request.pty else contextlib.nullcontext(False):
            session.run()
    for name in session.never_connected:
        print(f"srun: error: Task launch for StepId={step} failed on node {name}", file=sys.stderr)
    for line in task_report.exit_report(consumer.outcomes, layout):
        print(line, file=sys.stderr)
    status = task_report.exit_status(consumer.outcomes)
    if len(consumer.outcomes) < layout.num_tasks:
        status = max(status, 1)  # tasks that never reported did not succeed
    return status


def _step_gone(job_id: int, step_id: str) -> bool:
    """Whether the controller considers the step (or its whole job) over."""
    try:
        jobs = client.controller("GetJobs", pb.JobQuery(job_ids=[job_id]), pb.JobList).jobs
    except (SlurmError, client.ConnectError):
        return False
    if not jobs or jobs[0].state != "RUNNING":
        return True
    return any(s.step_id == step_id and s.state not in ("", "RUNNING", "PENDING") for s in jobs[0].steps)


def _kill_wait() -> int:
    try:
        dump = client.controller("GetConfig", pb.Empty(), pb.ConfigDump)
    except (SlurmError, client.ConnectError):
        return DEFAULT_KILL_WAIT
    for entry in dump.entries:
        if entry.key == "KillWait" and entry.value.split()[0].isdigit():
            return int(entry.value.split()[0])
    return DEFAULT_KILL_WAIT


def main() -> None:
    run_as_process(PROG, srun)
