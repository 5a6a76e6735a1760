"""Parsing and formatting of Slurm time limits, durations, memory sizes and dates.

This module owns the text forms users type and read for quantities:

* time limits (``--time``, partition ``MaxTime``): :func:`parse_time_limit` → minutes;
* memory sizes (``--mem``, ``RealMemory``): :func:`parse_memory_mb` → MB, :func:`format_memory_mb`;
  sizes as sacct/sstat print them, with ``--noconvert``/``--units``: :class:`SizeFormat`;
* durations and limits as squeue/sinfo print them (``M:SS``, unpadded) and as scontrol/sacct
  print them (``HH:MM:SS``, zero-padded);
* timestamps (``%Y-%m-%dT%H:%M:%S`` local time, ``SLURM_TIME_FORMAT``);
* absolute dates for ``--begin`` and sacct ``-S/-E``: :func:`parse_datetime`.

Everything is pure and stdlib-only: the current time is always an argument, never read here.
Parsers raise :class:`ValueError` on bad input; the caller words the user-facing message
(``Invalid --time specification`` ...), because the same parser serves several options.
References: spec cli-sbatch-srun-salloc.md §1.2–1.4, cli-squeue-sinfo-scontrol-scancel.md
§0.2–0.3, cli-sacct-sacctmgr-sprio-sshare.md §1.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
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
    "parse_datetime",
    "parse_memory_mb",
    "parse_time_limit",
    "parse_time_seconds",
]

UNLIMITED = -1
"""Sentinel for "no limit" in minute-valued fields (Slurm's INFINITE)."""

_MINUTE = 60
_HOUR = 3600
_DAY = 86400
_YEAR = 365 * _DAY

# --------------------------------------------------------------------------------------------
# time limits


# Patterns here are strings, compiled on first use through re's own cache: CLIs import this
# module on every call and most parse none of these forms.
_DIGITS = r"\d+"


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
    result = math.ceil(total / _MINUTE)
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
        if not re.fullmatch(_DIGITS, day_text):
            raise ValueError(f"invalid time limit: {text!r}")
        days = int(day_text)
        s = s or "0"   # `2-` is two days, as Slurm reads it
    fields = s.split(":")
    if len(fields) > 3 or not all(re.fullmatch(_DIGITS, f) for f in fields):
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
    return days * _DAY + hours * _HOUR + minutes * _MINUTE + seconds


# --------------------------------------------------------------------------------------------
# memory


_MEMORY = r"(?i)(\d+)(?:([KMGT])B?)?"
_MEMORY_FACTOR_KB = {"K": 1, "M": 1024, "G": 1024**2, "T": 1024**3}


def parse_memory_mb(text: str) -> int:
    """Parse a memory size into MB: ``4G``, ``4GB``, ``4096``, ``4096M``, ``500K`` (→ 1).

    No unit means megabytes; units are binary (G = 1024 MB); K rounds up to a whole MB.  A
    ``B`` is accepted only after a unit. At most bounds.MEMORY_MB.
    """
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
    days, rest = divmod(seconds, _DAY)
    hours, rest = divmod(rest, _HOUR)
    minutes, secs = divmod(rest, _MINUTE)
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
    return format_duration_squeue(minutes * _MINUTE)


def format_time_limit_sinfo(minutes: int | None) -> str:
    """sinfo ``TIMELIMIT``: ``infinite``, ``n/a`` (None), else a squeue-style duration."""
    if minutes is None:
        return "n/a"
    if minutes == UNLIMITED:
        return "infinite"
    return format_duration_squeue(minutes * _MINUTE)


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
    return format_duration_hms(minutes * _MINUTE)


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


# --------------------------------------------------------------------------------------------
# absolute dates


_NAMED_TIMES = {"midnight": (0, 0), "noon": (12, 0), "fika": (15, 0), "teatime": (16, 0)}
_DELTA_UNITS = {
    "": 1,
    "second": 1,
    "minute": _MINUTE,
    "hour": _HOUR,
    "day": _DAY,
    "week": 7 * _DAY,
}
_NOW_DELTA = r"now\s*([+-])\s*(\d+)\s*([a-z]*)"
_CLOCK = r"(\d{1,2}):(\d{2})(?::(\d{2}))?(am|pm)?"
_ISO_DATE = r"(\d{4})-(\d{1,2})-(\d{1,2})"
_SHORT_DATE = r"(\d{1,2})([/.])(\d{1,2})(?:\2(\d{2}|\d{4}))?"
_COMPACT_DATE = r"(\d{2})(\d{2})(\d{2})?"


def parse_datetime(text: str, now: float, *, past: bool = False) -> int:
    """Parse a ``--begin`` / ``sacct -S/-E`` date into epoch seconds (local time).

    Forms: ``now``, ``now[+-]N[seconds|minutes|hours|days|weeks]`` (default unit seconds,
    singular accepted), ``today``, ``tomorrow``, ``midnight``, ``noon``, ``fika``, ``teatime``,
    ``HH:MM[:SS][AM|PM]``, ``YYYY-MM-DD[THH:MM[:SS]]``, ``MM/DD[/YY]``, ``MM.DD[.YY]`` (either
    optionally ``-HH:MM[:SS]``), ``MMDD[YY]``.  A date without time is 00:00:00.

    ``past=False`` (``--begin``, the spec default): a time of day already gone means tomorrow
    and a year-less date already gone means next year.  ``past=True`` (sacct windows): both
    stay in the current day/year, so ``-S 08:00`` means this morning.
    """
    s = text.strip().lower()
    now_dt = dt.datetime.fromtimestamp(now)
    today = now_dt.date()

    if s == "now":
        return int(now)
    m = re.fullmatch(_NOW_DELTA, s)
    if m is not None:
        unit = m.group(3)
        unit = unit[:-1] if unit.endswith("s") else unit
        if unit not in _DELTA_UNITS:
            raise ValueError(f"invalid time: {text!r}")
        delta = int(m.group(2)) * _DELTA_UNITS[unit]
        return EPOCH.check(max(0, int(now) + (delta if m.group(1) == "+" else -delta)))
    if s == "today":
        return _epoch(today, 0, 0, 0)
    if s == "tomorrow":
        return _epoch(today + dt.timedelta(days=1), 0, 0, 0)
    if s in _NAMED_TIMES:
        hour, minute = _NAMED_TIMES[s]
        return _time_of_day(today, hour, minute, 0, now, past)
    clock = _parse_clock(s, text)
    if clock is not None:
        return _time_of_day(today, *clock, now, past)

    date_part, time_part = _split_date_time(s)
    date, has_year = _parse_date(date_part, today, text)
    hms = (0, 0, 0)
    if time_part is not None:
        parsed = _parse_clock(time_part, text)
        if parsed is None:
            raise ValueError(f"invalid time: {text!r}")
        hms = parsed
    if not has_year and not past and date < today:
        date = _replace_year(date, date.year + 1, text)
    return _epoch(date, *hms)


def _split_date_time(s: str) -> tuple[str, str | None]:
    """``2024-05-01t10:00`` → (date, time); ``05/01-10:00`` → (date, time)."""
    if "t" in s:
        date_part, _, time_part = s.partition("t")
        return date_part, time_part
    if ":" in s and "-" in s and not re.match(_ISO_DATE, s):
        date_part, _, time_part = s.rpartition("-")
        return date_part, time_part
    return s, None


def _parse_clock(s: str, text: str) -> tuple[int, int, int] | None:
    """``HH:MM[:SS][am|pm]`` → (h, m, s); None if ``s`` is not a clock time at all."""
    m = re.fullmatch(_CLOCK, s)
    if m is None:
        return None
    hour, minute, second = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    meridiem = m.group(4)
    if meridiem is not None:
        if not 1 <= hour <= 12:
            raise ValueError(f"invalid time: {text!r}")
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"invalid time: {text!r}")
    return hour, minute, second


def _parse_date(s: str, today: dt.date, text: str) -> tuple[dt.date, bool]:
    """Parse the date forms; returns (date, whether a year was given)."""
    m = re.fullmatch(_ISO_DATE, s)
    if m is not None:
        return _make_date(int(m.group(1)), int(m.group(2)), int(m.group(3)), text), True
    m = re.fullmatch(_SHORT_DATE, s)
    if m is not None:
        month, day, year_text = int(m.group(1)), int(m.group(3)), m.group(4)
    else:
        m = re.fullmatch(_COMPACT_DATE, s)
        if m is None:
            raise ValueError(f"invalid time: {text!r}")
        month, day, year_text = int(m.group(1)), int(m.group(2)), m.group(3)
    if year_text is None:
        return _make_date(today.year, month, day, text), False
    year = int(year_text)
    if len(year_text) == 2:
        year += 2000
    return _make_date(year, month, day, text), True


def _make_date(year: int, month: int, day: int, text: str) -> dt.date:
    try:
        return dt.date(year, month, day)
    except ValueError:
        raise ValueError(f"invalid time: {text!r}") from None


def _replace_year(date: dt.date, year: int, text: str) -> dt.date:
    return _make_date(year, date.month, date.day, text)


def _time_of_day(
    today: dt.date, hour: int, minute: int, second: int, now: float, past: bool
) -> int:
    epoch = _epoch(today, hour, minute, second)
    if not past and epoch < now:
        epoch = _epoch(today + dt.timedelta(days=1), hour, minute, second)
    return epoch


def _epoch(date: dt.date, hour: int, minute: int, second: int) -> int:
    # A naive datetime's timestamp() is interpreted in local time, DST included.
    return int(dt.datetime(date.year, date.month, date.day, hour, minute, second).timestamp())
