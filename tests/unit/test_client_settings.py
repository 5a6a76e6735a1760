"""What a CLI reads of slurm.conf (pyslurm_common.client_settings): its own file once per
process, as Slurm's commands do; a file named explicitly, afresh on every call."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pyslurm_common import client_settings


def test_the_commands_own_slurm_conf_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text("AuthInfo=socket=auth.sock\nMpiDefault=pmi2\n")
    monkeypatch.setenv("PYSLURM_CONF", str(conf))
    monkeypatch.setattr(client_settings, "_OWN_LINES", {})
    reads: list[Any] = []
    real = client_settings.read_conf
    monkeypatch.setattr(client_settings, "read_conf", lambda path: reads.append(path) or real(path))
    # what srun asks: the agent's socket, MpiDefault, SrunProlog, SrunEpilog
    assert client_settings.auth_socket() == str(tmp_path / "auth.sock")
    assert client_settings.conf_value("MpiDefault") == "pmi2"
    assert client_settings.conf_value("SrunProlog") == client_settings.conf_value("SrunEpilog") == ""
    assert reads == [str(conf)]
    conf.write_text("MpiDefault=none\n")
    assert client_settings.conf_value("MpiDefault", str(conf)) == "none"   # named: read again
    assert client_settings.conf_value("MpiDefault") == "pmi2"               # its own: as read at first


def test_an_unreadable_own_file_is_still_reported_on_every_call(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYSLURM_CONF", str(tmp_path / "missing.conf"))
    monkeypatch.setattr(client_settings, "_OWN_LINES", {})
    for _ in range(2):
        with pytest.raises(client_settings.ConfigError, match="cannot read configuration file"):
            client_settings.auth_socket()
    assert client_settings.conf_value("MpiDefault") == ""
