"""shared_defaults.py: a slurm.conf other than the host's must name the host-wide settings."""
from __future__ import annotations

from pathlib import Path

from pyslurm_common.config import load_config
from pyslurm_common.shared_defaults import missing_host_settings, refusal

BASE = "ClusterName=c\nSlurmctldHost=localhost\nNodeName=n1 CPUs=1\n"


def test_a_config_elsewhere_must_name_the_host_wide_settings(tmp_path: Path) -> None:
    path = tmp_path / "slurm.conf"
    path.write_text(BASE)
    cfg = load_config(path)
    assert missing_host_settings(cfg) == ["AuthInfo=socket=<path>", "StateSaveLocation", "SlurmdSpoolDir"]
    assert refusal(cfg) == (f"{path}: AuthInfo=socket=<path>, StateSaveLocation, SlurmdSpoolDir must be set: "
                            "the defaults belong to the cluster configured in /etc/pyslurm/slurm.conf")
    path.write_text(BASE + "AuthInfo=key=/k\nStateSaveLocation=/s\n")
    assert missing_host_settings(load_config(path)) == ["AuthInfo=socket=<path>", "SlurmdSpoolDir"]
    path.write_text(BASE + "AuthInfo=Socket=/a.sock,key=/k\nStateSaveLocation=/s\nSlurmdSpoolDir=/d\n")
    assert refusal(load_config(path)) is None
