"""scancel: cancel or signal jobs, by id or by filters."""
from __future__ import annotations

import getpass
import re
import sys
import time

import click

from pyslurm_common.bounds import JOB_ID
from pyslurm_common.errors import Strerror
from pyslurm_common.job_states import ACTIVE_STATES
from pyslurm_common.rpc import messages as pb

from . import client
from .app import die, run, version_option
from .job_states import parse_state_list
from .signals import parse_signal

PROG = "scancel"
_STEP_ID = re.compile(r"^(\d+)\.(\d+)$")  # 1234.0: one step
MAX_CANCEL_RETRY = 10   # scancel.c: tries of a job in a transitional state,
RETRY_DELAY = 5         # sleeping 5 s, then 6 s, ... between them
# Errors 22.05 keeps quiet about unless -v: the job is unknown or already done.
_QUIET_ERRORS = {"Invalid job id specified", "Job/step already completing or completed"}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@version_option
@click.option("-s", "--signal", "signal_name")
@click.option("-b", "--batch", is_flag=True)
@click.option("-f", "--full", is_flag=True)
@click.option("-u", "--user")
@click.option("--me", is_flag=True)
@click.option("-t", "--state", "states")
@click.option("-n", "--name", "--jobname", "name")
@click.option("-p", "--partition")
@click.option("-A", "--account")
@click.option("-v", "--verbose", is_flag=True)
@click.option("-Q", "--quiet", is_flag=True)
@click.argument("job_ids", nargs=-1)
def scancel(signal_name: str | None, batch: bool, full: bool, user: str | None, me: bool,
            states: str | None, name: str | None, partition: str | None, account: str | None,
            verbose: bool, quiet: bool, job_ids: tuple[str, ...]) -> None:
    """Cancel pending or running jobs."""
    signal = 0
    if signal_name is not None:
        try:
            signal = parse_signal(signal_name)
        except ValueError:
            die(f"Unknown job signal: {signal_name}")
    from pyslurm_common.array_spec import parse_job_spec

    specs = []                         # jobs and array tasks: 1234, 1234_5, 1234_[1-3]
    steps: dict[str, list[int]] = {}   # step id -> jobs whose step of that id is meant
    for text in job_ids:
        match = _STEP_ID.match(text)
        if match and JOB_ID.accepts(match.group(1)):
            steps.setdefault(match.group(2), []).append(int(match.group(1)))
            continue
        try:
            specs.append(parse_job_spec(text))
        except ValueError:
            die(f"Invalid job id {text}")
    ids = [spec.job_id for spec in specs]
    if me:
        user = getpass.getuser()
    filters = any(v is not None for v in (user, states, name, partition, account))
    if not ids and not steps and not filters:
        die("No job identification provided")
    failed = False
    if filters:   # filters pick individual records
        ids = _filtered_ids(ids, user, states, name, partition, account)
        if ids:
            failed = _signal(ids, "", signal, batch, full, verbose)
    elif specs:   # ids as typed: the controller resolves arrays (`123` is every task of array 123)
        failed = _signal([], "", signal, batch, full, verbose, [str(spec) for spec in specs])
    for step, step_jobs in steps.items():
        failed = _signal(step_jobs, step, signal, batch, full, verbose) or failed
    if failed:
        raise SystemExit(1)


def _signal(ids: list[int], step: str, signal: int, batch: bool, full: bool, verbose: bool,
            specs: list[str] | None = None) -> bool:
    """SignalJobs calls (a whole job each, or step `step` of each, or the typed `specs`); True if
    any failed. A job the controller cannot signal yet (pending: no process to take it) is asked
    again, as scancel does: up to 10 times, 5 s more each time."""
    request = pb.SignalRequest(job_ids=ids, signal=signal, batch_only=batch, full=full, step=step,
                               job_specs=specs or [])
    retryable = {Strerror.TRANSITION_STATE_NO_UPDATE} | ({Strerror.JOB_PENDING} if step else set())
    if verbose:   # said before the first try, as scancel does
        kind = "batch " if batch else "full " if full else ""
        for job in [*map(str, ids), *(specs or [])]:
            what = f"{kind}job {job}" if not step else f"step {job}.{step}"
            print(f"scancel: {'Signal %d to' % signal if signal else 'Terminating'} {what}", file=sys.stderr)
    results: list[pb.SignalResult] = []
    for attempt in range(MAX_CANCEL_RETRY):
        reply = client.controller("SignalJobs", request, pb.SignalReply)
        again = [r for r in reply.results if r.error in retryable]
        results += [r for r in reply.results if r.error not in retryable or attempt == MAX_CANCEL_RETRY - 1]
        if not again or attempt == MAX_CANCEL_RETRY - 1:
            break
        if verbose:
            print("scancel: Job is in transitional state, retrying", file=sys.stderr)
        time.sleep(RETRY_DELAY + attempt)
        del request.job_ids[:], request.job_specs[:]
        request.job_ids.extend(r.job_id for r in again if not r.job_spec)
        request.job_specs.extend(r.job_spec for r in again if r.job_spec)
    return _report(results, step, verbose)


def _report(results: list[pb.SignalResult], step: str, verbose: bool) -> bool:
    failed = False
    for result in results:
        job = result.job_spec or str(result.job_id)
        if not result.error or (result.error in _QUIET_ERRORS and not verbose):
            continue
        target = f"job id {job}" if not step else f"job step id {job}.{step}"
        print(f"scancel: error: Kill job error on {target}: {result.error}", file=sys.stderr)
        failed = failed or result.error not in _QUIET_ERRORS
    return failed


def _filtered_ids(ids: list[int], user: str | None, states: str | None, name: str | None,
                  partition: str | None, account: str | None) -> list[int]:
    try:
        wanted_states = parse_state_list(states) if states else ACTIVE_STATES
    except ValueError as exc:
        die(f"Invalid job state specified: {exc}")
    jobs = client.controller("GetJobs", pb.JobQuery(job_ids=ids), pb.JobList).jobs
    users = set(user.split(",")) if user else None
    return [j.job_id for j in jobs
            if j.state in wanted_states and not j.completing
            and (users is None or j.user_name in users or str(j.user_id) in users)
            and (name is None or j.name in name.split(","))
            and (partition is None or j.partition in partition.split(","))
            and (account is None or j.account in account.split(","))]


def main() -> None:
    run(PROG, scancel)
