"""The stepd fork server: starts every stepd of a node by fork, not by exec.

A new Python process costs 40 ms or more before stepd runs a line; a fork of
this process, which has stepd's code loaded already, costs about a millisecond,
and srun latency and job throughput are made of such starts. pyslurmd runs it
as `python -m pyslurm_d.stepd_server <socket>` and keeps its stdin open: when
pyslurmd goes away the server exits, while the stepds it forked live on (they
outlive a restarting pyslurmd, as always).

Per connection on the root-only unix socket, pyslurmd sends two lines, the stepd's
place (step directory and cgroup root) and the launch (step_messages.py); the server forks a
stepd in a session of its own, which answers `started <pids>` or `failed <why>`
on the connection and holds it open until it exits: end of file on it is how
pyslurmd learns that the step is over. Single-threaded; stdlib only.
"""
from __future__ import annotations

import os
import pwd
import selectors
import signal
import socket
import sys
import traceback
from pathlib import Path

from . import stepd
from .launch import Launch
from .step_messages import MessageError, StepdPlace, decode


def serve(listener: socket.socket) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)   # the kernel reaps the stepds; nobody waits for them
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "listener")
    selector.register(sys.stdin, selectors.EVENT_READ, "parent")
    while True:
        for key, _ in selector.select():
            if key.data == "parent":
                if not os.read(sys.stdin.fileno(), 4096):
                    return   # pyslurmd is gone
                continue
            conn, _ = listener.accept()
            try:
                _fork_stepd(listener, conn)
            except (OSError, MessageError) as exc:
                _answer(conn, f"failed cannot start stepd: {exc}")
            finally:
                conn.close()


def _fork_stepd(listener: socket.socket, conn: socket.socket) -> None:
    stream = conn.makefile("rb")
    try:
        place = decode(StepdPlace, stream.readline())
        launch = decode(Launch, stream.readline())
    finally:
        stream.close()
    if os.fork() != 0:
        return
    # The stepd: a fresh session, default signal dispositions, nothing of the server's.
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        listener.close()
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1):   # stderr stays pyslurmd's log
            os.dup2(null, fd)
        stepd.run(Path(place.step_dir), Path(place.cgroup_root), launch,
                  lambda line: _answer(conn, line))
    except BaseException:  # noqa: BLE001 - a stepd must never return into the server's loop
        traceback.print_exc()   # into pyslurmd's stderr (journald)
        os._exit(1)
    os._exit(0)   # the connection closes with the process: pyslurmd sees the end


def _warm_up() -> None:
    """Load once, here, what every stepd would otherwise load after its fork: glibc's NSS
    modules (a stepd looks up the user's groups, a task its passwd entry: libnss_systemd and
    the libraries it links) and the idna codec (getaddrinfo encodes srun's host with it, which
    imports encodings.idna, stringprep and unicodedata). Nothing about any user is kept: glibc
    keeps the modules, Python the codec; each lookup still reads the databases afresh."""
    try:
        os.getgrouplist(pwd.getpwuid(0).pw_name, 0)
    except (KeyError, OSError):
        pass   # a host without a passwd entry for root still runs stepds, loading the modules then
    "localhost".encode("idna")


def _answer(conn: socket.socket, line: str) -> None:
    try:
        conn.sendall((line + "\n").encode())
    except OSError:
        pass   # pyslurmd restarted meanwhile; the result file tells the next one


def main() -> None:
    path = Path(sys.argv[1])
    path.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o077)
    try:
        listener.bind(str(path))   # root only: whoever can talk here can run anything as anyone
    finally:
        os.umask(old_umask)
    listener.listen(64)
    _warm_up()
    serve(listener)


if __name__ == "__main__":
    main()
