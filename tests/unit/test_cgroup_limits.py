"""Step limits against temporary trees laid out like cgroupfs (pyslurm_d/cgroup_limits.py),
and the BPF device program, run by a tiny interpreter (pyslurm_d/bpf_devices.py)."""
from __future__ import annotations

import errno
import logging
import os
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pyslurm_d import bpf_devices, cgroup_limits
from pyslurm_d.cgroup_limits import (
    CgroupLimitError,
    Device,
    StepLimits,
    Usage,
    attach_device_filter,
    create_step_limits,
    detect_backend,
    format_cpu_list,
    parse_cpu_list,
    v1_own_paths,
)

MiB = 1 << 20
OWN = "4:memory:/process_api/abc\n3:cpuset:/\n2:cpuacct:/\n5:devices:/\n1:cpu:/\n0::/\n"
GPU0, GPU1 = Device("c", 195, 0), Device("c", 195, 1)


@dataclass
class FakeCgroupFs:
    """Kernel behaviour the code relies on: control files may be written (recorded in order),
    ``+ctl`` in subtree_control accumulates and shows up in the children's cgroup.controllers,
    devices.deny and cgroup.procs accumulate, rmdir ignores control files but not sub-cgroups or
    member processes; ``refuse`` makes writes to a path fail with an errno."""

    writes: list[tuple[Path, str]] = field(default_factory=list)
    refuse: dict[Path, int] = field(default_factory=dict)

    def write(self, path: Path, text: str) -> None:
        if path in self.refuse:
            raise CgroupLimitError.of(path, f"cannot write {text!r}", OSError(self.refuse[path], "refused"))
        self.writes.append((path, text))
        if path.name == "cgroup.subtree_control":
            words = {w.lstrip("+") for w in _words(path)} | {w.lstrip("+") for w in text.split()}
            path.write_text(" ".join(sorted(words)))
            for child in (p for p in path.parent.iterdir() if p.is_dir()):
                controllers = child / "cgroup.controllers"
                controllers.write_text(" ".join(sorted(set(_words(controllers)) | words)))
        elif path.name in ("devices.deny", "cgroup.procs"):
            with path.open("a") as f:
                f.write(text + "\n")
        else:
            path.write_text(text)

    def rmdir(self, path: Path) -> None:
        if not path.exists():
            raise FileNotFoundError(errno.ENOENT, "gone", str(path))
        if any(p.is_dir() for p in path.iterdir()) or _words(path / "cgroup.procs"):
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(path))
        for p in path.iterdir():
            p.unlink()
        path.rmdir()

    def written(self, name: str) -> list[tuple[Path, str]]:
        return [(p, t) for p, t in self.writes if p.name == name]


def _words(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


@pytest.fixture()
def fs(monkeypatch: pytest.MonkeyPatch) -> FakeCgroupFs:
    fake = FakeCgroupFs()
    monkeypatch.setattr(cgroup_limits, "_write", fake.write)
    monkeypatch.setattr(cgroup_limits, "_remove_dir", fake.rmdir)
    return fake


# ---- v1 layout ------------------------------------------------------------------------------


@pytest.fixture()
def v1root(tmp_path: Path) -> Path:
    root = tmp_path / "cgfs"
    (root / "memory/process_api/abc").mkdir(parents=True)
    (root / "cpuacct").mkdir()
    (root / "devices").mkdir()
    (root / "cpuset").mkdir()
    (root / "cpuset/cpuset.cpus").write_text("0-7\n")
    (root / "cpuset/cpuset.effective_cpus").write_text("0-7\n")
    (root / "cpuset/cpuset.mems").write_text("0-1\n")
    (root / "cpuset/cpuset.effective_mems").write_text("0-1\n")
    return root


def v1(root: Path, limits: StepLimits, job: int = 7, step: str = "0") -> cgroup_limits.V1StepLimits:
    made = create_step_limits("hybrid", "c_n1", job, step, limits, v2_step_dir=Path("/unused"),
                              cgroup_fs=root, self_cgroup_text=OWN)
    assert isinstance(made, cgroup_limits.V1StepLimits)
    return made


def node(root: Path, controller: str) -> Path:
    own = "process_api/abc/" if controller == "memory" else ""
    return root / controller / f"{own}pyslurm_c_n1"


def test_v1_memory_and_cpuacct_always(fs: FakeCgroupFs, v1root: Path) -> None:
    limits = v1(v1root, StepLimits())
    assert limits.backend == "v1"
    assert set(limits.step_dirs) == {"memory", "cpuacct"}
    assert limits.step_dirs["memory"] == node(v1root, "memory") / "job_7/step_0"
    assert limits.step_dirs["cpuacct"] == v1root / "cpuacct/pyslurm_c_n1/job_7/step_0"
    assert not fs.written("memory.limit_in_bytes")
    # use_hierarchy on every new level, before its children exist
    assert [p.parent for p, t in fs.written("memory.use_hierarchy")] == [
        node(v1root, "memory"), node(v1root, "memory") / "job_7", node(v1root, "memory") / "job_7/step_0"]


def test_v1_memory_limit(fs: FakeCgroupFs, v1root: Path) -> None:
    limits = v1(v1root, StepLimits(memory_bytes=64 * MiB))
    assert fs.written("memory.limit_in_bytes") == [(limits.step_dirs["memory"] / "memory.limit_in_bytes",
                                                    str(64 * MiB))]
    assert not fs.written("memory.memsw.limit_in_bytes")


def test_v1_memsw_when_present_and_asked(fs: FakeCgroupFs, v1root: Path) -> None:
    step = node(v1root, "memory") / "job_7/step_0"
    step.mkdir(parents=True)
    (step / "memory.memsw.limit_in_bytes").write_text("9223372036854771712\n")
    v1(v1root, StepLimits(memory_bytes=64 * MiB, memory_swap_bytes=96 * MiB))
    assert [(p.name, t) for p, t in fs.writes if p.name.startswith("memory.") and "limit" in p.name] == [
        ("memory.limit_in_bytes", str(64 * MiB)), ("memory.memsw.limit_in_bytes", str(96 * MiB))]


def test_v1_memsw_absent_warns(fs: FakeCgroupFs, v1root: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        v1(v1root, StepLimits(memory_bytes=64 * MiB, memory_swap_bytes=96 * MiB))
    assert "swap accounting off" in caplog.text
    assert not fs.written("memory.memsw.limit_in_bytes")


def test_v1_swap_only_limits_ram_too(fs: FakeCgroupFs, v1root: Path) -> None:
    step = node(v1root, "memory") / "job_7/step_0"
    step.mkdir(parents=True)
    (step / "memory.memsw.limit_in_bytes").write_text("max")
    v1(v1root, StepLimits(memory_swap_bytes=80 * MiB))
    assert [t for _, t in fs.written("memory.limit_in_bytes")] == [str(80 * MiB)]
    assert [t for _, t in fs.written("memory.memsw.limit_in_bytes")] == [str(80 * MiB)]


def test_v1_cpuset_copies_mems_and_writes_cpus(fs: FakeCgroupFs, v1root: Path) -> None:
    limits = v1(v1root, StepLimits(cpus=(2, 3, 5)))
    root = node(v1root, "cpuset")
    assert limits.step_dirs["cpuset"] == root / "job_7/step_0"
    assert fs.written("cpuset.mems") == [(root / "cpuset.mems", "0-1"), (root / "job_7/cpuset.mems", "0-1"),
                                         (root / "job_7/step_0/cpuset.mems", "0-1")]
    assert fs.written("cpuset.cpus") == [(root / "cpuset.cpus", "0-7"), (root / "job_7/cpuset.cpus", "2-3,5"),
                                         (root / "job_7/step_0/cpuset.cpus", "2-3,5")]


def test_v1_second_step_grows_the_job_cpuset(fs: FakeCgroupFs, v1root: Path) -> None:
    v1(v1root, StepLimits(cpus=(2,)), step="0")
    fs.writes.clear()
    v1(v1root, StepLimits(cpus=(4,)), step="1")
    root = node(v1root, "cpuset")
    # The node and job levels exist already: only the job union and the new step are written.
    assert fs.written("cpuset.cpus") == [(root / "job_7/cpuset.cpus", "2,4"),
                                         (root / "job_7/step_1/cpuset.cpus", "4")]
    assert fs.written("cpuset.mems") == [(root / "job_7/step_1/cpuset.mems", "0-1")]


def test_v1_cpuset_empty_parent_is_an_error(fs: FakeCgroupFs, v1root: Path) -> None:
    for name in ("cpuset.mems", "cpuset.effective_mems"):
        (v1root / "cpuset" / name).write_text("\n")
    with pytest.raises(CgroupLimitError, match="parent cpuset is empty"):
        v1(v1root, StepLimits(cpus=(1,)))
    # the memory and cpuacct directories made before the failure are gone again
    assert not node(v1root, "memory").exists() and not node(v1root, "cpuacct").exists()


def test_v1_devices_deny_lines(fs: FakeCgroupFs, v1root: Path) -> None:
    limits = v1(v1root, StepLimits(denied_devices=(GPU0, GPU1, Device("b", 8, 16))))
    deny = limits.step_dirs["devices"] / "devices.deny"
    assert fs.written("devices.deny") == [(deny, "c 195:0 rwm"), (deny, "c 195:1 rwm"), (deny, "b 8:16 rwm")]
    assert not fs.written("devices.allow")


def test_v1_join_puts_the_pid_in_every_step_dir(fs: FakeCgroupFs, v1root: Path) -> None:
    limits = v1(v1root, StepLimits(cpus=(0,), denied_devices=(GPU0,)))
    fs.writes.clear()
    limits.join(4242)
    assert len(fs.written("cgroup.procs")) == 4
    assert {t for _, t in fs.written("cgroup.procs")} == {"4242"}
    assert {p.parent for p, _ in fs.written("cgroup.procs")} == set(limits.step_dirs.values())


def test_v1_missing_hierarchy(fs: FakeCgroupFs, v1root: Path) -> None:
    with pytest.raises(CgroupLimitError, match="this process is in no v1 cpuset cgroup"):
        create_step_limits("v1", "c_n1", 7, "0", StepLimits(cpus=(0,)), v2_step_dir=Path("/x"),
                           cgroup_fs=v1root, self_cgroup_text="4:memory:/process_api/abc\n2:cpuacct:/\n")
    (v1root / "cpuacct").rmdir()
    with pytest.raises(CgroupLimitError, match="cgroup v1 hierarchy not found"):
        v1(v1root, StepLimits())


def test_v1_oom_kill_count_since_creation(fs: FakeCgroupFs, v1root: Path) -> None:
    step = node(v1root, "memory") / "job_7/step_0"
    step.mkdir(parents=True)
    (step / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
    limits = v1(v1root, StepLimits(memory_bytes=64 * MiB))
    assert limits.oom_kills() == 0
    (step / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 4\n")
    assert limits.oom_kills() == 3


def test_v1_oom_falls_back_to_failcnt(fs: FakeCgroupFs, v1root: Path) -> None:
    limits = v1(v1root, StepLimits(memory_bytes=64 * MiB))
    step = limits.step_dirs["memory"]
    assert limits.oom_kills() == 0
    (step / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\n")
    (step / "memory.failcnt").write_text("0\n")
    assert limits.oom_kills() == 0
    (step / "memory.failcnt").write_text("12\n")
    assert limits.oom_kills() == 1


def test_v1_usage(fs: FakeCgroupFs, v1root: Path) -> None:
    limits = v1(v1root, StepLimits())
    (limits.step_dirs["memory"] / "memory.max_usage_in_bytes").write_text("123456789\n")
    (limits.step_dirs["cpuacct"] / "cpuacct.stat").write_text("user 250\nsystem 30\n")
    hz = os.sysconf("SC_CLK_TCK")
    assert limits.usage() == Usage(123456789, 250 * 1_000_000 // hz, 30 * 1_000_000 // hz)


def test_v1_usage_of_an_empty_step(fs: FakeCgroupFs, v1root: Path) -> None:
    assert v1(v1root, StepLimits()).usage() == Usage(0, 0, 0)


def test_v1_current_rss_is_memory_usage_in_bytes(fs: FakeCgroupFs, v1root: Path) -> None:
    limits = v1(v1root, StepLimits())
    assert limits.current_rss_bytes() == 0
    (limits.step_dirs["memory"] / "memory.usage_in_bytes").write_text("4096000\n")
    assert limits.current_rss_bytes() == 4096000


def test_v1_remove_everything_and_is_idempotent(fs: FakeCgroupFs, v1root: Path) -> None:
    limits = v1(v1root, StepLimits(memory_bytes=64 * MiB, cpus=(1,), denied_devices=(GPU0,)))
    limits.remove()
    for controller in ("memory", "cpuacct", "cpuset", "devices"):
        assert not node(v1root, controller).exists(), controller
    assert (v1root / "memory/process_api/abc").is_dir()  # never above our own
    limits.remove()


def test_v1_remove_keeps_what_a_sibling_step_uses(fs: FakeCgroupFs, v1root: Path) -> None:
    first = v1(v1root, StepLimits(), step="0")
    v1(v1root, StepLimits(), step="1")
    first.remove()
    assert not first.step_dirs["memory"].exists()
    assert (node(v1root, "memory") / "job_7/step_1").is_dir()


def test_v1_remove_of_a_busy_step_fails_clearly(fs: FakeCgroupFs, v1root: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroup_limits, "_RMDIR_ATTEMPTS", 3)
    limits = v1(v1root, StepLimits())
    limits.join(99)
    with pytest.raises(CgroupLimitError) as info:
        limits.remove()
    assert info.value.errno == errno.EBUSY
    assert "cannot remove cgroup (Device or resource busy)" in str(info.value)
    assert str(info.value).startswith(str(limits.step_dirs["memory"]))


def test_v1_write_errors_carry_path_and_errno_text(fs: FakeCgroupFs, v1root: Path) -> None:
    step = node(v1root, "memory") / "job_7/step_0"
    fs.refuse[step / "memory.limit_in_bytes"] = errno.EINVAL
    with pytest.raises(CgroupLimitError) as info:
        v1(v1root, StepLimits(memory_bytes=64 * MiB))
    assert str(info.value) == f"{step}/memory.limit_in_bytes: cannot write '{64 * MiB}' (Invalid argument)"
    assert not node(v1root, "memory").exists()


@pytest.mark.parametrize("controller", ["memory", "cpuset"])
def test_v1_recreates_a_parent_removed_concurrently(fs: FakeCgroupFs, v1root: Path, controller: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    real_mkdir = cgroup_limits._mkdir
    vanished: list[Path] = []

    def racing_mkdir(path: Path) -> bool:
        if path.name == "job_7" and controller in path.parts and not vanished:
            vanished.append(path)  # another stepd removes the empty node dir just now
            fs.rmdir(path.parent)
        return real_mkdir(path)

    monkeypatch.setattr(cgroup_limits, "_mkdir", racing_mkdir)
    limits = v1(v1root, StepLimits(cpus=(3,)))
    assert vanished and limits.step_dirs[controller].is_dir()
    root = node(v1root, "cpuset")
    for level in (root, root / "job_7", root / "job_7/step_0"):
        assert (level / "cpuset.mems").read_text() == "0-1"
    assert (root / "cpuset.cpus").read_text() == "0-7"
    assert (root / "job_7/step_0/cpuset.cpus").read_text() == "3"


# ---- v2 layout ------------------------------------------------------------------------------


@pytest.fixture()
def v2tree(tmp_path: Path) -> Path:
    """<mount>/agent/pyslurm_c_n1/job_7/step_0/{slurm,user/task_0}, controllers delegated to agent."""
    agent = tmp_path / "unified/agent"
    step = agent / "pyslurm_c_n1/job_7/step_0"
    (step / "slurm").mkdir(parents=True)
    (step / "user/task_0").mkdir(parents=True)
    (agent / "cgroup.subtree_control").write_text("cpuset cpu io memory pids\n")
    (agent / "pyslurm_c_n1/cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (step / "cpuset.mems.effective").write_text("0\n")
    return step


def v2(step: Path, limits: StepLimits) -> cgroup_limits.V2StepLimits:
    made = create_step_limits("v2", "c_n1", 7, "0", limits, v2_step_dir=step)
    assert isinstance(made, cgroup_limits.V2StepLimits)
    return made


def test_v2_enables_controllers_from_the_node_root_to_the_step(fs: FakeCgroupFs, v2tree: Path) -> None:
    limits = v2(v2tree, StepLimits(cpus=(2, 3), memory_bytes=64 * MiB))
    assert limits.backend == "v2"
    root = v2tree.parent.parent
    assert fs.written("cgroup.subtree_control") == [
        (root / "cgroup.subtree_control", "+cpuset +memory +cpu +pids"),
        (root / "job_7/cgroup.subtree_control", "+cpuset +memory +cpu +pids"),
        (v2tree / "cgroup.subtree_control", "+cpuset +memory +cpu +pids")]


def test_v2_limits_go_on_the_user_part(fs: FakeCgroupFs, v2tree: Path) -> None:
    (v2tree / "user/memory.swap.max").write_text("max\n")
    v2(v2tree, StepLimits(cpus=(2, 3), memory_bytes=64 * MiB, memory_swap_bytes=96 * MiB))
    user = v2tree / "user"
    assert [(p, t) for p, t in fs.writes if p.name != "cgroup.subtree_control"] == [
        (user / "cpuset.mems", "0"), (user / "cpuset.cpus", "2-3"),
        (user / "memory.max", str(64 * MiB)), (user / "memory.swap.max", str(32 * MiB))]


def test_v2_only_what_is_asked(fs: FakeCgroupFs, v2tree: Path) -> None:
    v2(v2tree, StepLimits())
    assert all(p.name == "cgroup.subtree_control" for p, _ in fs.writes)
    assert fs.written("cgroup.subtree_control")[0][1] == "+memory +cpu +pids"  # no cpuset


def test_v2_already_enabled_levels_are_not_rewritten(fs: FakeCgroupFs, v2tree: Path) -> None:
    v2(v2tree, StepLimits(memory_bytes=MiB))
    fs.writes.clear()
    v2(v2tree, StepLimits(memory_bytes=MiB))
    assert not fs.written("cgroup.subtree_control")


def test_v2_swap_file_absent_warns(fs: FakeCgroupFs, v2tree: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        v2(v2tree, StepLimits(memory_bytes=64 * MiB, memory_swap_bytes=96 * MiB))
    assert "memory.swap.max is missing" in caplog.text
    assert not fs.written("memory.swap.max")


def test_v2_delegates_required_controllers_from_the_parent(fs: FakeCgroupFs, v2tree: Path) -> None:
    root = v2tree.parent.parent
    (root / "cgroup.controllers").write_text("cpu pids\n")
    (root.parent / "cgroup.subtree_control").write_text("cpu pids\n")
    v2(v2tree, StepLimits(memory_bytes=64 * MiB))
    assert fs.written("cgroup.subtree_control")[0] == (root.parent / "cgroup.subtree_control", "+memory")
    assert (v2tree / "user/memory.max").read_text() == str(64 * MiB)


def test_v2_delegates_the_optional_controllers_from_the_parent_too(fs: FakeCgroupFs, v2tree: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    # systemd's Delegate=yes unit (or scope) has every controller; its subtree_control starts
    # empty, so the node root had memory and cpuset (required, enabled) but not cpu or pids.
    root = v2tree.parent.parent
    (root / "cgroup.controllers").write_text("cpuset memory\n")
    (root.parent / "cgroup.subtree_control").write_text("cpuset memory\n")
    with caplog.at_level(logging.WARNING):
        v2(v2tree, StepLimits(memory_bytes=64 * MiB))
    assert fs.written("cgroup.subtree_control")[0] == (root.parent / "cgroup.subtree_control", "+cpu +pids")
    assert set((root / "cgroup.controllers").read_text().split()) == {"cpu", "cpuset", "memory", "pids"}
    assert "not available" not in caplog.text


def test_v2_required_controller_not_delegated(fs: FakeCgroupFs, v2tree: Path) -> None:
    root = v2tree.parent.parent
    (root / "cgroup.controllers").write_text("cpu pids\n")
    (root.parent / "cgroup.subtree_control").write_text("cpu pids\n")
    fs.refuse[root.parent / "cgroup.subtree_control"] = errno.EBUSY
    with pytest.raises(CgroupLimitError) as info:
        v2(v2tree, StepLimits(cpus=(1,)))
    text = str(info.value)
    assert text.startswith(f"{root}: cgroup controllers cpuset are not available here (not delegated")
    assert "a cgroup with processes cannot enable controllers" in text


def test_v2_optional_controller_missing_warns(fs: FakeCgroupFs, v2tree: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    (v2tree.parent.parent / "cgroup.controllers").write_text("cpuset memory\n")
    with caplog.at_level(logging.WARNING):
        v2(v2tree, StepLimits(memory_bytes=MiB))
    assert "job=7 cgroup controller cpu is not available" in caplog.text
    assert {t for _, t in fs.written("cgroup.subtree_control")} == {"+memory"}


def test_v2_optional_controller_refused_warns(fs: FakeCgroupFs, v2tree: Path,
                                              caplog: pytest.LogCaptureFixture,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    real = fs.write

    def no_cpu(path: Path, text: str) -> None:
        if "+cpu" in text.split():
            raise CgroupLimitError(path, f"cannot write {text!r} (Invalid argument)", errno.EINVAL)
        real(path, text)

    monkeypatch.setattr(cgroup_limits, "_write", no_cpu)
    with caplog.at_level(logging.WARNING):
        v2(v2tree, StepLimits(memory_bytes=MiB))
    assert "cannot write '+cpu'" in caplog.text
    assert (v2tree / "user/memory.max").exists()


def test_v2_required_controller_refused_is_an_error(fs: FakeCgroupFs, v2tree: Path) -> None:
    fs.refuse[v2tree.parent / "cgroup.subtree_control"] = errno.EBUSY
    with pytest.raises(CgroupLimitError, match=r"job_7/cgroup.subtree_control: cannot write '\+memory'.*"
                                               r"a cgroup with processes cannot enable"):
        v2(v2tree, StepLimits(memory_bytes=MiB))


def test_v2_needs_the_tracking_tree_and_the_node_root(fs: FakeCgroupFs, tmp_path: Path) -> None:
    with pytest.raises(CgroupLimitError, match="StepCgroup.create first"):
        v2(tmp_path / "pyslurm_c_n1/job_7/step_0", StepLimits())
    other = tmp_path / "elsewhere/job_7/step_0"
    (other / "user/task_0").mkdir(parents=True)
    with pytest.raises(CgroupLimitError, match="is not below a pyslurm_c_n1 cgroup"):
        v2(other, StepLimits())


def test_v2_join_writes_task_0(fs: FakeCgroupFs, v2tree: Path) -> None:
    limits = v2(v2tree, StepLimits())
    fs.writes.clear()
    limits.join(4242)
    assert fs.writes == [(v2tree / "user/task_0/cgroup.procs", "4242")]


def test_v2_oom_kills_from_memory_events(fs: FakeCgroupFs, v2tree: Path) -> None:
    events = v2tree / "user/memory.events"
    events.write_text("low 0\nhigh 0\nmax 3\noom 2\noom_kill 2\noom_group_kill 0\n")
    limits = v2(v2tree, StepLimits(memory_bytes=MiB))
    assert limits.oom_kills() == 0
    events.write_text("low 0\nhigh 0\nmax 9\noom 5\noom_kill 5\noom_group_kill 0\n")
    assert limits.oom_kills() == 3


def test_v2_usage_from_memory_peak_and_cpu_stat(fs: FakeCgroupFs, v2tree: Path) -> None:
    limits = v2(v2tree, StepLimits())
    user = v2tree / "user"
    (user / "memory.peak").write_text("5000000\n")
    (user / "memory.current").write_text("1000\n")
    (user / "cpu.stat").write_text("usage_usec 1500\nuser_usec 1000\nsystem_usec 500\nnr_periods 0\n")
    assert limits.usage() == Usage(5000000, 1000, 500)
    assert limits.current_rss_bytes() == 1000


def test_v2_usage_samples_memory_current_without_peak(fs: FakeCgroupFs, v2tree: Path) -> None:
    limits = v2(v2tree, StepLimits())
    current = v2tree / "user/memory.current"
    for value in ("1000", "9000", "3000"):
        current.write_text(value + "\n")
        rss = limits.usage().max_rss_bytes
    assert rss == 9000
    current.unlink()
    assert limits.usage() == Usage(9000, 0, 0)


@dataclass
class FakeFilter:
    cgroup_dir: Path
    denied: list[Device]
    closes: int = 0

    def close(self) -> None:
        self.closes += 1


@pytest.fixture()
def filters(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[FakeFilter]]:
    made: list[FakeFilter] = []

    def factory(cgroup_dir: Path, denied: Iterable[Device]) -> FakeFilter:
        made.append(FakeFilter(cgroup_dir, list(denied)))
        return made[-1]

    monkeypatch.setattr(bpf_devices, "LoadedFilter", factory)
    yield made


def test_v2_devices_attach_a_filter_to_user_and_remove_detaches(fs: FakeCgroupFs, v2tree: Path,
                                                                filters: list[FakeFilter]) -> None:
    limits = v2(v2tree, StepLimits(denied_devices=(GPU1,)))
    assert [(f.cgroup_dir, f.denied) for f in filters] == [(v2tree / "user", [GPU1])]
    limits.remove()
    limits.remove()
    assert filters[0].closes >= 1
    assert v2tree.is_dir()  # the directories are StepCgroup's to remove


def test_v2_filter_errors_are_cgroup_limit_errors(fs: FakeCgroupFs, v2tree: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(cgroup_dir: Path, denied: Iterable[Device]) -> None:
        raise bpf_devices.BpfError(errno.EPERM, "bpf(BPF_PROG_LOAD) of the device program: Operation not permitted")

    monkeypatch.setattr(bpf_devices, "LoadedFilter", refuse)
    with pytest.raises(CgroupLimitError) as info:
        v2(v2tree, StepLimits(denied_devices=(GPU0,)))
    assert info.value.errno == errno.EPERM
    assert str(info.value).startswith(f"{v2tree / 'user'}: cannot attach the device filter")


def test_attach_device_filter(filters: list[FakeFilter], tmp_path: Path) -> None:
    close = attach_device_filter(tmp_path, (GPU0,))
    assert [(f.cgroup_dir, f.denied) for f in filters] == [(tmp_path, [GPU0])]
    close()
    assert filters[0].closes == 1
    attach_device_filter(tmp_path, ())()  # nothing to deny: nothing loaded
    assert len(filters) == 1


def test_unknown_backend(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown cgroup backend"):
        create_step_limits("v3", "c_n1", 1, "0", StepLimits(), v2_step_dir=tmp_path)


# ---- pure helpers ----------------------------------------------------------------------------

HYBRID = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
PURE_V2 = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
"""


def test_detect_backend() -> None:
    assert detect_backend(HYBRID) == "hybrid"
    assert detect_backend(PURE_V2) == "v2"
    # a name=systemd v1 mount (containers on v2 hosts) carries no controller
    assert detect_backend(PURE_V2 + "40 31 0:37 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd\n") == "v2"
    with pytest.raises(CgroupLimitError, match="no cgroup v2 and no v1 memory"):
        detect_backend("22 27 0:21 / /proc rw,relatime - proc proc rw\n")


def test_detect_backend_on_this_host() -> None:
    text = Path("/proc/self/mountinfo").read_text()
    if "cgroup" in text:
        assert detect_backend(text) in ("v2", "hybrid")


def test_v1_own_paths() -> None:
    paths = v1_own_paths("12:cpu,cpuacct:/a/b\n4:memory:/process_api/x\n1:name=systemd:/\n0::/v2/path\n")
    assert paths == {"cpu": "/a/b", "cpuacct": "/a/b", "memory": "/process_api/x", "name=systemd": "/"}


@pytest.mark.parametrize(("cpus", "text"), [((0,), "0"), ((0, 1, 2, 5), "0-2,5"), ((7, 3, 4), "3-4,7"),
                                            ((1, 3, 5), "1,3,5")])
def test_cpu_lists(cpus: tuple[int, ...], text: str) -> None:
    assert format_cpu_list(cpus) == text
    assert parse_cpu_list(text + "\n") == frozenset(cpus)


def test_parse_cpu_list_edge_cases() -> None:
    assert parse_cpu_list("\n") == frozenset()
    with pytest.raises(ValueError):
        parse_cpu_list("0-x")


def test_device_of_path(tmp_path: Path) -> None:
    assert Device.of_path("/dev/null") == Device("c", 1, 3)
    assert Device("c", 195, 1).rule == "c 195:1 rwm"
    (tmp_path / "plain").write_text("")
    with pytest.raises(CgroupLimitError, match="not a device node"):
        Device.of_path(str(tmp_path / "plain"))
    with pytest.raises(CgroupLimitError, match=r"cannot stat device \(No such file or directory\)"):
        Device.of_path(str(tmp_path / "absent"))


def test_value_checks() -> None:
    with pytest.raises(ValueError):
        Device("x", 1, 3)
    with pytest.raises(ValueError):
        StepLimits(cpus=())
    with pytest.raises(ValueError):
        StepLimits(memory_bytes=0)


# ---- the BPF program ----------------------------------------------------------------------------


def run_program(code: bytes, kind: int, access: int, major: int, minor: int) -> int:
    """Interpret the few eBPF opcodes device_program uses, on a bpf_cgroup_dev_ctx."""
    ctx = struct.pack("=III", access << 16 | kind, major, minor)
    regs = [0] * 11
    pc = 0
    insns = [struct.unpack("=BBhi", code[i:i + 8]) for i in range(0, len(code), 8)]
    for _ in range(1000):
        op, reg_byte, off, imm = insns[pc]
        dst, src = reg_byte & 0x0F, reg_byte >> 4
        pc += 1
        if op == 0x61:  # ldx w
            assert src == 1, "only ctx loads"
            regs[dst] = struct.unpack_from("=I", ctx, off)[0]
        elif op == 0x57:  # and k
            regs[dst] &= imm
        elif op == 0xB7:  # mov k
            regs[dst] = imm
        elif op == 0x55:  # jne k
            if regs[dst] != imm:
                pc += off
        elif op == 0x95:  # exit
            return regs[0]
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")
    raise AssertionError("program did not exit")


CHAR, BLOCK = bpf_devices.BPF_DEVCG_DEV_CHAR, bpf_devices.BPF_DEVCG_DEV_BLOCK
READ, WRITE, MKNOD = 2, 4, 1


def test_program_denies_listed_devices_only() -> None:
    code = bpf_devices.device_program([GPU0, Device("c", 1, 3), Device("b", 8, 0)])
    assert len(code) == 8 * (4 + 3 * 5 + 2)
    for access in (READ, WRITE, READ | WRITE, MKNOD):
        assert run_program(code, CHAR, access, 195, 0) == 0
        assert run_program(code, CHAR, access, 1, 3) == 0
        assert run_program(code, BLOCK, access, 8, 0) == 0
    assert run_program(code, CHAR, READ, 195, 1) == 1  # the allocated GPU
    assert run_program(code, BLOCK, READ, 195, 0) == 1  # same numbers, other type
    assert run_program(code, CHAR, READ, 8, 0) == 1
    assert run_program(code, CHAR, READ, 1, 5) == 1  # /dev/zero


def test_empty_program_allows_everything() -> None:
    code = bpf_devices.device_program([])
    assert run_program(code, CHAR, READ, 195, 0) == 1


def test_instruction_encoding() -> None:
    assert bpf_devices.load_u32(2, 1, 4) == bytes([0x61, 0x12, 4, 0, 0, 0, 0, 0])
    assert bpf_devices.jump_if_not_equal(3, 195, 3) == bytes([0x55, 0x03, 3, 0, 195, 0, 0, 0])
    assert bpf_devices.mov_imm(0, 1) == bytes([0xB7, 0x00, 0, 0, 1, 0, 0, 0])
    assert bpf_devices.and_imm(2, 0xFFFF) == bytes([0x57, 0x02, 0, 0, 0xFF, 0xFF, 0, 0])
    assert bpf_devices.exit_insn() == bytes([0x95, 0, 0, 0, 0, 0, 0, 0])


def test_program_rejects_bad_devices() -> None:
    with pytest.raises(ValueError):
        bpf_devices.device_program([Device("c", 1 << 31, 0)])


def test_the_node_agents_delegated_cgroup_is_its_own_or_its_leafs_parent() -> None:
    from pyslurm_d.cgroup import delegated_base, find_v2_mount

    assert delegated_base("/system.slice/pyslurmd.service") == "system.slice/pyslurmd.service"
    assert delegated_base("/system.slice/pyslurmd.service/pyslurmd_gpu1") == "system.slice/pyslurmd.service"
    assert delegated_base("/") == ""
    assert find_v2_mount(HYBRID) == Path("/sys/fs/cgroup/unified")
