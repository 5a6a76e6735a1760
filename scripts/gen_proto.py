#!/usr/bin/env python3
"""Regenerate the gRPC/protobuf stubs in pyslurm_common/rpc from proto/*.proto.

Run from anywhere: `python scripts/gen_proto.py` (needs grpcio-tools, a test
dependency). `--check` regenerates into a temporary directory and exits 1 if the
committed stubs differ, which tests/unit/test_proto_stubs.py relies on.
"""
from __future__ import annotations

import argparse
import filecmp
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
OUT_DIR = ROOT / "pyslurm_common" / "rpc"


def generate(out_dir: Path) -> list[Path]:
    from grpc_tools import protoc  # imported lazily: only this script needs grpcio-tools

    protos = sorted(PROTO_DIR.glob("*.proto"))
    args = ["protoc", f"-I{PROTO_DIR}", f"--python_out={out_dir}", f"--grpc_python_out={out_dir}"]
    if protoc.main(args + [str(p) for p in protos]) != 0:
        raise SystemExit("protoc failed")
    generated = sorted(out_dir.glob("*_pb2*.py"))
    for path in generated:
        # protoc writes top-level imports (`import types_pb2`); make them package-relative.
        text = re.sub(r"^import (\w+_pb2) as", r"from . import \1 as", path.read_text(), flags=re.M)
        path.write_text(text)
    return generated


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if committed stubs are stale")
    opts = parser.parse_args()
    if not opts.check:
        for path in generate(OUT_DIR):
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        stale = [
            p.name for p in generate(Path(tmp))
            if not (OUT_DIR / p.name).exists() or not filecmp.cmp(p, OUT_DIR / p.name, shallow=False)
        ]
    if stale:
        print("stale stubs (run scripts/gen_proto.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
