"""sreport's window, time formats and the cluster utilization / user topusage layouts."""
from __future__ import annotations

import calendar

import pytest

from cli import sreport_format as sf
from cli.print_fields import Parsable
from pyslurm_common.rpc import messages as pb

NOW = float(calendar.timegm((2026, 12, 2, 15, 40, 10)))
TODAY = calendar.timegm((2026, 12, 2, 0, 0, 0))
DAY = 86400


@pytest.fixture(autouse=True)
def _utc(utc: None) -> None:
    """Every test here runs in UTC."""


def test_default_window_is_yesterday() -> None:
    assert sf.window(None, None, NOW) == (TODAY - DAY, TODAY)


def test_given_times_round_to_the_nearest_hour_and_end_stops_at_now() -> None:
    start = calendar.timegm((2026, 12, 2, 9, 29, 40))     # rounds up to 10:00
    assert sf.window(start, int(NOW) + 9999, NOW) == (TODAY + 10 * 3600, TODAY + 16 * 3600)
    assert sf.window(TODAY + 3600, TODAY + 3600, NOW) == (TODAY + 3600, TODAY + 7200)   # at least an hour


@pytest.mark.parametrize(("word", "secs", "total", "text"), [
    ("minutes", 5430, 10000, "90"), ("Min", 5430, 10000, "90"), ("hours", 7200, 1, "2"),
    ("s", 42, 1, "42"), ("percent", 2500, 10000, "25.00%"), ("minper", 600, 2400, "10(25.00%)"),
    ("HourPer", 3600, 0, "1(360000.00%)"), ("secper", 5, 10, "5(50.00%)"),
])
def test_time_formats(word: str, secs: int, total: int, text: str) -> None:
    assert sf.usage_text(secs, total, sf.time_format(word)) == text


def test_unknown_time_format() -> None:
    with pytest.raises(sf.ReportError, match="unknown time format fortnights"):
        sf.time_format("fortnights")


def test_usage_columns_grow_past_eight_digits() -> None:
    assert sf.usage_width(99_999_999, sf.MINUTES) == 8
    assert sf.usage_width(100_000_000, sf.MINUTES) == 9
    assert sf.usage_width(5, sf.time_format("minper")) == 17


LAB = pb.ClusterUsage(cluster="lab", cpu_count=8, alloc_secs=9600, down_secs=7200, plan_secs=7200,
                      idle_secs=33600)
START, END = TODAY, TODAY + 7200


def test_cluster_utilization_default_layout() -> None:
    lines = sf.utilization([LAB], "", sf.MINUTES, START, END, Parsable.NONE, header=True)
    assert lines == [
        "-" * 80,
        "Cluster Utilization 2026-12-02T00:00:00 - 2026-12-02T01:59:59",
        "Usage reported in CPU Minutes",
        "-" * 80,
        "  Cluster Allocate     Down PLND Dow     Idle Reserved Reported ",
        "--------- -------- -------- -------- -------- -------- -------- ",
        "      lab      160      120        0      560      120      960 ",
    ]


def test_cluster_utilization_percent_and_parsable() -> None:
    lines = sf.utilization([LAB], "cluster,allocated,reported,count", sf.time_format("percent"), START, END,
                           Parsable.NO_TRAILING, header=True)
    assert lines[2] == "Usage reported in Percentage of Total"
    assert lines[4:] == ["Cluster|Allocated|Reported|TRES Count", "lab|16.67%|100.00%|8"]
    assert sf.utilization([LAB], "", sf.MINUTES, START, END, Parsable.TRAILING, header=False) == [
        "lab|160|120|0|560|120|960|"]


def test_unknown_report_field() -> None:
    with pytest.raises(sf.ReportError, match=" Unknown field 'bogus'"):
        sf.utilization([LAB], "bogus", sf.MINUTES, START, END, Parsable.NONE, header=False)


USERS = [pb.UserUsage(cluster="lab", user="alice", account="physics", alloc_secs=6000),
         pb.UserUsage(cluster="lab", user="bob", account="chem", alloc_secs=2400),
         pb.UserUsage(cluster="lab", user="alice", account="chem", alloc_secs=1200)]


def test_top_users_by_usage_per_account_or_grouped() -> None:
    assert [(t.user, t.accounts, t.alloc_secs) for t in sf.top_users(USERS, group=False, count=10)] == [
        ("alice", "physics", 6000), ("bob", "chem", 2400), ("alice", "chem", 1200)]
    assert [(t.user, t.accounts, t.alloc_secs) for t in sf.top_users(USERS, group=True, count=1)] == [
        ("alice", "physics, chem", 7200)]


def test_topusage_layout() -> None:
    lines = sf.topusage(USERS, "Cluster,Login,Account,Used", sf.time_format("percent"), START, END,
                        Parsable.NONE, header=True, group=False, count=10)
    assert lines[1] == "Top 10 Users 2026-12-02T00:00:00 - 2026-12-02T01:59:59 (7200 secs)"
    assert lines[4:] == [
        "  Cluster     Login         Account     Used ",
        "--------- --------- --------------- -------- ",
        "      lab     alice         physics   62.50% ",
        "      lab       bob            chem   25.00% ",
        "      lab     alice            chem   12.50% ",
    ]
    assert sf.topusage(USERS, "", sf.MINUTES, START, END, Parsable.NO_TRAILING, header=False, group=False,
                       count=1)[0].endswith("|physics|100|0")
