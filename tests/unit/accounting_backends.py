"""The accounting databases the store tests run against: SQLite, MariaDB and PostgreSQL.

``accounting_url`` is parametrized over the three backends. SQLite is a fresh file per test;
the servers are named by ``PYSLURM_TEST_MYSQL_URL`` and ``PYSLURM_TEST_PGSQL_URL`` (``.ci/run``
starts them and exports both) and are emptied before each test. Outside CI a backend whose URL
is not set is skipped; with ``CI`` set, a missing URL fails the test instead, so CI can never
pass without exercising all three.

``store`` is an ``AccountingStore`` on each of them with its schema created.
``tests/unit/conftest.py`` makes both fixtures available to every unit test module.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import MetaData, create_engine

from pyslurm_dbd.store import AccountingStore

SERVER_URL_VARIABLES = {"mysql": "PYSLURM_TEST_MYSQL_URL", "pgsql": "PYSLURM_TEST_PGSQL_URL"}


def drop_all_tables(url: str) -> None:
    """Empty a test database: drop every table in it (whatever version created it)."""
    engine = create_engine(url)
    try:
        existing = MetaData()
        existing.reflect(engine)
        existing.drop_all(engine)
    finally:
        engine.dispose()


def server_url(backend: str) -> str:
    """The URL of a test server, or skip (fail in CI) when it is not configured."""
    variable = SERVER_URL_VARIABLES[backend]
    url = os.environ.get(variable)
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{variable} is not set: .ci/run must start the {backend} test server")
        pytest.skip(f"{variable} not set (run .ci/run --databases-only to start the test servers)")
    return url


@pytest.fixture(params=["sqlite", "mysql", "pgsql"])
def accounting_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty accounting database of each backend, as an SQLAlchemy URL."""
    backend = request.param
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'pyslurmdbd.sqlite'}"
        return
    url = server_url(backend)
    drop_all_tables(url)
    yield url
    drop_all_tables(url)


@pytest.fixture
def store(accounting_url: str) -> Iterator[AccountingStore]:
    """An accounting store on each backend, its schema created."""
    accounting = AccountingStore(accounting_url)
    accounting.create_schema()
    yield accounting
    accounting.close()
