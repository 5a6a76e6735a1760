"""Nodes, partitions, controller statistics and fair-share rows in Slurm's v0.0.44/v0.0.43 shapes."""
from __future__ import annotations

from typing import Any

from pyslurm_common.gres import gpu_count
from pyslurm_common.rpc import ctld_pb2
from pyslurm_common.users import user_name

from .envelope import no_val
from .job_fields import time_limit

_NOT_SET = no_val(None)
_INFINITE = {"set": False, "infinite": True, "number": 0}


def node_tres(cpus: int, mem_mb: int, gpus: int) -> str:
    mem = f"{mem_mb // 1024}G" if mem_mb and mem_mb % 1024 == 0 else f"{mem_mb}M"
    return f"cpu={cpus},mem={mem},billing={cpus}" + (f",gres/gpu={gpus}" if gpus else "")


def node_record(node: ctld_pb2.NodeInfo, cluster: str) -> dict[str, Any]:
    gpus = gpu_count(node.gres)
    used_gpus = gpu_count(node.gres_used)
    return {
        "architecture": node.arch, "burstbuffer_network_address": "", "boards": 1,
        "boot_time": no_val(node.boot_time), "tls_cert_last_renewal": no_val(0), "cert_flags": [],
        "cluster_name": cluster, "cores": node.cores_per_socket, "specialized_cores": 0, "cpu_binding": 0,
        "cpu_load": int(node.cpu_load * 100), "free_mem": no_val(node.free_memory_mb), "cpus": node.cpus,
        "effective_cpus": node.cpus, "specialized_cpus": "",
        "energy": {"average_watts": 0, "base_consumed_energy": 0, "consumed_energy": 0,
                   "current_watts": no_val(0), "previous_consumed_energy": 0, "last_collected": 0},
        "external_sensors": {}, "extra": node.extra, "power": {},
        "features": [f for f in node.features.split(",") if f], "active_features": [f for f in node.features.split(",") if f],
        "gpu_spec": "", "gres": node.gres, "gres_drained": "N/A", "gres_used": node.gres_used,
        "instance_id": "", "instance_type": "", "last_busy": no_val(node.last_busy_time), "mcs_label": "",
        "specialized_memory": 0, "name": node.name, "next_state_after_reboot": ["INVALID"],
        "address": node.address, "hostname": node.hostname or node.name, "state": [node.state, *node.flags],
        "operating_system": node.os, "owner": "", "partitions": list(node.partitions), "port": node.port,
        "real_memory": node.real_memory_mb, "res_cores_per_gpu": 0, "comment": node.comment, "reason": node.reason,
        "reason_changed_at": no_val(node.reason_time),
        "reason_set_by_user": user_name(node.reason_uid) if node.reason else "",
        "resume_after": no_val(0), "reservation": "", "alloc_memory": node.alloc_memory_mb,
        "alloc_cpus": node.alloc_cpus, "alloc_idle_cpus": node.cpus - node.alloc_cpus,
        "tres_used": node_tres(node.alloc_cpus, node.alloc_memory_mb, used_gpus) if node.alloc_cpus else "",
        "tres_weighted": float(node.alloc_cpus), "slurmd_start_time": no_val(node.slurmd_start_time),
        "sockets": node.sockets, "threads": node.threads_per_core, "temporary_disk": node.tmp_disk_mb,
        "weight": node.weight, "topology": "", "tres": node_tres(node.cpus, node.real_memory_mb, gpus),
        "version": node.version,
    }


def partition_record(part: ctld_pb2.PartitionInfo, cluster: str, gpus: int) -> dict[str, Any]:
    allowed = "" if part.allow_accounts == "ALL" else part.allow_accounts
    allowed_qos = "" if part.allow_qos == "ALL" else part.allow_qos
    return {
        "nodes": {"allowed_allocation": "", "configured": part.node_expr, "total": len(part.nodes)},
        "accounts": {"allowed": allowed, "deny": part.deny_accounts}, "groups": {"allowed": ""},
        "qos": {"allowed": allowed_qos, "deny": part.deny_qos, "assigned": part.qos}, "alternate": "",
        "tres": {"billing_weights": "",
                 "configured": node_tres(part.total_cpus, part.total_memory_mb, gpus) + f",node={len(part.nodes)}"},
        "cluster": cluster, "select_type": [], "cpus": {"task_binding": 0, "total": part.total_cpus},
        "defaults": {"memory_per_cpu": part.def_mem_per_cpu,
                     "partition_memory_per_cpu": no_val(part.def_mem_per_cpu) if part.def_mem_per_cpu else _NOT_SET,
                     "partition_memory_per_node": _NOT_SET,
                     "time": time_limit(part.default_time_min) if part.default_time_min else _NOT_SET, "job": ""},
        "grace_time": part.grace_time,
        "maximums": {"cpus_per_node": _INFINITE, "cpus_per_socket": _INFINITE, "memory_per_cpu": 0,
                     "partition_memory_per_cpu": _NOT_SET, "partition_memory_per_node": no_val(0),
                     "nodes": no_val(part.max_nodes) if part.max_nodes else _INFINITE, "shares": 1,
                     "oversubscribe": {"jobs": 1, "flags": []}, "time": time_limit(part.max_time_min),
                     "over_time_limit": _NOT_SET},
        "minimums": {"nodes": part.min_nodes}, "name": part.name, "node_sets": "",
        "priority": {"job_factor": part.priority_job_factor, "tier": part.priority_tier},
        "timeouts": {"resume": _NOT_SET, "suspend": _NOT_SET}, "topology": "",
        "partition": {"state": [part.state]},
        "suspend_time": _NOT_SET,
    }


def statistics(diag: ctld_pb2.DiagReply) -> dict[str, Any]:
    cycles = diag.schedule_cycle_count
    return {
        "parts_packed": 1, "req_time": no_val(diag.now), "req_time_start": no_val(diag.since),
        "server_thread_count": diag.server_thread_count, "agent_queue_size": diag.agent_queue_size,
        "agent_count": 0, "agent_thread_count": 0, "dbd_agent_queue_size": diag.dbd_agent_queue_size,
        "gettimeofday_latency": 0, "schedule_cycle_max": diag.schedule_cycle_max_usec,
        "schedule_cycle_last": diag.schedule_cycle_last_usec, "schedule_cycle_sum": diag.schedule_cycle_sum_usec,
        "schedule_cycle_total": cycles,
        "schedule_cycle_mean": diag.schedule_cycle_sum_usec // cycles if cycles else 0,
        "schedule_cycle_mean_depth": diag.schedule_depth_sum // cycles if cycles else 0,
        "schedule_cycle_per_minute": 0, "schedule_cycle_depth": diag.schedule_depth_sum,
        "schedule_queue_length": diag.schedule_queue_length, "jobs_submitted": diag.jobs_submitted,
        "jobs_started": diag.jobs_started, "jobs_completed": diag.jobs_completed,
        "jobs_canceled": diag.jobs_canceled, "jobs_failed": diag.jobs_failed, "jobs_pending": diag.jobs_pending,
        "jobs_running": diag.jobs_running, "job_states_ts": no_val(diag.job_states_time),
        "bf_backfilled_jobs": 0, "bf_last_backfilled_jobs": 0, "bf_backfilled_het_jobs": 0, "bf_cycle_counter": 0,
        "bf_cycle_mean": 0, "bf_depth_mean": 0, "bf_depth_mean_try": 0, "bf_cycle_sum": 0, "bf_cycle_last": 0,
        "bf_cycle_max": 0, "bf_last_depth": 0, "bf_last_depth_try": 0, "bf_depth_sum": 0, "bf_depth_try_sum": 0,
        "bf_queue_len": 0, "bf_queue_len_mean": 0, "bf_queue_len_sum": 0, "bf_table_size": 0,
        "bf_table_size_sum": 0, "bf_table_size_mean": 0, "bf_when_last_cycle": no_val(0), "bf_active": False,
        "rpcs_by_message_type": [], "rpcs_by_user": [], "pending_rpcs": [], "pending_rpcs_by_hostlist": [],
    }


def share_record(index: int, row: ctld_pb2.ShareInfo, cluster: str) -> dict[str, Any]:
    fairshare = row.fairshare if row.HasField("fairshare") else 0.0
    level = row.level_fs if row.HasField("level_fs") else 0.0
    return {
        "id": index, "cluster": cluster, "name": row.user or row.account,
        "parent": row.account if row.user else "", "partition": row.partition,
        "shares_normalized": no_val(row.norm_shares),
        "shares": no_val(row.raw_shares) if row.HasField("raw_shares") else no_val(None),
        "tres": {"run_seconds": [], "group_minutes": [], "usage": []},
        "effective_usage": no_val(row.effective_usage), "usage_normalized": no_val(row.norm_usage),
        "usage": int(row.raw_usage), "fairshare": {"factor": no_val(fairshare), "level": no_val(level)},
        "type": ["USER"] if row.user else ["ASSOCIATION"],
    }


def reservation_record(resv: ctld_pb2.ReservationInfo) -> dict[str, Any]:
    """One ``reservation_info`` (scontrol show reservation's fields)."""
    return {
        "accounts": resv.accounts, "burst_buffer": "", "core_count": resv.core_count, "core_specializations": [],
        "end_time": no_val(resv.end_time), "features": "", "flags": [f for f in resv.flags.split(",") if f],
        "groups": "", "licenses": resv.licenses, "max_start_delay": 0, "name": resv.name, "node_count": resv.node_count,
        "node_list": resv.nodes, "partition": resv.partition, "purge_completed": {"time": no_val(None)},
        "start_time": no_val(resv.start_time), "watts": no_val(None), "tres": resv.tres, "users": resv.users,
    }
