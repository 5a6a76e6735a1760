"""Slurm's OpenMetrics sets (MetricsType=metrics/openmetrics), aggregated in one pass.

Names and labels are Slurm 25.11's (src/plugins/metrics/openmetrics), plus the GPU counts
Slurm 26.05 added (node_gpus, node_gpus_alloc, jobs_gpus_alloc, partition_gpus). Every metric of
a set is present, zero when nothing counts, as Slurm prints them. The set functions are pure
(job facts, node and partition records, controller statistics in; gauges out); `collect`
gathers their inputs from the cluster state in one pass over the jobs, and pyslurmrestd prints
the text.

Who may read them follows Slurm: anyone, unless PrivateData is set; then root, SlurmUser and
the users named in MetricsAuthUsers, or everyone with MetricsParameters=ignore_private_data.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable

from pyslurm_common.config import SlurmConfig
from pyslurm_common.gres import gpu_count
from pyslurm_common.rpc import ctld_pb2

from ..translate import convert
from ..core.state import ClusterState
from ..core.usage import node_usage
from ..model.job import Hold, Job, JobState


SETS = ("jobs", "jobs-users-accts", "nodes", "partitions", "scheduler")
MB = 1024 * 1024

# The per-state counters of a job set, in Slurm's spelling; states pyslurm never enters stay 0.
JOB_STATE_NAMES = {
    JobState.PENDING: "pending", JobState.RUNNING: "running", JobState.SUSPENDED: "suspended",
    JobState.COMPLETED: "completed", JobState.CANCELLED: "cancelled", JobState.FAILED: "failed",
    JobState.TIMEOUT: "timeout", JobState.NODE_FAIL: "node_failed", JobState.PREEMPTED: "preempted",
    JobState.BOOT_FAIL: "bootfail", JobState.DEADLINE: "deadline", JobState.OUT_OF_MEMORY: "outofmemory",
    JobState.REQUEUED: "requeued",
}
JOB_COUNTERS = ("bootfail", "cancelled", "completed", "completing", "configuring", "cpus_alloc", "deadline",
                "expediting", "failed", "fed_requeued", "finished", "gpus_alloc", "hold", "", "memory_alloc",
                "node_failed", "nodes_alloc", "outofmemory", "pending", "powerup_node", "preempted", "requeued",
                "resizing", "revoked", "running", "signaling", "stageout", "started", "suspended", "timeout")
NODE_GAUGES = ("cpus", "cpus_alloc", "cpus_effective", "cpus_idle", "gpus", "gpus_alloc", "memory_alloc_bytes",
               "memory_effective_bytes", "memory_free_bytes", "memory_bytes")
NODE_COUNTS = ("", "alloc", "blocked", "completing", "cloud", "down", "drain", "drained", "draining", "dyn_future",
               "dyn_normal", "external", "fail", "future", "idle", "invalid_reg", "maint", "mixed", "noresp",
               "planned", "power_down", "power_up", "powered_down", "powering_up", "reboot_issued", "reboot_req",
               "resv", "unknown")
PARTITION_NODE_COUNTS = ("alloc", "blocked", "cg", "cloud", "down", "drain", "drained", "draining", "dyn_future",
                         "dyn_normal", "external", "fail", "future", "idle", "invalid_reg", "maint", "mixed",
                         "no_resp", "planned", "power_down", "power_up", "powered_down", "powering_down",
                         "powering_up", "reboot_issued", "reboot_requested", "resv", "unknown")


@dataclass(frozen=True, slots=True)
class JobFacts:
    """What the metrics need of one job."""

    state: JobState
    completing: bool
    held: bool
    partition: str
    user: str
    account: str
    cpus: int            # allocated (0 while pending)
    memory_mb: int
    gpus: int
    nodes: int
    min_nodes: int       # requested, for the autoscaling gauges
    started: bool


def job_facts(job: Job) -> JobFacts:
    alloc = job.allocation
    holding = alloc is not None and (not job.state.is_finished or job.completing)
    return JobFacts(
        state=job.state, completing=job.completing, held=job.hold is not Hold.NONE,
        partition=job.request.partition or (job.request.partitions[0] if job.request.partitions else ""),
        user=job.user_name, account=job.request.account,
        cpus=alloc.total_cpus if holding and alloc else 0,
        memory_mb=sum(alloc.memory_mb_per_node) if holding and alloc else 0,
        gpus=alloc.total_gpus if holding and alloc else 0, nodes=len(alloc.nodes) if holding and alloc else 0,
        min_nodes=max(job.request.min_nodes, 1), started=bool(job.start_time))


def may_read(cfg: SlurmConfig, user: str, privileged: bool) -> bool:
    if privileged or not cfg.private_data:
        return True
    allowed = [u.strip() for u in (cfg.value("MetricsAuthUsers") or "").split(",") if u.strip()]
    if allowed:
        return user in allowed
    return "ignore_private_data" in (cfg.value("MetricsParameters") or "").lower()


def _job_counters(facts: Iterable[JobFacts]) -> dict[str, float]:
    counts: Counter[str] = Counter()
    for job in facts:
        counts[""] += 1
        counts[JOB_STATE_NAMES[job.state]] += 1
        counts["completing"] += job.completing
        counts["hold"] += job.held and job.state is JobState.PENDING
        counts["finished"] += job.state.is_finished
        counts["started"] += job.started
        counts["cpus_alloc"] += job.cpus
        counts["memory_alloc"] += job.memory_mb * MB
        counts["gpus_alloc"] += job.gpus
        counts["nodes_alloc"] += job.nodes
    return {name: float(counts[name]) for name in JOB_COUNTERS}


def _gauge(name: str, value: float, label: str = "", label_value: str = "") -> ctld_pb2.Gauge:
    return ctld_pb2.Gauge(name=name, value=value, label=label, label_value=label_value)


def jobs(facts: list[JobFacts]) -> list[ctld_pb2.Gauge]:
    return [_gauge(f"jobs_{name}" if name else "jobs", value) for name, value in _job_counters(facts).items()]


def users_accounts(facts: list[JobFacts]) -> list[ctld_pb2.Gauge]:
    gauges = []
    for prefix, label, key in (("user", "username", "user"), ("account", "account", "account")):
        groups: dict[str, list[JobFacts]] = defaultdict(list)
        for job in facts:
            groups[getattr(job, key)].append(job)
        for name, members in sorted(groups.items()):
            gauges += [_gauge(f"{prefix}_jobs_{counter}" if counter else f"{prefix}_jobs", value, label, name)
                       for counter, value in _job_counters(members).items()]
    return gauges


def _node_kinds(node: ctld_pb2.NodeInfo) -> list[str]:
    """The state counters a node adds to (Slurm's node states and flags)."""
    kinds = [{"IDLE": "idle", "ALLOCATED": "alloc", "MIXED": "mixed", "DOWN": "down"}.get(node.state, "unknown")]
    flags = set(node.flags)
    if "DRAIN" in flags:
        kinds += ["drain", "draining" if node.alloc_cpus else "drained"]
    if "NOT_RESPONDING" in flags:
        kinds.append("noresp")
    if "COMPLETING" in flags:
        kinds.append("completing")
    if "DYNAMIC_NORM" in flags:
        kinds.append("dyn_normal")
    return kinds


def nodes(records: list[ctld_pb2.NodeInfo]) -> list[ctld_pb2.Gauge]:
    gauges = []
    for node in records:
        values = (node.cpus, node.alloc_cpus, node.cpus, node.cpus - node.alloc_cpus, gpu_count(node.gres),
                  gpu_count(node.gres_used), node.alloc_memory_mb * MB, node.real_memory_mb * MB,
                  node.free_memory_mb * MB, node.real_memory_mb * MB)
        gauges += [_gauge(f"node_{name}", float(value), "node", node.name) for name, value in zip(NODE_GAUGES, values)]
    counts = Counter(kind for node in records for kind in _node_kinds(node))
    counts[""] = len(records)
    return gauges + [_gauge(f"nodes_{name}" if name else "nodes", float(counts[name])) for name in NODE_COUNTS]


def partitions(parts: list[ctld_pb2.PartitionInfo], records: list[ctld_pb2.NodeInfo],
               facts: list[JobFacts]) -> list[ctld_pb2.Gauge]:
    by_name = {n.name: n for n in records}
    jobs_in: dict[str, list[JobFacts]] = defaultdict(list)
    for job in facts:
        jobs_in[job.partition].append(job)
    gauges = []
    for part in parts:
        members = [by_name[n] for n in part.nodes if n in by_name]
        mine = jobs_in.get(part.name, [])
        values = {f"jobs_{k}" if k else "jobs": v for k, v in _job_counters(mine).items()}
        pending = [j for j in mine if j.state is JobState.PENDING]
        unheld = [j for j in pending if not j.held]
        values.update({
            "jobs_max_job_nodes": max((j.min_nodes for j in pending), default=0),
            "jobs_max_job_nodes_nohold": max((j.min_nodes for j in unheld), default=0),
            "jobs_min_job_nodes": max((j.min_nodes for j in pending), default=0),
            "jobs_min_job_nodes_nohold": max((j.min_nodes for j in unheld), default=0),
            "jobs_wait_part_node_limit": 0,
        })
        kinds = Counter(kind for node in members for kind in _node_kinds(node))
        kinds["cg"], kinds["no_resp"] = kinds["completing"], kinds["noresp"]
        values.update({f"nodes_{k}": kinds[k] for k in PARTITION_NODE_COUNTS})
        values.update({
            "nodes_cpus_efctv": sum(n.cpus for n in members),
            "nodes_cpus_idle": sum(n.cpus - n.alloc_cpus for n in members),
            "nodes_cpus_alloc": sum(n.alloc_cpus for n in members),
            "nodes_mem_alloc": sum(n.alloc_memory_mb for n in members) * MB,
            "nodes_mem_avail": sum(n.real_memory_mb for n in members) * MB,
            "nodes_mem_free": sum(n.free_memory_mb for n in members) * MB,
            "nodes_mem_tot": sum(n.real_memory_mb for n in members) * MB,
            "cpus": part.total_cpus, "gpus": sum(gpu_count(n.gres) for n in members), "nodes": len(part.nodes),
        })
        gauges += [_gauge(f"partition_{name}", float(value), "partition", part.name) for name, value in values.items()]
    return gauges + [_gauge("partitions", float(len(parts)))]


def scheduler(diag: ctld_pb2.DiagReply) -> list[ctld_pb2.Gauge]:
    cycles = diag.schedule_cycle_count
    values = {
        "agent_cnt": 0, "agent_queue_size": diag.agent_queue_size, "agent_thread_cnt": 0,
        "bf_depth_mean": 0, "bf_mean_cycle": 0, "bf_mean_table_sz": 0, "bf_queue_len_mean": 0,
        "bf_try_depth_mean": 0, "backfilled_het_jobs": 0, "backfilled_jobs": 0, "bf_active": 0, "bf_cycle_cnt": 0,
        "bf_cycle_last": 0, "bf_cycle_max": 0, "bf_cycle_tot": 0, "bf_depth_tot": 0, "bf_depth_try_tot": 0,
        "bf_last_depth": 0, "bf_last_depth_try": 0, "bf_queue_len": 0, "bf_queue_len_tot": 0, "bf_table_size": 0,
        "bf_table_size_tot": 0, "bf_when_last_cycle": 0,
        "sdiag_jobs_canceled": diag.jobs_canceled, "sdiag_jobs_completed": diag.jobs_completed,
        "sdiag_jobs_failed": diag.jobs_failed, "sdiag_jobs_pending": diag.jobs_pending,
        "sdiag_jobs_running": diag.jobs_running, "sdiag_jobs_started": diag.jobs_started,
        "sdiag_jobs_submitted": diag.jobs_submitted, "sdiag_job_states_ts": diag.job_states_time,
        "last_backfilled_jobs": 0, "sdiag_latency": 0, "schedule_cycle_cnt": cycles,
        "schedule_cycle_depth": diag.schedule_depth_sum, "schedule_cycle_last": diag.schedule_cycle_last_usec,
        "schedule_cycle_max": diag.schedule_cycle_max_usec, "schedule_cycle_tot": diag.schedule_cycle_sum_usec,
        "schedule_queue_len": diag.schedule_queue_length, "sched_exit_end": cycles, "sched_exit_max_depth": 0,
        "sched_exit_max_job_start": 0, "sched_exit_lic": 0, "sched_exit_rpc_cnt": 0, "sched_exit_timeout": 0,
        "bf_exit_end": 0, "bf_exit_max_job_start": 0, "bf_exit_max_job_test": 0, "bf_exit_state_changed": 0,
        "bf_exit_table_limit": 0, "bf_exit_timeout": 0,
        "sched_mean_cycle": diag.schedule_cycle_sum_usec // cycles if cycles else 0,
        "sched_mean_depth_cycle": diag.schedule_depth_sum // cycles if cycles else 0,
        "server_thread_cnt": diag.server_thread_count, "slurmdbd_queue_size": diag.dbd_agent_queue_size,
        "last_proc_req_start": diag.now, "sched_stats_timestamp": diag.now,
    }
    return [_gauge(name, float(value)) for name, value in values.items()]


def collect(name: str, state: ClusterState, diag: Callable[[], ctld_pb2.DiagReply]) -> list[ctld_pb2.Gauge]:
    """The gauges of one set, from the controller's state now."""
    if name == "scheduler":
        return scheduler(diag())
    facts = [job_facts(job) for job in state.jobs.values()] if name != "nodes" else []
    if name == "jobs":
        return jobs(facts)
    if name == "jobs-users-accts":
        return users_accounts(facts)
    usage = node_usage(state)
    records = [convert.node_info(rec, usage[node]) for node, rec in state.nodes.items()]
    if name == "nodes":
        return nodes(records)
    return partitions([convert.partition_info(p, state.nodes, state.cfg.preempt.mode)
                       for p in state.partitions.values()], records, facts)
