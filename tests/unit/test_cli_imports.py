"""What the commands import before they do anything: start-up is most of a short call's cost
(issue 18). sbatch, srun, salloc, scancel, squeue and sacct parse with the plain-data option tables,
so they must not pull in dataclasses (which imports inspect, ast and dis: a sixth of sbatch's
start-up in instructions) nor grpc (the agent protocol is plain protobuf over a unix socket), nor
typing (with the contextlib it brings, 11.5 M instructions of sbatch's 98 M: annotations name its
types under `if TYPE_CHECKING:`), nor datetime (3.4 M: only pyslurm_common.dates needs it)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("dataclasses", "inspect", "grpc", "click", "typing", "datetime")


@pytest.mark.parametrize("command", ["sbatch", "srun", "salloc", "scancel", "squeue", "sacct"])
def test_a_command_imports_nothing_heavy(command: str) -> None:
    code = (f"import sys; from cli.{command} import main; "
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == ""
