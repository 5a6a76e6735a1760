"""sacct: job accounting records from the accounting daemon."""
from __future__ import annotations

import getpass
import os
import sys
import time

import click

from pyslurm_common import hostlist, units
from pyslurm_common.array_spec import JobSpec
from pyslurm_common.rpc import messages as pb

from . import job_lists, sacct_database, sacct_fields
from .app import die, run, version_option
from .job_states import parse_state_list
from .print_fields import FormatError, Parsable

PROG = "sacct"


def _midnight(now: float) -> int:
    t = time.localtime(now)
    return int(time.mktime((t.tm_year, t.tm_mon, t.tm_mday, 0, 0, 0, 0, 0, -1)))


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@version_option
@click.option("-j", "--jobs", multiple=True)
@click.option("-u", "--user", "--uid", "users")
@click.option("-a", "--allusers", is_flag=True)
@click.option("-X", "--allocations", is_flag=True)
@click.option("-o", "--format", "--fields", "formats", multiple=True)
@click.option("-b", "--brief", is_flag=True)
@click.option("-l", "--long", "long_format", is_flag=True)
@click.option("-e", "--helpformat", is_flag=True)
@click.option("-g", "--gid", "--group", "groups")
@click.option("-p", "--parsable", is_flag=True)
@click.option("-P", "--parsable2", is_flag=True)
@click.option("--delimiter", default="|")
@click.option("-n", "--noheader", is_flag=True)
@click.option("-S", "--starttime")
@click.option("-E", "--endtime")
@click.option("-s", "--state", "states")
@click.option("--name")
@click.option("-r", "--partition")
@click.option("-A", "--accounts")
@click.option("-q", "--qos")
@click.option("-N", "--nodelist", help="jobs that ran on any of these nodes (a hostlist)")
@click.option("-M", "--clusters")
@click.option("-T", "--truncate", is_flag=True, help="clip Start and End to the -S/-E window")
@click.option("-D", "--duplicates", is_flag=True, help="every record of requeued jobs, not just the latest")
@click.option("--json", "as_json", is_flag=True, help="Slurm's data_parser JSON instead of a table")
@click.option("--noconvert", is_flag=True, help="print sizes in the unit they are counted in (2048M stays)")
@click.option("--units", "unit", help="print sizes in this unit: K, M, G, T or P")
def sacct(jobs: tuple[str, ...], users: str | None, allusers: bool, allocations: bool,
          formats: tuple[str, ...], brief: bool, long_format: bool, helpformat: bool, groups: str | None,
          parsable: bool, parsable2: bool, delimiter: str,
          noheader: bool, starttime: str | None, endtime: str | None, states: str | None,
          name: str | None, partition: str | None, accounts: str | None, qos: str | None,
          nodelist: str | None, clusters: str | None, truncate: bool, duplicates: bool,
          as_json: bool, noconvert: bool, unit: str | None) -> None:
    """Display accounting data for jobs."""
    now = time.time()
    sizes = units.SizeFormat(_size_unit(unit) if unit is not None else None, convert=not noconvert)
    if helpformat:
        sys.stdout.write("\n".join(sacct_fields.help_format()) + "\n")
        return
    spec = ",".join(formats) or os.environ.get("SACCT_FORMAT") or (
        sacct_fields.BRIEF_FIELDS if brief else sacct_fields.LONG_FIELDS if long_format
        else sacct_fields.DEFAULT_FIELDS)
    try:
        columns = sacct_fields.parse_fields(spec)
    except FormatError as exc:
        die(str(exc))
    try:
        selection = job_lists.parse_step_list(",".join(jobs))
    except ValueError as exc:
        die(f"Bad job/step specified: {exc}", severity="fatal")
    specs = [spec for spec, _ in selection]
    job_ids = [spec.job_id for spec in specs]
    try:
        wanted_states = sorted(parse_state_list(states)) if states else []
    except ValueError as exc:
        die(f"Invalid state specified: {exc}")
    start, end = _window(starttime, endtime, bool(job_ids), bool(wanted_states), now)
    query = pb.AccountingQuery(
        job_ids=job_ids, users=_known(users, "user"), start_time=start, end_time=end,
        groups=_known(groups, "group"),
        states=wanted_states, names=name.split(",") if name else [],
        partitions=partition.split(",") if partition else [],
        accounts=accounts.lower().split(",") if accounts else [], qos=qos.lower().split(",") if qos else [],
        nodes=_node_names(nodelist) if nodelist else [],
        all_users=allusers or (os.geteuid() == 0 and not users), duplicates=duplicates,
        without_steps=allocations and not as_json and not sacct_fields.needs_steps(columns))
    if not users and not query.all_users:
        query.users.append(getpass.getuser())
    records = list(sacct_database.call("QueryJobs", query, pb.JobRecordBatch).records)
    if any(spec.tasks is not None for spec in specs):   # `123_7`: only that task of array 123
        records = [r for r in records if any(job_lists.names(spec, r.job) for spec in specs)]
    if as_json:
        import json  # only --json needs these

        from . import sacct_json

        sys.stdout.write(json.dumps(sacct_json.document(records, int(now)), indent=2) + "\n")
        return
    mode = Parsable.NO_TRAILING if parsable2 else Parsable.TRAILING if parsable else Parsable.NONE
    window = (start, end or int(now)) if truncate else None
    listed = sacct_fields.rows(records, allocations, now=int(now), truncate_to=window, sizes=sizes)
    if not allocations and any(step for _, step in selection):
        listed = [row for row in listed if _selected(row, selection)]
    lines = sacct_fields.render_sacct(columns, listed,
                                      parsable=mode, delimiter=delimiter, header=not noheader)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def _selected(row: sacct_fields.SacctRow, selection: list[tuple[JobSpec, str]]) -> bool:
    """`-j 12.1` shows step 12.1 alone (no job line); `-j 12` the job and all its steps."""
    steps = job_lists.selected_steps(selection, row.job)
    return steps is None or (row.step is not None and row.step.step_id in steps)


def _window(starttime: str | None, endtime: str | None, with_jobs: bool, with_states: bool,
            now: float) -> tuple[int, int]:
    """sacct's default time window (sacct(1) DEFAULT TIME WINDOW); end 0 = now.

    Start: given, else epoch with -j, else now with -s, else today's midnight. End: given, else
    with -s the start (a state query without times asks what is in that state now), else now.
    """
    if starttime:
        start = _time_arg(starttime, now, "--starttime")
    else:
        start = 0 if with_jobs else int(now) if with_states else _midnight(now)
    if endtime:
        return start, _time_arg(endtime, now, "--endtime")
    if with_states and starttime:
        return start, start
    return start, int(now) if with_states else 0


def _known(text: str | None, kind: str) -> list[str]:
    """`-u`/`-g` items, each a name or id this host knows, as Slurm's sacct checks them before
    it asks (`Invalid user id: <item>`)."""
    import grp
    import pwd

    by_name, by_id = {"user": (pwd.getpwnam, pwd.getpwuid), "group": (grp.getgrnam, grp.getgrgid)}[kind]
    items = [item for item in (text or "").split(",") if item]
    for item in items:
        try:
            if item.isascii() and item.isdigit():
                by_id(int(item))
            else:
                by_name(item)
        except (KeyError, OverflowError, ValueError):
            die(f"Invalid {kind} id: {item}")
    return items


def _node_names(expr: str) -> list[str]:
    try:
        return hostlist.expand(expr)
    except hostlist.HostlistError as exc:
        die(str(exc))


def _size_unit(text: str) -> str:
    """``--units``: its first letter, any case, one of K M G T P (as Slurm reads it)."""
    letter = text[:1].upper()
    if not letter or letter not in units.SIZE_UNITS:
        die(f"Invalid unit type '{text[:1]}'. Possible options are {units.SIZE_UNITS}")
    return letter


def _time_arg(text: str, now: float, flag: str) -> int:
    try:
        return units.parse_datetime(text, now, past=True)
    except ValueError:
        die(f"Invalid time specification for {flag}: {text}")


def main() -> None:
    run(PROG, sacct)
