"""squeue --json/--yaml and sinfo --json/--yaml: jobs and nodes in Slurm 22.05's data_parser
v0.0.38 shapes (the openapi/v0.0.38 records slurmrestd 22.05 serves), key for key and in its order.

As in 22.05, the documents list every job (squeue) or node (sinfo): the commands' filters and
formats do not apply to them. Fields pyslurm has no notion of (burst buffers, federation, MCS,
containers ...) carry the values a plain Slurm cluster shows; "" is a field Slurm leaves unset
(``!!null`` in YAML). Pure: records in, plain trees out.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cli import job_states
from cli.scontrol_show import job_tres
from pyslurm_common import units
from pyslurm_common.array_spec import parse_indices
from pyslurm_common.cpu_layout import socket_cores
from pyslurm_common.rpc import messages as pb

META = {
    "plugin": {"type": "openapi/v0.0.38", "name": "Slurm OpenAPI v0.0.38"},
    "Slurm": {"version": {"major": 22, "micro": 8, "minor": 5}, "release": "22.05.8"},
}
SHOW_FLAGS = ["SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"]


def _or_null(value: int) -> int | None:
    return value or None


def _end_time(job: pb.JobInfo) -> int:
    if job.state in ("RUNNING", "SUSPENDED") and not job.completing:
        return job.start_time + job.time_limit_min * 60 if job.time_limit_min > 0 else 0
    return job.end_time


def _array_task_id(job: pb.JobInfo) -> int | None:
    return int(job.array_task_str) if job.array_task_str.isdigit() and not job.array_remainder else None


def _gres_detail(job: pb.JobInfo) -> list[str]:
    return [f"gpu:{len(ids.split(','))}(IDX:{ids})" for ids in job.node_gpu_ids if ids]


def _cores(cpu_ids: str, node: pb.NodeInfo | None) -> dict[str, dict[str, dict[str, str]]]:
    """The allocated CPU ids as Slurm's socket -> core map (a thread's core is allocated)."""
    if node is None or not cpu_ids:
        return {}
    sockets: dict[str, dict[str, dict[str, str]]] = {}
    for socket, core in sorted(socket_cores(parse_indices(cpu_ids), node.threads_per_core, node.cores_per_socket)):
        sockets.setdefault(str(socket), {"cores": {}})["cores"][str(core)] = "allocated"
    return sockets


def _job_resources(job: pb.JobInfo, nodes: Mapping[str, pb.NodeInfo]) -> dict[str, Any]:
    allocated = []
    for i, name in enumerate(job.node_names):
        cpu_ids = job.node_cpu_ids[i] if i < len(job.node_cpu_ids) else ""
        allocated.append({"sockets": _cores(cpu_ids, nodes.get(name)), "nodename": name, "cpus_used": 0,
                          "memory_used": 0,
                          "memory_allocated": job.node_memory_mb[i] if i < len(job.node_memory_mb) else 0})
    return {"nodes": job.nodes, "allocated_cores": sum(job.cpus_per_node), "allocated_hosts": len(job.node_names),
            "allocated_nodes": allocated}


def job_record(job: pb.JobInfo, cluster: str, nodes: Mapping[str, pb.NodeInfo]) -> dict[str, Any]:
    """One job, as 22.05's squeue --json writes it."""
    started = bool(job.start_time) and job.state != "PENDING"
    active = job.state in ("RUNNING", "SUSPENDED")
    worst = job_states.worst_step(job.steps)
    record: dict[str, Any] = {
        "account": job.account, "accrue_time": job.eligible_time, "admin_comment": "",
        "array_job_id": job.array_job_id, "array_task_id": _array_task_id(job), "array_max_tasks": job.array_throttle,
        "array_task_string": job.array_task_str if job.array_remainder else "", "association_id": 0,
        "batch_features": "", "batch_flag": not job.launcher, "batch_host": job.batch_host,
        "flags": ["JOB_WAS_RUNNING"] if active else [], "burst_buffer": "", "burst_buffer_state": "",
        "cluster": cluster, "cluster_features": "", "command": job.command, "comment": job.comment,
        "container": "", "contiguous": job.contiguous, "core_spec": None, "thread_spec": None,
        "cores_per_socket": _or_null(job.cores_per_socket), "billable_tres": float(job.num_cpus) if started else None,
        "cpus_per_task": job.cpus_per_task if job.cpus_per_task_given else None, "cpu_frequency_minimum": None,
        "cpu_frequency_maximum": None, "cpu_frequency_governor": None, "cpus_per_tres": "",
        "deadline": job.deadline, "delay_boot": 0, "dependency": job.dependency,
        "derived_exit_code": _wait_status((worst.exit_code, worst.exit_signal) if worst else (0, 0)),
        "eligible_time": job.eligible_time, "end_time": _end_time(job), "excluded_nodes": job.exc_nodes,
        "exit_code": _wait_status((job.exit_code, job.exit_signal)), "features": job.features,
        "federation_origin": "", "federation_siblings_active": "", "federation_siblings_viable": "",
        "gres_detail": _gres_detail(job), "group_id": job.group_id, "group_name": job.group_name,
        "job_id": job.job_id,
    }
    if job.node_names:
        record["job_resources"] = _job_resources(job, nodes)
    record.update({
        "job_state": job.state or "PENDING", "last_sched_evaluation": job.start_time if started else job.submit_time,
        "licenses": job.licenses, "max_cpus": 0, "max_nodes": 0, "mcs_label": "", "memory_per_tres": "",
        "name": job.name, "nodes": job.nodes, "nice": job.nice or None,
        "tasks_per_core": _or_null(job.ntasks_per_core), "tasks_per_node": job.ntasks_per_node,
        "tasks_per_socket": _or_null(job.ntasks_per_socket), "tasks_per_board": 0, "cpus": job.num_cpus,
        "node_count": job.num_nodes, "tasks": job.num_tasks or 1, "het_job_id": 0, "het_job_id_set": "",
        "het_job_offset": 0, "partition": job.partition, "prefer": job.prefer,
        "memory_per_node": _or_null(job.mem_per_node_mb), "memory_per_cpu": _or_null(job.mem_per_cpu_mb),
        "minimum_cpus_per_node": max(job.cpus_per_task or 1, job.min_cpus_per_node),
        "minimum_tmp_disk_per_node": job.tmp_disk_mb, "preempt_time": 0,
        "pre_sus_time": job_states.pre_suspend_seconds(job),
        "priority": 0 if job.held else job.priority, "profile": None, "qos": job.qos, "reboot": False,
        "required_nodes": job.req_nodes, "requeue": job.requeue, "resize_time": 0, "restart_cnt": job.restarts,
        "resv_name": job.reservation, "shared": None, "show_flags": list(SHOW_FLAGS), "sockets_per_board": 0,
        "sockets_per_node": _or_null(job.sockets_per_node), "start_time": job.start_time if started else 0,
        "state_description": "", "state_reason": job.reason or "None",
        "standard_error": job.std_err_given,   # the patterns as given, made absolute; "" when defaulted
        "standard_input": job.std_in or "/dev/null", "standard_output": job.std_out_given, "submit_time": job.submit_time,
        "suspend_time": job.suspend_time, "system_comment": "",
        "time_limit": job.time_limit_min if job.time_limit_min > 0 else None, "time_minimum": job.time_min,
        "threads_per_core": _or_null(job.threads_per_core), "tres_bind": "", "tres_freq": "", "tres_per_job": "",
        "tres_per_node": job.tres_per_node, "tres_per_socket": "", "tres_per_task": "",
        "tres_req_str": job_tres(job), "tres_alloc_str": job_tres(job) if started else "", "user_id": job.user_id,
        "user_name": job.user_name, "wckey": "", "current_working_directory": job.work_dir,
    })
    return record


def _wait_status(code_and_signal: tuple[int, int]) -> int:
    """Slurm's raw exit_code: a wait(2) status (code in the high byte, signal in the low)."""
    code, sig = code_and_signal
    return ((code & 0xFF) << 8) | (sig & 0x7F)


def jobs_document(jobs: Iterable[pb.JobInfo], cluster: str, nodes: Iterable[pb.NodeInfo]) -> dict[str, Any]:
    """The whole ``squeue --json`` document."""
    by_name = {n.name: n for n in nodes}
    return {"meta": META, "errors": [], "jobs": [job_record(j, cluster, by_name) for j in jobs]}


def node_record(node: pb.NodeInfo) -> dict[str, Any]:
    """One node, as 22.05's sinfo --json writes it."""
    from pyslurm_common.users import user_name

    tres = f"cpu={node.cpus},mem={units.format_memory_mb(node.real_memory_mb)},billing={node.cpus}"
    used = f"cpu={node.alloc_cpus}" + (f",mem={units.format_memory_mb(node.alloc_memory_mb)}"
                                       if node.alloc_memory_mb else "")
    return {
        "architecture": node.arch, "burstbuffer_network_address": "", "boards": 1, "boot_time": node.boot_time,
        "comment": "", "cores": node.cores_per_socket, "cpu_binding": 0, "cpu_load": int(node.cpu_load * 100),
        "extra": "", "free_memory": node.free_memory_mb, "cpus": node.cpus, "last_busy": node.last_busy_time,
        "features": node.features, "active_features": node.features, "gres": node.gres, "gres_drained": "N/A",
        "gres_used": node.gres_used, "mcs_label": "", "name": node.name, "next_state_after_reboot": "invalid",
        "address": node.address or node.name, "hostname": node.hostname or node.name,
        "state": (node.state or "UNKNOWN").lower(), "state_flags": list(node.flags),
        "next_state_after_reboot_flags": [], "operating_system": node.os, "owner": None,
        "partitions": list(node.partitions), "port": node.port, "real_memory": node.real_memory_mb,
        "reason": node.reason, "reason_changed_at": node.reason_time,
        "reason_set_by_user": user_name(node.reason_uid) if node.reason else None,
        "slurmd_start_time": node.slurmd_start_time, "sockets": node.sockets, "threads": node.threads_per_core,
        "temporary_disk": node.tmp_disk_mb, "weight": node.weight, "tres": tres, "slurmd_version": node.version,
        "alloc_memory": node.alloc_memory_mb, "alloc_cpus": node.alloc_cpus, "idle_cpus": node.cpus - node.alloc_cpus,
        "tres_used": used if node.alloc_cpus else "", "tres_weighted": float(node.alloc_cpus),
    }


def nodes_document(nodes: Iterable[pb.NodeInfo]) -> dict[str, Any]:
    """The whole ``sinfo --json`` document."""
    return {"meta": META, "errors": [], "nodes": [node_record(n) for n in nodes]}
