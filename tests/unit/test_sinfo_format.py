"""sinfo views and node state names (cli-squeue-sinfo-scontrol-scancel.md §2)."""

from __future__ import annotations

import calendar

import pytest

from cli import sinfo_format as si
from pyslurm_common.rpc.ctld_pb2 import NodeInfo, PartitionInfo

NOW = calendar.timegm((2026, 12, 2, 11, 40, 33))


@pytest.fixture(autouse=True)
def _utc(utc: None) -> None:
    """Every test here runs in UTC."""


def _node(name: str = "localhost", state: str = "IDLE", *flags: str, **kw: object) -> NodeInfo:
    fields: dict[str, object] = dict(
        name=name, state=state, flags=list(flags), cpus=2, real_memory_mb=24100, sockets=1,
        cores_per_socket=2, threads_per_core=1, weight=1,
    )
    fields.update(kw)
    return NodeInfo(**fields)  # type: ignore[arg-type]


def _debug(*nodes: str) -> PartitionInfo:
    return PartitionInfo(name="debug", is_default=True, state="UP", max_time_min=-1,
                         nodes=list(nodes or ["localhost"]))


def test_default_view_verified() -> None:
    assert si.render_sinfo([_node()], [_debug()]) == [
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST",
        "debug*       up   infinite      1   idle localhost",
    ]


def test_node_long_view_verified() -> None:
    node = _node(state="ALLOCATED", alloc_cpus=2)
    assert si.render_sinfo([node], [_debug()], node_oriented=True, long=True, now=NOW) == [
        "Wed Dec 02 11:40:33 2026",
        "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE "
        "REASON              ",
        "localhost      1    debug*   allocated 2       1:2:1  24100        0      1   (null) "
        "none                ",
    ]


def test_computed_headers() -> None:
    nodes, parts = [_node()], [_debug()]
    first = lambda **kw: si.render_sinfo(nodes, parts, now=NOW, **kw)  # noqa: E731
    assert first(summarize=True)[0] == "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST"
    assert first(long=True)[1] == (
        "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE "
        "NODELIST"
    )
    assert first(list_reasons=True)[0] == "REASON               USER      TIMESTAMP           NODELIST"
    assert first(node_oriented=True) == [
        "NODELIST   NODES PARTITION STATE ",
        "localhost      1    debug* idle  ",
    ]


def test_noheader() -> None:
    lines = si.render_sinfo([_node()], [_debug()], header=False, long=True, now=NOW)
    assert lines == ["debug*       up   infinite 1-infinite   no       NO        all      1        "
                     "idle localhost"]


def test_groups_by_state_descending_and_partition_width() -> None:
    nodes = [
        _node("n1", "IDLE"), _node("n2", "IDLE"), _node("n3", "ALLOCATED", alloc_cpus=2),
        _node("n4", "MIXED", alloc_cpus=1), _node("n5", "IDLE", "DRAIN", "NOT_RESPONDING"),
        _node("n6", "DOWN", "NOT_RESPONDING"),
    ]
    parts = [
        PartitionInfo(name="verylongpartition", is_default=True, state="UP", max_time_min=30,
                      node_expr="n[1-6]"),
        PartitionInfo(name="gpu", state="DOWN", max_time_min=1440, nodes=["n1"]),
    ]
    assert si.render_sinfo(nodes, parts) == [
        "PARTITION          AVAIL  TIMELIMIT  NODES  STATE NODELIST",
        "verylongpartition*    up      30:00      1 drain* n5",
        "verylongpartition*    up      30:00      1  down* n6",
        "verylongpartition*    up      30:00      1    mix n4",
        "verylongpartition*    up      30:00      1  alloc n3",
        "verylongpartition*    up      30:00      2   idle n[1-2]",
        "gpu                 down 1-00:00:00      1   idle n1",
    ]


@pytest.mark.parametrize(
    ("state", "flags", "compact", "long"),
    [
        ("IDLE", (), "idle", "idle"),
        ("ALLOCATED", (), "alloc", "allocated"),
        ("MIXED", (), "mix", "mixed"),
        ("DOWN", (), "down", "down"),
        ("DOWN", ("NOT_RESPONDING",), "down*", "down*"),
        ("IDLE", ("NOT_RESPONDING",), "idle*", "idle*"),
        ("IDLE", ("DRAIN",), "drain", "drained"),
        ("IDLE", ("DRAIN", "NOT_RESPONDING"), "drain*", "drained*"),
        ("MIXED", ("DRAIN",), "drng", "draining"),
        ("ALLOCATED", ("DRAIN",), "drng", "draining"),
        ("IDLE", ("DRAIN", "COMPLETING"), "drng", "draining"),
        ("ALLOCATED", ("COMPLETING",), "alloc+", "allocated+"),
        ("IDLE", ("COMPLETING",), "comp", "completing"),
        ("IDLE", ("POWERED_DOWN",), "idle~", "idle~"),
        ("UNKNOWN", (), "unk", "unknown"),
    ],
)
def test_node_state_names(state: str, flags: tuple[str, ...], compact: str, long: str) -> None:
    node = _node("localhost", state, *flags)
    assert si.node_state_compact(node) == compact
    assert si.node_state_long(node) == long


def test_node_view_one_row_per_node_and_partition() -> None:
    nodes = [_node("n10"), _node("n9"), _node("n2", partitions=[])]
    parts = [_debug("n9", "n10"), PartitionInfo(name="long", state="UP", max_time_min=-1,
                                                nodes=["n10"])]
    assert si.render_sinfo(nodes, parts, node_oriented=True) == [
        "NODELIST   NODES PARTITION STATE ",
        "n2             1       n/a idle  ",
        "n9             1    debug* idle  ",
        "n10            1    debug* idle  ",
        "n10            1      long idle  ",
    ]


def test_percent_format_and_min_plus() -> None:
    nodes = [_node("a1", cpu_load=0.5, free_memory_mb=100),
             _node("a2", cpus=4, alloc_cpus=1, real_memory_mb=1000, cpu_load=1.25,
                   free_memory_mb=300)]
    fmt = si.parse_format("%9P|%a|%l|%D|%t|%T|%N|%c|%m|%C|%e|%O")
    assert si.render_sinfo(nodes, [_debug("a1", "a2")], fmt) == [
        "PARTITION|AVAIL|TIMELIMIT|NODES|STATE|STATE|NODELIST|CPUS|MEMORY|CPUS(A/I/O/T)"
        "|FREE_MEM|CPU_LOAD",
        "debug*   |up|infinite|2|idle|idle|a[1-2]|2+|1000+|1/5/0/6|100-300|0.50-1.25",
    ]
    exact = si.render_sinfo(nodes, [_debug("a1", "a2")], si.parse_format("%c %N"), exact=True,
                            header=False)
    assert sorted(exact) == ["2 a1", "4 a2"]


def test_reasons_view_and_user_column() -> None:
    node = _node("n1", "IDLE", "DRAIN", reason="bad disk", reason_uid=0,
                 reason_time=NOW)
    lines = si.render_sinfo([node, _node("n2")], [_debug("n1", "n2")], list_reasons=True)
    assert lines[1] == "bad disk             root      2026-12-02T11:40:33 n1"


def test_long_format_names_and_errors() -> None:
    fmt = si.parse_long_format("nodelist:.12 ,statelong,partitionname:0")
    assert si.render_sinfo([_node()], [_debug()], fmt, header=False) == [
        "   localhost idle                debug"
    ]
    assert si.parse_format("%q|%N").unknown == ("q",)   # printed as written, reported by sinfo
    with pytest.raises(si.FormatError):
        si.parse_long_format("nosuchfield")
