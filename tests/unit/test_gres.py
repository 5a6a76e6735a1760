"""GRES strings and gres.conf (pyslurm_common/gres.py).

Spec: config-slurm-conf.md §4 (`Gres=` on NodeName lines) and §6 (gres.conf); cli-sbatch-srun-
salloc.md (`--gres`, `--gpus*`); cli-squeue-sinfo-scontrol-scancel.md (`%b` TRES_PER_NODE,
`GresUsed=`); daemons-and-cgroups.md §6 (global GPU index = position among the device files).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_common.conf_syntax import ConfigError
from pyslurm_common.gres import (GpuDevice, GresError, GresSpec, NodeGres, format_gres, format_gres_used,
                                 format_indices, format_tres, gpu_slots, load_gres_conf, node_gres_from_devices,
                                 parse_count, parse_gpu_option, parse_gres, parse_gres_conf, parse_gres_request,
                                 tres_per_node)

# ---- Gres= ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "specs"), [
    ("gpu:4", (GresSpec("gpu", "", 4),)),
    ("gpu:a100:2", (GresSpec("gpu", "a100", 2),)),
    ("gpu:a100:2,gpu:v100:1", (GresSpec("gpu", "a100", 2), GresSpec("gpu", "v100", 1))),
    ("gpu", (GresSpec("gpu", "", 1),)),
    ("gpu:tesla_v100-sxm2-16gb:1", (GresSpec("gpu", "tesla_v100-sxm2-16gb", 1),)),
    ("nic:1K", (GresSpec("nic", "", 1024),)),
    ("mps:2M", (GresSpec("mps", "", 2 * 1024 ** 2),)),
    ("bandwidth:1G", (GresSpec("bandwidth", "", 1024 ** 3),)),
    ("gpu:no_consume:2", (GresSpec("gpu", "", 2, no_consume=True),)),
    ("gpu:a100:no_consume:2", (GresSpec("gpu", "a100", 2, no_consume=True),)),
    ("", ()), ("(null)", ()),
])
def test_node_gres_parses_into_typed_specs(text: str, specs: tuple[GresSpec, ...]) -> None:
    assert parse_gres(text) == specs


@pytest.mark.parametrize("text", ["gpu:", "gpu::2", ":2", "gpu:a100:v100:2", "gpu:2:a100", "gpu:a b:1",
                                  "gpu:-1", "g(pu):1"])
def test_malformed_gres_is_an_error(text: str) -> None:
    with pytest.raises(GresError):
        parse_gres(text)


@pytest.mark.parametrize(("text", "count"), [("0", 0), ("7", 7), ("2k", 2048), ("1T", 1024 ** 4),
                                             ("1p", 1024 ** 5)])
def test_counts_take_power_of_1024_suffixes(text: str, count: int) -> None:
    assert parse_count(text) == count


@pytest.mark.parametrize("text", ["", "x", "2X", "1.5", "-1"])
def test_bad_counts(text: str) -> None:
    with pytest.raises(GresError):
        parse_count(text)


def test_formatting_round_trips_what_slurm_conf_says() -> None:
    for text in ("gpu:4", "gpu:a100:2,gpu:v100:1", "gpu:no_consume:2", "nic:1"):
        assert format_gres(parse_gres(text)) == text
    assert format_gres(parse_gres("gpu")) == "gpu:1"
    assert str(GresSpec("gpu", "a100", 2)) == "gpu:a100:2"


# ---- job requests ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "specs"), [
    ("gpu:2", (GresSpec("gpu", "", 2),)),
    ("gpu:a100:1", (GresSpec("gpu", "a100", 1),)),
    ("gpu", (GresSpec("gpu", "", 1),)),
    ("gpu:a100", (GresSpec("gpu", "a100", 1),)),
    ("gres:gpu:2", (GresSpec("gpu", "", 2),)),
    ("gpu:1,nic:1", (GresSpec("gpu", "", 1), GresSpec("nic", "", 1))),
    ("gpu:0", ()), ("none", ()), ("", ()),
])
def test_job_gres_requests(text: str, specs: tuple[GresSpec, ...]) -> None:
    assert parse_gres_request(text) == specs


def test_a_request_cannot_be_no_consume() -> None:
    with pytest.raises(GresError):
        parse_gres_request("gpu:no_consume:1")


@pytest.mark.parametrize(("text", "spec"), [("2", GresSpec("gpu", "", 2)), ("a100:1", GresSpec("gpu", "a100", 1)),
                                            ("v100:1k", GresSpec("gpu", "v100", 1024))])
def test_gpu_options(text: str, spec: GresSpec) -> None:
    assert parse_gpu_option(text) == spec


@pytest.mark.parametrize("text", ["", "0", "a100", "a100:", "a:b:1", "x y:1"])
def test_bad_gpu_options(text: str) -> None:
    with pytest.raises(GresError):
        parse_gpu_option(text)


def test_tres_per_node_and_tres_strings() -> None:
    specs = parse_gres("gpu:a100:2,gpu:v100:1,nic:1")
    assert tres_per_node(parse_gres("gpu:2")) == "gres:gpu:2"                  # squeue %b, 22.05
    assert tres_per_node(specs) == "gres:gpu:a100:2,gres:gpu:v100:1,gres:nic:1"
    assert format_tres(parse_gres("gpu:2")) == "gres/gpu=2"
    assert format_tres(specs) == "gres/gpu=3,gres/nic=1"                        # summed per name
    assert tres_per_node(()) == format_tres(()) == ""


@pytest.mark.parametrize(("ids", "text"), [((), ""), ((0,), "0"), ((0, 1), "0-1"), ((1, 3), "1,3"),
                                           ((3, 0, 1, 2, 7), "0-3,7"), ((5, 5, 6), "5-6")])
def test_index_ranges(ids: tuple[int, ...], text: str) -> None:
    assert format_indices(ids) == text


def test_gpu_slots_number_gpus_in_the_order_gres_lists_them() -> None:
    assert gpu_slots(parse_gres("gpu:a100:2,nic:1,gpu:v100:1")) == ("a100", "a100", "v100")
    assert gpu_slots(parse_gres("gpu:3")) == ("", "", "")
    assert gpu_slots(()) == ()


def test_gres_used() -> None:
    assert format_gres_used(parse_gres("gpu:4"), ()) == "gpu:0"                  # scontrol, when idle
    assert format_gres_used(parse_gres("gpu:4"), (0, 1)) == "gpu:2(IDX:0-1)"
    assert format_gres_used(parse_gres("gpu:a100:4"), (1, 3)) == "gpu:a100:2(IDX:1,3)"   # spec §6 example
    mixed = parse_gres("gpu:a100:2,gpu:v100:2,nic:1")
    assert format_gres_used(mixed, (1, 2)) == "gpu:a100:1(IDX:1),gpu:v100:1(IDX:2),nic:0"
    assert format_gres_used((), ()) == ""


# ---- gres.conf ------------------------------------------------------------------------------------


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gres.conf"
    path.write_text(text)
    return path


def test_missing_gres_conf_means_autodetect(tmp_path: Path) -> None:
    assert load_gres_conf(tmp_path / "gres.conf", "n1") == NodeGres(node="n1", autodetect=True)


def test_the_spec_example(tmp_path: Path) -> None:
    path = write(tmp_path, "AutoDetect=off\nNodeName=gpu[01-04] Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-15\n")
    node = load_gres_conf(path, "gpu02")
    assert not node.autodetect
    assert node.gpus == tuple(GpuDevice(i, Path(f"/dev/nvidia{i}"), "a100") for i in range(4))
    assert load_gres_conf(path, "cpu01") == NodeGres(node="cpu01", autodetect=False)


def test_global_index_is_the_position_among_the_sorted_device_files(tmp_path: Path) -> None:
    # Listed out of order, two types, and /dev/nvidia10 after /dev/nvidia2 (numeric order).
    path = write(tmp_path, "NodeName=n1 Name=gpu Type=v100 File=/dev/nvidia10,/dev/nvidia2\n"
                           "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n")
    node = load_gres_conf(path, "n1")
    assert [(g.index, str(g.path), g.type) for g in node.gpus] == [
        (0, "/dev/nvidia0", "a100"), (1, "/dev/nvidia1", "a100"), (2, "/dev/nvidia2", "v100"),
        (3, "/dev/nvidia10", "v100")]


def test_lines_without_nodename_apply_to_every_node(tmp_path: Path) -> None:
    path = write(tmp_path, "Name=gpu File=/dev/nvidia0\nNodeName=n2 Name=gpu File=/dev/nvidia1\n")
    assert [str(g.path) for g in load_gres_conf(path, "n1").gpus] == ["/dev/nvidia0"]
    assert [str(g.path) for g in load_gres_conf(path, "n2").gpus] == ["/dev/nvidia0", "/dev/nvidia1"]


def test_count_only_gres(tmp_path: Path) -> None:
    path = write(tmp_path, "NodeName=n1 Name=gpu Type=a100 Count=2\nNodeName=n1 Name=nic Count=1K\n"
                           "NodeName=n1 Name=mps Count=200 File=/dev/nvidia0\n")
    node = load_gres_conf(path, "n1")
    assert node.gpus == ()
    assert node.counts == (GresSpec("gpu", "a100", 2), GresSpec("nic", "", 1024), GresSpec("mps", "", 200))


def test_count_must_match_the_files(tmp_path: Path) -> None:
    path = write(tmp_path, "# gpus\nNodeName=n1 Name=gpu File=/dev/nvidia[0-1] Count=4\n")
    assert load_gres_conf(path, "n2").gpus == ()       # not this node's line
    with pytest.raises(ConfigError, match=r"gres.conf:2: Count=4 does not match the 2 File= devices"):
        load_gres_conf(path, "n1")
    assert len(load_gres_conf(write(tmp_path, "Name=gpu File=/dev/nvidia[0-1] Count=2\n"), "n1").gpus) == 2


def test_a_device_listed_twice_for_a_node_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "Name=gpu File=/dev/nvidia0\nNodeName=n1 Name=gpu File=/dev/nvidia[0-1]\n")
    with pytest.raises(ConfigError, match=r"gres.conf:2: File=/dev/nvidia0 is already configured for node n1"):
        load_gres_conf(path, "n1")


@pytest.mark.parametrize(("text", "message"), [
    ("NodeName=n1 Type=a100 File=/dev/nvidia0\n", r":1: Name= is required with File, Type"),
    ("NodeName=n1 Cores=0-3\n", r":1: a gres.conf line needs Name="),
    ("Name=gpu Count=lots\n", r":1: invalid Count value 'lots'"),
    ("Name=gpu File=nvidia0\n", r":1: invalid File value 'nvidia0': expected absolute paths"),
    ("Name=gpu File=/dev/nvidia[0-\n", r":1: invalid File value"),
    ("AutoDetect=rsmi\n", r":1: invalid AutoDetect value 'rsmi'"),
    ("NodeName=n[1-\n", r":1: invalid NodeName value"),
    ("Name=gpu MultipleFiles=/dev/nvidia[0-1]\n", r":1: MultipleFiles \(MIG\) is not supported"),
    ("\n\nName=g/pu\n", r":3: invalid Name value 'g/pu'"),
])
def test_invalid_lines_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_gres_conf(write(tmp_path, text), "n1")


def test_unknown_keys_are_warnings(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    node = load_gres_conf(write(tmp_path, "Name=gpu File=/dev/nvidia0 Shiny=yes Links=-1,0 Flags=nvidia_gpu_env\n"),
                          "n1")
    assert len(node.gpus) == 1
    assert "gres.conf:1: Parsing error at unrecognized key: Shiny" in caplog.text


@pytest.mark.parametrize(("text", "autodetect"), [
    ("AutoDetect=nvml\n", True),
    ("AutoDetect=NVML\nName=gpu Type=h200 Count=1\n", True),       # count-only lines do not stop detection
    ("AutoDetect=nvml\nNodeName=n1 AutoDetect=off\n", False),      # a later per-node line overrides
    ("AutoDetect=nvml\nNodeName=n1 Name=gpu File=/dev/nvidia0\n", False),   # listed files win
    ("AutoDetect=off\n", False),
    ("NodeName=n2 AutoDetect=nvml\n", False),
    ("Name=nic Count=1\n", False),
])
def test_autodetect(tmp_path: Path, text: str, autodetect: bool) -> None:
    assert load_gres_conf(write(tmp_path, text), "n1").autodetect is autodetect


def test_include_and_continuation_lines(tmp_path: Path) -> None:
    (tmp_path / "gpus.conf").write_text("NodeName=n1 Name=gpu \\\n  File=/dev/nvidia[0-1]\n")
    conf = parse_gres_conf(write(tmp_path, "Include gpus.conf\n"))
    assert [(line.line, line.files) for line in conf.lines] == [(1, ("/dev/nvidia0", "/dev/nvidia1"))]
    assert conf.lines[0].path == tmp_path / "gpus.conf"


def test_autodetected_devices_are_indexed_in_device_order() -> None:
    node = node_gres_from_devices("n1", [(Path("/dev/nvidia10"), "nvidia_h200"), (Path("/dev/nvidia2"), "")])
    assert node == NodeGres("n1", True, (GpuDevice(0, Path("/dev/nvidia2"), ""),
                                         GpuDevice(1, Path("/dev/nvidia10"), "nvidia_h200")))
