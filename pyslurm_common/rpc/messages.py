"""Protobuf message classes for the CLIs, without protobuf's ~20 ms import.

The generated `*_pb2` modules go through protobuf's descriptor pool and
builder, which import most of the pure-Python runtime even when the C (upb)
backend does the work. CLI start-up is a hot path, so when the upb backend is
present the classes are built straight from the serialized descriptors
(rpc/descriptors.py, generated with the stubs) in a private pool. Without it
this falls back to the generated modules. The wire format is the same either
way, so the daemons cannot tell the difference.

Use as `from pyslurm_common.rpc import messages as pb; pb.JobQuery(...)`.
"""
from __future__ import annotations

from typing import Any

from .descriptors import FILES


def _classes() -> dict[str, Any]:
    try:
        from google._upb import _message as upb  # private, version-bound: hence the fallback
        from google.protobuf.message import Message
    except ImportError:
        upb = None
    if upb is None:
        from . import ctld_pb2, dbd_pb2, slurmd_pb2, types_pb2

        return {name: getattr(module, name) for module in (types_pb2, ctld_pb2, slurmd_pb2, dbd_pb2)
                for name in module.DESCRIPTOR.message_types_by_name}
    pool = upb.DescriptorPool()
    found: dict[str, Any] = {}
    for _, serialized in FILES:
        file_descriptor = pool.AddSerializedFile(serialized)
        for name, descriptor in file_descriptor.message_types_by_name.items():
            found[name] = upb.MessageMeta(name, (Message,), {"DESCRIPTOR": descriptor})
    return found


globals().update(_classes())


def __getattr__(name: str) -> Any:  # for type checkers: every message name is an attribute
    raise AttributeError(f"no protobuf message {name!r} in pyslurm's contracts")
