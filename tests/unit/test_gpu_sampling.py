"""GPU sampling on a node: the NVML seam (pyslurm_d/nvml.py), recorded answers
(nvml_recorded.py), per-step tallies (gpu_usage.py) and the sampler (gpu_sampler.py).

The series in tests/data/nvml/lab_box.json are written in the recorder's format by hand (no GPU
was at hand): GPU 0 busy, GPU 1 held idle, GPU 2 busy then lost, GPU 3 idle with a process
(pid 1) that belongs to no job.
"""
from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pyslurm_d import gpu_usage, nvml, nvml_recorded
from pyslurm_d.gpu_sampler import GpuSampler, device_minor

RECORDING = Path(__file__).parent.parent / "data" / "nvml" / "lab_box.json"
GIB = 2**30


def test_real_nvml_without_a_driver_is_unavailable_not_an_error() -> None:
    """This host has no NVIDIA driver: the real binding loads, its library does not."""
    probe = nvml.NvmlProbe()
    with pytest.raises(nvml.NvmlUnavailable, match="NVML"):
        probe.read([0])
    probe.close()


class _FakeBinding(types.SimpleNamespace):
    """pynvml's surface as NvmlProbe uses it: two GPUs whose minors are 3 and 1, GPU 3 lost."""

    class NVMLError(Exception):
        def __init__(self, value: int) -> None:
            super().__init__(f"error {value}")
            self.value = value

    NVML_ERROR_GPU_IS_LOST = 15

    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlSystemGetDriverVersion(self) -> bytes: return b"550.1"
    def nvmlDeviceGetCount(self) -> int: return 2
    def nvmlDeviceGetHandleByIndex(self, i: int) -> int: return i
    def nvmlDeviceGetMinorNumber(self, h: int) -> int: return (3, 1)[h]

    def nvmlDeviceGetUtilizationRates(self, h: int) -> types.SimpleNamespace:
        if h == 0:
            raise self.NVMLError(15)
        return types.SimpleNamespace(gpu=77, memory=10)

    def nvmlDeviceGetMemoryInfo(self, h: int) -> types.SimpleNamespace:
        return types.SimpleNamespace(used=5 * GIB, total=80 * GIB)

    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[types.SimpleNamespace]:
        return [types.SimpleNamespace(pid=4242, usedGpuMemory=None)]

    def nvmlDeviceGetPowerUsage(self, h: int) -> int:
        raise self.NVMLError(3)   # NOT_SUPPORTED


def test_nvml_probe_maps_device_minors_and_reads_a_lost_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", _FakeBinding())
    probe = nvml.NvmlProbe()
    got = probe.read([1, 3, 7])
    assert got == {1: nvml.GpuReading(1, 77, 5 * GIB, 80 * GIB, 0, (nvml.GpuProcess(4242, 0),)),
                   3: nvml.GpuReading(3, lost=True)}


def test_recorded_series_advance_and_their_last_reading_repeats() -> None:
    probe = nvml_recorded.RecordedProbe.from_file(RECORDING)
    first = probe.read([0, 2, 9])
    assert sorted(first) == [0, 2] and first[0].utilization_percent == 35
    for _ in range(2):
        probe.read([2])
    assert probe.read([2])[2].lost and probe.read([2])[2].lost
    assert probe.read([3])[3].processes == (nvml.GpuProcess(1, GIB),)


@pytest.mark.parametrize("text", ['{"gpus": {"x": [{}]}}', '{"gpus": {"0": []}}', '{"gpus": {"0": [7]}}',
                                  '{"gpus": {"0": [{"util": "busy"}]}}', "[]", "not json"])
def test_bad_recordings_are_refused_with_a_reason(tmp_path: Path, text: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(nvml_recorded.RecordingError):
        nvml_recorded.RecordedProbe.from_file(path)


def test_recorder_writes_what_the_replayer_reads(tmp_path: Path) -> None:
    source = nvml_recorded.RecordedProbe.from_file(RECORDING)
    recording = nvml_recorded.record(source, [0, 2, 5], samples=3, interval=0)
    path = tmp_path / "again.json"
    path.write_text(json.dumps(recording))
    again = nvml_recorded.load(path)
    assert sorted(again) == [0, 2] and [r.utilization_percent for r in again[0]] == [35, 92, 97]
    assert again[2][2].lost


def test_tallies_keep_mean_peak_and_foreign_processes(tmp_path: Path) -> None:
    gpu_usage.write_allocation(tmp_path, [3, 1])
    assert gpu_usage.allocation(tmp_path) == (1, 3)
    for util, mem in ((10, 2 * GIB), (90, 6 * GIB)):
        gpu_usage.fold(tmp_path, 7, {1: nvml.GpuReading(1, util, mem, 80 * GIB, 200_000,
                                                         (nvml.GpuProcess(1, GIB),))})
    gpu_usage.fold(tmp_path, 7, {3: nvml.GpuReading(3, lost=True)})
    assert gpu_usage.figures(tmp_path) == [
        {"index": 1, "samples": 2, "util_ave": 50, "util_max": 90, "mem_ave_bytes": 4 * GIB,
         "mem_max_bytes": 6 * GIB, "power_max_mw": 200_000, "lost": False, "foreign_pids": [1]},
        {"index": 3, "samples": 0, "util_ave": 0, "util_max": 0, "mem_ave_bytes": 0, "mem_max_bytes": 0,
         "power_max_mw": 0, "lost": True, "foreign_pids": []}]   # pid 1 (init) is in no job's cgroup
    assert gpu_usage.last_utilization(tmp_path) == 90
    [message] = gpu_usage.messages("gpu1", gpu_usage.figures(tmp_path)[:1])
    assert (message.node, message.index, message.util_ave, message.mem_max_bytes) == ("gpu1", 1, 50, 6 * GIB)
    assert list(message.foreign_pids) == [1]


def test_a_process_of_the_job_is_not_foreign(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    (proc / "55").mkdir(parents=True)
    (proc / "55" / "cgroup").write_text("0::/pyslurm_lab_n1/job_7/step_batch/user/task_0\n")
    assert gpu_usage.in_job(55, 7, proc) is True
    assert gpu_usage.in_job(55, 70, proc) is False
    assert gpu_usage.in_job(56, 7, proc) is None


@dataclass
class _Policy:
    gpu_devices: dict[int, str]
    gather_frequency: int = 1


@dataclass
class _Steps:
    """What the sampler reads of the StepManager: running steps and their spool directories."""

    spool: Path
    policy: _Policy
    running: dict[int, list[str]] = field(default_factory=dict)

    def running_steps(self) -> list[tuple[int, str]]:
        return sorted((job_id, step) for job_id, steps in self.running.items() for step in steps)

    def job_dir(self, job_id: int, step: str = "batch") -> Path:
        path = self.spool / f"{job_id}.{step}"
        path.mkdir(exist_ok=True)
        return path


def _fake_devices(root: Path, count: int) -> dict[int, str]:
    devices = {}
    for index in range(count):
        path = root / f"nvidia{index}"
        if os.geteuid() == 0:
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(195, index))
        devices[index] = str(path)
    return devices


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_sampler_folds_each_steps_gpus_and_reports_job_activity(tmp_path: Path) -> None:
    steps = _Steps(tmp_path, _Policy(_fake_devices(tmp_path, 4)), {11: ["batch", "0"], 12: ["batch"]})
    gpu_usage.write_allocation(steps.job_dir(11, "batch"), [0, 1])
    gpu_usage.write_allocation(steps.job_dir(11, "0"), [0])
    gpu_usage.write_allocation(steps.job_dir(12, "batch"), [2])
    mapped: list[dict[int, list[int]]] = []
    sampler = GpuSampler(steps, nvml_recorded.RecordedProbe.from_file(RECORDING),  # type: ignore[arg-type]
                         on_sample=mapped.append)
    assert device_minor(steps.policy.gpu_devices[2]) == 2
    for _ in range(4):
        asyncio.run(sampler.sample())
    batch = {g["index"]: g for g in gpu_usage.figures(steps.job_dir(11, "batch"))}
    assert batch[0]["samples"] == 4 and batch[0]["util_max"] == 99 and batch[1]["util_max"] == 0
    assert [g["index"] for g in gpu_usage.figures(steps.job_dir(11, "0"))] == [0]
    [lost] = gpu_usage.figures(steps.job_dir(12, "batch"))
    assert lost["lost"] and lost["samples"] == 2 and lost["util_max"] == 91
    assert sampler.activity[11][0] == 99 and 12 not in sampler.activity   # job 12's only GPU is lost
    assert mapped[-1] == {0: [11], 1: [11], 2: [12], 3: []}


def test_sampler_stops_for_good_when_nvml_is_unavailable(tmp_path: Path) -> None:
    steps = _Steps(tmp_path, _Policy({0: "/dev/null"}), {5: ["batch"]})
    gpu_usage.write_allocation(steps.job_dir(5), [0])
    sampler = GpuSampler(steps, nvml.NvmlProbe())  # type: ignore[arg-type]
    asyncio.run(sampler.sample())   # /dev/null has minor 3: NVML is asked, and is not there
    assert not sampler.available and gpu_usage.figures(steps.job_dir(5)) == []
