"""The idle-GPU policy end to end: GPUs that stay idle (recorded NVML answers, tests/data/nvml/
idle_box.json, on fake /dev/nvidia* devices) get a batch job warned in its output and by the
webhook, then cancelled with reason GpuIdleLimit (squeue, sacct, scontrol explain); an srun
allocation is only warned; squeue -O GpuIdle shows the idle time."""
from __future__ import annotations

import dataclasses
import http.server
import json
import re
import subprocess
import threading
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, wait_for
from .test_gpus import _gpu_spec

RECORDING = Path(__file__).parent.parent / "data" / "nvml" / "idle_box.json"


class _Hook(http.server.BaseHTTPRequestHandler):
    received: list[dict[str, object]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        type(self).received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def hook() -> Iterator[tuple[int, type[_Hook]]]:
    handler = type("Hook", (_Hook,), {"received": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], handler
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def idle_cluster(hook: tuple[int, type[_Hook]]) -> Iterator[Cluster]:
    def spec(root: Path, name: str) -> ClusterSpec:
        base = _gpu_spec(root, name)
        return dataclasses.replace(base, extra=(
            *base.extra, "JobAcctGatherFrequency=1", "GpuIdleParameters=threshold=5,warn=2s,limit=8s",
            f"NotifyWebhookURL=http://127.0.0.1:{hook[0]}/hook"))

    with running_cluster(spec, node_args={"gpu1": ("--nvml-recording", str(RECORDING))}) as c:
        yield c


def test_an_idle_batch_job_is_warned_then_cancelled_with_the_reason(idle_cluster: Cluster,
                                                                     hook: tuple[int, type[_Hook]]) -> None:
    c = idle_cluster
    job_id = c.sbatch("--gres=gpu:1", "--wrap", "sleep 60", user="alice")
    c.wait_state(job_id, "RUNNING")
    wait_for(lambda: c.run("squeue", "-h", "-j", str(job_id), "-O", "GpuIdle").stdout.strip() not in ("", "0:00"),
             timeout=10)
    c.wait_state(job_id, "CANCELLED", timeout=30)
    assert c.job_field(job_id, "r") == "GpuIdleLimit"
    output = (c.work_dir("alice") / f"slurm-{job_id}.out").read_text()
    assert re.search(r"^slurmstepd-gpu1: warning: GPUs idle \(below 5%\) for \d s; it will be cancelled at 8 s$",
                     output, re.M), output
    assert re.search(r"^slurmstepd-gpu1: warning: GPUs idle \(below 5%\) for \d+ s: cancelled by the idle-GPU policy$",
                     output, re.M), output
    explained = c.run("scontrol", "explain", "job", str(job_id), user="alice", check=True).stdout
    assert "The idle-GPU policy (GpuIdleParameters) ended this run" in explained

    def accounted() -> str:
        return c.run("sacct", "-X", "-n", "-P", "-j", str(job_id), "-o", "State,Reason", user="alice").stdout.strip()
    assert wait_for(lambda: accounted() == "CANCELLED by 0|GpuIdleLimit")
    _, handler = hook
    seen = [n for n in handler.received if n["job_id"] == job_id]
    assert [n["kind"] for n in seen] == ["IDLE_GPU_WARNING", "IDLE_GPU_CANCELLED"]
    assert str(seen[0]["subject"]).startswith(f"Slurm Job_id={job_id} Name=wrap GPUs idle (below 5%) for ")


def test_an_idle_srun_allocation_is_only_warned(idle_cluster: Cluster) -> None:
    result = idle_cluster.run("srun", "--gres=gpu:1", "sleep", "12", user="bob")
    assert result.returncode == 0, result.stderr
    assert re.search(r"slurmstepd-gpu1: warning: GPUs idle \(below 5%\) for \d+ s\n", result.stderr), result.stderr
    assert "cancelled" not in result.stderr
