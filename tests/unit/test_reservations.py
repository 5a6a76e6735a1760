"""Reservations: scontrol's words (reservation_spec), the deciders (create/update/delete, who
may, overlaps, busy nodes), a job's admission into one, the pass keeping other jobs off reserved
nodes (now and before an upcoming reservation) and journal round trips of the events."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli import reservations as cli_reservations
from pyslurm_common.errors import Strerror
from pyslurm_common.reservation_spec import SpecError, creation_problem, parse_words
from pyslurm_ctld.translate import convert
from pyslurm_ctld.core import reservations
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.model.events import ReservationDeleted, ReservationSaved, event_from_dict, event_to_dict
from pyslurm_ctld.model.job import JobState, Reason
from pyslurm_ctld.model.reservations import ReservationRecord

from tests.builders import error_of, make_manager, run_job, schedule, submit

NOW = 1_000_000


def create(mgr: ClusterState, *words: str, now: int = NOW) -> ReservationRecord:
    event = reservations.creation(mgr, list(words), True, "root", now)
    apply(mgr, event)
    return event.record


def test_scontrols_words_and_its_refusals() -> None:
    spec = parse_words(["reservation", "res=maint", "st=now", "d=1:00:00", "u=alice,bob", "nodes=n[1-2]",
                        "fl=maint,ignore_jobs"], NOW, "No reservation created.")
    assert (spec.name, spec.start_time, spec.duration_min, spec.users, spec.nodes) == (
        "maint", NOW, 60, ("alice", "bob"), "n[1-2]")
    assert spec.flags_added == ("MAINT", "IGNORE_JOBS")
    assert creation_problem(spec) is None
    assert creation_problem(parse_words(["st=now", "nodes=n1"], NOW, "x")) == \
        "An end time or duration must be given.  No reservation created."
    assert creation_problem(parse_words(["st=now", "d=5", "nodes=n1"], NOW, "x")) == \
        "Either Users/Groups and/or Accounts must be specified.  No reservation created."
    for words, message in ((["Flags=bogus"], "Error parsing flags bogus.  end"),
                           (["Foo=1"], "Unknown parameter Foo=1.  end"),
                           (["Features=a"], "Features= is not supported by pyslurm.  end"),
                           (["Flags=WEEKDAY"], "Flags=WEEKDAY is not supported by pyslurm.  end"),
                           (["StartTime=xyz"], "Invalid start time StartTime=xyz.  end"),
                           (["nodes"], "Misformatted parameter 'nodes', most options have a parameter after '='.  end")):
        with pytest.raises(SpecError) as info:
            parse_words(words, NOW, "end")
        assert str(info.value) == message


def test_only_operators_change_reservations(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    words = ["StartTime=now", "Duration=60", "Users=alice", "Nodes=n1"]
    assert error_of(reservations.creation, mgr, words, False, "alice", NOW).strerror == Strerror.INVALID_USER_ID
    record = create(mgr, *words)
    assert record.name == "root_1" and record.nodes == ("n1",) and record.flags == ("SPEC_NODES",)
    assert error_of(reservations.deletion, mgr, "root_1", False, NOW).strerror == Strerror.INVALID_USER_ID
    assert error_of(reservations.update, mgr, "root_1", ["Users=bob"], False, NOW).strerror == Strerror.INVALID_USER_ID


def test_overlaps_busy_nodes_and_names(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    create(mgr, "Res=a", "StartTime=now", "Duration=60", "Users=alice", "Nodes=n1")
    assert error_of(create, mgr, "Res=a", "StartTime=now", "Duration=60", "Users=alice", "Nodes=n2").strerror \
        == Strerror.RESERVATION_NAME_DUP
    assert error_of(create, mgr, "Res=b", "StartTime=now+30minutes", "Duration=60", "Users=bob", "Nodes=n1").strerror \
        == Strerror.RESERVATION_OVERLAP
    create(mgr, "Res=m", "StartTime=now+30minutes", "Duration=60", "Users=root", "Nodes=n1", "Flags=MAINT")
    run_job(mgr, now=NOW, time_limit_min=60, required_nodes=("n2",))
    assert error_of(create, mgr, "Res=c", "StartTime=now", "Duration=10", "Users=bob", "Nodes=n2").strerror \
        == Strerror.STEP_NODES_BUSY
    assert create(mgr, "Res=c", "StartTime=now+2hours", "Duration=10", "Users=bob", "Nodes=n2").nodes == ("n2",)
    create(mgr, "Res=d", "StartTime=now", "Duration=10", "Users=bob", "Nodes=n2", "Flags=IGNORE_JOBS")


def test_node_count_and_partition_choose_nodes(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    assert create(mgr, "StartTime=now", "Duration=5", "Accounts=physics", "PartitionName=long").nodes == ("n1",)
    assert create(mgr, "StartTime=now", "Duration=5", "Users=alice", "NodeCnt=1").nodes == ("n2",)
    assert error_of(create, mgr, "StartTime=now", "Duration=5", "Users=alice", "NodeCnt=1").strerror \
        == Strerror.STEP_NODES_BUSY


def test_a_job_in_a_reservation_runs_only_there_and_only_for_its_users(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    create(mgr, "Res=lab", "StartTime=now", "Duration=60", "Users=alice", "Nodes=n2")
    assert error_of(submit, mgr, now=NOW, reservation="nope").strerror == Strerror.INVALID_RESERVATION
    assert error_of(submit, mgr, now=NOW, uid=1001, reservation="lab").strerror == Strerror.RESERVATION_ACCESS
    inside = submit(mgr, now=NOW, reservation="lab")
    outside = submit(mgr, now=NOW, required_nodes=("n2",), time_limit_min=10)
    schedule(mgr, NOW + 1)
    assert mgr.jobs[inside.job_id].allocation.nodes == ("n2",)   # type: ignore[union-attr]
    assert mgr.jobs[outside.job_id].state is JobState.PENDING
    assert mgr.jobs[outside.job_id].reason is Reason.RESERVED_OTHER
    assert convert.job_info(mgr.jobs[inside.job_id], NOW).reservation == "lab"


def test_a_job_waits_for_its_reservation_to_start(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    create(mgr, "Res=later", "StartTime=now+1hour", "Duration=60", "Users=alice", "Nodes=n1")
    job = submit(mgr, now=NOW, reservation="later")
    schedule(mgr, NOW + 1)
    assert mgr.jobs[job.job_id].reason is Reason.RESERVATION
    schedule(mgr, NOW + 3600)
    assert mgr.jobs[job.job_id].state is JobState.RUNNING


def test_maintenance_keeps_everyone_else_off_and_backfill_respects_an_upcoming_reservation(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    create(mgr, "Res=m", "StartTime=now", "Duration=60", "Users=root", "Nodes=n1,n2", "Flags=MAINT,IGNORE_JOBS")
    job = submit(mgr, now=NOW)
    schedule(mgr, NOW + 1)
    assert mgr.jobs[job.job_id].reason is Reason.RESERVED_MAINT
    later = tmp_path / "later"
    later.mkdir()
    mgr = make_manager(later)
    create(mgr, "Res=soon", "StartTime=now+30minutes", "Duration=60", "Users=root", "Nodes=n1")
    long = submit(mgr, now=NOW, partition="long", time_limit_min=60)      # `long` has only n1
    short = submit(mgr, now=NOW, partition="long", time_limit_min=20)
    schedule(mgr, NOW + 1)
    assert mgr.jobs[long.job_id].state is JobState.PENDING
    assert mgr.jobs[long.job_id].reason is Reason.RESERVED_OTHER
    assert mgr.jobs[short.job_id].state is JobState.RUNNING


def test_a_job_kept_off_by_reservations_to_come_is_expected_after_them(tmp_path: Path) -> None:
    """Real Slurm 22.05.8, one node, reservations r1 (in 2 min, 10 min) and m1 (MAINT, in 10 min,
    10 min): `sbatch -t 5` pends ReqNodeNotAvail and squeue --start shows m1's end (a 5 minute job
    fits in neither gap), the next such job after that one; a job of r1 shows N/A (Reservation)."""
    mgr = make_manager(tmp_path)
    create(mgr, "Res=r1", "StartTime=now+2minutes", "Duration=10", "Users=alice", "Nodes=n1")
    create(mgr, "Res=m1", "StartTime=now+10minutes", "Duration=10", "Users=root", "Nodes=n1", "Flags=MAINT")
    member = submit(mgr, now=NOW, partition="long", time_limit_min=5, reservation="r1")
    first = submit(mgr, now=NOW, partition="long", time_limit_min=5, cpus_per_task=4)   # `long` has only n1
    second = submit(mgr, now=NOW, partition="long", time_limit_min=5, cpus_per_task=4)
    schedule(mgr, NOW + 1)
    assert [mgr.jobs[j.job_id].reason for j in (member, first, second)] == \
        [Reason.RESERVATION, Reason.RESERVED_OTHER, Reason.RESERVED_OTHER]   # r1 begins within their 5 minutes
    m1_end = NOW + 20 * 60
    assert mgr.expected[first.job_id].start_time == m1_end
    assert mgr.expected[second.job_id].start_time >= m1_end + 5 * 60
    assert member.job_id not in mgr.expected


def test_daily_reservations_repeat_and_one_offs_end(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    daily = create(mgr, "Res=d", "StartTime=now", "Duration=60", "Users=root", "Nodes=n1", "Flags=DAILY")
    assert daily.window(NOW + 3600) == (NOW + 86400, NOW + 86400 + 3600)
    assert daily.active(NOW + 86400 + 10) and not daily.over(NOW + 10 * 86400)
    once = create(mgr, "Res=o", "StartTime=now", "Duration=60", "Users=root", "Nodes=n2")
    assert once.over(NOW + 3600)
    assert reservations.expired(mgr, NOW + 3600) == [ReservationDeleted("o", NOW + 3600)]


def test_hourly_repeats_and_flags_show_in_slurms_order(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    hourly = create(mgr, "Res=h", "StartTime=now", "Duration=30", "Users=root", "Nodes=n1", "Flags=h,f")
    assert hourly.flags == ("FLEX", "HOURLY", "SPEC_NODES")      # real Slurm: Flags=FLEX,HOURLY,SPEC_NODES
    assert hourly.window(NOW + 1800) == (NOW + 3600, NOW + 3600 + 1800)
    assert not hourly.active(NOW + 1800) and hourly.active(NOW + 3600) and not hourly.over(NOW + 86400)


def test_a_flex_reservations_jobs_start_early_go_outside_and_outlive_it(tmp_path: Path) -> None:
    from pyslurm_ctld.core.timers import timeouts

    mgr = make_manager(tmp_path)
    create(mgr, "Res=f", "StartTime=now+1hour", "Duration=60", "Users=alice", "Nodes=n1", "Flags=FLEX")
    create(mgr, "Res=other", "StartTime=now", "Duration=600", "Users=bob", "Nodes=n2")
    early = submit(mgr, now=NOW, reservation="f", time_limit_min=-1, partition="long")
    both = submit(mgr, now=NOW, reservation="f", min_nodes=2, num_tasks=2)
    schedule(mgr, NOW + 1)
    assert mgr.jobs[early.job_id].state is JobState.RUNNING           # before the reservation starts
    assert mgr.jobs[both.job_id].reason is Reason.RESERVED_OTHER       # n2 is another reservation's
    assert timeouts(mgr, NOW + 2 * 3600 + 10) == []                   # past its end, it runs on
    outside = tmp_path / "outside"
    outside.mkdir()
    mgr = make_manager(outside)
    create(mgr, "Res=f", "StartTime=now", "Duration=60", "Users=alice", "Nodes=n1", "Flags=FLEX")
    wide = submit(mgr, now=NOW, reservation="f", min_nodes=2, num_tasks=2)
    schedule(mgr, NOW + 1)
    assert mgr.jobs[wide.job_id].allocation.nodes == ("n1", "n2")    # type: ignore[union-attr]


def test_update_delete_and_the_journal(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    create(mgr, "Res=r", "StartTime=now", "Duration=60", "Users=alice", "Nodes=n1")
    event = reservations.update(mgr, "r", ["Duration=120", "Users=bob", "Flags=MAINT"], True, NOW)
    assert event_from_dict(event_to_dict(event)) == event
    apply(mgr, event)
    record = mgr.reservations["r"]
    assert (record.end_time - record.start_time, record.users, record.flags) == (7200, ("bob",), ("MAINT", "SPEC_NODES"))
    assert ReservationSaved(record) in list(mgr.snapshot_events())
    running = run_job(mgr, now=NOW + 5, uid=1001, reservation="r")
    assert error_of(reservations.deletion, mgr, "r", True, NOW).strerror == Strerror.RESERVATION_BUSY
    assert running.allocation is not None and running.allocation.nodes == ("n1",)
    assert error_of(reservations.deletion, mgr, "gone", True, NOW).strerror == Strerror.INVALID_RESERVATION


def test_scontrol_show_and_sinfo_layouts(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    record = create(mgr, "Res=maint", "StartTime=2030-01-02T10:00:00", "Duration=1-00:00:00", "Users=root",
                    "Nodes=n1,n2", "Flags=maint,ignore_jobs")
    info = convert.reservation_info(record, mgr.nodes, NOW)
    assert cli_reservations.show_text(info, NOW) == (
        "ReservationName=maint StartTime=2030-01-02T10:00:00 EndTime=2030-01-03T10:00:00 Duration=1-00:00:00\n"
        "   Nodes=n[1-2] NodeCnt=2 CoreCnt=12 Features=(null) PartitionName=(null) Flags=MAINT,IGNORE_JOBS,SPEC_NODES\n"
        "   TRES=cpu=12\n"
        "   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE BurstBuffer=(null) Watts=n/a\n"
        "   MaxStartDelay=(null)\n\n")
    assert cli_reservations.sinfo_lines([info], NOW) == [
        "RESV_NAME     STATE           START_TIME             END_TIME     DURATION  NODELIST",
        "maint      INACTIVE  2030-01-02T10:00:00  2030-01-03T10:00:00   1-00:00:00  n[1-2]"]


def test_sacctmgr_show_reservation_columns_and_conditions() -> None:
    from cli import sacctmgr_reservations as show
    from cli.print_fields import render
    from cli.sacctmgr_args import parse
    from pyslurm_common.rpc import dbd_pb2

    assert show.double_cell(0.0, False) == "  0.000000"
    assert show.double_cell(3600.0, False) == "3.6000e+03"        # Slurm's exponent form when %f is too wide
    assert show.double_cell(3600.0, True) == "3600.000000"
    assert show.query([], NOW).start_time > 0                    # no condition: since yesterday's midnight
    q = show.query(parse(["show", "reservation", "names=a,b", "clusters=lab", "ids=3"]).where, NOW)
    assert (list(q.names), list(q.clusters), list(q.ids), q.start_time) == (["a", "b"], ["lab"], [3], 0)
    names, columns = show.columns("")
    resv = dbd_pb2.ReservationRecord(cluster="lab", name="maint", cpus=8, time_start=0, time_end=0, unused_wall=0)
    assert render(columns, [show.values(names, resv, False)]) == [
        "   Cluster            Name                           TRES           TimeStart             TimeEnd UnusedWall ",
        "---------- --------------- ------------------------------ ------------------- ------------------- ---------- ",
        "       lab           maint                          cpu=8             Unknown             Unknown   0.000000 "]


def test_changes_go_to_accounting_as_records(tmp_path: Path) -> None:
    from pyslurm_ctld.model.events import RecordReservation

    mgr = make_manager(tmp_path)
    saved = reservations.creation(mgr, ["Res=r", "StartTime=now", "Duration=60", "Users=alice", "Nodes=n1,n2"],
                                  True, "root", NOW)
    assert apply(mgr, saved) == [RecordReservation(saved.record, False, NOW)]
    record = convert.reservation_record(saved.record, mgr.nodes, "lab", True, NOW + 600)
    assert (record.id, record.name, record.cpus, record.nodes, record.time_start, record.time_end, record.deleted) == (
        1, "r", 12, "n[1-2]", NOW, NOW + 600, True)
    assert apply(mgr, reservations.deletion(mgr, "r", True, NOW + 600)) == [RecordReservation(saved.record, True, NOW + 600)]


@pytest.mark.parametrize("over_run, ends", [("", 3600), ("ResvOverRun=5\n", 3900)])
def test_jobs_end_with_their_reservation_after_resv_over_run(tmp_path: Path, over_run: str, ends: int) -> None:
    from pyslurm_ctld.core.timers import timeouts
    from pyslurm_ctld.model.events import JobTimedOut

    mgr = make_manager(tmp_path, over_run)
    create(mgr, "Res=r", "StartTime=now", "Duration=60", "Users=alice", "Nodes=n1")
    job = run_job(mgr, now=NOW + 10, reservation="r", partition="long", time_limit_min=-1)
    assert timeouts(mgr, NOW + ends - 1) == []
    assert timeouts(mgr, NOW + ends) == [JobTimedOut(job.job_id, NOW + ends)]
    assert reservations.expired(mgr, NOW + ends) == []          # kept while a job still runs in it


def test_nodes_of_reservations_in_force_read_resv_and_maint(tmp_path: Path) -> None:
    from cli import sinfo_format
    from pyslurm_ctld.core.usage import node_usage
    from pyslurm_ctld.model.reservations import node_flags

    mgr = make_manager(tmp_path)
    create(mgr, "Res=m", "StartTime=now", "Duration=60", "Users=root", "Nodes=n1", "Flags=MAINT")
    create(mgr, "Res=r", "StartTime=now", "Duration=60", "Users=root", "Nodes=n2")
    flags = node_flags(mgr.reservations.values(), NOW + 1)
    assert flags == {"n1": ("MAINTENANCE", "RESERVED"), "n2": ("RESERVED",)}
    assert node_flags(mgr.reservations.values(), NOW + 3600) == {}
    usage = node_usage(mgr)
    infos = {name: convert.node_info(mgr.nodes[name], usage[name], flags[name]) for name in ("n1", "n2")}
    assert [(sinfo_format.node_state_compact(i), sinfo_format.node_state_long(i)) for i in infos.values()] == [
        ("maint", "maint"), ("resv", "reserved")]
    assert sinfo_format.node_state_complete(infos["n1"]) == "idle+maintenance+reserved"


def test_scontrol_update_job_reservation(tmp_path: Path) -> None:
    from pyslurm_ctld.model.events import JobReservationChanged

    mgr = make_manager(tmp_path)
    create(mgr, "Res=lab", "StartTime=now", "Duration=60", "Users=alice", "Nodes=n2")
    mine = submit(mgr, now=NOW, hold=True)
    theirs = submit(mgr, now=NOW, uid=1001, hold=True)
    assert error_of(reservations.job_change, mgr, theirs.job_id, 1001, False, "lab", NOW).strerror \
        == Strerror.RESERVATION_ACCESS
    assert error_of(reservations.job_change, mgr, mine.job_id, 1001, False, "lab", NOW).strerror \
        == Strerror.ACCESS_DENIED
    assert error_of(reservations.job_change, mgr, mine.job_id, 1000, False, "nope", NOW).strerror \
        == Strerror.INVALID_RESERVATION
    event = reservations.job_change(mgr, mine.job_id, 1000, False, "lab", NOW)
    assert event_from_dict(event_to_dict(event)) == event == JobReservationChanged(mine.job_id, "lab")
    apply(mgr, event)
    assert mgr.jobs[mine.job_id].request.reservation == "lab"
    apply(mgr, reservations.job_change(mgr, mine.job_id, 0, True, "", NOW))
    assert mgr.jobs[mine.job_id].request.reservation == ""


PREEMPT_CONF = """\
ClusterName=lab
SlurmctldHost=head
NodeName=n[1-2] CPUs=4 RealMemory=4000
PartitionName=low Nodes=n[1-2] Default=YES PriorityTier=1
PartitionName=high Nodes=n[1-2] PriorityTier=2
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
"""


def test_a_job_preempts_only_on_nodes_reservations_leave_it(tmp_path: Path) -> None:
    from pyslurm_ctld.model.events import JobPreempted

    mgr = make_manager(tmp_path, conf=PREEMPT_CONF)
    create(mgr, "Res=r", "StartTime=now", "Duration=600", "Users=alice", "Nodes=n1", "Flags=IGNORE_JOBS")
    outside = run_job(mgr, now=NOW + 10, num_tasks=4, time_limit_min=60)
    inside = run_job(mgr, now=NOW + 20, num_tasks=4, time_limit_min=60, reservation="r")   # the youngest
    assert (outside.allocation.nodes, inside.allocation.nodes) == (("n2",), ("n1",))      # type: ignore[union-attr]
    submit(mgr, now=NOW + 30, num_tasks=4, time_limit_min=60, partition="high")
    preempted = [e for e in schedule_pass(mgr, NOW + 40) if isinstance(e, JobPreempted)]
    assert [e.job_id for e in preempted] == [outside.job_id]



@pytest.mark.parametrize("settings, seen", [
    ("", ({"alice", "bob", "carol", "dave"},) * 3),
    # Without associations enforced slurmctld looks for the caller in Users= ('-' or not) only.
    ("PrivateData=jobs,reservations\n", ({"alice"}, {"bob"}, set())),
    ("PrivateData=reservation\nAccountingStorageEnforce=associations\n", ({"alice"}, {"alice", "carol"}, {"carol"})),
])
def test_private_data_reservations_shows_them_to_their_users_only(tmp_path: Path, settings: str,
                                                                   seen: tuple[set[str], ...]) -> None:
    from pyslurm_ctld.model.associations import AssociationSnapshot

    from test_association_checks import assoc

    mgr = make_manager(tmp_path, settings)
    mgr.associations = AssociationSnapshot("v:1", associations=(
        assoc("root"), assoc("physics"), assoc("physics", "alice"), assoc("physics", "bob"), assoc("chem"),
        assoc("chem", "carol")))
    records = (create(mgr, "Res=a", "StartTime=now", "Duration=60", "Users=alice", "Nodes=n1"),
               create(mgr, "Res=b", "StartTime=now", "Duration=60", "Users=-bob", "Nodes=n1", "Flags=OVERLAP"),
               create(mgr, "Res=c", "StartTime=now", "Duration=60", "Accounts=chem", "Nodes=n1", "Flags=OVERLAP"))
    for record, expected in zip(records, seen):
        users = {u for u in ("alice", "bob", "carol", "dave") if reservations.visible(mgr, record, u, False)}
        assert users == expected, record.name
        assert reservations.visible(mgr, record, "dave", True)               # operators see every one


def test_reservation_licenses_are_checked_and_held_from_other_jobs(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path, "Licenses=matlab:3\n")
    base = ("StartTime=now", "Duration=60", "Users=alice")
    for words, error in (((*base, "Licenses=matlab:4", "Nodes=n1"), Strerror.INVALID_LICENSES),
                         ((*base, "Licenses=maple:1", "Nodes=n1"), Strerror.INVALID_LICENSES),
                         ((*base, "Licenses=matlab:1"), Strerror.INVALID_NODE_NAME),     # nodes or ANY_NODES
                         ((*base, "Flags=ANY_NODES", "Licenses=matlab:0"), Strerror.INVALID_LICENSES)):
        assert error_of(create, mgr, "Res=x", *words).strerror == error, words
    held = create(mgr, "Res=lic", *base, "Licenses=matlab:2", "Flags=LICENSE_ONLY")
    assert (held.nodes, held.flags, held.licenses) == ((), ("ANY_NODES",), "matlab:2")
    assert convert.reservation_info(held, mgr.nodes, NOW).licenses == "matlab:2"
    outside = submit(mgr, now=NOW, uid=1001, licenses="matlab:2")
    small = submit(mgr, now=NOW, uid=1001, licenses="matlab:1")
    inside = submit(mgr, now=NOW, reservation="lic", licenses="matlab:2")
    schedule(mgr, NOW + 1)
    assert mgr.jobs[outside.job_id].reason is Reason.LICENSES            # 2 + 2 reserved > 3
    assert mgr.jobs[small.job_id].state is JobState.RUNNING
    assert mgr.jobs[inside.job_id].state is JobState.RUNNING             # its own 2: 2 + 1 in use <= 3
    upcoming = tmp_path / "upcoming"
    upcoming.mkdir()
    mgr = make_manager(upcoming, "Licenses=matlab:3\n")
    create(mgr, "Res=lic", "StartTime=now+30minutes", "Duration=60", "Users=alice", "Licenses=matlab:2",
           "Nodes=n1")
    long = submit(mgr, now=NOW, uid=1001, licenses="matlab:2", time_limit_min=60)    # would hold them then
    short = submit(mgr, now=NOW, uid=1001, licenses="matlab:2", time_limit_min=20)   # done before it starts
    schedule(mgr, NOW + 1)
    assert mgr.jobs[long.job_id].reason is Reason.LICENSES
    assert mgr.jobs[short.job_id].state is JobState.RUNNING
    updated = reservations.update(mgr, "lic", ["Licenses=matlab:1"], True, NOW + 2)
    assert updated.record.licenses == "matlab:1"


def test_core_reservations_hold_cores_not_nodes(tmp_path: Path) -> None:
    """CoreCnt=: as real Slurm 22.05 showed (`CoreCnt=1` alone: NodeCnt=1 CoreCnt=1
    PartitionName=debug Flags= TRES=cpu=1), its cores only; the rest of the node stays usable."""
    mgr = make_manager(tmp_path)
    assert parse_words(["CoreCnt=2,1"], NOW, "x").core_counts == (2, 1)
    with pytest.raises(SpecError, match="^Invalid core count 2x$"):
        parse_words(["corec=2x"], NOW, "x")
    busy = run_job(mgr, now=NOW, num_tasks=2, time_limit_min=-1, partition="long")    # n1's CPUs 0-1
    held = create(mgr, "Res=c", "StartTime=now", "Duration=60", "Users=alice", "CoreCnt=3")
    assert (held.nodes, held.cpu_ids, held.partition, held.flags) == (("n1", "n2"), ((2, 3), (0,)), "debug", ())
    info = convert.reservation_info(held, mgr.nodes, NOW)
    assert (info.nodes, info.node_count, info.core_count, info.tres, info.flags) == ("n[1-2]", 2, 3, "cpu=3", "")
    assert "Flags=\n     NodeName=n1 CoreIDs=2-3\n     NodeName=n2 CoreIDs=0\n   TRES=cpu=3\n" in \
        cli_reservations.show_text(info, NOW)         # in force: its cores listed, as slurm_sprint_reservation_info
    later = convert.reservation_info(held, mgr.nodes, NOW - 10)
    assert "Flags=\n   TRES=cpu=3\n" in cli_reservations.show_text(later, NOW - 10)
    spread = create(mgr, "Res=s", "StartTime=now", "Duration=60", "Users=bob", "CoreCnt=3", "Nodes=n2")
    assert (spread.cpu_ids, spread.flags) == (((1, 2, 3),), ("SPEC_NODES",))
    assert error_of(create, mgr, "Res=x", "StartTime=now", "Duration=60", "Users=bob", "CoreCnt=9",
                    "Nodes=n2").strerror == Strerror.STEP_NODES_BUSY
    assert error_of(create, mgr, "Res=w", "StartTime=now", "Duration=60", "Users=bob",
                    "Nodes=n2").strerror == Strerror.RESERVATION_OVERLAP        # a whole-node one may not
    outsider = submit(mgr, now=NOW, uid=1001, num_tasks=4, required_nodes=("n2",))   # n2's 4 unreserved CPUs
    member = submit(mgr, now=NOW, reservation="c", num_tasks=2)                       # n1's 2, n2's 1: fits 2
    greedy = submit(mgr, now=NOW, reservation="c", num_tasks=2, required_nodes=("n2",))   # n2 has 1 of its cores
    schedule(mgr, NOW + 1)
    assert mgr.jobs[outsider.job_id].allocation.cpu_ids == ((4, 5, 6, 7),)      # type: ignore[union-attr]
    assert mgr.jobs[member.job_id].allocation.cpu_ids == ((2, 3),)              # type: ignore[union-attr]
    assert mgr.jobs[greedy.job_id].state is JobState.PENDING
    assert busy.state is JobState.RUNNING
    updated = reservations.update(mgr, "s", ["CoreCnt=1"], True, NOW + 2)
    assert updated.record.cpu_ids == ((1,),)
    assert ReservationRecord.from_dict(updated.record.to_dict()) == updated.record
