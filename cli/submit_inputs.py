"""Options that read something on the submit host into the job: --propagate (which resource
limits travel), --export-file (variables from a file or descriptor), --nodefile (the node list
from a file). Slurm's words for what fails."""
from __future__ import annotations

import os
import resource
import sys
from collections.abc import Mapping
from typing import Any

from .app import die

# Limits a job inherits from the submitting shell, as Slurm's PropagateResourceLimits=ALL.
RLIMITS = ("CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE", "MEMLOCK", "AS")


def rlimits(values: Mapping[str, Any]) -> list[str]:
    """This shell's limits that --propagate names (all without it, or with a bare --propagate)."""
    raw = values.get("propagate")
    chosen = RLIMITS
    if raw:
        names = [name.strip().upper().removeprefix("RLIMIT_") for name in str(raw).split(",")]
        if names == ["NONE"]:
            chosen = ()
        elif names != ["ALL"]:
            unknown = [n for n in names if n not in RLIMITS]
            if unknown:
                die("Invalid --propagate specification")
            chosen = tuple(names)
    out = []
    for name in chosen:
        soft, hard = resource.getrlimit(getattr(resource, f"RLIMIT_{name}"))
        out.append(f"{name}={soft}:{hard}")
    return out


def export_file(values: Mapping[str, Any], verbose: bool) -> dict[str, str]:
    """NAME=value definitions separated by NUL characters, from a file or an open descriptor (3 and up)."""
    target = values.get("export_file")
    if target is None:
        return {}
    text = str(target)
    if verbose:
        print(f"sbatch: Getting environment variables from {text}", file=sys.stderr)
    try:
        if text.isdigit() and int(text) >= 3:
            with os.fdopen(int(text), "rb", closefd=False) as stream:
                data = stream.read()
        else:
            with open(text, "rb") as stream:
                data = stream.read()
    except OSError as exc:
        die(f"Failed to open file {text}: {exc.strerror}")
    found = {}
    for item in data.decode(errors="surrogateescape").split("\0"):
        name, sep, value = item.partition("=")
        if sep and name:
            found[name] = value
    return found


def node_file(values: Mapping[str, Any]) -> str:
    """--nodefile: node names (blank- or comma-separated) from a file, as a list for -w."""
    path = values.get("nodefile")
    if path is None:
        return ""
    try:
        with open(str(path)) as stream:
            names = stream.read().replace(",", " ").split()
    except OSError:
        die(f"Unable to open file {path}")
    return ",".join(names)
