"""What pyslurmd and a stepd hand each other, typed, and the one codec for both directions.

pyslurmd hands the fork server the new stepd's `StepdPlace` and its `Launch` (launch.py), one line
each on the server's connection; the
stepd leaves a `StepResult` behind in `result.json`, which pyslurmd completes (the step's name,
its GPU figures, the Epilog's outcome, or a stand-in for a stepd that died without one) and keeps
as `end.json` until the controller acknowledged it (step_spool.py). Each is one JSON object of the
dataclass's fields. Decoding checks every field's type, fills in the defaults of fields the writer
did not know and ignores fields this reader does not know, so files written by an older or newer
pyslurmd (a step that ran across an upgrade) are still read.

Errors: `MessageError` for text that is not such an object (torn file, wrong type in a field).
Stdlib only: stepd imports it.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pyslurm_common.record_fields import record_fields

from .launch import Launch

__all__ = ["Launch", "MessageError", "StepResult", "StepdPlace", "decode", "encode"]


class MessageError(ValueError):
    """Text that is not a valid message of the kind asked for."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StepdPlace:
    """Where a new stepd works: the step's spool directory and the cgroup tree's root."""

    step_dir: str
    cgroup_root: str


@dataclass(slots=True, kw_only=True)
class StepResult:
    """How a step ended on this node: what its stepd saw, then what pyslurmd added."""

    job_id: int
    step: str = "batch"                 # "batch" or the srun step number
    exit_code: int = 0                  # the highest of the tasks'
    exit_signal: int = 0                # the first signal that ended a task
    start_time: int = 0
    end_time: int = 0                   # 0: unknown (reported as the time of the report)
    launch_failed: bool = False         # nothing of the step ran
    error: str = ""
    cancelled: bool = False             # ended by `terminate`
    kill_task_failed: bool = False      # processes outlived UnkillableStepTimeout: the node is drained
    out_of_memory: bool = False
    max_rss_kb: int = 0
    user_cpu_usec: int = 0
    system_cpu_usec: int = 0
    stepd_lost: bool = False            # the stepd died without a result: how the tasks ended is unknown
    epilog_failed: bool = False         # batch step only
    gpus: list[dict[str, Any]] = field(default_factory=list)   # gpu_usage.figures, one entry per GPU


Message = TypeVar("Message", Launch, StepResult, StepdPlace)


def encode(message: Launch | StepResult | StepdPlace) -> str:
    """One line of JSON (no newline in it). The fields as they are: their values are JSON's own
    types already, and dataclasses.asdict deep-copies each of them (a Launch's environment)."""
    return json.dumps(record_fields(message))


def decode(kind: type[Message], text: str | bytes) -> Message:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MessageError(f"{kind.__name__}: not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise MessageError(f"{kind.__name__}: not a JSON object")
    values: dict[str, Any] = {}
    for name, hint in _field_hints(kind):
        if name in data:
            value = data[name]
            if not _is_a(value, hint):
                raise MessageError(f"{kind.__name__}: {name}={value!r} is not {hint}")
            values[name] = value
    try:
        return kind(**values)
    except TypeError as exc:   # a field without a default is missing
        raise MessageError(f"{kind.__name__}: {exc}") from None


@functools.cache
def _field_hints(kind: type) -> tuple[tuple[str, Any], ...]:
    """Each field's name and type. Cached: get_type_hints evaluates every annotation's text anew,
    2 ms for a Launch, and the fork server decodes one before each stepd it starts."""
    hints = typing.get_type_hints(kind)
    return tuple((each.name, hints[each.name]) for each in dataclasses.fields(kind))


def _is_a(value: object, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(_is_a(value, arm) for arm in typing.get_args(hint))
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_is_a(v, item) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if hint is type(None):
        return value is None
    if hint is int:   # JSON has no int/bool confusion, but Python's isinstance does
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)
