"""The cluster's configuration over the wire: partitions (scontrol create/update/delete
partition, sinfo), reservations, licenses, scontrol reconfigure and scontrol show config."""
from __future__ import annotations

import logging
import pwd
import time

import grpc

from pyslurm_common import units
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import ctld_pb2, types_pb2
from pyslurm_common.rpc_auth import caller, translate_errors
from pyslurm_common.users import user_name

from . import config_report
from ..translate import convert
from ..core import access, partition_admin, reservations
from ..core.topology import partition_edit
from ..model.events import Event, ReservationSaved
from ..sched.license_gate import licenses_in_use
from .servicer_base import ServicerBase

log = logging.getLogger(__name__)


class ClusterRpcs(ServicerBase):
    @translate_errors
    async def EditPartition(self, request: ctld_pb2.PartitionEdit, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        settings = partition_admin.settings_from_words(request.settings)
        event = partition_edit(self.state, request.action, request.name, settings, caller().uid)
        await self.ctl.commit(event)
        log.info("partition %s: %s %s by uid %d", request.name, request.action, " ".join(request.settings),
                 caller().uid)
        return types_pb2.Empty()

    @translate_errors
    async def GetPartitions(self, request: ctld_pb2.PartitionQuery,
                            context: grpc.aio.ServicerContext) -> ctld_pb2.PartitionList:
        shown = access.shown_partitions(self.state.partitions.values(), self._operator(caller().uid), request.show_all)
        return ctld_pb2.PartitionList(partitions=[
            convert.partition_info(p, self.state.nodes, self.state.cfg.preempt.mode) for p in shown])

    @translate_errors
    async def GetLicenses(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.LicenseList:
        used = licenses_in_use(self.state.jobs.values())
        now = int(time.time())
        active = [r for r in self.state.reservations.values() if r.licenses and r.active(now)]
        return ctld_pb2.LicenseList(licenses=[
            ctld_pb2.LicenseInfo(name=name, total=total, used=used.get(name, 0),
                                 reserved=sum(r.license_count(name) for r in active))
            for name, total in self.state.cfg.licenses])

    @translate_errors
    async def EditReservation(self, request: ctld_pb2.ReservationEdit,
                              context: grpc.aio.ServicerContext) -> ctld_pb2.ReservationEditReply:
        uid, now = caller().uid, int(time.time())
        operator = self._operator(uid)
        settings = list(request.settings)
        _check_user_names(settings)
        for gone in reservations.expired(self.state, now):
            await self.ctl.commit(gone)
        event: Event
        if request.action == "create":
            event = reservations.creation(self.state, settings, operator, user_name(uid), now)
        elif request.action == "update":
            event = reservations.update(self.state, request.name, settings, operator, now)
        elif request.action == "delete":
            event = reservations.deletion(self.state, request.name, operator, now)
        else:
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"unknown action {request.action}")
        await self.ctl.commit(event)
        name = event.record.name if isinstance(event, ReservationSaved) else event.name
        log.info("reservation %s: %s %s by uid %d", name, request.action, " ".join(settings), uid)
        return ctld_pb2.ReservationEditReply(name=name)

    @translate_errors
    async def GetReservations(self, request: types_pb2.Empty,
                              context: grpc.aio.ServicerContext) -> ctld_pb2.ReservationList:
        now = int(time.time())
        uid = caller().uid
        name, operator = user_name(uid), self._operator(uid)
        return ctld_pb2.ReservationList(reservations=[
            convert.reservation_info(r, self.state.nodes, now)
            for r in sorted(self.state.reservations.values(), key=lambda r: r.window(now)[0])
            if not r.over(now) and reservations.visible(self.state, r, name, operator)])

    @translate_errors
    async def Reconfigure(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        log.info("reconfigure requested by uid %d", caller().uid)
        await self.ctl.reconfigure()
        return types_pb2.Empty()

    @translate_errors
    async def GetConfig(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.ConfigDump:
        def entries(pairs: list[tuple[str, str]]) -> list[ctld_pb2.ConfigEntry]:
            return [ctld_pb2.ConfigEntry(key=k, value=v) for k, v in pairs]

        backends = {name: rec.cgroup_backend for name, rec in self.state.nodes.items()}
        return ctld_pb2.ConfigDump(
            entries=entries(config_report.slurm_conf_entries(self.ctl.cfg, config_report.Running(
                self.state.slurm_uid, self.state.priorities.settings, units.format_timestamp(self.ctl.started_at),
                self.state.next_job_id, len(self.state.nodes), _user_and_uid(self.ctl.cfg.value("SlurmdUser"))))),
            sections=[ctld_pb2.ConfigSection(title=config_report.CGROUP_TITLE,
                                             entries=entries(config_report.cgroup_entries(self.ctl.cgroup, backends)))],
            read_time=self.ctl.config_read_at)


def _user_and_uid(name: str | None) -> str:
    """SlurmdUser as Slurm prints it: `root(0)`."""
    name = name or "root"
    try:
        return f"{name}({pwd.getpwnam(name).pw_uid})"
    except KeyError:
        return name


def _check_user_names(settings: list[str]) -> None:
    """Users= of a reservation names users that exist ("Invalid user id" otherwise, as Slurm)."""
    for setting in settings:
        key, _, value = setting.partition("=")
        if len(key) >= 1 and "users".startswith(key.lower()):
            for name in filter(None, value.split(",")):
                try:
                    pwd.getpwnam(name.removeprefix("-"))
                except KeyError:
                    raise SlurmError(Strerror.INVALID_USER_ID) from None
