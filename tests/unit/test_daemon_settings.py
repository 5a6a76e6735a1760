"""The controller's and node agent's single-valued settings, typed once when slurm.conf is read
(pyslurm_common/daemon_settings.py), and the settings only the controller parses (priority,
scheduling, GpuIdleParameters): a bad value is an error at its file:line, never a default."""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_common.config import ConfigError, SlurmConfig, load_config
from pyslurm_common.daemon_settings import ControllerSettings, NodeAgentSettings
from pyslurm_common.units import UNLIMITED
from pyslurm_ctld.core import reconfigure

BASE = "ClusterName=lab\nSlurmctldHost=head\n"   # the key under test is on line 3


def load(tmp_path: Path, line: str) -> SlurmConfig:
    path = tmp_path / "slurm.conf"
    path.write_text(f"{BASE}{line}\nNodeName=n1 CPUs=1\n")
    return load_config(path)


def test_absent_keys_take_slurms_defaults(tmp_path: Path) -> None:
    cfg = load(tmp_path, "")
    assert cfg.ctld_settings == ControllerSettings(over_time_limit_min=0, return_to_service=0, job_requeue=True,
                                                   cred_expire_s=120)
    assert cfg.ctld_settings.requeue_delay_s == 121
    assert cfg.slurmd_settings == NodeAgentSettings(unkillable_step_timeout_s=60, prolog=None, epilog=None, task_prolog="",
                                                    prolog_epilog_timeout_s=None, gather_frequency_s=30)


@pytest.mark.parametrize(("line", "attribute", "value"), [
    ("OverTimeLimit=5", "over_time_limit_min", 5),
    ("OverTimeLimit=UNLIMITED", "over_time_limit_min", UNLIMITED),
    ("overtimelimit=infinite", "over_time_limit_min", UNLIMITED),
    ("ResvOverRun=10", "resv_over_run_min", 10),
    ("ResvOverRun=UNLIMITED", "resv_over_run_min", UNLIMITED),
    ("ReturnToService=2", "return_to_service", 2),
    ("JobRequeue=0", "job_requeue", False),
    ("AuthInfo=socket=/run/a.sock,cred_expire=30", "cred_expire_s", 30),
])
def test_controller_settings_are_typed(tmp_path: Path, line: str, attribute: str, value: object) -> None:
    assert getattr(load(tmp_path, line).ctld_settings, attribute) == value


@pytest.mark.parametrize(("line", "attribute", "value"), [
    ("UnkillableStepTimeout=120", "unkillable_step_timeout_s", 120),
    ("PrologEpilogTimeout=30", "prolog_epilog_timeout_s", 30),
    ("PrologEpilogTimeout=0", "prolog_epilog_timeout_s", None),
    ("JobAcctGatherFrequency=10", "gather_frequency_s", 10),
    ("JobAcctGatherFrequency=energy=60,task=5", "gather_frequency_s", 5),
    ("JobAcctGatherFrequency=network=60", "gather_frequency_s", 30),
    ("Prolog=/etc/pyslurm/prolog.sh", "prolog", "/etc/pyslurm/prolog.sh"),
    ("GpuJobMappingDir=/run/gpu-jobs", "gpu_job_mapping_dir", "/run/gpu-jobs"),
])
def test_node_agent_settings_are_typed(tmp_path: Path, line: str, attribute: str, value: object) -> None:
    assert getattr(load(tmp_path, line).slurmd_settings, attribute) == value


@pytest.mark.parametrize(("line", "words"), [
    ("OverTimeLimit=soon", "invalid OverTimeLimit value 'soon'"),
    ("OverTimeLimit=70000", "OverTimeLimit value (70000) is out of range"),
    ("ResvOverRun=later", "invalid ResvOverRun value 'later'"),
    ("ReturnToService=3", "ReturnToService value (3) is out of range"),
    ("ReturnToService=yes", "invalid ReturnToService value 'yes'"),
    ("JobRequeue=yes", "invalid JobRequeue value 'yes'"),
    ("AuthInfo=cred_expire=never", "invalid AuthInfo cred_expire value 'never'"),
    ("UnkillableStepTimeout=1m", "invalid UnkillableStepTimeout value '1m'"),
    ("PrologEpilogTimeout=-1", "invalid PrologEpilogTimeout value '-1'"),
    ("JobAcctGatherFrequency=often", "invalid JobAcctGatherFrequency task value 'often'"),
    ("JobAcctGatherFrequency=task=x", "invalid JobAcctGatherFrequency task value 'x'"),
    ("JobAcctGatherFrequency=disk=30", "invalid JobAcctGatherFrequency value 'disk=30'"),
])
def test_a_bad_value_is_an_error_at_its_line(tmp_path: Path, line: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, line)
    assert str(info.value).startswith(f"{tmp_path / 'slurm.conf'}:3: {words}")


@pytest.mark.parametrize(("line", "words"), [
    ("PriorityWeightAge=lots", "invalid PriorityWeightAge value 'lots'"),
    ("PriorityType=priority/fancy", "invalid PriorityType value 'priority/fancy'"),
    ("PriorityWeightTRES=CPU", "invalid PriorityWeightTRES value 'CPU'"),
    ("SchedulerParameters=bf_window=soon", "SchedulerParameters: invalid bf_window=soon"),
    ("SchedulerType=sched/fancy", "SchedulerType=sched/fancy: not one of"),
    ("GpuIdleParameters=limit=x", "GpuIdleParameters"),
])
def test_settings_only_the_controller_parses_are_checked_with_the_file_at_their_line(
        tmp_path: Path, line: str, words: str) -> None:
    load(tmp_path, line)   # the shared reader does not know them
    with pytest.raises(ConfigError) as info:
        reconfigure.load_checked(tmp_path / "slurm.conf")
    assert str(info.value).startswith(f"{tmp_path / 'slurm.conf'}:3: {words}")


def test_an_included_file_is_named_with_its_own_line(tmp_path: Path) -> None:
    (tmp_path / "timers.conf").write_text("# timers\nOverTimeLimit=later\n")
    with pytest.raises(ConfigError) as info:
        load(tmp_path, "Include timers.conf")
    assert str(info.value).startswith(f"{tmp_path / 'timers.conf'}:2: invalid OverTimeLimit value 'later'")
