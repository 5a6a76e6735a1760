"""Options that read something on the submit host into the job: --propagate (which resource
limits travel), --export-file (variables from a file or descriptor), --nodefile (the node list
from a file). Slurm's words for what fails.

The first two are read at submission, after the options are checked (and after -v has shown
them), as Slurm's sbatch does: `add_submission_inputs` completes a JobDesc."""
from __future__ import annotations

import os
import resource
import sys
from collections.abc import Mapping

from .app import die

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

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
                die(f"Bad rlimit name: {unknown[0]}")
            chosen = tuple(names)
    out = []
    for name in chosen:
        soft, hard = resource.getrlimit(getattr(resource, f"RLIMIT_{name}"))
        out.append(f"{name}={soft}:{hard}")
    return out


def export_file(values: Mapping[str, Any], prog: str, verbose: bool) -> dict[str, str]:
    """NAME=value definitions separated by NUL characters, from a file or an open descriptor (3 and up)."""
    target = values.get("export_file")
    if target is None:
        return {}
    text = str(target)
    if verbose:
        print(f"{prog}: Getting environment variables from {text}", file=sys.stderr)
    try:
        if text.isdigit() and int(text) >= 3:
            with os.fdopen(int(text), "rb", closefd=False) as stream:
                data = stream.read()
        else:
            with open(text, "rb") as stream:
                data = stream.read()
    except OSError:
        die(f"Could not open user environment file {text}")
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
    except OSError as exc:
        die(f"slurm_allocate_resources error opening file {path}, {exc.strerror}", exit_code=255)
    return ",".join(names)


def add_submission_inputs(desc: Any, values: Mapping[str, Any], prog: str) -> None:
    """The limits and --export-file variables of a JobDesc (pb.JobDesc), read now."""
    desc.rlimits.extend(rlimits(values))
    desc.environment.extend(f"{k}={v}" for k, v in export_file(values, prog, bool(values.get("verbose"))).items())
