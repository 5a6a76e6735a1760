"""Time limits, memory sizes, durations, timestamps and dates (spec sbatch §1.2–1.4, squeue
§0.2–0.3, sacct §1)."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from pyslurm_common import units
from pyslurm_common.dates import parse_datetime
from pyslurm_common.units import (
    UNLIMITED,
    format_duration_hms,
    format_duration_squeue,
    format_memory_mb,
    format_time_limit_hms,
    format_time_limit_sinfo,
    format_time_limit_squeue,
    format_timestamp,
    parse_memory_mb,
    parse_time_limit,
)


def _epoch(*args: int) -> int:
    """Local-time epoch for a date/time (the fixture makes local = UTC)."""
    return int(dt.datetime(*args).timestamp())  # type: ignore[misc]


# --- time limits -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("60", 60),
        ("1", 1),
        ("90", 90),  # fields are not range-checked
        ("5:00", 5),  # M:S
        ("0:30", 1),  # seconds round up
        ("1:01", 2),
        ("1:75", 3),
        ("01:00:00", 60),  # H:M:S
        ("1:30:01", 91),
        ("2-0", 2880),  # D-H
        ("1-12", 2160),
        ("1-2:30", 1590),  # D-H:M
        ("1-0:0:1", 1441),  # D-H:M:S
        ("0-0:0:59", 1),
        (" 15 ", 15),
        ("UNLIMITED", UNLIMITED),
        ("unlimited", UNLIMITED),
        ("Infinite", UNLIMITED),
        ("-1", UNLIMITED),
        ("0", UNLIMITED),  # --time=0 is no limit
        ("00:00:00", UNLIMITED),
    ],
)
def test_parse_time_limit(text: str, minutes: int) -> None:
    assert parse_time_limit(text) == minutes


@pytest.mark.parametrize(
    "text",
    ["", "abc", "1:2:3:4", "1-2-3", "-5", "-", "1:", ":30", "1.5", "1h", "1-2:3:4:5", "1 2", "+5"],
)
def test_parse_time_limit_invalid(text: str) -> None:
    with pytest.raises(ValueError):
        parse_time_limit(text)


# --- memory ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mb"),
    [
        ("4096", 4096),
        ("4096M", 4096),
        ("4G", 4096),
        ("4GB", 4096),
        ("4gb", 4096),
        ("2g", 2048),
        ("1T", 1024 * 1024),
        ("1tb", 1024 * 1024),
        ("500K", 1),  # K rounds up
        ("1024K", 1),
        ("1025K", 2),
        ("0", 0),
        ("16MB", 16),
    ],
)
def test_parse_memory_mb(text: str, mb: int) -> None:
    assert parse_memory_mb(text) == mb


@pytest.mark.parametrize("text", ["", "-1", "-1G", "4X", "4GG", "1.5G", "G", "4096B", "4 G"])
def test_parse_memory_mb_invalid(text: str) -> None:
    with pytest.raises(ValueError):
        parse_memory_mb(text)


@pytest.mark.parametrize(
    ("mb", "text"),
    [(0, "0"), (1024, "1G"), (1000, "1000M"), (4000, "4000M"), (2048, "2G"), (1536, "1536M"),
     (24100, "24100M"), (1024 * 1024, "1T"), (1024**3, "1P"), (1, "1M")],
)
def test_format_memory_mb(mb: int, text: str) -> None:
    assert format_memory_mb(mb) == text


# --- squeue/sinfo durations ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0:00"),
        (5, "0:05"),
        (769, "12:49"),
        (3599, "59:59"),
        (3600, "1:00:00"),
        (6201, "1:43:21"),
        (86399, "23:59:59"),
        (86400, "1-00:00:00"),
        (2 * 86400 + 3 * 3600 + 4 * 60 + 5, "2-03:04:05"),
        (365 * 86400, "365-00:00:00"),
        (365 * 86400 + 1, "INVALID"),
        (-1, "INVALID"),
    ],
)
def test_format_duration_squeue(seconds: int, text: str) -> None:
    assert format_duration_squeue(seconds) == text


@pytest.mark.parametrize(
    ("minutes", "text"),
    [(UNLIMITED, "UNLIMITED"), (None, "NOT_SET"), (0, "NOT_SET"), (30, "30:00"), (60, "1:00:00"),
     (1440, "1-00:00:00")],
)
def test_format_time_limit_squeue(minutes: int | None, text: str) -> None:
    assert format_time_limit_squeue(minutes) == text


@pytest.mark.parametrize(
    ("minutes", "text"),
    [(UNLIMITED, "infinite"), (None, "n/a"), (30, "30:00"), (60, "1:00:00"), (2880, "2-00:00:00")],
)
def test_format_time_limit_sinfo(minutes: int | None, text: str) -> None:
    assert format_time_limit_sinfo(minutes) == text


# --- scontrol/sacct durations ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "00:00:00"),
        (5, "00:00:05"),
        (3600, "01:00:00"),
        (86399, "23:59:59"),
        (86400, "1-00:00:00"),
        (93784, "1-02:03:04"),
        (400 * 86400, "400-00:00:00"),  # no one-year cut-off here
        (-3, "INVALID"),
    ],
)
def test_format_duration_hms(seconds: int, text: str) -> None:
    assert format_duration_hms(seconds) == text


@pytest.mark.parametrize(
    ("minutes", "text"),
    [(UNLIMITED, "UNLIMITED"), (None, "Partition_Limit"), (60, "01:00:00"), (1440, "1-00:00:00"),
     (0, "00:00:00"), (90, "01:30:00")],
)
def test_format_time_limit_hms(minutes: int | None, text: str) -> None:
    assert format_time_limit_hms(minutes) == text


# --- timestamps ------------------------------------------------------------------------------


def test_format_timestamp_standard(utc: None) -> None:
    assert format_timestamp(_epoch(2026, 12, 2, 11, 40, 31)) == "2026-12-02T11:40:31"


def test_format_timestamp_zero_is_unknown(utc: None) -> None:
    assert format_timestamp(0) == "Unknown"
    assert format_timestamp(0, unknown="N/A") == "N/A"


def test_format_timestamp_is_local_time(monkeypatch: pytest.MonkeyPatch, utc: None) -> None:
    monkeypatch.setenv("TZ", "TST-2")  # POSIX TZ string (no tzdata needed): two hours *ahead* of UTC
    time.tzset()
    assert format_timestamp(_epoch_utc(2026, 1, 1, 10, 0, 0)) == "2026-01-01T12:00:00"


def _epoch_utc(*args: int) -> int:
    return int(dt.datetime(*args, tzinfo=dt.timezone.utc).timestamp())  # type: ignore[misc]


@pytest.mark.parametrize(
    ("env", "text"),
    [("standard", "2026-12-02T11:40:31"), ("relative", "2026-12-02T11:40:31"),
     ("%d/%m %H:%M", "02/12 11:40"), ("garbage", "2026-12-02T11:40:31")],
)
def test_format_timestamp_slurm_time_format(
    monkeypatch: pytest.MonkeyPatch, utc: None, env: str, text: str
) -> None:
    monkeypatch.setenv("SLURM_TIME_FORMAT", env)
    assert format_timestamp(_epoch(2026, 12, 2, 11, 40, 31)) == text


# --- dates -----------------------------------------------------------------------------------

# "now" for the date tests: Wednesday 2026-06-10 14:30:15 local (UTC via the fixture).
NOW = dt.datetime(2026, 6, 10, 14, 30, 15, tzinfo=dt.timezone.utc).timestamp()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", (2026, 6, 10, 14, 30, 15)),
        ("NOW", (2026, 6, 10, 14, 30, 15)),
        ("now+60", (2026, 6, 10, 14, 31, 15)),
        ("now+1hour", (2026, 6, 10, 15, 30, 15)),
        ("now+2hours", (2026, 6, 10, 16, 30, 15)),
        ("now+30minutes", (2026, 6, 10, 15, 0, 15)),
        ("now+10seconds", (2026, 6, 10, 14, 30, 25)),
        ("now-7days", (2026, 6, 3, 14, 30, 15)),
        ("now-1day", (2026, 6, 9, 14, 30, 15)),
        ("now+1week", (2026, 6, 17, 14, 30, 15)),
        ("today", (2026, 6, 10, 0, 0, 0)),
        ("tomorrow", (2026, 6, 11, 0, 0, 0)),
        ("2026-01-20", (2026, 1, 20, 0, 0, 0)),
        ("2026-01-20T12:34", (2026, 1, 20, 12, 34, 0)),
        ("2010-01-20T12:34:56", (2010, 1, 20, 12, 34, 56)),
        ("2026-06-10T14:00", (2026, 6, 10, 14, 0, 0)),  # explicit date: never rolled
        ("07/04/27", (2027, 7, 4, 0, 0, 0)),
        ("07/04/2027", (2027, 7, 4, 0, 0, 0)),
        ("07.04.27", (2027, 7, 4, 0, 0, 0)),
        ("070427", (2027, 7, 4, 0, 0, 0)),
        ("07/04-10:00", (2026, 7, 4, 10, 0, 0)),
        ("12/31/26-23:59:59", (2026, 12, 31, 23, 59, 59)),
        ("16:00", (2026, 6, 10, 16, 0, 0)),  # later today
        ("16:00:30", (2026, 6, 10, 16, 0, 30)),
        ("4:00pm", (2026, 6, 10, 16, 0, 0)),
        ("noon", (2026, 6, 11, 12, 0, 0)),  # already past: tomorrow
        ("fika", (2026, 6, 10, 15, 0, 0)),
        ("teatime", (2026, 6, 10, 16, 0, 0)),
        ("midnight", (2026, 6, 11, 0, 0, 0)),
        ("10:00", (2026, 6, 11, 10, 0, 0)),  # already past: tomorrow
        ("10:00am", (2026, 6, 11, 10, 0, 0)),
        ("12:00am", (2026, 6, 11, 0, 0, 0)),
        ("07/04", (2026, 7, 4, 0, 0, 0)),  # no year, still ahead: this year
        ("0704", (2026, 7, 4, 0, 0, 0)),
        ("01/15", (2027, 1, 15, 0, 0, 0)),  # no year, already gone: next year
        ("06/10", (2026, 6, 10, 0, 0, 0)),  # today is not "gone"
    ],
)
def test_parse_datetime_future(utc: None, text: str, expected: tuple[int, ...]) -> None:
    assert parse_datetime(text, NOW) == _epoch(*expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10:00", (2026, 6, 10, 10, 0, 0)),  # sacct -S 10:00: this morning
        ("midnight", (2026, 6, 10, 0, 0, 0)),
        ("noon", (2026, 6, 10, 12, 0, 0)),
        ("01/15", (2026, 1, 15, 0, 0, 0)),
        ("now-1hours", (2026, 6, 10, 13, 30, 15)),
        ("2026-06-10T14:00", (2026, 6, 10, 14, 0, 0)),
    ],
)
def test_parse_datetime_past(utc: None, text: str, expected: tuple[int, ...]) -> None:
    assert parse_datetime(text, NOW, past=True) == _epoch(*expected)


def test_parse_datetime_reads_no_clock(utc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom() -> float:
        raise AssertionError("parse_datetime must not read the clock")

    monkeypatch.setattr(units.time, "time", boom)
    assert parse_datetime("now+1", 1000.0) == 1001


@pytest.mark.parametrize(
    "text",
    ["", "yesterday", "now+", "now+5fortnights", "now*5", "25:00", "10:60", "10:00:61", "13:00pm",
     "2026-13-01", "2026-02-30", "13/01", "02/30/26", "1", "123", "2026-01-20T", "2026-01-20T25:00",
     "07/04-", "07/04-10", "abc", "2026-1"],
)
def test_parse_datetime_invalid(utc: None, text: str) -> None:
    with pytest.raises(ValueError):
        parse_datetime(text, NOW)


@pytest.mark.parametrize(("fmt", "value", "unit", "text"), [
    (units.SizeFormat(), 2_048_000, "", "2000K"),            # exact promotion only
    (units.SizeFormat(), 4096 * 1024, "", "4M"),
    (units.SizeFormat(), 2048, "M", "2G"),
    (units.SizeFormat(), 0, "M", "0"),
    (units.SizeFormat(convert=False), 2048, "M", "2048M"),   # --noconvert: the counted unit
    (units.SizeFormat(convert=False), 2_048_000, "", "2048000"),   # bytes print bare
    (units.SizeFormat("M"), 2_048_000, "", "1.95M"),          # --units: two decimals when not whole
    (units.SizeFormat("K"), 2048, "M", "2097152K"),
    (units.SizeFormat("G", convert=False), 3072, "M", "3G"),  # --units wins over --noconvert
    (units.SizeFormat("P"), 0, "", "0"),
])
def test_size_format(fmt: units.SizeFormat, value: int, unit: str, text: str) -> None:
    assert fmt(value, unit) == text
