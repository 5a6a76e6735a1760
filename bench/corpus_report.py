"""How many real job scripts pyslurm's sbatch parses exactly as real Slurm 22.05's does.

Every script of tests/corpus (public job scripts, sources in tests/corpus/manifest.tsv) goes
through real `sbatch -v` in parse-only mode (a copy of the oracle's slurm.conf whose controller
port nothing listens on: the "defined options" block is printed, then the submission fails) and
through pyslurm's `sbatch -v` (PYSLURM_CONF pointing nowhere: the same block, then the config
read fails). Of the scripts real Slurm parses, the share whose blocks are identical (same
options, same values) is the figure; the differing options are listed by how often they differ.

    python bench/corpus_report.py [--real /usr/bin/sbatch] [--jobs 2] [--show 20] [--record]

--record keeps real Slurm's blocks of a fixed subset (every tenth script) in
tests/corpus/expected.json, which tests/unit/test_corpus_subset.py checks without real Slurm.

Needs real Slurm installed (../shared/slurm-oracle/README.md); its daemons need not run.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
ORACLE_CONF = Path("/work/shared/slurm-oracle/etc/slurm.conf")
EXPECTED = CORPUS / "expected.json"
SUBSET_EVERY = 10   # the recorded subset: every tenth script of the manifest
CWD = "{cwd}"       # the working directory in recorded values
BLOCK = re.compile(r"^sbatch: defined options\n(?:sbatch: -+ -+\n)(.*?)^sbatch: -+ -+\n", re.S | re.M)
LINE = re.compile(r"^sbatch: (\S+)\s*: (.*)$")


def parse_only_conf(directory: Path) -> Path:
    """The oracle's slurm.conf with a dead controller port and an inline node line."""
    text = ORACLE_CONF.read_text()
    text = re.sub(r"(?m)^SlurmctldPort=.*$", "SlurmctldPort=16999", text)
    text = re.sub(r"(?m)^Include .*$", "NodeName=localhost CPUs=2 RealMemory=4000 State=UNKNOWN", text)
    conf = directory / "slurm.conf"
    conf.write_text(text + "\nMessageTimeout=1\n")
    return conf


def defined(stderr: str) -> dict[str, str] | None:
    """The options of the "defined options" block, None when the script was refused."""
    match = BLOCK.search(stderr)
    if match is None:
        return None
    found = {}
    for line in match.group(1).splitlines():
        parsed = LINE.match(line)
        if parsed:
            found[parsed.group(1)] = parsed.group(2)
    return found


def clean_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("SBATCH_", "SLURM_", "PYSLURM_", "SALLOC_"))}


def run_both(script: Path, real: str, conf: Path, work: Path) -> tuple[str, str]:
    env = clean_environment()
    real_run = subprocess.run([real, "-v", str(script)], cwd=work, env=dict(env, SLURM_CONF=str(conf)),
                              capture_output=True, text=True, timeout=60, errors="replace")
    ours_env = dict(env, PYSLURM_CONF=str(work / "no-such.conf"), PYTHONPATH=str(ROOT))
    ours_run = subprocess.run([sys.executable, "-c", "from cli.sbatch import main; main()", "-v", str(script)],
                              cwd=work, env=ours_env, capture_output=True, text=True, timeout=60, errors="replace")
    return real_run.stderr, ours_run.stderr


def first_error(stderr: str) -> str:
    """The first error line, the script's path (which differs) cut out."""
    line = next((line for line in stderr.splitlines() if "error" in line or "fatal" in line
                 or "unrecognized" in line), stderr.splitlines()[0] if stderr else "")
    return re.sub(r"\S*/tests/corpus/scripts/", "", line)


def record(rows: list[dict[str, str]], results: list[tuple[str, str]], work: str) -> None:
    subset = {}
    for index, (row, (real_err, _ours)) in enumerate(zip(rows, results)):
        if index % SUBSET_EVERY == 0:
            real = defined(real_err)
            subset[row["file"]] = None if real is None else {k: v.replace(work, CWD) for k, v in real.items()}
    EXPECTED.write_text(json.dumps(subset, indent=1, sort_keys=True) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", default="/usr/bin/sbatch")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--show", type=int, default=20, help="differing scripts to list")
    parser.add_argument("--record", action="store_true", help=f"write {EXPECTED.relative_to(ROOT)}")
    opts = parser.parse_args()
    with open(CORPUS / "manifest.tsv") as manifest:
        rows = list(csv.DictReader(manifest, delimiter="\t"))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        conf = parse_only_conf(work)
        with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
            results = list(pool.map(lambda row: run_both(CORPUS / "scripts" / row["file"], opts.real, conf, work),
                                    rows))
        if opts.record:
            record(rows, results, str(work))
    parsed_by_slurm = same = refused_alike = refused_by_slurm = same_error = 0
    differing_options: collections.Counter[str] = collections.Counter()
    examples: list[str] = []
    for row, (real_err, ours_err) in zip(rows, results):
        real, ours = defined(real_err), defined(ours_err)
        if real is None:
            refused_by_slurm += 1
            refused_alike += ours is None
            if ours is None and first_error(real_err) == first_error(ours_err):
                same_error += 1
            elif ours is None:
                examples.append(f"{row['file']}: error differs: {first_error(real_err)!r} / {first_error(ours_err)!r}")
            continue
        parsed_by_slurm += 1
        if ours == real:
            same += 1
            continue
        if ours is None:
            differing_options["(refused) " + first_error(ours_err)[:90]] += 1
        else:
            for name in sorted(set(real) | set(ours)):
                if real.get(name) != ours.get(name):
                    differing_options[name] += 1
        examples.append(f"{row['file']} ({row['repository']}:{row['path']})")
    share = 100.0 * same / parsed_by_slurm if parsed_by_slurm else 0.0
    print(f"corpus: {len(rows)} scripts; real Slurm 22.05 parses {parsed_by_slurm}, refuses {refused_by_slurm}")
    print(f"parsed identically (same options, same values): {same}/{parsed_by_slurm} = {share:.1f}%")
    print(f"refused by both: {refused_alike}/{refused_by_slurm}, with the same first error line: {same_error}")
    if differing_options:
        print("differences (option: scripts):")
        for name, count in differing_options.most_common():
            print(f"  {name}: {count}")
    if examples:
        print("first differing scripts:")
        for line in examples[:opts.show]:
            print(f"  {line}")


if __name__ == "__main__":
    main()
