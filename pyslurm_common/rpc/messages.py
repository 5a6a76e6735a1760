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

import sys

from .descriptors import FILES

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

PACKAGE = "pyslurm."
WELL_KNOWN_TYPES = "google.protobuf.internal.well_known_types"


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


def without_well_known_types() -> None:
    """Spare this process protobuf's well_known_types module: upb imports it the first time it
    builds any message class, only to look up the Python mix-ins of the well-known types
    (Timestamp, Duration, Any, Struct...), and it brings calendar, locale, threading and the
    pure-Python descriptor module: about a tenth of an sbatch call. pyslurm's contracts use no
    well-known type, so the first class is built against an empty table instead. upb keeps that
    table for the rest of the process: a well-known type built later would lack its mix-in, hence
    only for a process that builds none, from its entry point (cli/app.run_as_process). Does
    nothing once a class is built or the module is loaded, or without the upb backend."""
    if _POOL is None or WELL_KNOWN_TYPES in sys.modules:
        return
    import types

    stand_in = types.ModuleType(WELL_KNOWN_TYPES)
    stand_in.WKTBASES = {}   # type: ignore[attr-defined]
    sys.modules[WELL_KNOWN_TYPES] = stand_in
    try:
        __getattr__("Empty")
    finally:
        del sys.modules[WELL_KNOWN_TYPES]   # whoever imports it later gets the real module
