"""The node agent's GPU sampling: every JobAcctGatherFrequency, one NVML read of the GPUs that
running steps hold, folded into each step's tallies (gpu_usage.py).

One probe per agent (NVML is started once, not per step), read in a worker thread since NVML
calls block on the driver. A node where NVML is unavailable (no binding, no driver library)
logs that once and stops asking it; steps then report no GPU figures, as Slurm without its GPU
plugin. `JobAcctGatherFrequency=0` (or task=0) turns sampling off, as it does for memory.

Also keeps, per job, the utilisation of its GPUs at the latest sample, which the heartbeat
carries to the controller (the idle-GPU policy's input), and hands each sample's GPU -> jobs
map to `on_sample` (dcgm-exporter's job mapping files).
"""
from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import Callable

from . import gpu_usage
from .nvml import GpuProbe, NvmlProbe, NvmlUnavailable
from .nvml_recorded import RecordedProbe
from .steps import StepManager

log = logging.getLogger(__name__)


def device_minor(path: str) -> int | None:
    """N of the character device /dev/nvidia<N> (its minor number), None if it is not there."""
    try:
        return os.minor(os.stat(path).st_rdev)
    except OSError:
        return None


class GpuSampler:
    def __init__(self, steps: StepManager, probe: GpuProbe, proc: Path = Path("/proc"),
                 on_sample: Callable[[dict[int, list[int]]], None] | None = None) -> None:
        self.steps = steps
        self.probe = probe
        self.proc = proc
        self.on_sample = on_sample
        self.available = True
        self.activity: dict[int, tuple[int, int]] = {}   # job id -> (utilisation %, sampled at)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            frequency = self.steps.policy.gather_frequency
            if frequency <= 0:
                return
            try:
                await asyncio.wait_for(stop.wait(), frequency)
                return
            except TimeoutError:
                pass
            await self.sample()

    async def sample(self) -> None:
        """One round: read the held GPUs, fold each step's readings in, note each job's activity."""
        held: dict[tuple[int, str], tuple[int, ...]] = {}
        for job_id, step in self.steps.running_steps():
            indices = gpu_usage.allocation(self.steps.job_dir(job_id, step))
            if indices:
                held[(job_id, step)] = indices
        devices = self.steps.policy.gpu_devices
        minors = {index: minor for index in {i for ids in held.values() for i in ids}
                  if index in devices and (minor := device_minor(devices[index])) is not None}
        if self.on_sample is not None:
            users: dict[int, list[int]] = {index: [] for index in devices}
            for (job_id, _), indices in held.items():
                for index in indices:
                    if index in users and job_id not in users[index]:
                        users[index].append(job_id)
            self.on_sample(users)
        if not minors or not self.available:
            self.activity = {}
            return
        try:
            readings = await asyncio.to_thread(self.probe.read, set(minors.values()))
        except NvmlUnavailable as exc:
            log.warning("GPU sampling off on this node: %s", exc)
            self.available = False
            return
        now = int(time.time())
        activity: dict[int, tuple[int, int]] = {}
        for (job_id, step), indices in held.items():
            mine = {i: readings[minors[i]] for i in indices if i in minors and minors[i] in readings}
            if not mine:
                continue
            gpu_usage.fold(self.steps.job_dir(job_id, step), job_id, mine, self.proc)
            live = [r.utilization_percent for r in mine.values() if not r.lost]
            if live:   # a lost GPU says nothing about use: no figure rather than an idle one
                activity[job_id] = (max(max(live), activity.get(job_id, (0, now))[0]), now)
        self.activity = activity


def gpu_probe(recording: Path | None) -> GpuProbe:
    """NVML, or the answers of a recording (pyslurmd --nvml-recording). Raises RecordingError or
    OSError for a recording that cannot be read."""
    return RecordedProbe.from_file(recording) if recording is not None else NvmlProbe()
