"""A controller job (JobInfo) as Slurm's ``v0.0.44_job_info`` / ``v0.0.43_job_info`` record.

Fields pyslurm has no notion of (burst buffers, federation, containers ...) carry Slurm's
empty values, so clients that read them find what a plain Slurm cluster gives.
"""
from __future__ import annotations

import signal
from collections.abc import Mapping
from typing import Any

from pyslurm_common.array_spec import parse_indices
from pyslurm_common.cpu_layout import socket_cores
from pyslurm_common.rpc import ctld_pb2, types_pb2

from .envelope import no_val

TIME_UNLIMITED = -1
_INFINITE_U32 = {"set": True, "infinite": True, "number": 0}
_NOT_SET = no_val(None)


def exit_code(code: int, sig: int) -> dict[str, Any]:
    """``process_exit_code_verbose``: SUCCESS, ERROR (code != 0) or SIGNALED (with its name)."""
    status = "SIGNALED" if sig else ("ERROR" if code else "SUCCESS")
    name = ""
    if sig:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
    return {"status": [status], "return_code": no_val(code),
            "signal": {"id": no_val(sig) if sig else _NOT_SET, "name": name}}


def job_state(job: types_pb2.JobInfo) -> list[str]:
    """Slurm's state list: the base state, then flags (COMPLETING, REQUEUED ...)."""
    state = [job.state or "PENDING"]
    if job.completing:
        state.append("COMPLETING")
    return state


def time_limit(minutes: int) -> dict[str, Any]:
    if minutes == TIME_UNLIMITED:
        return _INFINITE_U32
    return no_val(minutes) if minutes > 0 else _NOT_SET


def tres_string(cpus: int, mem_mb: int, nodes: int, gpus: int) -> str:
    parts = [f"cpu={cpus}"] if cpus else []
    if mem_mb:
        parts.append(f"mem={mem_mb // 1024}G" if mem_mb % 1024 == 0 else f"mem={mem_mb}M")
    if nodes:
        parts.append(f"node={nodes}")
    parts.append(f"billing={cpus}")
    if gpus:
        parts.append(f"gres/gpu={gpus}")
    return ",".join(parts) if cpus else ""


def _memory(job: types_pb2.JobInfo) -> int:
    if job.mem_per_node_mb:
        return job.mem_per_node_mb * max(job.num_nodes, 1)
    return job.mem_per_cpu_mb * job.num_cpus


def _sockets(cpu_ids: str, node: ctld_pb2.NodeInfo | None) -> list[dict[str, Any]]:
    """Every core of the node, socket by socket, ALLOCATED where the job holds one of its CPUs
    (Slurm 25.11's job_resources); [] where the node or the CPU ids are not known."""
    if node is None or not cpu_ids:
        return []
    held = socket_cores(parse_indices(cpu_ids), node.threads_per_core, node.cores_per_socket)
    return [{"index": s, "cores": [{"index": c, "status": ["ALLOCATED" if (s, c) in held else "UNALLOCATED"]}
                                   for c in range(max(node.cores_per_socket, 1))]}
            for s in range(max(node.sockets, 1))]


def job_resources(job: types_pb2.JobInfo, nodes: Mapping[str, ctld_pb2.NodeInfo] | None = None) -> dict[str, Any]:
    """The allocation, node by node: CPUs, memory and, given the nodes' layouts, every core."""
    memory_each = job.mem_per_node_mb or 0
    known = nodes or {}
    cpu_ids = list(job.node_cpu_ids)
    allocation = [{"index": i, "name": name, "cpus": {"count": cpus, "used": 0},
                   "memory": {"used": 0, "allocated": memory_each or job.mem_per_cpu_mb * cpus},
                   "sockets": _sockets(cpu_ids[i] if i < len(cpu_ids) else "", known.get(name))}
                  for i, (name, cpus) in enumerate(zip(job.node_names, job.cpus_per_node))]
    return {"select_type": ["CORE"], "nodes": {"count": len(job.node_names), "select_type": ["ONE_ROW"],
                                               "list": job.nodes, "whole": job.exclusive, "allocation": allocation},
            "cpus": sum(job.cpus_per_node), "threads_per_core": _NOT_SET}


def tres_per_node(text: str) -> str:
    """``gres:gpu:1`` (the controller's, as Slurm 22.05's squeue %b prints it) as Slurm 25.11
    writes a TRES name: ``gres/gpu:1``."""
    return ",".join("gres/" + item[5:] if item.startswith("gres:") else item for item in text.split(",")) if text else ""


# Members v0.0.44 added to job_info (v0.0.43 does not have them).
V0044_ONLY = ("step_id", "submit_line")


def job_record(job: types_pb2.JobInfo, cluster: str, version: str = "v0.0.44",
               nodes: Mapping[str, ctld_pb2.NodeInfo] | None = None) -> dict[str, Any]:
    """Every field Slurm's data parser writes for a job, from what the controller knows. A job
    without an allocation has no ``job_resources`` (Slurm writes null, which its document forbids)."""
    running_or_done = job.state not in ("PENDING", "")
    tres = tres_string(job.num_cpus, _memory(job), job.num_nodes, job.gpus)
    resources = {"job_resources": job_resources(job, nodes)} if job.node_names else {}
    record = {**resources,
        "account": job.account, "accrue_time": no_val(job.eligible_time), "admin_comment": "",
        "allocating_node": job.submit_host, "array_job_id": no_val(job.array_job_id),
        "array_task_id": no_val(int(job.array_task_str)) if job.array_task_str.isdigit() and not job.array_remainder
        else _NOT_SET,
        "array_max_tasks": no_val(job.array_throttle),
        "array_task_string": job.array_task_str if job.array_remainder else "",
        "association_id": 0, "batch_features": "", "batch_flag": job.launcher == "", "batch_host": job.batch_host,
        "flags": [], "burst_buffer": "", "burst_buffer_state": "", "cluster": cluster, "cluster_features": "",
        "command": job.command, "comment": job.comment, "container": "", "container_id": "", "contiguous": False,
        "core_spec": 0, "thread_spec": 32766, "cores_per_socket": _NOT_SET, "billable_tres": no_val(float(job.num_cpus)),
        "cpus_per_task": no_val(job.cpus_per_task or 1), "cpu_frequency_minimum": _NOT_SET,
        "cpu_frequency_maximum": _NOT_SET, "cpu_frequency_governor": _NOT_SET, "cpus_per_tres": "", "cron": "",
        "deadline": no_val(0), "delay_boot": no_val(0), "dependency": job.dependency,
        "derived_exit_code": exit_code(0, 0), "eligible_time": no_val(job.eligible_time),
        "end_time": no_val(job.end_time), "excluded_nodes": job.exc_nodes,
        "exit_code": exit_code(job.exit_code, job.exit_signal), "extra": "", "failed_node": "",
        "features": job.features, "federation_origin": "", "federation_siblings_active": "",
        "federation_siblings_viable": "", "gres_detail": [f"gpu:{job.gpus}(IDX:{job.gpu_indices})"]
        if job.gpus and job.gpu_indices else [],
        "group_id": job.group_id, "group_name": job.group_name, "het_job_id": no_val(0), "het_job_id_set": "",
        "het_job_offset": no_val(0), "job_id": job.job_id, "job_size_str": [], "job_state": job_state(job),
        "last_sched_evaluation": no_val(job.submit_time), "licenses": job.licenses,
        "licenses_allocated": job.licenses if job.state in ("RUNNING", "SUSPENDED") else "",
        "mail_type": [], "mail_user": job.user_name, "max_cpus": no_val(0), "max_nodes": no_val(0),
        "mcs_label": "", "memory_per_tres": "", "name": job.name, "network": "", "nodes": job.nodes,
        "nice": job.nice, "tasks_per_core": {"set": False, "infinite": True, "number": 0},
        "tasks_per_tres": no_val(0), "tasks_per_node": no_val(0), "tasks_per_socket": _NOT_SET,
        "tasks_per_board": no_val(0), "cpus": no_val(job.num_cpus), "node_count": no_val(job.num_nodes),
        "tasks": no_val(job.num_tasks or 1), "partition": job.partition, "prefer": "",
        "memory_per_cpu": no_val(job.mem_per_cpu_mb) if job.mem_per_cpu_mb else _NOT_SET,
        "memory_per_node": no_val(job.mem_per_node_mb) if job.mem_per_node_mb else _NOT_SET,
        "minimum_cpus_per_node": no_val(job.cpus_per_task or 1), "minimum_tmp_disk_per_node": no_val(0),
        "power": {"flags": []}, "preempt_time": no_val(0), "preemptable_time": no_val(0),
        "pre_sus_time": no_val(job.suspended_secs), "hold": job.held, "priority": no_val(job.priority),
        "priority_by_partition": [], "profile": ["NOT_SET"], "qos": job.qos, "reboot": False,
        "required_nodes": job.req_nodes, "required_switches": 0, "requeue": job.requeue, "resize_time": no_val(0),
        "restart_cnt": job.restarts, "resv_name": job.reservation, "scheduled_nodes": job.sched_nodes, "segment_size": 0,
        "selinux_context": "", "shared": ["none"] if job.exclusive else [],
        "step_id": {"sluid": "", "job_id": no_val(job.job_id), "step_het_component": _NOT_SET, "step_id": "entire"},
        "sockets_per_board": 0, "sockets_per_node": _NOT_SET,
        "start_time": no_val(job.start_time or job.expected_start), "state_description": "",
        "state_reason": job.reason or "None", "standard_input": job.std_in, "standard_output": job.std_out,
        "standard_error": job.std_err, "stdin_expanded": job.std_in, "stdout_expanded": job.std_out,
        "stderr_expanded": job.std_err, "submit_time": no_val(job.submit_time), "submit_line": job.submit_line,
        "suspend_time": no_val(job.suspend_time), "system_comment": "", "time_limit": time_limit(job.time_limit_min),
        "time_minimum": no_val(0), "threads_per_core": _NOT_SET, "tres_bind": "", "tres_freq": "",
        "tres_per_job": f"gres/gpu:{job.gpus}" if job.gpus and not job.tres_per_node else "", "tres_per_node": tres_per_node(job.tres_per_node),
        "tres_per_socket": "", "tres_per_task": "", "tres_req_str": tres,
        "tres_alloc_str": tres if running_or_done else "", "user_id": job.user_id, "user_name": job.user_name,
        "maximum_switch_wait_time": 0, "wckey": "", "current_working_directory": job.work_dir,
    }
    if version == "v0.0.43":
        for name in V0044_ONLY:
            del record[name]
    return record
