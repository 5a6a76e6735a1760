"""Licenses (slurm.conf `Licenses=`, `-L`): parsing as Slurm 22.05 does, refusal at submit,
the pass holding a job with reason `Licenses`, counts derived from the jobs (so a journal replay
gives the same), `scontrol show licenses` and the job fields."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli import scontrol_show
from pyslurm_common.config import load_config
from pyslurm_common.conf_syntax import ConfigError
from pyslurm_common.errors import Strerror
from pyslurm_common.licenses import LicenseError, parse_licenses, request_valid
from pyslurm_common.rpc import ctld_pb2
from pyslurm_ctld.translate import convert
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.model.job import JobState, Reason
from pyslurm_ctld.sched.license_gate import licenses_in_use

from tests.builders import CONF, error_of, finish, make_manager, schedule, submit

LICENSES = "Licenses=matlab:2,fluent\n"


def test_lists_parse_as_slurm_does() -> None:
    assert parse_licenses("foo:4,bar") == {"foo": 4, "bar": 1}
    assert parse_licenses("foo:1;foo:2,,bar:") == {"foo": 3, "bar": 0}   # ';' too; repeats add; "bar:" is 0
    assert parse_licenses("") == {}
    assert parse_licenses("a|b") == {"a|b": 1}      # 22.05 has no OR form: one (unknown) name
    for bad in ("foo :1", "foo:x", "foo:-1", "foo:1x", f"foo:{2**32}"):
        with pytest.raises(LicenseError):
            parse_licenses(bad)


def test_a_request_must_name_configured_licenses_within_their_totals() -> None:
    configured = {"matlab": 2, "fluent": 1}
    assert request_valid("matlab:2,fluent", configured)
    assert not request_valid("matlab:3", configured)
    assert not request_valid("ansys", configured)
    assert not request_valid("matlab|fluent", configured)


def test_slurm_conf_licenses_and_a_bad_value(tmp_path: Path) -> None:
    path = tmp_path / "slurm.conf"
    path.write_text(CONF + LICENSES)
    assert load_config(path).licenses == (("matlab", 2), ("fluent", 1))
    path.write_text(CONF + "Licenses=matlab:two\n")
    with pytest.raises(ConfigError, match="Licenses"):
        load_config(path)


def test_unknown_or_excessive_licenses_are_refused_at_submit(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, LICENSES)
    for asked in ("ansys", "matlab:3", "matlab :1"):
        assert error_of(submit, mgr, licenses=asked).strerror == Strerror.INVALID_LICENSES
    (tmp_path / "bare").mkdir()
    bare = make_manager(tmp_path / "bare")
    assert error_of(submit, bare, licenses="matlab").strerror == Strerror.INVALID_LICENSES


def test_a_job_waits_for_licenses_without_blocking_others_and_gets_them_when_freed(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, LICENSES)
    first = submit(mgr, licenses="matlab:2")
    second = submit(mgr, licenses="matlab")
    plain = submit(mgr)
    schedule(mgr, 200)
    assert mgr.jobs[first.job_id].state is JobState.RUNNING
    assert mgr.jobs[second.job_id].state is JobState.PENDING
    assert mgr.jobs[second.job_id].reason is Reason.LICENSES
    assert mgr.jobs[plain.job_id].state is JobState.RUNNING       # a license wait blocks nobody
    assert licenses_in_use(mgr.jobs.values()) == {"matlab": 2}
    finish(mgr, first.job_id, 250)
    schedule(mgr, 260)
    assert mgr.jobs[second.job_id].state is JobState.RUNNING
    assert licenses_in_use(mgr.jobs.values()) == {"matlab": 1}


def test_two_jobs_in_one_pass_do_not_share_the_last_license(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, LICENSES)
    jobs = [submit(mgr, licenses="fluent") for _ in range(2)]
    schedule(mgr, 200)
    states = [mgr.jobs[j.job_id].state for j in jobs]
    assert states == [JobState.RUNNING, JobState.PENDING]
    assert mgr.jobs[jobs[1].job_id].reason is Reason.LICENSES


def test_job_fields_and_scontrol_show_licenses(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, LICENSES)
    job = submit(mgr, licenses="matlab:1,fluent")
    schedule(mgr, 200)
    info = convert.job_info(mgr.jobs[job.job_id], 200)
    assert info.licenses == "matlab:1,fluent"
    assert "Licenses=matlab:1,fluent Network=(null)" in "".join(scontrol_show.show_job(info, 200))
    lics = [ctld_pb2.LicenseInfo(name="matlab", total=2, used=1), ctld_pb2.LicenseInfo(name="fluent", total=1, used=1)]
    assert scontrol_show.show_licenses(lics) == (
        "LicenseName=fluent\n    Total=1 Used=1 Free=0 Reserved=0 Remote=no\n"
        "LicenseName=matlab\n    Total=2 Used=1 Free=1 Reserved=0 Remote=no\n")
    assert scontrol_show.show_licenses(lics, "matlab", oneliner=True) == (
        "LicenseName=matlab Total=2 Used=1 Free=1 Reserved=0 Remote=no\n")
    assert scontrol_show.show_licenses([]) == "No licenses configured in Slurm.\n"


def test_scontrol_update_job_licenses(tmp_path: Path) -> None:
    from pyslurm_ctld.core.job_updates import licenses_change
    from pyslurm_ctld.model.events import event_from_dict, event_to_dict

    mgr = make_manager(tmp_path, LICENSES)
    job = submit(mgr, hold=True)
    assert error_of(licenses_change, mgr, job.job_id, 1000, False, "ansys").strerror == Strerror.INVALID_LICENSES
    assert error_of(licenses_change, mgr, job.job_id, 1001, False, "matlab").strerror == Strerror.ACCESS_DENIED
    event = licenses_change(mgr, job.job_id, 1000, False, "matlab:2")
    assert event_from_dict(event_to_dict(event)) == event
    apply(mgr, event)
    assert mgr.jobs[job.job_id].request.licenses == "matlab:2"
