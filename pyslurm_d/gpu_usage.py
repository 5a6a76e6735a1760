"""What a step's GPUs did on this node: NVML readings folded into per-GPU tallies.

Two small files in the step's spool directory (so they outlive a restart of this agent, and go
with the directory when the step is reported): `gpus`, the global indices of the GPUs the step
was given (written at launch), and `gpu_usage.json`, the tallies so far (rewritten every sample).
From them come the step's figures at its end (into the result the controller gets) and while
it runs (for sstat): `figures`: per GPU the number of samples, mean and peak utilisation
%, mean and peak memory used, peak power, and whether NVML lost the GPU meanwhile.

A process on a step's GPU that is not in the job's cgroup is logged once per step and pid: on
a shared box that is the first thing to know when a job's GPU looks slow. Pure apart from those
files and /proc reads.
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from pyslurm_common.rpc import types_pb2

from .nvml import GpuReading

log = logging.getLogger(__name__)
ALLOCATION_FILE = "gpus"
TALLY_FILE = "gpu_usage.json"
MAX_FOREIGN_PIDS = 16     # listed per GPU; more than that is one busy neighbour anyway


@dataclass(slots=True)
class GpuTally:
    """One GPU of one step on this node, over the samples so far."""

    index: int
    samples: int = 0
    util_sum: int = 0
    util_max: int = 0
    mem_sum_bytes: int = 0
    mem_max_bytes: int = 0
    power_max_mw: int = 0
    lost: bool = False
    foreign_pids: list[int] = field(default_factory=list)
    last_util: int = 0

    def add(self, reading: GpuReading, foreign: Iterable[int]) -> None:
        if reading.lost:
            self.lost = True
            return
        self.samples += 1
        self.util_sum += reading.utilization_percent
        self.util_max = max(self.util_max, reading.utilization_percent)
        self.mem_sum_bytes += reading.memory_used_bytes
        self.mem_max_bytes = max(self.mem_max_bytes, reading.memory_used_bytes)
        self.power_max_mw = max(self.power_max_mw, reading.power_milliwatts)
        self.last_util = reading.utilization_percent
        for pid in foreign:
            if pid not in self.foreign_pids and len(self.foreign_pids) < MAX_FOREIGN_PIDS:
                self.foreign_pids.append(pid)

    def figures(self) -> dict[str, object]:
        """What the controller and sstat get (types.proto GpuUsage, less the node)."""
        count = max(1, self.samples)
        return {"index": self.index, "samples": self.samples, "util_ave": self.util_sum // count,
                "util_max": self.util_max, "mem_ave_bytes": self.mem_sum_bytes // count,
                "mem_max_bytes": self.mem_max_bytes, "power_max_mw": self.power_max_mw, "lost": self.lost,
                "foreign_pids": list(self.foreign_pids)}


def write_allocation(step_dir: Path, indices: Iterable[int]) -> None:
    """At launch: the GPUs the step was given (no file when none)."""
    wanted = sorted(set(indices))
    if wanted:
        (step_dir / ALLOCATION_FILE).write_text(",".join(str(i) for i in wanted))


def allocation(step_dir: Path) -> tuple[int, ...]:
    try:
        text = (step_dir / ALLOCATION_FILE).read_text().strip()
    except OSError:
        return ()
    return tuple(int(part) for part in text.split(",") if part.isdigit())


def _load(step_dir: Path) -> dict[int, GpuTally]:
    try:
        raw = json.loads((step_dir / TALLY_FILE).read_text())
        return {int(t["index"]): GpuTally(**t) for t in raw}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def _save(step_dir: Path, tallies: Mapping[int, GpuTally]) -> None:
    tmp = step_dir / (TALLY_FILE + ".tmp")
    tmp.write_text(json.dumps([asdict(t) for t in tallies.values()]))
    os.replace(tmp, step_dir / TALLY_FILE)


def in_job(pid: int, job_id: int, proc: Path = Path("/proc")) -> bool | None:
    """Whether a process is in the job's cgroup; None when it cannot be told (gone, another
    pid namespace)."""
    try:
        text = (proc / str(pid) / "cgroup").read_text()
    except OSError:
        return None
    return f"/job_{job_id}/" in text or text.rstrip().endswith(f"/job_{job_id}")


def fold(step_dir: Path, job_id: int, readings: Mapping[int, GpuReading], proc: Path = Path("/proc")) -> None:
    """Add one sample of each of the step's GPUs (by global index) to its tallies."""
    tallies = _load(step_dir)
    for index, reading in sorted(readings.items()):
        tally = tallies.setdefault(index, GpuTally(index))
        if reading.lost and not tally.lost:
            log.error("job=%d GPU %d is lost (NVML: GPU_IS_LOST); its figures stop here", job_id, index)
        foreign = [p.pid for p in reading.processes if in_job(p.pid, job_id, proc) is False]
        for pid in foreign:
            if pid not in tally.foreign_pids:
                log.warning("job=%d GPU %d is also used by pid %d, which is not part of the job", job_id, index, pid)
        tally.add(reading, foreign)
    _save(step_dir, tallies)


def figures(step_dir: Path) -> list[dict[str, object]]:
    """The step's figures so far (final once it ended), one entry per GPU that was sampled."""
    return [t.figures() for t in sorted(_load(step_dir).values(), key=lambda t: t.index)]


def last_utilization(step_dir: Path) -> int | None:
    """The highest utilisation of the step's GPUs in the latest sample (None before one)."""
    tallies = [t for t in _load(step_dir).values() if t.samples]
    return max(t.last_util for t in tallies) if tallies else None



def messages(node: str, entries: object) -> list[types_pb2.GpuUsage]:
    """`figures` (or the `gpus` of a step result) as the wire's GpuUsage messages."""
    if not isinstance(entries, list):
        return []
    return [types_pb2.GpuUsage(node=node, **entry) for entry in entries if isinstance(entry, dict)]
