"""sinfo: nodes and partitions as the controller sees them."""
from __future__ import annotations

import os
import sys
import time

import click

from pyslurm_common.rpc import messages as pb

from . import client, sinfo_format
from .app import die, run, version_option
from .squeue_format import FormatError

PROG = "sinfo"


@click.command(context_settings={"help_option_names": ["--help"]})
@version_option
@click.option("-o", "--format", "fmt")
@click.option("-O", "--Format", "long_fmt")
@click.option("-N", "--Node", "node_oriented", is_flag=True)
@click.option("-l", "--long", "long_listing", is_flag=True)
@click.option("-s", "--summarize", is_flag=True)
@click.option("-R", "--list-reasons", is_flag=True)
@click.option("-h", "--noheader", is_flag=True)
@click.option("-e", "--exact", is_flag=True)
@click.option("-p", "--partition")
# Slurm's -a also shows hidden partitions; pyslurm has none, so every partition is listed.
@click.option("-a", "--all", "all_partitions", is_flag=True)
@click.option("-T", "--reservation", "reservation_list", is_flag=True)
def sinfo(fmt: str | None, long_fmt: str | None, node_oriented: bool, long_listing: bool,
          summarize: bool, list_reasons: bool, noheader: bool, exact: bool, partition: str | None,
          all_partitions: bool, reservation_list: bool) -> None:
    """View information about nodes and partitions."""
    if reservation_list:   # as in Slurm, -T ignores the node and partition options
        from .reservations import sinfo_lines

        found = client.controller("GetReservations", pb.Empty(), pb.ReservationList).reservations
        sys.stdout.write("".join(f"{line}\n" for line in sinfo_lines(found, int(time.time()), not noheader)))
        return
    fmt = fmt or os.environ.get("SINFO_FORMAT")
    try:
        line_format = (sinfo_format.parse_format(fmt) if fmt
                       else sinfo_format.parse_long_format(long_fmt) if long_fmt else None)
    except FormatError as exc:
        die(str(exc))
    nodes = client.controller("GetNodes", pb.Empty(), pb.NodeList).nodes
    parts = client.controller("GetPartitions", pb.Empty(), pb.PartitionList).partitions
    if partition:
        wanted = set(partition.split(","))
        parts = [p for p in parts if p.name in wanted]
    lines = sinfo_format.render_sinfo(
        list(nodes), list(parts), line_format, node_oriented=node_oriented, long=long_listing,
        summarize=summarize, list_reasons=list_reasons, header=not noheader, exact=exact,
        now=time.time())
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def main() -> None:
    run(PROG, sinfo)
