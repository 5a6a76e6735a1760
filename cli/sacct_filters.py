"""sacct's record filters that slurmdbd applies in its query (as_mysql_jobacct_process.c) and
pyslurm applies to the records the accounting daemon returns: -i/--nnodes, -I/--ncpus,
-k/-K timelimits, -C/--constraints, -F/--flags, --reason, -x/--associations, -W/--wckeys;
and what -B/--batch-script and --env-vars print.

Pure: option values and records in, a decision or text out. Bad values end the command with
Slurm's words.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

from pyslurm_common import units
from pyslurm_common.rpc import messages as pb
from pyslurm_common.typed_tuple import NamedTuple

from .app import die

# -F names (Slurm's _str_2_job_flags, any case) -> the flag a record carries for it
_FLAG_NAMES = {"none": "", "schedsubmit": "SchedSubmit", "schedmain": "SchedMain",
               "schedbackfill": "SchedBackfill", "startreceived": "StartReceived"}
RULE = "-" * 80


class Range(NamedTuple):   # a NamedTuple: dataclasses would import inspect into sacct
    low: int
    high: int | None   # None: exactly `low` (Slurm's max 0)

    def holds(self, value: int) -> bool:
        return value == self.low if self.high is None else self.low <= value <= self.high


class RecordFilter(NamedTuple):   # a NamedTuple: dataclasses would import inspect into sacct
    nodes: Range | None = None
    cpus: Range | None = None
    timelimit: Range | None = None          # minutes; -K alone asks nothing, as in Slurm
    constraints: tuple[str, ...] = ()       # each a part of the job's --constraint text
    flags: frozenset[str] | None = None     # frozenset({""}): jobs with no flag (-F None)
    reasons: frozenset[str] | None = None
    associations: frozenset[int] | None = None
    wckeys: frozenset[str] | None = None

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> RecordFilter:
        def text(dest: str) -> str | None:
            value = values.get(dest)
            return None if value is None else str(value)

        def items(dest: str) -> list[str] | None:
            value = text(dest)
            return None if value is None else [item for item in value.split(",") if item]

        timelimit = None
        if text("timelimit_min") is not None:
            low = _minutes(text("timelimit_min") or "")
            high = _minutes(text("timelimit_max") or "") if text("timelimit_max") is not None else None
            timelimit = Range(low, high)
        flags = None
        if text("flags") is not None:
            names = items("flags") or []
            for name in names:
                if name.lower() not in _FLAG_NAMES:
                    print(f"sacct: error: str_2_job_flags: Invalid job flag {name}", file=sys.stderr)
                    raise SystemExit(1)
            flags = frozenset(_FLAG_NAMES[name.lower()] for name in names)
        associations = items("associations")
        reasons, wckeys = items("reason"), items("wckeys")
        return cls(
            nodes=_range(text("nnodes"), "--nnodes"), cpus=_range(text("ncpus"), "--ncpus"), timelimit=timelimit,
            constraints=tuple(items("constraints") or ()), flags=flags,
            reasons=None if reasons is None else frozenset(r.lower() for r in reasons),
            associations=None if associations is None else frozenset(_association(a) for a in associations),
            wckeys=None if wckeys is None else frozenset(wckeys))

    def keeps(self, record: pb.JobRecord) -> bool:
        job = record.job
        started = bool(job.start_time)
        if self.nodes is not None and not self.nodes.holds(job.num_nodes if started else 0):
            return False
        if self.cpus is not None and not self.cpus.holds(int(record.alloc_cpus) or (job.num_cpus if started else 0)):
            return False
        if self.timelimit is not None and not self.timelimit.holds(job.time_limit_min):
            return False
        if any(part not in job.features for part in self.constraints):
            return False
        if self.flags is not None:
            carried = "SchedMain" if started else ""   # what sacct's Flags field shows (sacct_fields)
            if carried not in self.flags:
                return False
        if self.reasons is not None and job.reason.lower() not in self.reasons:
            return False
        if self.associations is not None and record.assoc_id not in self.associations:
            return False
        # Jobs keep no WCKey here (TrackWCKey is not supported), so a -W list matches none, as
        # Slurm's query matches no job without a key.
        return self.wckeys is None


def _range(text: str | None, what: str) -> Range | None:
    """`N` or `min-max` (Slurm's get_resource_arg_range, K/M suffixes and `*` included)."""
    if text is None:
        return None
    if text in ("", "*"):
        return Range(1, 2**31 - 1)
    low_text, dash, high_text = text.partition("-")
    low = _count(low_text, text, what)
    high = _count(high_text, text, what) if dash else None
    return Range(low, high or None) if low else None   # a minimum of 0 asks nothing, as in Slurm


def _count(part: str, whole: str, what: str) -> int:
    scale = {"k": 1024, "m": 1048576}.get(part[-1:].lower(), 1) if part else 1
    digits = part[:-1] if scale != 1 else part
    if not digits.isdigit():
        die(f'Invalid numeric value "{whole}" for {what}.')
    value = int(digits) * scale
    if value > 2**31 - 1:
        die(f"Numeric argument ({value}) to big for {what}.")
    return value


def _minutes(text: str) -> int:
    """-k/-K: a time limit as Slurm's time_str2mins reads it; zero or nonsense is fatal."""
    try:
        seconds = units.parse_time_seconds(text)
    except ValueError:
        seconds = 0
    if seconds == units.UNLIMITED:
        return units.UNLIMITED
    if seconds <= 0:
        die("Invalid time limit specification", severity="fatal")
    return -(-seconds // 60)


def _association(text: str) -> int:
    return int(text) if text.isdigit() else -1   # Slurm compares as text: a non-number matches none


def stored_texts(records: Iterable[pb.JobRecord], script: bool) -> str:
    """-B/--batch-script and --env-vars: one block per job. Without AccountingStoreFlags
    (job_script, job_env), which pyslurm's accounting does not keep, each is NONE, as Slurm's."""
    title = "Batch Script for {}" if script else "Environment used for {} (must be batch to display)"
    blocks = []
    for record in records:
        job = record.job
        shown = f"{job.array_job_id}_{job.array_task_str}" if job.array_job_id and job.array_task_str else job.job_id
        blocks.append(f"{title.format(shown)}\n{RULE}\nNONE\n\n")
    return "".join(blocks)
