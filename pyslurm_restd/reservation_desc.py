"""Slurm's ``reservation_desc_msg`` (POST reservation, POST reservations/) into the words
`scontrol create|update reservation` sends, checked by the same shared reader the controller and
scontrol use (pyslurm_common.reservation_spec): a reservation that exists is updated, another is
created, as slurmrestd's _create_or_update_each_resv does. Fields pyslurm does not act on
(burst_buffer, features, groups, max_start_delay, tres, purge_completed) are refused by name
unless at Slurm's default.
"""
from __future__ import annotations

import time
from typing import Any

from pyslurm_common.errors import ERRNO, Strerror
from pyslurm_common.reservation_spec import CREATED, UPDATED, SpecError, creation_problem, parse_words

from .envelope import RestError
from .job_desc_extra import is_default, names, number, text

_TIME = "%Y-%m-%dT%H:%M:%S"
INVALID = ERRNO[Strerror.INVALID_RESERVATION]


def _refused(why: str, source: str) -> RestError:
    return RestError(why, INVALID, source, Strerror.INVALID_RESERVATION)


def _when(value: Any, field: str) -> str:
    seconds = number(value, field, 2**63 - 1)
    return time.strftime(_TIME, time.localtime(seconds or 0))


# field -> the scontrol key and how its value is written
_WORDS = {
    "start_time": ("StartTime", _when), "end_time": ("EndTime", _when),
    "duration": ("Duration", lambda v, f: "UNLIMITED" if number(v, f) == -1 else str(number(v, f) or 0)),
    "node_list": ("Nodes", lambda v, f: ",".join(names(v, f))), "node_count": ("NodeCnt", lambda v, f: str(number(v, f))),
    "core_count": ("CoreCnt", lambda v, f: str(number(v, f))), "partition": ("PartitionName", text),
    "users": ("Users", lambda v, f: ",".join(names(v, f))), "accounts": ("Accounts", lambda v, f: ",".join(names(v, f))),
    "licenses": ("Licenses", lambda v, f: ",".join(names(v, f))), "flags": ("Flags", lambda v, f: ",".join(names(v, f))),
}


def words(desc: dict[str, Any], source: str) -> tuple[str, list[str]]:
    """The reservation's name and its settings as scontrol words; RestError if one is refused."""
    name = desc.get("name")
    if not isinstance(name, str) or not name:
        raise _refused("Reservation must be given.", source)
    settings = []
    for field, value in desc.items():
        if field == "name":
            continue
        if field in _WORDS:
            if not is_default(value):
                key, write = _WORDS[field]
                settings.append(f"{key}={write(value, field)}")
        elif not is_default(value):
            raise _refused(f"Reservation field not supported by pyslurm: {field}", source)
    return name, settings


def checked(name: str, settings: list[str], exists: bool, source: str) -> None:
    """scontrol's checks of the words (and, for a new reservation, of what creation needs)."""
    try:
        spec = parse_words([f"ReservationName={name}", *settings], int(time.time()), UPDATED if exists else CREATED)
    except SpecError as exc:
        raise _refused(str(exc), source) from None
    problem = None if exists else creation_problem(spec)
    if problem is not None:
        raise _refused(problem, source)
