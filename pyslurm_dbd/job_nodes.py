"""sacct ``-N/--nodelist``: which nodes each job record ran on, kept searchable in SQL.

A job's ``nodes`` column holds its allocation as a hostlist (``n[1-3]``), which SQL cannot
search by node. So each record also keeps the names expanded and comma-framed in
``node_names`` (``,n1,n2,n3,``; ``""`` for a job that never got nodes): a job ran on node ``x``
exactly when that column contains ``,x,``. The store writes the column with every record and
schema version 9 fills it for the records written before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, or_

from pyslurm_common import hostlist


def node_names_key(nodes: str) -> str:
    """The ``node_names`` value of a job allocated the hostlist *nodes*."""
    if not nodes:
        return ""
    try:
        names = hostlist.expand(nodes)
    except hostlist.HostlistError:   # not a hostlist: the text is the one name it holds
        names = [nodes]
    return f",{','.join(names)},"


def ran_on_any(node_names: Any, wanted: Sequence[str]) -> ColumnElement[bool]:
    """Jobs whose ``node_names`` column names any of *wanted* (LIKE wildcards in names escaped)."""
    return or_(*(node_names.contains(f",{name},", autoescape=True) for name in wanted))
