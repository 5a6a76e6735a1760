"""The ``Key=value`` settings sacctmgr sends: which keys exist, and their values parsed to columns.

Owns spec §3.2 of cli-sacct-sacctmgr-sprio-sshare.md for values: association limits (also given
on cluster, account and user), QOS settings, admin levels. Keys match case-insensitively with
Slurm's aliases (``Share``/``Fairshare``, ``MaxSubmit``/``MaxSubmitJobs``, ``MaxWall``/
``MaxWallDurationPerJob`` ...). ``-1`` clears a limit (stored as NULL).

Stored forms (see ``pyslurm_dbd.association_models``): TRES lists canonical
``cpu=4,mem=1024,node=2`` (Slurm's TRES id order, memory in MB), wall limits in minutes, grace
and exemption times in seconds, lists comma-joined.

Pure and stdlib-only (plus ``pyslurm_common.units``). Errors: :class:`SettingError`, whose text
is what sacctmgr prints.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pyslurm_common import units
from pyslurm_common.bounds import COUNT, TRES_COUNT, Bound
from pyslurm_dbd.association_models import SHARES_PARENT

# Fixed TRES ids (spec §3.2 "tres"); gres/, license/ and bb/ TRES follow, by name.
TRES_ORDER = ("cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages")
_TRES_PREFIXES = ("gres/", "license/", "bb/")
ADMIN_LEVELS = {"none": "None", "operator": "Operator", "admin": "Administrator",
                "administrator": "Administrator"}  # fmt: skip
QOS_FLAGS = (
    "DenyOnLimit", "EnforceUsageThreshold", "NoDecay", "NoReserve", "OverPartQOS",
    "PartitionMaxNodes", "PartitionMinNodes", "PartitionTimeLimit", "RequiresReservation",
    "UsageFactorSafe", "Relative",
)  # fmt: skip
PREEMPT_MODES = ("cluster", "off", "cancel", "requeue", "suspend", "gang", "within")


class SettingError(ValueError):
    """A key or value sacctmgr cannot use; ``str()`` is the line printed (leading space)."""


Stored = int | float | str | None


@dataclass(frozen=True, slots=True)
class Key:
    """One settable key: the column it fills and how its text becomes the stored value.

    ``name`` is the spelling sacctmgr prints in its Settings blocks. ``is_list`` keys accept
    ``+=`` and ``-=`` (add to / remove from the stored comma list).
    """

    name: str
    column: str
    parse: Callable[[str], Stored]
    is_list: bool = False


def parse_count(text: str) -> int | None:
    """A job count or priority: a non-negative integer, ``-1`` clears."""
    value = text.strip()
    if value == "-1":
        return None
    if not value.isdigit():
        raise SettingError(f" Bad value '{text}': expected a number")
    return _within(COUNT, value, text)


def _within(bound: Bound, digits: str, text: str) -> int:
    """`digits` (already known to be a number) within `bound`, or a SettingError naming the range."""
    if not bound.accepts(digits):
        raise SettingError(f" Bad value '{text}': out of range ({bound.low}..{bound.high})")
    return int(digits)


def parse_minutes(text: str) -> int | None:
    """A wall-clock limit (``MaxWall=1-00:00:00``, minutes ``90``) in minutes; -1 clears."""
    try:
        minutes = units.parse_time_limit(text)
    except ValueError:
        raise SettingError(f" Bad time limit '{text}'") from None
    return None if minutes == units.UNLIMITED else minutes


def parse_seconds(text: str) -> int | None:
    """GraceTime / PreemptExemptTime: seconds, or ``[D-]HH:MM:SS``; -1 clears."""
    value = text.strip()
    if value == "-1":
        return None
    if value.isdigit():
        return _within(COUNT, value, text)
    days, _, clock = value.rpartition("-")
    parts = clock.split(":")
    fields = [*parts, days or "0"]
    if len(parts) != 3 or not all(f.isdigit() and len(f) < 20 for f in fields):
        raise SettingError(f" Bad time value '{text}'")
    hours, minutes, seconds, whole_days = (int(f) for f in fields)
    return _within(COUNT, str(whole_days * 86400 + hours * 3600 + minutes * 60 + seconds), text)


def parse_float(text: str) -> float | None:
    if text.strip() == "-1":
        return None
    try:
        value = float(text)
    except ValueError:
        raise SettingError(f" Bad value '{text}': expected a number") from None
    if not 0 <= value <= COUNT.high:      # also nan and inf
        raise SettingError(f" Bad value '{text}': expected a number")
    return value


def parse_fairshare(text: str) -> int:
    """``Fairshare=N`` or ``parent``; -1 restores the default share of 1."""
    value = text.strip().lower()
    if value == "parent":
        return SHARES_PARENT
    count = parse_count(value)
    return 1 if count is None else count


def tres_rank(name: str) -> tuple[int, str]:
    """Sort key of a TRES name: the fixed ids first, then gres/license/bb by name."""
    return (TRES_ORDER.index(name), "") if name in TRES_ORDER else (len(TRES_ORDER), name)


FIRST_CONFIGURED_TRES_ID = 1001
"""Slurm numbers the TRES named in AccountingStorageTRES (gres/gpu ...) from here."""


def tres_table(configured: str) -> list[tuple[str, str, int]]:
    """(type, name, id) of every TRES: the fixed ones, then the gres/license/bb TRES named in
    slurm.conf's AccountingStorageTRES, in the order given."""
    items = (item.strip().lower() for item in configured.split(","))
    extra = list(dict.fromkeys(item for item in items if item.startswith(_TRES_PREFIXES)))
    table: list[tuple[str, str, int]] = []
    for number, name in [*enumerate(TRES_ORDER, start=1), *enumerate(extra, start=FIRST_CONFIGURED_TRES_ID)]:
        kind, _, sub = name.partition("/")
        table.append((kind, sub, number))
    return table


def parse_tres(text: str) -> str | None:
    """``cpu=4,mem=1G,gres/gpu=2`` → canonical ``cpu=4,mem=1024,gres/gpu=2``; ``-1`` clears all,
    ``name=-1`` drops one."""
    value = text.strip()
    if value == "-1":
        return None
    counts: dict[str, int] = {}
    for item in value.split(","):
        name, sep, amount = item.strip().partition("=")
        name = name.strip().lower()
        if not sep or not (name in TRES_ORDER or name.startswith(_TRES_PREFIXES)):
            raise SettingError(f" Invalid TRES: '{item}'")
        if amount.strip() == "-1":
            counts.pop(name, None)
            continue
        try:
            counts[name] = units.parse_memory_mb(amount) if name == "mem" else TRES_COUNT.parse(amount)
        except ValueError:
            raise SettingError(f" Invalid TRES count: '{item}'") from None
        if counts[name] < 0:
            raise SettingError(f" Invalid TRES count: '{item}'")
    ordered = sorted(counts, key=tres_rank)
    return ",".join(f"{name}={counts[name]}" for name in ordered) or None


def parse_name_list(text: str) -> str:
    """A comma list of names (QOS, Preempt), lower-cased, duplicates dropped, order kept."""
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    return ",".join(dict.fromkeys(names))


def parse_qos_flags(text: str) -> str:
    canonical = {flag.lower(): flag for flag in QOS_FLAGS}
    flags = []
    for item in (f.strip() for f in text.split(",") if f.strip()):
        if item.lower() not in canonical:
            raise SettingError(f" Unknown QOS flag '{item}'")
        flags.append(canonical[item.lower()])
    return ",".join(dict.fromkeys(flags))


def parse_preempt_mode(text: str) -> str:
    modes = [m.strip().lower() for m in text.split(",") if m.strip()]
    if not modes or any(m not in PREEMPT_MODES for m in modes):
        raise SettingError(f" Unknown PreemptMode '{text}'")
    return ",".join(modes)


def parse_admin_level(text: str) -> str:
    level = ADMIN_LEVELS.get(text.strip().lower())
    if level is None:
        raise SettingError(f" Bad AdminLevel '{text}': expected None, Operator or Administrator")
    return level


def parse_text(text: str) -> str:
    return text


def _table(*entries: tuple[tuple[str, ...], Key]) -> dict[str, Key]:
    return {alias.lower(): key for aliases, key in entries for alias in aliases}


_SHARED_LIMITS = (
    (("GrpJobs",), Key("GrpJobs", "grp_jobs", parse_count)),
    (("GrpSubmit", "GrpSubmitJobs"), Key("GrpSubmitJobs", "grp_submit", parse_count)),
    (("GrpTRES",), Key("GrpTRES", "grp_tres", parse_tres)),
    (("GrpWall",), Key("GrpWall", "grp_wall", parse_minutes)),
    (("MaxTRES", "MaxTRESPerJob"), Key("MaxTRESPerJob", "max_tres", parse_tres)),
    (("MaxTRESPerNode",), Key("MaxTRESPerNode", "max_tres_per_node", parse_tres)),
    (("MaxWall", "MaxWallDurationPerJob"), Key("MaxWall", "max_wall", parse_minutes)),
)

ASSOCIATION_KEYS: Mapping[str, Key] = _table(
    (("Fairshare", "Share", "Shares"), Key("Fairshare", "shares", parse_fairshare)),
    (("Priority",), Key("Priority", "priority", parse_count)),
    *_SHARED_LIMITS,
    (("MaxJobs",), Key("MaxJobs", "max_jobs", parse_count)),
    (("MaxSubmit", "MaxSubmitJobs"), Key("MaxSubmitJobs", "max_submit", parse_count)),
    (("QOS", "QOSLevel"), Key("QOS", "qos", parse_name_list, is_list=True)),
    (("DefaultQOS", "DefQOS"), Key("DefaultQOS", "default_qos", parse_name_list)),
)
"""Association limits, settable on clusters (their root), accounts, users and associations."""

QOS_KEYS: Mapping[str, Key] = _table(
    (("Description",), Key("Description", "description", parse_text)),
    (("Priority",), Key("Priority", "priority", lambda t: parse_count(t) or 0)),
    (("Flags",), Key("Flags", "flags", parse_qos_flags, is_list=True)),
    (("GraceTime",), Key("GraceTime", "grace_time", lambda t: parse_seconds(t) or 0)),
    (("Preempt",), Key("Preempt", "preempt", parse_name_list, is_list=True)),
    (("PreemptMode",), Key("PreemptMode", "preempt_mode", parse_preempt_mode)),
    (("PreemptExemptTime",), Key("PreemptExemptTime", "preempt_exempt_time", parse_seconds)),
    (("UsageFactor",), Key("UsageFactor", "usage_factor", lambda t: 1.0 if (v := parse_float(t)) is None else v)),
    (("UsageThreshold",), Key("UsageThreshold", "usage_threshold", parse_float)),
    *_SHARED_LIMITS,
    (("MaxTRESPerUser", "MaxTRESPU"), Key("MaxTRESPerUser", "max_tres_per_user", parse_tres)),
    (("MaxTRESPerAccount", "MaxTRESPA"), Key("MaxTRESPerAccount", "max_tres_per_account", parse_tres)),
    (("MaxJobsPerUser", "MaxJobsPU"), Key("MaxJobsPerUser", "max_jobs_per_user", parse_count)),
    (("MaxSubmitJobsPerUser", "MaxSubmitJobsPU", "MaxSubmitPU"),
     Key("MaxSubmitJobsPerUser", "max_submit_per_user", parse_count)),
    (("MaxJobsPerAccount", "MaxJobsPA"), Key("MaxJobsPerAccount", "max_jobs_per_account", parse_count)),
    (("MaxSubmitJobsPerAccount", "MaxSubmitJobsPA", "MaxSubmitPA"),
     Key("MaxSubmitJobsPerAccount", "max_submit_per_account", parse_count)),
    (("MinTRES", "MinTRESPerJob"), Key("MinTRESPerJob", "min_tres", parse_tres)),
)
"""QOS settings (``add qos`` / ``modify qos set``)."""


def merge_list(stored: str, op: str, value: str) -> str:
    """The comma list after ``=`` (replace), ``+=`` (append new) or ``-=`` (remove)."""
    items = [v for v in value.split(",") if v]
    if op == "=":
        return ",".join(items)
    current = [v for v in stored.split(",") if v]
    if op == "+=":
        return ",".join(dict.fromkeys(current + items))
    return ",".join(v for v in current if v not in items)
