"""strigger: set, get or clear event triggers, as Slurm 22.05's strigger(1).

The checks and their words are strigger's own (src/strigger/opts.c, before anything is sent),
the refusals the controller's (`slurm_set_trigger: <error>`), the listing its printf layout.
Triggers on the controllers, the accounting daemon, the database, burst buffers and front end
nodes are refused here: pyslurm has none of those events to fire them.
"""
from __future__ import annotations

import os
import pwd
import stat
import sys
import time
from collections.abc import Sequence

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.rpc import messages as pb

from . import client
from .app import die, run
from .option_tables import strigger as spec
from .query_command import parse

PROG = "strigger"
# strigger's options for each event, in the order of Slurm's TRIGGER_TYPE_* bits.
EVENTS = ("up", "down", "fail", "time", "fini", "reconfig", "idle", "drained")
NODE_EVENT_OPTIONS = ("down", "drained", "fail", "idle", "up", "reconfig")
UNSUPPORTED = ("primary_slurmctld_failure", "primary_slurmctld_resumed_operation",
               "primary_slurmctld_resumed_control", "primary_slurmctld_acct_buffer_full",
               "backup_slurmctld_failure", "backup_slurmctld_resumed_operation",
               "backup_slurmctld_assumed_control", "primary_slurmdbd_failure",
               "primary_slurmdbd_resumed_operation", "primary_database_failure",
               "primary_database_resumed_operation", "burst_buffer", "front_end")
NO_TRIGGER = ("You must specify a trigger (--down, --up, --reconfig, --time, --fini, --burst_buffer,\n"
              "--primary_slurmctld_failure,\n--primary_slurmctld_resumed_operation,\n"
              "--primary_slurmctld_resumed_control,\n--primary_slurmctld_acct_buffer_full,\n"
              "--backup_slurmctld_failure,\n--backup_slurmctld_resumed_operation,\n"
              "--backup_slurmctld_as_ctrl,\n--primary_slurmdbd_failure,\n"
              "--primary_slurmdbd_resumed_operation,\n--primary_database_failure, or \n"
              "--primary_database_resumed_operation)\n")
HEADER = "TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER     FLAGS PROGRAM"
RETRY_WAIT = 5      # strigger --set sleeps this long after EAGAIN, then asks again


def c_long(text: str) -> int:
    """C's atol: leading blanks, a sign, the digits that follow; 0 when there are none."""
    text = text.lstrip()
    sign, digits = (-1, text[1:]) if text.startswith("-") else (1, text.removeprefix("+"))
    end = len(digits) - len(digits.lstrip("0123456789"))
    return sign * int(digits[:end]) if end else 0


def _uid_of(text: str) -> int | None:
    """Slurm's uid_from_string: a user name, else a uid that names a user."""
    try:
        return pwd.getpwnam(text).pw_uid
    except KeyError:
        pass
    if text.isdigit():
        try:
            return pwd.getpwuid(int(text)).pw_uid
        except KeyError:
            return None
    return None


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def render(triggers: Sequence[pb.TriggerInfo], header: bool) -> str:
    """strigger --get's lines: printf("%7u %-9s %7s %-35s %6d %-8s %-5s %s")."""
    lines = [HEADER] if header and triggers else []
    for t in triggers:
        kind = t.events[0] if len(t.events) == 1 else "unknown"
        lines.append(f"{t.trig_id:>7} {t.res_type:<9} {t.res_id:>7} {kind:<35} {t.offset:>6} "
                     f"{_user_name(t.uid):<8} {'PERM' if t.perm else '':<5} {t.program}")
    return "".join(line + "\n" for line in lines)


def _shown(t: pb.TriggerInfo, values: dict[str, object], job_id: int, trig_id: int, user: int | None) -> bool:
    """strigger's own filters over every trigger (the controller sends them all)."""
    only = t.events[0] if len(t.events) == 1 else "unknown"
    for option, res_type, event in (("fini", None, "fini"), ("down", "node", "down"), ("drained", "node", "drained"),
                                    ("fail", "node", "fail"), ("idle", "node", "idle"), ("up", "node", "up"),
                                    ("time", "job", "time")):
        if values.get(option) and ((res_type is not None and t.res_type != res_type) or only != event):
            return False
    if job_id and (t.res_type != "job" or c_long(t.res_id) != job_id):
        return False
    if values.get("node") is not None and t.res_type != "node":
        return False
    if trig_id and t.trig_id != trig_id:
        return False
    return user is None or t.uid == user


def strigger(args: Sequence[str]) -> None:
    """Set, get or clear Slurm trigger information."""
    values, _operands = parse(spec, args)
    job_id = 0
    if values.get("jobid") is not None:
        job_id = c_long(str(values["jobid"]))
        if job_id <= 0:
            die(f"Invalid jobid {values['jobid']}")
    if values.get("clusters") is not None:
        from .cluster_option import check_clusters, this_cluster

        check_clusters(PROG, str(values["clusters"]), this_cluster())
    perm = False
    if values.get("flags") is not None:
        if not str(values["flags"]).lower().startswith("perm"):
            die(f"Invalid flags {values['flags']}")
        perm = True
    user: int | None = None
    if values.get("user") is not None:
        user = _uid_of(str(values["user"]))
        if user is None:
            die(f"Invalid user {values['user']}")
    trig_id = c_long(str(values["id"])) if values.get("id") is not None else 0
    offset = c_long(str(values["offset"])) if values.get("offset") is not None else 0
    program = str(values["program"]) if values.get("program") is not None else None
    modes = [mode for mode in ("set", "get", "clear") if values.get(mode)]
    if len(modes) != 1:
        die("You must use exactly one of the following options: --set, --get or --clear")
    mode = modes[0]
    if mode == "clear" and user is None and not trig_id and not job_id:
        die("You must specify a --id, --jobid, or --user to clear")
    events = [event for event in EVENTS if values.get(event)]
    if mode == "set" and not events and not any(values.get(option) for option in UNSUPPORTED):
        die(NO_TRIGGER)
    if mode == "set" and program is None:
        die("You must specify a --program value")
    if (values.get("fini") or values.get("time")) and not job_id:
        die("You must specify a --jobid value")
    if program is not None:
        _check_program(program)
    if not -32000 <= offset <= 32000:
        die("The --offset parameter must be between +/-32000")
    if mode == "set":
        unsupported = [option for option in UNSUPPORTED if values.get(option)]
        if unsupported:
            die(f"--{unsupported[0]} triggers are not supported: pyslurm has no such event")
        node = values.get("node")
        assert program is not None
        request = pb.TriggerInfo(res_type="job" if job_id else "node",
                                 res_id=str(job_id) if job_id else (node if isinstance(node, str) else "*"),
                                 events=events, offset=offset, program=program, perm=perm)
        _set(request)
    elif mode == "get":
        try:
            listed = client.controller("GetTriggers", pb.Empty(), pb.TriggerList).triggers
        except SlurmError as exc:
            _failed("slurm_get_triggers", exc)
        sys.stdout.write(render([t for t in listed if _shown(t, values, job_id, trig_id, user)],
                                not values.get("noheader")))
    else:
        try:
            client.controller("ClearTriggers", pb.TriggerClear(trig_id=trig_id, job_id=job_id,
                                                               has_user=user is not None, user=user or 0), pb.Empty)
        except SlurmError as exc:
            if not values.get("quiet"):
                _failed("slurm_clear_trigger", exc)


def _check_program(program: str) -> None:
    if not program.startswith("/"):
        die('The --program value must start with "/"')
    path = program.split()[0] if program.split() else program
    try:
        mode = os.stat(path).st_mode
    except OSError:
        die("Invalid --program value, file not found")
    if not stat.S_ISREG(mode):
        die("Invalid --program value, not regular file")


def _set(request: pb.TriggerInfo) -> None:
    while True:
        try:
            client.controller("SetTrigger", request, pb.Empty)
            return
        except SlurmError as exc:
            print(f"slurm_set_trigger: {exc.strerror}", file=sys.stderr)
            if exc.strerror != Strerror.TRY_AGAIN:
                raise SystemExit(1) from None
        time.sleep(RETRY_WAIT)


def _failed(call: str, exc: SlurmError) -> None:
    print(f"{call}: {exc.strerror}", file=sys.stderr)
    raise SystemExit(1)


def main() -> None:
    run(PROG, strigger)
