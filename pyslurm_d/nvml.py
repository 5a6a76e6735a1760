"""NVML, the one place pyslurm asks NVIDIA's driver about its GPUs.

Answers, for the GPUs named by their device minor (N of /dev/nvidia<N>, which is how a node's
GPUs are known here whether gres.conf lists them or they are autodetected): utilisation %,
memory used and total, power draw and the processes using each GPU. A GPU that fell off the
bus (NVML's GPU_IS_LOST, "Xid 79") reads as `lost`, with no figures.

`pynvml` (PyPI nvidia-ml-py, NVIDIA's own binding) is imported on the first read only, so a node
without NVIDIA GPUs neither loads it nor libnvidia-ml; when either is missing every read raises
NvmlUnavailable once the probe is asked, and the caller stops asking.

This is the seam the tests cut: `GpuProbe` is what the sampler takes, and
`pyslurm_d.nvml_recorded.RecordedProbe` answers it from recorded series (pyslurmd
`--nvml-recording`). NVML calls block (they go to the driver): call `read` from a worker thread.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, Iterable, Protocol

log = logging.getLogger(__name__)


class NvmlUnavailable(Exception):
    """No NVML here: the binding or the driver's library is missing, or it would not start."""


@dataclass(frozen=True, slots=True)
class GpuProcess:
    pid: int
    used_memory_bytes: int      # 0 where the driver does not say (e.g. in some containers)


@dataclass(frozen=True, slots=True)
class GpuReading:
    """One GPU at one moment."""

    minor: int
    utilization_percent: int = 0      # share of the last sample period a kernel ran (0-100)
    memory_used_bytes: int = 0
    memory_total_bytes: int = 0
    power_milliwatts: int = 0         # 0 where the board does not report power
    processes: tuple[GpuProcess, ...] = ()
    lost: bool = False                # fell off the bus: no figures, the GPU needs a reset


class GpuProbe(Protocol):
    def read(self, minors: Iterable[int]) -> dict[int, GpuReading]:
        """Readings of the GPUs with these device minors (a minor NVML does not know is left out).
        Raises NvmlUnavailable."""
        ...

    def close(self) -> None: ...


class NvmlProbe:
    """The real NVML. Initialised on the first read, shut down by close()."""

    def __init__(self) -> None:
        self._nvml: Any = None
        self._handles: dict[int, Any] = {}     # device minor -> NVML handle
        self._lock = threading.Lock()          # reads come from worker threads

    def _start(self) -> Any:
        if self._nvml is not None:
            return self._nvml
        try:
            import pynvml   # nvidia-ml-py; only nodes with NVIDIA GPUs get here
        except ImportError as exc:
            raise NvmlUnavailable(f"nvidia-ml-py is not installed: {exc}") from exc
        try:
            pynvml.nvmlInit()
            count = pynvml.nvmlDeviceGetCount()
        except pynvml.NVMLError as exc:
            raise NvmlUnavailable(f"NVML: {exc}") from exc
        handles = {}
        for index in range(count):
            try:
                handle = pynvml.nvmlDeviceGetHandleByIndex(index)
                handles[int(pynvml.nvmlDeviceGetMinorNumber(handle))] = handle
            except pynvml.NVMLError as exc:   # e.g. lost since boot: the others still count
                log.warning("NVML: GPU %d left out: %s", index, exc)
        self._nvml, self._handles = pynvml, handles
        log.info("NVML started: %d GPU(s), driver %s", len(handles), _text(pynvml.nvmlSystemGetDriverVersion()))
        return pynvml

    def read(self, minors: Iterable[int]) -> dict[int, GpuReading]:
        with self._lock:
            nvml = self._start()
            return {minor: self._reading(nvml, minor) for minor in minors if minor in self._handles}

    def _reading(self, nvml: Any, minor: int) -> GpuReading:
        handle = self._handles[minor]
        try:
            utilization = nvml.nvmlDeviceGetUtilizationRates(handle)
            memory = nvml.nvmlDeviceGetMemoryInfo(handle)
            processes = tuple(GpuProcess(int(p.pid), int(p.usedGpuMemory or 0))
                              for p in nvml.nvmlDeviceGetComputeRunningProcesses(handle))
        except nvml.NVMLError as exc:
            if getattr(exc, "value", None) == nvml.NVML_ERROR_GPU_IS_LOST:
                return GpuReading(minor, lost=True)
            raise NvmlUnavailable(f"NVML: GPU {minor}: {exc}") from exc
        try:
            power = int(nvml.nvmlDeviceGetPowerUsage(handle))
        except nvml.NVMLError:   # NOT_SUPPORTED on boards without a power sensor
            power = 0
        return GpuReading(minor, int(utilization.gpu), int(memory.used), int(memory.total), power, processes)

    def close(self) -> None:
        with self._lock:
            if self._nvml is not None:
                try:
                    self._nvml.nvmlShutdown()
                except self._nvml.NVMLError:
                    pass
                self._nvml, self._handles = None, {}


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
