"""pyslurmctld: load config and key, recover state, serve, run the loops."""
from __future__ import annotations

import asyncio
import contextlib
import logging

from pyslurm_common import daemon_log, sd_notify
from pyslurm_common.auth import Verifier
from pyslurm_common.daemon_runtime import (argument_parser, fatal, handle_reload, load_cluster_identity,
                                           run_until_signalled, write_pid_file)
from pyslurm_common.config import ConfigError
from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import ctld_pb2_grpc
from pyslurm_common.rpc_auth import Serving, Signer, make_server

from . import reconfigure
from .controller import Controller
from .journal import JournalError
from .servicer import ControllerServicer

log = logging.getLogger(__name__)
PROG = "pyslurmctld"


def main() -> None:
    opts = argument_parser(PROG, "pyslurm controller").parse_args()
    cluster = load_cluster_identity(PROG, opts.conf)
    cfg, key, slurm_uid = cluster.cfg, cluster.key, cluster.slurm_uid
    daemon_log.setup_logging(cfg.slurmctld_debug, cfg.slurmctld_log_file, opts.verbose, opts.log_file)
    write_pid_file(opts.pid_file or cfg.slurmctld_pid_file)
    try:   # gres.conf and cgroup.conf get the same check at start as on reconfigure
        files = reconfigure.load_checked(cfg.path)
    except ConfigError as exc:
        fatal(PROG, str(exc))

    async def serve(stop: asyncio.Event) -> None:
        ctl = Controller(cfg, slurm_uid, Signer(key, uid=slurm_uid), files.cgroup)
        ctl.on_reconfigured.append(lambda new: daemon_log.apply(new.slurmctld_debug, new.slurmctld_log_file))
        try:
            ctl.recover()
        except JournalError as exc:
            fatal(PROG, str(exc))
        serving = Serving()
        server = make_server(Verifier(key), serving)
        ctld_pb2_grpc.add_ControllerServicer_to_server(ControllerServicer(ctl, serving), server)
        address = f"0.0.0.0:{cfg.ctld_port}"
        if server.add_insecure_port(address) == 0:
            fatal(PROG, f"cannot listen on {address}")
        await server.start()
        ctl.resend_accounting()
        log.info("listening on %s, cluster %s", address, cfg.cluster_name)

        async def reload_on_hangup() -> None:
            with contextlib.suppress(SlurmError):   # a refusal is logged by reconfigure()
                await ctl.reconfigure()

        handle_reload(reload_on_hangup)
        sd_notify.ready(f"listening on {address}")
        loops = [asyncio.create_task(c) for c in (
            ctl.run_scheduler(stop), ctl.run_periodic(stop), ctl.outbox.run_sender(stop),
            ctl.associations.run(stop))]
        await stop.wait()
        for task in loops:
            task.cancel()
        await server.stop(grace=1)
        ctl.journal.close()

    run_until_signalled(serve)
