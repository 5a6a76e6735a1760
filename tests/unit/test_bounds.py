"""bounds.py: Slurm's ranges, and every parser that takes numbers applies them."""
from __future__ import annotations

from pathlib import Path

import pytest

from pyslurm_common import bounds
from pyslurm_common.array_spec import parse_array_spec, parse_job_spec
from pyslurm_common.conf_syntax import ConfigError, Token
from pyslurm_common.dates import parse_datetime
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.units import parse_memory_mb, parse_time_limit

HUGE = "99999999999999999999"


def test_a_bound_takes_its_range_and_nothing_else() -> None:
    assert bounds.JOB_ID.parse("4294967293") == 4294967293
    for text in ("0", "4294967294", HUGE, "", "12a", "+5", "-1", "١٢", "9" * 400):
        assert not bounds.JOB_ID.accepts(text), text
    assert bounds.NICE.parse("-2147483645") == -bounds.NICE_MAX
    assert not bounds.NICE.accepts("2147483646")
    assert bounds.TIME_LIMIT_MIN.check(bounds.UNLIMITED) == bounds.UNLIMITED


def test_refuse_answers_with_the_controllers_strerror() -> None:
    with pytest.raises(SlurmError) as caught:
        bounds.TIME_LIMIT_MIN.refuse(1 << 62)
    assert caught.value.strerror == Strerror.INVALID_TIME_LIMIT


class Desc:
    """A JobDesc as the wire could carry it: any value each field's type holds."""
    min_nodes = num_tasks = cpus_per_task = gpus = gpus_per_node = gpus_per_task = 0
    mem_per_node_mb = mem_per_cpu_mb = nice = signal_number = signal_seconds = begin_time = umask = 0
    time_limit_min = time_min = deadline = priority = sockets_per_node = cores_per_socket = alloc_resp_port = 0


@pytest.mark.parametrize(("field", "value", "strerror"), [
    ("time_limit_min", (1 << 63) - 1, Strerror.INVALID_TIME_LIMIT),
    ("time_limit_min", -5, Strerror.INVALID_TIME_LIMIT),
    ("min_nodes", 0xFFFFFFFF, Strerror.NODE_COUNT_INVALID),
    ("num_tasks", 0xFFFFFFFE, Strerror.BAD_TASK_COUNT),
    ("cpus_per_task", 70000, Strerror.INVALID_CPU_COUNT),
    ("mem_per_node_mb", (1 << 64) - 1, Strerror.INVALID_TASK_MEMORY),
    ("nice", -(1 << 31), Strerror.INVALID_NICE),
    ("begin_time", (1 << 63) - 1, Strerror.INVALID_TIME_VALUE),
    ("time_min", (1 << 63) - 1, Strerror.INVALID_TIME_MIN),
    ("deadline", (1 << 63) - 1, Strerror.INVALID_TIME_VALUE),
    ("sockets_per_node", 70000, Strerror.BAD_NODE_CONFIG),
    ("alloc_resp_port", 70000, Strerror.INVALID_ARGUMENT),
])
def test_job_desc_numbers_out_of_range_are_refused(field: str, value: int, strerror: Strerror) -> None:
    desc = Desc()
    bounds.check_fields(desc)                 # all unset: fine
    setattr(desc, field, value)
    with pytest.raises(SlurmError) as caught:
        bounds.check_fields(desc)
    assert caught.value.strerror == strerror


def test_parsers_apply_the_bounds() -> None:
    assert parse_time_limit("4294967293") == 4294967293
    for text in (HUGE, "4294967294", f"{HUGE}-0", "99999999999:0:0"):
        with pytest.raises(ValueError):
            parse_time_limit(text)
    with pytest.raises(ValueError):
        parse_memory_mb("99999999999999999999999")
    with pytest.raises(ValueError):
        parse_memory_mb("9999999999T")
    with pytest.raises(ValueError):
        parse_datetime(f"now+{HUGE}", 1_700_000_000)
    with pytest.raises(ValueError):       # refused before a range of 10**11 indices is built
        parse_array_spec("0-99999999999")
    with pytest.raises(ValueError):
        parse_job_spec(f"{HUGE}_1")
    with pytest.raises(ValueError):
        parse_job_spec("5_[0-99999999999]")


@pytest.mark.parametrize(("key", "value", "convert"), [
    ("RealMemory", "99999999999999999999999", Token.as_memory_mb),
    ("MaxTime", HUGE, Token.as_time_limit),
    ("KillWait", HUGE, Token.as_int),
])
def test_config_values_out_of_range_name_file_line_and_key(key: str, value: str, convert: object) -> None:
    with pytest.raises(ConfigError) as caught:
        convert(Token(key, value, Path("/etc/slurm.conf"), 7))  # type: ignore[operator]
    assert str(caught.value) == f"/etc/slurm.conf:7: {key} value ({value}) is out of range"
