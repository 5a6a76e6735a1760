"""--gpu-bind parsing and per-task GPU sets (pyslurm_common/gpu_binding.py)."""
from __future__ import annotations

import pytest

from pyslurm_common.gpu_binding import GpuBind, GpuBindError, implied, parse, task_gpus, verbose_line


def test_parse_and_implied_bindings() -> None:
    assert parse("verbose,single:2") == GpuBind(True, "single", 2)
    assert parse("map_gpu:0*2,1") == GpuBind(False, "map_gpu", 0, (0, 0, 1))
    assert parse("mask_gpu:0x3,c") == GpuBind(False, "mask_gpu", 0, (3, 12))
    for bad in ("sideways", "single:0", "map_gpu:", "single:x", "mask_gpu:0x1" + "0" * 2000):
        with pytest.raises(GpuBindError, match=f"Invalid --gpu-bind argument: gpu:{bad}"):
            parse(bad)
    assert implied("", 2, 0) == "per_task:2"
    assert implied("", 0, 3) == "single:3"
    assert implied("none", 2, 0) == "none"


def test_each_task_gets_its_gpus() -> None:
    assert [task_gpus(parse("per_task:2"), 4, i, 2) for i in range(2)] == [[0, 1], [2, 3]]
    assert [task_gpus(parse("single:2"), 2, i, 4) for i in range(4)] == [[0], [0], [1], [1]]
    assert [task_gpus(parse("map_gpu:3,1"), 4, i, 3) for i in range(3)] == [[3], [1], [3]]
    assert task_gpus(parse("mask_gpu:0x5"), 4, 0, 2) == [0, 2]
    assert task_gpus(parse("map_gpu:9"), 4, 0, 2) == [0]          # none of the step's: the first
    assert task_gpus(parse("per_task:1"), 4, 0, 1) == [0, 1, 2, 3]   # one task: nothing is bound
    assert task_gpus(parse("closest"), 2, 1, 2) == [0, 1]


def test_verbose_line() -> None:
    assert verbose_line([1], ["4", "6"]) == \
        "gpu-bind: usable_gres=0x2; bit_alloc=0x3; local_inx=2; global_list=6; local_list=1\n"
