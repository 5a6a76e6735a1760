"""What the pyslurmrestd tests share: starting the daemon, and a small HTTP client (TCP or unix
socket, JSON or text answers)."""
from __future__ import annotations

import contextlib
import http.client
import json
import os
import pwd
import shutil
import socket
import subprocess
from dataclasses import dataclass
from typing import Any, Iterator

import pytest

from pyslurm_common.slurm_user import ensure_system_user

from .conftest import BIN, Cluster, free_port, wait_for

REST_USER = "slurmrestd"


@contextlib.contextmanager
def restd(cluster: Cluster, user: str | None, *listen: str, auth: str | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """pyslurmrestd as `user`; None: started as root, it becomes the system user slurmrestd."""
    args = [str(BIN / "pyslurmrestd"), *(["-a", auth] if auth else []), *listen]
    kw: dict[str, object] = {}
    if user is not None:
        pw = pwd.getpwnam(user)
        kw = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
    else:
        ensure_system_user(REST_USER)
    log = (cluster.spec.log_dir / "restd.stderr").open("ab")
    proc = subprocess.Popen(args, env=cluster.env, stdout=log, stderr=log, stdin=subprocess.DEVNULL, **kw)  # type: ignore[call-overload]
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float = 30.0) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


def debian_tool(command: str, package: str) -> str:
    """The path of a Debian package's command the tests drive; skipped without it, except in CI."""
    path = shutil.which(command)
    if path is None:
        if os.environ.get("CI"):
            raise RuntimeError(f"CI must have Debian's {package} package (.ci/run installs it)")
        pytest.skip(f"Debian's {package} package is not installed", allow_module_level=True)
    return path


@contextlib.contextmanager
def serving(cluster: Cluster) -> Iterator[int]:
    """pyslurmrestd as systemd runs it (root, then the system user slurmrestd) on a free TCP port."""
    port = free_port()
    with restd(cluster, None, f"127.0.0.1:{port}"):
        wait_for(RestClient(port=port).up, 20)
        yield port


@dataclass(frozen=True)
class Answer:
    method: str
    path: str
    status: int
    content_type: str
    text: str

    @property
    def json(self) -> Any:
        return json.loads(self.text)


@dataclass(frozen=True)
class RestClient:
    port: int | None = None
    unix_path: str | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def with_headers(self, **headers: str) -> "RestClient":
        names = {"token": "X-SLURM-USER-TOKEN", "user": "X-SLURM-USER-NAME"}
        return RestClient(self.port, self.unix_path, tuple((names.get(k, k), v) for k, v in headers.items()))

    def request(self, method: str, path: str, body: Any = None, raw: bytes | None = None) -> Answer:
        """`body` sent as JSON, or `raw` bytes as they are (labelled JSON all the same)."""
        conn = (_UnixConnection(self.unix_path) if self.unix_path
                else http.client.HTTPConnection("127.0.0.1", self.port, timeout=30))
        headers = dict(self.headers)
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
        if data is not None:
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            text = response.read().decode()
            kind = (response.getheader("Content-Type") or "").split(";")[0]
            return Answer(method, path, response.status, kind, text)
        finally:
            conn.close()

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def up(self) -> bool:
        try:
            return self.get("/slurm/v0.0.44/ping/").status in (200, 500)
        except OSError:
            return False
