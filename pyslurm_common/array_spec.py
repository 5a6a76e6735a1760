"""Job array index expressions: `--array=0-15:4,20%2` in, index tuples and range strings out.

Owns the syntax of cli-sbatch-srun-salloc.md §2.5 (comma list of `N`, `A-B`, `A-B:S`, an
optional `%N` throttle) and the range strings squeue, scontrol and sacct print
(`5-100`, `1,3,5-7`: runs of consecutive indices, as Slurm's bitmap format prints them),
plus the `123_[1-3]` / `123_5` / `123_*` job id forms scancel and squeue accept.

Pure and stdlib only (the CLIs import it). Errors: `ValueError` with no detail; each caller
words it as Slurm does for its command. Indices, throttles and job ids are bounded (bounds.py)
before any range is built: `0-99999999999` must not fill the memory.
"""
from __future__ import annotations

from .bounds import ARRAY_INDEX, ARRAY_THROTTLE, JOB_ID
from .typed_tuple import NamedTuple

TYPE_CHECKING = False   # typing's constant without importing typing: CLI start-up (issue 18)
if TYPE_CHECKING:
    from typing import Iterable

# Patterns are strings, compiled on first use through re's own cache, and re itself is imported
# where one is matched: squeue and scancel import this module, and a plain job id needs neither.
_ITEM = r"^(\d+)(?:-(\d+)(?::(\d+))?)?$"
_JOB_SPEC = r"^(\d+)(?:_(\*|\d+|\[[0-9,:\-]+\]))?$"


class ArraySpec(NamedTuple):   # a NamedTuple: CLIs import it, and dataclasses would import inspect
    indices: tuple[int, ...]     # ascending, no duplicates
    throttle: int                # 0: no limit on running tasks


def parse_array_spec(text: str) -> ArraySpec:
    """`1-10:2,15%3` (or `[1-10:2,15]%3`) -> ArraySpec((1, 3, 5, 7, 9, 15), 3); ValueError if it
    does not parse."""
    body, sep, throttle_text = text.strip().partition("%")
    throttle = 0
    if sep:
        if not throttle_text.isdigit():
            raise ValueError(text)
        throttle = ARRAY_THROTTLE.parse(throttle_text)
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]   # `[1-4]`: Slurm takes the list in brackets too
    return ArraySpec(parse_indices(body), throttle)


def parse_indices(text: str) -> tuple[int, ...]:
    """`0,6,16-32:4` -> the indices, ascending; ValueError for empty or malformed lists."""
    import re

    found: set[int] = set()
    for item in text.split(","):
        match = re.match(_ITEM, item.strip())
        if not match:
            raise ValueError(text)
        first = ARRAY_INDEX.parse(match.group(1))
        last = ARRAY_INDEX.parse(match.group(2)) if match.group(2) is not None else first
        step = ARRAY_INDEX.parse(match.group(3)) if match.group(3) is not None else 1
        if last < first or step < 1:
            raise ValueError(text)
        found.update(range(first, last + 1, step))
    return tuple(sorted(found))


def format_ranges(indices: Iterable[int]) -> str:
    """Ascending indices -> `1-3,5,7-9` (runs of consecutive indices)."""
    parts: list[str] = []
    run_start = previous = None
    for index in indices:
        if previous is not None and index == previous + 1:
            previous = index
            continue
        if run_start is not None:
            parts.append(_run(run_start, previous))  # type: ignore[arg-type]
        run_start = previous = index
    if run_start is not None:
        parts.append(_run(run_start, previous))  # type: ignore[arg-type]
    return ",".join(parts)


def _run(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


class JobSpec(NamedTuple):   # a NamedTuple: CLIs import it, and dataclasses would import inspect
    """A job named on a command line: `123` (a job, or every task of array 123), `123_5`,
    `123_[1-3]`; `tasks` is None when no task was named (`123` and `123_*`)."""

    job_id: int
    tasks: tuple[int, ...] | None = None

    def matches(self, job_id: int, array_job_id: int, task_id: int | None) -> bool:
        """Whether this names a record (`array_job_id` 0 outside arrays, `task_id` None for a
        pending remainder): `123` names job 123 and every record of array 123, `123_5` task 5."""
        if self.tasks is None:
            return self.job_id in (job_id, array_job_id)
        return array_job_id == self.job_id and task_id is not None and task_id in self.tasks

    def __str__(self) -> str:
        if self.tasks is None:
            return str(self.job_id)
        if len(self.tasks) == 1:
            return f"{self.job_id}_{self.tasks[0]}"
        return f"{self.job_id}_[{format_ranges(self.tasks)}]"


def parse_job_spec(text: str) -> JobSpec:
    """`123`, `123_5`, `123_[1,3-5]`, `123_*` -> JobSpec; ValueError otherwise."""
    stripped = text.strip()
    if stripped.isascii() and stripped.isdigit():   # a job id alone, what the pattern gives it
        return JobSpec(JOB_ID.parse(stripped))
    import re

    match = re.match(_JOB_SPEC, stripped)
    if not match:
        raise ValueError(text)
    job_id, tasks = JOB_ID.parse(match.group(1)), match.group(2)
    if tasks is None or tasks == "*":
        return JobSpec(job_id)
    if tasks.startswith("["):
        return JobSpec(job_id, parse_indices(tasks[1:-1]))
    return JobSpec(job_id, (ARRAY_INDEX.parse(tasks),))
