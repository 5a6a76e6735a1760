"""Protobuf message classes for the CLIs, without protobuf's ~20 ms import.

The generated `*_pb2` modules go through protobuf's descriptor pool and
builder, which import most of the pure-Python runtime even when the C (upb)
backend does the work. CLI start-up is a hot path, so when the upb backend is
present the classes are built straight from the serialized descriptors
(rpc/descriptors.py, generated with the stubs) in a private pool, each on
first use: a CLI touches a handful of the contracts' messages, and building
them all cost more than the rest of this module. Without upb this falls back
to the generated modules. The wire format is the same either way, so the
daemons cannot tell the difference.

Use as `from pyslurm_common.rpc import messages as pb; pb.JobQuery(...)`.
"""
from __future__ import annotations

from typing import Any

from .descriptors import FILES

PACKAGE = "pyslurm."


def _upb_pool() -> Any:
    try:
        from google._upb import _message as upb  # private, version-bound: hence the fallback
    except ImportError:
        return None
    pool = upb.DescriptorPool()
    for _, serialized in FILES:
        pool.AddSerializedFile(serialized)
    return pool


def _generated_classes() -> dict[str, Any]:
    from . import ctld_pb2, dbd_pb2, slurmd_pb2, types_pb2

    return {name: getattr(module, name) for module in (types_pb2, ctld_pb2, slurmd_pb2, dbd_pb2)
            for name in module.DESCRIPTOR.message_types_by_name}


_POOL = _upb_pool()
if _POOL is None:
    globals().update(_generated_classes())


def __getattr__(name: str) -> Any:
    """Build the class of message `name` (once: it is cached as a module attribute). upb
    registers it on its descriptor, so a class it already made for a sub-message field is
    the one returned here."""
    if _POOL is None or name.startswith("__"):
        raise AttributeError(f"no protobuf message {name!r} in pyslurm's contracts")
    from google._upb import _message as upb
    from google.protobuf.message import Message

    try:
        descriptor = _POOL.FindMessageTypeByName(PACKAGE + name)
    except KeyError:
        raise AttributeError(f"no protobuf message {name!r} in pyslurm's contracts") from None
    cls = globals()[name] = upb.MessageMeta(name, (Message,), {"DESCRIPTOR": descriptor})
    return cls
