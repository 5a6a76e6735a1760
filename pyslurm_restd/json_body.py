"""A request body as slurmrestd's JSON serializer reads it.

slurmrestd parses a body with json-c before any handler runs: text that does not parse, or that
nests values deeper than json-c's default depth (32, the top-level value counting as 1), is
refused with a plain-text 400 "Failure during parsing" and the connection closed. Python's parser
has no depth limit of its own (a deeply nested body ends in RecursionError), so the depth is
checked here, without recursion.
"""
from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32      # json-c's JSON_TOKENER_DEFAULT_DEPTH
FAILURE = "Failure during parsing"   # slurm_strerror(ESLURM_REST_FAIL_PARSING)


class BodyError(Exception):
    """The body is not JSON slurmrestd would parse: the answer is its plain-text 400."""


def _within_depth(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return True


def parse(text: str | bytes) -> Any:
    """The JSON value of `text`; BodyError where json-c would fail (bytes that are not UTF-8
    included: the protocol buffers the request becomes take no other text)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):      # UnicodeDecodeError is a ValueError
        raise BodyError() from None
    if not _within_depth(value):
        raise BodyError()
    return value


def parse_object(text: str | bytes) -> dict[str, Any] | None:
    """The body as an object, None when it is valid JSON of another type."""
    value = parse(text)
    return value if isinstance(value, dict) else None
