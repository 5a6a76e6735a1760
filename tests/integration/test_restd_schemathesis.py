"""schemathesis (a fuzzer no one here wrote) against the document pyslurmrestd serves: every
writing operation of v0.0.44 (POST, DELETE) gets generated and mangled bodies, parameters and
headers as an ordinary user; no answer may be a server error, and every answer must be one the
served document describes. The daemon must log no traceback of its own."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from tests.integration.conftest import Cluster
from tests.integration.restd_support import serving

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"


@pytest.fixture(scope="module")
def port(cluster: Cluster) -> Iterator[int]:
    with serving(cluster) as served:
        yield served


def test_writing_operations_never_fail_on_the_server(cluster: Cluster, port: int) -> None:
    token = cluster.run("scontrol", "token", user="alice", check=True).stdout.strip().removeprefix("SLURM_JWT=")
    request = urllib.request.Request(f"http://127.0.0.1:{port}/openapi/v3", headers={"X-SLURM-USER-TOKEN": token})
    with urllib.request.urlopen(request, timeout=60) as answer:
        document = json.load(answer)
    document["paths"] = {path: {m: op for m, op in ops.items() if m in ("post", "delete")}
                         for path, ops in document["paths"].items() if "/v0.0.44/" in path}
    document["paths"] = {path: ops for path, ops in document["paths"].items() if ops}
    log = cluster.spec.log_dir / "restd.stderr"
    before = log.read_text().count("Traceback") if log.exists() else 0
    with tempfile.TemporaryDirectory(prefix="pyslurm-schemathesis-") as work:
        (Path(work) / "doc.json").write_text(json.dumps(document))
        run = subprocess.run([str(SCHEMATHESIS), "run", "doc.json", "--url", f"http://127.0.0.1:{port}",
                              "-H", f"X-SLURM-USER-TOKEN: {token}", "--checks",
                              "not_a_server_error,response_schema_conformance", "--max-examples", "25",
                              "--seed", "1", "--workers", "2"], cwd=work, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-6000:]
    assert sum(len(ops) for ops in document["paths"].values()) >= 8     # every writing operation
    # a header with a NUL byte, refused by aiohttp's parser, is one line too (bad_requests)
    text = log.read_text()
    assert text.count("Traceback") == before and "refused a malformed HTTP request (400)" in text
