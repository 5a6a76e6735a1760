"""The VM tests' inputs, built on the host from Debian's and PyPI's packages and cached.

- The base image: a Debian 12 root file system made by debootstrap (systemd as PID 1, cgroup v2
  only, Debian's cloud kernel, python3 and python3-venv as on a lab box), written into an ext4
  disk image with `mkfs.ext4 -d` (no loop mount), plus the kernel and initrd to boot it with.
  Nothing of pyslurm is in it: install.sh puts pyslurm there in every run. One thing is baked in:
  the test agent (AGENT_UNIT), a unit that mounts the exchange disk the host hands the VM and runs
  the script on it, so the workload can change without a new image.
- The wheelhouse: every wheel `pip install .[test]` needs, downloaded on the host, so the VM needs
  no network (its pip reads them through /etc/pip.conf: no-index, find-links).

Both are cached under PYSLURM_VM_CACHE (default /var/cache/pyslurm-vm), keyed by a hash of what
goes in (this file and the package list; pyproject.toml for the wheels), and built into a temporary
directory renamed into place, so an interrupted build leaves nothing that looks finished.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

SUITE = "bookworm"
MIRROR = os.environ.get("PYSLURM_VM_MIRROR", "http://deb.debian.org/debian")
# What a Debian 12 lab box has that debootstrap's minbase lacks: systemd as init with udev and
# D-Bus, a kernel, the Python the README names, sudo, rsync (README: "Adding a second machine")
# and the tools the workload reads the system with.
# The two-VM test adds ssh (README: `rsync -a head:/etc/pyslurm/ ...`) and NFS (a backup
# controller's shared StateSaveLocation).
PACKAGES = ("systemd", "systemd-sysv", "udev", "dbus", "kmod", "linux-image-cloud-amd64", "python3",
            "python3-venv", "sudo", "rsync", "iproute2", "procps", "psmisc", "openssh-server",
            "openssh-client", "nfs-kernel-server")
IMAGE_SIZE = "6G"   # sparse; the installed venv with the test tools is about 600 MB
CACHE = Path(os.environ.get("PYSLURM_VM_CACHE", "/var/cache/pyslurm-vm"))

AGENT_UNIT = """\
[Unit]
Description=pyslurm VM test agent (runs the script of the exchange disk, then powers off)
After=multi-user.target
ConditionPathExists=/dev/disk/by-label/exchange

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/pyslurm-vm-agent
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
"""

# Mounts the exchange disk and runs its `run` script (a phase of which may reboot the VM: the
# unit runs again after the boot and the script continues from its own state); powers off
# unless the script asked for a reboot.
AGENT_SCRIPT = """\
#!/bin/bash
mkdir -p /mnt/exchange
mountpoint -q /mnt/exchange || mount LABEL=exchange /mnt/exchange
status=0
/mnt/exchange/run || status=$?
[ -e /run/pyslurm-vm-rebooting ] && exit 0
echo "pyslurm-vm-agent: script ended with status $status" > /dev/console
sync
umount /mnt/exchange || true
systemctl --no-block poweroff
"""

# Units a lab box has that only slow a test boot, or write to the disk on their own.
MASKED = ("apt-daily.timer", "apt-daily-upgrade.timer", "e2scrub_all.timer", "fstrim.timer",
          "man-db.timer", "dpkg-db-backup.timer", "systemd-timesyncd.service", "getty@tty1.service",
          "serial-getty@ttyS0.service")


def log(message: str) -> None:
    print(f"tests/vm: {message}", file=sys.stderr, flush=True)


def _key(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:16]


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One build of a cache entry at a time (two runs on one machine wait for each other)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


class Base:
    """The cached base image: `root.img` (raw ext4), `vmlinuz`, `initrd.img`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.disk = path / "root.img"
        self.kernel = path / "vmlinuz"
        self.initrd = path / "initrd.img"


def base_image() -> Base:
    key = _key(Path(__file__).read_bytes(), " ".join((SUITE, MIRROR) + PACKAGES).encode())
    final = CACHE / f"base-{key}"
    with _locked(CACHE / f"base-{key}.lock"):
        if not (final / "root.img").exists():
            started = time.monotonic()
            log(f"building the base image {final.name} (debootstrap {SUITE} from {MIRROR}; minutes)")
            work = Path(str(final) + ".build")
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            _build_base(work)
            shutil.rmtree(final, ignore_errors=True)
            work.rename(final)
            log(f"base image built in {time.monotonic() - started:.0f} s")
    return Base(final)


def _build_base(work: Path) -> None:
    rootfs = work / "rootfs"
    subprocess.run(["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE,
                    str(rootfs), MIRROR], check=True, stdout=subprocess.DEVNULL)
    _configure(rootfs)
    boot = rootfs / "boot"
    shutil.copy(next(boot.glob("vmlinuz-*")), work / "vmlinuz")
    shutil.copy(next(boot.glob("initrd.img-*")), work / "initrd.img")
    subprocess.run(["mkfs.ext4", "-q", "-L", "root", "-d", str(rootfs), str(work / "root.img"), IMAGE_SIZE],
                   check=True)
    shutil.rmtree(rootfs)


def _configure(rootfs: Path) -> None:
    (rootfs / "etc/fstab").write_text("/dev/vda / ext4 rw,errors=remount-ro 0 1\n")
    (rootfs / "etc/hostname").write_text("vm\n")   # each boot names itself (systemd.hostname=)
    # The private link of the two-VM test (vm.py gives these addresses); a lab's DNS or hosts file.
    (rootfs / "etc/hosts").write_text("127.0.0.1 localhost\n192.168.1.10 head\n192.168.1.11 box2\n")
    (rootfs / "etc/systemd/system/pyslurm-vm-agent.service").write_text(AGENT_UNIT)
    agent = rootfs / "usr/local/sbin/pyslurm-vm-agent"
    agent.write_text(AGENT_SCRIPT)
    agent.chmod(0o755)
    wants = rootfs / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    (wants / "pyslurm-vm-agent.service").symlink_to("/etc/systemd/system/pyslurm-vm-agent.service")
    for unit in MASKED:
        link = rootfs / "etc/systemd/system" / unit
        link.unlink(missing_ok=True)
        link.symlink_to("/dev/null")
    # The journal on disk, so the boot before a reboot can be read too.
    (rootfs / "var/log/journal").mkdir(parents=True, exist_ok=True)
    subprocess.run(["chroot", str(rootfs), "passwd", "-d", "root"], check=True, stdout=subprocess.DEVNULL)
    # Root of one VM reaches the other over ssh with a key of the image (both VMs boot it), as an
    # administrator's key would; the host key is the image's too, known under both names.
    ssh = rootfs / "root/.ssh"
    ssh.mkdir(mode=0o700, exist_ok=True)
    subprocess.run(["chroot", str(rootfs), "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vm-test",
                    "-f", "/root/.ssh/id_ed25519"], check=True)
    (ssh / "authorized_keys").write_text((ssh / "id_ed25519.pub").read_text())
    host_key = (rootfs / "etc/ssh/ssh_host_ed25519_key.pub").read_text().split()[:2]
    (ssh / "known_hosts").write_text(f"head,box2,192.168.1.10,192.168.1.11 {' '.join(host_key)}\n")
    shutil.rmtree(rootfs / "var/cache/apt/archives", ignore_errors=True)
    (rootfs / "var/cache/apt/archives/partial").mkdir(parents=True)


def wheelhouse(checkout: Path) -> Path:
    """The wheels of `.[test]` (and pip and setuptools, which install.sh and the build use)."""
    project = (checkout / "pyproject.toml").read_bytes()
    key = _key(project, sys.version.encode())
    final = CACHE / f"wheels-{key}"
    with _locked(CACHE / f"wheels-{key}.lock"):
        if not final.exists():
            started = time.monotonic()
            log(f"downloading the wheelhouse {final.name} for {checkout}[test]")
            work = Path(str(final) + ".build")
            shutil.rmtree(work, ignore_errors=True)
            pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
            subprocess.run(pip + ["download", "-d", str(work), f"{checkout}[test]", "pip", "setuptools"],
                           check=True)
            # A dependency published as source only becomes a wheel here, so the VM builds nothing.
            sdists = sorted(p for p in work.iterdir() if not p.name.endswith(".whl"))
            if sdists:
                subprocess.run(pip + ["wheel", "--no-deps", "-w", str(work)] + [str(p) for p in sdists], check=True)
                for sdist in sdists:
                    sdist.unlink()
            work.rename(final)
            log(f"wheelhouse ready in {time.monotonic() - started:.0f} s")
    return final
