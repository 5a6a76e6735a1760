"""scancel: cancel or signal jobs, by id or by filters."""
from __future__ import annotations

import getpass
import re
import sys

import click

from pyslurm_common.rpc import messages as pb

from . import client
from .app import die, run
from .job_states import parse_state_list
from .signals import parse_signal

PROG = "scancel"
_JOB_ID = re.compile(r"^(\d+)(?:\.(\d+))?$")  # 1234 or 1234.0 (one step)
# Errors 22.05 keeps quiet about unless -v: the job is unknown or already done.
_QUIET_ERRORS = {"Invalid job id specified", "Job/step already completing or completed"}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
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
    ids = []
    steps: dict[str, list[int]] = {}   # step id -> jobs whose step of that id is meant
    for text in job_ids:
        match = _JOB_ID.match(text)
        if not match:
            die(f"Invalid job id {text}")
        if match.group(2) is not None:
            steps.setdefault(match.group(2), []).append(int(match.group(1)))
        else:
            ids.append(int(match.group(1)))
    if me:
        user = getpass.getuser()
    filters = any(v is not None for v in (user, states, name, partition, account))
    if not ids and not steps and not filters:
        die("No job identification provided")
    if filters:
        ids = _filtered_ids(ids, user, states, name, partition, account)
    failed = False
    if ids:
        failed = _signal(ids, "", signal, batch, full, verbose)
    for step, step_jobs in steps.items():
        failed = _signal(step_jobs, step, signal, batch, full, verbose) or failed
    if failed:
        raise SystemExit(1)


def _signal(ids: list[int], step: str, signal: int, batch: bool, full: bool, verbose: bool) -> bool:
    """One SignalJobs call (a whole job each, or step `step` of each); True if any failed."""
    reply = client.controller("SignalJobs", pb.SignalRequest(
        job_ids=ids, signal=signal, batch_only=batch, full=full, step=step), pb.SignalReply)
    failed = False
    for result in reply.results:
        what = f"job {result.job_id}" if not step else f"step {result.job_id}.{step}"
        if verbose and not result.error:
            print(f"scancel: {'Signal %d to' % signal if signal else 'Terminating'} {what}", file=sys.stderr)
        if not result.error or (result.error in _QUIET_ERRORS and not verbose):
            continue
        target = f"job id {result.job_id}" if not step else f"job step id {result.job_id}.{step}"
        print(f"scancel: error: Kill job error on {target}: {result.error}", file=sys.stderr)
        failed = failed or result.error not in _QUIET_ERRORS
    return failed


def _filtered_ids(ids: list[int], user: str | None, states: str | None, name: str | None,
                  partition: str | None, account: str | None) -> list[int]:
    try:
        wanted_states = parse_state_list(states) if states else {"PENDING", "RUNNING", "SUSPENDED"}
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
