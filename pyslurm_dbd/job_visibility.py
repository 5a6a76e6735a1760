"""Whose jobs a sacct caller may see (Slurm's PrivateData=jobs and admin levels).

root, SlurmUser and users with an AdminLevel (Operator, Administrator) see every job. Everyone
else sees every user's jobs when asking for them (``-a`` or ``-u``) unless PrivateData hides
jobs; otherwise only their own. Pure.
"""
from __future__ import annotations

from pyslurm_common.rpc.dbd_pb2 import AccountingQuery


def visible_query(request: AccountingQuery, caller_name: str, sees_everyone: bool,
                  private_jobs: bool) -> AccountingQuery:
    """``request`` narrowed to what the caller may see."""
    query = AccountingQuery()
    query.CopyFrom(request)
    if sees_everyone:
        return query
    if private_jobs or not (request.all_users or request.users):
        del query.users[:]
        query.users.append(caller_name)
    return query
