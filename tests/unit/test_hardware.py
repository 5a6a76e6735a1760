"""GPU discovery of the node agent (pyslurm_d/hardware.py) on fixture trees.

Spec: daemons-and-cgroups.md §6 (global index = device order), config-slurm-conf.md §6 (a
detected type is the model name lower-cased with spaces as `_`). Device nodes need root to
create (mknod), so tests here cover the parts that need none: the driver's information files
and combining them with a device list.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pyslurm_common.gres import GpuDevice
from pyslurm_d.hardware import (GpuInformation, detect_gpus, gpu_devices, gpu_models, gpu_type_name,
                                parse_gpu_information, typed_gpus)

# As the NVIDIA driver writes it: the key, a colon, then tabs and spaces.
H200 = """\
Model: \t\t NVIDIA H200
IRQ:   \t\t 512
GPU UUID: \t GPU-6f0e3c1a-0000-0000-0000-000000000000
Video BIOS: \t 96.00.a5.00.01
Bus Type: \t PCIe
DMA Size: \t 52 bits
DMA Mask: \t 0xfffffffffffff
Bus Location: \t 0000:18:00.0
Device Minor: \t 1
GPU Excluded:\t No
"""


def driver_tree(root: Path, gpus: dict[str, tuple[str, int]]) -> Path:
    """`<root>/gpus/<pci>/information` for each pci -> (model, minor)."""
    for pci, (model, minor) in gpus.items():
        directory = root / "gpus" / pci
        directory.mkdir(parents=True)
        (directory / "information").write_text(H200.replace("NVIDIA H200", model)
                                                .replace("Device Minor: \t 1", f"Device Minor: \t {minor}"))
    return root


def test_parse_the_information_file() -> None:
    assert parse_gpu_information(H200) == GpuInformation(model="NVIDIA H200", minor=1, bus="0000:18:00.0")
    assert parse_gpu_information("Model: Tesla T4\n") == GpuInformation("Tesla T4", None, "")
    assert parse_gpu_information("") == GpuInformation("", None, "")


def test_type_names_as_slurm_derives_them() -> None:
    assert gpu_type_name("NVIDIA H200") == "nvidia_h200"
    assert gpu_type_name("Tesla V100-SXM2-16GB") == "tesla_v100-sxm2-16gb"
    assert gpu_type_name("  NVIDIA  A100 80GB PCIe ") == "nvidia_a100_80gb_pcie"


def test_models_by_device_minor(tmp_path: Path) -> None:
    root = driver_tree(tmp_path / "nvidia", {"0000:18:00.0": ("NVIDIA H200", 0),
                                             "0000:2a:00.0": ("NVIDIA A100-SXM4-40GB", 3)})
    (root / "gpus" / "0000:99:00.0").mkdir()        # no information file: skipped
    assert gpu_models(root) == {0: "nvidia_h200", 3: "nvidia_a100-sxm4-40gb"}


def test_no_driver_means_no_models(tmp_path: Path) -> None:
    assert gpu_models(tmp_path / "absent") == {}
    assert gpu_models(tmp_path) == {}                # a root without gpus/


def test_devices_get_index_by_position_and_type_by_minor() -> None:
    devices = [Path("/dev/nvidia0"), Path("/dev/nvidia2"), Path("/dev/nvidia3")]
    assert typed_gpus(devices, {2: "nvidia_h200", 3: "nvidia_a100", 7: "unused"}) == (
        GpuDevice(0, Path("/dev/nvidia0"), ""), GpuDevice(1, Path("/dev/nvidia2"), "nvidia_h200"),
        GpuDevice(2, Path("/dev/nvidia3"), "nvidia_a100"))


def test_plain_files_are_not_gpus(tmp_path: Path) -> None:
    # Only character devices of major 195 count; a regular file named like one does not.
    (tmp_path / "nvidia0").write_text("")
    (tmp_path / "nvidiactl").write_text("")
    assert gpu_devices(tmp_path) == ()
    assert detect_gpus(tmp_path, tmp_path / "proc") == ()
    assert gpu_devices(tmp_path / "absent") == ()


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root (CI runs as root)")
def test_detect_gpus_on_fake_device_nodes(tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    dev.mkdir()
    for name, major, minor in [("nvidia0", 195, 0), ("nvidia10", 195, 10), ("nvidia2", 195, 2),
                               ("nvidiactl", 195, 255), ("nvidia5", 1, 3)]:   # ctl and a wrong major: no GPU
        os.mknod(dev / name, 0o600 | stat.S_IFCHR, os.makedev(major, minor))
    proc = driver_tree(tmp_path / "nvidia", {"0000:18:00.0": ("NVIDIA H200", 2)})
    assert detect_gpus(dev, proc) == (GpuDevice(0, dev / "nvidia0", ""), GpuDevice(1, dev / "nvidia2", "nvidia_h200"),
                                      GpuDevice(2, dev / "nvidia10", ""))
