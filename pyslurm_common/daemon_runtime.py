"""What every pyslurm daemon does the same way at start: arguments, logging,
pid file, signal handling. Each daemon's `main()` is a thin shell over this."""
from __future__ import annotations

import argparse
import asyncio
import logging
import os
import pwd
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, NoReturn

from . import sd_notify

if TYPE_CHECKING:
    from .config import SlurmConfig

LEVELS = {
    "quiet": logging.CRITICAL, "fatal": logging.CRITICAL, "error": logging.ERROR,
    "info": logging.INFO, "verbose": logging.INFO, "debug": logging.DEBUG,
    "debug2": logging.DEBUG, "debug3": logging.DEBUG, "debug4": logging.DEBUG, "debug5": logging.DEBUG,
}


def argument_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("-f", dest="conf", type=Path, help="slurm.conf to read (default: $PYSLURM_CONF, $SLURM_CONF, /etc/pyslurm/slurm.conf)")
    parser.add_argument("-D", dest="foreground", action="store_true", help="run in the foreground (always true; kept for Slurm compatibility)")
    parser.add_argument("-v", dest="verbose", action="count", default=0, help="more logging")
    parser.add_argument("-L", dest="log_file", help="log to this file instead of stderr")
    parser.add_argument("-P", dest="pid_file", help="write the pid here (overrides the configured pid file)")
    return parser


def setup_logging(prog: str, level_name: str, verbose: int, log_file: str | None) -> None:
    level = LEVELS.get(level_name.lower(), logging.INFO)
    if verbose:
        level = logging.DEBUG
    handler: logging.Handler
    if log_file:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(log_file)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"[%(asctime)s] {prog}: %(levelname)s: %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def write_pid_file(path: str | None) -> None:
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(f"{os.getpid()}\n")


def run_until_signalled(serve: Callable[[asyncio.Event], Awaitable[None]]) -> None:
    """Run `serve(stop)` on a fresh event loop; SIGTERM/SIGINT set `stop`.

    `serve` calls `sd_notify.ready()` once it accepts requests; this tells systemd STOPPING
    when asked to stop and keeps a configured watchdog fed while the loop runs.
    """

    async def feed_watchdog(interval: float) -> None:
        while True:
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
        interval = sd_notify.watchdog_interval()
        watchdog = asyncio.create_task(feed_watchdog(interval)) if interval else None
        try:
            await serve(stop)
        finally:
            if watchdog is not None:
                watchdog.cancel()

    asyncio.run(runner())


@dataclass(frozen=True, slots=True)
class ClusterIdentity:
    """What every daemon needs first: the configuration, the cluster key, SlurmUser's uid."""

    cfg: "SlurmConfig"
    key: bytes
    slurm_uid: int


def load_cluster_identity(prog: str, conf: Path | None) -> ClusterIdentity:
    """slurm.conf, the key and SlurmUser, or a `<prog>: fatal: ...` exit naming what is wrong."""
    from .auth import AuthError, load_key
    from .config import ConfigError, load_config

    try:
        cfg = load_config(conf)
        key = load_key(cfg.key_file)
    except (ConfigError, AuthError) as exc:
        fatal(prog, str(exc))
    try:
        slurm_uid = pwd.getpwnam(cfg.slurm_user).pw_uid
    except KeyError:
        fatal(prog, f"SlurmUser {cfg.slurm_user} does not exist")
    return ClusterIdentity(cfg, key, slurm_uid)


def fatal(prog: str, message: str) -> NoReturn:
    print(f"{prog}: fatal: {message}", file=sys.stderr)
    raise SystemExit(1)
