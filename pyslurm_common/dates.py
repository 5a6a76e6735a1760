"""Absolute dates as users type them (``--begin``, ``--deadline``, sacct ``-S/-E``, reservations):
:func:`parse_datetime` into epoch seconds, local time.

Its own module because it needs datetime, which the commands that parse no date should not
import (CLI start-up, issue 18). Pure and stdlib-only: the current time is always an argument,
never read here. Raises :class:`ValueError` on bad input; the caller words the message.
"""

from __future__ import annotations

import datetime as dt
import re

from .bounds import EPOCH
from .units import DAY, HOUR, MINUTE

_NAMED_TIMES = {"midnight": (0, 0), "noon": (12, 0), "fika": (15, 0), "teatime": (16, 0)}
_DELTA_UNITS = {
    "": 1,
    "second": 1,
    "minute": MINUTE,
    "hour": HOUR,
    "day": DAY,
    "week": 7 * DAY,
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
