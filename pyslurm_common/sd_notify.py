"""systemd's notification protocol (sd_notify(3)), for units with Type=notify.

A datagram of `KEY=value` lines to the unix socket named by $NOTIFY_SOCKET (an `@` prefix
means the abstract namespace). Without the variable (not started by systemd) it does nothing.
"""
from __future__ import annotations

import os
import socket


def notify(*lines: str) -> bool:
    """Send e.g. notify("READY=1", "STATUS=listening"); True if a manager was told."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
        try:
            sock.sendto("\n".join(lines).encode(), address)
        except OSError:
            return False
    return True


def ready(status: str = "") -> bool:
    return notify("READY=1", f"MAINPID={os.getpid()}", *([f"STATUS={status}"] if status else []))


def stopping() -> bool:
    return notify("STOPPING=1")


def watchdog_interval() -> float | None:
    """Seconds between WATCHDOG=1 pings systemd expects (half of WatchdogSec), or None."""
    usec = os.environ.get("WATCHDOG_USEC", "")
    pid = os.environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2_000_000
