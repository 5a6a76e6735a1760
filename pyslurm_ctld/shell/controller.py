"""The controller's async shell around the cluster state (core/).

`commit(event)` is the only way durable state changes: journal (fsync) ->
`core.apply.apply` -> perform the effects -> wake the scheduler. Background
tasks: the debounced scheduling loop, the periodic checks (time limits, node
liveness, MinJobAge purge), the accounting sender and the notifier (mails, webhook).
"""
from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Awaitable, Callable

from pyslurm_common import job_credential
from pyslurm_common.cgroup_conf import CgroupConfig
from pyslurm_common.config import ConfigError, SlurmConfig
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import slurmd_pb2, types_pb2
from pyslurm_common.rpc_auth import Signer

from . import allocating_client, journal_replay
from ..translate import convert, launch_messages
from ..core import node_reconcile, reconfigure, triggers
from .accounting_outbox import AccountingOutbox
from .trigger_runner import run_trigger
from ..core.apply import apply
from ..core.cancel import cancellation
from ..core.job_notify import JobMessage
from ..core.priorities import priority_recalculation, recalculate_priorities, usage_update
from ..core.scheduling import schedule_pass
from ..core.state import ClusterState
from ..core.steps import allocation_of, step_attachment, step_usage_hosts
from ..core.timers import WARNING_PASS_S, purgeable, signals_due, timeouts, unresponsive_nodes
from ..translate.node_events import NODE_STATE_EVENTS, NodeEvent, NodeEventWatcher
from .association_cache import AssociationCache
from ..sched.association_checks import orphaned
from ..model.associations import AssociationSnapshot
from ..core import topology
from ..model.events import (Account, AllocationReleased, BatchFinished, Effect, Event, JobRequeued, Launch, RecordReservation, RunTrigger, SignalTasks,
                            StepFinished, StepStarted, SuspendTasks, TellAllocatingClient, Terminate,
                            event_from_dict, event_record)
from ..model.job import Hold, Job, JobId, JobState, Step
from .gpu_idle_actions import GpuIdleWatch
from .job_notices import JobNotices
from .journal import Journal
from ..model.statistics import ControllerStats
from .node_link import NodeLinkError, NodeLinks
from .notifier import Notifier
from .shell_ports import AccountingPort, JournalPort, NodeLinkPort
from ..settings.policy_settings import PolicySettings

log = logging.getLogger(__name__)

SCHED_DEBOUNCE = 0.002     # seconds to gather a burst of submissions into one pass
# Every committed event wakes the scheduler, so a stream of submissions runs a pass each, and a
# pass walks the whole queue: with 5,000 held jobs, 8 parallel sbatch ran 17 passes a second of
# 35 ms each, most of a core. After a pass the next waits PASS_GAP_FACTOR times as long as it
# took, which keeps event-driven passes to about a quarter of a core while the queue is long and
# costs nothing while it is short (a 1 ms pass waits 3 ms).
PASS_GAP_FACTOR = 3
PERIODIC = 1.0             # seconds between time-limit / liveness / purge checks
TRIGGER_INTERVAL = 5.0     # between checks for trigger events (Slurm's: 15 s)
TERMINATE_RETRY = 2.0


class Controller:
    def __init__(self, cfg: SlurmConfig, slurm_uid: int, signer: Signer,
                 cgroup: CgroupConfig = CgroupConfig(), *, settings: PolicySettings | None = None,
                 journal: JournalPort | None = None, outbox: AccountingPort | None = None,
                 links: NodeLinkPort | None = None) -> None:
        """The I/O ports default to the real ones (the journal in StateSaveLocation, the
        accounting outbox beside it, gRPC links to the node agents); tests pass fakes.
        `settings`: cfg's, as `reconfigure.load_checked` parsed them (None: parsed here)."""
        self.cfg = cfg
        self.cgroup = cgroup      # cgroup.conf, for scontrol show config (the node agents apply it)
        self.state = ClusterState(cfg, slurm_uid, settings)
        self.journal: JournalPort = journal or Journal(cfg.state_save_location)
        self.signer = signer
        self.links: NodeLinkPort = links or NodeLinks(signer)
        dbd = (f"{cfg.accounting_storage_host}:{cfg.accounting_storage_port}"
               if cfg.accounting_enabled and cfg.accounting_storage_host else None)
        self.outbox: AccountingPort = outbox or AccountingOutbox(cfg.state_save_location / "outbox", dbd, signer)
        self.node_events = NodeEventWatcher()
        self.associations = AssociationCache(cfg.state_save_location, dbd, signer, cfg.cluster_name)
        self.associations.on_change.append(self._associations_changed)
        if cfg.accounting_storage_enforce and dbd is None:
            log.error("AccountingStorageEnforce needs AccountingStorageType=accounting_storage/slurmdbd and "
                      "AccountingStorageHost: no associations are known, every submission is refused")
        self._sched_wake = asyncio.Event()
        self._sched_prompt = asyncio.Event()  # a batch script ended: the next pass need not gather a burst
        self._changed = asyncio.Event()     # set (and replaced) after every commit and pass: srun/salloc wait on it
        self.passes_begun = 0               # scheduling passes begun, and the last whose starts are
        self._passes_done = 0               # committed (wait_allocation's after_pass)
        self._pass_gap = 0.0                # PASS_GAP_FACTOR times the last pass, and the loop time
        self._next_pass_at = 0.0            # it ran out (pass_now runs no pass before)
        self._tasks: set[asyncio.Task[None]] = set()
        self.started_at = int(time.time())
        self.config_read_at = self.started_at
        # Called with each configuration swapped in (the daemon re-applies its log settings).
        self.on_reconfigured: list[Callable[[SlurmConfig], None]] = []
        self.notices, self.notifier = JobNotices(cfg.cluster_name), Notifier()   # --mail-type, webhook
        self.trigger_watch = triggers.NodeWatch()    # strigger: what the last check saw (soft state)
        self.notifier.configure(cfg)
        self.gpu_idle = GpuIdleWatch(self.state)   # GpuIdleParameters
        self.on_reconfigured.append(self.notifier.configure)

    # ---- recovery ------------------------------------------------------------

    def recover(self) -> None:
        """Replay the journal through `apply` (effects dropped; an event that fails is set aside,
        journal_replay.py), then compact it; load the last association definitions known."""
        self.associations.load()
        replayed = journal_replay.replay(self.journal, lambda data: apply(self.state, event_from_dict(data)),
                                         int(time.time()))
        self.journal.rewrite(event_record(e) for e in self.state.snapshot_events())
        self.notices.baseline(self.state.jobs.values())
        self.state.stats = ControllerStats(since=int(time.time()))
        recalculate_priorities(self.state, int(time.time()))
        log.info("recovered %d jobs from %d journal events%s", len(self.state.jobs), replayed.applied,
                 f" ({replayed.set_aside} set aside)" if replayed.set_aside else "")

    def resend_accounting(self) -> None:
        # Re-queue every known job: records are idempotent, and this covers a crash
        # between journaling an event and queueing its record.
        for job in self.state.jobs.values():
            self.outbox.put(convert.job_record(job, self.cfg.cluster_name))
        self._send_node_events(self.node_events.baseline(self.state.nodes, int(time.time())))

    def report_node_changes(self) -> None:
        """Tell accounting about nodes that went DOWN/DRAIN or came back, and a new cluster size."""
        self._send_node_events(self.node_events.changes(self.state.nodes, int(time.time())))

    def _send_node_events(self, events: list[NodeEvent]) -> None:
        for event in events:
            self.outbox.put_node_event(convert.node_event_record(event, self.cfg.cluster_name))

    def _associations_changed(self, snapshot: AssociationSnapshot) -> None:
        # Soft state, like node liveness: the accounting daemon and the cache file own it.
        before, self.state.associations = self.state.associations, snapshot
        gone = orphaned(before, snapshot, self.cfg.accounting_storage_enforce, self.state.jobs.values())
        if gone:
            self._spawn(self._cancel_orphans([job.job_id for job in gone]))
        recalculate_priorities(self.state, int(time.time()))   # shares, QOS and assoc priorities changed
        self.wake_scheduler()

    async def _cancel_orphans(self, job_ids: list[JobId]) -> None:
        """Cancel jobs whose association sacctmgr deleted, as Slurm does."""
        for job_id in job_ids:
            try:
                event = cancellation(self.state, job_id, self.state.slurm_uid, int(time.time()))
            except SlurmError:
                continue          # ended meanwhile
            log.info("job=%d cancelled: its association was deleted", job_id)
            await self.commit(event)

    # ---- the one way state changes --------------------------------------------

    async def commit(self, event: Event) -> None:
        """Apply `event`, journal it (fsync), then perform its effects. Applying first is the check
        that it applies: one that raises is never journaled (it would fail again at every start),
        and nothing changes the state between the caller's checks and the apply."""
        await self.staged(event)

    def staged(self, event: Event) -> Awaitable[None]:
        """`commit` in two halves: `event` is applied and its journal line queued now (raising now
        if it does not apply); awaiting the result waits for the line's fsync and performs the
        effects. Events staged one after another and awaited together share one fsync: a
        scancel of 500 ids is one disk flush, not 500 in a row. Always await the result."""
        record = event_record(event)
        effects = apply(self.state, event)
        # The state has the event now: the scheduler's wait and pass run while its line is
        # flushed (a start it makes is journaled after this line, its launch waits for both).
        if isinstance(event, BatchFinished):
            self._sched_prompt.set()
        self.wake_scheduler()
        return self._journaled(event, self.journal.enqueue(record), effects)

    async def _journaled(self, event: Event, on_disk: Awaitable[None], effects: list[Effect]) -> None:
        try:
            await on_disk
        except OSError as exc:
            # The state is now ahead of the journal. Stop as a crash would: the restart replays
            # everything acknowledged (this event never was) and the node agents re-register.
            log.critical("cannot write the journal %s: %s", self.journal.path, exc)
            os._exit(1)
        self.perform(effects)
        if isinstance(event, NODE_STATE_EVENTS):
            self.report_node_changes()
        self._announce_change()

    def _announce_change(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def perform(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Account):
                self.outbox.put(convert.job_record(effect.job, self.cfg.cluster_name))
                self.notifier.submit(self.notices.observe(effect.job, self.state.jobs, int(time.time())))
            elif isinstance(effect, RecordReservation):
                self.outbox.put_reservation(convert.reservation_record(
                    effect.record, self.state.nodes, self.cfg.cluster_name, effect.deleted, effect.time))
            elif isinstance(effect, Launch):
                self._spawn(self._launch(effect.job))
            elif isinstance(effect, Terminate):
                for node in effect.nodes:
                    self._spawn(self._terminate(effect.job_id, node, effect.cause, effect.step))
            elif isinstance(effect, SignalTasks):
                for node in effect.nodes:
                    self._spawn(self._signal(effect, node))
            elif isinstance(effect, SuspendTasks):
                for node in effect.nodes:
                    self._spawn(self._suspend(effect, node))
            elif isinstance(effect, TellAllocatingClient):
                self._spawn(self._tell_allocating_client(effect))
            elif isinstance(effect, RunTrigger):
                self._spawn(run_trigger(effect.trigger, effect.argument))

    @property
    def agent_queue_size(self) -> int:
        """Calls to node agents (launch, terminate, signal, reconfigure) still under way."""
        return len(self._tasks)

    def close(self) -> None:
        """Leave the state: stop the calls to node agents under way and close the journal
        (a backup handing control back; the next controller in charge replays the journal)."""
        for task in list(self._tasks):
            task.cancel()
        self.journal.close()

    def _spawn(self, coro: object) -> None:
        task = asyncio.get_running_loop().create_task(coro)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._call_done)

    def _call_done(self, task: asyncio.Task[None]) -> None:
        """A call to a node agent ended: one that failed unexpectedly says so now, on one line,
        rather than as 'Task exception was never retrieved' whenever the task is collected."""
        self._tasks.discard(task)
        error = None if task.cancelled() else task.exception()
        if error is not None:
            log.error("%s failed: %s: %s", task.get_coro().__qualname__, type(error).__name__,  # type: ignore[union-attr]
                      " ".join(str(error).split()))

    def _address(self, node: str) -> str:
        rec = self.state.nodes[node]
        return f"{rec.address or rec.config.address}:{rec.port or rec.config.port or self.cfg.slurmd_port}"

    async def _launch(self, job: Job) -> None:
        assert job.allocation is not None
        node = job.allocation.batch_host
        try:
            await self.links.launch(node, self._address(node), self.launch_message(job))
        except NodeLinkError as exc:
            if exc.code in node_reconcile.OUTCOME_UNKNOWN:
                log.error("job=%d launch on %s unconfirmed, the node's next report settles it: %s",
                          job.job_id, node, exc)
                return
            log.error("job=%d launch failed: %s", job.job_id, exc)
            now = int(time.time())
            if SlurmError.from_status_details(exc.details).strerror == Strerror.PROLOG_FAILED:
                # Slurm's rule: requeue held (an admin looks at the node first), drain the node.
                await self.commit(JobRequeued(job.job_id, Hold.ADMIN, node, "Prolog error", now))
            else:  # the node agent did not take it: requeue (up to MAX_BATCH_REQUEUE times)
                await self.commit(JobRequeued(job.job_id, Hold.NONE, "", "", now))

    def launch_message(self, job: Job) -> slurmd_pb2.BatchLaunch:
        """The batch script's launch on the batch host, with its job credential."""
        assert job.allocation is not None
        message = launch_messages.batch_launch(job, self.cfg)
        message.credential = self.signer.job_credential(job_credential.batch_launch(message, job.allocation.batch_host))
        return message

    async def attach_step(self, job_id: int, step_id: int, uid: int, private: bool, io_host: str, io_port: int,
                          io_key: str) -> tuple[Step, bool]:
        """sattach: the running step, and whether its stepds were told to copy its output to
        sattach's listener (only for its owner or the privileged, and not when `io_port` is 0).
        Raises SlurmError (core.steps.step_attachment), NodeLinkError when a node does not answer."""
        step, allowed = step_attachment(self.state, job_id, step_id, uid, private)
        if allowed and io_port:
            await asyncio.gather(*(self.links.attach(node, self._address(node), job_id, str(step_id), io_host,
                                                     io_port, io_key) for node in step.nodes))
        return step, allowed and io_port > 0

    async def step_usage(self, job_id: int, step_id: str, uid: int) -> types_pb2.StepUsageList:
        """Live usage of a running job's steps, from the nodes that run them (sstat); none if not
        running. A step on several nodes is one entry: its peak memory is the highest of any node,
        its memory now and CPU times the sums, its GPUs those of every node.

        Raises SlurmError for an unknown job or a caller who is neither owner nor privileged,
        NodeLinkError when a node does not answer. Reads only: no event, no journal.
        """
        nodes = step_usage_hosts(self.state, job_id, step_id, uid)
        replies = await asyncio.gather(*(self.links.step_usage(node, self._address(node), job_id, step_id)
                                         for node in nodes))
        merged: dict[str, types_pb2.StepUsageInfo] = {}
        for reply in replies:
            for info in reply.steps:
                known = merged.get(info.step_id)
                if known is None:
                    merged[info.step_id] = info
                    continue
                if info.max_rss_kb > known.max_rss_kb:
                    known.max_rss_kb, known.node = info.max_rss_kb, info.node
                known.current_rss_kb += info.current_rss_kb
                known.user_cpu_usec += info.user_cpu_usec
                known.system_cpu_usec += info.system_cpu_usec
                known.ntasks += info.ntasks
                known.gpus.extend(info.gpus)
        return types_pb2.StepUsageList(steps=list(merged.values()))

    async def _terminate(self, job_id: int, node: str, cause: str, step: str) -> None:
        while True:
            job = self.state.jobs.get(JobId(job_id))
            if job is None or not (job.completing or step):
                return
            if step and not any(s.running and node in s.waiting_on for s in job.steps if str(s.step_id) == step):
                return
            try:
                await self.links.terminate(node, self._address(node), job_id, cause, step)
                return
            except NodeLinkError as exc:
                log.warning("job=%d terminate on %s failed, retrying: %s", job_id, node, exc)
                await asyncio.sleep(TERMINATE_RETRY)

    async def _signal(self, effect: SignalTasks, node: str) -> None:
        try:
            await self.links.signal(node, self._address(node), effect.job_id, effect.signal,
                                    effect.batch_only, effect.full, effect.step)
        except NodeLinkError as exc:
            log.warning("job=%d signal on %s failed: %s", effect.job_id, node, exc)

    async def signal_now(self, effects: list[Effect]) -> None:
        """Deliver a user's signal (scancel --signal) and wait for the nodes: when no node has a
        step of a batch job yet (its script not started), raise Slurm's transitional error,
        which scancel answers by asking again, instead of losing the signal. (An salloc job
        without steps has nothing that will ever take it: there the signal goes nowhere.)"""
        for effect in effects:
            assert isinstance(effect, SignalTasks)
            outcomes = await asyncio.gather(*(self.links.signal(node, self._address(node), effect.job_id, effect.signal,
                                                                effect.batch_only, effect.full, effect.step)
                                              for node in effect.nodes), return_exceptions=True)
            not_yet = [isinstance(o, NodeLinkError) and o.details.endswith(Strerror.TRANSITION_STATE_NO_UPDATE)
                       for o in outcomes]
            for outcome, early in zip(outcomes, not_yet):
                if isinstance(outcome, BaseException) and not early:
                    log.warning("job=%d signal failed: %s", effect.job_id, outcome)
            job = self.state.jobs.get(effect.job_id)
            if outcomes and all(not_yet) and job is not None and not job.launcher:
                raise SlurmError(Strerror.TRANSITION_STATE_NO_UPDATE)

    async def _suspend(self, effect: SuspendTasks, node: str) -> None:
        """Freeze or thaw the job's processes on `node`, retrying while the job is still in the state
        that asked for it (a thaw must not be lost, or the job would stay stopped)."""
        wanted = JobState.SUSPENDED if effect.suspend else JobState.RUNNING
        while True:
            job = self.state.jobs.get(effect.job_id)
            if job is None or job.state is not wanted:
                return
            try:
                await self.links.suspend(node, self._address(node), effect.job_id, effect.suspend)
                return
            except NodeLinkError as exc:
                log.warning("job=%d %s on %s failed, retrying: %s", effect.job_id,
                            "suspend" if effect.suspend else "resume", node, exc)
                await asyncio.sleep(TERMINATE_RETRY)

    # ---- interactive work (srun, salloc) ------------------------------------------

    async def _tell_allocating_client(self, effect: TellAllocatingClient) -> None:
        """As slurmctld: an srun or salloc that cannot be reached when its allocation is granted
        is gone (killed while pending); its job ends FAILED 1:0 rather than hold the nodes."""
        if not await allocating_client.gone(effect.host, effect.port):
            return
        job = self.state.jobs.get(effect.job_id)
        if job is not None and job.state is JobState.RUNNING:
            log.info("Killing interactive JobId=%d: %s", effect.job_id, allocating_client.GONE)
            await self.commit(AllocationReleased(effect.job_id, 1, 0, int(time.time())))

    async def wait_allocation(self, job_id: int, uid: int, timeout: float, after_pass: int | None = None) -> Job:
        """The job once it left PENDING, or as it is when `timeout` seconds passed. With
        `after_pass` (a `passes_begun` read before the job was submitted), also as the first
        scheduling pass that saw the job left it, its starts committed (srun's one call)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            job = allocation_of(self.state, job_id, uid)
            left = deadline - asyncio.get_running_loop().time()
            passed = after_pass is not None and self._passes_done > after_pass
            if job.state is not JobState.PENDING or passed or left <= 0:
                return job
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                pass

    async def start_step(self, event: StepStarted, spec: slurmd_pb2.TaskLaunch) -> Step:
        """Journal the new step, then launch its part on every node (the TaskLaunch `spec`
        completed per node by translate/launch_messages.py). A node that refuses ends the step,
        and srun hears why."""
        await self.commit(event)
        job = self.state.jobs[event.job_id]
        step = event.step
        launches = [self._launch_part(job, step, node, message)
                     for node, message in launch_messages.step_part_launches(job, step, spec, self.cfg)]
        failures = [f for f in await asyncio.gather(*launches) if f]
        if failures:
            raise SlurmError(Strerror.INTERNAL, failures[0])
        return step

    async def _launch_part(self, job: Job, step: Step, node: str, message: slurmd_pb2.TaskLaunch) -> str:
        message.credential = self.signer.job_credential(job_credential.task_launch(message, node))
        try:
            await self.links.launch_tasks(node, self._address(node), message)
            return ""
        except NodeLinkError as exc:
            log.error("job=%d step %d launch on %s failed: %s", job.job_id, step.step_id, node, exc)
            await self.commit(StepFinished(job.job_id, step.step_id, node, 1, 0, int(time.time()),
                                           launch_failed=True))
            return f"launch of step {job.job_id}.{step.step_id} on {node} failed: {exc.details or exc}"
    # ---- configuration -------------------------------------------------------------

    async def reconfigure(self) -> None:
        """Re-read slurm.conf, gres.conf and cgroup.conf and swap the whole configuration in,
        then have every responding node agent re-read its own. Jobs are untouched.

        Raises SlurmError, logged here and keeping the old configuration, when a file is
        invalid (file:line in the detail) or the change needs a restart or would strand jobs.
        """
        try:
            files = await asyncio.to_thread(reconfigure.load_checked, self.cfg.path)
            topology.reconfigure(self.state, files.slurm, files.settings)
        except ConfigError as exc:
            log.error("reconfigure refused, keeping the running configuration: %s", exc)
            raise SlurmError(Strerror.INVALID_ARGUMENT, str(exc)) from exc
        except SlurmError as exc:
            log.error("reconfigure refused, keeping the running configuration: %s", exc.detail)
            raise
        self.cfg, self.cgroup = files.slurm, files.cgroup
        self.config_read_at = int(time.time())
        self.trigger_watch = triggers.reconfigured(self.trigger_watch)
        self.report_node_changes()
        for hook in self.on_reconfigured:
            hook(self.cfg)
        log.info("reconfigured from %s: %d nodes, %d partitions", self.cfg.path, len(self.state.nodes),
                 len(self.state.partitions))
        for name, rec in self.state.nodes.items():
            if rec.registered and rec.responding:
                self._spawn(self._reconfigure_node(name))
        self.wake_scheduler()

    async def _reconfigure_node(self, node: str) -> None:
        try:
            await self.links.reconfigure(node, self._address(node))
        except NodeLinkError as exc:
            log.warning("node=%s did not reconfigure: %s", node, exc)

    # ---- background loops --------------------------------------------------------

    def wake_scheduler(self) -> None:
        self._sched_wake.set()

    async def _pause(self, gap: float) -> None:
        """The wait before a pass: `gap` (the pass's share of the time), and SCHED_DEBOUNCE to
        gather a burst of submissions unless a batch script's end frees its CPUs meanwhile: the
        next job (an array's next task) starts on them at once, not 2 ms later."""
        began = time.monotonic()
        if not self._sched_prompt.is_set():
            try:
                await asyncio.wait_for(self._sched_prompt.wait(), max(SCHED_DEBOUNCE, gap))
            except TimeoutError:
                return
        await asyncio.sleep(max(0.0, gap - (time.monotonic() - began)))

    async def run_scheduler(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await asyncio.wait_for(self._sched_wake.wait(), timeout=PERIODIC)
            except TimeoutError:
                pass
            await self._pause(self._pass_gap)
            self._sched_wake.clear()
            self._sched_prompt.clear()
            number, starts = self._scheduling_pass()
            if starts:
                await asyncio.gather(*(self.commit(e) for e in starts))
            self._pass_committed(number)

    def pass_now(self) -> asyncio.Future[None] | None:
        """A scheduling pass at once, for srun's one call (Slurm's immediate start of an srun job):
        the same pass the loop runs, so priorities and fairness decide as they would a few ms later,
        and its starts are staged now, to share the caller's journal fsync. Await the result (the
        starts committed). None while a pass is under way or PASS_GAP_FACTOR holds passes back:
        the caller waits for the loop's pass."""
        if self.passes_begun != self._passes_done or asyncio.get_running_loop().time() < self._next_pass_at:
            return None
        number, starts = self._scheduling_pass()
        staged = [asyncio.ensure_future(self.staged(e)) for e in starts]   # effects in commit order

        async def committed() -> None:
            await asyncio.gather(*staged)
            self._pass_committed(number)
        return asyncio.ensure_future(committed())

    def _scheduling_pass(self) -> tuple[int, list[Event]]:
        """(the pass's number, its events to commit), its statistics kept and the next pass's gap set."""
        now = int(time.time())
        pending = sum(1 for job in self.state.jobs.in_play() if job.state is JobState.PENDING)
        began = time.perf_counter_ns()
        self.passes_begun += 1
        starts = schedule_pass(self.state, now)
        usec = (time.perf_counter_ns() - began) // 1000
        self._pass_gap = PASS_GAP_FACTOR * usec / 1e6
        self._next_pass_at = asyncio.get_running_loop().time() + self._pass_gap
        self.state.stats.schedule_cycle(usec, pending, now)
        log.debug("sched: %d pending job(s) examined, %d started, %d usec", pending, len(starts), usec)
        return self.passes_begun, starts

    def _pass_committed(self, number: int) -> None:
        self._passes_done = max(self._passes_done, number)
        self._announce_change()

    def _idle_gpu_actions(self, now: int) -> list[Event]:
        """The idle-GPU policy's warnings (a line in the job's output, a notice) now; its
        cancellations and requeues, to commit."""
        due = self.gpu_idle.due(self.state.jobs, now)
        self.notifier.submit(due.notices)
        for message in due.messages:
            self._spawn(self.tell(message))
        return due.events

    async def tell(self, message: JobMessage) -> None:
        """Have the stepd write the line; a node that cannot be reached is logged, not retried."""
        try:
            await self.links.notify(message.node, self._address(message.node), message.job_id, message.step,
                                    message.text)
        except NodeLinkError as exc:
            log.warning("job=%d message not delivered on %s: %s", message.job_id, message.node, exc)

    async def run_periodic(self, stop: asyncio.Event) -> None:
        next_priority_calc = time.time() + self.state.priorities.settings.calc_period_s
        next_warning_pass = time.time() + WARNING_PASS_S   # as slurmctld's, timed from its start
        next_trigger_check = 0.0
        while not stop.is_set():
            await asyncio.sleep(PERIODIC)
            now = time.time()
            if now >= next_trigger_check:
                fired, self.trigger_watch = triggers.due(self.state, self.trigger_watch, int(now))
                for trigger_event in fired:
                    await self.commit(trigger_event)
                next_trigger_check = now + TRIGGER_INTERVAL
            events: list[Event] = [*timeouts(self.state, int(now)), *unresponsive_nodes(self.state, now),
                                   *node_reconcile.silent_nodes(self.state.nodes.values(), self.state.jobs.values(),
                                                                self.started_at, now, self.cfg.slurmd_timeout)]
            purge = purgeable(self.state, int(now))
            recalc = now >= next_priority_calc
            if purge is not None or recalc:
                # Usage of the jobs about to be purged must be charged before they go.
                usage = usage_update(self.state, int(now))
                if usage is not None:
                    await self.commit(usage)
            if recalc:
                for _ in priority_recalculation(self.state, int(now)):
                    await asyncio.sleep(0)      # RPCs between chunks of pending jobs
                next_priority_calc = now + self.state.priorities.settings.calc_period_s
            if purge is not None:
                await self.outbox.flush()   # the purged jobs' last records are not re-queued at a restart
                events.append(purge)
            if now >= next_warning_pass:
                next_warning_pass = now + WARNING_PASS_S
                warnings = signals_due(self.state, int(now))
                for warning in warnings:
                    log.info("job=%d --signal %d due: sent to its %s", warning.job_id, warning.signal,
                             "batch shell" if warning.batch_only else "steps")
                self.perform([*warnings])
            self.notifier.submit(self.notices.periodic(self.state.jobs, int(now)))
            events += self._idle_gpu_actions(int(now))
            for event in events:
                await self.commit(event)
