"""sacct --json: accounting records in Slurm 22.05's data_parser layout (openapi dbv0.0.38).

``{"meta": {...}, "errors": [], "jobs": [{..., "steps": [...]}]}`` with 22.05's keys in its
order (checked against real sacct --json in tests/unit/test_data_output_oracle.py): ids, names,
user/group/account/partition/QOS, state and reason, exit codes (``SUCCESS``/``FAILED``/
``SIGNALED`` with the signal's description), times, nodes, TRES requested/allocated, a step's
usage figures; what pyslurm does not keep (comments, WCKeys, MCS labels, energy) carries what
Slurm writes without it. Steps are always included (``-X`` does not apply, as in Slurm). Pure:
``now`` is given.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable
from typing import Any

from cli import gpu_figures, job_states
from cli.data_output import EMPTY
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
            name = signal.strsignal(sig) or str(sig)
        except ValueError:
            name = str(sig)
        return {"status": "SIGNALED", "return_code": None, "signal": {"signal_id": sig, "name": name}}
    return {"status": "SUCCESS" if code == 0 else "FAILED", "return_code": code}


def _cpu_time(usec: int) -> dict[str, int]:
    seconds, micro = divmod(usec, 1_000_000)
    return {"seconds": seconds, "microseconds": micro}


def _tres_item(kind: str, name: str | None, tres_id: int, count: int | None) -> dict[str, Any]:
    return {"type": kind, "name": name, "id": tres_id, "count": count}


def _tres(cpus: int, mem_mb: int, nodes: int, gpus: int = 0, *, allocated: bool = False,
          billing: bool = True) -> list[dict[str, Any]]:
    """A job's or step's TRES list in Slurm's id order; an allocation lists energy (unmeasured)."""
    tres = [_tres_item("cpu", None, 1, cpus)]
    if mem_mb:
        tres.append(_tres_item("mem", None, 2, mem_mb))
    if allocated and billing:
        tres.append(_tres_item("energy", None, 3, None))
    tres.append(_tres_item("node", None, 4, nodes))
    if billing:
        tres.append(_tres_item("billing", None, 5, cpus))
    if gpus:
        tres.append(_tres_item("gres", "gpu", _GPU_TRES_ID, gpus))
    return tres


def _step(row: SacctRow) -> dict[str, Any]:
    step = row.step
    assert step is not None
    nodes = hostlist.expand(step.nodes) if step.nodes else []
    return {
        "nodes": {"list": nodes, "count": len(nodes), "range": step.nodes},
        "tres": {"requested": _usage_tres(step), "consumed": _consumed(step),
                 "allocated": _tres(step.num_cpus, req_mem_mb(row.job), len(nodes), billing=False)},
        "time": {"elapsed": elapsed_seconds(row), "end": step.end_time, "start": step.start_time, "suspended": 0,
                 "system": _cpu_time(step.system_cpu_usec), "total": _cpu_time(step.user_cpu_usec + step.system_cpu_usec),
                 "user": _cpu_time(step.user_cpu_usec)},
        "exit_code": _exit_code(step.exit_code, step.exit_signal),
        "tasks": {"count": step.num_tasks},
        "pid": None,
        "CPU": {"requested_frequency": {"min": 0, "max": 0}, "governor": []},
        "kill_request_user": None,
        "state": step.state,
        "statistics": {"CPU": {"actual_frequency": 0}, "energy": {"consumed": 0}},
        "step": {"job_id": row.job.job_id, "het": {"component": None}, "id": step.step_id,
                 "name": step.name or step.step_id},
        "task": {"distribution": "Block" if step.step_id.isdigit() else "Unknown"},
    }


def _usage_tres(step: "pb.StepInfo") -> dict[str, list[dict[str, Any]]]:
    """Slurm's tres.requested of a step (its TRESUsageIn figures): CPU seconds and peak memory,
    on the node that saw them, and its GPUs' gpumem/gpuutil when sampled."""
    cpu_seconds = (step.user_cpu_usec + step.system_cpu_usec) // 1_000_000
    memory = step.max_rss_kb * 1024
    where = {"task": 0, "node": step.max_rss_node or step.nodes.split(",")[0]}
    usage: dict[str, list[dict[str, Any]]] = {
        "max": [{**_tres_item("cpu", None, 1, cpu_seconds), **where}, {**_tres_item("mem", None, 2, memory), **where}],
        "min": [{**_tres_item("cpu", None, 1, cpu_seconds), **where}, {**_tres_item("mem", None, 2, memory), **where}],
        "average": [_tres_item("cpu", None, 1, cpu_seconds), _tres_item("mem", None, 2, memory)],
        "total": [_tres_item("cpu", None, 1, cpu_seconds), _tres_item("mem", None, 2, memory)]}
    kinds: tuple[tuple[str, gpu_figures.Kind], ...] = (("max", "max"), ("average", "ave"), ("total", "tot"))
    for key, kind in kinds:
        figures = gpu_figures.totals(step.gpus, kind, step.num_tasks)
        if figures is not None:
            usage[key].extend(
                {**_tres_item("gres", name, _GPU_USAGE_TRES_IDS[name], count), **(where if key == "max" else {})}
                for name, count in zip(("gpumem", "gpuutil"), figures))
    return usage


def _consumed(step: "pb.StepInfo") -> dict[str, list[dict[str, Any]]]:
    """TRESUsageOut: energy and file system traffic, which no gather plugin measures here (0, as
    Slurm reports them without one)."""
    where = {"task": 0, "node": step.max_rss_node or step.nodes.split(",")[0]}
    measured = [_tres_item("energy", None, 3, 0), _tres_item("fs", "disk", 6, 0)]
    return {"max": [{**t, **where} for t in measured], "min": [{**t, **where} for t in measured],
            "average": measured, "total": [dict(t) for t in measured]}


def _job(record: "pb.JobRecord", now: int) -> dict[str, Any]:
    job = record.job
    row = SacctRow(record, None, now)
    steps = [SacctRow(record, step, now) for step in record.steps]
    started = bool(job.start_time)
    user_usec = sum(s.user_cpu_usec for s in record.steps)
    system_usec = sum(s.system_cpu_usec for s in record.steps)
    worst = job_states.worst_step(record.steps)
    task = _array_task(job)
    return {
        "account": job.account,
        "comment": {"administrator": None, "job": None, "system": None},
        "allocation_nodes": job.num_nodes if started else 0,
        "array": {"job_id": job.array_job_id, "limits": {"max": {"running": {"tasks": job.array_throttle}}},
                  "task": job.array_task_str if job.array_job_id and task is None else None, "task_id": task},
        "association": {"account": job.account, "cluster": record.cluster, "partition": None, "user": job.user_name},
        "cluster": record.cluster,
        "constraints": job.features or EMPTY,
        "container": None,
        "derived_exit_code": _exit_code(worst.exit_code, worst.exit_signal) if worst else _exit_code(0, 0),
        "time": {"elapsed": elapsed_seconds(row), "eligible": job.eligible_time, "end": job.end_time,
                 "start": job.start_time, "submission": job.submit_time, "suspended": 0,
                 "system": _cpu_time(system_usec), "limit": job.time_limit_min if job.time_limit_min > 0 else None,
                 "total": _cpu_time(user_usec + system_usec), "user": _cpu_time(user_usec)},
        "exit_code": _exit_code(job.exit_code, job.exit_signal),
        "flags": ["CLEAR_SCHEDULING", "STARTED_ON_SCHEDULE"] if started else [],
        "group": job.group_name,
        "het": {"job_id": 0, "job_offset": None},
        "job_id": job.job_id,
        "name": job.name,
        "mcs": {"label": EMPTY},
        "nodes": job.nodes or "None assigned",
        "partition": job.partition,
        "priority": job.priority,
        "qos": job.qos,
        "required": {"CPUs": job.num_cpus, "memory": req_mem_mb(job)},
        "kill_request_user": user_name(job.cancelled_by) if job.cancelled else None,
        "reservation": {"id": record.reservation_id, "name": 0},   # 22.05 writes 0 for every name
        "state": {"current": job.state or "PENDING", "reason": job.reason or "None"},
        "steps": [_step(s) for s in steps],
        "tres": {"allocated": _tres(alloc_cpus(row), req_mem_mb(job), job.num_nodes, job.gpus, allocated=True)
                 if started else [],
                 "requested": _tres(job.num_cpus, req_mem_mb(job), job.num_nodes, job.gpus)},
        "user": job.user_name,
        "wckey": {"wckey": EMPTY, "flags": []},
        "working_directory": job.work_dir,
    }


def _array_task(job: "pb.JobInfo") -> int | None:
    return int(job.array_task_str) if job.array_task_str.isdigit() else None


def document(records: Iterable["pb.JobRecord"], now: int) -> dict[str, Any]:
    """The whole ``sacct --json`` document."""
    return {"meta": META, "errors": [], "jobs": [_job(r, now) for r in records]}
