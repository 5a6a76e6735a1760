"""sacctmgr: view and change clusters, accounts, users, associations and QOS in accounting.

A change is first sent with ``commit=false``: the accounting daemon checks it and says what it
would do, which is printed the way Slurm prints it (spec §3.4); then, unless ``-i``, sacctmgr
asks ``Would you like to commit changes? (You have 30 seconds to decide)`` and sends it again
with ``commit=true`` only on ``y``. ``show`` renders through ``cli.print_fields``.
"""
from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import messages as pb

from . import client, sacct_database, sacctmgr_args, sacctmgr_coordinators, sacctmgr_events, sacctmgr_fields
from .app import CliError, run
from .option_tables import sacctmgr as spec
from .print_fields import FormatError, Parsable, render
from .query_command import parse

PROG = "sacctmgr"
COMMIT_TIMEOUT = 30
_PLURAL = {"account": "accounts", "user": "users", "qos": "QOS(s)", "cluster": "clusters"}
_ADDING = {"account": " Adding Account(s)", "user": " Adding User(s)", "qos": " Adding QOS(s)",
           "cluster": " Adding Cluster(s)"}  # fmt: skip


def sacctmgr(args: Sequence[str]) -> None:
    """View or modify Slurm account information."""
    values, operands = parse(spec, args)   # options may stand among the command words, as getopt permutes
    words = tuple(operands)
    # -o/--oneliner: Slurm's sacctmgr sets it and prints nothing differently; -v raises only its
    # log level. Both are accepted as there.
    immediate, noheader, quiet = (bool(values.get(d)) for d in ("immediate", "noheader", "quiet"))
    parsable, parsable2, associations = (bool(values.get(d)) for d in ("parsable", "parsable2", "associations"))
    delimiter = "|"
    if [w.lower() for w in words] == ["version"]:   # the command word, as -V/--version
        from .command_line import VERSION_LINE

        print(VERSION_LINE)
        return
    try:
        request = sacctmgr_args.parse(list(words))
    except sacctmgr_args.ArgumentError as exc:
        _fail(str(exc))
    if request.command == "show":
        request.with_assoc = request.with_assoc or associations
        mode = Parsable.NO_TRAILING if parsable2 else Parsable.TRAILING if parsable else Parsable.NONE
        if request.entity == "coordinator":
            _fail(sacctmgr_coordinators.SHOW_REFUSAL)
        if request.entity in ("event", "reservation"):
            _show_records(request, mode, delimiter, not noheader)
        elif request.entity == "stats":
            _show_stats(request.names)
        else:
            _show(request, mode, delimiter, not noheader)
        return
    if values.get("readonly"):
        _fail("Can't run this command in readonly mode.")
    if request.entity == "event":
        _fail(" Events are recorded by the controller; they can only be listed ('show event')")
    if request.entity in ("stats", "reservation"):
        _fail(f" Unknown entity '{words[1]}'")
    if request.entity == "association":
        _fail(" Associations are changed through their user or account (e.g. 'modify user ... set')")
    if request.entity == "tres":
        _fail(" TRES are set by AccountingStorageTRES in slurm.conf, not changed with sacctmgr")
    change = pb.AssociationChange(
        action=request.command, entity=request.entity, names=request.names,
        where=[pb.Setting(key=s.key, op=s.op, value=s.value) for s in request.where],
        set=[pb.Setting(key=s.key, op=s.op, value=s.value) for s in request.set], commit=immediate)
    result = _send(change, request)
    if request.entity == "coordinator":
        _coordinator_report(request, result, quiet)
    elif not (result.names or result.associations):
        _fail({"add": " Nothing new added.", "modify": " Nothing modified",
               "delete": " Nothing deleted"}[request.command], stream=sys.stdout)
    elif not quiet:
        sys.stdout.write("".join(line + "\n" for line in report_lines(request.command, request.entity, result)))
    if immediate:
        return
    if not _confirm():
        print(" Changes Discarded")
        return
    change.commit = True
    _send(change, request)


def _send(change: "pb.AssociationChange", request: sacctmgr_args.Request) -> "pb.AssociationChangeResult":
    try:
        return sacct_database.call("ChangeAssociations", change, pb.AssociationChangeResult)
    except SlurmError as exc:
        if exc.strerror == Strerror.ACCESS_DENIED and request.entity == "coordinator":
            print("\n".join(sacctmgr_coordinators.heading(request)))
            sys.stdout.flush()
            for line in sacctmgr_coordinators.denied_lines(request.command, exc.detail or exc.strerror,
                                                              exc.strerror):
                print(line, file=sys.stderr)
            raise SystemExit(1) from None
        if exc.strerror == Strerror.ACCESS_DENIED and request.command == "add":   # Slurm 22.05: one line
            _fail(f" Problem adding {_PLURAL[request.entity]}: {exc.strerror}")
        if exc.strerror == Strerror.ACCESS_DENIED:
            print(f"{PROG}: error: {exc.detail or exc.strerror}", file=sys.stderr)
            _fail(f" Error with request: {exc.strerror}")
        _fail(exc.detail or f" {exc.strerror}")


def _coordinator_report(request: sacctmgr_args.Request, result: "pb.AssociationChangeResult", quiet: bool) -> None:
    lines = [] if quiet else sacctmgr_coordinators.heading(request)
    if request.command == "delete":
        if not result.associations:
            sys.stdout.write("".join(line + "\n" for line in lines))
            _fail(" Nothing removed", stream=sys.stdout)
        if not quiet:
            lines += sacctmgr_coordinators.removed([(a.user, a.account) for a in result.associations])
    sys.stdout.write("".join(line + "\n" for line in lines))


def _fail(text: str, stream: TextIO | None = None) -> NoReturn:
    """Slurm's sacctmgr reports its own errors as bare lines (leading space), exit status 1."""
    print(text, file=stream or sys.stderr)
    sys.stdout.flush()
    raise SystemExit(1)


def _confirm() -> bool:
    """Slurm's commit_check: one answer within 30 s; only y/Y commits."""
    sys.stdout.write("Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): ")
    sys.stdout.flush()
    ready, _, _ = select.select([sys.stdin], [], [], COMMIT_TIMEOUT)
    if not ready:
        print("timeout")
        return False
    answer = os.read(sys.stdin.fileno(), 1).decode(errors="replace")
    print()
    return answer in ("y", "Y")


def _association_line(key: "pb.AssociationKey", user_first: bool) -> str:
    if user_first:
        line = f"  U = {key.user:<9.9} A = {key.account:<10.10} C = {key.cluster:<10.10}"
        return line + (f" P = {key.partition:<10.10}" if key.partition else "")
    if key.user:
        line = f"  C = {key.cluster:<10.10} A = {key.account:<20.20} U = {key.user:<9.9}"
    else:
        line = f"  C = {key.cluster:<10.10} A = {key.account:<20.20}"
    return line + (f" P = {key.partition:<10.10}" if key.partition else "")


def _settings(settings: "list[pb.Setting]", width: int) -> list[str]:
    return [f"  {s.key:<{width}} = {s.value}" for s in settings]


_HEADINGS = {
    ("modify", "account"): " Modified accounts...", ("modify", "user"): " Modified users...",
    ("modify", "qos"): " Modified qos...", ("delete", "account"): " Deleting accounts...",
    ("delete", "user"): " Deleting users...", ("delete", "qos"): " Deleting QOS(s)...",
    ("delete", "cluster"): " Deleting clusters...",
}  # fmt: skip


def report_lines(command: str, entity: str, result: "pb.AssociationChangeResult") -> list[str]:
    """What sacctmgr prints about a change (spec §3.4), before asking to commit it."""
    if command == "add":
        return _add_lines(entity, result)
    lines: list[str] = []
    if result.names:
        lines += [_HEADINGS[(command, entity)], *(f"  {name}" for name in result.names)]
    # Deleting a whole user or account takes its associations along without listing them.
    if result.associations and (command == "modify" or not result.names):
        kind = "user" if any(a.user for a in result.associations) else "account"
        verb = "Modified" if command == "modify" else "Deleting"
        lines.append(f" {verb} {kind} associations...")
        lines += [_association_line(a, user_first=False) for a in result.associations]
    return lines


def _add_lines(entity: str, result: "pb.AssociationChangeResult") -> list[str]:
    lines: list[str] = []
    if entity == "cluster":
        lines.append(_ADDING[entity])
        lines += [f"  Name           = {name}" for name in result.names]
        if result.limits:
            lines += [" Settings", *_settings(list(result.limits), 15)]
        return lines
    if result.names:
        lines.append(_ADDING[entity])
        lines += [f"  {name}" for name in result.names]
    if entity == "qos":
        return lines + [" Settings", *_settings(list(result.settings), 14)]
    if entity == "account":
        lines += [" Settings", *_settings(list(result.settings), 15), " Associations"]
        lines += [f"  A = {a.account:<10.10} C = {a.cluster:<10.10}" for a in result.associations]
        if result.limits:
            lines += [" Settings", *_settings(list(result.limits), 15)]
        return lines
    if result.settings:
        lines += [" Settings =", *_settings(list(result.settings), 15)]
    lines += [" Associations =", *(_association_line(a, user_first=True) for a in result.associations)]
    lines += [" Non Default Settings", *_settings(list(result.limits), 15)] if result.limits else []
    return lines


def _show(request: sacctmgr_args.Request, mode: Parsable, delimiter: str, header: bool) -> None:
    try:
        names, columns = sacctmgr_fields.columns(request.entity, request.format, request.with_assoc,
                                                 request.wo_limits, request.tree, request.with_coord)
    except FormatError as exc:
        raise CliError(str(exc)) from None
    show = pb.AssociationShow(entity=request.entity, with_assoc=request.with_assoc,
                              where=[pb.Setting(key=s.key, op=s.op, value=s.value) for s in request.where])
    try:
        found = sacct_database.call("ShowAssociations", show, pb.AssociationEntities)
    except SlurmError as exc:
        _fail(exc.detail or f" {exc.strerror}")
    rows = list(_rows(request, found))
    lines = render(columns, (sacctmgr_fields.values(request.entity, names, request.with_assoc, r) for r in rows),
                   parsable=mode, delimiter=delimiter, header=header)
    sys.stdout.write("".join(line + "\n" for line in lines))


def _show_records(request: sacctmgr_args.Request, mode: Parsable, delimiter: str, header: bool) -> None:
    """``show event`` and ``show reservation``: records the controller sent to accounting."""
    from . import sacctmgr_reservations

    now = time.time()
    events = request.entity == "event"
    try:
        if events:
            query: Any = sacctmgr_events.query(request.where, client.cluster_config().cluster_name, now)
            names, columns = sacctmgr_events.columns(request.format, query.kind == "cluster")
        else:
            query = sacctmgr_reservations.query(request.where, now)
            names, columns = sacctmgr_reservations.columns(request.format)
    except sacctmgr_events.EventArgumentError as exc:
        _fail(str(exc))
    except FormatError as exc:
        raise CliError(str(exc)) from None
    try:
        found = sacct_database.call(*(("QueryEvents", query, pb.NodeEventList) if events else
                                      ("QueryReservations", query, pb.ReservationRecordList)))
    except SlurmError as exc:
        _fail(f" Error with request: {exc.detail or exc.strerror}")
    rows = ((sacctmgr_events.values(names, e, int(now)) for e in found.events) if events else
            (sacctmgr_reservations.values(names, r, mode is not Parsable.NONE) for r in found.reservations))
    lines = render(columns, rows, parsable=mode, delimiter=delimiter, header=header)
    sys.stdout.write("".join(line + "\n" for line in lines))


def _show_stats(words: list[str]) -> None:
    from . import sacctmgr_stats

    sort = next((key for key in sacctmgr_stats.SORT_KEYS if words and key.startswith(words[0].lower()[:2])), None)
    try:
        stats = sacct_database.call("GetStats", pb.Empty(), pb.AccountingStats)
    except SlurmError as exc:
        if exc.strerror == Strerror.ACCESS_DENIED:
            # slurmdbd's reply for someone not a super user, as sacctmgr prints it
            _fail("sacctmgr: RC:2002 Your user doesn't have privilege to perform this action")
        _fail(f" Error with request: {exc.detail or exc.strerror}")
    sys.stdout.write(sacctmgr_stats.render(stats, int(time.time()), sort))


def _rows(request: sacctmgr_args.Request, found: "pb.AssociationEntities") -> list[sacctmgr_fields.Row]:
    Row = sacctmgr_fields.Row
    if request.entity == "association":
        if request.tree:
            depths = sacctmgr_fields.tree_depths(list(found.associations))
            return [Row(None, a, depth) for a, depth in zip(found.associations, depths, strict=True)]
        return [Row(None, a) for a in found.associations]
    if request.entity == "qos":
        return [Row(q) for q in found.qos]
    if request.entity == "tres":
        return [Row(t) for t in found.tres]
    if request.entity == "cluster":
        return [Row(c, c.root if c.HasField("root") else None) for c in found.clusters]
    entities = found.accounts if request.entity == "account" else found.users
    if not request.with_assoc:
        return [Row(e) for e in entities]
    rows = []
    for entity in entities:
        mine = [a for a in found.associations
                if (a.key.account if request.entity == "account" else a.key.user) == entity.name]
        rows += [Row(entity, a) for a in mine] or [Row(entity)]
    return rows


def main() -> None:
    run(PROG, sacctmgr)
