"""sacct --json: accounting records in Slurm 22.05's data_parser layout (openapi dbv0.0.38).

``{"meta": {...}, "errors": [], "jobs": [{..., "steps": [...]}]}`` with the job and step keys
tools read: ids, names, user/group/account/partition/QOS, state and reason, exit codes
(``SUCCESS``/``FAILED``/``SIGNALED``), times (epoch seconds, elapsed and limit), nodes, TRES
requested/allocated and CPU time. Steps are always included (``-X`` does not apply, as in
Slurm). Pure: ``now`` is given.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable
from typing import Any

from cli import gpu_figures
from cli.sacct_fields import SacctRow, alloc_cpus, elapsed_seconds, req_mem_mb
from pyslurm_common import hostlist
from pyslurm_common.users import user_name
from pyslurm_common.rpc import messages as pb

META = {
    "plugin": {"type": "openapi/dbv0.0.38", "name": "Slurm OpenAPI DB v0.0.38"},
    "Slurm": {"version": {"major": 22, "micro": 8, "minor": 5}, "release": "22.05.8"},
}
# TRES ids as `sacctmgr show tres` numbers them (gres/gpu: the first id after the fixed ones).
_TRES_IDS = {"cpu": 1, "mem": 2, "node": 4, "billing": 5}
_GPU_TRES_ID = 1001
# gres/gpumem, gres/gpuutil: the ids AccountingStorageTRES=gres/gpu,gres/gpumem,gres/gpuutil gives them.
_GPU_USAGE_TRES_IDS = {"gpumem": 1002, "gpuutil": 1003}


def _exit_code(code: int, sig: int) -> dict[str, Any]:
    if sig:
        try:
            name = signal.Signals(sig).name.removeprefix("SIG")
        except ValueError:
            name = str(sig)
        return {"status": "SIGNALED", "return_code": code, "signal": {"signal_id": sig, "name": name}}
    return {"status": "SUCCESS" if code == 0 else "FAILED", "return_code": code}


def _cpu_time(usec: int) -> dict[str, int]:
    seconds, micro = divmod(usec, 1_000_000)
    return {"seconds": seconds, "microseconds": micro}


def _tres(cpus: int, mem_mb: int, nodes: int, gpus: int = 0) -> list[dict[str, Any]]:
    counts = {"cpu": cpus, "mem": mem_mb, "node": nodes, "billing": cpus}
    tres = [{"type": name, "name": "", "id": _TRES_IDS[name], "count": count}
            for name, count in counts.items() if count]
    if gpus:
        tres.append({"type": "gres", "name": "gpu", "id": _GPU_TRES_ID, "count": gpus})
    return tres


def _step(row: SacctRow) -> dict[str, Any]:
    step = row.step
    assert step is not None
    nodes = hostlist.expand(step.nodes) if step.nodes else []
    return {
        "step": {"job_id": row.job.job_id, "id": f"{row.job.job_id}.{step.step_id}", "name": step.name or step.step_id},
        "state": step.state,
        "exit_code": _exit_code(step.exit_code, step.exit_signal),
        "nodes": {"count": len(nodes), "range": step.nodes, "list": nodes},
        "tasks": {"count": step.num_tasks},
        "time": {"elapsed": elapsed_seconds(row), "start": step.start_time, "end": step.end_time,
                 "user": _cpu_time(step.user_cpu_usec), "system": _cpu_time(step.system_cpu_usec),
                 "total": _cpu_time(step.user_cpu_usec + step.system_cpu_usec)},
        "tres": {"allocated": _tres(step.num_cpus, 0, len(nodes)), "requested": _usage_tres(step)},
    }


def _usage_tres(step: "pb.StepInfo") -> dict[str, list[dict[str, Any]]]:
    """Slurm's tres.requested of a step: its peak memory, and its GPUs' gpumem/gpuutil when sampled."""
    usage: dict[str, list[dict[str, Any]]] = {
        "max": [{"type": "mem", "name": "", "id": 2, "count": step.max_rss_kb * 1024}]}
    kinds: tuple[tuple[str, gpu_figures.Kind], ...] = (("max", "max"), ("average", "ave"), ("total", "tot"))
    for key, kind in kinds:
        figures = gpu_figures.totals(step.gpus, kind, step.num_tasks)
        if figures is not None:
            usage.setdefault(key, []).extend(
                {"type": "gres", "name": name, "id": _GPU_USAGE_TRES_IDS[name], "count": count}
                for name, count in zip(("gpumem", "gpuutil"), figures))
    return usage


def _job(record: "pb.JobRecord", now: int) -> dict[str, Any]:
    job = record.job
    row = SacctRow(record, None, now)
    steps = [SacctRow(record, step, now) for step in record.steps]
    started = bool(job.start_time)
    user_usec = sum(s.user_cpu_usec for s in record.steps)
    system_usec = sum(s.system_cpu_usec for s in record.steps)
    worst = max(record.steps, key=lambda s: (s.exit_code, s.exit_signal), default=None)
    return {
        "account": job.account,
        "allocation_nodes": job.num_nodes if started else 0,
        "association": {"account": job.account, "cluster": record.cluster, "partition": job.partition,
                        "user": job.user_name},
        "cluster": record.cluster,
        "derived_exit_code": _exit_code(worst.exit_code, worst.exit_signal) if worst else _exit_code(0, 0),
        "exit_code": _exit_code(job.exit_code, job.exit_signal),
        "group": job.group_name,
        "job_id": job.job_id,
        "name": job.name,
        "nodes": job.nodes or "None assigned",
        "partition": job.partition,
        "priority": job.priority,
        "qos": job.qos,
        "required": {"CPUs": job.num_cpus, "memory": req_mem_mb(job)},
        "kill_request_user": user_name(job.cancelled_by) if job.cancelled else None,
        "state": {"current": job.state or "PENDING", "reason": job.reason or "None"},
        "steps": [_step(s) for s in steps],
        "time": {"elapsed": elapsed_seconds(row), "eligible": job.eligible_time, "end": job.end_time,
                 "start": job.start_time, "submission": job.submit_time, "suspended": 0,
                 "limit": job.time_limit_min if job.time_limit_min > 0 else None,
                 "user": _cpu_time(user_usec), "system": _cpu_time(system_usec),
                 "total": _cpu_time(user_usec + system_usec)},
        "tres": {"allocated": _tres(alloc_cpus(row), req_mem_mb(job), job.num_nodes, job.gpus) if started else [],
                 "requested": _tres(job.num_cpus, req_mem_mb(job), job.num_nodes, job.gpus)},
        "user": job.user_name,
        "working_directory": job.work_dir,
    }


def document(records: Iterable["pb.JobRecord"], now: int) -> dict[str, Any]:
    """The whole ``sacct --json`` document."""
    return {"meta": META, "errors": [], "jobs": [_job(r, now) for r in records]}
