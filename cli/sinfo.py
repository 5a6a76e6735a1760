"""sinfo: nodes and partitions as the controller sees them."""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

from pyslurm_common.rpc import messages as pb

from . import client, sinfo_filters, sinfo_format
from .app import die, run
from .option_tables import sinfo as spec
from .query_command import QueryValues, data_output, expand_hosts, iterate_seconds, parse, print_document, show_all
from .squeue_format import FormatError, date_line

PROG = "sinfo"


def sinfo(args: Sequence[str]) -> None:
    """View information about nodes and partitions."""
    values, _operands = parse(spec, args)   # sinfo ignores operands, as Slurm's does
    kind = data_output(values)
    if kind:   # every node, as Slurm 22.05's sinfo prints them (its filters do not apply)
        from . import squeue_json

        print_document(squeue_json.nodes_document(client.controller("GetNodes", pb.Empty(), pb.NodeList).nodes), kind)
        return
    if values.get("long") and values.get("format"):
        print("sinfo: fatal: Options -o(--format) and -l(--long) are mutually exclusive. "
              "Please remove one and retry.", file=sys.stderr)
        raise SystemExit(1)
    if values.get("all") and values.source("all") == "command line" and \
            values.get("partition") is not None and values.source("partition") == "command line":
        die("Conflicting options, -a and -p, specified. Please choose one or the other.")
    if values.get("clusters") is not None:
        from .cluster_option import check_clusters, this_cluster

        check_clusters(PROG, values["clusters"], this_cluster())
    view = View(values)
    iterate = _iterate(values)
    if values.get("verbose"):
        sys.stdout.write(view.options_block())
    while True:
        view.print_once(dated=bool(iterate or values.get("verbose")))
        if not iterate:
            return
        sys.stdout.write("\n")
        sys.stdout.flush()
        time.sleep(iterate)


def _iterate(values: QueryValues) -> int:
    text = values.get("iterate")
    return 0 if text is None else iterate_seconds(text, f"sinfo: error: Error: invalid entry for --iterate={text}")


class View:
    """One sinfo report: which partitions and nodes, in which format and order."""

    def __init__(self, values: QueryValues) -> None:
        self.values = values
        # -o and -O set one format, the last given; any -O makes it read by names, as in Slurm's sinfo
        given = [(dest, str(value)) for dest, value in values.sequence if dest in ("format", "Format")]
        self.format_text = given[-1][1] if given else os.environ.get("SINFO_FORMAT")
        by_names = any(dest == "Format" for dest, _value in given)
        try:
            self.line_format = (None if not self.format_text
                                else sinfo_format.parse_long_format(self.format_text, lenient=True) if by_names
                                else sinfo_format.parse_format(self.format_text))
        except FormatError as exc:
            die(str(exc))
        for name in self.line_format.unknown if self.line_format and by_names else ():
            # a name Slurm does not know: its error, then a column of nothing but its suffix
            print(f"{PROG}: error: Invalid job format specification: {name}", file=sys.stderr)
        for letter in self.line_format.unknown if self.line_format and not by_names else ():
            # Slurm's sinfo writes these without its "sinfo: error: " prefix, the letter by %c
            # (a NUL where the piece ends before one)
            print(f"Invalid node format specification: {letter or chr(0)}", file=sys.stderr)
        # -a on the command line clears a SINFO_PARTITION list (both on the command line: refused above)
        cleared = values.get("all") and values.source("all") == "command line"
        self.partitions = None if values.get("partition") is None or cleared else set(values["partition"].split(","))
        self.show_all = show_all(values, "partition")
        try:
            states = sinfo_filters.parse_states(values["states"]) if values.get("states") else None
        except sinfo_filters.StateError as exc:
            die(f'Bad state string: "{exc}"', f"valid states: {sinfo_filters.VALID_STATES}")
        self.filter = sinfo_filters.NodeFilter(
            names=_node_names(values.get("nodes")), states=states,
            dead=bool(values.get("dead")), responding=bool(values.get("responding")))

    def print_once(self, dated: bool) -> None:
        v = self.values
        header = not v.get("noheader")
        lines = [date_line(time.time())] if header and dated and v.get("reservation") else []
        if v.get("clusters") is not None and header:
            from .cluster_option import this_cluster

            lines.append(f"CLUSTER: {this_cluster()}")
        if v.get("reservation"):
            lines += _reservation_report(header)
        else:
            nodes = [n for n in client.controller("GetNodes", pb.Empty(), pb.NodeList).nodes if self.filter.keeps(n)]
            parts = list(client.controller("GetPartitions", pb.PartitionQuery(show_all=self.show_all),
                                           pb.PartitionList).partitions)
            if self.partitions is not None:
                parts = [p for p in parts if p.name in self.partitions]
            arrange = None
            if v.get("sort"):
                def arrange(groups: list[sinfo_format.NodeGroup]) -> list[sinfo_format.NodeGroup]:
                    return sinfo_filters.sort_groups(groups, v["sort"], parts)
            lines += sinfo_format.render_sinfo(
                nodes, parts, self.line_format, node_oriented=bool(v.get("Node")), long=bool(v.get("long")),
                summarize=bool(v.get("summarize")), list_reasons=bool(v.get("list_reasons")), header=header,
                exact=bool(v.get("exact")), now=time.time(), dated=dated, arrange=arrange)
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()

    def options_block(self) -> str:
        """-v: the two settings blocks Slurm's sinfo prints first (its _print_options)."""
        v = self.values

        def flag(dest: str) -> str:
            return "true" if v.get(dest) else "false"

        views = {"node_oriented": bool(v.get("Node")), "long": bool(v.get("long")),
                 "summarize": bool(v.get("summarize")), "list_reasons": bool(v.get("list_reasons"))}
        line_format = self.line_format or sinfo_format.view_format(**views)
        # Slurm marks node and partition fields "to size later" only in its built-in formats
        own_format = self.format_text
        keys = {column.key for column in line_format.columns}
        rows = [
            ("dead", flag("dead")), ("exact", "1" if v.get("exact") else "0"), ("filtering", "true" if
             self.filter.active or self.partitions is not None else "false"),
            ("format", own_format or sinfo_format.view_format_text(**views)),
            ("iterate", str(_iterate(v))),
            ("long", flag("long")), ("no_header", flag("noheader")),
            ("node_field", "true" if own_format is None and views["node_oriented"] and not views["summarize"]
             else "false"),
            ("node_format", flag("Node")), ("nodes", v.get("nodes") or "n/a"),
            ("part_field", "false" if own_format is not None else "true"),
            ("partition", v.get("partition") or "n/a"),
            ("responding", flag("responding")), ("states", v.get("states") or "(null)"),
            ("sort", v.get("sort") or "(null)"), ("summarize", flag("summarize")),
            ("verbose", str(v.get("verbose", 0))),
        ]
        shown = [f"{name:<11} = {value}" for name, value in rows]
        for label, fields in _FLAG_LINES:
            on = bool(keys & set(fields)) or (label.startswith("reservation_flag") and bool(v.get("reservation"))) \
                or (label.startswith("all_flag") and self.show_all)
            shown.append(f"{label}{'true' if on else 'false'}")
        rule = "-----------------------------"
        return "\n".join([rule, *shown[:len(rows)], rule, *shown[len(rows):], rule]) + "\n\n"


# sinfo -v's second block: Slurm's label (its spacing kept) and the fields that set each flag.
_FLAG_LINES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("all_flag        = ", ()), ("alloc_mem_flag  = ", ("alloc_mem",)), ("avail_flag      = ", ("available",)),
    ("comment_flag    = ", ()), ("cpus_flag       = ", ("cpus", "cpus_state")),
    ("default_time_flag =", ("default_time",)), ("disk_flag       = ", ("disk",)), ("extra_flag      = ", ()),
    ("features_flag   = ", ("features",)), ("features_flag_act = ", ("features_act",)),
    ("groups_flag     = ", ("groups",)), ("gres_flag       = ", ("gres",)), ("gres_used_flag  = ", ("gres_used",)),
    ("job_size_flag   = ", ("size",)), ("max_time_flag   = ", ("time",)), ("memory_flag     = ", ("memory",)),
    ("partition_flag  = ", ("partition", "partition_name")), ("port_flag       = ", ()),
    ("priority_job_factor_flag   = ", ("prio_job_factor",)), ("priority_tier_flag   = ", ("prio_tier",)),
    ("reason_flag     = ", ("reason",)), ("reason_timestamp_flag = ", ("timestamp",)),
    ("reason_user_flag = ", ("user", "user_long")), ("reservation_flag = ", ()), ("root_flag       = ", ("root",)),
    ("oversubscribe_flag      = ", ("oversubscribe",)), ("state_flag      = ", ("state_compact", "state_long")),
    ("statecomplete_flag = ", ("state_complete",)), ("weight_flag     = ", ("weight",)),
)
def _node_names(text: str | None) -> frozenset[str] | None:
    if text is None:
        return None
    from pyslurm_common.hostlist import HostlistError

    try:
        return frozenset(expand_hosts(text))
    except HostlistError:
        die(f"'{text}' invalid entry for --nodes")


def _reservation_report(header: bool) -> list[str]:
    """-T: sinfo's reservation table; as in Slurm, it ignores the node and partition options."""
    from .reservations import sinfo_lines

    found = client.controller("GetReservations", pb.Empty(), pb.ReservationList).reservations
    if not found:
        return ["No reservations in the system"]
    return sinfo_lines(found, int(time.time()), header)


def main() -> None:
    run(PROG, sinfo)
