"""Nodes and partitions: registration and heartbeats (soft state, rebuilt after a restart),
dynamic nodes (`pyslurmd -Z`, scontrol delete nodename), scontrol create/update/delete partition
and scontrol reconfigure.
A registering node must have at least what slurm.conf promises, or it is set DOWN with the reason.
"""
from __future__ import annotations

import logging
from typing import Iterable

from pyslurm_common.conf_records import NodeConfig
from pyslurm_common.config import SlurmConfig
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.hostlist import HostlistError, expand

from . import partition_admin, reconfigure as reconfiguration
from ..model.events import (BatchFinished, Event, NodeAdminChanged, NodeCreated, NodeNotesChanged, NodesDeleted,
                            PartitionEdited, StepFinished)
from ..model.nodes import NodeRecord
from ..settings.policy_settings import PolicySettings, policy_settings
from .access import is_privileged
from .state import ClusterState


log = logging.getLogger(__name__)

_LOW_PREFIX = "Low "
_GRES_PREFIX = "gres/"
_REGISTRATION_REASONS = (_LOW_PREFIX, _GRES_PREFIX)   # reasons a good registration clears


def node_creation(state: ClusterState, node: NodeConfig) -> NodeCreated | None:
    """A `pyslurmd -Z` registration: the event that adds (or redefines) the node, None when
    it is known with this very definition. A slurm.conf node cannot register as dynamic."""
    if node.name in state.nodes and node.name not in state.dynamic_nodes:
        raise SlurmError(Strerror.INVALID_NODE_NAME,
                         f"node {node.name} is in slurm.conf: start its pyslurmd without -Z")
    return None if state.dynamic_nodes.get(node.name) == node else NodeCreated(node)


def partition_edit(state: ClusterState, action: str, name: str, settings: tuple[tuple[str, str], ...],
                   uid: int) -> PartitionEdited:
    """scontrol create/update/delete partition (administrators): the journaled record, or
    SlurmError (partition_admin.edit says which)."""
    if not is_privileged(state, uid):
        raise SlurmError(Strerror.INVALID_USER_ID)   # Slurm 22.05's answer to a user's partition edit
    jobs_in: dict[str, list[int]] = {}
    for job in state.jobs.values():
        if not job.state.is_finished or job.completing:
            for part in {job.request.partition, *job.request.partitions}:
                jobs_in.setdefault(part, []).append(job.job_id)
    return partition_admin.edit(action, name, settings, state.cfg, state.partition_edits, state.partitions,
                                [*(n.name for n in state.cfg.nodes), *state.dynamic_nodes], jobs_in)


def node_deletion(state: ClusterState, names: Iterable[str]) -> NodesDeleted:
    """scontrol delete nodename=...: only dynamic nodes, and only while no job holds them."""
    held = state.jobs_on_nodes()
    names = tuple(names)
    for name in names:
        if name not in state.nodes:
            raise SlurmError(Strerror.INVALID_NODE_NAME, f"Invalid node name specified: {name}")
        if name not in state.dynamic_nodes:
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"Can't delete non-dynamic node '{name}'.")
        if held.get(name):
            raise SlurmError(Strerror.INVALID_ARGUMENT, f"Node '{name}' can't be delete because it's still in use.")
    return NodesDeleted(names)


def node_registered(state: ClusterState, name: str, now: float, cpus: int, real_memory_mb: int, gpus: int = 0,
                    **reported: object) -> NodeRecord:
    rec = state.nodes.get(name)
    if rec is None:
        raise SlurmError(Strerror.INVALID_NODE_NAME, f"node {name} is not in slurm.conf")
    for key, value in reported.items():
        setattr(rec, key, value)
    rec.registered = rec.responding = True
    rec.last_seen = now
    problem = _registration_problem(rec, cpus, real_memory_mb, gpus, len(state.gpu_types.get(name, {})))
    if problem:
        log.error("node=%s invalid registration: %s", name, problem)
        rec.down = True
        rec.set_reason(problem, 0, int(now))
    elif rec.down and rec.reason.startswith(_REGISTRATION_REASONS):
        rec.down = False
        rec.clear_reason()
    elif rec.down and rec.reason == "Not responding" and state.cfg.ctld_settings.return_to_service >= 1:
        rec.down = False
        rec.clear_reason()
    elif rec.down and state.cfg.ctld_settings.return_to_service >= 2:
        rec.down = False
        rec.clear_reason()
    return rec


def node_heartbeat(state: ClusterState, name: str, now: float, cpu_load: float, free_memory_mb: int) -> None:
    rec = state.nodes.get(name)
    if rec is None or not rec.registered:
        raise SlurmError(Strerror.INVALID_NODE_NAME, f"node {name} must register first")
    rec.last_seen, rec.cpu_load, rec.free_memory_mb = now, cpu_load, free_memory_mb
    rec.responding = True


def _registration_problem(rec: NodeRecord, cpus: int, real_memory_mb: int, gpus: int,
                          configured_gpus: int) -> str:
    """Slurm's check: a node must have at least what slurm.conf promises."""
    cfg = rec.config
    if gpus < configured_gpus:
        return f"{_GRES_PREFIX}gpu count reported lower than configured ({gpus} < {configured_gpus})"
    if cpus < cfg.cpus:
        return f"{_LOW_PREFIX}CPUs (reported:{cpus} < configured:{cfg.cpus})"
    if real_memory_mb < cfg.real_memory_mb:
        return (f"{_LOW_PREFIX}RealMemory (reported:{real_memory_mb} < 100.00% of "
                f"configured:{cfg.real_memory_mb})")
    return ""


def reconfigure(state: ClusterState, cfg: SlurmConfig, settings: PolicySettings | None = None) -> None:
    """Swap in a new slurm.conf; jobs are untouched. Raises SlurmError (and changes nothing)
    when the new configuration would strand jobs or needs a restart (see reconfigure.py).
    `settings`: cfg's, as `reconfigure.load_checked` parsed them; None parses them here."""
    partition_jobs: dict[str, list[int]] = {}
    for job in state.jobs.values():
        if not job.state.is_finished or job.completing:
            partition_jobs.setdefault(job.request.partition, []).append(job.job_id)
    problems = reconfiguration.refusals(state.cfg, cfg, state.jobs_on_nodes(), partition_jobs, state.dynamic_nodes)
    if problems:
        raise SlurmError(Strerror.INVALID_ARGUMENT, "; ".join(problems))
    state.install_config(cfg, settings or policy_settings(cfg))


def node_names(expressions: Iterable[str]) -> list[str]:
    """The nodes that hostlist expressions (`node[1-3],gpu1`) name."""
    names: list[str] = []
    for expr in expressions:
        try:
            names += expand(expr)
        except HostlistError as exc:
            raise SlurmError(Strerror.INVALID_NODE_NAME, str(exc)) from exc
    return names


def node_admin_change(state: ClusterState, new_state: str, reason: str, expressions: Iterable[str], uid: int,
                      now: int) -> NodeAdminChanged:
    """`scontrol update nodename=... state=DRAIN|DOWN|RESUME|UNDRAIN|IDLE reason=...` (the caller is
    privileged): DRAIN and DOWN need a reason, every node named must exist. IDLE is Slurm's
    "clear DRAIN and FAIL, bring a DOWN node up", what RESUME does here."""
    word = new_state.upper()
    if word == "IDLE":
        word = "RESUME"
    if word not in ("DRAIN", "DOWN", "RESUME", "UNDRAIN"):
        raise SlurmError(Strerror.INVALID_ARGUMENT, f"Invalid node state specified: {new_state}")
    if word in ("DRAIN", "DOWN") and not reason:
        raise SlurmError(Strerror.INVALID_ARGUMENT,
                         "You must specify a reason when DOWNING or DRAINING a node. Request denied")
    names = node_names(expressions)
    unknown = [n for n in names if n not in state.nodes]
    if unknown:
        raise SlurmError(Strerror.INVALID_NODE_NAME, f"Invalid node name specified: {unknown[0]}")
    return NodeAdminChanged(tuple(names), word, reason, uid, now)


def node_notes_change(state: ClusterState, expressions: Iterable[str], comment: str | None,
                      extra: str | None) -> NodeNotesChanged:
    """`scontrol update nodename=... comment=... extra=...` (the caller is privileged)."""
    names = node_names(expressions)
    unknown = [n for n in names if n not in state.nodes]
    if unknown:
        raise SlurmError(Strerror.INVALID_NODE_NAME, f"Invalid node name specified: {unknown[0]}")
    return NodeNotesChanged(tuple(names), comment, extra)


def reported_end(event: BatchFinished | StepFinished) -> list[Event]:
    """What a node agent's report of an end journals: a step whose tasks could not be killed
    drains its node first ("Kill task failed", as slurmd's), then the end itself."""
    if isinstance(event, StepFinished) and event.kill_task_failed:
        return [NodeAdminChanged((event.node,), "DRAIN", "Kill task failed", 0, event.time), event]
    return [event]
