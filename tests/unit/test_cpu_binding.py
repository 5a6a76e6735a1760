"""--cpu-bind parsing, per-task CPU sets and Slurm's verbose line (pyslurm_common/cpu_binding.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_common.cpu_binding import BindError, CpuBind, Topology, parse, read_topology, task_cpus, verbose_line

# Two sockets of two cores with two threads each: CPUs 0-3 on socket 0, 4-7 on socket 1;
# threads of one core are n and n+2 within a socket.
TOPO = Topology(socket={c: c // 4 for c in range(8)}, core={c: (c % 4) % 2 for c in range(8)},
                ldom={c: c // 4 for c in range(8)})


def test_words_and_lists_parse_as_slurm_splits_them() -> None:
    assert parse("q") == CpuBind()
    assert parse("v,cores") == CpuBind(verbose=True, level="cores")
    assert parse("verbose,map_cpu:1,0,cores") == CpuBind(True, "map_cpu", "cores", (1, 0))
    assert parse("mask_cpu:0x3,0xc*2") == CpuBind(False, "mask_cpu", "", (3, 12, 12))
    assert parse("map_cpu:0*2,1*2").items == (0, 0, 1, 1)
    assert parse("none").environment() == {"SLURM_CPU_BIND": "quiet,none", "SLURM_CPU_BIND_VERBOSE": "quiet",
                                           "SLURM_CPU_BIND_TYPE": "none", "SLURM_CPU_BIND_LIST": ""}
    assert parse("v,cores,mask_cpu:3").environment()["SLURM_CPU_BIND"] == "verbose,cores,mask_cpu:0x3"
    with pytest.raises(BindError, match='unrecognized --cpu-bind argument "sideways"'):
        parse("sideways")
    with pytest.raises(BindError, match='missing list for "--cpu-bind=map_cpu:<list>"'):
        parse("map_cpu:")
    for unbounded in ("map_cpu:0*99999", "map_cpu:70000", "mask_cpu:0x1" + "0" * 20000):
        with pytest.raises(BindError):
            parse(unbounded)


def test_levels_fill_units_block_or_cyclic_over_sockets() -> None:
    every = list(range(8))
    assert task_cpus(parse("cores"), every, TOPO, 2, distribution="block:block") == [{0, 2}, {1, 3}]
    assert task_cpus(parse("cores"), every, TOPO, 2) == [{0, 2}, {4, 6}]       # cyclic is the default
    assert task_cpus(parse("threads"), every, TOPO, 3, distribution="block:block") == [{0}, {1}, {2}]
    assert task_cpus(parse("sockets"), every, TOPO, 2) == [{0, 1, 2, 3}, {4, 5, 6, 7}]
    assert task_cpus(parse("threads"), every, TOPO, 2, cpus_per_task=2, distribution="block:block") == [{0, 1}, {2, 3}]
    assert task_cpus(parse("cores"), [0, 1], TOPO, 3) == [{0}, {1}, {0}]    # more tasks than units: start over
    assert task_cpus(parse("v"), [0, 1], TOPO, 2) == [{0, 1}, {0, 1}]        # no binding asked for


def test_explicit_bindings_stay_inside_the_step() -> None:
    assert task_cpus(parse("map_cpu:5,4"), [4, 5], TOPO, 3) == [{5}, {4}, {5}]
    assert task_cpus(parse("mask_cpu:0x30"), [4, 5], TOPO, 1) == [{4, 5}]
    with pytest.raises(BindError, match=r"CPU binding outside of job step allocation, allocated CPUs are: 30\."):
        task_cpus(parse("map_cpu:0"), [4, 5], TOPO, 1)
    with pytest.raises(BindError, match="Entire node must be allocated for rank"):
        task_cpus(parse("rank"), [4, 5], TOPO, 1)
    assert task_cpus(parse("rank"), list(range(8)), TOPO, 2) == [{0}, {1}]
    assert task_cpus(parse("map_ldom:1,0"), list(range(8)), TOPO, 2) == [{4, 5, 6, 7}, {0, 1, 2, 3}]
    assert task_cpus(parse("mask_ldom:3"), list(range(8)), TOPO, 1) == [set(range(8))]


def test_verbose_lines_are_slurms() -> None:
    assert verbose_line(parse("v,cores"), "n1", 0, 0, 4242, {0}) == \
        "cpu-bind-cores=MASK - n1, task  0  0 [4242]: mask 0x1 set\n"
    assert verbose_line(parse("v,map_cpu:3"), "n1", 12, 1, 7, {3}) == \
        "cpu-bind=MAP  - n1, task 12  1 [7]: mask 0x8 set\n"
    assert verbose_line(parse("v,none"), "n1", 0, 0, 7, {0, 1}) == "cpu-bind=NONE - n1, task  0  0 [7]: mask 0x3\n"


def test_topology_is_read_from_sysfs_layout(tmp_path: Path) -> None:
    for cpu, (core, socket) in enumerate(((0, 0), (0, 0), (1, 1))):
        top = tmp_path / "cpu" / f"cpu{cpu}" / "topology"
        top.mkdir(parents=True)
        (top / "core_id").write_text(f"{core}\n")
        (top / "physical_package_id").write_text(f"{socket}\n")
    (tmp_path / "node" / "node0").mkdir(parents=True)
    (tmp_path / "node" / "node0" / "cpulist").write_text("0-2\n")
    topo = read_topology(tmp_path)
    assert (topo.socket, topo.core, topo.ldom) == ({0: 0, 1: 0, 2: 1}, {0: 0, 1: 0, 2: 1}, {0: 0, 1: 0, 2: 0})
