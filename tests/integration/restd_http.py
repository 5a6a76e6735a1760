"""A small HTTP client for the pyslurmrestd tests: TCP or unix socket, JSON or text answers."""
from __future__ import annotations

import http.client
import json
import socket
from dataclasses import dataclass
from typing import Any


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float = 30.0) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


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

    def request(self, method: str, path: str, body: Any = None) -> Answer:
        conn = (_UnixConnection(self.unix_path) if self.unix_path
                else http.client.HTTPConnection("127.0.0.1", self.port, timeout=30))
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
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
