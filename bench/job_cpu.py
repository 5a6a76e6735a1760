#!/usr/bin/env python3
"""CPU time per job of each process of a throw-away cluster, for a job array (issue 18).

    sudo python bench/job_cpu.py [--tasks 200] [--runs 3] [--finished 0] [--venv DIR --venv DIR]
                                 [--base-port 35517]

Wall-clock throughput means little on a shared 2-core box; the CPU that one trivial job costs
the cluster bounds it. This submits `sbatch --array=1-N -o /dev/null --wrap true` to a
pyslurm-quickstart cluster, waits until the array has left squeue, and prints the CPU time per
task of the controller, the accounting daemon, the auth agent, the node agent, its stepd fork
server, and the step cgroups (each stepd from the moment it joins its step's cgroup, and the
task's own shell), from /proc/PID/stat and the cgroup's cpu.stat. The minimum over --runs is
printed: load from others only ever adds. The squeue polls (one per 0.2 s) are in the
controller's figure. --finished N first runs an N-task array, unmeasured: the finished jobs the
controller keeps until MinJobAge (300 s), as after the shared benchmarks that run before theirs.

The cluster runs from this interpreter's virtual environment (pyslurm installed in it), or from
each --venv given: one cluster each, their runs interleaved, so that two installations (before
and after a change) are compared under the same load.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import time

from cli_calls import Cluster   # this directory is sys.path[0]

POLL = 0.2
PROCESSES = ("pyslurmctld", "pyslurmdbd", "pyslurmsackd", "pyslurmd", "stepd server", "step cgroups")


def _ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])   # utime, stime


def _stepd_server(node_agent: int) -> int:
    for child in open(f"/proc/{node_agent}/task/{node_agent}/children").read().split():
        if b"pyslurm_d.stepd_server" in open(f"/proc/{child}/cmdline", "rb").read():
            return int(child)
    raise SystemExit("no stepd server under the node agent")


class Meter:
    """CPU seconds used so far by each process of `cluster`."""

    def __init__(self, cluster: Cluster, name: str) -> None:
        node = socket.gethostname().split(".")[0]
        run = f"{cluster.root}/run"
        self.pids = {daemon: int(open(f"{run}/{daemon}.pid").read()) for daemon in PROCESSES[:3]}
        self.pids["pyslurmd"] = int(open(f"{run}/pyslurmd-{node}.pid").read())
        self.pids["stepd server"] = _stepd_server(self.pids["pyslurmd"])
        self.cgroup = f"/sys/fs/cgroup/unified/pyslurm_{name}_{node}/cpu.stat"

    def read(self) -> dict[str, float]:
        tick = os.sysconf("SC_CLK_TCK")
        seconds = {name: _ticks(pid) / tick for name, pid in self.pids.items()}
        try:
            with open(self.cgroup) as f:
                usage = dict(line.split() for line in f)
        except FileNotFoundError:   # made at the node's first launch
            usage = {"usage_usec": "0"}
        seconds["step cgroups"] = int(usage["usage_usec"]) / 1e6
        return seconds


class Target:
    """One installation's cluster, with what a run needs of it."""

    def __init__(self, cluster: Cluster, name: str, bin_dir: str) -> None:
        self.cluster, self.name = cluster, name
        self.env = dict(os.environ, PYSLURM_CONF=cluster.conf, PATH=f"{bin_dir}:{os.environ['PATH']}")
        self.meter = Meter(cluster, name)
        self.runs: list[tuple[float, dict[str, float]]] = []

    def _gone(self, job_id: str) -> bool:
        out = subprocess.run(["squeue", "-h", "-j", job_id], env=self.env, capture_output=True, text=True).stdout
        return not out.strip()

    def run(self, tasks: int) -> tuple[float, dict[str, float]]:
        before = self.meter.read()
        start = time.perf_counter()
        job_id = subprocess.run(["sbatch", "--parsable", f"--array=1-{tasks}", "-o", "/dev/null", "--wrap", "true"],
                                env=self.env, capture_output=True, text=True, check=True).stdout.strip().split(";")[0]
        while not self._gone(job_id):
            time.sleep(POLL)
        wall = time.perf_counter() - start
        time.sleep(1.0)   # accounting records of the last tasks
        after = self.meter.read()
        return wall, {name: (after[name] - before[name]) * 1000 / tasks for name in PROCESSES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--finished", type=int, default=0, help="finished jobs in the controller first")
    parser.add_argument("--venv", action="append", help="installation(s) to compare (default: this one)")
    parser.add_argument("--base-port", type=int, default=35517)
    opts = parser.parse_args()
    bin_dirs = [os.path.join(os.path.abspath(v), "bin") for v in opts.venv or [os.path.dirname(os.path.dirname(sys.executable))]]
    with contextlib.ExitStack() as stack:
        targets = []
        for number, bin_dir in enumerate(bin_dirs):
            name = f"jobcpu{os.getpid()}x{number}"
            cluster = stack.enter_context(Cluster(opts.base_port + 10 * number, name, bin_dir))
            targets.append(Target(cluster, name, bin_dir))
        for target in targets:
            target.run(max(20, opts.finished))   # warm: bytecode caches, the first stepd forks
        for _ in range(opts.runs):
            for target in targets:
                target.runs.append(target.run(opts.tasks))
    for bin_dir, target in zip(bin_dirs, targets):
        print(f"== {os.path.dirname(bin_dir)}: {opts.tasks}-task array, {opts.runs} runs;"
              " CPU ms per task (minimum of the runs)")
        for process in PROCESSES:
            print(f"  {process:14} {min(cpu[process] for _, cpu in target.runs):6.2f}")
        totals = [sum(cpu.values()) for _, cpu in target.runs]
        print(f"  {'total':14} {min(totals):6.2f}   (runs: {', '.join(f'{t:.2f}' for t in totals)})")
        print(f"  wall: {', '.join(f'{opts.tasks / wall:.1f}' for wall, _ in target.runs)} tasks/s")


if __name__ == "__main__":
    main()
