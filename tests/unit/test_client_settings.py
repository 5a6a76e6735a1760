"""What a CLI reads of slurm.conf (pyslurm_common.client_settings): its own file once per
process, as Slurm's commands do; a file named explicitly, afresh on every call."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pyslurm_common import client_settings


def test_the_commands_own_slurm_conf_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=lab\nAuthInfo=socket=auth.sock\nMpiDefault=pmi2\n")
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


def _own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    conf = tmp_path / "slurm.conf"
    conf.write_text(text)
    monkeypatch.setenv("PYSLURM_CONF", str(conf))
    monkeypatch.setattr(client_settings, "_OWN_LINES", {})
    return conf


# What Slurm 22.05's commands and daemons print for such a file (SLURM_CONF=<file> sinfo; the same
# from sbatch, squeue, scontrol, sacct, strigger, slurmctld -D -f <file>, slurmd -D -f <file>).
EMPTY = ('sinfo: s_p_parse_file: file "{conf}" is empty\n'
         "sinfo: error: ClusterName needs to be specified\n"
         "sinfo: fatal: Unable to process configuration file")
FOREIGN = ("sinfo: error: _parse_next_key: Parsing error at unrecognized key: Foo\n"
           "sinfo: error: _parse_next_key: Parsing error at unrecognized key: Baz\n"
           "sinfo: error: ClusterName needs to be specified\n"
           "sinfo: fatal: Unable to process configuration file")


@pytest.mark.parametrize(("text", "expected"), [
    ("", EMPTY),
    ("Foo=bar\nBaz=1\n", FOREIGN),
    ("# only a comment\n\nSlurmctldHost=head\n",
     "sinfo: error: ClusterName needs to be specified\nsinfo: fatal: Unable to process configuration file"),
])
def test_a_file_without_cluster_name_is_refused_whole_as_slurm_refuses_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: str) -> None:
    conf = _own(tmp_path, monkeypatch, text)
    with pytest.raises(client_settings.UnusableConfig) as refused:
        client_settings.check_own_config()
    assert refused.value.report("sinfo") == expected.format(conf=conf)
    with pytest.raises(client_settings.UnusableConfig):
        client_settings.auth_socket()       # never the default socket: another cluster's agent


def test_a_file_elsewhere_naming_another_cluster_needs_its_own_socket(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A real Slurm's slurm.conf (ClusterName=anchor, AuthType=auth/munge) in SLURM_CONF must not
    make the commands talk to the cluster of /etc/pyslurm/slurm.conf through its agent."""
    monkeypatch.setattr(client_settings, "DEFAULT_CONF", str(tmp_path / "host.conf"))
    (tmp_path / "host.conf").write_text("ClusterName=main\nSlurmctldHost=head\n")
    _own(tmp_path, monkeypatch, "ClusterName=anchor\nSlurmctldHost=localhost\nAuthType=auth/munge\n")
    with pytest.raises(client_settings.ConfigError, match="AuthInfo=socket=<path> must be set: the default "
                                                          "socket belongs to the cluster configured in "):
        client_settings.auth_socket()
    _own(tmp_path, monkeypatch, "ClusterName=Main\nSlurmctldHost=head\n")      # a copy of the host's file
    assert client_settings.auth_socket() == client_settings.DEFAULT_AUTH_SOCKET
