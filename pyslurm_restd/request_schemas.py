"""The JSON schemas of what requests carry, for /openapi/v3: each field the request readers act
on (job_desc, job_desc_extra, the node and job updates, the bulk signal, the query parameters
of the endpoints that take them), typed as Slurm 25.11's document types it, so a client generated
from the served document sends what the readers take. The readers' own tables are the source:
`job_fields()` is built from the fields job_desc and job_desc_extra read, and a field added
there without a type here fails tests/unit/test_restd_openapi.py.
"""
from __future__ import annotations

from typing import Any

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer", "format": "int64"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}
STRINGS: dict[str, Any] = {"type": "array", "items": STRING}
# Slurm's *_no_val_struct: a number, unset, or infinite (a plain integer is read as well).
NO_VAL: dict[str, Any] = {"type": "object", "properties": {"set": BOOLEAN, "infinite": BOOLEAN, "number": INTEGER}}

_STRING_FIELDS = ("name", "partition", "account", "qos", "script", "current_working_directory", "standard_output",
                  "standard_error", "standard_input", "array", "dependency", "constraints", "tres_per_node",
                  "comment", "mail_user", "licenses", "reservation", "prefer", "batch_features", "cpu_frequency",
                  "account_gather_frequency", "distribution", "tres_per_job", "tres_per_task", "cpus_per_tres",
                  "memory_per_tres", "kill_warning_signal", "nodes")
_INTEGER_FIELDS = ("tasks", "cpus_per_task", "minimum_nodes", "maximum_nodes", "nice", "tasks_per_node",
                   "tasks_per_socket", "tasks_per_core", "sockets_per_node", "threads_per_core",
                   "minimum_cpus_per_node", "temporary_disk_per_node", "deadline")
_BOOLEAN_FIELDS = ("hold", "requeue", "overcommit", "contiguous", "kill_on_node_fail")
_STRINGS_FIELDS = ("environment", "argv", "required_nodes", "excluded_nodes", "shared", "mail_type", "open_mode",
                   "flags", "kill_warning_flags")
_NO_VAL_FIELDS = ("memory_per_node", "memory_per_cpu", "time_limit", "begin_time", "priority", "time_minimum",
                  "kill_warning_delay")


def _table(*groups: tuple[tuple[str, ...], dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {name: schema for names, schema in groups for name in names}


JOB_DESC = _table((_STRING_FIELDS, STRING), (_INTEGER_FIELDS, INTEGER), (_BOOLEAN_FIELDS, BOOLEAN),
                  (_STRINGS_FIELDS, STRINGS), (_NO_VAL_FIELDS, NO_VAL))
JOB_UPDATE = _table((("partition", "account", "qos", "dependency", "comment"), STRING),
                    (("nice", "minimum_cpus", "job_id"), INTEGER), (("hold",), BOOLEAN),
                    (("time_limit", "priority"), NO_VAL))
NODE_UPDATE = _table((("reason", "comment", "extra"), STRING), (("state", "name"), STRINGS))
RESERVATION_DESC = _table((("name", "partition"), STRING), (("node_list", "users", "accounts", "licenses", "flags"), STRINGS),
                          (("start_time", "end_time", "duration", "node_count", "core_count"), NO_VAL))
JOBS_SIGNAL = _table((("signal",), STRING), (("jobs", "flags"), STRINGS))


def obj(properties: dict[str, dict[str, Any]], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def job_submission() -> dict[str, Any]:
    """POST job/submit and job/allocate: ``{"script": ..., "job": {...}}``."""
    return obj({"script": STRING, "job": obj(JOB_DESC, ("current_working_directory",))}, ("job",))
