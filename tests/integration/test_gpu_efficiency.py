"""GPU efficiency end to end on fake /dev/nvidia* devices: the node agent samples them every
JobAcctGatherFrequency through recorded NVML answers (pyslurmd --nvml-recording; everything above
that seam is the real code), the node keeps dcgm-exporter's job mapping files, sstat shows the
running job's gres/gpuutil and gres/gpumem, sacct the finished step's, and seff reports both.

tests/data/nvml/lab_box.json (a series advances only while a job holds its GPU): GPU 0 busy (35%
rising to 99%), GPU 1 held idle, GPU 2 busy then lost, GPU 3 idle beside a process outside any job.
"""
from __future__ import annotations

import dataclasses
import re
import tempfile
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, wait_for
from .test_gpus import _gpu_spec

RECORDING = Path(__file__).parent.parent / "data" / "nvml" / "lab_box.json"


def _sampled_spec(root: Path, name: str) -> ClusterSpec:
    spec = _gpu_spec(root, name)
    return dataclasses.replace(spec, extra=(*spec.extra, "JobAcctGatherFrequency=1",
                                            f"GpuJobMappingDir={root / 'dcgm'}"))


@pytest.fixture(scope="module")
def sampled_cluster() -> Iterator[Cluster]:
    with running_cluster(_sampled_spec, node_args={"gpu1": ("--nvml-recording", str(RECORDING))}) as c:
        yield c


def _gres(tres: str) -> dict[str, str]:
    return {k: v for k, _, v in (item.partition("=") for item in tres.split(",")) if k.startswith("gres/")}


def test_gpu_use_is_shown_live_accounted_and_reported(sampled_cluster: Cluster) -> None:
    c = sampled_cluster
    # The job runs until the test has seen it live (at most 60 s): a fixed `sleep` ended before
    # the live checks on a loaded machine, where each command takes seconds.
    release = Path(tempfile.gettempdir()) / f"pyslurm-gpu-efficiency-{uuid.uuid4().hex}"
    job_id = c.sbatch("--gres=gpu:2", "--mem=100M", "--wrap",
                      f"for i in $(seq 600); do [ -e {release} ] && break; sleep 0.1; done", user="alice")
    c.wait_state(job_id, "RUNNING")

    def live() -> dict[str, str]:
        out = c.run("sstat", "-j", f"{job_id}.batch", "-n", "-P", "-o", "TRESUsageInMax", user="alice").stdout
        return _gres(out.strip())

    # GPU 0's series peaks at 99 with its fourth reading (lab_box.json); the job ends after that
    gres = wait_for(lambda: (g := live()) and int(g["gres/gpuutil"]) == 99 and g, timeout=30)
    assert isinstance(gres, dict) and gres["gres/gpumem"].endswith(("M", "G")), gres
    # dcgm-exporter's --hpc-job-mapping-dir files: the job's two GPUs name it, the others nobody
    mapping = c.spec.conf_dir.parent / "dcgm"
    assert sorted(p.name for p in mapping.iterdir()) == ["0", "1", "2", "3"]
    assert [(mapping / str(i)).read_text() for i in range(4)] == [f"{job_id}\n", f"{job_id}\n", "", ""]
    running = c.run("seff", str(job_id), user="alice", check=True).stdout.splitlines()
    assert running[3] == "State: RUNNING" and "GPUs: 2" in running, running
    assert running[-1] == "WARNING: Efficiency statistics may be misleading for RUNNING jobs."

    release.touch()
    try:
        c.wait_state(job_id, "COMPLETED")
    finally:
        release.unlink()
    wait_for(lambda: (mapping / "0").read_text() == "", timeout=5)

    def accounted() -> str:
        return c.run("sacct", "-j", str(job_id), "-n", "-P", "-o", "JobID,TRESUsageInAve,TRESUsageInMax,TRESUsageInTot",
                     user="alice").stdout
    out = str(wait_for(lambda: (text := accounted()) and "gres/gpuutil" in text and text))
    batch = next(line for line in out.splitlines() if line.startswith(f"{job_id}.batch|"))
    _, ave, peak, total = batch.split("|")
    assert re.fullmatch(r"cpu=[0-9:]+,energy=0,fs/disk=0,gres/gpumem=\d+(\.\d+)?[KMG]?,gres/gpuutil=\d+,mem=\S+,"
                        r"pages=0,vmem=0", peak), peak
    # GPUs 0 and 1 (busy and idle): the peak is GPU 0's, the mean below it; the total is the mean here
    assert _gres(peak)["gres/gpuutil"] == "99" and 0 < int(_gres(ave)["gres/gpuutil"]) < 99
    assert _gres(total) == _gres(ave)

    report = c.run("seff", str(job_id), user="alice", check=True).stdout.splitlines()
    assert report[:5] == [f"Job ID: {job_id}", f"Cluster: {c.spec.cluster_name}", "User/Group: alice/alice",
                          "State: COMPLETED (exit code 0)", "Cores: 1"]
    assert report[5].startswith("CPU Utilized: ") and report[9].startswith("Memory Efficiency: ")
    assert report[10] == "GPUs: 2"
    assert re.fullmatch(r"GPU Utilization: \d+\.\d\d% \(mean of 2 GPUs\)", report[11]), report
    assert re.fullmatch(r"GPU gpu1:0: utilization mean \d+%, peak 99%, memory peak 1\d\.00 GB", report[12]), report
    assert report[13] == "GPU gpu1:1: utilization mean 0%, peak 0%, memory peak 512.00 MB"


def test_a_lost_gpu_and_a_process_outside_the_job_show_in_seff(sampled_cluster: Cluster) -> None:
    c = sampled_cluster
    job_id = c.sbatch("--gres=gpu:4", "--wrap", "sleep 5", user="bob")
    c.wait_state(job_id, "COMPLETED", timeout=30)

    def report() -> list[str]:
        return c.run("seff", str(job_id), user="bob").stdout.splitlines()
    lines = wait_for(lambda: (r := report()) and any(line.startswith("GPU gpu1:3") for line in r) and r)
    assert isinstance(lines, list) and "GPUs: 4" in lines
    assert any(re.fullmatch(r"GPU gpu1:2: .* \(lost during the job\)", line) for line in lines), lines
    assert "GPU gpu1:3: also used by processes outside the job: 1" in lines


def test_seff_of_another_users_finished_job(sampled_cluster: Cluster) -> None:
    c = sampled_cluster
    job_id = c.sbatch("--wrap", "true", user="bob")
    c.wait_state(job_id, "COMPLETED")
    lines = wait_for(lambda: c.run("seff", str(job_id), user="alice").stdout.splitlines())
    assert isinstance(lines, list) and lines[2] == "User/Group: bob/bob"   # no PrivateData: as Slurm's seff


def test_seff_of_an_unknown_job_and_its_usage(sampled_cluster: Cluster) -> None:
    missing = sampled_cluster.run("seff", "999999", user="alice")
    assert (missing.returncode, missing.stdout, missing.stderr) == (2, "", "Job not found.\n")
    usage = sampled_cluster.run("seff", user="alice")
    assert usage.returncode == 1 and usage.stdout.startswith("Usage: seff [Options] <Jobid>\n")
