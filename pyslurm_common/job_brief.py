"""The brief form of a job in a listing (JobQuery.brief): the fields squeue's usual listings
print, sort and filter on, and nothing else.

A JobInfo is about 180 bytes on the wire for a bare held job (output paths, working directory,
submit line, requested resources), far more for a real one; squeue's default listing prints
eight columns from a fifth of it. With 5,000 pending jobs the full listing is 0.9 MB, and every
byte is hashed for the reply proof, moved through gRPC and the auth agent, and decoded by
squeue. The controller keeps this form beside the full one (pyslurm_ctld/translate/
job_info_cache.py); squeue asks for it when its format, sort and filters need no other field
(cli/squeue_format.BRIEF_KEYS, checked against this list by tests/unit/test_squeue_format.py).

Pure: no imports; the copy is made with the message's own class.
"""
from __future__ import annotations

from typing import TypeVar

BRIEF_FIELDS: frozenset[str] = frozenset({
    "job_id", "array_job_id", "array_task_str", "array_throttle", "array_remainder",
    "name", "user_id", "user_name", "partition", "account", "qos",
    "state", "completing", "reason", "nodes", "num_nodes", "num_cpus",
    "priority", "nice", "time_limit_min", "submit_time", "start_time", "end_time", "expected_start",
})

Message = TypeVar("Message")


def brief_copy(job: Message) -> Message:
    """A new JobInfo holding only *job*'s brief fields (all scalars)."""
    brief = type(job)()
    for field, value in job.ListFields():   # type: ignore[attr-defined]
        if field.name in BRIEF_FIELDS:
            setattr(brief, field.name, value)
    return brief
