"""sacctmgr show stats: the call statistics a server keeps and Slurm 22.05's layout of them."""
from __future__ import annotations

from cli import sacctmgr_stats
from pyslurm_common.call_stats import Serving
from pyslurm_dbd.daemon_stats import INTERNAL, USER, RollupRuns, accounting_stats


def test_serving_counts_each_call_by_method_name_and_by_uid() -> None:
    serving = Serving(since=100)
    serving.answered("/pyslurm.Accounting/QueryJobs", 1000, 30)
    serving.answered("/pyslurm.Accounting/QueryJobs", 0, 10)
    serving.answered("/pyslurm.Accounting/Ping", 1000, 5)
    assert {k: (t.count, t.total_usec) for k, t in serving.by_method.items()} == {"QueryJobs": (2, 40), "Ping": (1, 5)}
    assert {k: (t.count, t.total_usec) for k, t in serving.by_uid.items()} == {1000: (2, 35), 0: (1, 10)}
    assert serving.by_method["QueryJobs"].average_usec == 20


def test_rollup_runs_keep_last_max_and_total_per_cause() -> None:
    runs = RollupRuns()
    runs.ran(INTERNAL, 1000, 50)
    runs.ran(INTERNAL, 1300, 20)
    runs.ran(USER, 1200, 7)
    internal = runs.by_cause[INTERNAL]
    assert (internal.count, internal.last_run, internal.last_usec, internal.max_usec, internal.total_usec) == (
        2, 1300, 20, 50, 70)
    assert runs.by_cause[USER].count == 1


def test_render_in_slurms_layout_sorted_by_count() -> None:
    serving = Serving(since=1_780_000_000)
    for _ in range(3):
        serving.answered("/pyslurm.Accounting/QueryJobs", 0, 100)
    serving.answered("/pyslurm.Accounting/RecordJobs", 0, 900)
    runs = RollupRuns()
    runs.ran(INTERNAL, 1_780_000_100, 1500)
    stats = accounting_stats(serving, runs)
    lines = sacctmgr_stats.render(stats, 1_780_000_200).splitlines()
    assert lines[0] == "*" * 67 and lines[4] == "*" * 67
    assert lines[1].startswith("sacctmgr show stats output at ") and lines[1].endswith(" (1780000200)")
    assert lines[2].startswith("Data since                    ") and lines[2].endswith(" (1780000000)")
    assert lines[6].startswith("Internal DBD rollup last ran ")
    assert lines[7:12] == ["\tLast cycle:   1500", "\tMax cycle:    1500", "\tTotal time:   1500",
                           "\tTotal cycles: 1", "\tMean cycle:   1500"]
    assert "User RPC rollup call" not in "\n".join(lines)       # never ran: left out, as Slurm does
    by_type = lines.index("Remote Procedure Call statistics by message type")
    # ids are the methods' numbers in proto/dbd.proto's Accounting service
    assert lines[by_type + 1:by_type + 3] == [
        "\tQueryJobs                (    2) count:3      ave_time:100    total_time:300",
        "\tRecordJobs               (    1) count:1      ave_time:900    total_time:900"]
    by_user = lines.index("Remote Procedure Call statistics by user")
    assert lines[by_user + 1] == "\troot                (         0) count:4      ave_time:300    total_time:1200"
    by_total = sacctmgr_stats.render(stats, 1_780_000_200, "total_time").splitlines()
    assert by_total[by_type + 1].startswith("\tRecordJobs")
