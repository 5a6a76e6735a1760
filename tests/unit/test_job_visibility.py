"""Whose jobs sacct shows (pyslurm_dbd.job_visibility): PrivateData=jobs and admin levels."""
from __future__ import annotations

import pytest

from pyslurm_common.rpc.dbd_pb2 import AccountingQuery
from pyslurm_dbd.job_visibility import visible_query


@pytest.mark.parametrize(("request_users", "all_users", "sees_everyone", "private", "shown"), [
    ([], False, False, False, ["alice"]),          # own jobs by default
    ([], True, False, False, []),                  # -a: everyone's
    (["bob"], False, False, False, ["bob"]),       # -u bob
    ([], True, False, True, ["alice"]),            # PrivateData=jobs: -a shows only one's own
    (["bob"], False, False, True, ["alice"]),
    ([], True, True, True, []),                    # operators and administrators see all
    (["bob"], False, True, True, ["bob"]),
    ([], False, True, False, []),                  # root/SlurmUser/operators: no user filter unless asked
])  # fmt: skip
def test_visible_query(request_users: list[str], all_users: bool, sees_everyone: bool, private: bool,
                       shown: list[str]) -> None:
    request = AccountingQuery(users=request_users, all_users=all_users, job_ids=[5])
    query = visible_query(request, "alice", sees_everyone, private)
    assert list(query.users) == shown
    assert list(query.job_ids) == [5]
    assert list(request.users) == request_users  # the request itself is left alone
