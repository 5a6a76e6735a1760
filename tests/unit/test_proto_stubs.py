"""The committed gRPC stubs (pyslurm_common/rpc/*_pb2*.py) match proto/*.proto."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_committed_stubs_are_fresh() -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools (a test dependency) is not installed")
    result = subprocess.run([sys.executable, "scripts/gen_proto.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
