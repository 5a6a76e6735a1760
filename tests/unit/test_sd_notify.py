"""sd_notify: what systemd receives on $NOTIFY_SOCKET."""
from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from pyslurm_common import sd_notify


def _listener(tmp_path: Path) -> tuple[socket.socket, str]:
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(2)
    return sock, path


def test_ready_reaches_the_notify_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sock, path = _listener(tmp_path)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    assert sd_notify.ready("listening")
    assert sock.recv(4096).decode().split("\n") == ["READY=1", f"MAINPID={os.getpid()}", "STATUS=listening"]
    assert sd_notify.stopping()
    assert sock.recv(4096) == b"STOPPING=1"


def test_without_systemd_nothing_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert sd_notify.ready() is False


def test_watchdog_interval_is_half_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert sd_notify.watchdog_interval() == 5.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert sd_notify.watchdog_interval() is None
