"""strigger's deciders (set, clear) and which triggers are due now (pure over the state).

Who may set one (trigger_set in Slurm 22.05): when SlurmUser is not root only SlurmUser may, for
any job or node: slurmctld could not run another user's program as that user. When SlurmUser is
root anyone may, and the program runs as whoever set it. Only root or the trigger's owner clears
it. At most MaxJobCount triggers for anyone but root (EAGAIN beyond).

What fires (trigger_mgr.c's _trigger_job_event / _trigger_node_event): the node events are the
changes seen between two passes (`NodeWatch`, soft state kept by the controller: Slurm too
forgets them over a restart); a trigger fires `offset` seconds after its event (`armed` holds it
meanwhile), --time fires once the job has -offset seconds or less left, --idle once a node has
been idle for `offset` seconds. --fail never fires: no node is FAILING here (no state=FAIL).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.hostlist import HostlistError, compress, expand
from pyslurm_common.units import UNLIMITED

from ..model.events import TriggerFired, TriggersCleared, TriggerSet
from ..model.job import Job, JobState
from ..model.triggers import ANY_NODE, JOB, NODE, Trigger
from .state import ClusterState
from .usage import node_usage


@dataclass(frozen=True, slots=True)
class TriggerRequest:
    """What strigger --set asks for."""

    res_type: str
    res_id: str
    events: tuple[str, ...]
    offset: int
    program: str
    perm: bool


def setting(state: ClusterState, request: TriggerRequest, uid: int, gid: int, now: int) -> TriggerSet:
    if state.slurm_uid != 0 and uid != state.slurm_uid:
        raise SlurmError(Strerror.ACCESS_DENIED, f"uid {uid} is not SlurmUser: it may set no trigger")
    if uid != 0 and len(state.triggers) >= state.cfg.max_job_count:
        raise SlurmError(Strerror.TRY_AGAIN)
    res_id = request.res_id
    if request.res_type == JOB:
        job = state.jobs.get(int(res_id)) if res_id.isdigit() else None
        if job is None:
            raise SlurmError(Strerror.INVALID_JOB_ID)
        if job.state.is_finished:
            raise SlurmError(Strerror.ALREADY_DONE)
    else:
        res_id = res_id or ANY_NODE
    trigger = Trigger(state.next_trigger_id, request.res_type, res_id, request.events, request.offset, uid, gid,
                      request.program, request.perm)
    if any(trigger.same_as(other) for other in state.triggers.values()):
        raise SlurmError(Strerror.TRIGGER_DUP)
    return TriggerSet(trigger, now)


def clearing(state: ClusterState, trig_id: int, job_id: int, user: int | None, uid: int, now: int
             ) -> TriggersCleared:
    """strigger --clear --id/--jobid/--user: what the caller may clear of what matches."""
    if not (trig_id or job_id or user is not None):
        raise SlurmError(Strerror.INVALID_ARGUMENT)
    refusal = Strerror.NO_SUCH_PROCESS
    cleared = []
    for trigger in state.triggers.values():
        if ((trig_id and trigger.trig_id != trig_id)
                or (job_id and (trigger.res_type != JOB or trigger.res_id != str(job_id)))
                or (user is not None and trigger.uid != user)):
            continue
        if trigger.uid != uid and uid != 0:
            refusal = Strerror.ACCESS_DENIED
            continue
        cleared.append(trigger.trig_id)
    if not cleared:
        raise SlurmError(refusal)
    return TriggersCleared(tuple(cleared), now)


# ---- what is due ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class NodeLook:
    down: bool
    drained: bool
    busy: bool


@dataclass(frozen=True, slots=True)
class NodeWatch:
    """What the last pass saw of the nodes, and fired triggers waiting out their offset."""

    seen: dict[str, NodeLook] = field(default_factory=dict)
    busy_at: dict[str, int] = field(default_factory=dict)      # when each node was last seen busy
    armed: dict[int, tuple[int, str]] = field(default_factory=dict)   # trig_id -> (due, argument)
    reconfigured: bool = False                                 # since the last pass


@dataclass(frozen=True, slots=True)
class _Changes:
    down: frozenset[str]
    up: frozenset[str]
    drained: frozenset[str]
    idle_since: dict[str, int]


def _looks(state: ClusterState) -> dict[str, NodeLook]:
    usage = node_usage(state)
    looks = {}
    for name, rec in state.nodes.items():
        busy = name in usage and usage[name].cpus > 0
        looks[name] = NodeLook(down=rec.down, drained=rec.drain and not busy, busy=busy)
    return looks


def due(state: ClusterState, watch: NodeWatch, now: int) -> tuple[list[TriggerFired | TriggersCleared], NodeWatch]:
    """The triggers that fire now (and those on jobs gone for good), and what to remember."""
    looks = _looks(state)
    before = watch.seen or looks          # the first pass sees no change
    changes = _Changes(
        down=frozenset(n for n, look in looks.items() if look.down and not (before.get(n) or look).down),
        up=frozenset(n for n, look in looks.items() if not look.down and n in before and before[n].down),
        drained=frozenset(n for n, look in looks.items() if look.drained and not (before.get(n) or look).drained),
        idle_since={n: (now if looks[n].busy else watch.busy_at.get(n, now)) for n in looks})
    armed = dict(watch.armed)
    events: list[TriggerFired | TriggersCleared] = []
    gone: list[int] = []
    for trigger in state.triggers.values():
        if trigger.trig_id in armed:
            continue
        if trigger.res_type == JOB:
            job = state.jobs.get(int(trigger.res_id))
            hit = _job_event(trigger, job, changes, now)
            if hit is None and job is None:
                gone.append(trigger.trig_id)
        else:
            hit = _node_event(trigger, looks, changes, watch.reconfigured, now)
        if hit is not None:
            armed[trigger.trig_id] = hit
    for trig_id, (when, argument) in list(armed.items()):
        if trig_id not in state.triggers:
            del armed[trig_id]
        elif when <= now:
            events.append(TriggerFired(trig_id, argument, now))
            del armed[trig_id]
    if gone:
        events.append(TriggersCleared(tuple(gone), now))
    return events, NodeWatch(looks, changes.idle_since, armed)


def reconfigured(watch: NodeWatch) -> NodeWatch:
    return dataclasses.replace(watch, reconfigured=True)


def _job_event(trigger: Trigger, job: Job | None, changes: _Changes, now: int) -> tuple[int, str] | None:
    later = (now + trigger.offset, trigger.res_id)
    if "fini" in trigger.events and (job is None or (job.state.is_finished and not job.completing)):
        return later
    if job is None or job.state is not JobState.RUNNING:
        return None
    limit = job.request.time_limit_min
    if "time" in trigger.events and limit != UNLIMITED:
        end = job.start_time + job.suspended_secs + limit * 60
        if end - now <= -trigger.offset:
            return (now, trigger.res_id)
    nodes = set(job.allocation.nodes) if job.allocation else set()
    if ("down" in trigger.events and nodes & changes.down) or ("up" in trigger.events and nodes & changes.up):
        return later
    return None


def _node_event(trigger: Trigger, looks: dict[str, NodeLook], changes: _Changes, reconfig: bool,
                now: int) -> tuple[int, str] | None:
    watched = set(looks) if trigger.res_id == ANY_NODE else set(_names(trigger.res_id))
    later_for = (lambda names: (now + trigger.offset, compress(names)))
    for event, hit in (("down", changes.down), ("drained", changes.drained)):
        if event in trigger.events and watched & hit:
            return later_for(watched & hit)
    if "idle" in trigger.events:
        idle = {n for n in watched & set(looks) if not looks[n].busy and not looks[n].down
                and changes.idle_since[n] <= now - trigger.offset}
        if idle:
            return (now, compress(idle))
    if "up" in trigger.events and watched & changes.up:
        return later_for(watched & changes.up)
    if "reconfig" in trigger.events and reconfig:
        return (now + trigger.offset, "reconfig")
    return None


def _names(res_id: str) -> list[str]:
    try:
        return expand(res_id)
    except HostlistError:
        return [res_id]
