"""Record real Slurm 22.05's `sbatch -v` (parse-only) for the #PBS and #BSUB scripts of
tests/data/pbs_directives/cases.json, for tests/unit/test_sbatch_xlate.py.

    python bench/pbs_directives_record.py

Each case is a script's directive lines (after `#!/bin/bash`, before `true`); real sbatch runs
against bench/corpus_report.py's parse-only slurm.conf; its exit status and stderr (without the
plugin-loading and connection lines, which depend on the installation) are written to
tests/data/pbs_directives/oracle.json. Needs real Slurm installed, not its daemons.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_report import parse_only_conf  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "pbs_directives"
NOISE = ("select/", "Unable to contact slurm controller")


def script(lines: list[str]) -> str:
    return "\n".join(["#!/bin/bash", *lines, "true"]) + "\n"


def main() -> None:
    answers = []
    with tempfile.TemporaryDirectory() as work:
        conf = parse_only_conf(Path(work))
        for lines in json.loads((DATA / "cases.json").read_text()):
            (Path(work) / "job.sh").write_text(script(lines))
            real = subprocess.run(["/usr/bin/sbatch", "-v", "job.sh"], cwd=work, capture_output=True, text=True,
                                  env={"SLURM_CONF": str(conf), "PATH": "/usr/bin:/bin"})
            answers.append({"rc": real.returncode, "stderr": [line.replace(work, "{cwd}") for line in real.stderr.splitlines()
                                                              if not any(n in line for n in NOISE)]})
    (DATA / "oracle.json").write_text(json.dumps(answers, indent=1) + "\n")


if __name__ == "__main__":
    main()
