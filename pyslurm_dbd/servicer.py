"""gRPC Accounting service: record jobs from the controller, answer sacct and sacctmgr.

Only privileged callers (root, SlurmUser) may record. Who sees whose jobs is
`job_visibility` (PrivateData=jobs; operators and administrators see all).
sacctmgr's changes are authorised by `admin` (AdminLevel); anyone may show. The controller
(root, SlurmUser) watches the association definitions through `WatchAssociations`.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import grpc

from pyslurm_common.call_stats import Serving
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import dbd_pb2, dbd_pb2_grpc, types_pb2
from pyslurm_common.rpc_auth import caller, translate_errors
from pyslurm_common.users import user_name

from . import association_messages as messages
from .admin import AssociationAdmin, Caller
from .association_queries import AssociationQueries
from .event_store import EventStore
from .reservation_store import ReservationStore
from .usage_reports import UsageReports
from .association_versions import DefinitionVersions
from .daemon_stats import accounting_stats
from .job_visibility import visible_query
from .store import AccountingStore


MAX_WATCH_MS = 10_000   # longest a watch is held open without a change


class AccountingServicer(dbd_pb2_grpc.AccountingServicer):
    def __init__(self, store: AccountingStore, privileged_uids: set[int], private_data: frozenset[str],
                 tres: Sequence[tuple[str, str, int]] = (), serving: Serving | None = None) -> None:
        """``private_data``: the PrivateData words, lower-cased (``jobs``, ``users``, ``accounts`` ...);
        ``tres``: the cluster's TRES table; ``serving``: the server's call statistics."""
        self.store = store
        self.privileged = privileged_uids
        self.private_jobs = "jobs" in private_data
        self.private_events = "events" in private_data
        self.events = EventStore(store.sessions)
        self.reservations = ReservationStore(store.sessions)
        self.private_usage = "usage" in private_data
        self.usage = UsageReports(store.sessions)
        self.admin = AssociationAdmin(store.sessions)
        self.queries = AssociationQueries(store.sessions, private_data & {"users", "accounts"}, tres)
        self.versions = DefinitionVersions()
        self.serving = serving or Serving()

    @translate_errors
    async def RecordJobs(self, request: dbd_pb2.JobRecordBatch, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        if caller().uid not in self.privileged:
            raise SlurmError(Strerror.ACCESS_DENIED)
        await asyncio.to_thread(self.store.record, list(request.records))
        await asyncio.to_thread(self.events.record, list(request.node_events))
        await asyncio.to_thread(self.reservations.record, list(request.reservations))
        return types_pb2.Empty()

    @translate_errors
    async def QueryReservations(self, request: dbd_pb2.ReservationQuery,
                                context: grpc.aio.ServicerContext) -> dbd_pb2.ReservationRecordList:
        found = await asyncio.to_thread(self.reservations.query, request, int(time.time()))
        return dbd_pb2.ReservationRecordList(reservations=found)

    @translate_errors
    async def QueryUsage(self, request: dbd_pb2.UsageQuery, context: grpc.aio.ServicerContext) -> dbd_pb2.UsageReport:
        """Anyone may report on usage unless PrivateData=usage; then users see only their own."""
        query = dbd_pb2.UsageQuery()
        query.CopyFrom(request)
        private = self.private_usage and not await self._sees_everyone()
        if private:
            del query.users[:]
            query.users.append(self._caller().name)
        report = await asyncio.to_thread(self.usage.report, query, int(time.time()))
        if private:
            del report.clusters[:]
        return report

    @translate_errors
    async def QueryEvents(self, request: dbd_pb2.EventQuery, context: grpc.aio.ServicerContext) -> dbd_pb2.NodeEventList:
        """Anyone may list events unless PrivateData=events; then operators and above."""
        if self.private_events and not await self._sees_everyone():
            raise SlurmError(Strerror.ACCESS_DENIED)
        events = await asyncio.to_thread(self.events.query, request, int(time.time()))
        return dbd_pb2.NodeEventList(events=events)

    @translate_errors
    async def QueryJobs(self, request: dbd_pb2.AccountingQuery, context: grpc.aio.ServicerContext) -> dbd_pb2.JobRecordBatch:
        who = self._caller()
        query = visible_query(request, who.name, await self._sees_everyone(), self.private_jobs)
        return await asyncio.to_thread(self.store.batch, query, int(time.time()))

    @translate_errors
    async def Ping(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        return types_pb2.Empty()

    @translate_errors
    async def ChangeAssociations(self, request: dbd_pb2.AssociationChange,
                                 context: grpc.aio.ServicerContext) -> dbd_pb2.AssociationChangeResult:
        report = await asyncio.to_thread(
            self.admin.change, self._caller(), request.action, request.entity, list(request.names),
            messages.settings(request.where), messages.settings(request.set), request.commit)
        if request.commit:
            self.versions.bump()
        return messages.change_result(report)

    @translate_errors
    async def ShowAssociations(self, request: dbd_pb2.AssociationShow,
                               context: grpc.aio.ServicerContext) -> dbd_pb2.AssociationEntities:
        listing = await asyncio.to_thread(
            self.queries.show, request.entity, messages.settings(request.where), request.with_assoc, self._caller())
        return messages.entities(listing)

    @translate_errors
    async def WatchAssociations(self, request: dbd_pb2.AssociationWatch,
                                context: grpc.aio.ServicerContext) -> dbd_pb2.AssociationState:
        if caller().uid not in self.privileged:
            raise SlurmError(Strerror.ACCESS_DENIED)
        await self.versions.wait_past(request.known_version, min(request.wait_ms, MAX_WATCH_MS) / 1000)
        # The version is read before the rows: a change committed meanwhile is served again later,
        # never claimed by an older read.
        version = self.versions.current
        if version == request.known_version:
            return dbd_pb2.AssociationState(version=version, unchanged=True)
        listing = await asyncio.to_thread(self.queries.definitions, request.cluster)
        return messages.state(listing, version)

    @translate_errors
    async def GetStats(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> dbd_pb2.AccountingStats:
        """Super users only, as slurmdbd: root, SlurmUser and administrators."""
        if await asyncio.to_thread(self.queries.admin_level, self._caller()) != "Administrator":
            raise SlurmError(Strerror.ACCESS_DENIED)
        return accounting_stats(self.serving, self.usage.runs)

    async def _sees_everyone(self) -> bool:
        """root, SlurmUser, operators and administrators."""
        who = self._caller()
        return who.privileged or await asyncio.to_thread(self.queries.admin_level, who) != "None"

    def _caller(self) -> Caller:
        uid = caller().uid
        return Caller(user_name(uid), uid in self.privileged)
