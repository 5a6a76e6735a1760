"""What every pyslurm daemon does the same way at start: arguments, pid file, SlurmUser,
signal handling (SIGTERM/SIGINT stop, SIGHUP reloads, SIGUSR2 reopens the log
file). Each daemon's `main()` is a thin shell over this; logging itself is
daemon_log.py."""
from __future__ import annotations

import argparse
import asyncio
import logging
import os
import pwd
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable, NoReturn

from . import daemon_log, sd_notify

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import grpc

    from .config import SlurmConfig

def argument_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("-f", dest="conf", type=Path, help="slurm.conf to read (default: $PYSLURM_CONF, $SLURM_CONF, /etc/pyslurm/slurm.conf)")
    parser.add_argument("-D", dest="foreground", action="store_true",
                        help="run in the foreground (always true); log lines copied to stderr (the journal under systemd)")
    parser.add_argument("-v", dest="verbose", action="count", default=0, help="more logging")
    parser.add_argument("-L", dest="log_file", help="log to this file instead of stderr")
    parser.add_argument("-P", dest="pid_file", help="write the pid here (overrides the configured pid file)")
    return parser


def write_pid_file(path: str | None) -> None:
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(f"{os.getpid()}\n")


_watchdog_checks: list[Callable[[], bool]] = []


def feed_watchdog_while(check: Callable[[], bool]) -> None:
    """Feed the systemd watchdog only while `check()` holds too (say, all background loops live)."""
    _watchdog_checks.append(check)


def run_until_signalled(serve: Callable[[asyncio.Event], Awaitable[None]]) -> None:
    """Run `serve(stop)` on a fresh event loop; SIGTERM/SIGINT set `stop`.

    `serve` calls `sd_notify.ready()` once it accepts requests; this tells systemd STOPPING
    when asked to stop and keeps a configured watchdog fed while the loop runs and every check
    given to `feed_watchdog_while` holds. SIGUSR2
    reopens the log file (logrotate's postrotate).
    """

    async def feed_watchdog(interval: float) -> None:
        while True:
            if all(check() for check in _watchdog_checks):
                sd_notify.notify("WATCHDOG=1")
            await asyncio.sleep(interval)

    async def runner() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def request_stop() -> None:
            sd_notify.stopping()
            stop.set()

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, request_stop)
        loop.add_signal_handler(signal.SIGUSR2, daemon_log.reopen)
        interval = sd_notify.watchdog_interval()
        watchdog = asyncio.create_task(feed_watchdog(interval)) if interval else None
        try:
            await serve(stop)
        finally:
            if watchdog is not None:
                watchdog.cancel()

    asyncio.run(runner())


async def wait_first(*events: asyncio.Event, timeout: float | None = None) -> None:
    """Wait until one of `events` is set, or `timeout` seconds passed."""
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


def handle_reload(reload: Callable[[], Awaitable[None]]) -> None:
    """SIGHUP (systemd's `ExecReload=/bin/kill -HUP $MAINPID`) runs `reload` on the running loop.

    systemd hears RELOADING=1 before and READY=1 after, whatever the outcome: a refused
    reload keeps the daemon running on its old configuration. `reload` logs its own refusals.
    """
    loop = asyncio.get_running_loop()
    running: set[asyncio.Task[None]] = set()

    async def reload_once() -> None:
        sd_notify.notify("RELOADING=1", f"MONOTONIC_USEC={time.monotonic_ns() // 1000}")
        try:
            await reload()
        finally:
            sd_notify.notify("READY=1")

    def on_hangup() -> None:
        task = loop.create_task(reload_once())
        running.add(task)
        task.add_done_callback(running.discard)

    loop.add_signal_handler(signal.SIGHUP, on_hangup)


def reload_logging_on_hangup(read: Callable[[], tuple[str, str | None]]) -> None:
    """For daemons whose only settings that can change while running are the log level and
    file: SIGHUP re-reads them through `read` (which raises ConfigError for a bad file)."""
    from .conf_syntax import ConfigError

    async def reload() -> None:
        try:
            level, log_file = await asyncio.to_thread(read)
        except ConfigError as exc:
            log.error("reconfigure refused, keeping the running configuration: %s", exc)
            return
        daemon_log.apply(level, log_file)
        log.info("log settings re-read: level %s", level)

    handle_reload(reload)


@dataclass(frozen=True, slots=True)
class ClusterIdentity:
    """What every daemon needs first: the configuration, the cluster key, SlurmUser's uid."""

    cfg: "SlurmConfig"
    key: bytes
    slurm_uid: int


def load_cluster_identity(prog: str, conf: Path | None) -> ClusterIdentity:
    """slurm.conf, the key and SlurmUser, or a `<prog>: fatal: ...` exit naming what is wrong
    (a slurm.conf that is not the host's must name the host-wide settings: shared_defaults.py)."""
    from .auth import AuthError, load_key
    from .config import ConfigError, load_config
    from .shared_defaults import refusal

    try:
        cfg = load_config(conf)
        key = load_key(cfg.key_file)
    except (ConfigError, AuthError) as exc:
        fatal(prog, exc)
    problem = refusal(cfg)    # before anything uses the defaults it names
    if problem:
        fatal(prog, problem)
    try:
        slurm_uid = pwd.getpwnam(cfg.slurm_user).pw_uid
    except KeyError:
        fatal(prog, f"SlurmUser {cfg.slurm_user} does not exist")
    return ClusterIdentity(cfg, key, slurm_uid)


def become_slurm_user(prog: str, cluster: ClusterIdentity, writes: Iterable[Path]) -> None:
    """Run as SlurmUser from here on, as slurmctld and slurmdbd do: started as root (what needed
    root, config, key and pid file, is done), drop to it, supplementary groups first, then the
    group, then the user (after setuid nothing else could change); started as SlurmUser, just
    run; anyone else cannot. Then each place in `writes` (a file, or the directory it would be
    created in) must be writable, or a fatal error says which is not."""
    user, uid = cluster.cfg.slurm_user, cluster.slurm_uid
    if os.geteuid() != uid:
        if os.geteuid() != 0:
            fatal(prog, f"Can not set uid to SlurmUser({uid}): Operation not permitted")
        gid = pwd.getpwuid(uid).pw_gid
        os.initgroups(user, gid)
        os.setgid(gid)
        os.setuid(uid)
    for path in writes:
        if not _writable(path):
            fatal(prog, f"{path} is not writable by SlurmUser {user}({uid})")


def _writable(path: Path) -> bool:
    """Whether this process can write `path`, or create it (and missing parents) if absent."""
    while not os.path.exists(path) and path != path.parent:   # os.path: False, not an error, when unreachable
        path = path.parent
    return os.access(path, os.W_OK | (os.X_OK if os.path.isdir(path) else 0))


def listen(prog: str, server: "grpc.aio.Server", port: int) -> str:
    """Have `server` listen on every address at `port`, or exit with Slurm's one fatal line
    (`Unable to bind listen port (6817): Address already in use`) before anything is served or
    systemd is told READY. The port is tried with a plain socket first: gRPC's own refusal is
    a RuntimeError with no reason, and a log line of its own on stderr."""
    import errno
    import socket

    address = f"0.0.0.0:{port}"
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as gRPC: TIME_WAIT is no obstacle
        try:
            probe.bind(("0.0.0.0", port))
        except OSError as exc:
            fatal(prog, f"Unable to bind listen port ({port}): {os.strerror(exc.errno or errno.EADDRINUSE)}")
    try:
        bound = server.add_insecure_port(address)
    except RuntimeError:
        bound = 0
    if bound == 0:
        fatal(prog, f"Unable to bind listen port ({port}): {os.strerror(errno.EADDRINUSE)}")
    return address


def fatal(prog: str, message: str | Exception) -> NoReturn:
    """`<prog>: fatal: <message>` and exit 1; a slurm.conf refused whole is reported in Slurm's lines."""
    from .client_settings import UnusableConfig

    print(message.report(prog) if isinstance(message, UnusableConfig) else f"{prog}: fatal: {message}",
          file=sys.stderr)
    raise SystemExit(1)
