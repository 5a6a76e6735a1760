"""The real NVML path, on a host with NVIDIA GPUs (skipped elsewhere, CI included: it has none).

The node autodetects /dev/nvidia* and samples through nvidia-ml-py every second. A job that
keeps a GPU busy (a CUDA matrix multiply through cupy or torch, whichever the test environment
has: `pip install cupy-cuda12x` or `torch`) must show gres/gpuutil in sacct and GPU lines in seff;
a job that holds a GPU idle is warned, then cancelled with reason GpuIdleLimit.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec
from pyslurm_d import hardware
from pyslurm_d.nvml import NvmlProbe, NvmlUnavailable

from .conftest import Cluster, running_cluster, two_node_spec, wait_for


def _nvml_gpus() -> int:
    probe = NvmlProbe()
    try:
        return len(probe.read(range(64)))
    except NvmlUnavailable:
        return 0
    finally:
        probe.close()


GPUS = len(hardware.gpu_devices(Path("/dev")))
pytestmark = pytest.mark.skipif(not GPUS or not _nvml_gpus(), reason="needs NVIDIA GPUs and their driver (NVML)")

BUSY = """
import time
try:
    import cupy as xp
except ImportError:
    import torch
    class xp:  # the two calls used below, on torch
        @staticmethod
        def ones(shape): return torch.ones(shape, device="cuda")
        @staticmethod
        def sync(): torch.cuda.synchronize()
else:
    xp.sync = lambda: xp.cuda.Device().synchronize()
a = xp.ones((8192, 8192))
end = time.time() + 12
while time.time() < end:
    b = a @ a
    xp.sync()
"""


@pytest.fixture(scope="module")
def real_cluster() -> Iterator[Cluster]:
    def spec(root: Path, name: str) -> ClusterSpec:
        base = two_node_spec(root, name)
        node = dataclasses.replace(base.nodes[0], gres=f"gpu:{GPUS}")
        return dataclasses.replace(base, nodes=(node,), extra=(
            *base.extra, "JobAcctGatherFrequency=1", "GpuIdleParameters=threshold=5,warn=4s,limit=10s"))

    with running_cluster(spec) as c:
        yield c


@pytest.mark.skipif(not (importlib.util.find_spec("cupy") or importlib.util.find_spec("torch")),
                    reason="needs cupy or torch to keep a GPU busy")
def test_a_busy_gpu_is_accounted_and_reported(real_cluster: Cluster) -> None:
    c = real_cluster
    script = c.work_dir("alice") / "busy.py"
    script.write_text(BUSY)
    job_id = c.sbatch("--gres=gpu:1", "--wrap", f"{sys.executable} {script}", user="alice")
    c.wait_state(job_id, "COMPLETED", timeout=120)

    def peak() -> int:
        out = c.run("sacct", "-j", f"{job_id}.batch", "-n", "-P", "-o", "TRESUsageInMax", user="alice").stdout
        found = re.search(r"gres/gpuutil=(\d+)", out)
        return int(found.group(1)) if found else -1
    wait_for(lambda: peak() >= 0)
    assert peak() > 30
    report = c.run("seff", str(job_id), user="alice", check=True).stdout
    print(report)   # what the real path showed, for the record
    assert "GPUs: 1" in report and re.search(r"GPU \S+:\d+: utilization mean \d+%, peak (\d+)%", report)


def test_an_idle_gpu_is_warned_then_cancelled(real_cluster: Cluster) -> None:
    c = real_cluster
    job_id = c.sbatch("--gres=gpu:1", "--wrap", "sleep 120", user="alice")
    c.wait_state(job_id, "CANCELLED", timeout=60)
    assert c.job_field(job_id, "r") == "GpuIdleLimit"
    output = (c.work_dir("alice") / f"slurm-{job_id}.out").read_text()
    print(output)
    assert re.search(r"slurmstepd-\S+: warning: GPUs idle \(below 5%\)", output)
