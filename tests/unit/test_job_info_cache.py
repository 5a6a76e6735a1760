"""GetJobs' messages kept per version of each job (pyslurm_ctld/translate/job_info_cache.py): the same
record gives the same message, and any change to the record or to the other inputs gives a
fresh one."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from test_dependencies import submit as submit_after
from tests.builders import make_manager, submit

from pyslurm_ctld.model.job import Reason
from pyslurm_ctld.translate.job_info_cache import JobInfoCache


def test_the_same_record_gives_the_kept_message(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, hold=True)
    cache = JobInfoCache()
    first = cache.info(job, 100, None, (), 0)
    assert first.job_id == job.job_id and first.held
    assert cache.info(job, 200, None, (), 0) is first


def test_a_changed_record_or_input_gives_a_fresh_message(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, hold=True)
    cache = JobInfoCache()
    first = cache.info(job, 100, None, (), 0)
    changed = dataclasses.replace(job, reason=Reason.REQ_NODE_NOT_AVAIL)
    assert cache.info(changed, 100, None, (), 0).reason == "ReqNodeNotAvail"
    assert cache.info(changed, 100, None, ("n1",), 0).reason == "ReqNodeNotAvail, UnavailableNodes:n1"
    assert cache.info(changed, 100, None, ("n1",), 30).gpu_idle_seconds == 30
    assert cache.info(job, 100, None, (), 0) is not first    # the older record again: built again


def test_a_pending_job_with_a_dependency_is_built_every_time(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    first = submit(mgr, hold=True)
    waiting = submit_after(mgr, f"afterok:{first.job_id}")
    cache = JobInfoCache()
    message = cache.info(waiting, 100, None, (), 0)
    assert message.dependency == f"afterok:{first.job_id}(unfulfilled)"
    assert cache.info(waiting, 100, None, (), 0) is not message


def test_purged_jobs_are_forgotten_once_they_outnumber_the_known_ones(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    cache = JobInfoCache()
    jobs = [submit(mgr, hold=True) for _ in range(70)]
    messages = [cache.info(job, 100, None, (), 0) for job in jobs]
    cache.forget_gone({jobs[0].job_id})
    assert cache.info(jobs[0], 100, None, (), 0) is messages[0]
    assert cache.info(jobs[1], 100, None, (), 0) is not messages[1]


def test_the_brief_form_is_kept_and_made_again_with_the_full_one(tmp_path: Path) -> None:
    from pyslurm_common.job_brief import BRIEF_FIELDS
    from pyslurm_common.rpc import ctld_pb2

    mgr = make_manager(tmp_path)
    job = submit(mgr, hold=True)
    cache = JobInfoCache()
    brief = cache.listed(job, 100, None, (), 0, brief=True)
    assert cache.listed(job, 200, None, (), 0, brief=True) is brief
    full = ctld_pb2.JobList.FromString(cache.listed(job, 100, None, (), 0)).jobs[0]
    shown = ctld_pb2.JobList.FromString(brief).jobs[0]
    assert {field.name for field, _ in shown.ListFields()} == {field.name for field, _ in full.ListFields()} & BRIEF_FIELDS
    assert len(brief) < len(cache.listed(job, 100, None, (), 0)) / 2
    assert shown.job_id == job.job_id and shown.reason == "JobHeldUser" and not shown.work_dir
    changed = dataclasses.replace(job, reason=Reason.REQ_NODE_NOT_AVAIL)
    assert ctld_pb2.JobList.FromString(cache.listed(changed, 100, None, (), 0, brief=True)).jobs[0].reason == \
        "ReqNodeNotAvail"


def test_getjobs_names_the_unusable_nodes_of_w_only() -> None:
    from types import SimpleNamespace

    from pyslurm_ctld.rpc.job_rpcs import _unavailable

    nodes = {"n1": SimpleNamespace(usable=False), "n2": SimpleNamespace(usable=True)}
    assert _unavailable((), nodes) == ()
    assert _unavailable(("n1", "n2", "gone"), nodes) == ("n1",)   # type: ignore[arg-type]
