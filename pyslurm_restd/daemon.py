"""pyslurmrestd: ``pyslurmrestd [-f slurm.conf] [-a rest_auth/jwt,rest_auth/local] [-u user]
[[host]:port | unix:/path]...`` (default ``:6820``).

Like slurmrestd it never runs as root or SlurmUser (nor with their groups): started as root it
binds its sockets, then becomes ``-u`` (default: the system user ``slurmrestd``). It holds no key;
every call goes through the local auth agent (upstream.py).
"""
from __future__ import annotations

import asyncio
import logging
import os
import pwd
import socket
from pathlib import Path

from aiohttp import web

from pyslurm_common import config as config_mod
from pyslurm_common import sd_notify
from pyslurm_common.daemon_log import setup_logging
from pyslurm_common.daemon_runtime import (argument_parser, fatal, reload_logging_on_hangup, run_until_signalled,
                                           write_pid_file)

from . import bad_requests, openmetrics, status_page
from .app import Settings, build_app
from .listen import ListenAddress, parse_listen
from .request_auth import AuthModes
from .status_page import PageSettings
from .upstream import Upstream

log = logging.getLogger(__name__)
PROG = "pyslurmrestd"
DEFAULT_USER = "slurmrestd"
AUTH_PLUGINS = ("rest_auth/jwt", "rest_auth/local")


def _auth_modes(text: str | None) -> AuthModes:
    if text is None:
        return AuthModes()
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in AUTH_PLUGINS]
    if unknown or not names:
        fatal(PROG, f"Unable to load authentication plugin: {','.join(unknown) or text}")
    return AuthModes(jwt="rest_auth/jwt" in names, local="rest_auth/local" in names)


def _become(user: str) -> None:
    try:
        entry = pwd.getpwnam(user) if not user.isdigit() else pwd.getpwuid(int(user))
    except KeyError:
        fatal(PROG, f"Unable to resolve user {user}")
    os.initgroups(entry.pw_name, entry.pw_gid)
    os.setgid(entry.pw_gid)
    os.setuid(entry.pw_uid)


def _check_user(cfg: config_mod.SlurmConfig) -> None:
    """slurmrestd's rule: never root or SlurmUser, nor their groups."""
    try:
        slurm_user = pwd.getpwnam(cfg.slurm_user)
    except KeyError:
        fatal(PROG, f"SlurmUser {cfg.slurm_user} does not exist")
    if os.getuid() == 0:
        fatal(PROG, "slurmrestd should not be run as the root user.")
    if os.getuid() == slurm_user.pw_uid:
        fatal(PROG, "slurmrestd should not be run as SlurmUser")
    for gid in {os.getgid(), *os.getgroups()}:
        if gid == 0:
            fatal(PROG, "slurmrestd should not be run with the root group.")
        if gid == slurm_user.pw_gid:
            fatal(PROG, "slurmrestd should not be run with SlurmUser's group.")


def _bind(address: ListenAddress, user: str | None) -> socket.socket:
    if address.unix_path is not None:
        path = Path(address.unix_path)
        if path.exists() or path.is_symlink():
            path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(path))
        if user is not None and os.getuid() == 0:
            entry = pwd.getpwnam(user)
            os.chown(path, entry.pw_uid, entry.pw_gid)
        os.chmod(path, 0o600)   # rest_auth/local serves our own user only
    else:
        family = socket.AF_INET6 if address.host and ":" in address.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address.host or ("::" if family == socket.AF_INET6 else "0.0.0.0"), address.port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def main() -> None:
    parser = argument_parser(PROG, "pyslurm REST API daemon (slurmrestd)")
    parser.add_argument("-a", dest="auth", help="rest_auth/jwt,rest_auth/local (default: both)")
    parser.add_argument("-u", dest="user", help=f"user to run as when started as root (default {DEFAULT_USER})")
    parser.add_argument("listen", nargs="*", default=[":6820"], help="[host]:port or unix:/path")
    opts = parser.parse_args()
    try:
        cfg = config_mod.load_config(opts.conf)
        addresses = [parse_listen(text) for text in opts.listen]
    except (config_mod.ConfigError, ValueError) as exc:
        fatal(PROG, exc)
    modes = _auth_modes(opts.auth)
    setup_logging(cfg.slurmctld_debug, None, opts.verbose, opts.log_file)
    bad_requests.install()
    user = opts.user or (DEFAULT_USER if os.getuid() == 0 else None)
    try:
        sockets = [_bind(a, user) for a in addresses]
    except OSError as exc:
        fatal(PROG, f"unable to listen: {exc.strerror}")
    write_pid_file(opts.pid_file)
    if os.getuid() == 0 and user is not None:
        _become(user)
    _check_user(cfg)
    settings = Settings(cluster=cfg.cluster_name, controllers=tuple(c.name for c in cfg.controllers),
                        accounting_host=cfg.accounting_storage_host or "", auth=modes)

    upstream = Upstream(str(cfg.auth_socket))
    metrics_on = (cfg.value("MetricsType") or "").lower() == "metrics/openmetrics"
    own_user = pwd.getpwuid(os.getuid()).pw_name

    page = PageSettings(cluster=cfg.cluster_name, own_user=own_user, private_data=cfg.value("PrivateData") or "",
                        privileged_users=frozenset({"root", cfg.slurm_user}))

    def extra_routes(app: web.Application) -> None:
        status_page.add_routes(app, upstream, page)
        if metrics_on:
            openmetrics.add_routes(app, upstream, own_user, modes)

    async def serve(stop: asyncio.Event) -> None:
        app = build_app(settings, upstream, extra_routes)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        for sock in sockets:
            await web.SockSite(runner, sock).start()
        log.info("listening on %s", " ".join(opts.listen))
        reload_logging_on_hangup(lambda: (config_mod.load_config(cfg.path).slurmctld_debug, None))
        sd_notify.ready(f"listening on {' '.join(opts.listen)}")
        await stop.wait()
        await runner.cleanup()

    run_until_signalled(serve)
