"""sacct: job accounting records from the accounting daemon."""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

from pyslurm_common import hostlist, units
from pyslurm_common.array_spec import JobSpec
from pyslurm_common.rpc import messages as pb

from . import job_lists, sacct_database, sacct_fields, sacct_filters
from .app import die, run_as_process
from .job_states import parse_state_list
from .option_tables import sacct as spec
from .print_fields import FormatError, Parsable
from .query_command import QueryValues, all_or_listed, data_output, parse, print_document

PROG = "sacct"


def _midnight(now: float) -> int:
    t = time.localtime(now)
    return int(time.mktime((t.tm_year, t.tm_mon, t.tm_mday, 0, 0, 0, 0, 0, -1)))


def sacct(args: Sequence[str]) -> None:
    """Display accounting data for jobs."""
    values, operands = parse(spec, args)
    now = time.time()
    unit = values.get("units")
    sizes = units.SizeFormat(_size_unit(unit) if unit is not None else None, convert=not values.get("noconvert"))
    if values.get("helpformat"):
        sys.stdout.write("\n".join(sacct_fields.help_format()) + "\n")
        return
    _check_combinations(values)
    asked_nodes = [str(value) for dest, value in values.sequence if dest == "nodelist"]
    for _later in asked_nodes[1:]:   # -N is the one option whose first occurrence wins, as in Slurm's sacct
        print(f"sacct: error: Already asked for nodes '{asked_nodes[0]}'", file=sys.stderr)
    _every, clusters = all_or_listed(values, "clusters", ("all", "-1"), on=("allclusters",),
                                     off=("federation", "local"))
    if clusters:
        from .cluster_option import check_clusters, this_cluster

        check_clusters(PROG, ",".join(clusters), this_cluster())
    if values.get("completion"):
        print("Slurm job completion is disabled")   # JobCompType=jobcomp/none: nothing to read
        raise SystemExit(1)
    record_filter = sacct_filters.RecordFilter.from_values(values)
    spec_text = values.get("format") or (None if values.get("brief") or values.get("long")
                                         else os.environ.get("SACCT_FORMAT")) or (
        sacct_fields.BRIEF_FIELDS if values.get("brief") else sacct_fields.LONG_FIELDS if values.get("long")
        else sacct_fields.DEFAULT_FIELDS)
    try:
        columns = sacct_fields.parse_fields(spec_text)
    except FormatError as exc:
        die(str(exc))
    if operands:   # after the fields are read, as Slurm's sacct checks them
        die("Unknown arguments:", *(f" {word}" for word in operands))
    try:
        selection = job_lists.parse_step_list(values.get("jobs") or "")
    except ValueError as exc:
        die(f"Bad job/step specified: {exc}", severity="fatal")
    specs = [job for job, _ in selection]
    job_ids = [job.job_id for job in specs]
    if (values.get("batch_script") or values.get("env_vars")) and not job_ids:
        what = "job scripts" if values.get("batch_script") else "job environment"
        die(f"When requesting {what} you must also request specific jobs with the '-j' option.", severity="fatal")
    states = values.get("state")
    try:
        wanted_states = sorted(parse_state_list(states)) if states else []
    except ValueError as exc:
        die(f"Invalid state specified: {exc}")
    start, end = _window(values.get("starttime"), values.get("endtime"), bool(job_ids), bool(wanted_states), now)
    if values.get("verbose"):
        _say_window(wanted_states, start, end or int(now))
    allusers, listed_users = all_or_listed(values, "users", ("-1",), on=("allusers",))   # -u -1: Slurm's old "all"
    users = ",".join(listed_users) or None
    name, partition, accounts, qos = (values.get(k) for k in ("name", "partition", "accounts", "qos"))
    allocations = bool(values.get("allocations"))
    document_kind = data_output(values)
    query = pb.AccountingQuery(
        job_ids=job_ids, users=_known(users, "user"), start_time=start, end_time=end,
        groups=_known(values.get("groups"), "group"),
        states=wanted_states, names=name.split(",") if name else [],
        partitions=partition.split(",") if partition else [],
        accounts=accounts.lower().split(",") if accounts else [], qos=qos.lower().split(",") if qos else [],
        nodes=_node_names(asked_nodes[0]) if asked_nodes and asked_nodes[0] else [],
        all_users=allusers or (os.geteuid() == 0 and not users), duplicates=bool(values.get("duplicates")),
        without_steps=allocations and not document_kind and not sacct_fields.needs_steps(columns))
    if not users and not query.all_users:
        import pwd   # the caller's uid, as Slurm's sacct (getpass also trusted $LOGNAME/$USER, and cost an import)

        query.users.append(pwd.getpwuid(os.getuid()).pw_name)
    records = [r for r in sacct_database.call("QueryJobs", query, pb.JobRecordBatch).records if record_filter.keeps(r)]
    if any(job.tasks is not None for job in specs):   # `123_7`: only that task of array 123
        records = [r for r in records if any(job_lists.names(job, r.job) for job in specs)]
    if values.get("batch_script") or values.get("env_vars"):
        sys.stdout.write(sacct_filters.stored_texts(records, script=bool(values.get("batch_script"))))
        return
    if document_kind:
        from . import sacct_json

        print_document(sacct_json.document(records, int(now)), document_kind)
        return
    mode = Parsable.NO_TRAILING if values.get("parsable2") else Parsable.TRAILING if values.get("parsable") \
        else Parsable.NONE
    window = (start, end or int(now)) if values.get("truncate") else None
    listed = sacct_fields.rows(records, allocations, now=int(now), truncate_to=window, sizes=sizes)
    if not allocations and any(step for _, step in selection):
        listed = [row for row in listed if _selected(row, selection)]
    lines = sacct_fields.render_sacct(columns, listed, parsable=mode, delimiter=values.get("delimiter") or "|",
                                      header=not values.get("noheader"))
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def _selected(row: sacct_fields.SacctRow, selection: list[tuple[JobSpec, str]]) -> bool:
    """`-j 12.1` shows step 12.1 alone (no job line); `-j 12` the job and all its steps."""
    steps = job_lists.selected_steps(selection, row.job)
    return steps is None or (row.step is not None and row.step.step_id in steps)


def _check_combinations(values: QueryValues) -> None:
    """What Slurm's sacct refuses before it asks anything."""
    if values.get("batch_script") and values.get("env_vars"):
        die("Options --batch-script and --env-vars are mutually exclusive", severity="fatal")
    if values.get("long") and values.get("format"):
        die("Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.",
            severity="fatal")
    whole = values.get("whole_hetjob")   # no heterogeneous jobs here: yes and no select alike
    if whole is not None and whole.lower() not in ("", "yes", "y", "no", "n"):
        die(f'Invalid --whole-hetjob value "{whole}". Valid values: [yes|no].')
    if values.get("file") is not None and not os.path.isfile(values["file"]):
        print(f"{values['file']} is not a valid file")
        raise SystemExit(1)


def _say_window(states: list[str], start: int, end: int) -> None:
    """-v: the window sacct searches, as Slurm's info line says it."""
    from .slurm_time import slurm_ctime

    which = ",".join(states) if states else "Eligible"
    first = "Epoch 0" if not start else slurm_ctime(start)
    if first == slurm_ctime(end):
        print(f"sacct: Jobs {which} at the time instant {first}", file=sys.stderr)
    else:
        print(f"sacct: Jobs {which} in the time window from {first} to {slurm_ctime(end)}", file=sys.stderr)


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
    from pyslurm_common.dates import parse_datetime   # datetime only for the calls that give a date

    try:
        return parse_datetime(text, now, past=True)
    except ValueError:
        die(f"Invalid time specification for {flag}: {text}")


def main() -> None:
    run_as_process(PROG, sacct)
