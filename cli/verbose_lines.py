"""The lines `-v` adds to srun's and salloc's output, as Slurm 22.05's: the "defined options"
block, srun's `jobid N: nodes(K):`list', cpu counts: ...` and one `launching StepId=...` line per
node. Pure: they are built from what the commands already know."""
from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from types import ModuleType

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any


def say(prog: str, lines: Sequence[str]) -> None:
    for line in lines:
        print(f"{prog}: {line}", file=sys.stderr)


def options_block(spec: ModuleType, values: Mapping[str, Any]) -> list[str]:
    from .defined_options import defined_options

    return defined_options(spec.OPTIONS, values, None)


def allocation_line(job_id: int, nodelist: str, num_nodes: int, cpu_counts: str) -> str:
    return f"jobid {job_id}: nodes({num_nodes}):`{nodelist}', cpu counts: {cpu_counts}"


def launch_lines(step: str, nodes: Sequence[str], ranks: Sequence[Sequence[int]]) -> list[str]:
    """`launching StepId=J.S on host H, T tasks: R` with the node's ranks (`0-3`, `0,2`)."""
    return [f"launching StepId={step} on host {node}, {len(node_ranks)} tasks: {_ranges(node_ranks)}"
            for node, node_ranks in zip(nodes, ranks)]


def _ranges(ranks: Sequence[int]) -> str:
    runs: list[list[int]] = []
    for rank in ranks:
        if runs and runs[-1][-1] == rank - 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
