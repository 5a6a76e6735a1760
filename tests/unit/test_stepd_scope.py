"""The stepds' systemd scope (pyslurm_d/stepd_scope.py): when the agent uses one, where it is,
how the fork server is started into it. The VM test (tests/vm) runs it under a real systemd."""
from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from pyslurm_d.cgroup import CgroupError
from pyslurm_d.stepd_scope import SERVER_LEAF, StepdScope, stepd_scope

MOUNT = Path("/sys/fs/cgroup")


def test_a_service_of_systemd_gets_a_scope_in_its_slice(tmp_path: Path) -> None:
    scope = stepd_scope(MOUNT, "/system.slice/pyslurmd.service", "lab", "gpu1", systemd=tmp_path)
    assert scope == StepdScope(unit="pyslurmstepd_lab_gpu1.scope", slice="system.slice",
                               cgroup=MOUNT / "system.slice/pyslurmstepd_lab_gpu1.scope", mount=MOUNT)


@pytest.mark.parametrize("own", ["/", "/init.scope", "/user.slice/user-0.slice/session-1.scope",
                                 "/system.slice/pyslurmd.service/pyslurmd_gpu1"])
def test_no_scope_outside_a_service(tmp_path: Path, own: str) -> None:
    assert stepd_scope(MOUNT, own, "lab", "gpu1", systemd=tmp_path) is None


def test_no_scope_without_systemd(tmp_path: Path) -> None:
    assert stepd_scope(MOUNT, "/system.slice/pyslurmd.service", "lab", "gpu1", systemd=tmp_path / "none") is None


def test_the_server_starts_in_a_new_scope_through_systemd_run(tmp_path: Path) -> None:
    scope = StepdScope("pyslurmstepd_lab_gpu1.scope", "system.slice", tmp_path / "pyslurmstepd_lab_gpu1.scope", tmp_path)
    argv, creating = scope.command(["python", "-m", "pyslurm_d.stepd_server", "sock"])
    assert creating and argv[:2] == ["systemd-run", "--scope"] and "--unit=pyslurmstepd_lab_gpu1.scope" in argv
    assert "--slice=system.slice" in argv and "Delegate=yes" in argv
    assert argv[argv.index("--") + 1:] == ["python", "-m", "pyslurm_d.stepd_server", "sock"]
    scope.cgroup.mkdir()   # the stepds of running jobs kept it
    assert scope.command(["python"]) == (["python"], False)


def test_an_existing_scope_takes_the_server_into_its_leaf_at_once(tmp_path: Path) -> None:
    scope = StepdScope("s.scope", "system.slice", tmp_path / "s.scope", tmp_path)
    scope.cgroup.mkdir()
    asyncio.run(scope.adopt(os.getpid(), creating=False))
    assert (scope.cgroup / SERVER_LEAF / "cgroup.procs").read_text() == str(os.getpid())


def test_a_server_that_never_reaches_the_new_scope_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pyslurm_d.stepd_scope.ADOPT_TIMEOUT", 0.2)
    scope = StepdScope("s.scope", "system.slice", tmp_path / "s.scope", tmp_path)
    with pytest.raises(CgroupError, match="systemd did not create s.scope"):
        asyncio.run(scope.adopt(os.getpid(), creating=True))


def test_a_systemd_run_that_ended_is_an_error(tmp_path: Path) -> None:
    scope = StepdScope("s.scope", "system.slice", tmp_path / "s.scope", tmp_path)
    child = subprocess.Popen(["true"])
    child.wait()   # reaped: no /proc entry any more
    with pytest.raises(CgroupError, match="ended before creating s.scope"):
        asyncio.run(scope.adopt(child.pid, creating=True))
