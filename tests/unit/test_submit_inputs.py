"""--propagate, --export-file, --nodefile and --mincpus (cli/submit_inputs.py, layout_options)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli import job_options
from cli.app import CliError
from cli.command_line import collect, command_line
from cli.option_tables import sbatch
from cli.submit_inputs import RLIMITS, add_submission_inputs


def desc_of(*args: str):  # type: ignore[no-untyped-def]
    values = collect(sbatch, command_line(sbatch, list(args)), {})
    desc = job_options.job_desc(values, "wrap", {"HOME": "/h"})
    add_submission_inputs(desc, values, "sbatch")
    return desc


def test_propagate_chooses_the_limits_that_travel() -> None:
    assert [r.split("=")[0] for r in desc_of().rlimits] == list(RLIMITS)
    assert [r.split("=")[0] for r in desc_of("--propagate").rlimits] == list(RLIMITS)
    assert [r.split("=")[0] for r in desc_of("--propagate=stack,RLIMIT_CORE").rlimits] == ["STACK", "CORE"]
    assert list(desc_of("--propagate=NONE").rlimits) == []
    with pytest.raises(CliError) as info:
        desc_of("--propagate=BOGUS")
    assert info.value.lines == ("Bad rlimit name: BOGUS",)


def test_export_file_adds_nul_separated_definitions(tmp_path: Path) -> None:
    path = tmp_path / "env"
    path.write_bytes(b"A=1\0B=two words\0")
    assert {"A=1", "B=two words", "HOME=/h"} <= set(desc_of(f"--export-file={path}").environment)
    read, write = os.pipe()
    os.write(write, b"C=3\0")
    os.close(write)
    try:
        assert "C=3" in desc_of(f"--export-file={read}").environment
    finally:
        os.close(read)


def test_nodefile_is_a_node_list(tmp_path: Path) -> None:
    path = tmp_path / "nodes"
    path.write_text("node1\nnode2, node3\n")
    assert desc_of(f"--nodefile={path}").nodelist == "node1,node2,node3"
    assert desc_of(f"--nodefile={path}", "-w", "node9").nodelist == "node9"


def test_mincpus_reaches_the_job() -> None:
    assert desc_of("--mincpus=4").min_cpus_per_node == 4
    # real srun 22.05.8: --mincpus=999999 reaches the controller (refused there), 65536 and 65537
    # run (its job description holds the count in 16 bits), 0 and -1 are invalid numeric values
    assert desc_of("--mincpus=999999").min_cpus_per_node == 999999 % 65536
    assert [desc_of(f"--mincpus={n}").min_cpus_per_node for n in (65536, 65537)] == [0, 1]
