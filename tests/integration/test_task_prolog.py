"""TaskProlog/TaskEpilog (slurm.conf) and srun --task-prolog/--task-epilog: run as the job's user
around each task, with Slurm's export/unset/print protocol on the prolog's stdout."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterator

import pytest

from pyslurm_common.cluster_files import ClusterSpec

from .conftest import Cluster, running_cluster, two_node_spec, wait_for

CONF_PROLOG = """#!/bin/sh
echo "export FROM_CONF=site-$SLURM_PROCID"
echo "export GONE=no"
echo "print conf prolog ran as $(id -un)"
"""
CONF_EPILOG = """#!/bin/sh
echo "$SLURM_SCRIPT_CONTEXT $SLURM_PROCID $(id -un)" >> "$SLURM_SUBMIT_DIR/epilog.$SLURM_JOB_ID"
"""


def _script(path: Path, text: str) -> str:
    path.write_text(text)
    os.chmod(path, 0o755)
    return str(path)


def _spec(root: Path, name: str) -> ClusterSpec:
    scripts = root / "scripts"
    scripts.mkdir(mode=0o755, parents=True)
    os.chmod(root, 0o755)
    extra = (f"TaskProlog={_script(scripts / 'prolog', CONF_PROLOG)}",
             f"TaskEpilog={_script(scripts / 'epilog', CONF_EPILOG)}")
    return dataclasses.replace(two_node_spec(root, name), extra=extra)


@pytest.fixture(scope="module")
def prolog_cluster() -> Iterator[Cluster]:
    with running_cluster(_spec) as c:
        yield c


def test_prologs_export_unset_and_print_to_the_task(prolog_cluster: Cluster) -> None:
    work = prolog_cluster.work_dir("alice")
    user_prolog = _script(work / "my_prolog", '#!/bin/sh\necho "export MINE=$FROM_CONF"\necho "unset GONE"\n')
    result = prolog_cluster.run("srun", "-N1", "-n2", "-l", f"--task-prolog={user_prolog}", "sh", "-c",
                                'echo "$FROM_CONF ${MINE:-none} ${GONE:-unset}"', user="alice")
    assert result.returncode == 0, result.stderr
    lines = sorted(result.stdout.splitlines())
    assert lines == ["0: conf prolog ran as alice", "0: site-0 site-0 unset",
                     "1: conf prolog ran as alice", "1: site-1 site-1 unset"], result.stdout


def test_epilogs_run_as_the_user_after_each_task(prolog_cluster: Cluster) -> None:
    work = prolog_cluster.work_dir("bob")
    marker = work / "user_epilog.out"
    user_epilog = _script(work / "my_epilog", f'#!/bin/sh\necho "user $SLURM_PROCID" >> {marker}\n')
    job_id = int(prolog_cluster.run("sbatch", "--parsable", "-n2", "-N1", "--wrap",
                                    f"srun --task-epilog={user_epilog} true", user="bob", check=True).stdout)
    prolog_cluster.wait_state(job_id, "COMPLETED")
    conf_out = work / f"epilog.{job_id}"
    wait_for(lambda: conf_out.exists() and len(conf_out.read_text().splitlines()) >= 3)
    assert sorted(conf_out.read_text().splitlines()) == ["epilog_task 0 bob", "epilog_task 0 bob",
                                                          "epilog_task 1 bob"]   # the batch script, tasks 0 and 1
    assert sorted(marker.read_text().splitlines()) == ["user 0", "user 1"]
