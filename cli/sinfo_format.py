"""sinfo output: node state strings, grouping of nodes into rows, default views, ``-o``/``-O``.

Owns spec §2 of cli-squeue-sinfo-scontrol-scancel.md: the default, ``-s``, ``-l``, ``-N``,
``-N -l`` and ``-R`` views (written as the internal ``-O`` forms of §2.1, with the partition
and, in node views, the node list column widths computed from the data), the compact/long
node state names with their suffix characters (§2.3) and the ``%`` letters / ``-O`` names of
§2.2. Field rendering and format parsing are shared with ``cli.squeue_format``.

Rows: in partition views one row per partition (slurm.conf order) and per distinct value of
the per-node fields shown (state, reason ...), sorted by state descending; in node views
(``-N``) one row per node x partition, sorted by node name. Numeric columns of a group whose
nodes differ show ``min+`` (CPUS, MEMORY ...) or ``min-max`` (FREE_MEM, CPU_LOAD).

Pure except :func:`pyslurm_common.users.user_name` (a ``pwd`` lookup) used for the USER column.
Errors: :class:`cli.squeue_format.FormatError` for bad letters/names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from cli.squeue_format import (
    FormatError,
    LineFormat,
    date_line,
    parse_name_format,
    parse_percent_format,
    render_cell,
)
from pyslurm_common import hostlist, units
from pyslurm_common.users import user_name
from pyslurm_common.rpc import messages as pb

NodeInfo = pb.NodeInfo
PartitionInfo = pb.PartitionInfo

__all__ = ["FormatError", "NodeGroup", "render_sinfo", "view_format"]

DEFAULT_FORMAT = (
    "partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,nodelist:0"
)
SUMMARIZE_FORMAT = "partition:9 ,available:.5 ,time:.10 ,nodeaiot:.16 ,nodelist:0"
LONG_FORMAT = (
    "partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,oversubscribe:.8 ,"
    "groups:.10 ,nodes:.6 ,statelong:.11 ,nodelist:0"
)
NODE_FORMAT = "nodelist:0 ,nodes:.6 ,partition:.9 ,statecompact:6"
NODE_LONG_FORMAT = (
    "nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,socketcorethread:.8 ,"
    "memory:.6 ,disk:.8 ,weight:.6 ,features:.8 ,reason:20"
)
REASONS_FORMAT = "reason:20 ,user:9 ,timestamp:19 ,nodelist:0"
REASONS_LONG_FORMAT = "reason:20 ,userlong:12 ,timestamp:19 ,statecompact:6 ,nodelist:0"
MIN_COMPUTED_WIDTH = 9

# ----------------------------------------------------------------------------- node states

_BASE_RANK = {"UNKNOWN": 0, "DOWN": 1, "IDLE": 2, "ALLOCATED": 3, "ERROR": 4, "MIXED": 5,
              "FUTURE": 6}  # fmt: skip
# Flag weights: only their order matters (flags sort above base states, -t descending).
_FLAG_RANK = {
    "RESERVED": 1 << 5, "CLOUD": 1 << 7, "RESUME": 1 << 8, "DRAIN": 1 << 9,
    "COMPLETING": 1 << 10, "NOT_RESPONDING": 1 << 11, "POWERED_DOWN": 1 << 12,
    "FAIL": 1 << 13, "POWERING_UP": 1 << 14, "MAINTENANCE": 1 << 15,
    "REBOOT_REQUESTED": 1 << 16, "POWERING_DOWN": 1 << 18, "DYNAMIC_FUTURE": 1 << 19,
    "REBOOT_ISSUED": 1 << 20, "PLANNED": 1 << 21, "INVALID_REG": 1 << 22,
    "POWER_DOWN": 1 << 23, "POWER_UP": 1 << 24, "DYNAMIC_NORM": 1 << 26,
}  # fmt: skip
# One suffix character at most, first match wins.
_SUFFIXES = (
    ("POWERED_DOWN", "~"), ("POWERING_UP", "#"), ("POWERING_DOWN", "%"),
    ("POWER_DOWN", "!"), ("NOT_RESPONDING", "*"), ("MAINTENANCE", "$"),
    ("REBOOT_REQUESTED", "@"), ("REBOOT_ISSUED", "^"),
)  # fmt: skip
_BASE_NAMES = {
    "IDLE": ("idle", "idle"), "ALLOCATED": ("alloc", "allocated"), "MIXED": ("mix", "mixed"),
    "DOWN": ("down", "down"), "FUTURE": ("futr", "future"), "ERROR": ("err", "error"),
    "UNKNOWN": ("unk", "unknown"),
}  # fmt: skip
_BUSY = frozenset({"ALLOCATED", "MIXED"})


def _flags(node: NodeInfo) -> frozenset[str]:
    return frozenset(f.upper() for f in node.flags)


def _state_names(node: NodeInfo) -> tuple[str, str, str]:
    """(compact, long, suffix) for *node*, lower-case, before the suffix is attached."""
    base = (node.state or "UNKNOWN").upper()
    flags = _flags(node)
    busy = base in _BUSY or "COMPLETING" in flags
    suffix = next((ch for flag, ch in _SUFFIXES if flag in flags), "")
    if "MAINTENANCE" in flags and "DRAIN" not in flags and base not in ("ALLOCATED", "MIXED", "DOWN"):
        # A node a MAINT reservation holds reads "maint" (Slurm's node_state_string), not idle$.
        names, suffix = ("maint", "maint"), "*" if "NOT_RESPONDING" in flags else ""
    elif "DRAIN" in flags:
        names = ("drng", "draining") if busy else ("drain", "drained")
    elif "FAIL" in flags:
        names = ("failg", "failing") if busy else ("fail", "fail")
    elif "INVALID_REG" in flags:
        names = ("inval", "inval")
    elif base == "DOWN":
        names = _BASE_NAMES["DOWN"]
    elif base == "ALLOCATED":
        names = _BASE_NAMES["ALLOCATED"]
        if "COMPLETING" in flags and not suffix:
            suffix = "+"
    elif "COMPLETING" in flags:
        names = ("comp", "completing")
    elif "RESERVED" in flags and base == "IDLE" and not suffix:
        names = ("resv", "reserved")
    elif "PLANNED" in flags and base == "IDLE":
        names = ("plnd", "planned")
    else:
        names = _BASE_NAMES.get(base, (base.lower(), base.lower()))
        if "PLANNED" in flags and base == "MIXED" and not suffix:
            suffix = "-"
    return names[0], names[1], suffix


def node_state_compact(node: NodeInfo) -> str:
    """``idle``, ``alloc+``, ``drng``, ``down*`` ... (sinfo ``%t``)."""
    compact, _, suffix = _state_names(node)
    return compact + suffix


def node_state_long(node: NodeInfo) -> str:
    """``idle``, ``allocated``, ``draining``, ``down*`` ... (sinfo ``%T``)."""
    _, long, suffix = _state_names(node)
    return long + suffix


def node_state_complete(node: NodeInfo) -> str:
    """``idle+drain`` style: base and all flags, lower-case (``-O StateComplete``)."""
    return "+".join([(node.state or "UNKNOWN").lower(), *(f.lower() for f in node.flags)])


def state_rank(node: NodeInfo) -> int:
    """Sort value of the node state (higher sorts first in sinfo's default order)."""
    base = _BASE_RANK.get((node.state or "UNKNOWN").upper(), 0)
    return base + sum(_FLAG_RANK.get(f, 0) for f in _flags(node))


def _is_other(node: NodeInfo) -> bool:
    flags = _flags(node)
    base = (node.state or "UNKNOWN").upper()
    return bool(flags & {"DRAIN", "FAIL"}) or base not in _BUSY | {"IDLE"}


# ----------------------------------------------------------------------------- groups


@dataclass(frozen=True, slots=True)
class NodeGroup:
    """One output row: nodes sharing a partition (None outside any) and the shown fields."""

    partition: PartitionInfo | None
    nodes: tuple[NodeInfo, ...]


def _min_plus(values: Iterable[int]) -> str:
    vals = list(values)
    if not vals:
        return "0"
    low = min(vals)
    return f"{low}+" if max(vals) != low else str(low)


def _range(values: Iterable[float], fmt: str = "{}") -> str:
    vals = list(values)
    if not vals:
        return "N/A"
    low, high = min(vals), max(vals)
    return fmt.format(low) if low == high else f"{fmt.format(low)}-{fmt.format(high)}"


def _aiot(group: NodeGroup) -> tuple[int, int, int, int]:
    alloc = idle = other = 0
    for node in group.nodes:
        if _is_other(node):
            other += 1
        elif (node.state or "").upper() in _BUSY:
            alloc += 1
        else:
            idle += 1
    return alloc, idle, other, len(group.nodes)


def _cpus_aiot(group: NodeGroup) -> str:
    alloc = idle = other = total = 0
    for node in group.nodes:
        alloc += node.alloc_cpus
        total += node.cpus
        rest = max(0, node.cpus - node.alloc_cpus)
        if _is_other(node):
            other += rest
        else:
            idle += rest
    return f"{alloc}/{idle}/{other}/{total}"


def _partition_name(group: NodeGroup, star: bool) -> str:
    part = group.partition
    if part is None:
        return "n/a"
    return part.name + ("*" if star and part.is_default else "")


def _part_attr(group: NodeGroup, get: Callable[[PartitionInfo], str]) -> str:
    return "n/a" if group.partition is None else get(group.partition)


def _first(group: NodeGroup, get: Callable[[NodeInfo], str]) -> str:
    return get(group.nodes[0]) if group.nodes else ""


def _nodelist(group: NodeGroup, get: Callable[[NodeInfo], str]) -> str:
    return hostlist.compress([get(n) for n in group.nodes if get(n)])


def _reason_user(node: NodeInfo, long: bool) -> str:
    if not node.reason:
        return "Unknown"
    name = user_name(node.reason_uid)
    return f"{name}({node.reason_uid})" if long else name


@dataclass(frozen=True, slots=True)
class NodeField:
    """A sinfo field: header, getter over a group, and whether node values must match."""

    header: str
    get: Callable[[NodeGroup], str]
    per_node: Callable[[NodeInfo], object] | None = None  # splits groups when shown
    kind: str = "text"  # "nodes": never truncated


FIELDS: dict[str, NodeField] = {
    "": NodeField("", lambda g: ""),   # an -o letter Slurm does not know: its text is the suffix
    "partition": NodeField("PARTITION", lambda g: _partition_name(g, True)),
    "partition_name": NodeField("PARTITION", lambda g: _partition_name(g, False)),
    "available": NodeField("AVAIL", lambda g: _part_attr(g, lambda p: (p.state or "UP").lower())),
    "time": NodeField("TIMELIMIT", lambda g: _part_attr(
        g, lambda p: units.format_time_limit_sinfo(p.max_time_min))),
    "default_time": NodeField("DEFAULTTIME", lambda g: _part_attr(
        g, lambda p: units.format_time_limit_sinfo(p.default_time_min)
        if p.default_time_min else "n/a")),
    "nodes": NodeField("NODES", lambda g: str(len(g.nodes))),
    "nodes_ai": NodeField("NODES(A/I)", lambda g: "{}/{}".format(*_aiot(g)[:2])),
    "nodes_aiot": NodeField("NODES(A/I/O/T)", lambda g: "{}/{}/{}/{}".format(*_aiot(g))),
    "nodelist": NodeField("NODELIST", lambda g: _nodelist(g, lambda n: n.name), kind="nodes"),
    "hostnames": NodeField("HOSTNAMES", lambda g: _nodelist(g, lambda n: n.hostname or n.name),
                           kind="nodes"),
    "node_addr": NodeField("NODE_ADDR", lambda g: _nodelist(g, lambda n: n.address or n.name),
                           kind="nodes"),
    "state_compact": NodeField("STATE", lambda g: _first(g, node_state_compact) or "n/a",
                               per_node=node_state_long),
    "state_long": NodeField("STATE", lambda g: _first(g, node_state_long) or "n/a",
                            per_node=node_state_long),
    "state_complete": NodeField("STATECOMPLETE", lambda g: _first(g, node_state_complete),
                                per_node=node_state_complete),
    "cpus": NodeField("CPUS", lambda g: _min_plus(n.cpus for n in g.nodes)),
    "cpus_state": NodeField("CPUS(A/I/O/T)", _cpus_aiot),
    "cpu_load": NodeField("CPU_LOAD", lambda g: _range((n.cpu_load for n in g.nodes), "{:.2f}")),
    "memory": NodeField("MEMORY", lambda g: _min_plus(n.real_memory_mb for n in g.nodes)),
    "alloc_mem": NodeField("ALLOCMEM", lambda g: _min_plus(n.alloc_memory_mb for n in g.nodes)),
    "free_mem": NodeField("FREE_MEM", lambda g: _range(n.free_memory_mb for n in g.nodes)),
    "disk": NodeField("TMP_DISK", lambda g: _min_plus(n.tmp_disk_mb for n in g.nodes)),
    "weight": NodeField("WEIGHT", lambda g: _min_plus(n.weight for n in g.nodes)),
    "sockets": NodeField("SOCKETS", lambda g: _min_plus(n.sockets for n in g.nodes)),
    "cores": NodeField("CORES", lambda g: _min_plus(n.cores_per_socket for n in g.nodes)),
    "threads": NodeField("THREADS", lambda g: _min_plus(n.threads_per_core for n in g.nodes)),
    "sct": NodeField("S:C:T", lambda g: ":".join((
        _min_plus(n.sockets for n in g.nodes),
        _min_plus(n.cores_per_socket for n in g.nodes),
        _min_plus(n.threads_per_core for n in g.nodes)))),
    "features": NodeField("AVAIL_FEATURES", lambda g: _first(g, lambda n: n.features or "(null)"),
                          per_node=lambda n: n.features),
    "features_act": NodeField("ACTIVE_FEATURES", lambda g: _first(
        g, lambda n: n.features or "(null)"), per_node=lambda n: n.features),
    "gres": NodeField("GRES", lambda g: _first(g, lambda n: n.gres or "(null)"),
                      per_node=lambda n: n.gres),
    "gres_used": NodeField("GRES_USED", lambda g: _first(g, lambda n: n.gres_used or "(null)"),
                           per_node=lambda n: n.gres_used),
    "reason": NodeField("REASON", lambda g: _first(g, lambda n: n.reason or "none"),
                        per_node=lambda n: n.reason),
    "user": NodeField("USER", lambda g: _first(g, lambda n: _reason_user(n, False)),
                      per_node=lambda n: n.reason_uid),
    "user_long": NodeField("USER", lambda g: _first(g, lambda n: _reason_user(n, True)),
                           per_node=lambda n: n.reason_uid),
    "timestamp": NodeField("TIMESTAMP", lambda g: _first(
        g, lambda n: units.format_timestamp(n.reason_time)), per_node=lambda n: n.reason_time),
    "version": NodeField("VERSION", lambda g: _first(g, lambda n: n.version or "N/A"),
                         per_node=lambda n: n.version),
    "oversubscribe": NodeField("OVERSUBSCRIBE", lambda g: _part_attr(
        g, lambda p: p.over_subscribe or "NO")),
    "root": NodeField("ROOT", lambda g: _part_attr(g, lambda p: "no")),
    "groups": NodeField("GROUPS", lambda g: _part_attr(g, lambda p: "all")),
    "size": NodeField("JOB_SIZE", lambda g: _part_attr(
        g, lambda p: f"{max(1, p.min_nodes)}-{p.max_nodes or 'infinite'}")),
    "prio_tier": NodeField("PRIO_TIER", lambda g: _part_attr(g, lambda p: str(p.priority_tier))),
    "prio_job_factor": NodeField("PRIO_JOB_FACTOR", lambda g: _part_attr(
        g, lambda p: str(p.priority_job_factor))),
    "preempt_mode": NodeField("PREEMPT_MODE", lambda g: _part_attr(g, lambda p: "off")),
    "alloc_nodes": NodeField("ALLOCNODES", lambda g: _part_attr(g, lambda p: "all")),
}  # fmt: skip

# With -e/--exact these numeric fields split groups instead of showing "min+".
_EXACT_PER_NODE: dict[str, Callable[[NodeInfo], object]] = {
    "cpus": lambda n: n.cpus, "memory": lambda n: n.real_memory_mb,
    "disk": lambda n: n.tmp_disk_mb, "weight": lambda n: n.weight,
    "sct": lambda n: (n.sockets, n.cores_per_socket, n.threads_per_core),
}  # fmt: skip

LETTERS: dict[str, str] = {
    "a": "available", "A": "nodes_ai", "b": "features_act", "c": "cpus", "C": "cpus_state",
    "d": "disk", "D": "nodes", "e": "free_mem", "E": "reason", "f": "features",
    "F": "nodes_aiot", "g": "groups", "G": "gres", "h": "oversubscribe", "H": "timestamp",
    "I": "prio_job_factor", "l": "time", "L": "default_time", "m": "memory",
    "M": "preempt_mode", "n": "hostnames", "N": "nodelist", "o": "node_addr",
    "O": "cpu_load", "p": "prio_tier", "P": "partition", "R": "partition_name",
    "r": "root", "s": "size", "S": "alloc_nodes", "t": "state_compact", "T": "state_long",
    "u": "user", "U": "user_long", "v": "version", "w": "weight", "X": "sockets",
    "Y": "cores", "Z": "threads", "z": "sct",
}  # fmt: skip

LONG_NAMES: dict[str, str] = {
    "partition": "partition", "partitionname": "partition_name", "available": "available",
    "time": "time", "defaulttime": "default_time", "nodes": "nodes", "nodelist": "nodelist",
    "nodehost": "hostnames", "nodeaddr": "node_addr", "statecompact": "state_compact",
    "statelong": "state_long", "statecomplete": "state_complete", "cpus": "cpus",
    "cpusstate": "cpus_state", "cpusload": "cpu_load", "memory": "memory",
    "allocmem": "alloc_mem", "freemem": "free_mem", "gres": "gres", "gresused": "gres_used",
    "features": "features",
    "features_act": "features_act", "reason": "reason", "user": "user",
    "userlong": "user_long", "timestamp": "timestamp", "weight": "weight",
    "nodeaiot": "nodes_aiot", "nodeai": "nodes_ai", "socketcorethread": "sct",
    "sockets": "sockets", "cores": "cores", "threads": "threads",
    "oversubscribe": "oversubscribe", "preemptmode": "preempt_mode",
    "prioritytier": "prio_tier", "priorityjobfactor": "prio_job_factor", "root": "root",
    "size": "size", "disk": "disk", "version": "version", "groups": "groups",
}  # fmt: skip

# ----------------------------------------------------------------------------- parsing


def parse_format(fmt: str) -> LineFormat:
    """Parse ``-o/--format``; an unknown letter prints as written (Slurm 22.05 has no ``%#``)."""
    return parse_percent_format(fmt, LETTERS, "node", invalid="literal")


def parse_long_format(fmt: str, lenient: bool = False) -> LineFormat:
    """Parse ``-O/--Format``; *lenient* (what users give, as Slurm's sinfo reads it): a name it
    does not know becomes a column of its suffix alone, listed in ``unknown``."""
    parsed = parse_name_format(fmt, LONG_NAMES, "node", lenient=lenient)
    if not parsed.unknown:
        return parsed
    return parsed._replace(columns=tuple(c._replace(width=None) if not c.key else c for c in parsed.columns))


def _computed(fmt: LineFormat, keys: frozenset[str]) -> LineFormat:
    cols = tuple(c._replace(computed=True) if c.key in keys else c for c in fmt.columns)
    return LineFormat(fmt.prefix, cols)


def view_format(
    *, node_oriented: bool = False, long: bool = False, summarize: bool = False,
    list_reasons: bool = False,
) -> LineFormat:
    """The built-in format for a combination of ``-N``, ``-l``, ``-s``, ``-R``."""
    text = view_format_text(node_oriented=node_oriented, long=long, summarize=summarize, list_reasons=list_reasons)
    if list_reasons:
        return parse_long_format(text)
    if node_oriented:
        return _computed(parse_long_format(text), frozenset({"partition", "nodelist"}))
    return _computed(parse_long_format(text), frozenset({"partition"}))


def view_format_text(*, node_oriented: bool = False, long: bool = False, summarize: bool = False,
                     list_reasons: bool = False) -> str:
    """The built-in format as an ``-O`` string (what ``sinfo -v`` shows as its format)."""
    if list_reasons:
        return REASONS_LONG_FORMAT if long else REASONS_FORMAT
    if node_oriented:
        return NODE_LONG_FORMAT if long else NODE_FORMAT
    return SUMMARIZE_FORMAT if summarize else LONG_FORMAT if long else DEFAULT_FORMAT


# ----------------------------------------------------------------------------- rows


def _natural_key(name: str) -> list[object]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _members(part: PartitionInfo, by_name: dict[str, NodeInfo]) -> list[NodeInfo]:
    if part.nodes:
        names: Iterable[str] = part.nodes
    elif part.node_expr:
        names = hostlist.expand(part.node_expr)
    else:
        names = [n for n, node in by_name.items() if part.name in node.partitions]
    return [by_name[n] for n in names if n in by_name]


def _match_key(node: NodeInfo, fmt: LineFormat, exact: bool) -> tuple[object, ...]:
    key: list[object] = []
    for col in fmt.columns:
        per_node = FIELDS[col.key].per_node or (_EXACT_PER_NODE.get(col.key) if exact else None)
        if per_node is not None:
            key.append(per_node(node))
    return tuple(key)


def partition_groups(
    nodes: Sequence[NodeInfo], partitions: Sequence[PartitionInfo], fmt: LineFormat,
    *, exact: bool = False,
) -> list[NodeGroup]:
    """Rows of the partition views: partitions in the given (slurm.conf) order, then
    groups of nodes agreeing on the shown per-node fields, by state descending."""
    by_name = {n.name: n for n in nodes}
    rows: list[NodeGroup] = []
    for part in partitions:
        groups: dict[tuple[object, ...], list[NodeInfo]] = {}
        for node in _members(part, by_name):
            groups.setdefault(_match_key(node, fmt, exact), []).append(node)
        ordered = sorted(groups.values(), key=lambda g: state_rank(g[0]), reverse=True)
        rows.extend(NodeGroup(part, tuple(g)) for g in ordered)
        if not groups:   # a partition without (matching) nodes: one row of 0 nodes, state n/a
            rows.append(NodeGroup(part, ()))
    return rows


def node_groups(
    nodes: Sequence[NodeInfo], partitions: Sequence[PartitionInfo]
) -> list[NodeGroup]:
    """Rows of ``-N`` views: one per node x partition, by node name."""
    by_name = {n.name: n for n in nodes}
    pairs: dict[str, list[PartitionInfo]] = {n.name: [] for n in nodes}
    for part in partitions:
        for node in _members(part, by_name):
            pairs[node.name].append(part)
    rows: list[NodeGroup] = []
    for name in sorted(pairs, key=_natural_key):
        parts: list[PartitionInfo | None] = list(pairs[name]) or [None]
        rows.extend(NodeGroup(p, (by_name[name],)) for p in parts)
    return rows


def reason_groups(nodes: Sequence[NodeInfo], fmt: LineFormat) -> list[NodeGroup]:
    """Rows of ``-R``: nodes that are down/drained/failed with a reason, grouped by it."""
    groups: dict[tuple[object, ...], list[NodeInfo]] = {}
    for node in sorted(nodes, key=lambda n: _natural_key(n.name)):
        down = (node.state or "").upper() == "DOWN" or _flags(node) & {"DRAIN", "FAIL"}
        if node.reason and down:
            groups.setdefault(_match_key(node, fmt, False), []).append(node)
    return [NodeGroup(None, tuple(g)) for g in groups.values()]


# ----------------------------------------------------------------------------- render


def _widths(fmt: LineFormat, cells: list[list[str]]) -> list[int | None]:
    widths: list[int | None] = []
    for i, col in enumerate(fmt.columns):
        if col.computed:
            longest = max((len(row[i]) for row in cells), default=0)
            widths.append(max(MIN_COMPUTED_WIDTH, longest))
        else:
            widths.append(col.width)
    return widths


def render_groups(fmt: LineFormat, groups: Sequence[NodeGroup], *, header: bool = True
                  ) -> list[str]:
    """Header (unless not *header*) and one line per group."""
    cells = [[FIELDS[c.key].get(g) for c in fmt.columns] for g in groups]
    widths = _widths(fmt, cells)
    lines: list[str] = []
    if header:
        parts = [fmt.prefix]
        for col, width in zip(fmt.columns, widths):
            parts += [render_cell(FIELDS[col.key].header, width, col.right), col.suffix]
        lines.append("".join(parts))
    for row in cells:
        parts = [fmt.prefix]
        for col, width, value in zip(fmt.columns, widths, row):
            truncate = FIELDS[col.key].kind != "nodes"
            parts += [render_cell(value, width, col.right, truncate), col.suffix]
        lines.append("".join(parts))
    return lines


def render_sinfo(
    nodes: Sequence[NodeInfo],
    partitions: Sequence[PartitionInfo],
    fmt: LineFormat | None = None,
    *,
    node_oriented: bool = False,
    long: bool = False,
    summarize: bool = False,
    list_reasons: bool = False,
    header: bool = True,
    exact: bool = False,
    now: float = 0,
    dated: bool = False,
    arrange: Callable[[list[NodeGroup]], list[NodeGroup]] | None = None,
) -> list[str]:
    """All sinfo output lines. *fmt* None = the built-in view for the flags; the date
    line is printed with ``-l`` or when *dated* (-i, -v), unless ``header`` is False.
    *arrange* orders the rows (-S) instead of the view's own order."""
    if fmt is None:
        fmt = view_format(node_oriented=node_oriented, long=long, summarize=summarize,
                          list_reasons=list_reasons)
    if list_reasons:
        groups = reason_groups(nodes, fmt)
    elif node_oriented:
        groups = node_groups(nodes, partitions)
    else:
        groups = partition_groups(nodes, partitions, fmt, exact=exact)
    if arrange is not None:
        groups = arrange(groups)
    lines = render_groups(fmt, groups, header=header)
    if header and (long or dated):
        lines.insert(0, date_line(now))
    return lines
