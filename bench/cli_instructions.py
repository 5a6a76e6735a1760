#!/usr/bin/env python3
"""CLI start-up in instructions (valgrind's callgrind), against the interpreter floors.

    python bench/cli_instructions.py [--tree /work/main --tree .]

Instruction counts do not move with the machine's load, so two trees can be compared on a busy
shared box where wall-clock figures (bench/cli_startup.py) mean nothing. Each command runs
with PYSLURM_CONF pointing nowhere: it imports and parses what its call needs and stops at the
configuration read, before any RPC. Prints millions of instructions and the ratio to
`python -c 'import click'` (issue 18's start-up goal is 1.5x that for a whole sbatch call).
Needs valgrind. Measure a non-editable installation for figures users see: an editable one
adds its import finder's own start-up to every command.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "python -c 'import click'": ["-c", "import click"],
    "sbatch --hold --wrap true": ["-c", "from cli.sbatch import main; main()", "--hold", "--wrap", "true"],
    "squeue -h -j 1": ["-c", "from cli.squeue import main; main()", "-h", "-j", "1"],
    "scancel 1": ["-c", "from cli.scancel import main; main()", "1"],
    "sacct -X": ["-c", "from cli.sacct import main; main()", "-X"],
    "srun -n1 true": ["-c", "from cli.srun import main; main()", "-n1", "true"],
}


def instructions(args: list[str], tree: str, conf: str = "/nonexistent/slurm.conf") -> int:
    """Instructions of one run (bench/cli_calls.py passes a running cluster's configuration)."""
    env = dict(os.environ, PYTHONPATH=tree, PYSLURM_CONF=conf)
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *args],
                          env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no count for {args}: {done.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", help="source tree(s) to compare (default: this one)")
    opts = parser.parse_args()
    trees = [os.path.abspath(t) for t in (opts.tree or [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))])]
    for tree in trees:
        counts = {name: instructions(args, tree) for name, args in COMMANDS.items()}
        floor = counts["python -c 'import click'"]
        print(f"== {tree} (millions of instructions)")
        for name, count in counts.items():
            print(f"  {name:28} {count / 1e6:8.1f} M  {count / floor:5.2f}x import click")


if __name__ == "__main__":
    main()
