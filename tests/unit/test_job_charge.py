"""The core under AccountingStorageEnforce: accounts and QOS at submission, limits in the
scheduling pass, and `scontrol update jobid=N Account=/QOS=` (permission, pending only, checked
as at submission, journaled)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.builders import ALICE, BOB, ROOT, error_of, make_manager, schedule, submit

from pyslurm_common.errors import Strerror
from pyslurm_ctld.model.associations import (AccountingUser, Association, AssociationLimits, AssociationSnapshot, Qos,
                                             QosLimits)
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.job_updates import charge_change
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.events import JobChargeChanged, event_from_dict, event_to_dict
from pyslurm_ctld.model.job import JobState, Reason

ENFORCE = "AccountingStorageEnforce=associations,limits,qos\n"


def _assoc(id: int, account: str, user: str = "", qos: tuple[str, ...] = ("normal",)) -> Association:
    return Association(id, "lab", account, user, "", "" if account == "root" and not user else "root", 1, None,
                       AssociationLimits(), qos, "")


def _manager(tmp_path: Path) -> ClusterState:
    mgr = make_manager(tmp_path, ENFORCE)
    mgr.associations = AssociationSnapshot(
        "v:1", (_assoc(1, "root"), _assoc(2, "physics"), _assoc(3, "physics", "alice", ("normal", "high", "short")),
                _assoc(4, "chem"), _assoc(5, "chem", "alice"), _assoc(6, "chem", "bob")),
        {"normal": Qos(1, "normal"), "high": Qos(2, "high", limits=QosLimits(max_jobs_per_user=1)),
         "short": Qos(3, "short", limits=QosLimits(max_wall=15))},
        {"alice": AccountingUser("alice", "physics", "None"), "bob": AccountingUser("bob", "chem", "None")})
    return mgr


def test_submission_charges_the_default_account_and_caps_a_missing_time_limit(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    job = submit(mgr, qos="short")
    assert (job.request.account, job.request.qos, job.request.time_limit_min) == ("physics", "short", 15)
    assert submit(mgr).request.time_limit_min == 60      # the partition's MaxTime, under no MaxWall
    assert error_of(submit, mgr, account="chem", qos="high").strerror == Strerror.INVALID_QOS
    assert error_of(submit, mgr, uid=ROOT).strerror == Strerror.INVALID_ACCOUNT


def test_scheduling_pass_holds_a_job_over_its_qos_limit(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    first, second = submit(mgr, qos="high"), submit(mgr, qos="high")
    schedule(mgr)
    assert mgr.jobs[first.job_id].state is JobState.RUNNING
    assert mgr.jobs[second.job_id].reason is Reason.QOS_MAX_JOBS_PER_USER


def test_update_of_account_and_qos(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    job = submit(mgr)
    event = charge_change(mgr, job.job_id, "CHEM", None, ALICE)
    assert event == JobChargeChanged(job.job_id, "chem", "normal")
    assert event_from_dict(event_to_dict(event)) == event          # journaled and replayed as it was
    apply(mgr, event)
    assert (mgr.jobs[job.job_id].request.account, mgr.jobs[job.job_id].request.qos) == ("chem", "normal")
    assert error_of(charge_change, mgr, job.job_id, None, "high", ALICE).strerror == Strerror.INVALID_QOS
    assert error_of(charge_change, mgr, job.job_id, "nosuch", None, ALICE).strerror == Strerror.INVALID_ACCOUNT
    assert error_of(charge_change, mgr, job.job_id, "chem", None, BOB).strerror == Strerror.ACCESS_DENIED
    assert charge_change(mgr, job.job_id, "chem", None, BOB, operator=True).account == "chem"
    assert mgr.associations.is_operator("alice") is False
    mgr.associations = dataclasses.replace(mgr.associations, users={
        **mgr.associations.users, "bob": AccountingUser("bob", "chem", "Operator")})
    assert mgr.associations.is_operator("bob")
    assert charge_change(mgr, job.job_id, "physics", "high", ROOT) == JobChargeChanged(job.job_id, "physics", "high")
    schedule(mgr)
    assert error_of(charge_change, mgr, job.job_id, None, "normal", ALICE).strerror == Strerror.NOT_PENDING
