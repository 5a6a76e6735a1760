"""Bad configuration: daemons and CLIs say what and where, in Slurm's style, and stop."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .conftest import BIN


def _write(tmp_path: Path, text: str) -> Path:
    conf = tmp_path / "slurm.conf"
    conf.write_text(text)
    (tmp_path / "slurm.key").write_text("k" * 64 + "\n")
    (tmp_path / "slurm.key").chmod(0o600)
    return conf


def test_daemons_refuse_a_bad_value_naming_file_and_line(tmp_path: Path) -> None:
    conf = _write(tmp_path, "ClusterName=x\nSlurmctldHost=localhost\nNodeName=n1 CPUs=lots\n"
                            "PartitionName=p Nodes=n1 Default=YES\n")
    for daemon in ("pyslurmctld", "pyslurmsackd"):
        result = subprocess.run([str(BIN / daemon), "-f", str(conf)], capture_output=True, text=True, timeout=30)
        assert result.returncode == 1
        assert result.stderr.startswith(f"{daemon}: fatal: {conf}:3: ")
        assert "CPUs" in result.stderr and "Traceback" not in result.stderr


def test_cli_reports_an_unreadable_config(tmp_path: Path) -> None:
    missing = tmp_path / "nope.conf"
    result = subprocess.run([str(BIN / "squeue")], capture_output=True, text=True, timeout=30,
                            env={"PYSLURM_CONF": str(missing), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 1
    assert result.stderr.startswith(f"squeue: error: {missing}: cannot read configuration file")


def test_missing_required_key(tmp_path: Path) -> None:
    conf = _write(tmp_path, "SlurmctldHost=localhost\nNodeName=n1 CPUs=1\n")
    result = subprocess.run([str(BIN / "pyslurmctld"), "-f", str(conf)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1 and "ClusterName" in result.stderr and "Traceback" not in result.stderr


def test_a_config_elsewhere_without_the_host_wide_settings_is_refused_and_unknown_keys_warned(tmp_path: Path) -> None:
    conf = _write(tmp_path, "ClusterName=x\nSlurmctldHost=localhost\nFooBar=1\nNodeName=n1 CPUs=1\n")
    for daemon in ("pyslurmctld", "pyslurmd"):
        result = subprocess.run([str(BIN / daemon), "-f", str(conf)], capture_output=True, text=True, timeout=30)
        assert result.returncode == 1
        assert result.stderr.splitlines() == [
            f"{conf}:3: Parsing error at unrecognized key: FooBar",
            f"{daemon}: fatal: {conf}: AuthInfo=socket=<path>, StateSaveLocation, SlurmdSpoolDir must be set: "
            "the defaults belong to the cluster configured in /etc/pyslurm/slurm.conf"]


def test_an_out_of_range_number_stops_the_daemon_naming_file_line_and_key(tmp_path: Path) -> None:
    conf = _write(tmp_path, "ClusterName=x\nSlurmctldHost=localhost\nNodeName=n1 RealMemory=99999999999999999999999\n")
    result = subprocess.run([str(BIN / "pyslurmctld"), "-f", str(conf)], capture_output=True, text=True, timeout=30)
    assert (result.returncode, result.stderr) == (
        1, f"pyslurmctld: fatal: {conf}:3: RealMemory value (99999999999999999999999) is out of range\n")


# Keys every daemon types when it reads slurm.conf (pyslurm_common/daemon_settings.py), each on line 3.
SHARED_SETTINGS = ["OverTimeLimit=soon", "ResvOverRun=later", "ReturnToService=3", "JobRequeue=yes", "AuthInfo=cred_expire=never",
                   "UnkillableStepTimeout=1m", "PrologEpilogTimeout=-1", "JobAcctGatherFrequency=task=often"]


@pytest.mark.parametrize("line", SHARED_SETTINGS)
def test_a_bad_setting_stops_the_controller_and_the_node_agent_at_its_line(tmp_path: Path, line: str) -> None:
    conf = _write(tmp_path, f"ClusterName=x\nSlurmctldHost=localhost\n{line}\nNodeName=n1 CPUs=1\n")
    key = line.split("=", 1)[0]
    for daemon in ("pyslurmctld", "pyslurmd"):
        result = subprocess.run([str(BIN / daemon), "-f", str(conf)], capture_output=True, text=True, timeout=30)
        assert result.returncode == 1, result.stderr
        assert result.stderr.startswith(f"{daemon}: fatal: {conf}:3: "), result.stderr
        assert key in result.stderr and "Traceback" not in result.stderr


# Settings only the controller parses (priority, scheduling, idle GPUs): checked before it serves.
CONTROLLER_SETTINGS = ["PriorityWeightAge=lots", "PriorityWeightTRES=CPU", "SchedulerParameters=bf_window=soon",
                       "SchedulerType=sched/fancy", "GpuIdleParameters=limit=x"]


@pytest.mark.parametrize("line", CONTROLLER_SETTINGS)
def test_a_bad_controller_setting_stops_the_controller_at_its_line(tmp_path: Path, line: str) -> None:
    state = tmp_path / "state"
    conf = _write(tmp_path, f"ClusterName=x\nSlurmctldHost=localhost\n{line}\nNodeName=n1 CPUs=1\n"
                            f"AuthInfo=socket={tmp_path / 'auth.sock'}\nStateSaveLocation={state}\n"
                            f"SlurmdSpoolDir={tmp_path / 'spool'}\nSlurmctldPort=1\n")
    result = subprocess.run([str(BIN / "pyslurmctld"), "-f", str(conf)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"pyslurmctld: fatal: {conf}:3: "), result.stderr
    assert line.split("=", 1)[0] in result.stderr and "Traceback" not in result.stderr
    assert not (state / "journal").exists()   # refused before it recovered or wrote any state


EMPTY_CONF_REPORT = ('{prog}: s_p_parse_file: file "{conf}" is empty\n'
                     "{prog}: error: ClusterName needs to be specified\n"
                     "{prog}: fatal: Unable to process configuration file\n")


@pytest.mark.parametrize("argv", [("sinfo",), ("squeue",), ("sbatch", "--wrap", "true"), ("scontrol", "ping"),
                                  ("sacct",), ("sbatch", "--help"), ("sinfo", "--version"), ("strigger", "--get"),
                                  ("pyslurmctld",), ("pyslurmd",), ("pyslurmsackd",), ("pyslurmdbd",)])
def test_an_empty_slurm_conf_is_fatal_for_every_command_and_daemon(tmp_path: Path, argv: tuple[str, ...]) -> None:
    """Slurm 22.05 (SLURM_CONF=<empty file> sinfo, slurmctld -D -f <empty file>, ...) prints these three
    lines and exits 1; before, ours used the installed cluster's auth agent."""
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    daemon = argv[0].startswith("pyslurm")
    command = [str(BIN / argv[0]), *(["-f", str(conf)] if daemon else argv[1:])]
    result = subprocess.run(command, capture_output=True, text=True, timeout=30,
                            env={"PYSLURM_CONF": str(conf), "PATH": "/usr/bin:/bin"})
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "", EMPTY_CONF_REPORT.format(prog=argv[0], conf=conf))
