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
from collections.abc import Sequence

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, sstat_fields
from .app import die, run
from .option_tables import sstat as spec
from .print_fields import FormatError, Parsable
from .query_command import parse

PROG = "sstat"


def sstat(args: Sequence[str]) -> None:
    """Display status information of running job steps."""
    values, operands = parse(spec, args)
    if values.get("helpformat"):
        sys.stdout.write("\n".join(sstat_fields.help_format()) + "\n")
        return
    # -i and each -o add to the field list, in order; -j lists and the first operand add jobs.
    fields = ",".join(sstat_fields.PID_FIELDS if dest == "pidformat" else str(value)
                      for dest, value in values.sequence if dest in ("pidformat", "format"))
    try:
        columns = sstat_fields.parse_fields(fields or sstat_fields.DEFAULT_FIELDS)
    except FormatError as exc:
        die(str(exc))
    jobs = [str(value) for dest, value in values.sequence if dest == "jobs"] + operands[:1]
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
        chosen = sstat_fields.select_steps(found, target.step, bool(values.get("allsteps")))
        if not chosen:
            errors.append(f"no steps running for job {target.job_id}"
                          + (f".{target.step}" if target.step is not None else ""))
        steps.extend(chosen)
    mode = Parsable.NO_TRAILING if values.get("parsable2") else Parsable.TRAILING if values.get("parsable") \
        else Parsable.NONE
    table = sstat_fields.fields_keeping_units() if values.get("noconvert") else sstat_fields.FIELDS
    lines = sstat_fields.render_sstat(columns, steps, fields=table, parsable=mode, header=not values.get("noheader"))
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    if errors:
        sys.stdout.flush()
        die(*errors)


def main() -> None:
    run(PROG, sstat)
