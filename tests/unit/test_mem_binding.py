"""srun --mem-bind (pyslurm_common/mem_binding.py), against what real Slurm 22.05 printed for the
same values (srun on the oracle cluster: one NUMA node, host `vm`)."""
from __future__ import annotations

import pytest

from pyslurm_common.mem_binding import MemBind, MemBindError, from_environment, parse, task_nodes, verbose_line


@pytest.mark.parametrize("text, env", [
    ("verbose,map_mem:0,1", {"SLURM_MEM_BIND": "verbose,map_mem:0,1", "SLURM_MEM_BIND_LIST": "0,1",
                             "SLURM_MEM_BIND_TYPE": "map_mem:", "SLURM_MEM_BIND_VERBOSE": "verbose"}),
    ("rank,v", {"SLURM_MEM_BIND": "verbose,rank", "SLURM_MEM_BIND_LIST": "", "SLURM_MEM_BIND_TYPE": "rank",
                "SLURM_MEM_BIND_VERBOSE": "verbose"}),
    ("mask_mem:0x1*2,v", {"SLURM_MEM_BIND": "verbose,mask_mem:1,1", "SLURM_MEM_BIND_LIST": "1,1",
                          "SLURM_MEM_BIND_TYPE": "mask_mem:", "SLURM_MEM_BIND_VERBOSE": "verbose"}),
    ("local,none,q", {"SLURM_MEM_BIND": "quiet,none", "SLURM_MEM_BIND_LIST": "", "SLURM_MEM_BIND_TYPE": "none",
                      "SLURM_MEM_BIND_VERBOSE": "quiet"}),
    ("MAP_MEM=0,1", {"SLURM_MEM_BIND": "quiet,map_mem:0,1", "SLURM_MEM_BIND_LIST": "0,1",
                     "SLURM_MEM_BIND_TYPE": "map_mem:", "SLURM_MEM_BIND_VERBOSE": "quiet"}),
])
def test_the_step_variables_are_slurms(text: str, env: dict[str, str]) -> None:
    assert parse(text).environment() == env
    assert from_environment(env) == parse(env["SLURM_MEM_BIND"])


@pytest.mark.parametrize("text, message", [
    ("bogus", 'unrecognized --mem-bind argument "bogus"'),
    ("map_mem:x", "Failed to validate number: x, the offending character is x"),
    ("map_mem", 'missing list for "--mem-bind=map_mem:<list>"'),
    ("map_mem:0*0", "Invalid map_mem multiplier: 0"),
    ("map_mem:0*x", "Failed to validate number: *x, the offending character is x"),
    ("mask_mem:0xg", "Failed to validate number: g, the offending character is g"),
    ("map_mem:0*99999999999", "Invalid map_mem multiplier: 99999999999"),
])
def test_refusals_in_slurms_words(text: str, message: str) -> None:
    with pytest.raises(MemBindError) as refused:
        parse(text)
    assert str(refused.value) == message


@pytest.mark.parametrize("text, binds", [
    ("none", False), ("v", False), ("sort", False), ("v,sort", True), ("p", True), ("rank", True), ("local", True),
])
def test_which_values_bind(text: str, binds: bool) -> None:
    """As the stepd: `none`, `sort` alone and `verbose` alone do nothing; `p` or `v,sort` without a
    kind try, and fail with 'value is empty' (what real Slurm did)."""
    assert parse(text).binds is binds
    if binds and not parse(text).kind:
        with pytest.raises(MemBindError, match="^--mem-bind value is empty for local task 0$"):
            task_nodes(parse(text), 0, 2, 0, {0})


def test_the_nodes_of_each_task() -> None:
    assert task_nodes(parse("map_mem:0,1"), 3, 4, 1, ()) == {1}          # wraps round the list
    assert task_nodes(parse("mask_mem:0x3"), 0, 4, 1, ()) == {0, 1}
    assert task_nodes(parse("rank"), 1, 4, 3, ()) == {1}
    assert task_nodes(parse("local"), 0, 4, 1, {1}) == {1}
    refusals = {"map_mem:0,1": (1, "NUMA node 1 does not exist; cannot bind local task 1 to it (--mem-bind=map_mem)"),
                "mask_mem:0x2": (0, "NUMA node 1 does not exist; cannot bind local task 0 to it "
                                    "(--mem-bind=mask_mem; 0x2)"),
                "mask_mem:0x0": (0, "NUMA node mask is NULL (0x0). Must bind at least one NUMA node to local task 0 "
                                    "(--mem-bind=mask_mem)"),
                "rank": (1, "NUMA node 1 does not exist; cannot bind local task 1 to it (--mem-bind=rank)")}
    for text, (local_id, message) in refusals.items():
        with pytest.raises(MemBindError) as refused:
            task_nodes(parse(text), local_id, 2, 0, {0})
        assert str(refused.value) == message


@pytest.mark.parametrize("text, line", [
    ("verbose,map_mem:0", "mem-bind=MAP - vm, task  1  1 [21665]: mask 0x1 set\n"),
    ("v,local", "mem-bind=LOC - vm, task  1  1 [21665]: mask 0x1 set\n"),
    ("v", "mem-bind=NULL - vm, task  1  1 [21665]: mask 0x1\n"),
    ("v,none", "mem-bind=NONE - vm, task  1  1 [21665]: mask 0x1\n"),
    ("v,rank", "mem-bind=RANK - vm, task  1  1 [21665]: mask 0x1 set\n"),
    ("v,p,mask_mem:0x1", "mem-bind PREFER MASK - vm, task  1  1 [21665]: mask 0x1 set\n"),
    ("v,sort", "mem-bind=UNK - vm, task  1  1 [21665]: mask 0x1 set\n"),
])
def test_verbose_lines_as_slurm_printed_them(text: str, line: str) -> None:
    assert verbose_line(parse(text), "vm", 1, 1, 21665, {0}) == line


def test_quiet_alone_is_no_binding_at_all() -> None:
    assert from_environment({"SLURM_MEM_BIND": "quiet"}) is None and not MemBind().active
