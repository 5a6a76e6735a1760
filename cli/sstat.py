"""sstat: live usage (memory, CPU time) of running job steps, measured on their nodes.

One controller call per ``-j`` item; the controller lets only the job's owner or a privileged
user look, and asks the job's batch host. The header is printed even when nothing can be shown.
Messages (stderr, exit 1 after printing whatever could be shown):

* ``sstat: error: couldn't get steps for job <id>: <reason>`` (unknown job, Access/permission
  denied, node not answering);
* ``sstat: error: no steps running for job <id>[.<step>]`` (pending or finished job, or no
  such step);
* ``sstat: error: You didn't give me any jobs to stat.`` without ``-j``.
"""
from __future__ import annotations

import sys

import click

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, sstat_fields
from .app import die, run, version_option
from .print_fields import FormatError, Parsable

PROG = "sstat"


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@version_option
@click.option("-j", "--jobs", multiple=True, help="job[.step] list to stat")
@click.option("-a", "--allsteps", is_flag=True, help="every running step of jobs given without a step")
@click.option("-o", "--format", "--fields", "formats", multiple=True, help="fields to print")
@click.option("-e", "--helpformat", is_flag=True, help="list the fields -o accepts")
@click.option("-p", "--parsable", is_flag=True, help="'|' delimited, with a trailing '|'")
@click.option("-P", "--parsable2", is_flag=True, help="'|' delimited, without a trailing '|'")
@click.option("--delimiter", default="|", help="delimiter for -p/-P")
@click.option("-n", "--noheader", is_flag=True, help="no header lines")
def sstat(jobs: tuple[str, ...], allsteps: bool, formats: tuple[str, ...], helpformat: bool,
          parsable: bool, parsable2: bool, delimiter: str, noheader: bool) -> None:
    """Display status information of running job steps."""
    if helpformat:
        sys.stdout.write("\n".join(sstat_fields.help_format()) + "\n")
        return
    try:
        columns = sstat_fields.parse_fields(",".join(formats) or sstat_fields.DEFAULT_FIELDS)
    except FormatError as exc:
        die(str(exc))
    try:
        targets = sstat_fields.parse_job_steps(jobs)
    except ValueError as exc:
        die(str(exc))
    if not targets:
        die("You didn't give me any jobs to stat.")
    steps, errors = [], []
    for target in targets:
        query = pb.StepUsageQuery(job_id=target.job_id, step_id=target.step or "")
        try:
            found = client.controller("GetStepUsage", query, pb.StepUsageList).steps
        except SlurmError as exc:
            errors.append(f"couldn't get steps for job {target.job_id}: {exc.strerror}")
            continue
        chosen = sstat_fields.select_steps(found, target.step, allsteps)
        if not chosen:
            errors.append(f"no steps running for job {target.job_id}"
                          + (f".{target.step}" if target.step is not None else ""))
        steps.extend(chosen)
    mode = Parsable.NO_TRAILING if parsable2 else Parsable.TRAILING if parsable else Parsable.NONE
    lines = sstat_fields.render_sstat(columns, steps, parsable=mode, delimiter=delimiter,
                                      header=not noheader)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    if errors:
        sys.stdout.flush()
        die(*errors)


def main() -> None:
    run(PROG, sstat)
