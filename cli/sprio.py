"""sprio: the priority factors of pending jobs (priority/multifactor)."""
from __future__ import annotations

import sys

import click

from pyslurm_common.bounds import JOB_ID
from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, sprio_format
from .app import die, run, version_option
from .squeue_format import FormatError

PROG = "sprio"


@click.command(context_settings={"help_option_names": ["--help"]})
@version_option
@click.option("-o", "--format", "fmt")
@click.option("-h", "--noheader", is_flag=True)
@click.option("-l", "--long", "long_listing", is_flag=True)
@click.option("-n", "--norm", "normalized", is_flag=True)
@click.option("-w", "--weights", "weights_only", is_flag=True)
@click.option("-j", "--jobs")
@click.option("-u", "--user", "--users", "users")
def sprio(fmt: str | None, noheader: bool, long_listing: bool, normalized: bool, weights_only: bool,
          jobs: str | None, users: str | None) -> None:
    """View the factors that comprise a job's scheduling priority."""
    job_ids = _job_ids(jobs)
    names = [u for u in (users or "").split(",") if u]
    try:
        reply = client.controller("GetPriorityFactors", pb.PriorityFactorsQuery(job_ids=job_ids, users=names),
                                  pb.PriorityFactorsReply)
    except SlurmError as exc:
        die(f"Couldn't get priority factors from controller: {exc.strerror}")
    try:
        line_format = sprio_format.parse_format(fmt or sprio_format.default_format(
            reply.weights, long=long_listing, normalized=normalized, users=bool(users)))
    except FormatError as exc:
        die(str(exc))
    if (job_ids or names) and not reply.jobs and not weights_only:
        print("Unable to find jobs matching user/id(s) specified")
        return
    lines = sprio_format.render(line_format, reply.jobs, reply.weights, header=not noheader,
                                weights_only=weights_only)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def _job_ids(text: str | None) -> list[int]:
    ids = []
    for item in (text or "").split(","):
        if not item:
            continue
        try:
            ids.append(JOB_ID.parse(item))
        except ValueError:
            die(f"Invalid job id: {item}")
    return ids


def main() -> None:
    run(PROG, sprio)
