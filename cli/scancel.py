"""scancel: cancel or signal jobs, by id or by filters."""
from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Sequence

from pyslurm_common.bounds import JOB_ID
from pyslurm_common.errors import ERRNO, Strerror
from pyslurm_common.job_states import ACTIVE_STATES
from pyslurm_common.rpc import messages as pb

from . import client
from .app import die, run_as_process
from .job_states import parse_state_list
from .option_tables import scancel as spec
from .query_command import QueryValues, expand_hosts, parse
from .signals import parse_signal

PROG = "scancel"
_STEP_ID = re.compile(r"^(\d+)\.(\d+)$")  # 1234.0: one step
# Errors 22.05 keeps quiet about unless -v: the job is unknown or already done.
_QUIET_ERRORS = {"Invalid job id specified", "Job/step already completing or completed"}
MAX_CANCEL_RETRY = 10   # scancel.c: tries of a job in a transitional state,
RETRY_DELAY = 5         # sleeping 5 s, then 6 s, ... between them
NOT_FEDERATED_EXIT = 191   # ESLURM_JOB_NOT_FEDERATED (7103) as an exit status
# Filters in the order of Slurm's "No active jobs match ALL job filters" line: (dest, shown as)
_FILTERS = (("account", "account"), ("name", "job_name"), ("nodelist", "nodelist"), ("partition", "partition"),
            ("qos", "qos"), ("reservation", "reservation"), ("state", "state"), ("user", "user_name"),
            ("wckey", "wckey"))
# SCANCEL_* variables that take true/T/false/F: dest -> variable
_BOOLEAN_VARIABLES = {"batch": "SCANCEL_BATCH", "full": "SCANCEL_FULL", "interactive": "SCANCEL_INTERACTIVE",
                      "verbose": "SCANCEL_VERBOSE"}


def scancel(args: Sequence[str]) -> None:
    """Cancel pending or running jobs."""
    values, operands = parse(spec, args)
    options = Options.from_values(values)
    if values.get("clusters") is not None:
        from .cluster_option import check_clusters, this_cluster

        check_clusters(PROG, values["clusters"], this_cluster())
    if options.verbose > 2:
        _print_options(values, options)
    signal = 0
    if values.get("signal") is not None:
        try:
            signal = parse_signal(values["signal"])
        except ValueError:
            print(f"Unknown job signal: {values['signal']}", file=sys.stderr)
            raise SystemExit(1)
    from pyslurm_common.array_spec import parse_job_spec

    specs = []                         # jobs and array tasks: 1234, 1234_5, 1234_[1-3]
    steps: dict[str, list[int]] = {}   # step id -> jobs whose step of that id is meant
    for text in operands:
        match = _STEP_ID.match(text)
        if match and JOB_ID.accepts(match.group(1)):
            steps.setdefault(match.group(2), []).append(int(match.group(1)))
            continue
        try:
            specs.append(parse_job_spec(text))
        except ValueError:
            die(f"Invalid job id {text}")
    if values.get("sibling") is not None:
        _sibling(specs)
    ids = [spec.job_id for spec in specs]
    if not ids and not steps and not options.filtering:
        die("No job identification provided")
    status = 0
    if options.filtering or options.interactive:   # filters pick individual records
        ids = options.filtered_ids(ids, [str(spec) for spec in specs])
        if ids:
            status = options.signal(ids, "", signal)
    elif specs:   # ids as typed: the controller resolves arrays (`123` is every task of array 123)
        status = options.signal([], "", signal, [str(spec) for spec in specs])
    for step, step_jobs in steps.items():
        status = options.signal(step_jobs, step, signal) or status
    raise SystemExit(status)


class Options:
    """What scancel acts on and how: the filters (Slurm's _filter_job_records) and the flags."""

    def __init__(self, values: QueryValues, verbose: int, batch: bool, full: bool, interactive: bool) -> None:
        self.values = values
        self.verbose, self.batch, self.full, self.interactive = verbose, batch, full, interactive
        user = values.get("user")
        if values.get("me") and (user is None or values.first_of("user", "me") == "user"):
            user = str(os.getuid())
        self.user = user
        self.uid = None if user is None else _uid(user)
        self.nodes = _nodes(values.get("nodelist"))
        try:
            self.states = parse_state_list(values["state"]) if values.get("state") else None
        except ValueError as exc:
            die(f"Invalid job state specified: {exc}")

    @classmethod
    def from_values(cls, values: QueryValues) -> Options:
        flags = {dest: _boolean_variable(dest) for dest in _BOOLEAN_VARIABLES}
        verbose = 1 if flags["verbose"] else 0
        for dest, _value in values.sequence:
            if dest == "verbose":
                verbose += 1
            elif dest == "quiet":
                verbose = -1
        return cls(values, verbose, bool(values.get("batch") or flags["batch"]),
                   bool(values.get("full") or flags["full"]), bool(values.get("interactive") or flags["interactive"]))

    @property
    def filtering(self) -> bool:
        return self.user is not None or any(self.values.get(dest) is not None for dest, _ in _FILTERS)

    def keeps(self, job: pb.JobInfo) -> bool:
        v = self.values
        wanted_states = self.states or ACTIVE_STATES
        if job.state not in wanted_states or job.completing:
            return False
        if self.uid is not None and job.user_id != self.uid:
            return False
        if self.nodes is not None and not set(self.nodes) & set(expand_hosts(job.nodes)):
            return False
        if v.get("wckey") is not None and not _wckey_matches(v["wckey"], ""):   # jobs keep no WCKey here
            return False
        lowered = (("account", job.account), ("qos", job.qos))   # Slurm lower-cases these options
        exact = (("name", job.name), ("partition", job.partition), ("reservation", job.reservation))
        return all(v.get(dest) is None or v[dest].lower() == value.lower() for dest, value in lowered) and \
            all(v.get(dest) is None or v[dest] == value for dest, value in exact)

    def filtered_ids(self, ids: list[int], typed: list[str]) -> list[int]:
        jobs = client.controller("GetJobs", pb.JobQuery(job_ids=ids, show_all=True), pb.JobList).jobs
        chosen = [j for j in jobs if self.keeps(j)]
        if not chosen and self.verbose > 0 and self.filtering:
            shown = " ".join(f"{label}={self._shown(dest)}" for dest, label in _FILTERS
                             if (self.user if dest == "user" else self.values.get(dest)) is not None)
            print(f"scancel: error: No active jobs match ALL job filters, including: {shown} ", file=sys.stderr)
        if self.interactive:
            chosen = [j for j in chosen if _confirmed(j)]
        return [j.job_id for j in chosen]

    def _shown(self, dest: str) -> str:
        if dest == "user":
            return str(self.user)
        value = str(self.values[dest])
        return value.upper() if dest == "state" else value.lower() if dest in ("account", "qos") else value

    def signal(self, ids: list[int], step: str, signal: int, specs: list[str] | None = None) -> int:
        """SignalJobs calls (a whole job each, or step `step` of each, or the typed `specs`); the exit
        status (see _report). A job the controller cannot signal yet (pending: no process to take it) is asked
        again, as scancel does: up to 10 times, 5 s more each time."""
        request = pb.SignalRequest(job_ids=ids, signal=signal, batch_only=self.batch, full=self.full, step=step,
                                   job_specs=specs or [])
        retryable = {Strerror.TRANSITION_STATE_NO_UPDATE} | ({Strerror.JOB_PENDING} if step else set())
        if self.verbose > 0:   # said before the first try, as scancel does
            kind = "batch " if self.batch else "full " if self.full else ""
            for job in [*map(str, ids), *(specs or [])]:
                what = f"{kind}job {job}" if not step else f"step {job}.{step}"
                print(f"scancel: {'Signal %d to' % signal if signal else 'Terminating'} {what}", file=sys.stderr)
        results: list[pb.SignalResult] = []
        for attempt in range(MAX_CANCEL_RETRY):
            reply = client.controller("SignalJobs", request, pb.SignalReply)
            again = [r for r in reply.results if r.error in retryable]
            results += [r for r in reply.results if r.error not in retryable or attempt == MAX_CANCEL_RETRY - 1]
            if not again or attempt == MAX_CANCEL_RETRY - 1:
                break
            if self.verbose > 0:
                print("scancel: Job is in transitional state, retrying", file=sys.stderr)
            time.sleep(RETRY_DELAY + attempt)
            del request.job_ids[:], request.job_specs[:]
            request.job_ids.extend(r.job_id for r in again if not r.job_spec)
            request.job_specs.extend(r.job_spec for r in again if r.job_spec)
        return self._report(results, step)

    def _report(self, results: list[pb.SignalResult], step: str) -> int:
        """Print the failures; the exit status is the last real failure's Slurm error number modulo 256
        (Access/permission denied, 2002: 210), as scancel exits with it; 0 if there was none."""
        status = 0
        for result in results:
            job = result.job_spec or str(result.job_id)
            if not result.error or (result.error in _QUIET_ERRORS and self.verbose <= 0):
                continue
            target = f"job id {job}" if not step else f"job step id {job}"   # 22.05 leaves the step number out
            print(f"scancel: error: Kill job error on {target}: {result.error}", file=sys.stderr)
            if result.error not in _QUIET_ERRORS:
                status = ERRNO.get(result.error, 1) % 256 or 1
        return status


def _boolean_variable(dest: str) -> bool:
    name = _BOOLEAN_VARIABLES[dest]
    text = os.environ.get(name)
    if text is None:
        return False
    if text.lower() in ("true", "t"):
        return True
    if text.lower() not in ("false", "f"):
        print(f"scancel: error: Unrecognized {name} value: {text}", file=sys.stderr)
    return False


def _uid(user: str) -> int:
    """A user name or uid, as Slurm's uid_from_string reads it."""
    import pwd

    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        if user.isdigit():
            return int(user)
        die(f"Invalid user name: {user}")


def _wckey_matches(wanted: str, job_key: str) -> bool:
    """A key given without '*' also matches the job's default key ('*name')."""
    if not wanted.startswith("*") and job_key.startswith("*"):
        job_key = job_key[1:]
    return bool(job_key) and job_key == wanted


def _nodes(text: str | None) -> list[str] | None:
    """-w: a host list, or a file of host names when it contains '/' (Slurm's hostfile)."""
    if text is None:
        return None
    from pyslurm_common.hostlist import HostlistError

    try:
        if "/" in text:
            with open(text, encoding="utf-8") as hostfile:
                return [name for line in hostfile for word in line.split(",") for name in expand_hosts(word.strip())]
        return expand_hosts(text)
    except (OSError, HostlistError):
        die(f"Invalid node list {text}")


def _confirmed(job: pb.JobInfo) -> bool:
    """-i: Slurm's question on stdout, answered y or n (end of input answers n)."""
    shown = f"{job.array_job_id}_{job.array_task_str}" if job.array_job_id and job.array_task_str else str(job.job_id)
    while True:
        sys.stdout.write(f"Cancel job_id={shown} name={job.name} partition={job.partition} [y/n]? ")
        sys.stdout.flush()
        answer = sys.stdin.readline()
        if not answer or answer[0] in "nN":
            return False
        if answer[0] in "yY":
            return True


def _sibling(specs: list) -> None:
    """--sibling: only federated jobs have siblings; this cluster is in no federation."""
    if not specs:
        return
    reply = client.controller("GetJobs", pb.JobQuery(job_ids=[s.job_id for s in specs], show_all=True), pb.JobList) \
        if specs else None
    known = {j.job_id for j in reply.jobs} | {j.array_job_id for j in reply.jobs} if reply else set()
    code = 0
    for spec_ in specs:
        if spec_.job_id in known:
            print(f"scancel: error: Kill job error on job id {spec_}: Not a valid federated job", file=sys.stderr)
            code = NOT_FEDERATED_EXIT
    raise SystemExit(code)


def _print_options(values: QueryValues, options: Options) -> None:
    """-vvv: Slurm's _opt_list."""
    def text(dest: str) -> str:
        value = values.get(dest)
        return "(null)" if value is None else str(value)

    rows = [
        ("account", text("account")), ("batch", str(options.batch).lower()),
        ("ctld", str(bool(values.get("ctld"))).lower()), ("full", str(options.full).lower()),
        ("hurry", str(bool(values.get("hurry"))).lower()), ("interactive", str(options.interactive).lower()),
        ("job_name", text("name")), ("nodelist", text("nodelist")), ("partition", text("partition")),
        ("qos", text("qos")), ("reservation", text("reservation")), ("sibling", text("sibling")),
        ("state", values["state"].upper() if values.get("state") else "?"),
        ("user_id", str(options.uid or 0)), ("user_name", options.user or "(null)"),
        ("verbose", str(options.verbose)), ("wckey", text("wckey")),
    ]
    for name, value in rows:
        print(f"scancel: {name:<15}: {value}", file=sys.stderr)


def main() -> None:
    run_as_process(PROG, scancel)
