"""Request bodies as slurmrestd's json-c parser takes them (pyslurm_restd.json_body): nesting
past json-c's default depth of 32 and text that is not JSON are refused, never a RecursionError.
The depths are json-c 0.16's (Debian's libjson-c5), measured with json_tokener_parse_verbose:
32 nested arrays parse, 32 arrays around a number do not, 31 objects around a string do."""
from __future__ import annotations

import pytest

from pyslurm_restd.json_body import BodyError, parse, parse_object


@pytest.mark.parametrize("text", ["[" * 32 + "]" * 32, "[" * 31 + "1" + "]" * 31, '{"a":' * 31 + '"x"' + "}" * 31,
                                  '{"a":' * 31 + "{}" + "}" * 31])
def test_json_c_depths_that_parse(text: str) -> None:
    assert parse(text) is not None


@pytest.mark.parametrize("text", ["[" * 33 + "]" * 33, "[" * 32 + "1" + "]" * 32, '{"a":' * 32 + "{}" + "}" * 32,
                                  "[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000,
                                  "{", "", "not json", b"\xff", b'{"a": "\xff"}'])
def test_too_deep_or_not_json_is_refused(text: str | bytes) -> None:
    with pytest.raises(BodyError):
        parse(text)


def test_an_object_or_none() -> None:
    assert parse_object('{"job": {"name": "x"}}') == {"job": {"name": "x"}}
    assert parse_object("[1]") is None
