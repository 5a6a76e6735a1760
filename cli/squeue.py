"""squeue: list jobs the controller knows about."""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from operator import attrgetter

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, job_lists, squeue_format
from .app import die, run_as_process
from .option_tables import squeue as spec
from .job_states import parse_state_list, valid_states_text
from .query_command import (QueryValues, data_output, expand_hosts, iterate_seconds, list_values, parse,
                            print_document, show_all)

PROG = "squeue"


def squeue(args: Sequence[str]) -> None:
    """View information about jobs in the queue."""
    values, operands = parse(spec, args)
    kind = data_output(values)
    if kind:
        _print_document(kind)
        return
    jobs, steps = values.get("jobs"), values.get("steps")
    if operands:   # `squeue -j 12`: the word after a bare -j (or -s) is its list; -j's first, as Slurm's
        if jobs == "":   # `squeue -s -j 12` is job 12's steps (checked on real Slurm 22.05)
            jobs = operands.pop(0)
        elif steps == "":
            steps = operands.pop(0)
    if operands:
        print(f"squeue: error: Unrecognized option: {operands[0]}", file=sys.stderr)
        print("\n".join(spec.USAGE))
        raise SystemExit(1)
    if jobs is not None and steps is not None and not jobs:
        die("Incompatible options --jobs and --steps")
    if values.get("long") and values.get("format"):
        print("squeue: fatal: Options -o(--format) and -l(--long) are mutually exclusive. "
              "Please remove one and retry.", file=sys.stderr)
        raise SystemExit(1)
    if values.get("format") and values.get("Format"):
        if values.first_of("Format", "format") == "Format":
            die("-o (--format) is incompatible with -O (--Format)")
        die("-O (--Format) is incompatible with -o (--format)")
    if values.get("clusters") is not None:
        from .cluster_option import check_clusters, this_cluster

        check_clusters(PROG, values["clusters"], this_cluster())
    iterate = _iterate(values)
    query = Query(values, jobs, steps)
    what = "job step" if query.steps_wanted else "job"
    for unknown_field in query.line_format.unknown:
        print(f"{PROG}: error: Invalid {what} format specification: {unknown_field}", file=sys.stderr)
    if values.get("verbose"):
        sys.stdout.write(_options_block(values, query))
    while True:
        code = query.print_once(header_date=bool(iterate or values.get("verbose") or values.get("long")))
        if not iterate:
            raise SystemExit(code)
        sys.stdout.write("\n")
        sys.stdout.flush()
        time.sleep(iterate)


def _print_document(kind: str) -> None:
    """--json/--yaml: every job, as Slurm 22.05's squeue prints them (its filters do not apply)."""
    from . import squeue_json
    from .cluster_option import this_cluster

    try:
        jobs = client.controller("GetJobs", pb.JobQuery(show_all=True), pb.JobList).jobs
        nodes = client.controller("GetNodes", pb.Empty(), pb.NodeList).nodes
    except SlurmError as exc:
        print(f"slurm_load_jobs error: {exc.strerror}", file=sys.stderr)
        raise SystemExit(1)
    print_document(squeue_json.jobs_document(jobs, this_cluster(), nodes), kind)


class Query:
    """What one squeue listing asks for: the filters, the format and the sort."""

    def __init__(self, values: QueryValues, jobs: str | None, steps: str | None) -> None:
        self.values = values
        self.steps_wanted = steps is not None   # with a job list too: those jobs' steps
        self.start = bool(values.get("start"))
        states, sort, fmt = values.get("states"), values.get("sort"), values.get("format")
        if self.start and not self.steps_wanted:   # expected start times of pending jobs, earliest first
            states, sort = states or "PD", sort or "S"
            fmt = fmt or (None if values.get("Format") else squeue_format.START_FORMAT)
        self.sort = sort
        self.all_states = states is not None and states.lower() == "all"
        try:
            self.states = parse_state_list(states) if states and not self.all_states else None
        except ValueError as exc:
            die(f"Invalid job state specified: {exc}", f"Valid job states include: {valid_states_text()}")
        try:
            self.specs = job_lists.parse_job_list(jobs or "")
        except ValueError as exc:
            die(f"Invalid job id: {exc}")
        self.noheader = bool(values.get("noheader"))
        self.long = bool(values.get("long"))
        self.line_format = (_step_format(fmt, values.get("Format")) if self.steps_wanted
                            else _line_format(fmt, values.get("Format"), self.long, _format_overridden(values)))
        self.users = _users(values)
        self.partitions = list_values(values.get("partitions"))
        self.show_all = show_all(values, "partitions")
        self.nodes = _nodes(values.get("nodelist"))
        self.names = _lower(list_values(values.get("name")))
        self.accounts = _lower(list_values(values.get("accounts")))
        self.qos = _lower(list_values(values.get("qos")))
        self.licenses = list_values(values.get("licenses"))
        self.reservation = values.get("reservation")

        self.step_ids = set(list_values(steps) or ())
        self.filters = self._filters()
        # The jobs' brief form carries what the format prints, every sort key and the other filters.
        self.brief = (not self.steps_wanted and self.licenses is None and self.reservation is None
                      and squeue_format.brief_enough(self.line_format))

    def print_once(self, header_date: bool) -> int:
        # One job id is asked for by itself (slurm_load_job: an unknown one is an error, a hidden
        # partition's job is shown); a list loads every job, as Slurm's squeue, and is picked here.
        ids = [self.specs[0].job_id] if len(self.specs) == 1 else []
        try:
            reply = client.controller("GetJobs", pb.JobQuery(job_ids=ids, show_all=self.show_all, brief=self.brief),
                                      pb.JobBriefList if self.brief else pb.JobList)
        except SlurmError as exc:
            print(f"slurm_load_jobs error: {exc.strerror}", file=sys.stderr)
            return 1
        lines = [squeue_format.date_line(reply.now)] if header_date and not self.noheader else []
        if self.values.get("clusters") is not None and not self.noheader:
            from .cluster_option import this_cluster

            lines.append(f"CLUSTER: {this_cluster()}")
        if self.values.get("verbose"):
            lines.append(f"last_update_time={reply.now} records={len(reply.jobs)}")
        listed = job_lists.named(reply.jobs, self.specs)
        if self.values.get("array"):
            listed = job_lists.expand_array_tasks(listed)
        elif not self.values.get("array_unique"):
            listed = job_lists.combine_pending_tasks(listed)
        if self.all_states:
            selected = list(listed)
        else:
            selected = squeue_format.visible_jobs(listed, self.states)
        for keep in self.filters:
            selected = [j for j in selected if keep(j)]
        if self.values.get("priority") and not self.steps_wanted:
            selected = _one_per_partition(selected, self.partitions)
        if self.steps_wanted:
            shown = [step for step in squeue_format.running_steps(selected)
                     if not self.step_ids or f"{step.job_id}.{step.step_id}" in self.step_ids]
            lines += squeue_format.render_steps(self.line_format, shown, reply.now, header=not self.noheader)
        else:
            try:
                ordered = squeue_format.sort_jobs(selected, self.sort or squeue_format.DEFAULT_SORT)
            except squeue_format.FormatError as exc:
                die(str(exc))
            lines += squeue_format.render_jobs(
                self.line_format, ordered, reply.now, header=not self.noheader,
                fields=squeue_format.NOCONVERT_FIELDS if self.values.get("noconvert") else None)
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()
        return 0

    def matches(self, job: pb.JobInfo) -> bool:
        return all(keep(job) for keep in self.filters)

    def _filters(self) -> list[Callable[[pb.JobInfo], bool]]:
        """Slurm's _filter_job, one test for each filter given (a job is listed if it passes them
        all; the tests of filters not given are not run 5,000 times): names, accounts and QOS
        without regard to case."""
        tests: list[Callable[[pb.JobInfo], bool]] = []
        users, reservation = self.users, self.reservation
        if users is not None:
            tests.append(lambda job: job.user_name in users or str(job.user_id) in users)
        if self.nodes is not None:
            nodes = set(self.nodes)
            tests.append(lambda job: bool(nodes & set(expand_hosts(job.nodes))))
        if self.partitions is not None:   # a pending job of several partitions (-p a,b) matches any
            partitions = set(self.partitions)
            tests.append(lambda job: bool(partitions & set(job.partition.split(","))))
        if self.licenses is not None:
            licenses = set(self.licenses)
            tests.append(lambda job: bool(licenses & {item.partition(":")[0] for item in job.licenses.split(",") if item}))
        if reservation is not None:
            tests.append(lambda job: job.reservation == reservation)
        for field, wanted in (("name", self.names), ("account", self.accounts), ("qos", self.qos)):
            if wanted is not None:
                tests.append(lambda job, value=attrgetter(field), wanted=wanted: value(job).lower() in wanted)
        return tests


def _iterate(values: QueryValues) -> int:
    text = values.get("iterate")
    return 0 if text is None else iterate_seconds(text, f"squeue: error: --iterate={text}\n")


def _nodes(text: str | None) -> list[str] | None:
    if text is None:
        return None
    from pyslurm_common.hostlist import HostlistError

    try:
        return expand_hosts(text)
    except HostlistError:
        die(f"'{text}' invalid entry for --nodelist")


def _lower(items: list[str] | None) -> set[str] | None:
    return None if items is None else {item.lower() for item in items}


def _users(values: QueryValues) -> set[str] | None:
    """-u names or uids; --me is the caller's uid (the later of the two wins, as in Slurm)."""
    if values.get("me") and ("users" not in values or values.first_of("users", "me") == "users"):
        return {str(os.geteuid())}
    return set(list_values(values["users"]) or ()) if values.get("users") is not None else None


def _one_per_partition(jobs: list[pb.JobInfo], wanted: list[str] | None) -> list[pb.JobInfo]:
    """-P: a pending job of several partitions is listed once in each (of those -p names)."""
    listed: list[pb.JobInfo] = []
    for job in jobs:
        for name in job.partition.split(",") if "," in job.partition else [job.partition]:
            if wanted is not None and name not in wanted:
                continue
            if name == job.partition:
                listed.append(job)
            else:
                copy = type(job)()   # a JobInfo or, listed briefly, a JobBrief
                copy.CopyFrom(job)
                copy.partition = name
                listed.append(copy)
    return listed


def _format_overridden(values: QueryValues) -> bool:
    """SQUEUE_FORMAT/SQUEUE_FORMAT2 yield to -o, -O, -l, -s and --start."""
    return any(dest in values for dest in ("format", "Format", "long", "start", "steps"))


def _line_format(fmt: str | None, long_fmt: str | None, long_listing: bool,
                 overridden: bool) -> squeue_format.LineFormat:
    try:
        if fmt:
            return squeue_format.parse_format(fmt)
        if long_fmt:
            return squeue_format.parse_long_format(long_fmt)
        if not overridden and os.environ.get("SQUEUE_FORMAT"):
            return squeue_format.parse_format(os.environ["SQUEUE_FORMAT"])
        if not overridden and os.environ.get("SQUEUE_FORMAT2"):
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


def _options_block(values: QueryValues, query: Query) -> str:
    """-v: the settings block Slurm's squeue prints first (its _print_options)."""
    def flag(dest: str) -> str:
        return "true" if values.get(dest) else "false"

    def text(dest: str) -> str:
        value = values.get(dest)
        return "(null)" if value is None or value is True else str(value)

    rows = [
        ("all", "true" if query.show_all else "false"), ("array", flag("array")),
        ("federation", flag("federation")), ("format", text("format")),
        ("iterate", str(_iterate(values))),
        ("job_flag", "1" if values.get("jobs") is not None else "0"), ("jobs", text("jobs") if values.get("jobs") else "(null)"),
        ("licenses", text("licenses")), ("local", flag("local")), ("names", text("name")),
        ("nodes", values.get("nodelist") or ""), ("partitions", text("partitions")), ("priority", flag("priority")),
        ("reservation", text("reservation")), ("sibling", flag("sibling")), ("sort", text("sort")),
        ("start_flag", "1" if query.start else "0"), ("states", text("states")),
        ("step_flag", "1" if query.steps_wanted else "0"), ("steps", text("steps") if values.get("steps") else "(null)"),
        ("users", text("users")), ("verbose", str(values.get("verbose", 0))),
    ]
    rule = "-----------------------------"
    body = "\n".join(f"{name:<11} = {value}" if name != "sibling" else f"sibling      = {value}" for name, value in rows)
    return f"{rule}\n{body}\n{rule}\n\n\n"


def main() -> None:
    run_as_process(PROG, squeue)
