"""pyslurmdbd on MariaDB and PostgreSQL: the daemon, configured with slurmdbd.conf's StorageType/
StorageHost/StoragePort/StorageUser/StoragePass/StorageLoc, creates its schema on the server and
serves sacctmgr and sacct through the auth agent. The servers are the ones .ci/run starts (their
URLs in PYSLURM_TEST_MYSQL_URL / PYSLURM_TEST_PGSQL_URL); only the accounting daemon and the
agent run here."""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.engine import URL, make_url

from pyslurm_common.cluster_files import write_cluster
from pyslurm_dbd.association_models import AssociationRow
from tests.unit.accounting_backends import drop_all_tables, server_url

from .conftest import Cluster, two_node_spec, wait_for

STORAGE_TYPES = {"mysql": "accounting_storage/mysql", "pgsql": "accounting_storage/pgsql"}


def _storage_keys(backend: str, url: URL) -> list[str]:
    return [f"StorageType={STORAGE_TYPES[backend]}", f"StorageHost={url.host}", f"StoragePort={url.port}",
            f"StorageUser={url.username}", f"StoragePass={url.password}", f"StorageLoc={url.database}"]


@pytest.fixture(params=["mysql", "pgsql"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Cluster, str]]:
    text_url = server_url(request.param)
    drop_all_tables(text_url)
    root = Path(tempfile.mkdtemp(prefix="pyslurm-it-", dir="/tmp"))
    os.chmod(root, 0o755)
    spec = two_node_spec(root, f"db{os.getpid()}{request.param}")
    write_cluster(spec)
    dbd_conf = spec.conf_dir / "slurmdbd.conf"
    kept = [line for line in dbd_conf.read_text().splitlines() if not line.startswith(("StorageType", "StorageLoc"))]
    dbd_conf.write_text("\n".join(kept + _storage_keys(request.param, make_url(text_url))) + "\n")
    (root / "work").mkdir(mode=0o755)
    cluster = Cluster(spec=spec, work=root / "work")
    cluster.start("dbd")
    cluster.start("agent")
    try:
        yield cluster, text_url
    finally:
        for name in list(cluster.procs):
            cluster.stop(name)
        shutil.rmtree(root, ignore_errors=True)
        drop_all_tables(text_url)


def test_sacctmgr_and_sacct_work_on_the_database_server(served: tuple[Cluster, str]) -> None:
    cluster, url = served
    wait_for(lambda: cluster.run("sacctmgr", "-n", "show", "cluster").returncode == 0)
    assert cluster.run("sacctmgr", "-i", "add", "account", "physics").returncode == 0
    added = cluster.run("sacctmgr", "-i", "add", "user", "alice", "Account=physics", "MaxJobs=4")
    assert added.returncode == 0, added.stderr
    shown = cluster.run("sacctmgr", "-n", "-P", "show", "assoc", "format=Account,User,MaxJobs,QOS")
    assert shown.stdout.splitlines() == ["root|||normal", "root|root||normal", "physics|||normal",
                                         "physics|alice|4|normal"]
    engine = create_engine(url)
    try:
        with engine.connect() as conn:  # really on the server, not in a SQLite file
            assert conn.scalar(select(func.count()).select_from(AssociationRow)) == 4
    finally:
        engine.dispose()
    assert not (cluster.spec.state_dir / "accounting").exists()
    empty = cluster.run("sacct", "-X", "-n", "-P", "-a")
    assert (empty.returncode, empty.stdout) == (0, "")
