"""squeue/sinfo/sprio -o against real Slurm 22.05's output for the same formats
(tests/data/slurm_formats/percent_formats.json, recorded by record.py beside it): unknown
letters print as written (sprio: left out) with an error line each, `%%` and a trailing `%`
vanish."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import sinfo_format, sprio_format, squeue_format
from pyslurm_common.rpc import messages as pb

RECORDS = json.loads((Path(__file__).resolve().parents[1] / "data/slurm_formats/percent_formats.json").read_text())


def _ours(command: str, fmt: str) -> tuple[str, str]:
    if command == "sprio":
        parsed = sprio_format.parse_format(fmt)
        return (sprio_format.render(parsed, [], pb.PriorityWeights())[0],
                "".join(f"sprio: error: Invalid job format specification: {c}\n" for c in parsed.unknown))
    if command == "sinfo":
        parsed = sinfo_format.parse_format(fmt)
        header = sinfo_format.render_groups(parsed, [], header=True)[0]
        return header, "".join(f"Invalid node format specification: {c or chr(0)}\n" for c in parsed.unknown)
    steps = command == "squeue -s"
    parsed = squeue_format.parse_step_format(fmt) if steps else squeue_format.parse_format(fmt)
    header = squeue_format.header_line(parsed, squeue_format.STEP_FIELDS if steps else None)
    what = "job step" if steps else "job"
    return header, "".join(f"squeue: error: Invalid {what} format specification: {c}\n" for c in parsed.unknown)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: f"{r['command']} -o {r['format']}")
def test_same_header_and_errors_as_real_slurm(record: dict[str, str]) -> None:
    assert record["exit"] == 0   # an unknown letter is reported, never fatal
    assert _ours(record["command"], record["format"]) == (record["header"], record["stderr"])
