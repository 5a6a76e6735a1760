"""The thin client every CLI uses: find the auth agent, make one call.

No grpc here (CLI start-up time): requests go as protobuf bytes over the
local agent's unix socket (pyslurm_common.agent.client).
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from google.protobuf.message import Message

from pyslurm_common import config as config_mod
from pyslurm_common.agent import client as agent_client

Reply = TypeVar("Reply", bound=Message)
CONTROLLER = "/pyslurm.Controller/"
ACCOUNTING = "/pyslurm.Accounting/"
ConnectError = agent_client.ConnectError


@lru_cache(maxsize=1)
def cluster_config() -> config_mod.SlurmConfig:
    return config_mod.load_config()


def _socket() -> Path:
    override = os.environ.get("PYSLURM_AUTH_SOCKET")
    return Path(override) if override else cluster_config().auth_socket


def controller(method: str, request: Message, reply_type: type[Reply], timeout: float = 30.0) -> Reply:
    return agent_client.call(_socket(), CONTROLLER + method, request, reply_type, timeout)


def accounting(method: str, request: Message, reply_type: type[Reply], timeout: float = 60.0) -> Reply:
    return agent_client.call(_socket(), ACCOUNTING + method, request, reply_type, timeout)
