"""Record what real Slurm 22.05 answers to command lines that repeat an option, for
tests/integration/test_repeated_options.py, which asks pyslurm the same.

    . ../shared/slurm-oracle/etc/env.sh && python bench/repeated_options_record.py USER_A USER_B

Two finished jobs (rep_a by USER_A, rep_b by USER_B) for sacct, two held ones of the same
names for squeue and scancel; each command line of the test's SCENARIO (placeholders {A} {B}
for the finished jobs' ids, {HA} {HB} for the held ones', {UA} {UB} for the users) runs as
root, and its exit status, output and first line of errors are written to
tests/data/repeated_options/oracle.json. Only the jobs it made are cancelled.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.integration.repeated_options_scenario import SCENARIO, answer  # noqa: E402

OUT = ROOT / "tests" / "data" / "repeated_options" / "oracle.json"


def submit(user: str, name: str, *extra: str) -> str:
    words = ["sbatch", "--parsable", "-J", name, "-o", "/dev/null", *extra, "--wrap", "true"]
    command = words if user == "root" else ["runuser", "-u", user, "--", *words]
    return subprocess.run(command, check=True, capture_output=True, text=True, cwd="/tmp").stdout.strip()


def main() -> None:
    user_a, user_b = sys.argv[1:3]
    done = {"A": submit(user_a, "rep_a"), "B": submit(user_b, "rep_b")}
    for _ in range(120):   # until both ended and reached accounting
        out = subprocess.run(["sacct", "-n", "-X", "-P", "-o", "jobname,state", "-j", f"{done['A']},{done['B']}"],
                             capture_output=True, text=True).stdout.split()
        if out == ["rep_a|COMPLETED", "rep_b|COMPLETED"]:
            break
        time.sleep(1)
    held = {"HA": submit(user_a, "rep_a", "-H"), "HB": submit(user_b, "rep_b", "-H")}
    node = subprocess.run(["sacct", "-n", "-X", "-P", "-o", "nodelist", "-j", done["A"]], capture_output=True,
                          text=True).stdout.strip()
    names = {**done, **held, "UA": user_a, "UB": user_b, "NODE": node}
    try:
        answers = [answer(step, names, lambda words: subprocess.run(words, capture_output=True, text=True))
                   for step in SCENARIO]
    finally:
        subprocess.run(["scancel", held["HA"], held["HB"]])
    OUT.write_text(json.dumps(answers, indent=1) + "\n")


if __name__ == "__main__":
    main()
