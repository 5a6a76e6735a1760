"""Parsing and formatting of Slurm time limits, durations, memory sizes and dates.

This module owns the text forms users type and read for quantities:

* time limits (``--time``, partition ``MaxTime``): :func:`parse_time_limit` → minutes;
* memory sizes (``--mem``, ``RealMemory``): :func:`parse_memory_mb` → MB, :func:`format_memory_mb`;
  sizes as sacct/sstat print them, with ``--noconvert``/``--units``: :class:`SizeFormat`;
* durations and limits as squeue/sinfo print them (``M:SS``, unpadded) and as scontrol/sacct
  print them (``HH:MM:SS``, zero-padded);
* timestamps (``%Y-%m-%dT%H:%M:%S`` local time, ``SLURM_TIME_FORMAT``);
* absolute dates for ``--begin`` and sacct ``-S/-E``: :mod:`pyslurm_common.dates` (it imports
  datetime, which most commands never need).

Everything is pure and stdlib-only: the current time is always an argument, never read here.
Parsers raise :class:`ValueError` on bad input; the caller words the user-facing message
(``Invalid --time specification`` ...), because the same parser serves several options.
References: spec cli-sbatch-srun-salloc.md §1.2–1.4, cli-squeue-sinfo-scontrol-scancel.md
§0.2–0.3, cli-sacct-sacctmgr-sprio-sshare.md §1.
"""

from __future__ import annotations

import math
import os
import time

from .bounds import EPOCH, MEMORY_MB, TIME_LIMIT_MIN
from .typed_tuple import NamedTuple

__all__ = [
    "SIZE_UNITS",
    "SizeFormat",
    "UNLIMITED",
    "format_duration_hms",
    "format_duration_squeue",
    "format_memory_mb",
    "format_time_limit_hms",
    "format_time_limit_sinfo",
    "format_time_limit_squeue",
    "format_timestamp",
    "parse_memory_mb",
    "parse_time_limit",
    "parse_time_seconds",
]

UNLIMITED = -1
"""Sentinel for "no limit" in minute-valued fields (Slurm's INFINITE)."""

MINUTE = 60
HOUR = 3600
DAY = 86400
_YEAR = 365 * DAY

# --------------------------------------------------------------------------------------------
# time limits


# No re at import: CLIs import this module on every call and most parse none of these forms.
# Digit runs are str.isdecimal() (what the pattern \d+ matches); the size pattern is a string,
# compiled on first use through re's own cache.


def parse_time_limit(text: str) -> int:
    """Parse a time limit into whole minutes, or :data:`UNLIMITED`.

    Forms: ``M``, ``M:S``, ``H:M:S``, ``D-H``, ``D-H:M``, ``D-H:M:S``; ``UNLIMITED``,
    ``INFINITE``, ``-1`` (any case).  Seconds round **up** to a minute (``0:30`` → 1).  A limit
    of zero (``0``, ``00:00:00``) means no limit, as it does for ``--time``.  Fields are not
    range-checked (``90`` and ``1:75`` are fine), as in Slurm; the total is (bounds.TIME_LIMIT_MIN: at most what Slurm's uint32 holds).
    """
    total = parse_time_seconds(text)
    if total == UNLIMITED:
        return UNLIMITED
    result = math.ceil(total / MINUTE)
    return UNLIMITED if result == 0 else TIME_LIMIT_MIN.check(result)


def parse_time_seconds(text: str) -> int:
    """The same forms as :func:`parse_time_limit`, to the second (a bare number is minutes, as
    in Slurm's time_str2secs); ``UNLIMITED`` gives :data:`UNLIMITED`, zero stays 0."""
    s = text.strip()
    if s.lower() in ("unlimited", "infinite", "-1"):
        return UNLIMITED
    days = 0
    if "-" in s:
        day_text, _, s = s.partition("-")
        if not day_text.isdecimal():   # what the pattern \d+ matches
            raise ValueError(f"invalid time limit: {text!r}")
        days = int(day_text)
        s = s or "0"   # `2-` is two days, as Slurm reads it
    fields = s.split(":")
    if len(fields) > 3 or not all(field.isdecimal() for field in fields):
        raise ValueError(f"invalid time limit: {text!r}")
    values = [int(f) for f in fields]
    if "-" in text:
        # After a dash the first field is hours: D-H, D-H:M, D-H:M:S.
        values += [0] * (3 - len(values))
        hours, minutes, seconds = values
    elif len(values) == 1:
        hours, minutes, seconds = 0, values[0], 0
    elif len(values) == 2:
        hours, (minutes, seconds) = 0, values
    else:
        hours, minutes, seconds = values
    return days * DAY + hours * HOUR + minutes * MINUTE + seconds


# --------------------------------------------------------------------------------------------
# memory


_MEMORY = r"(?i)(\d+)(?:([KMGT])B?)?"
_MEMORY_FACTOR_KB = {"K": 1, "M": 1024, "G": 1024**2, "T": 1024**3}


def parse_memory_mb(text: str) -> int:
    """Parse a memory size into MB: ``4G``, ``4GB``, ``4096``, ``4096M``, ``500K`` (→ 1).

    No unit means megabytes; units are binary (G = 1024 MB); K rounds up to a whole MB.  A
    ``B`` is accepted only after a unit. At most bounds.MEMORY_MB.
    """
    import re   # here, not at the top: most commands that import units parse no size

    m = re.fullmatch(_MEMORY, text.strip())
    if m is None:
        raise ValueError(f"invalid memory size: {text!r}")
    number = int(m.group(1))
    unit = (m.group(2) or "M").upper()
    return MEMORY_MB.check(-(-number * _MEMORY_FACTOR_KB[unit] // 1024))


def format_memory_mb(mb: int) -> str:
    """Format MB the way Slurm prints MinMemoryCPU/ReqMem/``mem=``: the largest exact unit.

    ``1024`` → ``1G``, ``1000`` → ``1000M``, ``1048576`` → ``1T``, ``0`` → ``0``.
    """
    return SizeFormat()(mb, "M")


# Unit prefixes in order, each 1024 times the one before ("" = bytes).
_SIZE_STEPS = ("", "K", "M", "G", "T", "P")
SIZE_UNITS = "KMGTP"


class SizeFormat(NamedTuple):   # a NamedTuple: CLIs import it, and dataclasses would import inspect
    """How memory and disk sizes are printed (sacct ``--noconvert`` and ``--units``).

    By default a size is promoted to the next unit only while exactly divisible by 1024
    (``1024K`` → ``1M``, ``2000K`` stays); with ``convert`` False it stays in the unit it is
    counted in (bytes print bare); ``to_unit`` (one of ``KMGTP``) prints every size in that
    unit, with two decimals when not whole (``2.18M``), and takes precedence over ``convert``.
    Zero is always ``0``.
    """

    to_unit: str | None = None
    convert: bool = True

    def __call__(self, value: int, unit: str = "") -> str:
        """*value* counted in *unit* (``""`` bytes, ``K``, ``M``, ...) as text."""
        if value == 0:
            return "0"
        step = _SIZE_STEPS.index(unit)
        if self.to_unit is not None:
            shift = _SIZE_STEPS.index(self.to_unit) - step
            divisor = 1024 ** shift if shift > 0 else 1
            scaled = value * 1024 ** max(0, -shift)
            if scaled % divisor == 0:
                return f"{scaled // divisor}{self.to_unit}"
            return f"{scaled / divisor:.2f}{self.to_unit}"
        if self.convert:
            while value % 1024 == 0 and step < len(_SIZE_STEPS) - 1:
                value //= 1024
                step += 1
        return f"{value}{_SIZE_STEPS[step]}"


# --------------------------------------------------------------------------------------------
# durations and time limits as printed


def _split(seconds: int) -> tuple[int, int, int, int]:
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes, secs = divmod(rest, MINUTE)
    return days, hours, minutes, secs


def format_duration_squeue(seconds: int) -> str:
    """squeue/sinfo duration: ``M:SS``, ``H:MM:SS``, ``D-HH:MM:SS``; ``INVALID`` if < 0 or > 1 year."""
    if seconds < 0 or seconds > _YEAR:
        return "INVALID"
    days, hours, minutes, secs = _split(seconds)
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def format_time_limit_squeue(minutes: int | None) -> str:
    """squeue ``TIME_LIMIT``: ``UNLIMITED``, ``NOT_SET`` (None or 0), else a squeue duration.

    0 is never a stored limit (:func:`parse_time_limit` maps it to UNLIMITED), so callers that
    use 0 for "unset" get ``NOT_SET`` too.
    """
    if minutes is None or minutes == 0:
        return "NOT_SET"
    if minutes == UNLIMITED:
        return "UNLIMITED"
    return format_duration_squeue(minutes * MINUTE)


def format_time_limit_sinfo(minutes: int | None) -> str:
    """sinfo ``TIMELIMIT``: ``infinite``, ``n/a`` (None), else a squeue-style duration."""
    if minutes is None:
        return "n/a"
    if minutes == UNLIMITED:
        return "infinite"
    return format_duration_squeue(minutes * MINUTE)


def format_duration_hms(seconds: int) -> str:
    """scontrol ``RunTime`` / sacct ``Elapsed``: ``HH:MM:SS`` or ``D-HH:MM:SS``, zero-padded.

    Negative input (a clock step backwards) prints ``INVALID`` rather than a minus sign.
    """
    if seconds < 0:
        return "INVALID"
    days, hours, minutes, secs = _split(seconds)
    if days:
        return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"


def format_time_limit_hms(minutes: int | None) -> str:
    """scontrol ``TimeLimit`` / sacct ``Timelimit``: ``UNLIMITED``, ``Partition_Limit`` (None),
    else :func:`format_duration_hms` of the limit."""
    if minutes is None:
        return "Partition_Limit"
    if minutes == UNLIMITED:
        return "UNLIMITED"
    return format_duration_hms(minutes * MINUTE)


# --------------------------------------------------------------------------------------------
# timestamps


_STANDARD_FORMAT = "%Y-%m-%dT%H:%M:%S"


def format_timestamp(epoch: int, unknown: str = "Unknown") -> str:
    """Local-time ``YYYY-MM-DDTHH:MM:SS``; ``unknown`` (default ``Unknown``) for 0.

    ``SLURM_TIME_FORMAT`` is honoured when it is a strftime format containing ``%``;
    ``standard``, ``relative`` (not implemented) and anything else give the default format.
    """
    if epoch == 0:
        return unknown
    fmt = os.environ.get("SLURM_TIME_FORMAT", "")
    if "%" not in fmt:
        fmt = _STANDARD_FORMAT
    return time.strftime(fmt, time.localtime(epoch))
