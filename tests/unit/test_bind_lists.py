"""The map/mask lists --cpu-bind and --mem-bind share (pyslurm_common/bind_lists.py): both options
read them as real Slurm 22.05's srun did (messages as it printed them, parse-only oracle), and a
list's length and values stay bounded."""
from __future__ import annotations

import pytest

from pyslurm_common import cpu_binding, mem_binding
from pyslurm_common.bind_lists import MAX_ENTRIES, expand, words


@pytest.mark.parametrize("text, message", [
    ("map_cpu:x", "Failed to validate number: x, the offending character is x"),
    ("map_cpu:0x3", "Failed to validate number: 0x3, the offending character is x"),
    ("map_cpu:0*0", "Invalid map_cpu multiplier: 0"),
    ("mask_cpu:0x3*x", "Failed to validate number: *x, the offending character is x"),
    ("map_ldom:1,g", 'unrecognized --cpu-bind argument "g"'),
    ("mask_ldom:0*", "Invalid mask_ldom multiplier: "),
    ("v,", 'unrecognized --cpu-bind argument "v,"'),
])
def test_cpu_lists_are_refused_in_slurms_words(text: str, message: str) -> None:
    with pytest.raises(cpu_binding.BindError) as refused:
        cpu_binding.parse(text)
    assert str(refused.value) == message


def test_both_options_read_lists_alike() -> None:
    assert cpu_binding.parse("map_cpu:1,,2*2").items == (1, 2, 2)          # an empty item is skipped
    assert cpu_binding.parse("map_ldom:1*2,0").items == (1, 1, 0)
    assert cpu_binding.parse("mask_cpu:3,f").items == (3, 15)               # hexadecimal continues the list
    assert mem_binding.parse("mask_mem:1,f").values == ("1", "f")
    with pytest.raises(mem_binding.MemBindError, match='^unrecognized --mem-bind argument "v,"$'):
        mem_binding.parse("v,")


def test_words_keep_a_list_together() -> None:
    assert words("v,map_cpu:1,0,cores") == ["v", "map_cpu:1,0", "cores"]
    assert words("mask_mem:0x1,ab,local") == ["mask_mem:0x1,ab", "local"]


@pytest.mark.parametrize("listed", ["0*" + "9" * 5000, f"0*{MAX_ENTRIES + 1}", ",".join(["1"] * (MAX_ENTRIES + 1))])
def test_a_list_is_bounded(listed: str) -> None:
    with pytest.raises(ValueError, match="^Invalid map_mem multiplier: "):
        expand(listed, "map_mem", ValueError)


def test_a_cpu_number_is_bounded_without_reading_it_whole() -> None:
    for text in ("map_cpu:" + "9" * 5000, "map_cpu:65536", "mask_cpu:1" + "0" * 16384):
        with pytest.raises(cpu_binding.BindError, match="^unrecognized --cpu-bind argument "):
            cpu_binding.parse(text)
    assert cpu_binding.parse("map_cpu:0065535").items == (65535,)


def test_a_map_mem_node_is_bounded_at_the_stepd() -> None:
    # srun takes any number of digits (Slurm does); the stepd refuses the node without reading it whole.
    huge = "9" * 5000
    with pytest.raises(mem_binding.MemBindError, match=f"^NUMA node {huge} does not exist; cannot bind local task 0"):
        mem_binding.task_nodes(mem_binding.parse(f"map_mem:{huge}"), 0, 2, 1, ())
    assert mem_binding.task_nodes(mem_binding.parse("map_mem:*2"), 0, 2, 1, ()) == {0}
    assert mem_binding.task_nodes(mem_binding.parse("map_mem:001"), 0, 2, 1, ()) == {1}
