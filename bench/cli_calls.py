#!/usr/bin/env python3
"""Whole CLI calls against a throw-away cluster, against the interpreter floors (issue 18).

    sudo python bench/cli_calls.py [--runs 40] [--callgrind] [--tree /work/main --tree .]

bench/cli_startup.py and bench/cli_instructions.py stop each command at the configuration read;
this runs the calls users make to the end: `sbatch --hold --wrap true`, `squeue -h -j <id>`,
`scancel <id>` (of a held job submitted for it beforehand) and `sacct -X`, with the configuration
read, the round trip through the auth agent, the output and the interpreter's exit. The cluster
is pyslurm-quickstart's, in a temporary directory on its own ports (--base-port), started from
the bin directory of this interpreter (a virtual environment with pyslurm installed), and stopped
at the end. Each tree's commands run with PYTHONPATH set to it, interleaved; prints the median
wall time of each and its ratio to `python -c 'import click'`, the CPU time one call costs the
client process and the daemons (controller, accounting, node and auth agents: the CPU that bounds
how many calls per second parallel callers get from the machine's cores), and with --callgrind
the client's instructions of one call (valgrind; the daemons are other processes, so not counted). Run it
without PYTHONDONTWRITEBYTECODE (or with PYTHONPYCACHEPREFIX): compiling every module from source
on each call would be counted too.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from typing import NamedTuple

from cli_instructions import instructions   # this directory is sys.path[0]

FLOORS = {
    "python -c pass": ["-c", "pass"],
    "python -c 'import click'": ["-c", "import click"],
}
CLICK = "python -c 'import click'"


def _command(name: str, *args: str) -> list[str]:
    return ["-c", f"from cli.{name} import main; main()", *args]


class Cluster:
    def __init__(self, base_port: int, name: str = "", bin_dir: str = "") -> None:
        """`name`: the cluster's (quickstart's default, the host name, without one); it names the
        node's cgroup tree, which clusters of the same name on one host share. `bin_dir`: the
        installation whose daemons run (default: this interpreter's)."""
        self.root = tempfile.mkdtemp(prefix="pyslurm-calls-")
        os.chmod(self.root, 0o755)
        self.dirs = ["--conf-dir", f"{self.root}/etc", "--state-dir", f"{self.root}/state",
                     "--run-dir", f"{self.root}/run", "--base-port", str(base_port)]
        self.start_args = [*self.dirs, *(["--cluster", name] if name else [])]
        self.quickstart = os.path.join(bin_dir or os.path.dirname(sys.executable), "pyslurm-quickstart")
        self.conf = f"{self.root}/etc/slurm.conf"

    def daemon_cpu_s(self) -> float:
        """CPU seconds the cluster's daemons have used so far (user + system, from /proc)."""
        total_ticks = 0
        for pid_file in glob.glob(f"{self.root}/run/*.pid"):
            try:
                with open(pid_file) as f:
                    pid = f.read().strip()
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            total_ticks += int(fields[11]) + int(fields[12])   # utime, stime
        return total_ticks / os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> "Cluster":
        if subprocess.run([self.quickstart, *self.start_args], stdout=subprocess.DEVNULL).returncode:
            self.__exit__()   # what did start is stopped again
            raise SystemExit("pyslurm-quickstart failed (a port taken? try another --base-port)")
        return self

    def __exit__(self, *_: object) -> None:
        subprocess.run([self.quickstart, "--stop", *self.dirs], check=False, stdout=subprocess.DEVNULL)
        shutil.rmtree(self.root, ignore_errors=True)


def _env(tree: str, conf: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=tree, PYSLURM_CONF=conf)


def _held_job(tree: str, conf: str) -> str:
    done = subprocess.run([sys.executable, *_command("sbatch", "--hold", "--parsable", "--wrap", "true")],
                          env=_env(tree, conf), cwd=tree, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _calls(tree: str, conf: str, job_id: str, victim: str) -> dict[str, list[str]]:
    return {**FLOORS,
            "sbatch --hold --wrap true": _command("sbatch", "--hold", "--wrap", "true"),
            "squeue -h -j <id>": _command("squeue", "-h", "-j", job_id),
            "scancel <id>": _command("scancel", victim),
            "sacct -X": _command("sacct", "-X")}


class Sample(NamedTuple):
    wall_ms: float
    client_cpu_ms: float
    daemon_cpu_ms: float


def _run(args: list[str], tree: str, cluster: Cluster) -> Sample:
    daemons_before = cluster.daemon_cpu_s()
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], env=_env(tree, cluster.conf), cwd=tree,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = 0   # reaped above; Popen must not wait for it again
    return Sample(wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000,
                  (cluster.daemon_cpu_s() - daemons_before) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="timed runs of each call (0: none)")
    parser.add_argument("--tree", action="append", help="source tree(s) to compare (default: this one)")
    parser.add_argument("--base-port", type=int, default=34517)
    parser.add_argument("--callgrind", action="store_true", help="also count one call's instructions")
    opts = parser.parse_args()
    trees = [os.path.abspath(t) for t in (opts.tree or [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))])]
    samples: dict[tuple[str, str], list[Sample]] = {}
    counts: dict[tuple[str, str], int] = {}
    with Cluster(opts.base_port) as cluster:
        job_id = _held_job(trees[0], cluster.conf)
        for tree in trees:   # once unmeasured: the bytecode caches are written, the daemons warm
            for args in _calls(tree, cluster.conf, job_id, _held_job(tree, cluster.conf)).values():
                _run(args, tree, cluster)
        for _ in range(opts.runs):
            for tree in trees:
                calls = _calls(tree, cluster.conf, job_id, _held_job(tree, cluster.conf))
                for name, args in calls.items():
                    samples.setdefault((tree, name), []).append(_run(args, tree, cluster))
        if opts.callgrind:
            for tree in trees:
                for name, args in _calls(tree, cluster.conf, job_id, _held_job(tree, cluster.conf)).items():
                    counts[(tree, name)] = instructions(args, tree, cluster.conf)
    for tree in trees:
        print(f"== {tree} (wall: median of {opts.runs} runs; CPU of one call, mean: client + daemons;"
              " millions of instructions of one call)")
        for name in _calls(tree, "", "", ""):
            line = f"  {name:28}"
            if opts.runs:
                runs = samples[(tree, name)]
                median = statistics.median(run.wall_ms for run in runs)
                click = statistics.median(run.wall_ms for run in samples[(tree, CLICK)])
                line += (f" {median:7.1f} ms  {median / click:5.2f}x import click"
                         f"  CPU {statistics.mean(run.client_cpu_ms for run in runs):5.1f}"
                         f" + {statistics.mean(run.daemon_cpu_ms for run in runs):4.1f} ms")
            if (tree, name) in counts:
                count = counts[(tree, name)]
                line += f"  {count / 1e6:8.1f} M  {count / counts[(tree, CLICK)]:5.2f}x"
            print(line)


if __name__ == "__main__":
    main()
