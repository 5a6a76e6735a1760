"""AccountingStorageEnforce at submission: association, default account, QOS (association_checks)
and the enforce words in slurm.conf."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from test_scheduler import BASE_REQUEST

from pyslurm_common.conf_records import PartitionConfig
from pyslurm_common.config import ConfigError, load_config
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_ctld.sched.association_checks import charge, orphaned, standing
from pyslurm_ctld.model.associations import (EMPTY, AccountingUser, Association, AssociationLimits, AssociationSnapshot,
                                             Qos)
from pyslurm_ctld.model.job import Job, JobId, JobState, Reason

ENFORCE = frozenset({"associations", "limits", "qos"})


def parts(*names: str, **access: Any) -> list[PartitionConfig]:
    return [PartitionConfig(name=name, nodes=(), node_expr="", **access) for name in names]


def assoc(account: str, user: str = "", partition: str = "", parent: str = "root", qos: tuple[str, ...] = ("normal",),
          default_qos: str = "", id: int = 0) -> Association:
    return Association(id=id, cluster="lab", account=account, user=user, partition=partition,
                       parent_account="" if account == "root" and not user else parent, shares=1, priority=None,
                       limits=AssociationLimits(), qos=qos, default_qos=default_qos)


def snapshot() -> AssociationSnapshot:
    return AssociationSnapshot(
        version="v:1",
        associations=(assoc("root"), assoc("physics"), assoc("physics", "alice", qos=("normal", "high")),
                      assoc("chem"), assoc("chem", "alice", partition="gpu", qos=("high",), default_qos="high")),
        qos={"normal": Qos(1, "normal"), "high": Qos(2, "high", priority=10)},
        users={"alice": AccountingUser("alice", "physics", "None")})


def test_without_enforcement_nothing_is_refused_and_known_users_get_their_defaults() -> None:
    charged = charge(AssociationSnapshot(version=""), frozenset(), "bob", "", "", parts("debug"))
    assert (charged.account, charged.qos, charged.association) == ("", "", None)
    assert charge(snapshot(), frozenset({"nojobs"}), "bob", "Other", "x", parts("debug")).account == "Other"
    # Slurm looks the user up all the same: DefaultAccount and its QOS (squeue's Account/QOS
    # columns are filled), an account without an association gives way to the default one
    for account in ("", "nosuch", "Physics"):
        charged = charge(snapshot(), frozenset(), "alice", account, "", parts("debug"))
        assert (charged.account, charged.qos, charged.association) == ("physics", "normal", None)
    assert charge(snapshot(), frozenset(), "alice", "chem", "", parts("gpu")).qos == "high"


def test_a_user_without_association_is_refused() -> None:
    with pytest.raises(SlurmError) as exc:
        charge(snapshot(), ENFORCE, "bob", "", "", parts("debug"))
    assert exc.value.strerror == "Invalid account or account/partition combination specified"
    assert exc.value.detail == ""


def test_default_account_and_default_qos() -> None:
    charged = charge(snapshot(), ENFORCE, "alice", "", "", parts("debug"))
    assert (charged.account, charged.qos) == ("physics", "normal")
    assert charged.association is not None and charged.association.user == "alice"


def test_named_account_is_checked_per_partition() -> None:
    assert charge(snapshot(), ENFORCE, "alice", "CHEM", "", parts("gpu")).qos == "high"
    for partitions in (parts("debug"), parts("gpu", "debug")):
        with pytest.raises(SlurmError) as exc:
            charge(snapshot(), ENFORCE, "alice", "chem", "", partitions)
        assert exc.value.strerror == Strerror.INVALID_ACCOUNT


def test_qos_must_be_allowed_by_the_association_when_qos_is_enforced() -> None:
    assert charge(snapshot(), ENFORCE, "alice", "", "HIGH", parts("debug")).qos == "high"
    for qos in ("nosuch", "high"):
        with pytest.raises(SlurmError) as exc:
            charge(snapshot(), ENFORCE, "alice", "chem" if qos == "high" else "", "normal" if qos == "high" else qos,
                   parts("gpu") if qos == "high" else parts("debug"))
        assert exc.value.strerror == "Invalid qos specification"
    # associations only: the QOS is not checked
    assert charge(snapshot(), frozenset({"associations"}), "alice", "", "nosuch", parts("debug")).qos == "nosuch"


@pytest.mark.parametrize(("access", "account", "qos", "refusal"), [
    ({"allow_accounts": ("chem",)}, "physics", "normal", Strerror.INVALID_ACCOUNT),
    ({"allow_accounts": ("chem", "physics")}, "physics", "normal", None),
    ({"deny_accounts": ("physics",)}, "physics", "normal", Strerror.INVALID_ACCOUNT),
    ({"allow_qos": ("high",)}, "physics", "normal", Strerror.INVALID_QOS),
    ({"allow_qos": ("high",), "deny_qos": ("high",)}, "physics", "high", None),   # a deny list needs no allow list
    ({"deny_qos": ("high",)}, "physics", "high", Strerror.INVALID_QOS),
])
def test_partition_allow_and_deny_lists(access: dict[str, Any], account: str, qos: str,
                                        refusal: Strerror | None) -> None:
    for enforce in (ENFORCE, frozenset()):
        if refusal is None:
            assert charge(snapshot(), enforce, "alice", account, qos, parts("debug", **access)).account == account
            continue
        with pytest.raises(SlurmError) as exc:
            charge(snapshot(), enforce, "alice", account, qos, parts("debug", **access))
        assert exc.value.strerror == refusal


def test_standing_of_a_pending_job_follows_the_snapshot() -> None:
    snap = snapshot()
    assert standing(snap, ENFORCE, "alice", "physics", "high", "debug")[1] is None
    assert standing(snap, ENFORCE, "alice", "chem", "high", "debug") == (None, Reason.INVALID_ACCOUNT)
    assert standing(snap, ENFORCE, "alice", "physics", "gone", "debug")[1] is Reason.INVALID_QOS
    assert standing(snap, frozenset(), "bob", "", "", "debug") == (None, None)


def _conf(tmp_path: Path, enforce: str) -> Path:
    path = tmp_path / "slurm.conf"
    path.write_text(f"ClusterName=lab\nSlurmctldHost=h\nAccountingStorageEnforce={enforce}\n"
                    "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n")
    return path


@pytest.mark.parametrize(("written", "words"), [
    ("none", set()), ("associations", {"associations"}), ("limits", {"associations", "limits"}),
    ("QOS", {"associations", "qos"}), ("safe,nojobs", {"associations", "limits", "safe", "nojobs"}),
    ("all", {"associations", "limits", "qos", "safe", "wckeys"}),
])
def test_enforce_words_and_what_they_imply(tmp_path: Path, written: str, words: set[str]) -> None:
    assert load_config(_conf(tmp_path, written)).accounting_storage_enforce == words


def test_unknown_enforce_word_names_file_line_and_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"slurm.conf:3: invalid AccountingStorageEnforce value 'limitz'"):
        load_config(_conf(tmp_path, "associations,limitz"))


def test_partition_access_keys_are_read_from_slurm_conf(tmp_path: Path) -> None:
    path = tmp_path / "slurm.conf"
    path.write_text("ClusterName=lab\nSlurmctldHost=h\nNodeName=n1 CPUs=1\n"
                    "PartitionName=p Nodes=n1 AllowAccounts=Physics,chem DenyQos=scavenger QOS=PartCap\n"
                    "PartitionName=q Nodes=n1 AllowAccounts=ALL\n")
    p, q = load_config(path).partitions
    assert (p.allow_accounts, p.deny_accounts, p.allow_qos, p.deny_qos, p.qos) == (
        ("physics", "chem"), (), None, ("scavenger",), "partcap")
    assert (q.allow_accounts, q.qos) == (None, "")


def test_orphaned_jobs_are_those_whose_association_was_deleted() -> None:
    def job(job_id: int, account: str, state: JobState = JobState.PENDING, user: str = "alice") -> Job:
        return Job(job_id=JobId(job_id), request=dataclasses.replace(BASE_REQUEST, account=account, partition="gpu"),
                   uid=1000, gid=1000, user_name=user, group_name=user, submit_time=0, state=state)

    before = snapshot()
    after = dataclasses.replace(before, version="v:2", associations=tuple(
        a for a in before.associations if not (a.account == "chem" and a.user == "alice")))
    jobs = [job(1, "chem"), job(2, "physics"), job(3, "chem", JobState.RUNNING), job(4, "chem", JobState.COMPLETED),
            job(5, "", user="bob")]
    assert [j.job_id for j in orphaned(before, after, ENFORCE, jobs)] == [1, 3]
    assert orphaned(EMPTY, after, ENFORCE, jobs) == []             # the first snapshot deletes nothing
    assert orphaned(before, after, frozenset(), jobs) == []
