#!/usr/bin/env python3
"""stdout throughput of a job step: bytes piped through `srun cat` and back (issue 4).

    PATH=/opt/pyslurm/bin:$PATH bench/bench_srun_stream.py [--mb 64] [--repeat 3]

Runs against whatever cluster `srun` on PATH reaches (bench/run_shared.sh starts a throw-away
one: `BENCH_EXTRA=bench/bench_srun_stream.py`, or run it by hand inside that environment).
Each round feeds --mb MiB of data to `srun cat` on stdin, reads it all back from stdout,
checks it arrived intact, and reports MB/s for the whole round trip (srun -> stepd -> cat ->
stepd -> srun). Prints one JSON object.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import threading
import time


def one_round(size: int) -> float:
    chunk = os.urandom(1 << 20)
    sent = hashlib.sha256()
    received = hashlib.sha256()
    proc = subprocess.Popen(["srun", "-n1", "cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    got = [0]

    def drain() -> None:
        while True:
            data = proc.stdout.read(1 << 20)   # type: ignore[union-attr]
            if not data:
                return
            received.update(data)
            got[0] += len(data)

    reader = threading.Thread(target=drain)
    start = time.perf_counter()
    reader.start()
    for _ in range(size // len(chunk)):
        proc.stdin.write(chunk)
        sent.update(chunk)
    proc.stdin.close()
    reader.join()
    elapsed = time.perf_counter() - start
    if proc.wait() != 0 or got[0] != size or sent.digest() != received.digest():
        raise SystemExit(f"srun cat lost data: rc={proc.returncode}, {got[0]} of {size} bytes")
    return size / elapsed / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    rates = [one_round(opts.mb << 20) for _ in range(opts.repeat)]
    print(json.dumps({"bench": "srun_stream", "mib_per_round": opts.mb, "rounds": opts.repeat,
                      "mb_per_s_median": round(statistics.median(rates), 1),
                      "mb_per_s_all": [round(r, 1) for r in rates]}))


if __name__ == "__main__":
    main()
