"""What this node has: CPUs and memory (psutil) and NVIDIA GPUs (/dev/nvidia<N>).

GPU discovery takes the device directory as an argument, so tests can lay out
fake device nodes (char major 195) in a temporary directory.
"""
from __future__ import annotations

import os
import platform
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import psutil

NVIDIA_MAJOR = 195
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
