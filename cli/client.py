"""The thin client every CLI uses: find the auth agent, make one call.

No grpc here (CLI start-up time): requests go as protobuf bytes over the
local agent's unix socket (pyslurm_common.agent.client).
"""
from __future__ import annotations

import os
from functools import lru_cache

from google.protobuf.message import Message

from pyslurm_common.agent import client as agent_client
from pyslurm_common.agent import protocol as agent_protocol
from pyslurm_common.client_settings import auth_socket, failover_wait

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import TypeVar

    from pyslurm_common.config import SlurmConfig

    Reply = TypeVar("Reply", bound=Message)
CONTROLLER = "/pyslurm.Controller/"
ACCOUNTING = "/pyslurm.Accounting/"
ConnectError = agent_client.ConnectError


def cluster_config() -> "SlurmConfig":
    """The whole configuration, for the rare command that needs more than the socket."""
    from pyslurm_common.config import load_config

    return load_config()


@lru_cache(maxsize=1)
def _socket() -> str:
    return os.environ.get("PYSLURM_AUTH_SOCKET") or auth_socket()


@lru_cache(maxsize=1)
def _failover_wait() -> float:
    return failover_wait()


def controller(method: str, request: Message, reply_type: type[Reply], timeout: float = 30.0) -> Reply:
    """One call to the controller in charge; through a failover the agent waits for one, as
    Slurm's commands do (pyslurm_common.controller_channel.Patience)."""
    return agent_client.call(_socket(), CONTROLLER + method, request, reply_type, timeout, _failover_wait())


def controller_started(method: str, request: Message, timeout: float = 30.0) -> agent_client.Call:
    """`controller` in two halves: the request goes now, its `reply(type)` is read later."""
    return agent_client.start(_socket(), CONTROLLER + method, request, timeout, _failover_wait())


def controller_at(index: int, method: str, request: Message, reply_type: type[Reply],
                  timeout: float = 30.0) -> Reply:
    """A call to the `index`-th SlurmctldHost only (0 = primary), in charge or standing by."""
    return agent_client.call(_socket(), agent_protocol.to_controller(index, method), request, reply_type, timeout)


def accounting(method: str, request: Message, reply_type: type[Reply], timeout: float = 60.0) -> Reply:
    return agent_client.call(_socket(), ACCOUNTING + method, request, reply_type, timeout)
