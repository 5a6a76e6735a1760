"""What srun says about its tasks: the exit report, the Ctrl-C status lines, its own exit status.

Spec cli-sbatch-srun-salloc.md §3.4. Pure: task outcomes and the step layout in, lines out
(without the `srun: ` prefix handling beyond what the spec fixes).
"""
from __future__ import annotations

import signal as _signal
from collections.abc import Iterable, Mapping

from pyslurm_common.hostlist import compress, compress_numbers
from pyslurm_common.typed_tuple import NamedTuple

from .step_layout import StepLayout

OOM_EXIT = 253  # Slurm reserves it for out-of-memory when no other status says more


class TaskOutcome(NamedTuple):   # not a dataclass: srun's step path skips that import
    code: int
    signal: int = 0
    oom: bool = False

    @property
    def description(self) -> str:
        """`Exited with exit code 3`, `Killed`, `Out Of Memory`; empty for a clean exit."""
        if self.oom:
            return "Out Of Memory"
        if self.signal:
            return _signal.strsignal(self.signal) or f"Signal {self.signal}"
        if self.code:
            return f"Exited with exit code {self.code}"
        return ""

    @property
    def status(self) -> int:
        """This task's share of srun's exit status: the code, or 128+signal."""
        if self.signal:
            return 128 + self.signal
        if self.oom and not self.code:
            return OOM_EXIT
        return self.code


def _tasks(ranks: Iterable[int]) -> str:
    ranks = sorted(set(ranks))
    return f"{'task' if len(ranks) == 1 else 'tasks'} {compress_numbers(ranks)}"


def exit_report(outcomes: Mapping[int, TaskOutcome], layout: StepLayout) -> list[str]:
    """`srun: error: <hosts>: task(s) <ranks>: <what>` per distinct failure, in rank order of
    each group's first task; clean exits are not reported."""
    groups: dict[str, list[int]] = {}
    for rank in sorted(outcomes):
        what = outcomes[rank].description
        if what:
            groups.setdefault(what, []).append(rank)
    lines = []
    for what, ranks in groups.items():
        hosts = compress(layout.host_of(r) for r in ranks)
        lines.append(f"srun: error: {hosts}: {_tasks(ranks)}: {what}")
    return lines


def exit_status(outcomes: Mapping[int, TaskOutcome]) -> int:
    """The highest task status (0 when every task exited cleanly or none reported)."""
    return max((o.status for o in outcomes.values()), default=0)


def status_lines(step: str, outcomes: Mapping[int, TaskOutcome], started: set[int], layout: StepLayout) -> list[str]:
    """The first Ctrl-C's lines: each task is running, exited, exited abnormally or unknown."""
    states: dict[str, list[int]] = {}
    for rank in range(layout.num_tasks):
        if rank in outcomes:
            state = "exited abnormally" if outcomes[rank].description else "exited"
        elif rank in started:
            state = "running"
        else:
            state = "unknown"
        states.setdefault(state, []).append(rank)
    order = ("running", "exited", "exited abnormally", "unknown")
    return [f"srun: StepId={step} {_tasks(states[s])}: {s}" for s in order if s in states]
