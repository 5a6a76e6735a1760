"""pyslurm-quickstart: a working single-box cluster in one command.

Writes slurm.conf / slurmdbd.conf / slurm.key / jwt_hs256.key for this machine's
hardware (unless a configuration already exists; SlurmUser is the system user
slurm, created when missing), starts the accounting daemon, the controller, the
node agent, the auth agent and the REST API daemon (as the system user
slurmrestd, on the port after the accounting daemon's: 6820) as detached
processes, and waits until the node is idle. `--stop` stops them again.
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import NoReturn

from . import config as config_mod
from . import jwt_tokens
from .agent.client import ConnectError, call
from .cluster_files import ClusterSpec, NodeSpec, write_cluster
from .rpc import ctld_pb2, types_pb2
from .slurm_user import SYSTEM_USER, ensure_system_user, give_to_slurm_user

DAEMONS = ("pyslurmdbd", "pyslurmctld", "pyslurmd", "pyslurmsackd", "pyslurmrestd")
REST_USER = "slurmrestd"      # pyslurmrestd's account: never root or SlurmUser
# The node is usable without accounting (records queue in the controller): start the rest first,
# and the accounting daemon (slow to import SQLAlchemy) once the node is idle.
CORE = ("pyslurmctld", "pyslurmd", "pyslurmsackd")
READY_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0    # then SIGKILL, as systemd's TimeoutStopSec


def _pid_file(run_dir: Path, daemon: str, node: str) -> Path:
    return run_dir / (f"pyslurmd-{node}.pid" if daemon == "pyslurmd" else f"{daemon}.pid")


def _alive(pid_file: Path) -> int | None:
    """The pid in `pid_file` if that process still runs (a zombie no longer does: where nothing
    reaps the daemons, a stopped one lingers as one, and a start must not take it for running)."""
    try:
        pid = int(pid_file.read_text())
    except (OSError, ValueError):
        return None
    return pid if _running(pid) else None


def _node_name() -> str:
    return socket.gethostname().split(".")[0]


def start(conf: Path, run_dir: Path, log_dir: Path, daemons: tuple[str, ...], rest_port: int) -> None:
    """Start `daemons` not running yet and wait until each told READY (sd_notify, as systemd's
    Type=notify: after it listens); one that exits first ends quickstart with its fatal line."""
    bin_dir = Path(sys.executable).parent
    ready = _notify_socket(run_dir)
    env = dict(os.environ, PYSLURM_CONF=str(conf), NOTIFY_SOCKET=ready.getsockname())
    node = _node_name()
    launched: list[tuple[subprocess.Popen[bytes], Path]] = []
    for daemon in daemons:
        pid_file = _pid_file(run_dir, daemon, node)
        if _alive(pid_file):
            continue
        args = [str(bin_dir / daemon), "-f", str(conf), "-P", str(pid_file)]
        if daemon == "pyslurmd":
            args += ["-N", node]
        elif daemon == "pyslurmrestd":
            args += ["-u", REST_USER, f":{rest_port}"]
        log = (log_dir / f"{daemon}.out").open("ab")
        proc = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)
        launched.append((proc, log_dir / f"{daemon}.out"))
    try:
        _wait_until_ready(ready, launched)
    finally:
        os.unlink(ready.getsockname())
        ready.close()


def _notify_socket(run_dir: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
    path = run_dir / f"quickstart-notify-{os.getpid()}"
    path.unlink(missing_ok=True)
    sock.bind(str(path))
    os.chmod(path, 0o666)     # the daemons that drop to SlurmUser tell READY after the drop
    return sock


def _wait_until_ready(ready: socket.socket, launched: list[tuple[subprocess.Popen[bytes], Path]]) -> None:
    """Until every launched daemon sent READY=1 with its MAINPID; one that exits first (it could
    not bind its port, say) or stays silent ends quickstart with a non-zero status and its words."""
    waiting = {proc.pid: (proc, log) for proc, log in launched}
    deadline = time.monotonic() + READY_TIMEOUT
    while waiting:
        for pid, (proc, log) in list(waiting.items()):
            if proc.poll() is not None:
                _fail(f"{Path(proc.args[0]).name} exited with status {proc.returncode}", log)
        if time.monotonic() > deadline:
            names = ", ".join(Path(proc.args[0]).name for proc, _ in waiting.values())
            _fail(f"{names} did not become ready within {READY_TIMEOUT:.0f}s", None)
        ready.settimeout(0.1)
        try:
            message = ready.recv(4096).decode(errors="replace").split("\n")
        except TimeoutError:
            continue
        pids = [line.removeprefix("MAINPID=") for line in message if line.startswith("MAINPID=")]
        if "READY=1" in message and pids and pids[0].isdigit():
            waiting.pop(int(pids[0]), None)


def _fail(what: str, log: Path | None) -> NoReturn:
    """Exit non-zero saying what failed and the daemon's own fatal/error lines, if it wrote any."""
    lines = log.read_text(errors="replace").splitlines() if log is not None and log.exists() else []
    said = [line for line in lines if ": fatal: " in line or ": error: " in line][-3:]
    sys.exit("\n".join([f"pyslurm-quickstart: error: {what}", *said] + ([f"see {log}"] if log else [])))


def wait_idle(cfg: config_mod.SlurmConfig, timeout: float = READY_TIMEOUT) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            nodes = call(str(cfg.auth_socket), "/pyslurm.Controller/GetNodes", types_pb2.Empty(), ctld_pb2.NodeList, 2).nodes
            if nodes and all(n.state == "IDLE" and not n.flags for n in nodes):
                return True
        except (ConnectError, Exception):  # noqa: BLE001 - daemons are still starting
            pass
        time.sleep(0.02)
    return False


def stop(run_dir: Path) -> None:
    """SIGTERM to each daemon, then wait until they are gone (as systemd's stop does), SIGKILL
    to any still there after STOP_TIMEOUT: a start right after must not meet them."""
    node = _node_name()
    pids = [pid for daemon in reversed(DAEMONS) if (pid := _alive(_pid_file(run_dir, daemon, node)))]
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    for sig in (signal.SIGKILL, None):
        deadline = time.monotonic() + STOP_TIMEOUT
        while (left := [pid for pid in pids if _running(pid)]) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not left:
            return
        if sig is not None:
            for pid in left:
                os.kill(pid, sig)
    sys.exit(f"pyslurm-quickstart: error: processes {' '.join(map(str, left))} did not exit")


def _running(pid: int) -> bool:
    """Whether `pid` is still there and not a zombie (a daemon's parent may be gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(prog="pyslurm-quickstart", description=__doc__)
    parser.add_argument("--conf-dir", type=Path, default=Path("/etc/pyslurm"))
    parser.add_argument("--state-dir", type=Path, default=Path("/var/lib/pyslurm"))
    parser.add_argument("--run-dir", type=Path, default=Path("/run/pyslurm"))
    parser.add_argument("--cluster", default=_node_name().lower())
    parser.add_argument("--base-port", type=int, default=6817,
                        help="controller port; node agent, accounting and REST API use the next three")
    parser.add_argument("--no-start", action="store_true", help="only write the configuration")
    parser.add_argument("--stop", action="store_true", help="stop the daemons started by quickstart")
    opts = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("pyslurm-quickstart: error: must run as root (it starts privileged daemons)")
    if opts.stop:
        stop(opts.run_dir)
        return
    try:
        _set_up_and_start(opts)
    except config_mod.ConfigError as exc:
        sys.exit(f"pyslurm-quickstart: error: {exc}")
    except subprocess.CalledProcessError as exc:
        sys.exit(f"pyslurm-quickstart: error: {' '.join(exc.cmd)} failed (exit {exc.returncode})")


def _set_up_and_start(opts: argparse.Namespace) -> None:
    conf = opts.conf_dir / "slurm.conf"
    if not conf.exists():
        from pyslurm_d import hardware  # psutil: only needed when writing a new config

        ensure_system_user(SYSTEM_USER)
        hw = hardware.detect()
        node = NodeSpec(name=_node_name(), cpus=hw.cpus, real_memory_mb=hw.real_memory_mb,
                        gres=hw.gres)
        write_cluster(ClusterSpec(cluster_name=opts.cluster, conf_dir=opts.conf_dir,
                                  state_dir=opts.state_dir, run_dir=opts.run_dir, nodes=(node,),
                                  ctld_port=opts.base_port, slurmd_port=opts.base_port + 1,
                                  dbd_port=opts.base_port + 2, slurm_user=SYSTEM_USER))
        print(f"wrote {conf} for {node.name}: {node.cpus} CPUs, {node.real_memory_mb} MB"
              + (f", {node.gres}" if node.gres else ""))
    else:
        print(f"using existing {conf}")
        jwt_tokens.generate_key(jwt_tokens.key_path(config_mod.load_config(conf)))
        give_to_slurm_user(conf)     # an administrator may have set SlurmUser since
    ensure_system_user(REST_USER)
    cfg = config_mod.load_config(conf)
    if opts.no_start:
        return
    opts.run_dir.mkdir(parents=True, exist_ok=True)
    log_dir = opts.state_dir / "log"
    log_dir.mkdir(parents=True, exist_ok=True)
    rest_port = opts.base_port + 3
    start(conf, opts.run_dir, log_dir, CORE, rest_port)
    idle = wait_idle(cfg)
    start(conf, opts.run_dir, log_dir, tuple(d for d in DAEMONS if d not in CORE), rest_port)
    if not idle:
        sys.exit(f"pyslurm-quickstart: error: the node did not become idle; see {log_dir}")
    print(f"cluster {cfg.cluster_name} is up: try `sinfo` and `sbatch --wrap hostname`"
          + ("" if str(conf) == "/etc/pyslurm/slurm.conf" else f" with PYSLURM_CONF={conf}"))
