"""The shipped unit files, and the daemons speaking sd_notify the way Type=notify expects."""
from __future__ import annotations

import shutil
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from pyslurm_common.cluster_files import ClusterSpec, NodeSpec, write_cluster

from .conftest import BIN, free_port

UNITS = sorted((Path(__file__).resolve().parents[2] / "systemd").glob("*.service"))


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_unit_files_pass_systemd_analyze_verify(unit: Path, tmp_path: Path) -> None:
    # The units name the install location (/opt/pyslurm); verify checks that the commands
    # exist, so point them at the daemons of the installation under test.
    copy = tmp_path / unit.name
    copy.write_text(unit.read_text().replace("/opt/pyslurm/bin/", f"{BIN}/"))
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(copy)], capture_output=True, text=True)
    problems = [line for line in result.stderr.splitlines() if unit.name in line or "Failed" in line]
    assert result.returncode == 0 and not problems, result.stderr


def test_the_node_agent_unit_keeps_jobs_across_restarts() -> None:
    text = (Path(__file__).resolve().parents[2] / "systemd" / "pyslurmd.service").read_text()
    for line in ("Type=notify", "KillMode=process", "Delegate=yes", "LimitMEMLOCK=infinity",
                 "ExecReload=/bin/kill -HUP $MAINPID"):
        assert line in text.splitlines()


def _notify_cluster(tmp_path: Path, name: str) -> tuple[socket.socket, dict[str, str]]:
    """A written cluster configuration and the socket systemd would listen on (NOTIFY_SOCKET):
    the listener, and the environment a unit would give the daemons."""
    spec = ClusterSpec(cluster_name=name, conf_dir=tmp_path / "etc", state_dir=tmp_path / "state",
                       run_dir=tmp_path / "run", nodes=(NodeSpec("n1", 1, 100, port=free_port()),),
                       ctld_port=free_port(), dbd_port=free_port())
    write_cluster(spec)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify.sock"))
    listener.settimeout(20)
    return listener, {"PATH": "/usr/bin:/bin", "PYSLURM_CONF": str(spec.slurm_conf),
                      "NOTIFY_SOCKET": str(tmp_path / "notify.sock")}


def test_daemons_tell_systemd_when_ready_and_when_stopping(tmp_path: Path) -> None:
    listener, env = _notify_cluster(tmp_path, "notify")
    for daemon in ("pyslurmctld", "pyslurmsackd"):
        proc = subprocess.Popen([str(BIN / daemon)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            ready = listener.recv(4096).decode().split("\n")
            assert ready[0] == "READY=1" and f"MAINPID={proc.pid}" in ready
            proc.send_signal(signal.SIGHUP)       # ExecReload: systemd hears the reload begin and end
            reloading = listener.recv(4096).decode().split("\n")
            assert reloading[0] == "RELOADING=1" and reloading[1].startswith("MONOTONIC_USEC=")
            assert listener.recv(4096) == b"READY=1"
            proc.send_signal(signal.SIGTERM)
            assert listener.recv(4096) == b"STOPPING=1"
            assert proc.wait(timeout=15) == 0
        finally:
            if proc.poll() is None:
                proc.kill()


def test_a_daemon_feeds_the_systemd_watchdog(tmp_path: Path) -> None:
    """With WatchdogSec= in a unit, systemd sets WATCHDOG_USEC; the daemon pings at half of it."""
    listener, env = _notify_cluster(tmp_path, "watchdog")
    env["WATCHDOG_USEC"] = "400000"
    proc = subprocess.Popen([str(BIN / "pyslurmsackd")], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        messages = [listener.recv(4096) for _ in range(4)]
        assert messages.count(b"WATCHDOG=1") >= 2
        assert any(m.startswith(b"READY=1") for m in messages)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
