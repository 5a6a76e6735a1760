"""-M/--clusters on a single-cluster installation: names other than this cluster's are Slurm's
"No cluster ... known by database" errors; if none of them is this cluster the command ends as
Slurm's does when no named cluster can be reached. `all` names every cluster, so this one."""
from __future__ import annotations

import sys

from .app import die


def check_clusters(prog: str, text: str, ours: str) -> None:
    known = False
    for name in (n for n in text.split(",") if n):
        if name.lower() in (ours.lower(), "all"):
            known = True
        else:
            print(f"{prog}: error: No cluster '{name}' known by database.", file=sys.stderr)
    if not known:
        die(f"'{text}' can't be reached now, or it is an invalid entry for --cluster.  "
            "Use 'sacctmgr list clusters' to see available clusters.")


def this_cluster() -> str:
    from . import client

    return client.cluster_config().cluster_name
