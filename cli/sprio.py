"""sprio: the priority factors of pending jobs (priority/multifactor)."""
from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from pyslurm_common.bounds import JOB_ID
from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, sprio_format
from .app import die, run
from .option_tables import sprio as spec
from .query_command import QueryValues, list_values, parse
from .squeue_format import FormatError

PROG = "sprio"


def sprio(args: Sequence[str]) -> None:
    """View the factors that comprise a job's scheduling priority."""
    values, operands = parse(spec, args)
    jobs = values.get("jobs")
    if operands and jobs == "":   # `sprio -j 12`: the word after a bare -j is its list
        jobs = operands.pop(0)
    if operands:
        print(f"sprio: error: Unrecognized option: {operands[0]}", file=sys.stderr)
        print("\n".join(spec.USAGE))
        raise SystemExit(1)
    if values.get("long") and values.get("format"):
        print("sprio: fatal: Options -o(--format) and -l(--long) are mutually exclusive. "
              "Please remove one and retry.", file=sys.stderr)
        raise SystemExit(1)
    if values.get("verbose"):
        sys.stdout.write(_options_block(values, jobs))
    if values.get("clusters") is not None:
        from .cluster_option import check_clusters, this_cluster

        if len([name for name in values["clusters"].split(",") if name]) > 1:
            print("sprio: fatal: Only one cluster can be used at a time with sprio", file=sys.stderr)
            raise SystemExit(1)
        check_clusters(PROG, values["clusters"], this_cluster())
    job_ids = _job_ids(jobs)
    names = list_values(values.get("users")) or []
    try:
        reply = client.controller("GetPriorityFactors", pb.PriorityFactorsQuery(job_ids=job_ids, users=names),
                                  pb.PriorityFactorsReply)
    except SlurmError as exc:
        die(f"Couldn't get priority factors from controller: {exc.strerror}")
    fmt = values.get("format") or (None if values.get("long") else os.environ.get("SPRIO_FORMAT"))
    try:
        line_format = sprio_format.parse_format(fmt or sprio_format.default_format(
            reply.weights, long=bool(values.get("long")), normalized=bool(values.get("norm")),
            users=values.get("users") is not None))
    except FormatError as exc:
        die(str(exc))
    for letter in line_format.unknown:   # reported, the listing goes on without it (exit 0)
        print(f"{PROG}: error: Invalid job format specification: {letter}", file=sys.stderr)
    partitions = list_values(values.get("partition"))
    listed = [j for j in reply.jobs if partitions is None or j.partition in partitions]
    if (job_ids or names) and not listed and not values.get("weights"):
        print("Unable to find jobs matching user/id(s) specified")
        return
    try:
        lines = sprio_format.render(line_format, listed, reply.weights, header=not values.get("noheader"),
                                    weights_only=bool(values.get("weights")), sort=values.get("sort") or "i")
    except FormatError as exc:
        die(str(exc))
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


def _options_block(values: QueryValues, jobs: str | None) -> str:
    """-v: the settings block Slurm's sprio prints first (its _print_options)."""
    rows = [("format", values.get("format") or "(null)"), ("job_flag", "1" if values.get("jobs") is not None else "0"),
            ("jobs", jobs or "(null)"), ("partition", values.get("partition") or "(null)"),
            ("users", values.get("users") or "(null)"), ("verbose", str(values.get("verbose", 0)))]
    rule = "-----------------------------"
    return "\n".join([rule, *(f"{name:<10} = {value}" for name, value in rows), rule]) + "\n\n\n"


def main() -> None:
    run(PROG, sprio)
