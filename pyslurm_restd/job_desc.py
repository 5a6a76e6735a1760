"""Slurm's ``job_desc_msg`` (what POST job/submit and POST job/{id} carry) into the controller's
terms: a JobDesc for a submission, scontrol-style ``Key=Value`` settings for an update.

Numbers come as plain integers or as ``{set, infinite, number}``; every one is bounded. The
fields beyond the basic request are job_desc_extra's; a field pyslurm cannot act on is refused by
name unless it is at Slurm's default, never silently ignored.
"""
from __future__ import annotations

import os
import socket
from typing import Any

from pyslurm_common.rpc import types_pb2

from .job_desc_extra import describe_more, invalid, number, text
from .request_schemas import JOB_UPDATE

U64_MAX = 2**63 - 1
MAX_SCRIPT = 2**31 - 1
PATH_MAX = 4096

# Read here; every other job_desc_msg field through job_desc_extra (or refused there).
SUBMIT_FIELDS = frozenset({
    "name", "partition", "account", "qos", "script", "environment", "current_working_directory", "tasks",
    "cpus_per_task", "memory_per_node", "memory_per_cpu", "minimum_nodes", "maximum_nodes", "nodes", "time_limit",
    "standard_output", "standard_error", "standard_input", "argv", "hold", "nice", "array", "dependency",
    "constraints", "required_nodes", "excluded_nodes", "requeue", "begin_time", "tres_per_node", "shared",
})
UPDATE_FIELDS = frozenset(JOB_UPDATE)
_invalid = invalid


def _text(value: Any, field: str, limit: int = PATH_MAX) -> str:
    return text(value, field, limit)


def _strings(value: Any, field: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or len(value) > 100000:
        raise _invalid(f"{field}: expected a list of strings")
    return value


def _csv(value: Any, field: str) -> str:
    return ",".join(_strings(value, field)) if isinstance(value, list) else _text(value, field)


def _gpus(tres_per_node: str) -> str:
    """``gres/gpu:2`` or ``gres:gpu:2`` (Slurm's tres_per_node) as a --gres value."""
    for prefix in ("gres/", "gres:"):
        if tres_per_node.startswith(prefix):
            return tres_per_node[len(prefix):]
    return tres_per_node


def _job(body: dict[str, Any]) -> dict[str, Any]:
    job = body.get("job")
    if not isinstance(job, dict):
        raise _invalid("no job description given (a heterogeneous job is not supported)")
    if "current_working_directory" not in job:
        raise _invalid("current_working_directory is required")
    return job


def submission(body: dict[str, Any]) -> types_pb2.JobDesc:
    """POST job/submit: ``{"job": {...}, "script": "..."}`` (script may sit in the job)."""
    job = _job(body)
    # Any length the body limit lets through: the controller applies max_script_size, as slurmctld.
    script = _text(body.get("script", job.get("script", "")), "script", MAX_SCRIPT)
    if not script.startswith("#!"):
        raise _invalid("batch job script must start with #!")
    return _describe(job, types_pb2.JobDesc(script=script, submit_line="pyslurmrestd job/submit"))


def allocation(body: dict[str, Any]) -> types_pb2.JobDesc:
    """POST job/allocate: an allocation without a batch script, as salloc's, held until the job is
    cancelled (DELETE job/{id}) or reaches its time limit."""
    job = _job(body)
    if job.get("script") or body.get("script"):
        raise _invalid("an allocation has no script (POST job/submit runs one)")
    return _describe(job, types_pb2.JobDesc(launcher="salloc", submit_line="pyslurmrestd job/allocate"))


def _describe(job: dict[str, Any], desc: types_pb2.JobDesc) -> types_pb2.JobDesc:
    """The fields both a batch job and an allocation take, into `desc`."""
    desc.submit_host = socket.gethostname()      # AllocNode: the host the request was made on, as sbatch's
    desc.name = _text(job.get("name", "restd"), "name", 1024)
    desc.work_dir = _text(job["current_working_directory"], "current_working_directory")
    if not os.path.isabs(desc.work_dir):
        raise _invalid("current_working_directory must be an absolute path")
    if "partition" in job:
        desc.partitions.extend(p for p in _text(job["partition"], "partition").split(",") if p)
    for field, attr in (("account", "account"), ("qos", "qos"), ("standard_output", "std_out"),
                        ("standard_error", "std_err"), ("standard_input", "std_in"), ("array", "array"),
                        ("dependency", "dependency"), ("constraints", "constraint")):
        if field in job:
            setattr(desc, attr, _text(job[field], field))
    desc.environment.extend(_strings(job.get("environment", []), "environment"))
    desc.argv.extend(_strings(job.get("argv", []), "argv")[1:])
    if "required_nodes" in job:
        desc.nodelist = _csv(job["required_nodes"], "required_nodes")
    if "excluded_nodes" in job:
        desc.exclude = _csv(job["excluded_nodes"], "excluded_nodes")
    tasks = number(job.get("tasks"), "tasks") if "tasks" in job else None
    if tasks:
        desc.num_tasks, desc.ntasks_given = tasks, True
    cpus = number(job.get("cpus_per_task"), "cpus_per_task") if "cpus_per_task" in job else None
    if cpus:
        desc.cpus_per_task, desc.cpus_per_task_given = cpus, True
    nodes = number(job.get("minimum_nodes"), "minimum_nodes") if "minimum_nodes" in job else None
    desc.min_nodes = nodes or (_node_range(job["nodes"]) if job.get("nodes") else 0)
    if "maximum_nodes" in job:      # sbatch -N min-max keeps the minimum; a maximum under it is refused
        maximum = number(job["maximum_nodes"], "maximum_nodes")
        if maximum and maximum < desc.min_nodes:
            raise _invalid(f"Maximum node count {maximum} is less than minimum node count {desc.min_nodes}")
    for field, attr in (("memory_per_node", "mem_per_node_mb"), ("memory_per_cpu", "mem_per_cpu_mb")):
        if field in job:
            value = number(job[field], field, U64_MAX)
            if value is not None and value > 0:
                setattr(desc, attr, value)
    if "time_limit" in job:
        limit = number(job["time_limit"], "time_limit")
        desc.time_limit_min = 0 if limit is None else limit
    if "begin_time" in job:
        desc.begin_time = max(number(job["begin_time"], "begin_time", U64_MAX) or 0, 0)
    if "nice" in job:
        nice = job["nice"]
        if isinstance(nice, bool) or not isinstance(nice, int) or abs(nice) > 2147483645:
            raise _invalid("nice: out of range")
        desc.nice = nice
    if "hold" in job:
        desc.hold = bool(job["hold"])
    if "requeue" in job:
        desc.requeue_set, desc.requeue = True, bool(job["requeue"])
    if "tres_per_node" in job:
        desc.gres = _gpus(_text(job["tres_per_node"], "tres_per_node"))
    if "shared" in job:
        shared = _strings(job["shared"], "shared")
        if set(shared) - {"none"}:
            raise _invalid(f"shared: only none (--exclusive) is supported, not {', '.join(shared)}")
        desc.exclusive = bool(shared)
    describe_more(job, desc, SUBMIT_FIELDS)
    return desc


def _node_range(value: Any) -> int:
    """`nodes`: ``min[-max][:step]`` as Slurm's node count range; the minimum (as sbatch -N)."""
    low, _, rest = _text(value, "nodes", 64).partition("-")
    high = rest.split(":", 1)[0]
    if not low.isdigit() or (rest and not high.isdigit()) or (high and int(high) < int(low)):
        raise _invalid(f"nodes: expected min[-max], not {value}")
    return number(int(low), "nodes") or 0


def update(job: dict[str, Any]) -> tuple[list[str], bool | None]:
    """POST job/{id}: the settings scontrol would send, and hold (True), release (False) or neither."""
    unknown = sorted(set(job) - UPDATE_FIELDS)
    if unknown:
        raise _invalid(f"fields not supported by pyslurm: {', '.join(unknown)}")
    settings: list[str] = []
    if "time_limit" in job:
        limit = number(job["time_limit"], "time_limit")
        settings.append("TimeLimit=" + ("UNLIMITED" if limit == -1 else str(limit or 0)))
    for field, key in (("partition", "Partition"), ("account", "Account"), ("qos", "QOS"),
                       ("dependency", "Dependency"), ("comment", "Comment")):
        if field in job:
            settings.append(f"{key}={_text(job[field], field)}")
    if "nice" in job:
        nice = job["nice"]
        if isinstance(nice, bool) or not isinstance(nice, int):
            raise _invalid("nice: expected an integer")
        settings.append(f"Nice={nice}")
    if "priority" in job:
        settings.append(f"Priority={number(job['priority'], 'priority') or 0}")
    if "minimum_cpus" in job:
        settings.append(f"NumCPUs={number(job['minimum_cpus'], 'minimum_cpus')}")
    hold = bool(job["hold"]) if "hold" in job else None
    return settings, hold
