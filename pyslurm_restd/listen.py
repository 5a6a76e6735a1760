"""slurmrestd's listen arguments: ``[host]:port`` and ``unix:/path`` (``unix:///path`` too)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ListenAddress:
    host: str = ""
    port: int = 0
    unix_path: str | None = None


def parse_listen(text: str) -> ListenAddress:
    if text.startswith("unix:"):
        path = text[len("unix:"):]
        path = path[2:] if path.startswith("///") else path
        if not path.startswith("/"):
            raise ValueError(f"Invalid listen address {text}: a unix socket needs an absolute path")
        return ListenAddress(unix_path=path)
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"Invalid listen address {text}: expected [host]:port or unix:/path")
    return ListenAddress(host=host.strip("[]"), port=int(port))
