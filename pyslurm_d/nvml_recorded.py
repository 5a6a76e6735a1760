"""Recorded NVML answers: the GpuProbe that replays them, and the recorder that takes them.

A recording is JSON: `{"gpus": {"<minor>": [<reading>, ...]}}`, one series per GPU, each reading
`{"util": %, "mem_used": bytes, "mem_total": bytes, "power_mw": mW, "processes": [[pid, bytes], ...]}`
or `{"lost": true}`. Replaying, each read of a GPU takes the next reading of its series and the
last one repeats, so a series ending busy stays busy. A GPU the recording does not name is not
there, as for NVML.

`pyslurmd --nvml-recording FILE` samples through a RecordedProbe instead of NVML (tests and
demos on hosts without GPUs, with fake /dev/nvidia* nodes); on a GPU host,
`python -m pyslurm_d.nvml_recorded OUT.json [samples] [interval]` records real answers in this
format. Sizes are bounded when loaded: a recording is a file an admin points at, but a typo must
not make a node agent allocate without end.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Iterable

from .nvml import GpuProbe, GpuProcess, GpuReading, NvmlProbe, NvmlUnavailable

MAX_SERIES = 100_000
MAX_PROCESSES = 1024


class RecordingError(Exception):
    pass


def _reading(minor: int, raw: object) -> GpuReading:
    if not isinstance(raw, dict):
        raise RecordingError(f"GPU {minor}: a reading must be an object, not {raw!r}")
    if raw.get("lost"):
        return GpuReading(minor, lost=True)
    processes = raw.get("processes", [])
    if not isinstance(processes, list) or len(processes) > MAX_PROCESSES:
        raise RecordingError(f"GPU {minor}: processes must be a list of at most {MAX_PROCESSES} [pid, bytes]")
    try:
        return GpuReading(
            minor, utilization_percent=min(100, max(0, int(raw.get("util", 0)))),
            memory_used_bytes=max(0, int(raw.get("mem_used", 0))), memory_total_bytes=max(0, int(raw.get("mem_total", 0))),
            power_milliwatts=max(0, int(raw.get("power_mw", 0))),
            processes=tuple(GpuProcess(int(pid), max(0, int(used))) for pid, used in processes))
    except (TypeError, ValueError) as exc:
        raise RecordingError(f"GPU {minor}: bad reading {raw!r}: {exc}") from exc


def load(path: Path) -> dict[int, tuple[GpuReading, ...]]:
    """The series of a recording file, by device minor. Raises RecordingError (or OSError)."""
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{path}: not JSON: {exc}") from exc
    gpus = data.get("gpus") if isinstance(data, dict) else None
    if not isinstance(gpus, dict):
        raise RecordingError(f'{path}: expected {{"gpus": {{"<minor>": [readings]}}}}')
    series: dict[int, tuple[GpuReading, ...]] = {}
    for key, readings in gpus.items():
        if not str(key).isdigit() or not isinstance(readings, list) or not 0 < len(readings) <= MAX_SERIES:
            raise RecordingError(f"{path}: GPU {key!r}: expected a minor number and 1-{MAX_SERIES} readings")
        series[int(key)] = tuple(_reading(int(key), raw) for raw in readings)
    return series


class RecordedProbe:
    """A GpuProbe answering from recorded series."""

    def __init__(self, series: dict[int, tuple[GpuReading, ...]]) -> None:
        self._series = series
        self._next = {minor: 0 for minor in series}

    @classmethod
    def from_file(cls, path: Path) -> "RecordedProbe":
        return cls(load(path))

    def read(self, minors: Iterable[int]) -> dict[int, GpuReading]:
        result = {}
        for minor in minors:
            series = self._series.get(minor)
            if series is None:
                continue
            position = self._next[minor]
            result[minor] = series[min(position, len(series) - 1)]
            self._next[minor] = position + 1
        return result

    def close(self) -> None:
        pass


def _as_json(reading: GpuReading) -> dict[str, object]:
    if reading.lost:
        return {"lost": True}
    return {"util": reading.utilization_percent, "mem_used": reading.memory_used_bytes,
            "mem_total": reading.memory_total_bytes, "power_mw": reading.power_milliwatts,
            "processes": [[p.pid, p.used_memory_bytes] for p in reading.processes]}


def record(probe: GpuProbe, minors: Iterable[int], samples: int, interval: float) -> dict[str, object]:
    """`samples` readings of each GPU, `interval` seconds apart, as a recording."""
    wanted = list(minors)
    series: dict[str, list[dict[str, object]]] = {str(m): [] for m in wanted}
    for number in range(samples):
        if number:
            time.sleep(interval)
        for minor, reading in probe.read(wanted).items():
            series[str(minor)].append(_as_json(reading))
    return {"gpus": {minor: readings for minor, readings in series.items() if readings}}


def main() -> None:
    """Record this host's GPUs: `python -m pyslurm_d.nvml_recorded OUT.json [samples] [interval]`."""
    args = sys.argv[1:]
    if not args or len(args) > 3:
        sys.exit("usage: python -m pyslurm_d.nvml_recorded OUT.json [samples=30] [interval=1.0]")
    probe = NvmlProbe()
    try:
        recording = record(probe, range(64), int(args[1]) if len(args) > 1 else 30,
                           float(args[2]) if len(args) > 2 else 1.0)
    except NvmlUnavailable as exc:
        sys.exit(f"nvml_recorded: error: {exc}")
    finally:
        probe.close()
    Path(args[0]).write_text(json.dumps(recording, indent=1) + "\n")


if __name__ == "__main__":
    main()
