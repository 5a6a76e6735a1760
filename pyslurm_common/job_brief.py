"""The brief form of a job in a listing (JobQuery.brief): the fields squeue's usual listings
print, sort and filter on, and nothing else (types.JobBrief, whose fields carry JobInfo's numbers).

A JobInfo is about 180 bytes on the wire for a bare held job (output paths, working directory,
submit line, requested resources), far more for a real one; squeue's default listing prints
eight columns from a fifth of it. With 5,000 pending jobs the full listing is 0.9 MB, and every
byte is hashed for the reply proof, moved through gRPC and the auth agent, and decoded by
squeue. The controller keeps this form beside the full one (pyslurm_ctld/translate/
job_info_cache.py) as JobInfo bytes holding these fields only; squeue decodes them as a
JobBriefList when its format, sort and filters need no other field (cli/squeue_format.BRIEF_KEYS,
checked by tests/unit/test_squeue_format.py).
"""
from __future__ import annotations

from typing import TypeVar

from pyslurm_common.rpc import types_pb2

BRIEF_FIELDS: frozenset[str] = frozenset(field.name for field in types_pb2.JobBrief.DESCRIPTOR.fields)

Message = TypeVar("Message")


def brief_copy(job: Message) -> Message:
    """A new JobInfo holding only *job*'s brief fields (all scalars)."""
    brief = type(job)()
    for field, value in job.ListFields():   # type: ignore[attr-defined]
        if field.name in BRIEF_FIELDS:
            setattr(brief, field.name, value)
    return brief
