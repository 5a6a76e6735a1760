"""dcgm-exporter's job mapping: `<dir>/<gpu>` files holding the ids of the jobs using each GPU.

With `GpuJobMappingDir=<dir>` in slurm.conf the node agent keeps one file per GPU of the node,
named by the GPU's device number (N of /dev/nvidia<N>, which is the id DCGM shows where device
numbers follow the PCI order, as on the usual box), holding the ids of the jobs that hold it, one
per line, empty when none: the layout dcgm-exporter reads with `--hpc-job-mapping-dir <dir>`, so
existing DCGM dashboards tag each GPU's metrics with its jobs. The files are rewritten (atomically,
mode 0644) when the set changes, at every GPU sample (JobAcctGatherFrequency).
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

from .gpu_sampler import device_minor

log = logging.getLogger(__name__)


class JobMappingDir:
    def __init__(self, directory: Path, devices: dict[int, str]) -> None:
        self.directory = directory
        self.devices = devices          # global GPU index -> device node
        self._written: dict[str, str] = {}

    def update(self, users: dict[int, list[int]]) -> None:
        """`users`: GPU index -> ids of the jobs holding it now."""
        try:
            self.directory.mkdir(mode=0o755, parents=True, exist_ok=True)
            for index in sorted(self.devices):
                minor = device_minor(self.devices[index])
                name = str(minor if minor is not None else index)
                text = "".join(f"{job_id}\n" for job_id in sorted(users.get(index, [])))
                if self._written.get(name) == text and (self.directory / name).exists():
                    continue
                tmp = self.directory / f".{name}.tmp"
                tmp.write_text(text)
                os.chmod(tmp, 0o644)
                os.replace(tmp, self.directory / name)
                self._written[name] = text
        except OSError as exc:
            log.error("GpuJobMappingDir %s: %s", self.directory, exc)
