"""SlurmUser: the controller and the accounting daemon start as root and drop to it before
serving (as slurmctld and slurmdbd do); the node agent and the auth agent stay root. Jobs still
run and are accounted; the key is SlurmUser's, mode 0600; an unusable setup is a fatal error."""
from __future__ import annotations

import dataclasses
import os
import pwd
import re
import subprocess
from pathlib import Path

from pyslurm_common.cluster_files import ClusterSpec, write_cluster
from pyslurm_common.slurm_user import ensure_system_user, give_to_slurm_user

from .conftest import BIN, Cluster, open_path_to, running_cluster, two_node_spec, wait_for

SLURM_USER = "pyslurmit"   # a dedicated system account, not the machine's own slurm


def slurm_user_spec(root: Path, name: str) -> ClusterSpec:
    return dataclasses.replace(two_node_spec(root, name), slurm_user=SLURM_USER)


def _ids(pid: int, field: str) -> list[int]:
    line = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith(field))
    return [int(value) for value in line.split()[1:]]


def test_controller_and_accounting_daemon_run_as_slurm_user() -> None:
    ensure_system_user(SLURM_USER)
    user = pwd.getpwnam(SLURM_USER)
    with running_cluster(slurm_user_spec) as c:
        for daemon in ("ctld", "dbd"):
            pid = c.procs[daemon].pid
            # The drop comes once the daemon has read its configuration: the accounting daemon may
            # still be importing when the cluster is up.
            wait_for(lambda: _ids(pid, "Uid:") != [0] * 4, timeout=30)
            assert _ids(pid, "Uid:") == [user.pw_uid] * 4, daemon     # real, effective, saved, file system
            assert _ids(pid, "Gid:") == [user.pw_gid] * 4, daemon
            assert _ids(pid, "Groups:") == sorted(os.getgrouplist(SLURM_USER, user.pw_gid)), daemon
        for daemon in ("node1", "agent"):
            assert _ids(c.procs[daemon].pid, "Uid:") == [0] * 4, daemon
        key = c.spec.key_file.stat()
        assert (key.st_uid, key.st_mode & 0o777) == (user.pw_uid, 0o600)
        state = (c.spec.state_dir / "ctld").stat()
        assert (state.st_uid, state.st_mode & 0o777) == (user.pw_uid, 0o700)
        config = c.run("scontrol", "show", "config", check=True).stdout
        assert re.search(rf"^SlurmUser\s+= {SLURM_USER}\({user.pw_uid}\)$", config, re.M), config

        job = c.sbatch("--wrap", "id -un", user="alice")
        wait_for(lambda: _sacct(c, job) == f"{job}|alice|COMPLETED|0:0", timeout=30)
        # what the controller wrote while running as SlurmUser is its own
        assert {p.stat().st_uid for p in (c.spec.state_dir / "ctld").rglob("*")} == {user.pw_uid}
        _only_slurm_user_sets_triggers(c, user)


def _only_slurm_user_sets_triggers(c: Cluster, user: pwd.struct_passwd) -> None:
    """SlurmUser is not root: the controller could not run a program as anyone else, so only
    SlurmUser may set triggers (root too is refused: the oracle, SlurmUser=slurm, printed
    `slurm_set_trigger: Access/permission denied` for root and for benchuser), and its programs
    run as SlurmUser."""
    record = c.work / "trigger-runs"
    record.mkdir(mode=0o777)
    record.chmod(0o777)
    script = c.work / "trigger.sh"
    script.write_text(f'#!/bin/sh\nid -u > {record}/.run && mv {record}/.run {record}/run\n')
    script.chmod(0o755)
    job = c.sbatch("-o", "/dev/null", "--wrap", "sleep 1", user="alice")
    args = ("strigger", "--set", f"--jobid={job}", "--fini", f"--program={script}")
    for who in (None, "alice"):
        refused = c.run(*args, user=who)
        assert (refused.returncode, refused.stderr) == (1, "slurm_set_trigger: Access/permission denied\n")
    c.run(*args, user=SLURM_USER, check=True)
    wait_for(lambda: (record / "run").exists(), timeout=40)
    assert (record / "run").read_text() == f"{user.pw_uid}\n"


def _sacct(c: Cluster, job: int) -> str:
    return c.run("sacct", "-n", "-X", "-P", "-j", str(job), "-o", "JobID,User,State,ExitCode").stdout.strip()


def test_unusable_setups_are_fatal(tmp_path: Path) -> None:
    ensure_system_user(SLURM_USER)
    open_path_to(tmp_path)
    spec = slurm_user_spec(tmp_path, "fatal")
    write_cluster(spec)
    env = {"PATH": "/usr/bin:/bin", "PYSLURM_CONF": str(spec.slurm_conf)}

    def controller(**kw: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "pyslurmctld"), "-D"], env=env, capture_output=True, text=True,
                              timeout=30, **kw)  # type: ignore[call-overload]

    state = spec.state_dir / "ctld"
    os.chown(state, 0, 0)      # left to root: SlurmUser could not save the state
    refused = controller()
    assert (refused.returncode, refused.stderr) == (
        1, f"pyslurmctld: fatal: {state} is not writable by SlurmUser {SLURM_USER}({pwd.getpwnam(SLURM_USER).pw_uid})\n")

    alice = pwd.getpwnam("alice")   # neither root nor SlurmUser: cannot become SlurmUser (nor read its key)
    as_alice = controller(user=alice.pw_uid, group=alice.pw_gid)
    assert as_alice.returncode == 1 and as_alice.stderr.startswith("pyslurmctld: fatal: "), as_alice.stderr


def test_an_existing_installation_is_given_to_slurm_user_only_once_it_names_one(tmp_path: Path) -> None:
    ensure_system_user(SLURM_USER)
    spec = two_node_spec(tmp_path, "upgrade")            # an installation from before: SlurmUser=root
    write_cluster(spec)
    mine = [spec.state_dir / "ctld", spec.state_dir / "accounting", spec.log_dir, spec.key_file,
            spec.conf_dir / "slurmdbd.conf"]
    for directory in mine[:2]:                           # as its root-run daemons left them
        directory.mkdir(exist_ok=True)                   # (write_cluster puts the JWT key in ctld/)
    (spec.state_dir / "ctld" / "journal").write_text("")
    give_to_slurm_user(spec.slurm_conf)                  # what install.sh's quickstart run does
    assert {path.stat().st_uid for path in mine} == {0}

    text = spec.slurm_conf.read_text().replace("SlurmUser=root", f"SlurmUser={SLURM_USER}")
    spec.slurm_conf.write_text(text)                     # the administrator names SlurmUser
    give_to_slurm_user(spec.slurm_conf)
    uid = pwd.getpwnam(SLURM_USER).pw_uid
    assert {path.stat().st_uid for path in [*mine, spec.state_dir / "ctld" / "journal"]} == {uid}
    assert [oct(path.stat().st_mode & 0o777) for path in mine] == ["0o700"] * 3 + ["0o600"] * 2
    assert (spec.state_dir.stat().st_uid, spec.conf_dir.stat().st_uid) == (0, 0)
