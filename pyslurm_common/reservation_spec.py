"""`scontrol create|update reservation Key=Value ...` words, read as Slurm 22.05's scontrol reads
them, into a `ReservationSpec`.

scontrol checks the words before it asks the controller, and the controller checks them again
(it cannot trust a client), so both parse with this module. A problem is a `SpecError` whose text
is scontrol's (it prints it after `scontrol: error: `). Keys match by Slurm's unique prefixes
(`res`, `st`, `e`, `d`, `u`, `a`, `nodes`, `nodec`, `p`, `fl`); a word without `=` that starts
with `res` is the entity name and skipped. Keys Slurm has that pyslurm does not act on (Groups,
Features, TRES, Watts, BurstBuffer, MaxStartDelay, Skip) are refused, never accepted and
dropped. Flags: MAINT, OVERLAP, FLEX, IGNORE_JOBS, HOURLY, DAILY, WEEKLY, ANY_NODES (LICENSE_ONLY is
its other name) (`+`/`-` add and remove on update); Slurm's WEEKDAY, WEEKEND, STATIC_ALLOC,
PART_NODES, FIRST_CORES, TIME_FLOAT, PURGE_COMP, REPLACE, REPLACE_DOWN, NO_HOLD_JOBS_AFTER_END and
MAGNETIC are refused by name, anything else is Slurm's "Error parsing flags".

Pure and stdlib only (the CLIs import it).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .bounds import NODE_COUNT, OutOfRange, Bound
from .dates import parse_datetime
from .units import UNLIMITED, parse_time_limit

# Flag spellings as Slurm's parse_resv_flags matches them: (name, shortest prefix).
SUPPORTED_FLAGS = (("MAINT", "maintenance", 3), ("OVERLAP", "overlap", 1), ("FLEX", "flex", 1),
                   ("IGNORE_JOBS", "ignore_jobs", 1), ("HOURLY", "hourly", 1), ("DAILY", "daily", 1),
                   ("WEEKLY", "weekly", 5), ("ANY_NODES", "any_nodes", 1), ("ANY_NODES", "license_only", 1))
_UNSUPPORTED_FLAGS = ("WEEKDAY", "WEEKEND", "STATIC_ALLOC", "PART_NODES",
                      "FIRST_CORES", "TIME_FLOAT", "PURGE_COMP", "REPLACE", "REPLACE_DOWN",
                      "NO_HOLD_JOBS_AFTER_END", "MAGNETIC")
_UNSUPPORTED_KEYS = (("Groups", 1), ("BurstBuffer", 2), ("MaxStartDelay", 2), ("Features", 2), ("TRES", 1),
                     ("Watts", 1))
CREATED = "No reservation created."     # how each message of create / update ends
UPDATED = "No reservation update."
CORE_COUNT = Bound("core count", 0, 1 << 20)
_MAX_CORE_COUNTS = 65536      # per-node counts in one CoreCnt=
# Slurm stores an unlimited Duration as a year.
UNLIMITED_DURATION_MIN = 365 * 24 * 60


class SpecError(ValueError):
    """A word scontrol refuses; str() is its message."""


@dataclass(frozen=True, slots=True)
class ReservationSpec:
    """What the words set; None (or empty) where they said nothing."""

    name: str | None = None
    start_time: int | None = None
    end_time: int | None = None
    duration_min: int | None = None
    users: tuple[str, ...] | None = None
    accounts: tuple[str, ...] | None = None
    nodes: str | None = None              # hostlist expression or ALL, as written
    node_count: int | None = None
    partition: str | None = None
    licenses: str | None = None           # Licenses= as written (the controller checks it)
    core_counts: tuple[int, ...] | None = None   # CoreCnt=N (a total) or N,M,... (per node of Nodes=)
    flags_added: tuple[str, ...] = field(default=())
    flags_removed: tuple[str, ...] = field(default=())


def _matches(tag: str, full: str, shortest: int) -> bool:
    return len(tag) >= shortest and full.lower().startswith(tag.lower())


def _names(value: str) -> tuple[str, ...]:
    return tuple(item for item in value.split(",") if item)


def parse_flags(value: str, outcome: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Flags=MAINT,+DAILY,-IGNORE_JOBS: (added, removed)."""
    added: list[str] = []
    removed: list[str] = []
    for item in value.split(","):
        word = item.lstrip("+-")
        target = removed if item.startswith("-") else added
        flag = next((name for name, full, shortest in SUPPORTED_FLAGS if _matches(word, full, shortest)), None)
        if flag is None and word.upper() in _UNSUPPORTED_FLAGS:
            raise SpecError(f"Flags={word.upper()} is not supported by pyslurm.  {outcome}")
        if flag is None or (flag == "OVERLAP" and target is removed):
            raise SpecError(f"Error parsing flags {value}.  {outcome}")
        target.append(flag)
    return tuple(dict.fromkeys(added)), tuple(dict.fromkeys(removed))


def parse_words(words: list[str], now: int, outcome: str) -> ReservationSpec:
    """The spec of `words`; `outcome` ends each message ("No reservation created." / "... update.")."""
    values: dict[str, object] = {}
    seen: set[str] = set()
    for word in words:
        tag, sep, value = word.partition("=")
        if not sep:
            if tag.lower().startswith("res"):
                continue
            if _matches(tag, "Skip", 2):
                raise SpecError(f"Skip is not supported by pyslurm.  {outcome}")
            raise SpecError(f"Misformatted parameter '{word}', most options have a parameter after '='.  {outcome}")
        if tag.endswith(("+", "-")):
            raise SpecError(f"The +=/-= notation is not supported when updating {tag[:-1]}.  {outcome}")
        key = _key(tag, word, outcome)
        if key in ("users", "accounts") and key in seen:
            raise SpecError(f"Parameter {word} specified more than once")
        seen.add(key)
        values[key] = _value(key, value, word, now, outcome)
    flags = values.pop("flags", ((), ()))
    assert isinstance(flags, tuple)
    return ReservationSpec(**values, flags_added=flags[0], flags_removed=flags[1])  # type: ignore[arg-type]


def _key(tag: str, word: str, outcome: str) -> str:
    for key, full, shortest in (("accounts", "Accounts", 1), ("flags", "Flags", 2), ("users", "Users", 1),
                                ("name", "ReservationName", 3), ("start_time", "StartTime", 2),
                                ("end_time", "EndTime", 1), ("duration_min", "Duration", 1),
                                ("node_count", "NodeCnt", 5), ("node_count", "NodeCount", 5),
                                ("nodes", "Nodes", 5), ("partition", "PartitionName", 1),
                                ("licenses", "Licenses", 2), ("core_counts", "CoreCnt", 5),
                                ("core_counts", "CoreCount", 5), ("core_counts", "CPUCnt", 5),
                                ("core_counts", "CPUCount", 5)):
        if _matches(tag, full, shortest):
            return key
    for full, shortest in _UNSUPPORTED_KEYS:
        if _matches(tag, full, shortest):
            raise SpecError(f"{full}= is not supported by pyslurm.  {outcome}")
    raise SpecError(f"Unknown parameter {word}.  {outcome}")


def _value(key: str, value: str, word: str, now: int, outcome: str) -> object:
    if key in ("users", "accounts"):
        return _names(value)
    if key == "flags":
        return parse_flags(value, outcome)
    if key in ("start_time", "end_time"):
        try:
            return parse_datetime(value, now)
        except ValueError:
            which = "start" if key == "start_time" else "end"
            raise SpecError(f"Invalid {which} time {word}.  {outcome}") from None
    if key == "duration_min":
        try:
            minutes = parse_time_limit(value)
        except ValueError:
            raise SpecError(f"Invalid duration {word}.  {outcome}") from None
        return UNLIMITED_DURATION_MIN if minutes == UNLIMITED else minutes
    if key == "core_counts":     # scontrol's state_control_parse_resv_corecnt, bounded
        items = value.split(",")
        if len(items) > _MAX_CORE_COUNTS:
            raise SpecError(f"Invalid core count {value}")
        try:
            return tuple(CORE_COUNT.parse(item.lstrip("+")) for item in items)
        except OutOfRange:
            raise SpecError(f"Invalid core count {value}") from None
    if key == "node_count":
        try:
            return NODE_COUNT.parse(value)
        except OutOfRange:
            raise SpecError(f"Invalid node count {value}.  {outcome}") from None
    return value


def creation_problem(spec: ReservationSpec) -> str | None:
    """What scontrol refuses before asking to create a reservation (its order), or None."""
    outcome = CREATED
    if spec.start_time is None:
        return f"A start time must be given.  {outcome}"
    if spec.end_time is None and spec.duration_min is None:
        return f"An end time or duration must be given.  {outcome}"
    if spec.end_time is not None and spec.duration_min is not None \
            and spec.start_time + spec.duration_min * 60 != spec.end_time:
        return f"StartTime + Duration does not equal EndTime.  {outcome}"
    if spec.end_time is not None and spec.start_time > spec.end_time:
        return f"Start time cannot be after end time.  {outcome}"
    if not spec.nodes and not spec.node_count and spec.partition is None and not spec.licenses \
            and not any(spec.core_counts or ()):
        return f"CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified.  {outcome}"
    if not spec.users and not spec.accounts:
        return f"Either Users/Groups and/or Accounts must be specified.  {outcome}"
    return None
