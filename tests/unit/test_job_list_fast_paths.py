"""squeue -j / sacct -j / scancel ids: plain job ids are read without re (issue 18: re and the enum
it imports are a sixth of a squeue call); what they give must be what the patterns give."""
from __future__ import annotations

import random
import re

import pytest

from cli import job_lists
from pyslurm_common import array_spec
from pyslurm_common.array_spec import JobSpec


def _outcome(parse, text: str) -> object:   # noqa: ANN001 - a parser of one argument
    try:
        return parse(text)
    except ValueError as exc:
        return ("ValueError", str(exc))


def _random_lists(count: int) -> list[str]:
    rng = random.Random(18)
    pieces = ["", "0", "1", "12", "007", "4294967293", "4294967294", "99999999999999999999999", ","]
    return [",".join(rng.choice(pieces) for _ in range(rng.randint(1, 4))) for _ in range(count)]


def test_plain_id_lists_as_the_pattern_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _random_lists(3000) + ["5", "5,6", ",5,,6,", "", ","]
    fast = [_outcome(job_lists.parse_step_list, text) for text in texts]
    monkeypatch.setattr(job_lists, "_PLAIN_LIST", frozenset())   # every list through the pattern
    assert fast == [_outcome(job_lists.parse_step_list, text) for text in texts]


def test_a_plain_job_id_as_the_pattern_reads_it() -> None:
    def by_pattern(text: str) -> JobSpec:
        match = re.match(array_spec._JOB_SPEC, text.strip())
        if not match or match.group(2) is not None:
            raise AssertionError(f"not a plain job id: {text!r}")
        return JobSpec(array_spec.JOB_ID.parse(match.group(1)))

    for text in ["1", " 42 ", "007", "4294967293", "4294967294", "0", "9" * 30]:
        assert _outcome(array_spec.parse_job_spec, text) == _outcome(by_pattern, text)
    assert array_spec.parse_job_spec("12_[1-3]") == JobSpec(12, (1, 2, 3))
    with pytest.raises(ValueError):
        array_spec.parse_job_spec("１２")   # full-width digits: \d, but not a job id
