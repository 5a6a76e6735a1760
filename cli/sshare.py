"""sshare: the fairshare tree (shares, usage, fairshare factor) as the controller computes it."""
from __future__ import annotations

import getpass
import sys
from collections.abc import Sequence

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import client, print_fields, sshare_fields
from .app import die, run
from .option_tables import sshare as spec
from .query_command import all_or_listed, parse

PROG = "sshare"


def sshare(args: Sequence[str]) -> None:
    """Tool for listing the shares of associations to a cluster."""
    values, _operands = parse(spec, args)   # sshare ignores operands, as Slurm's does
    for dest, _value in values.sequence:
        if dest in ("getopt_q", "getopt_t"):   # in Slurm's optstring, handled by no case
            print(f"getopt error, returned {dest[-1]}", file=sys.stderr)
            raise SystemExit(1)
        if dest == "helpformat":               # acts where it stands, as Slurm's -e
            sys.stdout.write(sshare_fields.help_format())
            return
    if values.get("clusters") is not None:
        from .cluster_option import check_clusters, this_cluster

        check_clusters(PROG, values["clusters"], this_cluster())
    all_users, users = all_or_listed(values, "users", ("-1",), on=("all",))   # a later -u undoes -a, as in Slurm
    names = users or ([] if all_users else [getpass.getuser()])
    accounts = [a for a in (values.get("accounts") or "").split(",") if a]
    if values.get("verbose"):
        shown_users = ["all"] if all_users else names
        shown_accounts = accounts or ["all"]
        sys.stderr.write("Users requested:\n" + "".join(f"\t: {u}\n" for u in shown_users)
                         + "Accounts requested:\n" + "".join(f"\t: {a}\n" for a in shown_accounts))
    # Without -a or -u only the caller's own user associations are listed (accounts always are).
    query = pb.SharesQuery(accounts=accounts, users=names)
    try:
        reply = client.controller("GetShares", query, pb.SharesReply)
    except SlurmError as exc:
        die(f"Problem with shares request: {exc.strerror}")
    widths = {name: field.width for name, field in sshare_fields.FIELDS.items()}
    try:
        columns = print_fields.parse_field_list(
            values.get("format") or sshare_fields.default_fields(
                reply.fair_tree, bool(values.get("long")), bool(values.get("partition"))), widths)
    except print_fields.FormatError as exc:
        die(str(exc))
    rows = [r for r in reply.shares if r.user or not values.get("users_only")]
    layout = (print_fields.Parsable.NO_TRAILING if values.get("parsable2") else
              print_fields.Parsable.TRAILING if values.get("parsable") else print_fields.Parsable.NONE)
    lines = print_fields.render_records(sshare_fields.FIELDS, columns, rows, parsable=layout,
                                        header=not values.get("noheader"))
    if values.get("clusters") is not None:
        from .cluster_option import this_cluster

        lines.insert(0, f"CLUSTER: {this_cluster()}")
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")


def main() -> None:
    run(PROG, sshare)
