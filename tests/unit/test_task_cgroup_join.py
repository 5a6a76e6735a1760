"""A forked task's cgroup moves (task_exec.join_task_cgroups): into its own leaf of the step's
tracking tree, plus the step of every v1 limit hierarchy; on v2 that one leaf, below the limits
on <step>/user, is the only move."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from pyslurm_d.cgroup import StepCgroup
from pyslurm_d.task_exec import join_task_cgroups


class RecordingLimits:
    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.joined: list[int] = []

    def join(self, pid: int) -> None:
        self.joined.append(pid)


@pytest.mark.parametrize("backend, limit_joins", [("v2", []), ("v1", [os.getpid()])])
def test_a_task_moves_into_its_own_leaf_and_only_v1_limits_need_another_move(
        tmp_path: Path, backend: str, limit_joins: list[int]) -> None:
    cg = StepCgroup(tmp_path, 7, "0")
    cg.create(3)
    limits = RecordingLimits(backend)
    join_task_cgroups(cg, limits, 2)  # type: ignore[arg-type]
    assert (cg.task_dir(2) / "cgroup.procs").read_text() == str(os.getpid())
    assert not (cg.task_dir(0) / "cgroup.procs").exists()
    assert limits.joined == limit_joins
