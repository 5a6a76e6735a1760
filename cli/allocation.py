"""Getting an interactive allocation (srun outside a job, salloc): submit, wait, give back.

Messages are Slurm's (spec cli-sbatch-srun-salloc.md §3.5 and §4) with the calling
command's name as prefix. A signal while the job pends cancels the request: the job is
cancelled and `<prog>: Job allocation N has been revoked` printed.
"""
from __future__ import annotations

import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client
from .app import die

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, NoReturn

FIRST_WAIT_MS = 1000
LATER_WAIT_MS = 10000
PENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


class Interrupted(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextmanager
def signals_interrupt() -> Iterator[None]:
    """While pending, the signals that cancel the request raise Interrupted."""
    def raise_interrupted(signum: int, frame: object) -> None:
        raise Interrupted(signum)

    previous = {s: signal.signal(s, raise_interrupted) for s in PENDING_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def held_signals() -> Iterator[list[int]]:
    """Around a call that must not be abandoned half-way (its answer names the job): the signals
    that cancel a request are noted in the list yielded, for the caller to act on after it."""
    held: list[int] = []
    previous = {s: signal.signal(s, lambda signum, frame: held.append(signum)) for s in PENDING_SIGNALS}
    try:
        yield held
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


_response_listener: list[socket.socket] = []   # kept open for the life of the process


def response_port() -> int:
    """Slurm's allocation response port: a listener this srun/salloc keeps until it exits. The
    controller connects to it when it grants the allocation; a refusal there tells it the client
    is gone (killed while pending), and it ends the job instead of holding its nodes
    (pyslurm_ctld/shell/allocating_client.py). Nothing is read from it: the connection is the message."""
    if not _response_listener:   # every address of this host, IPv6 too: the controller uses the one we came from
        dual = socket.has_dualstack_ipv6()
        listener = socket.create_server(("", 0), family=socket.AF_INET6 if dual else socket.AF_INET,
                                        backlog=4, dualstack_ipv6=dual)
        _response_listener.append(listener)
    return int(_response_listener[0].getsockname()[1])


def submit(prog: str, desc: pb.JobDesc) -> pb.SubmitReply:
    desc.alloc_resp_port = response_port()
    try:
        return client.controller("SubmitBatchJob", pb.SubmitRequest(job=desc), pb.SubmitReply)
    except SlurmError as exc:
        refused(prog, exc)


def refused(prog: str, exc: SlurmError) -> NoReturn:
    """The controller would not take the job: Slurm's lines, exit 1."""
    failure = "Job submit/allocate failed" if prog == "salloc" else "Unable to allocate resources"
    die(*([exc.detail] if exc.detail else []), f"{failure}: {exc.strerror}")


def informer(prog: str, quiet: bool) -> Callable[[str], None]:
    """Prints `<prog>: <text>` to stderr; nothing with -Q/--quiet."""
    def say(text: str) -> None:
        if not quiet:
            print(f"{prog}: {text}", file=sys.stderr)
    return say


def wait_until_started(prog: str, job_id: int, quiet: bool = False, pending_line: str = "",
                       immediate: int | None = None) -> pb.JobInfo:
    """Block until the job runs; print `pending_line` (salloc's) and the queued/allocated lines
    if it had to wait (not with -Q): an immediate grant prints none of them, as in Slurm.

    A job that ended instead (cancelled while pending) is revoked: message and exit 1.
    `immediate` (-I/--immediate, seconds): give up after that long, at once for 0."""
    say = informer(prog, quiet)
    revoked = _revoked_line(prog, job_id)
    deadline = None if immediate is None else time.monotonic() + immediate
    try:
        with signals_interrupt():
            job = _wait(job_id, FIRST_WAIT_MS)
            if job.state == "PENDING" and immediate == 0:
                _cancel(job_id)
                die("Unable to allocate resources: Requested nodes are busy")
            waited = job.state == "PENDING"
            # Slurm's answer to the submission itself (a shape or node count the partition cannot hold)
            if waited and job.reason in ("PartitionConfig", "PartitionNodeLimit"):
                say("Requested partition configuration not available now")
            if waited:
                if pending_line:
                    say(pending_line)
                say(f"job {job_id} queued and waiting for resources")
            while job.state == "PENDING":
                left = LATER_WAIT_MS if deadline is None else int((deadline - time.monotonic()) * 1000)
                if left <= 0:
                    _cancel(job_id)
                    print(f"{prog}: error: Unable to allocate resources: Connection timed out", file=sys.stderr)
                    print(revoked, file=sys.stderr)
                    raise SystemExit(1)
                job = _wait(job_id, min(left, LATER_WAIT_MS))
    except Interrupted:
        revoke(prog, job_id)
    if job.state != "RUNNING":
        print(revoked, file=sys.stderr)
        raise SystemExit(1)
    if waited:
        say(f"job {job_id} has been allocated resources")
    return job


def revoke(prog: str, job_id: int) -> NoReturn:
    """A signal while the job pends: it is cancelled, with Slurm's lines, exit 1."""
    _cancel(job_id)
    print(_revoked_line(prog, job_id), file=sys.stderr)
    if prog == "srun":
        print(f"srun: Force Terminated JobId={job_id}", file=sys.stderr)
    raise SystemExit(1)


def _revoked_line(prog: str, job_id: int) -> str:
    return f"{prog}: Job allocation {job_id} has been revoked" + ("." if prog == "salloc" else "")


def _wait(job_id: int, timeout_ms: int) -> pb.JobInfo:
    reply = client.controller("WaitAllocation", pb.AllocationWait(job_id=job_id, timeout_ms=timeout_ms),
                              pb.AllocationState, timeout=timeout_ms / 1000 + 30)
    return reply.job


def _cancel(job_id: int) -> None:
    try:
        client.controller("SignalJobs", pb.SignalRequest(job_ids=[job_id], signal=0), pb.SignalReply)
    except (SlurmError, client.ConnectError):
        pass  # the job is gone or the controller is: nothing left to give back


def immediate_seconds(values: Mapping[str, Any]) -> int | None:
    """-I/--immediate[=secs]: None when not given, 0 for `at once`."""
    raw = values.get("immediate")
    if raw is None:
        return None
    if raw == "":
        return 0
    if not str(raw).isdigit():
        die(f'Invalid numeric value "{raw}" for --immediate.')
    return int(raw)


def release(job_id: int, exit_code: int = 0, exit_signal: int = 0) -> None:
    """Give the allocation back (salloc's end, or srun whose step could not start)."""
    try:
        client.controller("CompleteAllocation", pb.AllocationRelease(
            job_id=job_id, exit_code=exit_code, exit_signal=exit_signal), pb.Empty)
    except SlurmError:
        pass  # already ended (time limit, scancel): nothing to release
