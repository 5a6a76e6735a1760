"""What a dead stepd leaves in the cgroup trees (pyslurm_d/cgroup_sweep.py), on a fake tree: which
step cgroups are stale, and that removing one takes its v2 and v1 directories and empty parents.
Killing real processes in real cgroups: tests/integration/test_node_faults.py.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pyslurm_d import cgroup_limits
from pyslurm_d.cgroup_sweep import CgroupTrees, remove_step, stale_steps, sweep

OWN = "4:memory:/agent\n2:cpuacct:/\n0::/\n"


def _rmdir(path: Path) -> None:
    """rmdir as cgroupfs does it: control files do not count, processes and children do."""
    if not path.exists():
        raise FileNotFoundError(errno.ENOENT, "gone", str(path))
    procs = path / "cgroup.procs"
    if any(p.is_dir() for p in path.iterdir()) or (procs.exists() and procs.read_text().split()):
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(path))
    for p in path.iterdir():
        p.unlink()
    path.rmdir()


@pytest.fixture()
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CgroupTrees:
    monkeypatch.setattr(cgroup_limits, "_remove_dir", _rmdir)
    root = tmp_path / "unified/pyslurm_c_n1"
    return CgroupTrees(root, "hybrid", "c_n1", cgroup_fs=tmp_path, self_cgroup_text=OWN)


def _v2_step(trees: CgroupTrees, job: int, step: str, stepd_pid: int | None = None) -> Path:
    step_dir = trees.root / f"job_{job}/step_{step}"
    for part in ("slurm", "user/task_0"):
        (step_dir / part).mkdir(parents=True)
        (step_dir / part / "cgroup.procs").write_text("")
    if stepd_pid is not None:
        (step_dir / "slurm/cgroup.procs").write_text(f"{stepd_pid}\n")
    return step_dir


def _v1_step(trees: CgroupTrees, controller: str, own: str, job: int, step: str) -> Path:
    step_dir = trees.cgroup_fs / controller / own / f"pyslurm_c_n1/job_{job}/step_{step}"
    step_dir.mkdir(parents=True)
    (step_dir / "cgroup.procs").write_text("")
    return step_dir


def test_a_step_is_stale_unless_a_stepd_sits_in_it_or_was_re_attached(trees: CgroupTrees) -> None:
    _v2_step(trees, 1, "batch", stepd_pid=os.getpid())     # a live stepd in its slurm part
    _v2_step(trees, 2, "batch")                             # re-attached by the agent (cleaning up)
    _v2_step(trees, 3, "batch")                             # its stepd died
    _v2_step(trees, 3, "0")
    _v1_step(trees, "memory", "agent", 4, "batch")          # only v1 directories left
    assert stale_steps(trees, live={(2, "batch")}) == [(3, "0"), (3, "batch"), (4, "batch")]


def test_removing_a_step_takes_its_v2_and_v1_directories_and_empty_parents(trees: CgroupTrees) -> None:
    _v2_step(trees, 3, "batch")
    kept = _v2_step(trees, 3, "0", stepd_pid=os.getpid())
    memory = _v1_step(trees, "memory", "agent", 3, "batch")
    cpuacct = _v1_step(trees, "cpuacct", "", 3, "batch")
    assert sweep(trees, live=set(), timeout=1) == [(3, "batch")]
    assert not (trees.root / "job_3/step_batch").exists() and kept.exists()
    assert not memory.exists() and not memory.parent.exists()          # job_3 in v1 was only this step
    assert not cpuacct.parent.parent.exists()                          # nor its node directory
    (kept / "slurm/cgroup.procs").write_text("")
    remove_step(trees, (3, "0"), timeout=1)
    assert not (trees.root / "job_3").exists()


def test_a_tree_that_does_not_exist_has_nothing_stale(trees: CgroupTrees) -> None:
    assert stale_steps(trees, live=set()) == []
