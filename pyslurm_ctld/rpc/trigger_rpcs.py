"""strigger over the wire: set, list and clear event triggers (core/triggers.py decides)."""
from __future__ import annotations

import logging
import time

import grpc

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import ctld_pb2, types_pb2
from pyslurm_common.rpc_auth import caller, translate_errors

from ..core import triggers
from ..model.triggers import EVENTS, JOB, NODE, Trigger
from ..shell.trigger_runner import executable_for
from .servicer_base import ServicerBase

log = logging.getLogger(__name__)


def trigger_info(trigger: Trigger) -> ctld_pb2.TriggerInfo:
    return ctld_pb2.TriggerInfo(trig_id=trigger.trig_id, res_type=trigger.res_type, res_id=trigger.res_id,
                                events=list(trigger.events), offset=trigger.offset, uid=trigger.uid,
                                program=trigger.program, perm=trigger.perm)


class TriggerRpcs(ServicerBase):
    @translate_errors
    async def SetTrigger(self, request: ctld_pb2.TriggerInfo, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        who = caller()
        if request.res_type not in (JOB, NODE) or not request.events or any(e not in EVENTS for e in request.events):
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"no such trigger: {request.res_type} {request.events}")
        events = tuple(e for e in EVENTS if e in request.events)
        path = request.program.split()[0] if request.program.split() else ""
        if not path.startswith("/"):
            raise SlurmError(Strerror.INVALID_ARGUMENT, "the program must be an absolute path")
        event = triggers.setting(self.state, triggers.TriggerRequest(
            request.res_type, request.res_id, events, request.offset, request.program, request.perm),
            who.uid, who.gid, int(time.time()))
        if not executable_for(path, who.uid, who.gid):     # Slurm's _validate_trigger
            raise SlurmError(Strerror.ACCESS_DENIED, f"{path} is not an executable file for uid {who.uid}")
        await self.ctl.commit(event)
        log.info("trigger %d set by uid %d: %s %s %s offset %d: %s", event.trigger.trig_id, who.uid,
                 request.res_type, event.trigger.res_id, ",".join(request.events), request.offset, request.program)
        return types_pb2.Empty()

    @translate_errors
    async def GetTriggers(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.TriggerList:
        # Every trigger to everyone, as Slurm's trigger_get: strigger filters.
        return ctld_pb2.TriggerList(triggers=[trigger_info(t) for t in self.state.triggers.values()])

    @translate_errors
    async def ClearTriggers(self, request: ctld_pb2.TriggerClear,
                            context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        uid = caller().uid
        event = triggers.clearing(self.state, request.trig_id, request.job_id,
                                  request.user if request.has_user else None, uid, int(time.time()))
        await self.ctl.commit(event)
        log.info("triggers %s cleared by uid %d", ",".join(map(str, event.trig_ids)), uid)
        return types_pb2.Empty()
