"""pyslurmdbd: the accounting daemon (slurmdbd.conf beside slurm.conf)."""
from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from pyslurm_common import config as config_mod
from pyslurm_common import sd_notify
from pyslurm_common.auth import ACCOUNTING
from pyslurm_common.daemon_log import setup_logging
from pyslurm_common.daemon_runtime import (argument_parser, become_slurm_user, fatal, listen, load_cluster_identity,
                                           reload_logging_on_hangup, run_until_signalled, wait_first,
                                           write_pid_file)
from pyslurm_common.rpc import dbd_pb2_grpc
from pyslurm_common.call_stats import Serving
from pyslurm_common.rpc_auth import ServerAuth, make_server
from pyslurm_common.slurm_user import sqlite_file

from .daemon_stats import INTERNAL
from .servicer import AccountingServicer
from .settings import tres_table
from .store import AccountingStore
from .usage_reports import UsageReports

log = logging.getLogger(__name__)
PROG = "pyslurmdbd"
ROLLUP_INTERVAL = 300.0     # seconds between roll-ups of the hourly usage


def main() -> None:
    opts = argument_parser(PROG, "pyslurm accounting daemon").parse_args()
    cluster = load_cluster_identity(PROG, opts.conf)
    cfg, key, slurm_uid = cluster.cfg, cluster.key, cluster.slurm_uid
    try:
        dbd = config_mod.load_dbd_config(cfg.path.parent / "slurmdbd.conf")
    except config_mod.ConfigError as exc:
        fatal(PROG, str(exc))
    write_pid_file(opts.pid_file or dbd.pid_file)
    log_file = opts.log_file or dbd.log_file
    database = sqlite_file(dbd)
    # SQLite writes its journal beside the database: the directory must be writable
    become_slurm_user(PROG, cluster, [p for p in (database and database.parent, log_file and Path(log_file)) if p])
    setup_logging(dbd.debug, dbd.log_file, opts.verbose, opts.log_file, opts.foreground)

    def read_log_settings() -> tuple[str, str | None]:
        new = config_mod.load_dbd_config(dbd.path)
        return new.debug, new.log_file

    async def serve(stop: asyncio.Event) -> None:
        store = AccountingStore(dbd.storage_url)
        await asyncio.to_thread(store.create_schema)
        serving = Serving()
        servicer = AccountingServicer(store, {0, slurm_uid}, cfg.private_data,
                                      tres_table(cfg.value("AccountingStorageTRES") or ""), serving)
        if await asyncio.to_thread(servicer.admin.ensure_cluster, cfg.cluster_name):
            log.info("cluster %s added to accounting", cfg.cluster_name)
        server = make_server(ServerAuth(key, ACCOUNTING, dbd.dbd_port), serving)
        dbd_pb2_grpc.add_AccountingServicer_to_server(servicer, server)
        address = listen(PROG, server, dbd.dbd_port)
        await server.start()
        log.info("listening on %s, storage %s", address, dbd.storage_url.split("@")[-1])
        reload_logging_on_hangup(read_log_settings)
        sd_notify.ready(f"listening on {address}")
        await roll_up_periodically(servicer.usage, stop)
        await server.stop(grace=1)
        store.close()

    run_until_signalled(serve)


async def roll_up_periodically(usage: UsageReports, stop: asyncio.Event) -> None:
    """Keep the hourly usage rollups current (sreport also brings them up to date when it asks)."""
    while not stop.is_set():
        try:
            hours = await asyncio.to_thread(usage.roll_up, int(time.time()), INTERNAL)
            log.debug("usage rolled up: %d hour(s)", hours)
        except SQLAlchemyError as exc:
            log.error("usage roll-up failed, retrying later: %s", exc)
        await wait_first(stop, timeout=ROLLUP_INTERVAL)
