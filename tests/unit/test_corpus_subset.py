"""A fixed tenth of the job script corpus (tests/corpus) through pyslurm's `sbatch -v`, against
the "defined options" blocks real Slurm 22.05 printed for them (recorded by
bench/corpus_report.py --record): same options, same values; refused where Slurm refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from corpus_report import CORPUS, CWD, EXPECTED, clean_environment, defined  # noqa: E402

SUBSET = json.loads(EXPECTED.read_text())


@pytest.mark.parametrize("name", sorted(SUBSET))
def test_parsed_as_real_slurm_parses_it(name: str, tmp_path: Path) -> None:
    env = dict(clean_environment(), PYSLURM_CONF=str(tmp_path / "none.conf"), PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", "from cli.sbatch import main; main()", "-v",
                             str(CORPUS / "scripts" / name)], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=60)
    ours = defined(result.stderr)
    expected = SUBSET[name]
    if expected is None:
        assert ours is None, result.stderr
    else:
        assert ours is not None, result.stderr
        assert {k: v.replace(str(tmp_path), CWD) for k, v in ours.items()} == expected
