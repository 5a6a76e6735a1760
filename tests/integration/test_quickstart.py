"""pyslurm-quickstart: config from detected hardware, daemons started, node idle."""
from __future__ import annotations

import http.client
import os
import pwd
import re
import subprocess
import sys
from pathlib import Path

from pyslurm_common.config import load_config

from .conftest import BIN, free_port, open_path_to, wait_for


def test_quickstart_writes_config_starts_daemons_and_stops_them(tmp_path: Path) -> None:
    open_path_to(tmp_path)             # SlurmUser reaches its state below, as under /var/lib
    base = free_port()
    dirs = ["--conf-dir", str(tmp_path / "etc"), "--state-dir", str(tmp_path / "state"),
            "--run-dir", str(tmp_path / "run"), "--base-port", str(base)]
    env = dict(os.environ, PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    started = subprocess.run([str(BIN / "pyslurm-quickstart"), *dirs], env=env, capture_output=True,
                             text=True, timeout=90)
    try:
        assert started.returncode == 0, started.stderr
        cfg = load_config(tmp_path / "etc" / "slurm.conf")
        assert [n.cpus for n in cfg.nodes] == [len(os.sched_getaffinity(0))]
        # the controller and the accounting daemon run as the system user slurm, which owns the key
        slurm = pwd.getpwnam("slurm")
        assert (cfg.slurm_user, slurm.pw_shell) == ("slurm", "/usr/sbin/nologin")
        key = (tmp_path / "etc" / "slurm.key").stat()
        assert (key.st_uid, key.st_mode & 0o777) == (slurm.pw_uid, 0o600)
        for daemon in ("pyslurmctld", "pyslurmdbd"):
            wait_for(lambda: (tmp_path / "run" / f"{daemon}.pid").exists())
            pid = int((tmp_path / "run" / f"{daemon}.pid").read_text())
            assert os.stat(f"/proc/{pid}").st_uid == slurm.pw_uid, daemon
        # the REST API daemon runs as its own unprivileged account, next to the accounting port
        wait_for(lambda: (tmp_path / "run" / "pyslurmrestd.pid").exists())
        restd_pid = int((tmp_path / "run" / "pyslurmrestd.pid").read_text())
        wait_for(lambda: os.stat(f"/proc/{restd_pid}").st_uid == pwd.getpwnam("slurmrestd").pw_uid)
        assert (tmp_path / "state" / "ctld" / "jwt_hs256.key").stat().st_mode & 0o777 == 0o600
        anonymous = wait_for(lambda: _http_status(base + 3))
        assert anonymous == (500, "Authentication does not apply to request")
        cli_env = dict(env, PYSLURM_CONF=str(cfg.path))
        token = subprocess.run([str(BIN / "scontrol"), "token"], env=cli_env, capture_output=True, text=True)
        assert token.stdout.startswith("SLURM_JWT="), token.stderr
        assert _http_status(base + 3, token.stdout.strip().removeprefix("SLURM_JWT="))[0] == 200
        sinfo = subprocess.run([str(BIN / "sinfo"), "-h", "-o", "%P %a %D %t"], env=cli_env,
                               capture_output=True, text=True)
        assert sinfo.stdout == "debug* up 1 idle\n"
        out = subprocess.run([str(BIN / "sbatch"), "-o", str(tmp_path / "out.txt"), "--wrap", "echo ok"],
                             env=cli_env, capture_output=True, text=True, cwd=tmp_path)
        assert re.fullmatch(r"Submitted batch job \d+\n", out.stdout), out.stderr
        wait_for(lambda: (tmp_path / "out.txt").exists() and (tmp_path / "out.txt").read_text() == "ok\n")
        again = subprocess.run([str(BIN / "pyslurm-quickstart"), *dirs], env=env, capture_output=True,
                               text=True, timeout=60)
        assert again.returncode == 0 and "using existing" in again.stdout
    finally:
        subprocess.run([str(BIN / "pyslurm-quickstart"), "--stop", *dirs], env=env, timeout=30)
    run_dir = tmp_path / "run"
    wait_for(lambda: not any(_alive(p) for p in run_dir.glob("*.pid")), timeout=20)


def _http_status(port: int, token: str = "") -> tuple[int, str] | None:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/slurm/v0.0.44/ping/", headers={"X-SLURM-USER-TOKEN": token} if token else {})
        response = conn.getresponse()
        return response.status, response.read().decode()
    except OSError:
        return None


def _alive(pid_file: Path) -> bool:
    try:
        os.kill(int(pid_file.read_text()), 0)
        return True
    except (OSError, ValueError):
        return False


def _quickstart(tmp_path: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    dirs = ["--conf-dir", str(tmp_path / "etc"), "--state-dir", str(tmp_path / "state"),
            "--run-dir", str(tmp_path / "run")]
    return subprocess.run([str(BIN / "pyslurm-quickstart"), *dirs, *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def _hold_port_as_alice(port: int) -> subprocess.Popen[str]:
    """An ordinary user's plain listener on `port` (what squats a daemon's port while it is down)."""
    alice = pwd.getpwnam("alice")
    code = ("import socket,sys,time; s=socket.socket(); s.bind(('0.0.0.0', int(sys.argv[1]))); s.listen();"
            " print('held', flush=True); time.sleep(600)")
    holder = subprocess.Popen([sys.executable, "-c", code, str(port)], user=alice.pw_uid, group=alice.pw_gid,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_stop_waits_for_the_daemons_and_a_start_right_after_brings_the_cluster_up(tmp_path: Path) -> None:
    open_path_to(tmp_path)             # SlurmUser reaches its state below, as under /var/lib
    base = str(free_port())
    try:
        for _ in range(3):
            started = _quickstart(tmp_path, "--base-port", base)
            assert started.returncode == 0 and "is up" in started.stdout, started.stderr
            pids = [int(p.read_text()) for p in (tmp_path / "run").glob("*.pid")]
            assert _quickstart(tmp_path, "--stop").returncode == 0
            assert not [pid for pid in pids if _running(pid)]   # gone when --stop returns
    finally:
        _quickstart(tmp_path, "--stop")


def test_a_daemon_that_cannot_bind_its_port_fails_in_one_line_and_quickstart_says_so(tmp_path: Path) -> None:
    open_path_to(tmp_path)             # SlurmUser reaches its state below, as under /var/lib
    base = free_port()
    assert _quickstart(tmp_path, "--base-port", str(base), "--no-start").returncode == 0
    cfg = load_config(tmp_path / "etc" / "slurm.conf")
    env = dict(os.environ, PYSLURM_CONF=str(cfg.path))
    ports = {"pyslurmctld": cfg.ctld_port, "pyslurmd": cfg.slurmd_port, "pyslurmdbd": base + 2}
    for daemon, port in ports.items():
        holder = _hold_port_as_alice(port)
        try:
            extra = ["-N", cfg.nodes[0].name] if daemon == "pyslurmd" else []
            run = subprocess.run([str(BIN / daemon), "-f", str(cfg.path), "-P", str(tmp_path / f"{daemon}.pid"), *extra],
                                 env=env, capture_output=True, text=True, timeout=60)
        finally:
            holder.kill()
            holder.wait()
        assert run.returncode == 1, (daemon, run.stderr)
        assert run.stderr.strip().splitlines()[-1] == f"{daemon}: fatal: Unable to bind listen port ({port}): Address already in use"
        assert "Traceback" not in run.stderr, run.stderr
    holder = _hold_port_as_alice(base + 2)       # accounting's port, squatted while it is down
    try:
        started = _quickstart(tmp_path)
        assert started.returncode != 0 and "is up" not in started.stdout, started.stdout
        assert f"pyslurmdbd: fatal: Unable to bind listen port ({base + 2}): Address already in use" in started.stderr
    finally:
        holder.kill()
        holder.wait()
        _quickstart(tmp_path, "--stop")


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False
