"""#PBS and #BSUB directives, translated as Slurm 22.05's sbatch translates them (cli/sbatch_xlate.py):
each script of tests/data/pbs_directives/cases.json through pyslurm's `sbatch -v` against what real
sbatch printed for it (oracle.json, recorded by bench/pbs_directives_record.py): the same "defined
options" block, the same refusals and exit status."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "pbs_directives"
CASES = json.loads((DATA / "cases.json").read_text())
ORACLE = json.loads((DATA / "oracle.json").read_text())
sys.path.insert(0, str(ROOT / "bench"))
from pbs_directives_record import script  # noqa: E402


@pytest.mark.parametrize("index", range(len(CASES)), ids=[" / ".join(lines) for lines in CASES])
def test_directives_translated_as_real_sbatch(index: int, tmp_path: Path) -> None:
    (tmp_path / "job.sh").write_text(script(CASES[index]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SBATCH_", "SLURM_", "PYSLURM_"))}
    ours = subprocess.run([sys.executable, "-c", "from cli.sbatch import main; main()", "-v", "job.sh"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env=dict(env, PYSLURM_CONF=str(tmp_path / "none.conf"), PYTHONPATH=str(ROOT)))
    stderr = [line.replace(str(tmp_path), "{cwd}") for line in ours.stderr.splitlines()
              if "none.conf" not in line]   # the config read, after the block
    assert {"rc": ours.returncode, "stderr": stderr} == ORACLE[index]


def test_the_translation_comes_after_the_sbatch_directives_and_under_the_command_line() -> None:
    from cli.command_line import collect, command_line
    from cli.option_tables import sbatch
    from cli.sbatch_xlate import translated_directives

    text = "#!/bin/sh\n#SBATCH -J sb --export=B=2\n#PBS -N pbs -l nodes=2:ppn=3 -v A=1\ntrue\n"
    options = translated_directives(text, "job.sh", {"job_name": "sb", "export": "B=2"})
    assert options == [("job_name", "pbs"), ("nodes", "2"), ("ntasks", "6"), ("export", "B=2,A=1")]
    values = collect(sbatch, command_line(sbatch, ["-N", "1", "job.sh"]), {}, [("job_name", "sb"), *options])
    assert (values["job_name"], values["nodes"], values["ntasks"]) == ("pbs", "1", "6")
    assert translated_directives("#!/bin/sh\n#SBATCH -J x\ntrue\n", "job.sh", {}) == []
