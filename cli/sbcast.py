"""sbcast: copy a file to every node of the job's allocation.

The copy is written on each node by a task of the job itself, so as the job's user, in the
job's cgroup, with no more rights than the user has there: sbcast runs one task per node
(`srun --overlap -N<nodes> --ntasks-per-node=1 --input=all`, a step named "sbcast") whose
program, cli.sbcast_receive, writes its standard input to DEST. The file travels as that
step's standard input, which srun sends to every task.

Options as Slurm 22.05: -f/--force replaces an existing DEST (else "File exists", exit 17),
-p/--preserve keeps the access and modification times (the mode is always the source's),
-j/--jobid picks the job (else SLURM_JOB_ID; J.S: only the nodes of its step S), -C/--compress[=lib], -F/--fanout, -s/--size and
-t/--timeout shape Slurm's own transfer of blocks, which this one does not have, so they are
checked and take no effect; a relative DEST is relative to the current directory. --send-libs
(copying the executable's shared objects too) is refused; --exclude, which only filters those
objects, is accepted as Slurm accepts it without --send-libs.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from typing import IO

from . import query_command
from .app import die, run
from .option_tables import sbcast as spec

PROG = "sbcast"
COMPRESSION = ("lz4", "none")


def sbcast(argv: Sequence[str]) -> None:
    values, operands = query_command.parse(spec, argv)     # options, then SBCAST_* under them
    opts = {name: values.get(name) for name in ("compress", "fanout", "force", "jobid", "preserve", "size",
                                                "timeout")}
    _check_transfer_options(opts)
    send_libs = values.get("send_libs")
    if send_libs is not None and str(send_libs).lower() not in ("no", "n", "0"):
        # Slurm would copy the executable's shared objects beside DEST; refused, never ignored.
        # (--exclude only filters those objects, so without them it has nothing to act on.)
        die("--send-libs is not supported: copy the libraries with sbcast one by one")
    if len(operands) != 2:
        print(f"Need two file names, have {len(operands)} names", file=sys.stderr)
        print(f'Try "{PROG} --help" for more information', file=sys.stderr)
        raise SystemExit(1)
    source, dest = operands
    job = str(opts.get("jobid") or os.environ.get("SLURM_JOB_ID", ""))
    if not job:
        die("Need a job id to run this command.  Run from within a Slurm job or use the --jobid option.")
    job_id, dot, step_id = job.partition(".")
    if not job_id.isdigit() or (dot and not step_id.isdigit()):
        die(f"Invalid job id {job}")
    try:
        data = open(source, "rb")     # as the user running sbcast
    except OSError as exc:
        die(f"Can't open `{source}`: {exc.strerror}", exit_code=255)
    nodes = _nodes_of(job_id, step_id if dot else None)
    with data:
        raise SystemExit(broadcast(data, os.path.join(os.getcwd(), dest), job_id, nodes,
                                   force=bool(opts.get("force")), preserve=bool(opts.get("preserve"))))


def broadcast(data: IO[bytes], dest: str, job_id: str, nodes: Sequence[str], force: bool, preserve: bool,
              node_suffix: bool = False) -> int:
    """Copy the open file `data` to `dest` (with `node_suffix`: dest + each node's name) on `nodes`
    of the job by a step of one receiving task per node (also srun --bcast's transfer); its exit
    status, the receivers' errors printed in Slurm's words."""
    stat = os.fstat(data.fileno())
    receiver = [sys.executable, "-m", "cli.sbcast_receive", dest, oct(stat.st_mode & 0o7777), "1" if force else "0",
                "1" if node_suffix else "0",
                *([str(stat.st_atime_ns), str(stat.st_mtime_ns)] if preserve else [])]
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "srun")
    srun = [beside if os.path.exists(beside) else "srun", f"--jobid={job_id}", "--overlap", "--quiet",
            f"--nodes={len(nodes)}", f"--nodelist={','.join(nodes)}", f"--ntasks={len(nodes)}",
            "--ntasks-per-node=1", "--input=all",
            "--job-name=sbcast", *receiver]
    # The step is sbcast's own: none of the surrounding job's or step's srun settings apply to it.
    env = {k: v for k, v in os.environ.items()
           if k == "SLURM_CONF" or not k.startswith(("SLURM_", "SRUN_", "SBATCH_", "SALLOC_"))}
    done = subprocess.run(srun, stdin=data, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                          text=True, check=False)
    # The receivers say what failed in Slurm's words; srun's own lines about their exit go unsaid.
    # A step the controller refuses (another user's job) is Slurm's failed credential lookup.
    errors = [line for line in done.stderr.splitlines() if line.startswith(f"{PROG}: error: ")]
    refused = f"srun: error: Unable to create step for job {job_id}: "
    for line in errors or done.stderr.splitlines():
        if line.startswith(refused):
            line = f"{PROG}: error: Slurm job {job_id} lookup error: {line[len(refused):]}"
        print(line, file=sys.stderr)
    return done.returncode


def _check_transfer_options(opts: dict[str, object]) -> None:
    """Options that tune Slurm's block transfer: checked as Slurm checks them, then unused."""
    compress = opts.get("compress")
    if isinstance(compress, str) and compress and compress.lower() not in COMPRESSION:
        die(f"Invalid compression library: {compress}")
    fanout = opts.get("fanout")
    if isinstance(fanout, str) and not (fanout.isdigit() and 0 < int(fanout)):
        die(f"Invalid fanout value: {fanout}")
    for name in ("size", "timeout"):
        value = opts.get(name)
        if isinstance(value, str) and not value.rstrip("kKmM").isdigit():
            die(f"Invalid {name} value: {value}")


def _nodes_of(job_id: str, step_id: str | None) -> list[str]:
    """The running job's nodes, or with `step_id` (-j J.S) its running step's, as slurmctld's
    sbcast lookup: an unknown or ended step is an invalid job id."""
    from pyslurm_common.errors import SlurmError, Strerror
    from pyslurm_common.hostlist import expand
    from pyslurm_common.rpc import messages as pb

    from . import client

    shown = job_id if step_id is None else f"{job_id}.{step_id}"
    try:
        reply = client.controller("GetJobs", pb.JobQuery(job_ids=[int(job_id)]), pb.JobList)
    except SlurmError as exc:
        die(f"Slurm job {shown} lookup error: {exc.strerror}")
    job = next((j for j in reply.jobs if j.job_id == int(job_id)), None)
    if job is None:
        die(f"Slurm job {shown} lookup error: Invalid job id specified")
    if job.state == "PENDING":
        die(f"Slurm job {shown} lookup error: {Strerror.JOB_PENDING}")
    if job.state != "RUNNING" or not job.node_names:
        die(f"Slurm job {shown} lookup error: {Strerror.ALREADY_DONE}")
    if step_id is None:
        return list(job.node_names)
    step = next((s for s in job.steps if s.step_id == str(int(step_id)) and s.state == "RUNNING"), None)
    if step is None:
        die(f"Slurm job {shown} lookup error: Invalid job id specified")
    return expand(step.nodes)


def main() -> None:
    run(PROG, sbcast)


if __name__ == "__main__":
    main()
