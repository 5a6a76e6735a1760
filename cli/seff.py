"""seff: a job's CPU, memory and GPU efficiency (Slurm's contrib `seff`, plus GPU lines).

`seff [-h] [-v] <jobid>` as Slurm's script takes it (getopts, one job id, `123` or an array
task `123_4`): the usage text on stdout and exit 1 for -h or a wrong argument count, `seff
Version 2.1` and exit 1 for -v, `Job not found.` on stderr and exit 2. The job comes from the
accounting daemon; while it runs, its running steps' figures come live from their nodes (what
sstat shows), so a running job gets a report too. Lines: pyslurm_common/efficiency.py.
"""
from __future__ import annotations

import getopt
import sys
import time

from pyslurm_common.efficiency import StepFigures, report
from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, job_lists, sacct_database
from .app import CliError

USAGE = """Usage: seff [Options] <Jobid>
       Options:
       -h    Help menu
       -v    Version
"""
VERSION = "2.1"


def _record(text: str) -> pb.JobRecord | None:
    try:
        [spec] = job_lists.parse_job_list(text)
    except ValueError:
        return None
    # Any user's job, as Slurm's seff asks; the accounting daemon hides others' under PrivateData=jobs.
    query = pb.AccountingQuery(job_ids=[spec.job_id], all_users=True)
    records = [r for r in sacct_database.call("QueryJobs", query, pb.JobRecordBatch).records
               if job_lists.names(spec, r.job)]
    return records[-1] if records else None   # the latest run of a requeued job


def _figures(record: pb.JobRecord) -> list[StepFigures]:
    """Ended steps from the record; running ones, of a running job, from their nodes."""
    steps = [StepFigures.of_step(s) for s in record.steps if s.end_time]
    if record.job.state == "RUNNING":
        query = pb.StepUsageQuery(job_id=record.job.job_id, step_id="")
        try:
            live = client.controller("GetStepUsage", query, pb.StepUsageList).steps
        except (SlurmError, client.ConnectError):
            live = []   # the report still has what ended
        steps += [StepFigures.of_usage(u) for u in live]
    return steps


def main() -> None:
    try:
        opts, args = getopt.getopt(sys.argv[1:], "hv")
    except getopt.GetoptError as exc:
        sys.stderr.write(f"seff: {exc}\n")
        opts, args = [("-h", "")], []
    flags = {flag for flag, _ in opts}
    if "-v" in flags:
        print(f"seff Version {VERSION}")
        sys.exit(1)
    if "-h" in flags or len(args) != 1:
        sys.stdout.write(USAGE)
        sys.exit(1)
    try:
        record = _record(args[0])
    except CliError as exc:   # the accounting daemon cannot be reached
        sys.stderr.write("".join(f"seff: error: {line}\n" for line in exc.lines))
        sys.exit(exc.exit_code)
    if record is None:
        sys.stderr.write("Job not found.\n")
        sys.exit(2)
    lines = report(record.job, record.cluster, record.alloc_cpus, _figures(record), int(time.time()))
    sys.stdout.write("\n".join(lines) + "\n")
