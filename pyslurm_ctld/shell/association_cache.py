"""The controller's copy of accounting's associations, QOS and users, kept current and durable.

`AssociationCache.run` long-polls the accounting daemon (`WatchAssociations`): the daemon answers
as soon as a sacctmgr change is committed, so a change reaches the controller within
milliseconds, and an idle watch costs one call every few seconds. Each new state is written
to `<StateSaveLocation>/associations.state` (the daemon's message as received; temporary file,
fsync, rename) before it is installed, and `load` reads that file at start: with the accounting
daemon down the controller keeps enforcing what it last knew, also across its own restarts.

Readers get `snapshot`, an immutable `AssociationSnapshot` (see `associations`), replaced whole
on every change; `on_change` callbacks run on the event loop after each replacement. Nothing
here blocks the loop: the watch is a gRPC call, file writes run in a thread.

After an outage the watch is sent the moment the daemon answers again (it waits for the
connection, `wait_for_ready`, and the channel reconnects at least every half second,
rpc_auth.RECONNECT_OPTIONS): a restarted daemon's definitions, and a change made on it, reach the
controller within about half a second of it listening, not after gRPC's reconnect backoff.

Errors: an unreachable daemon is logged once per outage and retried; an unreadable cache file
is logged and ignored (the controller then starts from the empty snapshot until the daemon
answers).
"""
from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path

import grpc
from google.protobuf.message import DecodeError

from pyslurm_common.daemon_runtime import wait_first
from pyslurm_common.rpc import dbd_pb2, dbd_pb2_grpc
from pyslurm_common.auth import ACCOUNTING
from pyslurm_common.rpc_auth import Signer, insecure_channel
from pyslurm_common.rpc_client import signed_channel

from ..model.associations import (EMPTY, AccountingUser, Association, AssociationLimits, AssociationSnapshot, Qos,
                                  QosLimits, parse_tres)

log = logging.getLogger(__name__)

WATCH_MS = 5000          # how long the daemon may hold a watch open without a change
CONNECT_SECONDS = 10     # how long a watch waits for the daemon to be reachable before it says so
RETRY_SECONDS = 0.5      # between attempts after a refusal
CACHE_FILE = "associations.state"


def _optional(message: object, name: str) -> int | None:
    return getattr(message, name) if message.HasField(name) else None  # type: ignore[attr-defined]


def _association(record: dbd_pb2.AssociationRecord) -> Association:
    lim = record.limits
    limits = AssociationLimits(
        grp_jobs=_optional(lim, "grp_jobs"), grp_submit=_optional(lim, "grp_submit"),
        grp_tres=parse_tres(lim.grp_tres), grp_wall=_optional(lim, "grp_wall"),
        max_jobs=_optional(lim, "max_jobs"), max_submit=_optional(lim, "max_submit"),
        max_tres=parse_tres(lim.max_tres), max_tres_per_node=parse_tres(lim.max_tres_per_node),
        max_wall=_optional(lim, "max_wall"))
    key = record.key
    return Association(
        id=record.id, cluster=key.cluster, account=key.account, user=key.user, partition=key.partition,
        parent_account=record.parent_account, shares=record.shares, priority=_optional(record, "priority"),
        limits=limits, qos=tuple(record.qos), default_qos=record.default_qos)


def _qos(record: dbd_pb2.QosRecord) -> Qos:
    lim = record.limits
    limits = QosLimits(
        grp_jobs=_optional(lim, "grp_jobs"), grp_submit=_optional(lim, "grp_submit"),
        grp_tres=parse_tres(lim.grp_tres), grp_wall=_optional(lim, "grp_wall"),
        max_tres_per_job=parse_tres(lim.max_tres), max_tres_per_node=parse_tres(lim.max_tres_per_node),
        max_tres_per_user=parse_tres(record.max_tres_per_user),
        max_tres_per_account=parse_tres(record.max_tres_per_account), max_wall=_optional(lim, "max_wall"),
        max_jobs_per_user=_optional(record, "max_jobs_per_user"),
        max_submit_per_user=_optional(record, "max_submit_per_user"),
        max_jobs_per_account=_optional(record, "max_jobs_per_account"),
        max_submit_per_account=_optional(record, "max_submit_per_account"),
        min_tres_per_job=parse_tres(record.min_tres))
    threshold = record.usage_threshold if record.HasField("usage_threshold") else None
    return Qos(
        id=record.id, name=record.name, priority=record.priority, flags=frozenset(record.flags),
        grace_time=record.grace_time, preempt=tuple(record.preempt), preempt_mode=record.preempt_mode,
        preempt_exempt_time=_optional(record, "preempt_exempt_time"), usage_factor=record.usage_factor,
        usage_threshold=threshold, limits=limits)


def snapshot_from_message(state: dbd_pb2.AssociationState) -> AssociationSnapshot:
    return AssociationSnapshot(
        version=state.version, associations=tuple(_association(a) for a in state.associations),
        qos={q.name: _qos(q) for q in state.qos},
        users={u.name: AccountingUser(u.name, u.default_account, u.admin_level, frozenset(u.coord_accounts))
               for u in state.users})


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class AssociationCache:
    def __init__(self, state_dir: Path, dbd_address: str | None, signer: Signer, cluster: str) -> None:
        """``dbd_address`` None: accounting is not configured, the snapshot stays empty."""
        self.path = state_dir / CACHE_FILE
        self._address = dbd_address
        self._signer = signer
        self._cluster = cluster
        self.snapshot: AssociationSnapshot = EMPTY
        self.on_change: list[Callable[[AssociationSnapshot], None]] = []

    def load(self) -> None:
        """Install the copy saved by the last run, if any (at start, before serving)."""
        try:
            state = dbd_pb2.AssociationState.FromString(self.path.read_bytes())
        except FileNotFoundError:
            return
        except (OSError, DecodeError) as exc:
            log.error("association cache %s unreadable, starting without it: %s", self.path, exc)
            return
        self._install(snapshot_from_message(state))
        log.info("association cache: %d associations, %d QOS from %s (version %s)",
                 len(self.snapshot.associations), len(self.snapshot.qos), self.path, self.snapshot.version)

    def _install(self, snapshot: AssociationSnapshot) -> None:
        self.snapshot = snapshot
        for hook in self.on_change:
            hook(snapshot)

    async def run(self, stop: asyncio.Event) -> None:
        """Follow the accounting daemon until ``stop``; never raises for an unreachable daemon."""
        if self._address is None:
            return
        stub = dbd_pb2_grpc.AccountingStub(signed_channel(self._address, ACCOUNTING, self._signer, insecure_channel))
        reachable = True
        while not stop.is_set():
            watch = dbd_pb2.AssociationWatch(cluster=self._cluster, known_version=self.snapshot.version,
                                             wait_ms=WATCH_MS)
            try:
                state = await stub.WatchAssociations(watch, timeout=WATCH_MS / 1000 + CONNECT_SECONDS,
                                                     wait_for_ready=True)
            except grpc.aio.AioRpcError as exc:
                if reachable:
                    log.warning("association cache: accounting unreachable (%s), enforcing version %s "
                                "until it answers", exc.code().name, self.snapshot.version or "(none)")
                reachable = False
                await wait_first(stop, timeout=RETRY_SECONDS)
                continue
            if not reachable:
                log.info("association cache: accounting answers again")
                reachable = True
            if state.unchanged:
                continue
            await asyncio.to_thread(_write_atomically, self.path, state.SerializeToString())
            self._install(snapshot_from_message(state))
            log.info("association cache: version %s, %d associations, %d QOS", state.version,
                     len(state.associations), len(state.qos))
