"""pyslurmctld: load config and key, then serve while in charge of the state.

With one SlurmctldHost this daemon is in charge from the start. With several (failover.py),
a backup first stands by; a primary takes the state lock, or asks the controller in charge
to hand over and stands by until it has. In charge: recover the journal, serve, run the loops,
until stopped or asked to hand over (a backup then stands by again, a primary stops).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from pathlib import Path

from pyslurm_common import daemon_log, sd_notify
from pyslurm_common.auth import CONTROLLER
from pyslurm_common.client_settings import controller_role
from pyslurm_common.config import ConfigError, SlurmConfig, load_config
from pyslurm_common.daemon_runtime import (argument_parser, become_slurm_user, fatal, feed_watchdog_while, listen,
                                           handle_reload, load_cluster_identity, reload_logging_on_hangup,
                                           run_until_signalled, wait_first, write_pid_file)
from pyslurm_common.errors import SlurmError
from pyslurm_common.loop_supervisor import LoopDied, LoopSupervisor
from pyslurm_common.rpc import ctld_pb2_grpc
from pyslurm_common.rpc_auth import ServerAuth, Serving, Signer, make_server

from . import failover
from .core import reconfigure
from .shell.controller import Controller
from .shell.journal import JournalError

log = logging.getLogger(__name__)
PROG = "pyslurmctld"


def main() -> None:
    opts = argument_parser(PROG, "pyslurm controller").parse_args()
    cluster = load_cluster_identity(PROG, opts.conf)
    cfg, key, slurm_uid = cluster.cfg, cluster.key, cluster.slurm_uid
    write_pid_file(opts.pid_file or cfg.slurmctld_pid_file)
    log_file = opts.log_file or cfg.slurmctld_log_file
    become_slurm_user(PROG, cluster, [cfg.state_save_location, *([Path(log_file)] if log_file else [])])
    daemon_log.setup_logging(cfg.slurmctld_debug, cfg.slurmctld_log_file, opts.verbose, opts.log_file,
                             opts.foreground)
    try:   # gres.conf and cgroup.conf get the same check at start as on reconfigure
        files = reconfigure.load_checked(cfg.path)
        index = failover.my_index(cfg.controllers, socket.gethostname(), failover.is_local_address)
    except (ConfigError, ValueError) as exc:
        fatal(PROG, str(exc))
    signer = Signer(key, uid=slurm_uid)
    # one audience for the process: standby and in charge share its nonce memory
    server_auth = ServerAuth(key, CONTROLLER, cfg.ctld_port)
    me = cfg.controllers[index].name

    async def serve(stop: asyncio.Event) -> None:
        loops = LoopSupervisor(stop)
        feed_watchdog_while(loops.alive)
        lock = failover.StateLock(cfg.state_save_location)
        peers = failover.Peers(cfg, index, signer)
        in_charge = index == 0 and lock.try_acquire(me)
        if index == 0 and not in_charge:
            log.info("%s holds the state: asking for control back", lock.holder())
            await peers.ask_to_hand_over()
        told_ready = False
        while not stop.is_set():
            if not in_charge:
                reload_logging_on_hangup(lambda: _log_settings(load_config(cfg.path)))
                if not told_ready:
                    sd_notify.ready(f"standby as {controller_role(index, len(cfg.controllers))}")
                    told_ready = True
                in_charge = await failover.stand_by(cfg, peers, lock, server_auth, slurm_uid, stop,
                                                    eager=index == 0)
                if not in_charge:
                    break
            current = _current_files(files)
            handed_over = await serve_in_charge(current, slurm_uid, signer, server_auth, me, stop, loops)
            lock.release()
            in_charge = False
            told_ready = True
            if not handed_over or index == 0:
                break     # stopped; or a primary that handed control to a backup stops, as Slurm's

    run_until_signalled(serve)


def _current_files(known: reconfigure.ConfigFiles) -> reconfigure.ConfigFiles:
    """The configuration files as they are now (a backup may take over long after it started),
    or `known` when they have become invalid meanwhile."""
    try:
        return reconfigure.load_checked(known.slurm.path)
    except ConfigError as exc:
        log.error("keeping the configuration read at start: %s", exc)
        return known


def _log_settings(cfg: SlurmConfig) -> tuple[str, str | None]:
    return cfg.slurmctld_debug, cfg.slurmctld_log_file


async def serve_in_charge(files: reconfigure.ConfigFiles, slurm_uid: int, signer: Signer,
                          server_auth: ServerAuth, me: str, stop: asyncio.Event, loops: LoopSupervisor) -> bool:
    """Recover the journal and serve until `stop` (False) or another controller took the
    state over (True). The caller holds the state lock. A background loop that dies is fatal
    (one line naming it, exit status 1): systemd restarts the controller, the journal has the state."""
    cfg = files.slurm
    ctl = Controller(cfg, slurm_uid, signer, files.cgroup, settings=files.settings)
    ctl.on_reconfigured.append(lambda new: daemon_log.apply(new.slurmctld_debug, new.slurmctld_log_file))
    try:
        ctl.recover()
    except JournalError as exc:
        fatal(PROG, str(exc))
    hand_over = asyncio.Event()
    serving = Serving()
    server = make_server(server_auth, serving)
    ctld_pb2_grpc.add_ControllerServicer_to_server(failover.InChargeServicer(ctl, serving, hand_over, me), server)
    address = listen(PROG, server, cfg.ctld_port)
    await server.start()
    ctl.resend_accounting()
    log.info("listening on %s, cluster %s", address, cfg.cluster_name)

    async def reload_on_hangup() -> None:
        with contextlib.suppress(SlurmError):   # a refusal is logged by reconfigure()
            await ctl.reconfigure()

    handle_reload(reload_on_hangup)
    sd_notify.ready(f"listening on {address}")
    try:
        await loops.run({"scheduler": ctl.run_scheduler(stop), "periodic checks": ctl.run_periodic(stop),
                         "accounting sender": ctl.outbox.run_sender(stop),
                         "association cache": ctl.associations.run(stop), "notifier": ctl.notifier.run(stop)},
                        until=wait_first(stop, hand_over))
    except LoopDied as exc:
        log.critical("%s", exc)
        raise SystemExit(1) from None
    finally:
        await server.stop(grace=1)
        ctl.close()
    return hand_over.is_set()
