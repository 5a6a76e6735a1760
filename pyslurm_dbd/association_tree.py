"""The association tree of one cluster: parent/child links and Slurm's listing order.

An account's association names its parent account; a user's association hangs below the
association of its account. ``tree_order`` lists associations the way ``sacctmgr show assoc``
does: depth first from ``root``, within each account its user associations (by user, then
partition) before its sub-accounts (by name). Pure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from pyslurm_dbd.association_models import AssociationRow


def _children(rows: Iterable[AssociationRow]) -> tuple[dict[tuple[str, str], list[AssociationRow]], list[AssociationRow]]:
    """Children of each (cluster, account) and the roots (account associations without parent)."""
    children: dict[tuple[str, str], list[AssociationRow]] = defaultdict(list)
    roots: list[AssociationRow] = []
    for row in rows:
        if row.user:
            children[(row.cluster, row.account)].append(row)
        elif row.parent_account:
            children[(row.cluster, row.parent_account)].append(row)
        else:
            roots.append(row)
    return children, roots


def _sort_key(row: AssociationRow) -> tuple[int, str, str]:
    return (0, row.user, row.partition) if row.user else (1, row.account, "")


def tree_order(rows: Iterable[AssociationRow]) -> list[AssociationRow]:
    """``rows`` depth first from each cluster's root; rows whose parent is missing come last."""
    rows = list(rows)
    children, roots = _children(rows)
    ordered: list[AssociationRow] = []

    def visit(row: AssociationRow) -> None:
        ordered.append(row)
        if not row.user:
            for child in sorted(children.get((row.cluster, row.account), ()), key=_sort_key):
                visit(child)

    for root in sorted(roots, key=lambda r: (r.cluster, r.account)):
        visit(root)
    seen = {id(row) for row in ordered}
    return ordered + [row for row in rows if id(row) not in seen]


def subtree(rows: Iterable[AssociationRow], top: AssociationRow) -> Iterator[AssociationRow]:
    """``top`` and every association below it (same cluster)."""
    children, _ = _children(row for row in rows if row.cluster == top.cluster)
    stack = [top]
    while stack:
        row = stack.pop()
        yield row
        if not row.user:
            stack.extend(children.get((row.cluster, row.account), ()))
