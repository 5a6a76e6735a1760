"""The lines `-v` adds to srun's and salloc's output, as Slurm 22.05's: the "defined options"
block, srun's `jobid N: nodes(K):`list', cpu counts: ...` and one `launching StepId=...` line per
node. Pure: they are built from what the commands already know."""
from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any


def say(prog: str, lines: Sequence[str]) -> None:
    for line in lines:
        print(f"{prog}: {line}", file=sys.stderr)


def options_block(spec: ModuleType, values: Mapping[str, Any]) -> list[str]:
    from .defined_options import defined_options

    return defined_options(spec.OPTIONS, values, None)


def allocation_line(job_id: int, nodelist: str, num_nodes: int, cpu_counts: str) -> str:
    return f"jobid {job_id}: nodes({num_nodes}):`{nodelist}', cpu counts: {cpu_counts}"


def launch_lines(step: str, nodes: Sequence[str], tasks_per_node: Sequence[int]) -> list[str]:
    """`launching StepId=J.S on host H, T tasks: R` with the node's ranks (block layout)."""
    lines, first = [], 0
    for node, count in zip(nodes, tasks_per_node):
        ranks = str(first) if count == 1 else f"{first}-{first + count - 1}"
        lines.append(f"launching StepId={step} on host {node}, {count} tasks: {ranks}")
        first += count
    return lines
