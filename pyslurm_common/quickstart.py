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


def _pid_file(run_dir: Path, daemon: str, node: str) -> Path:
    return run_dir / (f"pyslurmd-{node}.pid" if daemon == "pyslurmd" else f"{daemon}.pid")


def _alive(pid_file: Path) -> int | None:
    try:
        pid = int(pid_file.read_text())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def _node_name() -> str:
    return socket.gethostname().split(".")[0]


def start(conf: Path, run_dir: Path, log_dir: Path, daemons: tuple[str, ...], rest_port: int) -> None:
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, PYSLURM_CONF=str(conf))
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
        launched.append((proc, pid_file))
    _wait_for_pid_files(launched)


def _wait_for_pid_files(launched: list[tuple[subprocess.Popen[bytes], Path]]) -> None:
    """Until each daemon has written its pid file (or died): a quickstart run right after this
    one must find them running, not start second copies that `--stop` would never know of."""
    deadline = time.monotonic() + READY_TIMEOUT
    for proc, pid_file in launched:
        while _alive(pid_file) != proc.pid and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)


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
    node = _node_name()
    for daemon in reversed(DAEMONS):
        pid = _alive(_pid_file(run_dir, daemon, node))
        if pid:
            os.kill(pid, signal.SIGTERM)


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
