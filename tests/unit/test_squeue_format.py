"""squeue formatting and job state names (cli-squeue-sinfo-scontrol-scancel.md §0–1)."""

from __future__ import annotations

import calendar

import pytest

from cli import job_states
from cli import squeue_format as sq
from pyslurm_common.rpc.types_pb2 import JobBrief, JobInfo

NOW = calendar.timegm((2026, 12, 2, 11, 40, 33))  # Wed Dec 02 11:40:33 2026 UTC


@pytest.fixture(autouse=True)
def _utc(utc: None) -> None:
    """Every test here runs in UTC."""


def _running() -> JobInfo:
    return JobInfo(
        job_id=658, name="wrap", user_name="root", partition="debug", state="RUNNING",
        start_time=NOW - 1, num_nodes=1, num_cpus=1, nodes="localhost", time_limit_min=-1,
        priority=4294901758,
    )


def _verified_queue() -> list[JobInfo]:
    waiting = JobInfo(
        job_id=660, name="waiting", user_name="benchuser", partition="debug",
        state="PENDING", reason="Resources", num_nodes=1, priority=4294901757,
    )
    held = JobInfo(
        job_id=661, name="held", user_name="root", partition="debug", state="PENDING",
        reason="JobHeldUser", num_nodes=1, priority=0, held=True,
    )
    return [_running(), held, waiting]


# ----------------------------------------------------------------------------- verified


VERIFIED_DEFAULT = [
    "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)",
    "               660     debug  waiting benchuse PD       0:00      1 (Resources)",
    "               661     debug     held     root PD       0:00      1 (JobHeldUser)",
    "               658     debug     wrap     root  R       0:01      1 localhost",
]


def test_default_format_verified() -> None:
    fmt = sq.parse_format(sq.DEFAULT_FORMAT)
    jobs = sq.sort_jobs(_verified_queue())
    assert sq.render_jobs(fmt, jobs, NOW) == VERIFIED_DEFAULT


def test_internal_long_form_of_default_is_identical() -> None:
    fmt = sq.parse_long_format(
        "jobarrayid:.18 ,partition:.9 ,name:.8 ,username:.8 ,statecompact:.2 ,"
        "timeused:.10 ,numnodes:.6 ,reasonlist:0"
    )
    assert sq.render_jobs(fmt, sq.sort_jobs(_verified_queue()), NOW) == VERIFIED_DEFAULT


def test_long_format_with_date_line_verified() -> None:
    fmt = sq.parse_format(sq.LONG_FORMAT)
    assert sq.render_jobs(fmt, [_running()], NOW, with_date=True) == [
        "Wed Dec 02 11:40:33 2026",
        "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES "
        "NODELIST(REASON)",
        "               658     debug     wrap     root  RUNNING       0:01 UNLIMITED      1 "
        "localhost",
    ]


def test_noheader_and_empty_queue() -> None:
    fmt = sq.parse_format(sq.DEFAULT_FORMAT)
    assert sq.render_jobs(fmt, [], NOW) == [VERIFIED_DEFAULT[0]]
    assert sq.render_jobs(fmt, [_running()], NOW, header=False) == [VERIFIED_DEFAULT[3]]


def test_format_without_fields_prints_its_text_once_per_job() -> None:
    """Lines are formatted a column at a time; a format of literal text alone has no columns."""
    for fmt in (sq.parse_format("100%%"), sq.parse_long_format("nosuchfield:5|")):
        assert sq.render_jobs(fmt, [_running(), _running()], NOW, header=False) == [sq.job_line(fmt, _running(), NOW)] * 2
    assert sq.render_jobs(sq.parse_format("at"), [_running()] * 3, NOW, header=False) == ["at"] * 3


def test_start_header() -> None:
    assert sq.header_line(sq.parse_format(sq.START_FORMAT)) == (
        "             JOBID PARTITION     NAME     USER ST          START_TIME  NODES "  # real Slurm 22.05.8
        "SCHEDNODES           NODELIST(REASON)"
    )


# ----------------------------------------------------------------------------- §0.1 rules


def test_snakemake_format() -> None:
    fmt = sq.parse_format("%i|%T")
    assert sq.render_jobs(fmt, [_running()], NOW) == ["JOBID|STATE", "658|RUNNING"]


def test_truncation_left_right_and_exceptions() -> None:
    job = _running()
    job.name = "averyveryverylongname"
    job.nodes = "node[001-100]"
    fmt = sq.parse_format("%5j|%.5j|%3N|%.2M|%2T")
    assert sq.header_line(fmt) == "NAME | NAME|NOD|TI|ST"
    assert sq.job_line(fmt, job, NOW) == "avery|avery|node[001-100]|0:01|RU"


def test_no_size_means_natural_width_and_prefix_kept() -> None:
    fmt = sq.parse_format(">>%i:%j<<")
    assert sq.job_line(fmt, _running(), NOW) == ">>658:wrap<<"
    assert sq.header_line(fmt) == ">>JOBID:NAME<<"


def test_reasonlist_truncated_only_when_showing_reason() -> None:
    fmt = sq.parse_format("%.4R")
    pending = _verified_queue()[2]
    running = _running()
    running.nodes = "localhost"
    assert sq.header_line(fmt) == "NODELIST(REASON)"
    assert sq.job_line(fmt, pending, NOW) == "(Res"
    assert sq.job_line(fmt, running, NOW) == "localhost"


def test_long_format_default_width_20_and_suffix() -> None:
    fmt = sq.parse_long_format("JobID,state:.10|,Name:0")
    assert sq.header_line(fmt) == "JOBID                    STATE|NAME"
    assert sq.job_line(fmt, _running(), NOW) == "658                    RUNNING|wrap"


def test_unknown_letter_and_name() -> None:
    assert sq.parse_format("%i %s").unknown == ("s",)   # printed as written, reported by squeue
    assert sq.parse_long_format("jobid,bogus").unknown == ("bogus",)


def test_all_letters_parse() -> None:
    fmt = sq.parse_format("%all")
    assert len(fmt.columns) == len(sq.ALL_LETTERS)
    assert sq.job_line(fmt, _running(), NOW).count("|") == len(sq.ALL_LETTERS) - 1


# ----------------------------------------------------------------------------- values


def test_reasonlist_states() -> None:
    job = _running()
    job.state, job.reason, job.end_time = "FAILED", "NonZeroExitCode", NOW
    assert sq.JOB_FIELDS["reasonlist"].get(job, NOW) == "(NonZeroExitCode)"
    job.completing = True
    assert sq.JOB_FIELDS["reasonlist"].get(job, NOW) == "localhost"
    job.completing, job.state = False, "COMPLETED"
    assert sq.JOB_FIELDS["reasonlist"].get(job, NOW) == "localhost"


def test_time_values() -> None:
    job = _running()
    job.start_time = NOW - 3723
    job.time_limit_min = 120
    fmt = sq.parse_format("%M %l %L %S %e")
    assert sq.job_line(fmt, job, NOW) == (
        "1:02:03 2:00:00 57:57 2026-12-02T10:38:30 2026-12-02T12:38:30"
    )
    job.state, job.end_time = "COMPLETED", NOW - 3600
    assert sq.job_line(sq.parse_format("%M"), job, NOW + 999) == "2:03"
    unlimited = _running()
    assert sq.job_line(sq.parse_format("%e|%L"), unlimited, NOW) == "NONE|UNLIMITED"
    pending = _verified_queue()[2]
    assert sq.job_line(sq.parse_format("%M|%S|%l"), pending, NOW) == "0:00|N/A|NOT_SET"


def test_misc_letters() -> None:
    job = _running()
    job.mem_per_cpu_mb, job.priority = 1024, 1 << 31
    fmt = sq.parse_format("%m %p %Q %t %T %y %o")
    assert sq.job_line(fmt, job, NOW) == (
        "1G 0.50000000000000 2147483648 R RUNNING 0 (null)"
    )
    job.completing = True
    assert sq.job_line(sq.parse_format("%t %T"), job, NOW) == "CG COMPLETING"


def test_default_sort_partition_state_priority() -> None:
    jobs = [
        JobInfo(job_id=1, partition="b", state="PENDING", priority=5),
        JobInfo(job_id=2, partition="a", state="RUNNING", priority=9),
        JobInfo(job_id=3, partition="a", state="PENDING", priority=1),
        JobInfo(job_id=4, partition="a", state="PENDING", priority=7),
        JobInfo(job_id=5, partition="a", state="PENDING", priority=7),
    ]
    assert [j.job_id for j in sq.sort_jobs(jobs)] == [5, 4, 3, 2, 1]
    assert [j.job_id for j in sq.sort_jobs(jobs, "p")] == [3, 1, 5, 4, 2]
    assert [j.job_id for j in sq.sort_jobs(jobs, "-i")] == [5, 4, 3, 2, 1]
    with pytest.raises(sq.FormatError):
        sq.sort_jobs(jobs, "P,%")


# ----------------------------------------------------------------------------- states


def test_state_codes_and_display() -> None:
    assert job_states.compact_state("OUT_OF_MEMORY") == "OOM"
    assert job_states.compact_state("PENDING") == "PD"
    job = JobInfo(state="COMPLETED", completing=True)
    assert job_states.display_state(job) == "COMPLETING"
    assert job_states.display_state_compact(job) == "CG"
    assert job_states.is_shown_by_default(job)
    job.completing = False
    assert not job_states.is_shown_by_default(job)
    assert job_states.is_shown_by_default(JobInfo(state="SUSPENDED"))


def test_parse_state_list() -> None:
    assert job_states.parse_state_list("pd,Running,cg") == {"PENDING", "RUNNING", "COMPLETING"}
    assert job_states.parse_state_list("R,all") == job_states.ALL_STATES
    with pytest.raises(ValueError) as err:
        job_states.parse_state_list("R,bogus")
    assert err.value.args == ("bogus",)


def test_visible_jobs_filters() -> None:
    done = JobInfo(job_id=1, state="COMPLETED")
    run = JobInfo(job_id=2, state="RUNNING")
    assert sq.visible_jobs([done, run], None) == [run]
    states = job_states.parse_state_list("all")
    assert sq.visible_jobs([done, run], states) == [done, run]
    assert sq.visible_jobs([done, run], frozenset({"COMPLETED"})) == [done]


def test_start_format_shows_expected_starts_and_sched_nodes_earliest_first() -> None:
    """squeue --start (§1.1): START_TIME N/A until backfill estimated it, SCHEDNODES (null); the
    N/A ones last and one space before START_TIME, as real Slurm 22.05.8 printed them."""
    known = JobInfo(job_id=662, name="big", user_name="alice", partition="debug", state="PENDING",
                    reason="Resources", num_nodes=2, expected_start=NOW + 3600, sched_nodes="n[1-2]")
    soon = JobInfo(job_id=663, name="small", user_name="alice", partition="debug", state="PENDING",
                   reason="Priority", num_nodes=1, expected_start=NOW + 60, sched_nodes="n3")
    unknown = JobInfo(job_id=664, name="far", user_name="bob", partition="debug", state="PENDING",
                      reason="Priority", num_nodes=1)
    fmt = sq.parse_format(sq.START_FORMAT)
    assert sq.render_jobs(fmt, sq.sort_jobs([known, soon, unknown], "S"), NOW) == [
        "             JOBID PARTITION     NAME     USER ST          START_TIME  NODES SCHEDNODES           NODELIST(REASON)",
        "               663     debug    small    alice PD 2026-12-02T11:41:33      1 n3                   (Priority)",
        "               662     debug      big    alice PD 2026-12-02T12:40:33      2 n[1-2]               (Resources)",
        "               664     debug      far      bob PD                 N/A      1 (null)               (Priority)",
    ]


def test_long_format_colon_without_size_is_natural_and_unknown_names_are_empty() -> None:
    """Slurm 22.05: `-O 'JobID:|,Bogus:|,Name'` prints `JOBID||NAME<pad to 20>` and an error."""
    fmt = sq.parse_long_format("JobID:|,Bogus:|,Name")
    assert fmt.unknown == ("Bogus",)
    assert sq.render_jobs(fmt, [JobInfo(job_id=7, name="x")], NOW) == ["JOBID||NAME" + " " * 16, "7||x" + " " * 19]


def test_noconvert_keeps_memory_in_megabytes() -> None:
    job = JobInfo(job_id=7, mem_per_node_mb=2048)
    fmt = sq.parse_format("%m")
    assert sq.render_jobs(fmt, [job], NOW, header=False) == ["2G"]
    assert sq.render_jobs(fmt, [job], NOW, header=False, fields=sq.NOCONVERT_FIELDS) == ["2048M"]


# ----------------------------------------------------------------------------- brief form


def _every_field_set(**states: object) -> JobInfo:
    """A job with every scalar field set (so a field printed from outside the brief form shows),
    then *states*."""
    job = JobInfo()
    for field in JobInfo.DESCRIPTOR.fields:
        if field.is_repeated or field.message_type is not None:
            continue
        if field.type == field.TYPE_STRING:
            setattr(job, field.name, f"{field.name}-text")
        elif field.type == field.TYPE_BOOL:
            setattr(job, field.name, True)
        elif field.type == field.TYPE_ENUM:
            setattr(job, field.name, 1)
        else:
            setattr(job, field.name, NOW - 500 - field.number)   # an epoch for times, a number for the rest
    for name, value in states.items():
        setattr(job, name, value)
    return job


def _brief_variety() -> list[JobInfo]:
    return [
        _every_field_set(state="PENDING", completing=False, array_job_id=0, start_time=0),
        _every_field_set(state="RUNNING", completing=False, array_job_id=0, time_limit_min=30),
        _every_field_set(state="COMPLETED", completing=True, array_remainder=False, array_task_str="7"),
        _every_field_set(state="PENDING", completing=False, array_remainder=True, array_task_str="1-9"),
        _every_field_set(state="TIMEOUT", completing=False, time_limit_min=-1),
        _running(), *_verified_queue(),
    ]


def _as_brief(job: JobInfo) -> JobBrief:
    """*job* as squeue decodes it from a brief listing (reading any other field raises)."""
    from pyslurm_common.job_brief import brief_copy

    return JobBrief.FromString(brief_copy(job).SerializeToString())


def _line(key: str, job: JobInfo | JobBrief) -> str | None:
    try:
        return sq.job_line(sq.LineFormat("", (sq.Column(key),)), job, NOW)
    except AttributeError:   # a field the brief form does not have
        return None


def test_every_brief_key_prints_the_same_from_the_brief_form() -> None:
    """squeue asks for the brief form when every printed field is in BRIEF_KEYS: each must print
    from types.JobBrief alone exactly what it prints from the whole job."""
    for key in sorted(sq.BRIEF_KEYS):
        for job in _brief_variety():
            assert _line(key, _as_brief(job)) == _line(key, job), key


def test_fields_outside_the_brief_form_are_asked_for_in_full() -> None:
    job = _every_field_set(state="RUNNING", completing=False)
    outside = [key for key in sq.JOB_FIELDS if key not in sq.BRIEF_KEYS]
    assert outside and all(_line(key, _as_brief(job)) != _line(key, job) for key in outside)
    assert sq.brief_enough(sq.parse_format(sq.DEFAULT_FORMAT)) and sq.brief_enough(sq.parse_format(sq.LONG_FORMAT))
    assert not sq.brief_enough(sq.parse_format("%i %Z")) and not sq.brief_enough(sq.parse_format(sq.START_FORMAT))


def test_the_brief_message_has_jobinfos_numbers_and_types() -> None:
    """The controller sends JobInfo bytes that squeue decodes as JobBrief."""
    full = JobInfo.DESCRIPTOR.fields_by_name
    for field in JobBrief.DESCRIPTOR.fields:
        assert (field.number, field.type) == (full[field.name].number, full[field.name].type), field.name


@pytest.mark.parametrize("letter", sorted(sq._SORT_KEYS))
def test_every_sort_key_orders_the_brief_form_alike(letter: str) -> None:
    jobs = _brief_variety()
    for i, job in enumerate(jobs):
        job.job_id = 100 + i
    for spec in (letter, f"-{letter}"):
        assert [j.job_id for j in sq.sort_jobs([_as_brief(j) for j in jobs], spec)] == \
            [j.job_id for j in sq.sort_jobs(jobs, spec)]


def test_state_sort_compares_the_state_names_as_squeue_does() -> None:
    """squeue's sort.c compares the compact (t) or long (T) names as strings: real Slurm 22.05 lists
    `squeue -t all -o '%i %t'` of a completed, a pending and a cancelled job as CA, CD, PD
    (tests/differential). A completing job sorts as CG / COMPLETING; a lower-case name as its own."""
    jobs = [JobInfo(job_id=1, state="RUNNING"), JobInfo(job_id=2, state="PENDING"),
            JobInfo(job_id=3, state="COMPLETED"), JobInfo(job_id=4, state="CANCELLED"),
            JobInfo(job_id=5, state="RUNNING", completing=True), JobInfo(job_id=6, state="running")]
    assert [j.job_id for j in sq.sort_jobs(jobs, "t")] == [4, 3, 5, 2, 1, 6]
    assert [j.job_id for j in sq.sort_jobs(jobs, "-T")] == [6, 1, 2, 5, 3, 4]


def test_a_remainder_of_one_index_is_listed_as_that_task() -> None:
    """Real Slurm 22.05.8, `sbatch --array=0-1 -n 2` on a 2-CPU node: squeue lists `2_0` RUNNING and
    `2_1` PENDING (not `2_[1]`); two indices or more left keep the brackets."""
    one = JobInfo(job_id=2, array_job_id=2, array_task_str="1", array_remainder=True, state="PENDING")
    more = JobInfo(job_id=2, array_job_id=2, array_task_str="1-3", array_remainder=True, array_throttle=2,
                   state="PENDING")
    assert (sq.job_id_text(one), sq.job_id_text(more)) == ("2_1", "2_[1-3%2]")
