"""Reservations on the command line: `scontrol create|update|delete reservation`, `scontrol show
reservation` and `sinfo -T`, with scontrol's own checks and messages and Slurm 22.05's layouts.

scontrol reads the words with pyslurm_common.reservation_spec before it asks the controller
(which reads them again): a bad word is `scontrol: error: <why>`, exit 1; a refusal from the
controller is `Error creating the reservation: <strerror>` (slurm_perror's form).
"""
from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Sequence
from typing import NoReturn

from pyslurm_common import units
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.reservation_spec import CREATED, UPDATED, SpecError, creation_problem, parse_words
from pyslurm_common.rpc import messages as pb

from . import client

BUSY_NOTE = ("Note, unless nodes are directly requested a reservation must exist in a single partition.\n"
             "If no partition is requested the default partition is assumed.")


def _fail(*lines: str) -> NoReturn:
    for line in lines:
        print(line, file=sys.stderr)
    raise SystemExit(1)


def _refusal(exc: SlurmError, failure: str, *more: str) -> NoReturn:
    """`more`: further lines scontrol prints after slurm_perror's (update: slurm_update error)."""
    details = [f"scontrol: error: {line}" for line in exc.detail.split("\n") if line]
    if exc.strerror == Strerror.STEP_NODES_BUSY and failure.startswith("Error creating"):
        print(BUSY_NOTE)
    _fail(*details, f"{failure}: {exc.strerror}", *(f"{line}: {exc.strerror}" for line in more))


def _edit(action: str, name: str, settings: Sequence[str]) -> str:
    reply = client.controller("EditReservation", pb.ReservationEdit(action=action, name=name, settings=list(settings)),
                              pb.ReservationEditReply)
    return str(reply.name)


def create(words: list[str]) -> None:
    try:
        spec = parse_words(words, int(time.time()), CREATED)
    except SpecError as exc:
        _fail(f"scontrol: error: {exc}")
    problem = creation_problem(spec)
    if problem is not None:
        _fail(f"scontrol: error: {problem}")
    try:
        name = _edit("create", "", words)
    except SlurmError as exc:
        _refusal(exc, "Error creating the reservation")
    print(f"Reservation created: {name}")


def update(words: list[str]) -> None:
    try:
        spec = parse_words(words, int(time.time()), UPDATED)
    except SpecError as exc:
        _fail(f"scontrol: error: {exc}")
    if spec.name is None:
        _fail(f"scontrol: error: Reservation must be given.  {UPDATED}")
    settings = [w for w in words if "=" in w and not is_name_key(w.partition("=")[0])]
    try:
        _edit("update", spec.name, settings)
    except SlurmError as exc:
        _refusal(exc, "Error updating the reservation", "slurm_update error")
    print("Reservation updated.")


def is_name_key(tag: str) -> bool:
    return len(tag) >= 3 and "reservationname".startswith(tag.lower())


def delete(entity: str, name: str) -> None:
    """`delete reservation=<name>` or `delete reservation <name>`: nothing printed on success."""
    try:
        _edit("delete", name, ())
    except SlurmError as exc:
        _fail(f"delete_reservation {entity}: {exc.strerror}")


def show(name: str, oneliner: bool) -> None:
    found = list(client.controller("GetReservations", pb.Empty(), pb.ReservationList).reservations)
    if name:
        found = [r for r in found if r.name == name]
        if not found:
            print(f"Reservation {name} not found")   # on stdout, as Slurm's scontrol prints it
            raise SystemExit(1)
    if not found:
        print("No reservations in the system")
        return
    sys.stdout.write("".join(show_text(r, int(time.time()), oneliner) for r in found))


def _null(text: str) -> str:
    return text or "(null)"


def _duration(resv: pb.ReservationInfo) -> str:
    return units.format_duration_hms(resv.end_time - resv.start_time)


def _state(resv: pb.ReservationInfo, now: int) -> str:
    return "ACTIVE" if resv.start_time <= now <= resv.end_time else "INACTIVE"


def show_text(resv: pb.ReservationInfo, now: int, oneliner: bool = False) -> str:
    """One record of `scontrol show reservation` (slurm_sprint_reservation_info's layout)."""
    lines = [
        f"ReservationName={resv.name} StartTime={units.format_timestamp(resv.start_time)} "
        f"EndTime={units.format_timestamp(resv.end_time)} Duration={_duration(resv)}",
        f"Nodes={_null(resv.nodes)} NodeCnt={resv.node_count} CoreCnt={resv.core_count} Features=(null) "
        f"PartitionName={_null(resv.partition)} Flags={resv.flags}",
        *(f"  NodeName={node} CoreIDs={ids}" for node, ids in zip(resv.core_nodes, resv.core_ids)),
        f"TRES={resv.tres}",
        f"Users={_null(resv.users)} Groups=(null) Accounts={_null(resv.accounts)} Licenses={_null(resv.licenses)} "
        f"State={_state(resv, now)} BurstBuffer=(null) Watts=n/a",
        "MaxStartDelay=(null)",
    ]
    return (" ".join(lines) + "\n") if oneliner else ("\n   ".join(lines) + "\n\n")


def sinfo_lines(reservations: Iterable[pb.ReservationInfo], now: int, header: bool = True) -> list[str]:
    """`sinfo -T`: Slurm pads names to the longest (at least 9) only when it prints the header."""
    found = list(reservations)
    width = max([9, *(len(r.name) for r in found)]) if header else 9

    def row(*cells: str) -> str:
        name, state, start, end, duration, nodes = cells
        return f"{name:<{width}}  {state:>8}  {start:>19}  {end:>19}  {duration:>11}  {nodes}"

    lines = [row("RESV_NAME", "STATE", "START_TIME", "END_TIME", "DURATION", "NODELIST")] if header else []
    return lines + [row(r.name, _state(r, now), units.format_timestamp(r.start_time),
                        units.format_timestamp(r.end_time), _duration(r), _null(r.nodes)) for r in found]
