"""The definition a dynamic node (`pyslurmd -Z --conf "..."`) registers with.

Slurm's rule: a dynamic node is not in slurm.conf; it tells the controller what it
is. Its definition is a slurm.conf `NodeName=` line: what `--conf` gives, and the
detected hardware for what it leaves out (topology, RealMemory, the GPUs).
Pure: the caller detects the hardware. Errors are ConfigError naming `--conf`.
"""
from __future__ import annotations

from pathlib import Path

from pyslurm_common.conf_records import parse_node_line
from pyslurm_common.config import ConfigError
from pyslurm_common.conf_syntax import tokenize

from .hardware import Hardware

ORIGIN = Path("--conf")
# Keys that describe the CPU layout: given one, the detected layout is left out entirely,
# because a partial mix (CPUs from --conf, Sockets detected) would contradict itself.
_TOPOLOGY_KEYS = frozenset({"cpus", "procs", "boards", "socketsperboard", "sockets", "corespersocket",
                            "threadspercore"})


def definition(name: str, hw: Hardware, overrides: str, gres: str) -> str:
    """`NodeName=<name>` plus detected values not overridden, then `overrides` as written."""
    given = {tok.lower for tok in tokenize(overrides.strip(), ORIGIN, 1)}
    if "nodename" in given:
        raise ConfigError(ORIGIN, 1, "NodeName= is not allowed in --conf: name the node with -N")
    parts = [f"NodeName={name}"]
    if not given & _TOPOLOGY_KEYS:
        parts.append(f"CPUs={hw.cpus} Boards=1 SocketsPerBoard={hw.sockets} "
                     f"CoresPerSocket={hw.cores_per_socket} ThreadsPerCore={hw.threads_per_core}")
    if "realmemory" not in given:
        parts.append(f"RealMemory={hw.real_memory_mb}")
    if "gres" not in given and gres:
        parts.append(f"Gres={gres}")
    if overrides.strip():
        parts.append(overrides.strip())
    line = " ".join(parts)
    parse_node_line(line, ORIGIN)   # what the controller will do with it: fail here first
    return line
