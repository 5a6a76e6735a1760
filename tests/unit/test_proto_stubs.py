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


def test_messages_without_well_known_types_stay_whole() -> None:
    """rpc/messages.without_well_known_types (a CLI's start-up): protobuf's well_known_types is not
    imported, the messages encode and decode as ever, and a later import still gets the real module."""
    pytest.importorskip("google._upb._message", reason="only the upb backend builds classes lazily")
    code = """
import sys
from pyslurm_common.rpc import messages as pb
pb.without_well_known_types()
desc = pb.JobDesc(name="x", num_tasks=3, environment=["A=1"])
again = pb.SubmitRequest.FromString(pb.SubmitRequest(job=desc).SerializeToString())
print(again.job.name, again.job.num_tasks, list(again.job.environment),
      "google.protobuf.internal.well_known_types" in sys.modules)
from google.protobuf.internal import well_known_types
print(sorted(well_known_types.WKTBASES)[:1])
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout == "x 3 ['A=1'] False\n['google.protobuf.Any']\n", done.stderr
