"""The job_desc_msg fields beyond the basic request (pyslurm_restd.job_desc): tasks and nodes
layout, mail, licenses, reservation, comment, TRES per job/task/node, signals, priority and the
scheduling options, each into the JobDesc field sbatch's option fills, with the value checks
sbatch makes through the same shared parsers (mail types, licenses, memory sizes); the
controller's admission then checks the request as it checks sbatch's.

A field pyslurm does not act on is taken only at Slurm's default value (an empty string or list,
0, false, an unset number), which generated clients send for every field; any other value is
refused by name, never ignored.
"""
from __future__ import annotations

from typing import Any, Callable

from pyslurm_common.licenses import LicenseError, parse_licenses
from pyslurm_common.mail_types import normalise_mail_type
from pyslurm_common.rpc import types_pb2

from .envelope import INVALID_JOB_DESC, RestError

_SOURCE = "job_desc_msg"
U16_MAX, U32_MAX = 2**16 - 2, 2**32 - 2


def invalid(text: str) -> RestError:
    return RestError(text, INVALID_JOB_DESC, _SOURCE)


def number(value: Any, field: str, maximum: int = U32_MAX) -> int | None:
    """An integer or ``{set, infinite, number}``; None for unset, -1 for infinite."""
    if isinstance(value, dict):
        if value.get("infinite"):
            return -1
        if not value.get("set", True):
            return None
        value = value.get("number")
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid(f"{field}: expected an integer")
    if not 0 <= value <= maximum:
        raise invalid(f"{field}: {value} out of range")
    return value


def text(value: Any, field: str, limit: int = 1024) -> str:
    """A string, at most `limit` characters (slurmctld's _test_job_desc_fields: 1024 for most)."""
    if not isinstance(value, str) or len(value) > limit:
        raise invalid(f"{field}: expected a string of at most {limit} characters")
    return value


def names(value: Any, field: str) -> list[str]:
    if isinstance(value, str):
        return [v for v in value.split(",") if v]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or len(value) > 1000:
        raise invalid(f"{field}: expected a list of names")
    return value


def flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise invalid(f"{field}: expected true or false")
    return value


def is_default(value: Any) -> bool:
    """Slurm's value for "not given": what a generated client sends for a field left alone."""
    if isinstance(value, dict):
        return not value.get("set", False) and not value.get("infinite", False) or value == {}
    return value in ("", 0, False, None) or value == []


def _tres(value: Any, field: str) -> tuple[str, int]:
    """``gres/gpu:2`` or ``gres/gpu:a100:2`` (``=`` as well): (type, count); GPUs only."""
    item = text(value, field)
    if "," in item or not item.startswith(("gres/gpu", "gres:gpu")):
        raise invalid(f"{field}: only GPUs (gres/gpu[:type]:count) are supported, not {item}")
    rest = item[len("gres/gpu"):].replace("=", ":")
    parts = [p for p in rest.split(":") if p]
    if not parts or not parts[-1].isdigit() or len(parts) > 2 or int(parts[-1]) > U32_MAX:
        raise invalid(f"{field}: expected gres/gpu[:type]:count, not {item}")
    return (parts[0] if len(parts) == 2 else ""), int(parts[-1])


def _gpus(desc: types_pb2.JobDesc, value: Any, field: str, attr: str) -> None:
    kind, count = _tres(value, field)
    if kind and desc.gpu_type and kind != desc.gpu_type:
        raise invalid("Invalid GPU type specification: use one type")
    setattr(desc, attr, count)
    desc.gpu_type = kind or desc.gpu_type


def _mail_type(desc: types_pb2.JobDesc, value: Any) -> None:
    try:
        desc.mail_type = normalise_mail_type(",".join(names(value, "mail_type")))
    except ValueError:
        raise invalid(f"mail_type: invalid mail type {value}") from None
    if desc.mail_type == "NONE":
        desc.mail_type = ""


def _licenses(desc: types_pb2.JobDesc, value: Any) -> None:
    desc.licenses = text(value, "licenses")
    try:
        parse_licenses(desc.licenses)
    except LicenseError:
        raise RestError("Invalid license specification", 2084, _SOURCE, "Invalid license specification") from None


def _open_mode(desc: types_pb2.JobDesc, value: Any) -> None:
    modes = [m.upper() for m in names(value, "open_mode")]
    if len(modes) != 1 or modes[0] not in ("APPEND", "TRUNCATE"):
        raise invalid("open_mode: APPEND or TRUNCATE")
    desc.open_mode = modes[0].lower()


def _signal(desc: types_pb2.JobDesc, job: dict[str, Any]) -> None:
    """kill_warning_signal/delay/flags: sbatch's --signal=[B:]SIG[@secs]."""
    from .signal_names import signal_number

    desc.signal_number = signal_number(text(job["kill_warning_signal"], "kill_warning_signal"), invalid)
    delay = number(job.get("kill_warning_delay", {"set": False}), "kill_warning_delay", 65535)
    desc.signal_seconds = 60 if delay is None else delay
    flags = names(job.get("kill_warning_flags", []), "kill_warning_flags")
    if set(flags) - {"BATCH_JOB"}:
        raise invalid(f"kill_warning_flags: only BATCH_JOB is supported, not {', '.join(flags)}")
    desc.signal_batch_only = "BATCH_JOB" in flags


def _set(attr: str, read: Callable[[Any, str], Any]) -> Callable[[types_pb2.JobDesc, Any, str], None]:
    def setter(desc: types_pb2.JobDesc, value: Any, field: str) -> None:
        setattr(desc, attr, read(value, field))
    return setter


def _count(attr: str, maximum: int = U16_MAX) -> Callable[[types_pb2.JobDesc, Any, str], None]:
    def setter(desc: types_pb2.JobDesc, value: Any, field: str) -> None:
        setattr(desc, attr, number(value, field, maximum) or 0)
    return setter


def _priority(desc: types_pb2.JobDesc, value: Any, field: str) -> None:
    priority = number(value, field)
    if priority is not None:      # an operator's (the controller decides who may), as sbatch --priority
        desc.priority_given, desc.priority = True, max(priority, 0)


def _time_minimum(desc: types_pb2.JobDesc, value: Any, field: str) -> None:
    minimum = number(value, field)
    desc.time_min = 0 if minimum is None else minimum


def _no_kill(desc: types_pb2.JobDesc, value: Any, field: str) -> None:
    desc.no_kill = not flag(value, field)       # --no-kill is kill_on_node_fail=false


def _flags(desc: types_pb2.JobDesc, value: Any, field: str) -> None:
    chosen = set(names(value, field))
    if chosen - {"SPREAD_JOB"}:
        raise invalid(f"flags: only SPREAD_JOB is supported, not {', '.join(sorted(chosen - {'SPREAD_JOB'}))}")
    desc.spread_job = "SPREAD_JOB" in chosen


# field -> what fills it (value, field name); every value checked before it is set.
SETTERS: dict[str, Callable[[types_pb2.JobDesc, Any, str], None]] = {
    "comment": _set("comment", text), "mail_user": _set("mail_user", text),
    "mail_type": lambda d, v, f: _mail_type(d, v), "licenses": lambda d, v, f: _licenses(d, v),
    "reservation": _set("reservation", text), "prefer": _set("prefer", text),
    "batch_features": _set("batch_features", text), "cpu_frequency": _set("cpu_freq", text),
    "account_gather_frequency": _set("acctg_freq", text), "distribution": _set("distribution", text),
    "open_mode": lambda d, v, f: _open_mode(d, v), "overcommit": _set("overcommit", flag),
    "contiguous": _set("contiguous", flag), "kill_on_node_fail": _no_kill, "flags": _flags,
    "tasks_per_node": _count("ntasks_per_node"), "tasks_per_socket": _count("ntasks_per_socket"),
    "tasks_per_core": _count("ntasks_per_core"), "sockets_per_node": _count("sockets_per_node"),
    "threads_per_core": _count("threads_per_core"), "minimum_cpus_per_node": _count("min_cpus_per_node"),
    "temporary_disk_per_node": _count("tmp_disk_mb", 2**63 - 1), "deadline": _count("deadline", 2**63 - 1),
    "priority": _priority, "time_minimum": _time_minimum,
    "tres_per_job": lambda d, v, f: _gpus(d, v, f, "gpus"),
    "tres_per_task": lambda d, v, f: _gpus(d, v, f, "gpus_per_task"),
    "cpus_per_tres": lambda d, v, f: setattr(d, "cpus_per_gpu", _tres(v, f)[1]),
    "memory_per_tres": lambda d, v, f: setattr(d, "mem_per_gpu_mb", _tres(v, f)[1]),
}
# Fields whose false is not Slurm's default (kill_on_node_fail defaults to true).
MEANINGFUL_DEFAULTS = frozenset({"kill_on_node_fail"})
# Read with another field: kill_warning_signal's delay and flags.
COMPANIONS = frozenset({"kill_warning_delay", "kill_warning_flags"})


def describe_more(job: dict[str, Any], desc: types_pb2.JobDesc, handled: frozenset[str]) -> None:
    """Every field of `job` not in `handled`: set through SETTERS, or refused unless at its default."""
    for field, value in job.items():
        if field in handled or field in COMPANIONS:
            continue
        setter = SETTERS.get(field)
        if setter is not None:
            if not is_default(value) or field in MEANINGFUL_DEFAULTS:
                setter(desc, value, field)
        elif field == "kill_warning_signal":
            if not is_default(value):
                _signal(desc, job)
        elif not is_default(value):
            raise invalid(f"fields not supported by pyslurm: {field}")
    if not desc.ntasks_given and desc.ntasks_per_node:
        # --ntasks-per-node without -n: that many on each node, as sbatch counts the tasks
        desc.num_tasks, desc.ntasks_given = desc.ntasks_per_node * max(desc.min_nodes, 1), True
