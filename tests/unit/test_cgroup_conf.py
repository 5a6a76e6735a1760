"""cgroup.conf parsing and the memory-limit math (pyslurm_common/cgroup_conf.py)."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pyslurm_common.cgroup_conf import (
    CgroupConfig,
    ConfigError,
    cgroup_conf_path,
    load_cgroup_config,
    memory_limits,
)

MB = 1 << 20


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cgroup.conf"
    path.write_text(text)
    return path


# ---- parsing ------------------------------------------------------------------------------


def test_missing_file_is_all_defaults(tmp_path: Path) -> None:
    assert load_cgroup_config(tmp_path / "cgroup.conf") == CgroupConfig()


def test_defaults_are_slurms() -> None:
    cfg = CgroupConfig()
    assert (cfg.cgroup_plugin, cfg.allowed_ram_space, cfg.allowed_swap_space) == ("autodetect", 100.0, 0.0)
    assert (cfg.max_ram_percent, cfg.max_swap_percent, cfg.min_ram_space_mb) == (100.0, 100.0, 30)
    assert not (cfg.constrain_cores or cfg.constrain_ram_space or cfg.constrain_swap_space or cfg.constrain_devices)


def test_path_is_beside_slurm_conf() -> None:
    assert cgroup_conf_path(Path("/etc/pyslurm/slurm.conf")) == Path("/etc/pyslurm/cgroup.conf")


def test_typical_file(tmp_path: Path) -> None:
    path = write(tmp_path, """\
# anchor cluster
CgroupPlugin=cgroup/v1
ConstrainCores=yes ConstrainRAMSpace=YES
constrainswapspace=Yes ConstrainDevices=no
AllowedRAMSpace=95.5 AllowedSwapSpace=10%
MaxRAMPercent=90 MaxSwapPercent = 50
MinRAMSpace=64
""")
    assert load_cgroup_config(path) == CgroupConfig(
        cgroup_plugin="cgroup/v1", constrain_cores=True, constrain_ram_space=True, allowed_ram_space=95.5,
        constrain_swap_space=True, allowed_swap_space=10.0, max_ram_percent=90.0, max_swap_percent=50.0,
        min_ram_space_mb=64, constrain_devices=False)


def test_plugin_names_ignore_case(tmp_path: Path) -> None:
    assert load_cgroup_config(write(tmp_path, "CgroupPlugin=Cgroup/V2\n")).cgroup_plugin == "cgroup/v2"
    assert load_cgroup_config(write(tmp_path, "CgroupPlugin=disabled\n")).cgroup_plugin == "disabled"


def test_last_duplicate_wins(tmp_path: Path) -> None:
    assert load_cgroup_config(write(tmp_path, "ConstrainCores=yes\nConstrainCores=no\n")).constrain_cores is False


def test_min_ram_space_takes_units(tmp_path: Path) -> None:
    assert load_cgroup_config(write(tmp_path, "MinRAMSpace=1G\n")).min_ram_space_mb == 1024


def test_include(tmp_path: Path) -> None:
    (tmp_path / "extra.conf").write_text("ConstrainDevices=yes\n")
    assert load_cgroup_config(write(tmp_path, "Include extra.conf\n")).constrain_devices is True


def test_unknown_key_warns_with_file_and_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write(tmp_path, "ConstrainCores=yes\nNoSuchKey=1\n")
    with caplog.at_level(logging.WARNING):
        cfg = load_cgroup_config(path)
    assert cfg.constrain_cores is True
    assert f"{path}:2: Parsing error at unrecognized key: NoSuchKey" in caplog.text


def test_known_but_unsupported_key_warns(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write(tmp_path, "CgroupAutomount=yes\n")
    with caplog.at_level(logging.WARNING):
        assert load_cgroup_config(path) == CgroupConfig()
    assert f"{path}:1: CgroupAutomount is not supported by pyslurm" in caplog.text


@pytest.mark.parametrize(("line", "message"), [
    ("ConstrainCores=maybe", "invalid ConstrainCores value 'maybe': expected YES or NO"),
    ("CgroupPlugin=cgroup/v3", "invalid CgroupPlugin value 'cgroup/v3': expected one of"),
    ("AllowedRAMSpace=lots", "invalid AllowedRAMSpace value 'lots': expected a percentage"),
    ("AllowedSwapSpace=-1", "invalid AllowedSwapSpace value '-1': must be >= 0"),
    ("MaxRAMPercent=101", "invalid MaxRAMPercent value '101': must be between 0 and 100"),
    ("MaxSwapPercent=nan", "invalid MaxSwapPercent value 'nan'"),
    ("MinRAMSpace=many", "invalid MinRAMSpace value 'many'"),
])
def test_bad_values_name_file_line_and_key(tmp_path: Path, line: str, message: str) -> None:
    path = write(tmp_path, f"# header\n{line}\n")
    with pytest.raises(ConfigError) as info:
        load_cgroup_config(path)
    assert str(info.value).startswith(f"{path}:2: {message}")


def test_syntax_error_has_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "ConstrainCores=yes\n  = oops\n")
    with pytest.raises(ConfigError, match=r"cgroup.conf:2: parsing error"):
        load_cgroup_config(path)


# ---- memory_limits --------------------------------------------------------------------------

RAM = CgroupConfig(constrain_ram_space=True)
RAM_SWAP = CgroupConfig(constrain_ram_space=True, constrain_swap_space=True, allowed_swap_space=50.0)


def test_unconstrained_is_none() -> None:
    assert memory_limits(CgroupConfig(), 1000, 64000) == (None, None)


def test_zero_allocation_is_none() -> None:
    assert memory_limits(RAM_SWAP, 0, 64000) == (None, None)


def test_ram_is_the_allocation_by_default() -> None:
    assert memory_limits(RAM, 1000, 64000) == (1000 * MB, None)


def test_allowed_ram_space_percentage() -> None:
    cfg = CgroupConfig(constrain_ram_space=True, allowed_ram_space=150.0)
    assert memory_limits(cfg, 1000, 64000) == (1500 * MB, None)


def test_min_ram_space_is_a_floor() -> None:
    assert memory_limits(RAM, 10, 64000) == (30 * MB, None)


def test_max_ram_percent_caps() -> None:
    cfg = CgroupConfig(constrain_ram_space=True, allowed_ram_space=200.0, max_ram_percent=50.0)
    assert memory_limits(cfg, 40000, 64000) == (32000 * MB, None)


def test_floor_wins_over_cap() -> None:
    cfg = CgroupConfig(constrain_ram_space=True, max_ram_percent=1.0, min_ram_space_mb=100)
    assert memory_limits(cfg, 500, 1000) == (100 * MB, None)


def test_unknown_node_memory_means_no_cap() -> None:
    cfg = CgroupConfig(constrain_ram_space=True, allowed_ram_space=200.0, max_ram_percent=10.0)
    assert memory_limits(cfg, 1000, 0) == (2000 * MB, None)


def test_swap_is_ram_plus_allowed_swap() -> None:
    assert memory_limits(RAM_SWAP, 1000, 64000) == (1000 * MB, 1500 * MB)


def test_swap_without_allowance_is_ram() -> None:
    cfg = CgroupConfig(constrain_ram_space=True, constrain_swap_space=True)
    assert memory_limits(cfg, 1000, 64000) == (1000 * MB, 1000 * MB)


def test_swap_capped_by_max_ram_plus_max_swap() -> None:
    cfg = CgroupConfig(constrain_ram_space=True, constrain_swap_space=True, allowed_swap_space=300.0,
                       max_ram_percent=50.0, max_swap_percent=10.0)
    # RAM 1000 MB (under the 5000 MB cap); RAM+swap 4000 MB capped at 5000 + 1000 = 6000: not hit.
    assert memory_limits(cfg, 1000, 10000) == (1000 * MB, 4000 * MB)
    # RAM capped at 5000; RAM+swap = 5000 + 24000 capped at 6000.
    assert memory_limits(cfg, 8000, 10000) == (5000 * MB, 6000 * MB)


def test_swap_only() -> None:
    cfg = CgroupConfig(constrain_swap_space=True, allowed_swap_space=25.0)
    assert memory_limits(cfg, 1000, 64000) == (None, 1250 * MB)


def test_swap_never_below_ram() -> None:
    cfg = CgroupConfig(constrain_ram_space=True, constrain_swap_space=True, max_ram_percent=1.0,
                       max_swap_percent=0.0, min_ram_space_mb=100)
    ram, total = memory_limits(cfg, 500, 1000)
    assert ram == 100 * MB and total is not None and total >= ram


def test_fractional_percentages_round_down_to_bytes() -> None:
    cfg = CgroupConfig(constrain_ram_space=True, allowed_ram_space=33.3)
    ram, _ = memory_limits(cfg, 1000, 64000)
    assert ram == int(1000 * MB * 33.3 / 100)
