"""AccountingStorageEnforce against the real accounting daemon: sacctmgr's associations and QOS
reach the controller's cache (and its durable copy) within a second, and the controller keeps
enforcing them from that copy while the accounting daemon is down."""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.rpc import dbd_pb2

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

ENFORCE = "AccountingStorageEnforce=associations,limits,qos"


def _spec(root: Path, name: str):  # type: ignore[no-untyped-def]
    spec = two_node_spec(root, name)
    return dataclasses.replace(spec, extra=(*spec.extra, ENFORCE))


@pytest.fixture(scope="module")
def lab() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        wait_for(lambda: c.run("sacctmgr", "-n", "show", "cluster").returncode == 0)
        yield c


def _mgr(cluster: Cluster, *args: str) -> None:
    cluster.run("sacctmgr", "-i", *args, check=True)


def _cached(cluster: Cluster) -> dbd_pb2.AssociationState:
    path = cluster.spec.state_dir / "ctld" / "associations.state"
    return dbd_pb2.AssociationState.FromString(path.read_bytes()) if path.exists() else dbd_pb2.AssociationState()


def _within(seconds: float, predicate) -> None:  # type: ignore[no-untyped-def]
    """``predicate`` becomes true within ``seconds`` (polled; the point is the deadline)."""
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"not within {seconds}s"
        time.sleep(0.02)


def test_sacctmgr_change_reaches_the_controllers_durable_cache_within_a_second(lab: Cluster) -> None:
    _mgr(lab, "add", "account", "optics", "Fairshare=30", "GrpTRES=cpu=3")
    _within(1.0, lambda: any(a.key.account == "optics" for a in _cached(lab).associations))
    optics = next(a for a in _cached(lab).associations if a.key.account == "optics" and not a.key.user)
    assert (optics.shares, optics.limits.grp_tres, optics.parent_account) == (30, "cpu=3", "root")
    _mgr(lab, "add", "qos", "fast", "Priority=50", "Preempt=normal", "PreemptMode=requeue")
    _within(1.0, lambda: any(q.name == "fast" for q in _cached(lab).qos))
    fast = next(q for q in _cached(lab).qos if q.name == "fast")
    assert (fast.priority, list(fast.preempt), fast.preempt_mode) == (50, ["normal"], "requeue")
