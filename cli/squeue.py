"""squeue: list jobs the controller knows about."""
from __future__ import annotations

import getpass
import os
import sys

import click

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, job_lists, squeue_format
from .app import die, run, version_option
from .job_states import parse_state_list, valid_states_text

PROG = "squeue"


@click.command(context_settings={"help_option_names": ["--help"]})
@version_option
@click.option("-o", "--format", "fmt")
@click.option("-O", "--Format", "long_fmt")
@click.option("-h", "--noheader", is_flag=True)
@click.option("-l", "--long", "long_listing", is_flag=True)
@click.option("-u", "--user")
@click.option("--me", is_flag=True)
@click.option("-j", "--jobs")
@click.option("-t", "--states")
@click.option("-p", "--partition")
@click.option("-n", "--name")
@click.option("-A", "--account")
@click.option("-w", "--nodelist")
@click.option("-S", "--sort")
@click.option("-s", "--steps", is_flag=True)
@click.option("-r", "--array", "expand_arrays", is_flag=True)
@click.option("--start", "start", is_flag=True)
@click.option("--noconvert", is_flag=True)
# Slurm's -a shows hidden partitions' jobs too; pyslurm has no hidden partitions, so every
# job is already listed (Open OnDemand passes --all on each call).
@click.option("-a", "--all", "all_partitions", is_flag=True)
def squeue(fmt: str | None, long_fmt: str | None, noheader: bool, long_listing: bool,
           user: str | None, me: bool, jobs: str | None, states: str | None, partition: str | None,
           name: str | None, account: str | None, nodelist: str | None, sort: str | None,
           steps: bool, expand_arrays: bool, start: bool, noconvert: bool, all_partitions: bool) -> None:
    """View information about jobs in the queue."""
    if start:       # expected start times of pending jobs, earliest first
        states, sort, fmt = states or "PD", sort or "S", fmt or (None if long_fmt else squeue_format.START_FORMAT)
    try:
        wanted = parse_state_list(states) if states else None
    except ValueError as exc:
        die(f"Invalid job state specified: {exc}", f"Valid job states include: {valid_states_text()}")
    try:
        specs = job_lists.parse_job_list(jobs or "")
    except ValueError as exc:
        die(f"Invalid job id: {exc}")
    ids = [spec.job_id for spec in specs]
    line_format = _step_format(fmt, long_fmt) if steps else _line_format(fmt, long_fmt, long_listing)
    for unknown_field in line_format.unknown:
        print(f"{PROG}: error: Invalid job format specification: {unknown_field}", file=sys.stderr)
    try:
        reply = client.controller("GetJobs", pb.JobQuery(job_ids=ids), pb.JobList)
    except SlurmError as exc:
        print(f"slurm_load_jobs error: {exc.strerror}", file=sys.stderr)
        raise SystemExit(1)
    listed = job_lists.named(reply.jobs, specs)
    if expand_arrays:
        listed = job_lists.expand_array_tasks(listed)
    selected = squeue_format.visible_jobs(listed, wanted)
    if me:
        user = getpass.getuser()
    selected = [j for j in selected if _matches(j, user, partition, name, account, nodelist)]
    if steps:
        lines = squeue_format.render_steps(line_format, squeue_format.running_steps(selected), reply.now,
                                           header=not noheader)
    else:
        try:
            ordered = squeue_format.sort_jobs(selected, sort or squeue_format.DEFAULT_SORT)
        except squeue_format.FormatError as exc:
            die(str(exc))
        lines = squeue_format.render_jobs(line_format, ordered, reply.now, header=not noheader,
                                          with_date=long_listing,
                                          fields=squeue_format.NOCONVERT_FIELDS if noconvert else None)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def _line_format(fmt: str | None, long_fmt: str | None, long_listing: bool) -> squeue_format.LineFormat:
    try:
        if fmt:
            return squeue_format.parse_format(fmt)
        if long_fmt:
            return squeue_format.parse_long_format(long_fmt)
        if os.environ.get("SQUEUE_FORMAT"):
            return squeue_format.parse_format(os.environ["SQUEUE_FORMAT"])
        if os.environ.get("SQUEUE_FORMAT2"):
            return squeue_format.parse_long_format(os.environ["SQUEUE_FORMAT2"])
        return squeue_format.parse_format(squeue_format.LONG_FORMAT if long_listing else squeue_format.DEFAULT_FORMAT)
    except squeue_format.FormatError as exc:
        die(str(exc))


def _step_format(fmt: str | None, long_fmt: str | None) -> squeue_format.LineFormat:
    try:
        if long_fmt:
            return squeue_format.parse_step_long_format(long_fmt)
        return squeue_format.parse_step_format(fmt or squeue_format.STEP_FORMAT)
    except squeue_format.FormatError as exc:
        die(str(exc))


def _matches(job: pb.JobInfo, user: str | None, partition: str | None, name: str | None,
             account: str | None, nodelist: str | None) -> bool:
    def member(value: str, wanted: str | None) -> bool:
        return wanted is None or value in wanted.split(",")

    if user is not None and not (job.user_name in user.split(",") or str(job.user_id) in user.split(",")):
        return False
    if nodelist is not None:
        from pyslurm_common.hostlist import expand

        if not set(expand(job.nodes) if job.nodes else ()) & set(expand(nodelist)):
            return False
    # A pending job of several partitions (-p a,b) lists them all; it matches any of them.
    in_partition = partition is None or bool(set(job.partition.split(",")) & set(partition.split(",")))
    return in_partition and member(job.name, name) and member(job.account, account)


def main() -> None:
    run(PROG, squeue)
