"""What this node has: CPUs and memory (psutil) and NVIDIA GPUs (/dev/nvidia<N>).

GPU discovery takes the device directory as an argument, so tests can lay out
fake device nodes (char major 195) in a temporary directory. GPU models come
from the driver's /proc/driver/nvidia/gpus/<pci>/information files (root also
an argument): parsing is pure (`parse_gpu_information`), reading is separate.
A missing or unreadable driver tree only means the GPUs have no type.
"""
from __future__ import annotations

import os
import platform
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import psutil

from pyslurm_common.gres import GpuDevice

NVIDIA_MAJOR = 195
NVIDIA_PROC = Path("/proc/driver/nvidia")
_NVIDIA_NODE = re.compile(r"nvidia(\d+)$")


@dataclass(frozen=True, slots=True)
class Hardware:
    cpus: int
    real_memory_mb: int
    gpus: tuple[Path, ...]
    boot_time: int
    arch: str
    os: str
    sockets: int
    cores_per_socket: int
    threads_per_core: int

    @property
    def gres(self) -> str:
        return f"gpu:{len(self.gpus)}" if self.gpus else ""


def gpu_devices(dev_root: Path) -> tuple[Path, ...]:
    """`/dev/nvidia0`, `/dev/nvidia1`, ... that are NVIDIA character devices, by index."""
    found: list[tuple[int, Path]] = []
    try:
        entries = list(dev_root.iterdir())
    except FileNotFoundError:
        return ()
    for path in entries:
        match = _NVIDIA_NODE.match(path.name)
        if not match:
            continue
        try:
            st = path.stat()
        except OSError:
            continue
        if stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == NVIDIA_MAJOR:
            found.append((int(match.group(1)), path))
    return tuple(p for _, p in sorted(found))


@dataclass(frozen=True, slots=True)
class GpuInformation:
    """What one `gpus/<pci>/information` file says."""

    model: str            # as the driver writes it, e.g. "NVIDIA H200"
    minor: int | None     # "Device Minor": N of /dev/nvidia<N>; None if the file lacks it
    bus: str              # "Bus Location", e.g. "0000:18:00.0"


def gpu_type_name(model: str) -> str:
    """Slurm's GRES type for a model name: lower-cased, spaces -> `_` ("NVIDIA H200" -> "nvidia_h200")."""
    return "_".join(model.lower().split())


def parse_gpu_information(text: str) -> GpuInformation:
    """`Key: value` lines (tabs and spaces after the colon) of the driver's information file."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            values.setdefault(key.strip().lower(), value.strip())
    minor = values.get("device minor", "")
    return GpuInformation(model=values.get("model", ""), minor=int(minor) if minor.isdigit() else None,
                          bus=values.get("bus location", ""))


def gpu_models(proc_root: Path = NVIDIA_PROC) -> dict[int, str]:
    """Device minor -> GRES type name of every GPU the driver lists; {} without a driver tree."""
    models: dict[int, str] = {}
    try:
        entries = sorted((proc_root / "gpus").iterdir())
    except OSError:
        return models
    for entry in entries:
        try:
            info = parse_gpu_information((entry / "information").read_text(errors="replace"))
        except OSError:
            continue
        if info.minor is not None and info.model:
            models[info.minor] = gpu_type_name(info.model)
    return models


def typed_gpus(devices: Sequence[Path], models: Mapping[int, str]) -> tuple[GpuDevice, ...]:
    """Devices (as `gpu_devices` orders them) with global index = position and the driver's type."""
    found = []
    for index, path in enumerate(devices):
        match = _NVIDIA_NODE.match(path.name)
        kind = models.get(int(match.group(1)), "") if match else ""
        found.append(GpuDevice(index=index, path=path, type=kind))
    return tuple(found)


def detect_gpus(dev_root: Path = Path("/dev"), proc_root: Path = NVIDIA_PROC) -> tuple[GpuDevice, ...]:
    """The node's NVIDIA GPUs with their types (AutoDetect when gres.conf lists no File=)."""
    return typed_gpus(gpu_devices(dev_root), gpu_models(proc_root))


def detect(dev_root: Path = Path("/dev")) -> Hardware:
    cpus = len(os.sched_getaffinity(0))
    cores = psutil.cpu_count(logical=False) or cpus
    threads = max(1, cpus // cores)
    uname = platform.uname()
    return Hardware(
        cpus=cpus,
        real_memory_mb=psutil.virtual_memory().total // (1024 * 1024),
        gpus=gpu_devices(dev_root),
        boot_time=int(psutil.boot_time()),
        arch=uname.machine,
        os=f"{uname.system} {uname.release} {uname.version}",
        sockets=1,
        cores_per_socket=max(1, cpus // threads),
        threads_per_core=threads,
    )


def node_line(name: str, hw: Hardware) -> str:
    """The `slurmd -C` style NodeName line for this hardware."""
    line = (f"NodeName={name} CPUs={hw.cpus} Boards=1 SocketsPerBoard={hw.sockets} "
            f"CoresPerSocket={hw.cores_per_socket} ThreadsPerCore={hw.threads_per_core} "
            f"RealMemory={hw.real_memory_mb}")
    return line + (f" Gres={hw.gres}" if hw.gres else "")
