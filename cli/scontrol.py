"""scontrol: show and change controller state (jobs, nodes, partitions, config)."""
from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from typing import Callable, NoReturn

from pyslurm_common import bounds, hostlist, units
from pyslurm_common.bounds import JOB_ID, STEP_ID
from pyslurm_common.errors import SlurmError
from pyslurm_common.job_update_keys import JOB_UPDATE_KEYS
from pyslurm_common.rpc import messages as pb

from . import client, reservations, scontrol_show
from .app import die, run
from .option_tables import scontrol as spec
from .query_command import last_says, parse

PROG = "scontrol"


def _words_to_pairs(words: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for word in words:
        key, sep, value = word.partition("=")
        pairs.append((key.lower(), value if sep else ""))
    return pairs


def show(words: list[str], oneliner: bool, show_all: bool = False, details: bool = False) -> None:
    """`show <entity> [name]`; `show_all` (-a) includes Hidden=YES partitions, as Slurm's SHOW_ALL;
    `details` (-d) adds what Slurm's SHOW_DETAIL prints."""
    if not words:
        die("too few arguments for keyword:show")
    entity, _, inline = words[0].partition("=")
    entity = entity.lower()
    arg = inline or (words[1] if len(words) > 1 else "")
    if entity in ("job", "jobs"):
        from . import job_lists

        try:
            specs = job_lists.parse_job_list(arg)   # 123, 123_5, 123_[1-3]
        except ValueError:
            die("Invalid job id specified")
        try:
            reply = client.controller("GetJobs", pb.JobQuery(job_ids=[s.job_id for s in specs]), pb.JobList)
        except SlurmError as exc:
            print(f"slurm_load_jobs error: {exc.strerror}", file=sys.stderr)
            raise SystemExit(1)
        jobs = sorted(job_lists.named(reply.jobs, specs), key=lambda j: j.job_id)
        if not jobs and any(spec.tasks is not None for spec in specs):
            print(f"Job {arg} not found")    # an array's task that is gone (Slurm prints it on stdout)
            raise SystemExit(1)
        if not jobs:
            print("No jobs in the system")
            return
        sys.stdout.write(scontrol_show.show_jobs(jobs, reply.now, oneliner=oneliner, details=details))
    elif entity in ("step", "steps"):
        show_steps(arg, oneliner)
    elif entity in ("node", "nodes"):
        nodes = client.controller("GetNodes", pb.Empty(), pb.NodeList).nodes
        if arg:
            wanted = set(_expand(arg))
            nodes = [n for n in nodes if n.name in wanted]
            if not nodes:
                die(f"Node {arg} not found")
        sys.stdout.write(scontrol_show.show_nodes(nodes, oneliner=oneliner, details=details))
    elif len(entity) >= 2 and "licenses".startswith(entity):
        lics = client.controller("GetLicenses", pb.Empty(), pb.LicenseList).licenses
        sys.stdout.write(scontrol_show.show_licenses(lics, arg, oneliner=oneliner))
    elif entity and ("reservations".startswith(entity) or "reservationname".startswith(entity)):
        reservations.show(arg, oneliner)
    elif entity in ("partition", "partitions", "part"):
        parts = client.controller("GetPartitions", pb.PartitionQuery(show_all=show_all), pb.PartitionList).partitions
        if arg:
            parts = [p for p in parts if p.name == arg]
            if not parts:
                die(f"Partition {arg} not found")
        sys.stdout.write(scontrol_show.show_partitions(parts, oneliner=oneliner))
    elif entity == "config":
        dump = client.controller("GetConfig", pb.Empty(), pb.ConfigDump)
        sys.stdout.write(scontrol_show.show_config(
            [(e.key, e.value) for e in dump.entries], dump.read_time,
            [(s.title, [(e.key, e.value) for e in s.entries]) for s in dump.sections]))
        # As Slurm, the controllers' state after a blank line.
        sys.stdout.write("\n" + "\n".join(_ping_lines()[0]) + "\n")
    elif entity == "hostnames":
        import os

        for name in _expand(arg or os.environ.get("SLURM_JOB_NODELIST", "")):
            print(name)
    elif entity == "hostlist":
        print(hostlist.compress(_expand(arg), sort=False))
    elif entity == "hostlistsorted":
        print(hostlist.compress(_expand(arg), unique=False))
    else:
        die(f"invalid entity:{words[0]} for keyword:show")


def show_steps(arg: str, oneliner: bool) -> None:
    """`show step [J[.S]]`: running steps, all of them or of one job, or one step."""
    job_text, _, step_text = arg.partition(".")
    if (job_text and not JOB_ID.accepts(job_text)) or (step_text and not STEP_ID.accepts(step_text)):
        die("Invalid job step id specified")
    try:
        reply = client.controller("GetJobs", pb.JobQuery(job_ids=[int(job_text)] if job_text else []), pb.JobList)
    except SlurmError as exc:
        print(f"slurm_get_job_steps error: {exc.strerror}", file=sys.stderr)
        raise SystemExit(1)
    steps = [s for j in sorted(reply.jobs, key=lambda j: j.job_id) for s in j.steps
             if s.state == "RUNNING" and (not step_text or s.step_id == step_text)]
    if not steps:
        print(f"Job step {arg} not found" if step_text else "No job steps in the system")
        return
    sys.stdout.write(scontrol_show.show_steps(steps, oneliner=oneliner))


def _expand(expr: str) -> list[str]:
    try:
        return hostlist.expand(expr)
    except hostlist.HostlistError as exc:
        die(str(exc))


NODE_STATES = ("DOWN", "DRAIN", "RESUME", "UNDRAIN")


def update(words: list[str]) -> None:
    if len(words) > 1 and words[0].lower() == "job":
        words = [f"JobId={words[1]}", *words[2:]]     # `update job N ...`, which Slurm takes too
    pairs = dict(_words_to_pairs(words))
    if "jobid" in pairs:
        update_job(words)
        return
    if any(reservations.is_name_key(key) for key in pairs):
        reservations.update(words)
        return
    if "partitionname" in pairs:
        others = [w for w in words if w.partition("=")[0].lower() != "partitionname"]
        if not others:
            die("No changes specified")
        _edit_partition("update", pairs["partitionname"], others, "slurm_update error")
        return
    if "nodename" not in pairs:
        die("Update of this entity is not supported yet (only NodeName=... State=...)")
    state = pairs.get("state", "").upper()
    if not state:
        _refuse("No changes specified")
    if state not in NODE_STATES:
        _refuse(f"Invalid input: State={pairs['state']}", "Request aborted",
                f"Valid states are: {' '.join(NODE_STATES)}")
    if state in ("DOWN", "DRAIN") and not pairs.get("reason"):
        _refuse("You must specify a reason when DOWNING or DRAINING a node. Request denied")
    try:
        client.controller("UpdateNodes", pb.NodeUpdateRequest(
            names=[pairs["nodename"]], state=state, reason=pairs.get("reason", "")), pb.Empty)
    except SlurmError as exc:
        _refuse(f"slurm_update error: {exc.strerror}")


def create(words: list[str]) -> None:
    """`create partition[name]=<p> Key=Value ...` or `create nodename=<n> CPUs=... ...` (a
    dynamic node, before its `pyslurmd -Z` starts)."""
    if not words:
        die("too few arguments for keyword:create")
    if any(reservations.is_name_key(word.partition("=")[0]) for word in words):
        reservations.create(words)
        return
    key, sep, value = words[0].partition("=")
    key = key.lower()
    if key == "nodename" and value:
        try:
            client.controller("CreateNode", pb.NodeCreateRequest(definition=" ".join(words)), pb.Empty)
        except SlurmError as exc:
            _refuse(*([f"{PROG}: error: {exc.detail}"] if exc.detail else []), f"Error creating the node(s): {exc.strerror}")
        return
    if key in ("partition", "partitionname") and value:
        _edit_partition("create", value, words[1:], "Error creating the partition")
        return
    die(f"Invalid creation entity: {words[0]}")


def _edit_partition(action: str, name: str, settings: list[str], failure: str) -> None:
    try:
        client.controller("EditPartition", pb.PartitionEdit(action=action, name=name, settings=settings), pb.Empty)
    except SlurmError as exc:
        _refuse(*(f"{PROG}: error: {line}" for line in exc.detail.split("\n") if line), f"{failure}: {exc.strerror}")


def _refuse(*lines: str) -> NoReturn:
    """scontrol's own refusals are bare lines on stderr (no `scontrol: error:` prefix), exit 1."""
    for line in lines:
        print(line, file=sys.stderr)
    raise SystemExit(1)


def update_job(words: list[str]) -> None:
    """`update JobId=<id> Key=Value ...` (the controller names what it can change); errors per job, as
    Slurm prints them."""
    settings = [w for w in words if w.partition("=")[0].lower() != "jobid"]
    ids = [w.partition("=")[2] for w in words if w.partition("=")[0].lower() == "jobid"]
    if not settings:
        die("No changes specified")
    for setting in settings:
        if setting.partition("=")[0].lower() not in JOB_UPDATE_KEYS:
            _refuse(f"Update of this parameter is not supported: {setting}", "Request aborted")
        _check_number(setting)
    _job_request(ids, "update", settings)


# The numbers scontrol checks itself before asking, with Slurm's words (the controller checks again).
_UPDATE_NUMBERS = {
    "priority": (bounds.PRIORITY, "Invalid Priority value: {}"),
    "nice": (bounds.NICE, f"Nice value out of range (+/- {bounds.NICE_MAX}). Value ignored"),
    "numcpus": (bounds.CPU_COUNT, "Invalid NumCPUs value: {}"),
    "arraytaskthrottle": (bounds.ARRAY_THROTTLE, "Invalid ArrayTaskThrottle value"),
}


def _check_number(setting: str) -> None:
    key, sep, value = setting.partition("=")
    key = key.lower().rstrip("+-")
    if not sep:
        return       # a bare word (Slurm's `Nice` alone): the controller answers it
    if key == "timelimit":
        try:
            units.parse_time_limit(value[1:] if value[:1] in "+-" and value[1:] else value)
        except ValueError:
            die("Invalid TimeLimit value")
    elif key in _UPDATE_NUMBERS:
        bound, message = _UPDATE_NUMBERS[key]
        if not bound.accepts(value):
            die(message.format(value))


def _job_request(items: list[str], action: str, settings: list[str] | None = None) -> None:
    """update, requeue, suspend ...: each failure bare on stderr, `<error> for job N`, as Slurm's
    scontrol prints them (no `scontrol: error:` prefix), exit 1."""
    failures = _job_results(items, action, settings)
    if failures:
        _refuse(*(f"{error} for job {job_id}" for job_id, error in failures))


def _job_results(items: list[str], action: str, settings: list[str] | None = None) -> list[tuple[int, str]]:
    """Send one job request for the listed ids: (job id, error) of each that failed."""
    ids = []
    for item in ",".join(items).split(","):
        if not item:
            continue
        try:
            ids.append(JOB_ID.parse(item))
        except ValueError:
            die(f"Invalid job id: {item}")
    if not ids:
        die(f"too few arguments for keyword:{action}")
    reply = client.controller("UpdateJobs", pb.JobUpdateRequest(job_ids=ids, action=action, settings=settings or []),
                              pb.JobUpdateReply)
    return [(r.job_id, r.error) for r in reply.results if r.error]


def job_action(action: str) -> Callable[[list[str]], None]:
    """hold, uhold, release: Slurm's scontrol prints each failure bare, then the last one's
    error once more after "slurm_suspend error: " (its wording in 22.05), and exits 1."""
    def handle(words: list[str]) -> None:
        failures = _job_results(words, action)
        if failures:
            lines = [f"{error} for job {job_id}" for job_id, error in failures]
            sys.stderr.write("\n".join([*lines, f"slurm_suspend error: {failures[-1][1]}"]) + "\n")
            raise SystemExit(1)
    return handle


def explain(words: list[str]) -> None:
    """`scontrol explain job <id>` (beyond Slurm): why a pending job is not running, in plain words."""
    entity, _, inline = (words[0] if words else "").partition("=")
    arg = inline or (words[1] if len(words) > 1 else "")
    if entity.lower() != "job" or not arg:
        die("usage: scontrol explain job <job_id>")
    if not JOB_ID.accepts(arg):
        die("Invalid job id specified")
    try:
        reply = client.controller("ExplainJob", pb.JobQuery(job_ids=[int(arg)]), pb.JobExplanation)
    except SlurmError as exc:
        print(f"slurm_load_jobs error: {exc.strerror}", file=sys.stderr)
        raise SystemExit(1)
    sys.stdout.write("".join(line + "\n" for line in reply.lines))


def notify(words: list[str]) -> None:
    """`notify <job_id> <message>`: the controller has the line written to the running job's
    standard error (the batch script's error file, or each step's srun)."""
    if len(words) < 2:
        die("too few arguments for keyword:notify")
    if not JOB_ID.accepts(words[0]):
        die(f"Invalid job id: {words[0]}")
    try:
        client.controller("NotifyJob", pb.JobNotification(job_id=int(words[0]), text=" ".join(words[1:])), pb.Empty)
    except SlurmError as exc:
        _refuse(f"job notify failure: {exc.strerror}")


def top(words: list[str]) -> None:
    """`top <job_list>`: the listed pending jobs first among the caller's jobs of their
    partition, account and QOS (the controller moves priority over from the others)."""
    if len(words) != 1:
        die(f"too {'few' if not words else 'many'} arguments for keyword:top")
    listed = words[0]
    for prefix in ("jobid=", "job="):
        if listed.lower().startswith(prefix):
            listed = listed[len(prefix):]
    try:   # the controller reads the ids (`123`, `123_*`, `123_5`), as Slurm's
        client.controller("TopJobs", pb.TopJobsRequest(job_specs=[item for item in listed.split(",") if item]),
                          pb.Empty)
    except SlurmError as exc:
        _refuse(f"{exc.strerror} for job {listed}")


def requeue_action(action: str) -> Callable[[list[str]], None]:
    """`requeue [Incomplete] <jobs>` (and requeuehold): only jobs not finished with Incomplete."""
    def handle(words: list[str]) -> None:
        incomplete = bool(words) and words[0].lower() == "incomplete"
        # A job that requeues itself (submitit's checkpoint) gets SIGTERM as soon as the controller
        # acts: held back, it cannot kill this process before the answer is in (SIGKILL still ends it).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        _job_request(words[incomplete:], action, ["Incomplete"] if incomplete else [])
    return handle


def reconfigure(words: list[str]) -> None:
    """Re-read slurm.conf (and gres.conf, cgroup.conf) on the controller and every node agent."""
    try:
        client.controller("Reconfigure", pb.Empty(), pb.Empty, timeout=60)
    except SlurmError as exc:
        _refuse(*([f"{PROG}: error: {exc.detail}"] if exc.detail else []), f"slurm_reconfigure error: {exc.strerror}")


def delete(words: list[str]) -> None:
    pairs = _words_to_pairs(words)
    if not pairs:
        die("too few arguments for keyword:delete")
    key, value = pairs[0]
    if reservations.is_name_key(key):
        if len(words) > 2 or (len(words) == 1 and not value):
            die("Proper format is 'delete <ENTITY>=<ID>' or 'delete <ENTITY> <ID>'")
        reservations.delete(words[0], value or words[1])
        return
    if key == "partitionname" and value:
        _edit_partition("delete", value, [], f"delete_partition {words[0]}")
        return
    if key != "nodename" or not value:
        die(f"invalid keyword: {words[0]}")
    try:
        client.controller("DeleteNodes", pb.NodeDeleteRequest(names=[value]), pb.Empty)
    except SlurmError as exc:
        if exc.detail:
            die(exc.detail)
        _refuse(f"delete_node {words[0]}: {exc.strerror}")


def _ping_lines() -> tuple[list[str], bool]:
    """`Slurmctld(primary) at NAME is UP` for each SlurmctldHost, and whether one is down."""
    from pyslurm_common.client_settings import controller_names, controller_role

    controllers = controller_names()
    lines, down = [], False
    for index, name in enumerate(controllers):
        try:
            client.controller_at(index, "Ping", pb.Empty(), pb.PingReply, timeout=5)
            state = "UP"
        except client.ConnectError:
            state, down = "DOWN", True
        lines.append(f"Slurmctld({controller_role(index, len(controllers))}) at {name} is {state}")
    return lines, down


def ping(words: list[str]) -> None:
    """Slurm's line for each SlurmctldHost; exit 1 when one does not answer (root also gets
    the banner). A backup standing by answers, so it is UP."""
    import os

    lines, down = _ping_lines()
    print("\n".join(lines))
    if down:
        if os.getuid() == 0:
            print("*****************************************\n"
                  "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
                  "*****************************************")
        raise SystemExit(1)


def takeover(words: list[str]) -> None:
    """`scontrol takeover [INDEX]`: tell a backup (default the first) to take control now."""
    from pyslurm_common.client_settings import controller_names

    index = words[0] if words else "1"
    controllers = controller_names()
    if not index.isdigit() or not 1 <= int(index) < len(controllers):
        die(f"Invalid backup controller index: {index}" if len(controllers) > 1 else "No backup controller configured")
    try:
        client.controller_at(int(index), "Takeover", pb.Empty(), pb.Empty, timeout=10)
    except client.ConnectError:
        die("slurm_takeover error: Unable to contact slurm controller (connect failure)")
    except SlurmError as exc:
        die(f"slurm_takeover error: {exc.strerror}")


TOKEN_INFINITE = 2**31 - 2     # INT_MAX - 1, what Slurm sends for lifespan=infinite


def _lifespan(text: str) -> int:
    """Slurm's parse_int(positive) for `lifespan=`; infinite/unlimited as INT_MAX - 1."""
    if text.lower() in ("infinite", "unlimited"):
        return TOKEN_INFINITE
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        die(f'Invalid numeric value "{text}" for lifespan.')
    if value > TOKEN_INFINITE:
        die(f"Numeric argument ({value}) too large for lifespan.")
    return value


def token(words: list[str]) -> None:
    """`scontrol token [lifespan=N|infinite] [username=U]`: a JWT for pyslurmrestd, minted by the
    controller (only root/SlurmUser may name another user)."""
    user, lifespan = "", 0
    for word in words:
        key, _, value = word.partition("=")
        if key.lower() == "lifespan" and "=" in word:
            lifespan = _lifespan(value)
        elif key.lower() == "username" and "=" in word:
            user = value
        else:
            _refuse(f"Invalid option: `{word}`")
    try:
        reply = client.controller("CreateToken", pb.TokenRequest(user_name=user, lifespan=lifespan), pb.TokenReply)
    except SlurmError as exc:
        die(f"slurm_fetch_token: error with request: {exc.strerror}")
    print(f"SLURM_JWT={reply.token}")


def scontrol(args: Sequence[str]) -> None:
    """View or modify pyslurm configuration and state."""
    values, operands = parse(spec, args)   # options may stand among the command words, as getopt permutes
    words = tuple(operands)
    if values.get("uid") is not None:
        _run_as(values["uid"])
    if values.get("clusters") is not None:
        from .cluster_option import check_clusters, this_cluster

        check_clusters(PROG, values["clusters"], this_cluster())
    oneliner = bool(values.get("oneliner"))
    details = bool(values.get("details"))
    show_all = last_says(values, ("all",), ("hide",))   # -a, SCONTROL_ALL; a later --hide undoes it
    if not words:
        die("interactive mode is not supported; give a command (show, update, hold, release, ping)")
    command, rest = words[0].lower(), list(words[1:])
    handlers: dict[str, Callable[[list[str]], None]] = {
        "show": lambda w: show(w, oneliner, show_all, details), "update": update, "hold": job_action("hold"),
        "uhold": job_action("uhold"), "release": job_action("release"), "ping": ping,
        "requeue": requeue_action("requeue"), "requeuehold": requeue_action("requeuehold"),
        "suspend": lambda w: _job_request(w, "suspend"), "resume": lambda w: _job_request(w, "resume"),
        "reconfigure": reconfigure, "delete": delete, "create": create, "takeover": takeover,
        "version": lambda w: print("slurm 22.05.8"), "explain": explain, "token": token,
        "notify": notify, "top": top,
    }
    handler = handlers.get(command)
    if handler is None:
        die(f"Invalid keyword: {words[0]}")
    handler(rest)


def _run_as(user: str) -> None:
    """-u/--uid: Slurm's scontrol acts as another user for root; an unknown one is its error
    (and, as Slurm's, exit status 0)."""
    import pwd

    try:
        pwd.getpwnam(user) if not user.isdigit() else pwd.getpwuid(int(user))
    except (KeyError, OverflowError):
        print(f'scontrol: error: --uid="{user}" invalid', file=sys.stderr)
        raise SystemExit(0) from None
    die("--uid is not supported by pyslurm")


def main() -> None:
    run(PROG, scontrol)
