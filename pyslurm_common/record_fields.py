"""A dataclass record as a dict of its own fields, for json.dumps.

dataclasses.asdict deep-copies every value and recurses through nested records in Python;
frozen records of JSON's own types need neither: json.dumps walks their tuples itself and
calls `record_fields` (as its `default`) for each nested record it meets.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any


def record_fields(record: Any) -> dict[str, Any]:
    """`record`'s fields under their names; TypeError (json.dumps' wording) for anything else."""
    try:
        names = _field_names(type(record))
    except TypeError:   # not a dataclass
        raise TypeError(f"Object of type {type(record).__name__} is not JSON serializable") from None
    return {name: getattr(record, name) for name in names}


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(each.name for each in dataclasses.fields(kind))
