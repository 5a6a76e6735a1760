"""snakemake with snakemake-executor-plugin-slurm (PyPI) as the ordinary user alice: the plugin
submits each rule with `sbatch --parsable --job-name <run uuid> --output ... --export=ALL
--comment <rule> ...` (after reading `scontrol show config` for MinJobAge), the job runs the rule
through `srun -n1 --cpu-bind=q` and snakemake's jobstep plugin, and the plugin follows the jobs
with `sacct -X --parsable2 --clusters all --noheader --format=JobIdRaw,State ... --name <uuid>`
or `squeue --format=%i|%T --states=all --noheader --name <uuid>`."""
from __future__ import annotations

import pwd
import shutil
from pathlib import Path
from typing import Iterator

import pytest

from .conftest import BIN, Cluster, running_cluster, two_node_spec

pytest.importorskip("snakemake_executor_plugin_slurm")
pytestmark = pytest.mark.real_client

SNAKEFILE = """\
rule all:
    input: "total.txt"

rule count:
    output: "counted/{name}.txt"
    shell: "echo {wildcards.name} $SLURM_JOB_ID > {output}"

rule total:
    input: expand("counted/{name}.txt", name=["a", "b"])
    output: "total.txt"
    shell: "cat {input} | wc -l > {output}"

rule broken:
    output: "broken.txt"
    shell: "exit 3"
"""


@pytest.fixture(scope="module")
def snakemake_cluster() -> Iterator[Cluster]:
    with running_cluster(two_node_spec) as c:
        yield c


def workflow(c: Cluster, name: str) -> Path:
    directory = c.work_dir("alice") / name
    directory.mkdir()
    (directory / "Snakefile").write_text(SNAKEFILE)
    pw = pwd.getpwnam("alice")
    shutil.chown(directory, pw.pw_uid, pw.pw_gid)
    return directory


def snakemake(c: Cluster, directory: Path, status_command: str, *targets: str) -> tuple[int, str]:
    result = c.run(str(BIN / "snakemake"), "--executor", "slurm", "--jobs", "2", "--latency-wait", "5",
                   "--default-resources", "slurm_partition=debug", "mem_mb=400", "runtime=5",
                   "--slurm-init-seconds-before-status-checks", "1", "--slurm-status-command", status_command,
                   *targets, user="alice", cwd=directory, timeout=240)
    return result.returncode, result.stdout + result.stderr


@pytest.mark.parametrize("status_command", ["sacct", "squeue"])
def test_a_two_rule_workflow(snakemake_cluster: Cluster, status_command: str) -> None:
    c = snakemake_cluster
    directory = workflow(c, f"two-rules-{status_command}")
    code, log = snakemake(c, directory, status_command)
    assert code == 0, log
    assert (directory / "total.txt").read_text().strip() == "2"
    jobs = {(directory / "counted" / f"{n}.txt").read_text().split()[1] for n in "ab"}
    assert len(jobs) == 2          # each rule ran in a Slurm job of its own
    for job in jobs:
        # (sacct's Comment stays empty, as in Slurm without AccountingStoreFlags=job_comment)
        fields = c.run("sacct", "-X", "-n", "-P", "-j", job, "-o", "State,User").stdout.split("|")
        assert [fields[0], fields[1].strip()] == ["COMPLETED", "alice"]


def test_a_failing_rule_is_reported_failed(snakemake_cluster: Cluster) -> None:
    c = snakemake_cluster
    directory = workflow(c, "failing")
    code, log = snakemake(c, directory, "sacct", "broken.txt")
    assert code != 0
    assert "Error in rule broken" in log
    assert "FAILED" in log
