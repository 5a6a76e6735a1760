"""Run pyslurm where labs run it: a Debian 12 VM with systemd as PID 1 and pure cgroup v2.

    sudo python3 tests/vm/run.py            # one VM: guest/single.sh
    sudo python3 tests/vm/run.py --pair     # two VMs: guest/head.sh (single.sh's workload, then
                                            # README "Adding a second machine"), guest/box2.sh

Builds (or takes from the cache) the base image and the wheelhouse (image.py), copies this
checkout's files (tracked and untracked, not ignored) onto an exchange disk with the workload,
boots the VMs under qemu (KVM where a probe boot works, else TCG software emulation) on
throw-away overlays of the base image, with no network but the pair's private link, and waits
while the guest's agent installs with the README's command and runs the workload, printing its
progress from the serial console. The
guest's results come back on the exchange disk (read with debugfs, nothing mounted here); on a
failure the guest's journal and console are printed. Exit status 0 only if every step passed;
a machine that cannot build or boot the VM is a failure with the reason, never a skip.
Needs root (debootstrap), qemu-system-x86, qemu-utils, debootstrap and e2fsprogs.
"""
from __future__ import annotations

import argparse
import functools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import image  # noqa: E402  (a script beside this one, not a package)
from image import log  # noqa: E402

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent.parent
TOOLS = ("qemu-system-x86_64", "qemu-img", "debootstrap", "mkfs.ext4", "debugfs")
TIMEOUT = int(os.environ.get("PYSLURM_VM_TIMEOUT", "2400"))   # seconds per VM, boots and reboots included


def die(reason: str) -> None:
    bar = "=" * 78
    print(f"\n{bar}\ntests/vm: THE VM TESTS DID NOT RUN: {reason}\n{bar}\n", file=sys.stderr, flush=True)
    sys.exit(2)


@functools.cache
def accel(kernel: Path) -> list[str]:
    """KVM where a kernel boots on it (to its panic for want of a root disk, then qemu exits),
    else TCG: slow, but it runs the same guest. Nested VMs often have a /dev/kvm that cannot."""
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        try:
            probe = subprocess.run(["qemu-system-x86_64", "-nodefaults", "-accel", "kvm", "-cpu", "host", "-m", "256",
                                    "-display", "none", "-no-reboot", "-kernel", str(kernel), "-append", "panic=-1"],
                                   capture_output=True, timeout=60)
            if probe.returncode == 0:
                return ["-accel", "kvm", "-cpu", "host"]
            log(f"KVM does not work here ({probe.stderr.decode(errors='replace').strip()[-200:]}); using TCG")
        except subprocess.TimeoutExpired:
            log("KVM does not work here (a probe boot did not end); using TCG")
    return ["-accel", "tcg,thread=multi", "-cpu", "max"]


def checkout_tar(dest: Path) -> None:
    """The checkout's files as `git ls-files` lists them (tracked and untracked, not ignored)."""
    files = subprocess.run(["git", "-C", str(CHECKOUT), "ls-files", "-z", "-co", "--exclude-standard"],
                           check=True, capture_output=True).stdout
    existing = b"\0".join(f for f in files.split(b"\0") if f and (CHECKOUT / os.fsdecode(f)).exists())
    subprocess.run(["tar", "-C", str(CHECKOUT), "--null", "-T", "-", "-cf", str(dest)], input=existing, check=True)


def exchange_disk(run_dir: Path, name: str, workload: str, wheels: Path) -> Path:
    """The VM's second disk (label `exchange`): the workload, the checkout, the wheelhouse;
    the guest writes its results to `out/` on it."""
    root = run_dir / f"{name}-exchange"
    shutil.copytree(HERE / "guest", root / "guest")
    shutil.copytree(wheels, root / "wheels")
    checkout_tar(root / "src.tar")
    (root / "run").write_text(f"#!/bin/bash\nexec /mnt/exchange/guest/{workload} \"$@\"\n")
    (root / "run").chmod(0o755)
    (root / "out").mkdir()
    disk = run_dir / f"{name}-exchange.img"
    size_mb = sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) // 2**20 + 1024
    subprocess.run(["mkfs.ext4", "-q", "-L", "exchange", "-d", str(root), str(disk), f"{size_mb}M"], check=True,
                   stdout=subprocess.DEVNULL)
    shutil.rmtree(root)
    return disk


class Vm:
    def __init__(self, run_dir: Path, name: str, base: image.Base, exchange: Path, extra: list[str]) -> None:
        self.name = name
        self.console = run_dir / f"{name}-console.log"
        self.exchange = exchange
        overlay = run_dir / f"{name}-root.qcow2"
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(base.disk), "-F", "raw", str(overlay)],
                       check=True)
        self.argv = ["qemu-system-x86_64", "-nodefaults", "-no-user-config", *accel(base.kernel), "-smp", "2", "-m", "2048",
                     "-display", "none", "-monitor", "none", "-serial", f"file:{self.console}",
                     "-kernel", str(base.kernel), "-initrd", str(base.initrd),
                     "-append", f"root=/dev/vda rw console=ttyS0 mitigations=off systemd.hostname={name}",
                     "-drive", f"file={overlay},if=virtio,format=qcow2",
                     "-drive", f"file={exchange},if=virtio,format=raw", *extra]
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.console.touch()
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL)
        threading.Thread(target=self._follow, daemon=True).start()

    def _follow(self) -> None:
        """The workload's progress lines from the serial console, as they come."""
        with open(self.console, "rb") as console:
            while True:
                line = console.readline()
                if not line:
                    if self.proc is not None and self.proc.poll() is not None:
                        return
                    time.sleep(0.5)
                    continue
                text = line.decode(errors="replace").rstrip()
                if "vmtest:" in text:
                    log(f"[{self.name}] {text[text.index('vmtest:') + 8:]}")

    def wait(self, deadline: float) -> bool:
        assert self.proc is not None
        try:
            self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
            return True
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return False

    def results(self, dest: Path) -> Path:
        out = dest / f"{self.name}-out"
        out.mkdir()
        subprocess.run(["debugfs", "-R", f"rdump /out {out}", str(self.exchange)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return out / "out"


def report(vm: Vm, out: Path, finished: bool) -> bool:
    result = out / "result"
    lines = result.read_text().splitlines() if result.exists() else []
    passed = finished and bool(lines) and not any(line.startswith("FAIL") for line in lines) \
        and (out / "journal.txt").exists()
    for line in lines:
        log(f"[{vm.name}] {line}")
    if not passed:
        why = "did not finish in time" if not finished else "failed" if lines else "reported nothing"
        log(f"[{vm.name}] the workload {why}; guest journal (pyslurm units and the agent, last 150 lines):")
        journal = out / "journal.txt"
        if journal.exists():
            wanted = [line for line in journal.read_text(errors="replace").splitlines()
                      if "pyslurm" in line or "kernel:" in line or "systemd[1]" in line]
            print("\n".join(wanted[-150:]), file=sys.stderr)
        else:
            log(f"[{vm.name}] no journal came back; the serial console's last 80 lines:")
            print("\n".join(vm.console.read_text(errors="replace").splitlines()[-80:]), file=sys.stderr)
        for failed in (line.split()[1] for line in lines if line.startswith("FAIL")):
            step_log = out / "steps" / f"{failed}.log"
            if step_log.exists():
                log(f"[{vm.name}] steps/{failed}.log:")
                print(step_log.read_text(errors="replace")[-4000:], file=sys.stderr)
    return passed


def free_udp_ports(count: int) -> list[int]:
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def machines(run_dir: Path, base: image.Base, wheels: Path, pair: bool) -> list[Vm]:
    """One VM without network; or the head and box2, linked by a private Ethernet made of two
    UDP sockets on this host's loopback (nothing else is reachable from either)."""
    if not pair:
        return [Vm(run_dir, "box1", base, exchange_disk(run_dir, "box1", "single.sh", wheels), ["-nic", "none"])]
    head_port, box2_port = free_udp_ports(2)
    vms = []
    for name, mine, theirs, mac in (("head", head_port, box2_port, "52:54:00:00:01:10"),
                                    ("box2", box2_port, head_port, "52:54:00:00:01:11")):
        link = ["-netdev", f"socket,id=lan,udp=127.0.0.1:{theirs},localaddr=127.0.0.1:{mine}",
                "-device", f"virtio-net-pci,netdev=lan,mac={mac}"]
        vms.append(Vm(run_dir, name, base, exchange_disk(run_dir, name, f"{name}.sh", wheels), link))
    return vms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="keep the run's disks, consoles and results in this directory")
    parser.add_argument("--pair", action="store_true",
                        help="the head and a GPU box (guest/head.sh, box2.sh) instead of one VM (single.sh)")
    opts = parser.parse_args()
    if os.geteuid() != 0:
        die("must run as root (debootstrap)")
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        die(f"missing {', '.join(missing)} (apt-get install qemu-system-x86 qemu-utils debootstrap e2fsprogs)")
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(2) as pool:   # both mostly wait for the network
            base_job = pool.submit(image.base_image)
            wheels_job = pool.submit(image.wheelhouse, CHECKOUT)
            base, wheels = base_job.result(), wheels_job.result()
    except (subprocess.CalledProcessError, OSError) as exc:
        die(f"cannot build the VM's image or wheelhouse: {exc}")
    log(f"image and wheels ready after {time.monotonic() - started:.0f} s")
    run_dir = Path(tempfile.mkdtemp(prefix="pyslurm-vm-", dir="/var/tmp"))
    try:
        vms = machines(run_dir, base, wheels, pair=opts.pair)
        booted = time.monotonic()
        for vm in vms:
            log(f"booting {vm.name} ({' '.join(vm.argv[3:7])}); console in {vm.console}")
            vm.start()
        # The first VM drives the test; the others wait for it, and get a minute to finish after it.
        finished = [vms[0].wait(time.monotonic() + TIMEOUT)]
        finished += [vm.wait(time.monotonic() + 60) for vm in vms[1:]]
        for vm in vms:
            if not vm.console.read_text(errors="replace").strip():
                die(f"qemu printed nothing on {vm.name}'s serial console (exit {vm.proc.returncode if vm.proc else '?'})")
        log(f"the VMs ran {time.monotonic() - booted:.0f} s")
        passed = all([report(vm, vm.results(run_dir), done) for vm, done in zip(vms, finished)])
        if opts.keep:
            shutil.copytree(run_dir, opts.keep, dirs_exist_ok=True)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    log(f"{'PASSED' if passed else 'FAILED'} after {time.monotonic() - started:.0f} s")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
