"""Issue 18's side-by-side table from two `../shared/bench/run_all.sh` result files.

    python3 bench/ratio_table.py SLURM.json PYSLURM.json [FLOORS.json]

Each row: real Slurm's figure, pyslurm's, how many times faster or slower pyslurm is, the goal
of issue 18 and whether this run meets it. FLOORS.json (written by compare_with_slurm.sh) holds
the interpreter floors measured in the same run (`python -c pass`, `python -c 'import click'`);
the sbatch goal is relative to the second. Standard library only, like the benches.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, Callable


def _get(result: dict[str, Any], bench: str, *path: str) -> float | None:
    value: Any = result.get("benches", {}).get(bench)
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return float(value) if isinstance(value, (int, float)) else None


@dataclass(frozen=True)
class Row:
    figure: str
    unit: str                        # "s" (lower is better) or "/s" (higher is better)
    read: Callable[[dict[str, Any]], float | None]
    goal: str
    met: Callable[[float, float, dict[str, float]], bool]   # (pyslurm, slurm, floors)


def _grace(result: dict[str, Any]) -> float | None:
    """Seconds from scancel to the job's processes gone, beyond KillWait."""
    gone = _get(result, "cancel_grace", "scancel_to_processes_gone_s")
    kill_wait = str(result.get("benches", {}).get("cancel_grace", {}).get("KillWait", "")).split()
    if gone is None or not kill_wait or not kill_wait[0].isdigit():
        return None
    return gone - int(kill_wait[0])


ROWS = (
    Row("300 trivial jobs, first submit to all done", "/s", lambda r: _get(r, "throughput", "jobs_per_s"),
        ">= 40 jobs/s", lambda ours, _, __: ours >= 40),
    Row("500-task array, all done", "/s", lambda r: _get(r, "array", "tasks_per_s"),
        ">= 100 tasks/s", lambda ours, _, __: ours >= 100),
    Row("sbatch --hold, one submitter, median", "s",
        lambda r: _get(r, "submit_serial", "sbatch_latency_s", "median"),
        "<= 1.5x import click and <= 25 ms",
        lambda ours, _, floors: ours <= 0.025 and ours <= 1.5 * floors.get("import_click_s", float("inf"))),
    Row("8 parallel submitters, held jobs", "/s", lambda r: _get(r, "submit_parallel", "submit_per_s"),
        ">= 150 /s", lambda ours, _, __: ours >= 150),
    Row("srun -n1 true, median", "s", lambda r: _get(r, "srun_latency", "srun_wall_s", "median"),
        "<= 1.0x Slurm", lambda ours, slurm, _: ours <= slurm),
    Row("squeue with 5,000 pending", "s", lambda r: _get(r, "squeue_latency", "squeue_full_s", "median"),
        "<= 1.0x Slurm", lambda ours, slurm, _: ours <= slurm),
    Row("squeue -h -j <id>", "s", lambda r: _get(r, "squeue_latency", "squeue_one_job_s", "median"),
        "<= 25 ms", lambda ours, _, __: ours <= 0.025),
    Row("sacct -X over >= 1,000 rows", "s", lambda r: _get(r, "sacct_latency", "sacct_s", "median"),
        "<= 1.0x Slurm", lambda ours, slurm, _: ours <= slurm),
    Row("scancel of 5,000 pending ids, 500 per call", "s", lambda r: _get(r, "squeue_latency", "scancel_all_s"),
        "<= 1.0x Slurm", lambda ours, slurm, _: ours <= slurm),
    Row("scancel of a TERM-ignoring job: processes gone after KillWait", "s", _grace,
        "keep (<= Slurm)", lambda ours, slurm, _: ours <= slurm),
)


def _show(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    return f"{value:.1f} {unit}" if unit == "/s" else f"{value * 1000:.1f} ms"


def _versus(ours: float | None, slurm: float | None, unit: str) -> str:
    if not ours or not slurm:
        return "n/a"
    speedup = ours / slurm if unit == "/s" else slurm / ours
    return f"{speedup:.2f}x faster" if speedup >= 1 else f"{1 / speedup:.2f}x slower"


def table(slurm: dict[str, Any], ours: dict[str, Any], floors: dict[str, float]) -> list[str]:
    lines = [f"| figure | real Slurm ({slurm.get('label', '?')}) | pyslurm ({ours.get('label', '?')}) "
             "| pyslurm vs Slurm | goal | met |", "|---|---|---|---|---|---|"]
    for row in ROWS:
        mine, theirs = row.read(ours), row.read(slurm)
        met = "n/a" if mine is None or theirs is None else ("yes" if row.met(mine, theirs, floors) else "no")
        lines.append(f"| {row.figure} | {_show(theirs, row.unit)} | {_show(mine, row.unit)} "
                     f"| {_versus(mine, theirs, row.unit)} | {row.goal} | {met} |")
    for name, seconds in sorted(floors.items()):
        lines.append(f"| floor: {name} (same run) | | {_show(seconds, 's')} | | | |")
    failed = [name for result in (slurm, ours) for name, bench in result.get("benches", {}).items()
              if isinstance(bench, dict) and bench.get("ok") is False]
    if failed:
        lines.append(f"\nbenches that reported ok=false (their figures are suspect): {', '.join(failed)}")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        slurm = json.load(f)
    with open(argv[1]) as f:
        ours = json.load(f)
    floors: dict[str, float] = {}
    if len(argv) == 3:
        with open(argv[2]) as f:
            floors = json.load(f)
    print("\n".join(table(slurm, ours, floors)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
