"""Start-up cost of sbatch, srun, salloc, squeue, sinfo and scancel against the interpreter floors (issue 18's hot path).

Each command runs with PYSLURM_CONF pointing nowhere, so it parses its whole command line
(getopt table, directives, environment) and stops at the configuration read, before any RPC:
what remains is the client's own start-up. Runs are interleaved and the median of each is
printed, with the ratio to `python -c 'import click'`.

    python bench/cli_startup.py [--runs 40] [--tree /work/main --tree .]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "python -c 'import click'": ["-c", "import click"],
    "sbatch --hold --wrap true": ["-c", "from cli.sbatch import main; main()", "--hold", "--wrap", "true"],
    "srun -n1 true": ["-c", "from cli.srun import main; main()", "-n1", "true"],
    "salloc -N1 true": ["-c", "from cli.salloc import main; main()", "-N1", "true"],
    # tools poll squeue constantly (cli/option_tables/squeue.py: getopt, no click)
    "squeue -h -u alice -t all": ["-c", "from cli.squeue import main; main()", "-h", "-u", "alice", "-t", "all"],
    "sinfo -h -N": ["-c", "from cli.sinfo import main; main()", "-h", "-N"],
    "scancel -u alice": ["-c", "from cli.scancel import main; main()", "-u", "alice"],
}


def _time(args: list[str], tree: str) -> float:
    env = dict(os.environ, PYTHONPATH=tree, PYSLURM_CONF="/nonexistent/slurm.conf")
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, cwd=tree, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--tree", action="append", help="source tree(s) to compare (default: this one)")
    opts = parser.parse_args()
    trees = [os.path.abspath(t) for t in (opts.tree or [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))])]
    samples: dict[tuple[str, str], list[float]] = {}
    for _ in range(opts.runs):
        for tree in trees:
            for name, args in COMMANDS.items():
                samples.setdefault((tree, name), []).append(_time(args, tree))
    for tree in trees:
        floor = statistics.median(samples[(tree, "python -c 'import click'")])
        print(f"== {tree} (median of {opts.runs} runs)")
        for name in COMMANDS:
            median = statistics.median(samples[(tree, name)])
            print(f"  {name:28} {median:7.1f} ms  {median / floor:5.2f}x import click")


if __name__ == "__main__":
    main()
