"""pyslurmctld: load config and key, recover state, serve, run the loops."""
from __future__ import annotations

import asyncio
import logging

from pyslurm_common import sd_notify
from pyslurm_common.auth import Verifier
from pyslurm_common.daemon_runtime import (argument_parser, fatal, load_cluster_identity, run_until_signalled,
                                           setup_logging, write_pid_file)
from pyslurm_common.rpc import ctld_pb2_grpc
from pyslurm_common.rpc_auth import Signer, make_server

from .controller import Controller
from .journal import JournalError
from .servicer import ControllerServicer

log = logging.getLogger(__name__)
PROG = "pyslurmctld"


def main() -> None:
    opts = argument_parser(PROG, "pyslurm controller").parse_args()
    cluster = load_cluster_identity(PROG, opts.conf)
    cfg, key, slurm_uid = cluster.cfg, cluster.key, cluster.slurm_uid
    setup_logging(PROG, cfg.slurmctld_debug, opts.verbose, opts.log_file or cfg.slurmctld_log_file)
    write_pid_file(opts.pid_file or cfg.slurmctld_pid_file)

    async def serve(stop: asyncio.Event) -> None:
        ctl = Controller(cfg, slurm_uid, Signer(key, uid=slurm_uid))
        try:
            ctl.recover()
        except JournalError as exc:
            fatal(PROG, str(exc))
        server = make_server(Verifier(key))
        ctld_pb2_grpc.add_ControllerServicer_to_server(ControllerServicer(ctl), server)
        address = f"0.0.0.0:{cfg.ctld_port}"
        if server.add_insecure_port(address) == 0:
            fatal(PROG, f"cannot listen on {address}")
        await server.start()
        ctl.resend_accounting()
        log.info("listening on %s, cluster %s", address, cfg.cluster_name)
        sd_notify.ready(f"listening on {address}")
        loops = [asyncio.create_task(c) for c in (
            ctl.run_scheduler(stop), ctl.run_periodic(stop), ctl.outbox.run_sender(stop))]
        await stop.wait()
        for task in loops:
            task.cancel()
        await server.stop(grace=1)
        ctl.journal.close()

    run_until_signalled(serve)
