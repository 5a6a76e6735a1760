"""The accounting CLIs' (sacct, sacctmgr) one call to the accounting daemon.

Same thin client as every CLI (``cli.client``), but an unreachable daemon is reported as Slurm's
accounting tools report it: ``Problem talking to the database: Connection refused``, not as a
controller problem. ``PYSLURM_DEBUG`` adds the underlying reason.
"""
from __future__ import annotations

import os

from google.protobuf.message import Message

from . import client
from .app import die

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import TypeVar

    Reply = TypeVar("Reply", bound=Message)


def call(method: str, request: Message, reply_type: type[Reply]) -> Reply:
    try:
        return client.accounting(method, request, reply_type)
    except client.ConnectError as exc:
        detail = (str(exc),) if os.environ.get("PYSLURM_DEBUG") else ()
        die(*detail, "Problem talking to the database: Connection refused")
