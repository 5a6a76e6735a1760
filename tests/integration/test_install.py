"""install.sh as an admin runs it, into temporary locations (PYSLURM_PREFIX, PYSLURM_BIN_DIR,
PYSLURM_UNIT_DIR): a fresh install, a re-run that upgrades in place, and --uninstall, which
removes the installation, its command links and units, and nothing else. The system user slurm
is created when missing (and kept: a re-run or another installation uses it)."""
from __future__ import annotations

import grp
import os
import pwd
import subprocess
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UNITS = ("pyslurmctld", "pyslurmd", "pyslurmdbd", "pyslurmsackd", "pyslurmrestd")


def install(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYSLURM_PREFIX=str(tmp_path / "prefix"), PYSLURM_BIN_DIR=str(tmp_path / "bin"),
               PYSLURM_UNIT_DIR=str(tmp_path / "units"))
    return subprocess.run([str(REPO / "install.sh"), *args], env=env, capture_output=True, text=True, timeout=600)


def test_install_upgrade_and_uninstall(tmp_path: Path) -> None:
    prefix, bin_dir, units = tmp_path / "prefix", tmp_path / "bin", tmp_path / "units"
    first = install(tmp_path, "--no-start")
    assert first.returncode == 0, first.stderr
    assert os.readlink(bin_dir / "sbatch") == f"{prefix}/bin/sbatch"
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert {name for name in scripts if not os.path.islink(bin_dir / name)} == set()   # every command on PATH
    for unit in UNITS:
        text = (units / f"{unit}.service").read_text()
        assert f"ExecStart={prefix}/bin/{unit} -D " in text and "/opt/pyslurm/" not in text
    # SlurmUser of a new configuration: a system account, made when missing (a host that had Debian's
    # slurm-wlm keeps that package's, in Debian's 60000-64999 system range, home /nonexistent)
    slurm = pwd.getpwnam("slurm")
    assert slurm.pw_shell == "/usr/sbin/nologin" and grp.getgrgid(slurm.pw_gid).gr_name == "slurm"
    assert slurm.pw_uid < 1000 or 60000 <= slurm.pw_uid < 65000
    rest = pwd.getpwnam("slurmrestd")  # pyslurmrestd's own account: never root or SlurmUser
    assert rest.pw_uid < 1000 and rest.pw_uid != slurm.pw_uid and rest.pw_shell == "/usr/sbin/nologin"
    assert "User=slurmrestd" in (units / "pyslurmrestd.service").read_text()
    # no setuptools distutils shim run by every command's interpreter (issue 18)
    assert not list(prefix.glob("lib/python3*/site-packages/distutils-precedence.pth"))
    version = subprocess.run([str(bin_dir / "scontrol"), "version"], capture_output=True, text=True)
    assert version.stdout == "slurm 22.05.8\n"

    (bin_dir / "mine").symlink_to("/usr/bin/true")    # someone else's command stays
    again = install(tmp_path, "--no-start")           # an upgrade: same place, same links
    assert again.returncode == 0, again.stderr
    assert subprocess.run([str(prefix / "bin" / "python"), "-c", "import pyslurm_ctld.failover"]).returncode == 0

    removed = install(tmp_path, "--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert "configuration (/etc/pyslurm) and data (/var/lib/pyslurm) are kept" in removed.stdout
    assert not prefix.exists()
    assert sorted(p.name for p in bin_dir.iterdir()) == ["mine"]
    assert list(units.iterdir()) == []
