"""The cluster's state: what the controller holds (jobs, nodes, partitions, counters) and the
few primitives every change goes through (`set_job`, `install_config`, `drain`).

Only `core.apply` changes the durable part, by journaled events; node liveness and pending
reasons are soft state, rebuilt after a restart. Which CPU ids and GPU indices are in use is never
stored: it is derived from the jobs that hold allocations, so it cannot drift. A node's GPUs are
its slurm.conf `Gres=` gpu items, indices 0..N-1 in the order written.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable

from pyslurm_common.conf_records import NodeConfig, PartitionConfig
from pyslurm_common.config import SlurmConfig
from pyslurm_common.gres import gpu_slots, parse_gres

from . import partition_admin
from ..sched import preemption
from ..model.associations import EMPTY, AssociationSnapshot
from ..sched.backfill import Reservation
from ..model.events import (Event, JobIdsUsed, JobSubmitted, NodeAdminChanged, NodeCreated, NodeNotesChanged,
                            PartitionEdited, ReservationSaved, TriggerIdsUsed, TriggerSet, UsageRecorded)
from ..model.job import Job, JobId, JobState
from .job_priorities import JobPriorities
from ..model.job_table import JobTable
from ..model.nodes import NodeRecord
from ..sched.priority import PriorityContext
from ..model.reservations import ReservationRecord
from ..model.triggers import Trigger
from ..settings.policy_settings import PolicySettings, policy_settings
from ..model.statistics import ControllerStats


class ClusterState:
    """The controller's data. The deciders of core/ read it; `core.apply.apply` changes it."""

    def __init__(self, cfg: SlurmConfig, slurm_uid: int, settings: PolicySettings | None = None) -> None:
        """`settings`: cfg's, as `reconfigure.load_checked` parsed them; None parses them here."""
        self.cfg = cfg
        self.slurm_uid = slurm_uid
        self.jobs = JobTable()
        self.dynamic_nodes: dict[str, NodeConfig] = {}   # joined with `pyslurmd -Z` (journaled)
        self.partition_edits: dict[str, PartitionEdited] = {}   # scontrol create/update/delete partition
        self.reservations: dict[str, ReservationRecord] = {}    # scontrol create reservation (journaled)
        self.triggers: dict[int, Trigger] = {}                  # strigger --set (journaled), by id
        self.next_trigger_id = 1
        self.nodes: dict[str, NodeRecord] = {}
        self.partitions: dict[str, PartitionConfig] = {}
        # Type of each GPU by global index, per node (slurm.conf was validated when loaded).
        self.gpu_types: dict[str, dict[int, str]] = {}
        settings = settings or policy_settings(cfg)
        self.priorities = JobPriorities(settings.priority)
        self.install_config(cfg, settings)
        self.next_job_id = cfg.first_job_id
        # Array id -> task index -> the record running (or that ran) that task. Derived in `set_job`.
        self.array_tasks: dict[JobId, dict[int, JobId]] = {}
        # Running (or suspended) jobs that got their --signal warning this run (soft state:
        # timers.signals_due adds them, `set_job` drops a job whose run is over).
        self.signalled: set[JobId] = set()
        self.stats = ControllerStats(since=0)   # sdiag; the controller starts a fresh one after recovery
        # Accounting's associations and QOS (soft state: association_cache installs each version).
        self.associations: AssociationSnapshot = EMPTY
        # Soft state of the last pass, like pending reasons: when and where backfill expects each
        # pending job to start (squeue --start, StartTime, SchedNodeList, scontrol explain).
        self.expected: dict[JobId, Reservation] = {}

    def install_config(self, cfg: SlurmConfig, settings: PolicySettings | None = None) -> None:
        """Node and partition tables from `cfg` plus the dynamic nodes. A node that already has a
        record keeps its liveness and admin state; a new one starts from its configured State=.
        `settings`: a new cfg's, parsed when it was read; None keeps the ones in force (the same
        cfg installed again after a node or partition edit)."""
        self.cfg = cfg
        if settings is not None:
            self.options = settings.scheduling
            self.priorities.settings = settings.priority
            self.gpu_idle_policy = settings.gpu_idle
        self.requeue_delay = cfg.ctld_settings.requeue_delay_s
        dynamic = tuple(self.dynamic_nodes)
        table = partition_admin.partition_table(cfg, self.partition_edits, [*(n.name for n in cfg.nodes), *dynamic])
        # Dynamic nodes join the partitions that take every node (Nodes=ALL) or a NodeSet's
        # feature they carry, as in Slurm.
        self.partitions = {p.name: dataclasses.replace(p, nodes=tuple(dict.fromkeys(
            p.nodes + tuple(n.name for n in self.dynamic_nodes.values() if p.takes(n)))))
            for p in table.values()}
        old, self.nodes = self.nodes, {}
        for node in (*cfg.nodes, *self.dynamic_nodes.values()):
            rec = old.get(node.name)
            if rec is None:
                rec = NodeRecord(node)
                _apply_configured_state(rec)
            rec.config = node
            rec.dynamic = node.name in self.dynamic_nodes
            rec.partitions = [p.name for p in self.partitions.values() if node.name in p.nodes]
            self.nodes[node.name] = rec
        self.gpu_types = {name: dict(enumerate(gpu_slots(parse_gres(rec.config.gres))))
                          for name, rec in self.nodes.items()}
        self.preempt_policy = preemption.Policy(cfg.preempt, {
            p.name: preemption.PartitionPreempt(p.priority_tier, p.preempt_mode, p.grace_time)
            for p in self.partitions.values()})

    def jobs_on_nodes(self) -> dict[str, list[int]]:
        """Node -> the jobs holding an allocation there (running or completing)."""
        held: dict[str, list[int]] = {}
        for job in self.jobs.values():
            if job.allocation is not None and (job.state is JobState.RUNNING or job.completing):
                for node in job.allocation.nodes:
                    held.setdefault(node, []).append(job.job_id)
        return held

    def priority_context(self) -> PriorityContext:
        return self.priorities.context(self.nodes, self.partitions, self.gpu_types, self.associations)

    def priority_of(self, job: Job, now: int) -> int:
        """`job`'s priority now (0 while held); its factors are kept for sprio."""
        return self.priorities.priority_of(job, self.priority_context(), now)

    def new_job_id(self) -> int:
        job_id = self.next_job_id
        self.next_job_id += 1
        return job_id

    def set_job(self, job: Job) -> Job:
        old = self.jobs.get(job.job_id)
        self.jobs[job.job_id] = job
        if job.array is not None and job.array.task_id is not None:
            self.array_tasks.setdefault(job.array.array_job_id, {})[job.array.task_id] = job.job_id
        if old is not None and old.state is not job.state:
            self.stats.job_changed(old.state, job.state)
        if job.state not in (JobState.RUNNING, JobState.SUSPENDED):
            self.signalled.discard(job.job_id)   # a requeued job's next run is warned afresh
        return job

    def drain(self, node: str, reason: str, time: int) -> None:
        rec = self.nodes.get(node)
        if rec is not None:
            rec.drain = True
            rec.set_reason(reason, 0, time)

    def snapshot_events(self) -> Iterable[Event]:
        """Events that rebuild the durable state from nothing (journal compaction)."""
        yield JobIdsUsed(self.next_job_id)
        if self.priorities.usage.time:
            yield UsageRecorded(self.priorities.usage.rows(), self.priorities.usage.time)
        for node in self.dynamic_nodes.values():
            yield NodeCreated(node)
        yield from self.partition_edits.values()
        yield from (ReservationSaved(record) for record in self.reservations.values())
        if self.next_trigger_id > 1:
            yield TriggerIdsUsed(self.next_trigger_id)
        yield from (TriggerSet(trigger) for trigger in self.triggers.values())
        for job in self.jobs.values():
            yield JobSubmitted(job)
        for rec in self.nodes.values():
            if rec.drain:
                yield NodeAdminChanged((rec.name,), "DRAIN", rec.reason, rec.reason_uid, rec.reason_time)
            if rec.down and rec.reason != "Not responding":
                yield NodeAdminChanged((rec.name,), "DOWN", rec.reason, rec.reason_uid, rec.reason_time)
            if rec.comment or rec.extra:
                yield NodeNotesChanged((rec.name,), rec.comment, rec.extra)


def _apply_configured_state(rec: NodeRecord) -> None:
    """slurm.conf `State=` / `DownNodes=`: DOWN and FAIL take the node out, DRAIN drains it."""
    state = (rec.config.state or "").upper()
    if state in ("DOWN", "FAIL", "FAILING"):
        rec.down = True
    elif state == "DRAIN":
        rec.drain = True
    else:
        return
    rec.set_reason(rec.config.reason or "set in slurm.conf", 0, 0)
