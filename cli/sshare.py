"""sshare: the fairshare tree (shares, usage, fairshare factor) as the controller computes it."""
from __future__ import annotations

import getpass
import sys

import click

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, print_fields, sshare_fields
from .app import die, run, version_option

PROG = "sshare"


@click.command(context_settings={"help_option_names": ["--help"]})
@version_option
@click.option("-a", "--all", "all_users", is_flag=True)
@click.option("-A", "--accounts")
@click.option("-u", "--users")
@click.option("-U", "--Users", "users_only", is_flag=True)
@click.option("-l", "--long", "long_listing", is_flag=True)
@click.option("-m", "--partition", "partitions", is_flag=True)
@click.option("-n", "--noheader", is_flag=True)
@click.option("-p", "--parsable", is_flag=True)
@click.option("-P", "--parsable2", is_flag=True)
@click.option("-o", "--format", "fmt")
def sshare(all_users: bool, accounts: str | None, users: str | None, users_only: bool, long_listing: bool,
           partitions: bool, noheader: bool, parsable: bool, parsable2: bool, fmt: str | None) -> None:
    """Tool for listing the shares of associations to a cluster."""
    # Without -a or -u only the caller's own user associations are listed (accounts always are).
    names = [u for u in (users or "").split(",") if u] or ([] if all_users else [getpass.getuser()])
    query = pb.SharesQuery(accounts=[a for a in (accounts or "").split(",") if a], users=names)
    try:
        reply = client.controller("GetShares", query, pb.SharesReply)
    except SlurmError as exc:
        die(f"Problem with shares request: {exc.strerror}")
    widths = {name: field.width for name, field in sshare_fields.FIELDS.items()}
    try:
        columns = print_fields.parse_field_list(
            fmt or sshare_fields.default_fields(reply.fair_tree, long_listing, partitions), widths)
    except print_fields.FormatError as exc:
        die(str(exc))
    rows = [r for r in reply.shares if r.user or not users_only]
    layout = (print_fields.Parsable.NO_TRAILING if parsable2 else
              print_fields.Parsable.TRAILING if parsable else print_fields.Parsable.NONE)
    lines = print_fields.render_records(sshare_fields.FIELDS, columns, rows, parsable=layout, header=not noheader)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def main() -> None:
    run(PROG, sshare)
