"""The controller's association snapshot: what the accounting daemon serves (definitions of one
cluster, versions that wake a watcher), how the controller reads it into immutable records, and
its durable copy in StateSaveLocation."""
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyslurm_common.rpc_auth import Signer
from pyslurm_ctld.shell.association_cache import AssociationCache, _write_atomically, snapshot_from_message
from pyslurm_ctld.model.associations import SHARES_PARENT, AssociationSnapshot
from pyslurm_dbd import association_messages as messages
from pyslurm_dbd.admin import AssociationAdmin
from pyslurm_dbd.admin_requests import Caller, Setting
from pyslurm_dbd.association_queries import AssociationQueries
from pyslurm_dbd.association_versions import DefinitionVersions
from pyslurm_dbd.store import AccountingStore

ROOT = Caller("root", privileged=True)


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[tuple[AssociationAdmin, AssociationQueries]]:
    store = AccountingStore(f"sqlite:///{tmp_path / 'acct.sqlite'}")
    store.create_schema()
    admin = AssociationAdmin(store.sessions)
    admin.ensure_cluster("lab")
    admin.ensure_cluster("other")

    def change(action: str, entity: str, names: list[str], *settings: Setting) -> None:
        admin.change(ROOT, action, entity, names, [], list(settings), True)

    change("add", "qos", ["high"], Setting("Priority", "100"), Setting("MaxWall", "1:00:00"),
           Setting("MaxTRESPerUser", "cpu=4,gres/gpu=1"), Setting("MaxJobsPerUser", "2"),
           Setting("Flags", "DenyOnLimit"), Setting("Preempt", "normal"), Setting("PreemptMode", "requeue"),
           Setting("GraceTime", "30"), Setting("UsageFactor", "2"))
    change("add", "account", ["physics"], Setting("Cluster", "lab"), Setting("GrpTRES", "cpu=8"),
           Setting("MaxJobs", "3"), Setting("Fairshare", "40"))
    change("add", "account", ["theory"], Setting("Cluster", "lab"), Setting("Parent", "physics"),
           Setting("Fairshare", "parent"))
    change("add", "user", ["alice"], Setting("Account", "theory"), Setting("Cluster", "lab"),
           Setting("QOS", "normal,high"), Setting("DefaultQOS", "high"), Setting("MaxSubmitJobs", "5"))
    change("add", "user", ["alice"], Setting("Account", "physics"), Setting("Cluster", "lab"),
           Setting("Partition", "gpu"))
    yield admin, AssociationQueries(store.sessions)
    store.close()


def _snapshot(queries: AssociationQueries, version: str = "v:1") -> AssociationSnapshot:
    return snapshot_from_message(messages.state(queries.definitions("lab"), version))


def test_snapshot_holds_the_clusters_tree_with_limits_and_shares(lab: tuple[AssociationAdmin, AssociationQueries]) -> None:
    snap = _snapshot(lab[1])
    assert snap.version == "v:1"
    assert {a.cluster for a in snap.associations} == {"lab"}
    assert [(a.account, a.user, a.partition) for a in snap.associations] == [
        ("root", "", ""), ("root", "root", ""), ("physics", "", ""), ("physics", "alice", "gpu"),
        ("theory", "", ""), ("theory", "alice", "")]
    physics = snap.account("physics")
    assert physics is not None
    assert (physics.limits.grp_tres, physics.limits.max_jobs, physics.shares) == ({"cpu": 8}, 3, 40)
    alice = snap.user_association("alice", "theory", "debug")
    assert alice is not None and alice.partition == ""
    assert (alice.qos, alice.default_qos, alice.limits.max_submit) == (("normal", "high"), "high", 5)
    assert [a.account for a in snap.lineage(alice)] == ["theory", "theory", "physics", "root"]
    assert snap.account("theory").shares == SHARES_PARENT  # type: ignore[union-attr]
    assert [(c.account, c.user) for c in snap.children(physics)] == [("physics", "alice"), ("theory", "")]
    assert snap.user_association("alice", "physics", "gpu").partition == "gpu"  # type: ignore[union-attr]
    assert snap.user_association("alice", "physics", "debug") is None
    assert snap.user_association("bob", "theory", "") is None
    assert (snap.default_account("alice"), snap.default_account("bob")) == ("theory", "")
    assert snap.default_qos(alice) == "high"
    assert snap.default_qos(snap.user_association("alice", "physics", "gpu")) == "normal"  # type: ignore[arg-type]


def test_snapshot_qos_records(lab: tuple[AssociationAdmin, AssociationQueries]) -> None:
    high = _snapshot(lab[1]).qos["high"]
    assert (high.priority, high.preempt, high.preempt_mode, high.grace_time, high.usage_factor) == (
        100, ("normal",), "requeue", 30, 2.0)
    assert high.deny_on_limit
    assert high.limits.max_wall == 60
    assert high.limits.max_tres_per_user == {"cpu": 4, "gres/gpu": 1}
    assert (high.limits.max_jobs_per_user, high.limits.max_submit_per_user) == (2, None)
    normal = _snapshot(lab[1]).qos["normal"]
    assert (normal.preempt_mode, normal.flags, normal.limits.max_wall) == ("cluster", frozenset(), None)


def test_versions_wake_a_watcher_on_change_and_time_out_otherwise() -> None:
    async def scenario() -> tuple[str, str, float]:
        versions = DefinitionVersions()
        first = versions.current
        loop = asyncio.get_running_loop()
        began = loop.time()
        await versions.wait_past(first, 0.05)      # nothing changed: returns after the timeout
        waited = loop.time() - began
        waiter = asyncio.create_task(versions.wait_past(first, 30))
        await asyncio.sleep(0)
        versions.bump()
        await asyncio.wait_for(waiter, 1)          # woken by the change, long before 30 s
        await versions.wait_past("stale:0", 30)    # a version the daemon is not at: at once
        return first, versions.current, waited

    first, second, waited = asyncio.run(scenario())
    assert first != second and first.split(":")[0] == second.split(":")[0]
    assert waited >= 0.05


def test_cache_file_is_loaded_at_start(lab: tuple[AssociationAdmin, AssociationQueries], tmp_path: Path) -> None:
    state = messages.state(lab[1].definitions("lab"), "abc:7")
    _write_atomically(tmp_path / "associations.state", state.SerializeToString())
    cache = AssociationCache(tmp_path, "127.0.0.1:1", Signer(b"k" * 32), "lab")
    seen: list[AssociationSnapshot] = []
    cache.on_change.append(seen.append)
    cache.load()
    assert cache.snapshot.version == "abc:7" and seen == [cache.snapshot]
    assert cache.snapshot.user_association("alice", "theory", "") is not None
    assert not list(tmp_path.glob(".*.tmp"))


def test_unreadable_cache_file_leaves_the_empty_snapshot(tmp_path: Path) -> None:
    (tmp_path / "associations.state").write_bytes(b"\xff\xff not a message")
    cache = AssociationCache(tmp_path, None, Signer(b"k" * 32), "lab")
    cache.load()
    assert cache.snapshot.version == "" and cache.snapshot.associations == ()
