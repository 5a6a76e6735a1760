"""Record how real Slurm 22.05 prints `-o` formats with unknown letters, `%%` and stray `%`
(squeue, squeue -s, sinfo, sprio: its header line; no job is pending in sprio's listing).

Run with the oracle cluster up (../shared/slurm-oracle/README.md) and its env.sh sourced:
    python3 tests/data/slurm_formats/record.py > tests/data/slurm_formats/percent_formats.json
Each entry: the command, the format, the header line real Slurm prints and its stderr.
"""
from __future__ import annotations

import json
import subprocess

FORMATS = {
    "squeue": ["%i %y %K %w %Z %. %% x", "%i %5y|%-4w|%", "%i%%x", "%i%%%y", "abc%i", "%i%", "%i %", "%.10%",
               "%i|%-4j|", "%i %#y", "%i %05y|", "%i %.y", "%0i|%i"],
    "squeue -s": ["%i %y|%.3z", "%i|%-5N"],
    "sinfo": ["%P %y %w %5q|%", "%P%%y", "%P%%%D", "abc%P", "%P%", "%.10%", "%P|%-4D|", "%#P|%D", "%.#P|", "%5y",
              "%P %.y"],
    "sprio": ["%i %z|%Y %.5%", "%i|%-4Y|", "%Z", "%i%%Y"],
}


def main() -> None:
    records = []
    for command, formats in FORMATS.items():
        for fmt in formats:
            done = subprocess.run([*command.split(), "-o", fmt], capture_output=True, text=True, timeout=30)
            records.append({"command": command, "format": fmt, "header": done.stdout.split("\n")[0],
                            "stderr": done.stderr, "exit": done.returncode})
    print(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
